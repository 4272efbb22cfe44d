/** Metering over SQL: usage counters, rate-limit buckets, request metering, idempotency keys. */
import { Effect } from "effect"
import type { Plan } from "../Plans.ts"
import type { State as RateLimitState } from "../RateLimit.ts"
import type * as S from "../Storage.ts"
import { json, parse } from "./codec.ts"
import { type Context, orStorage } from "./common.ts"
import { batchedMeter } from "./batchedMeter.ts"
import * as RequestPath from "./requestPath.ts"

export const metering = (c: Context): S.MeteringShape => {
  const { sql, dialect, affected, text, skipLocked, transaction } = c
  return {
    usage: {
      get: (accountId, period, metric) =>
        orStorage(Effect.map(
          sql`select value from usage_counters where account_id = ${accountId} and period = ${period} and metric = ${metric}`,
          (rows) => Number((rows[0] as { value?: unknown } | undefined)?.value ?? 0)
        )),
      markAlert: (accountId, period, metric, threshold) =>
        affected(sql`insert into usage_alerts (account_id, period, metric, threshold) values (${accountId}, ${period}, ${metric}, ${threshold})
                     on conflict do nothing returning threshold`),
      alerts: (accountId, period, metric) =>
        orStorage(Effect.map(
          sql`select threshold from usage_alerts where account_id = ${accountId} and period = ${period} and metric = ${metric} order by threshold`,
          (rows) => rows.map((r) => Number((r as { threshold: unknown }).threshold))
        ))
    },

    rateLimits: {
      update: (accountId, step) =>
        transaction(orStorage(Effect.gen(function*() {
          // Make sure the row exists, so that the read below can lock it.
          yield* sql`insert into rate_limits (account_id, state) values (${accountId}, ${null}) on conflict (account_id) do nothing`
          const rows = dialect === "pg"
            ? yield* sql`select state from rate_limits where account_id = ${accountId} for update`
            : yield* sql`select state from rate_limits where account_id = ${accountId}`
          const current = parse<RateLimitState | null>((rows[0] as { state: unknown } | undefined)?.state) ?? undefined
          const [result, next] = step(current)
          // An upsert: a purge may have removed an idle bucket since the read (it then starts afresh).
          yield* sql`insert into rate_limits (account_id, state, touched_at) values (${accountId}, ${json(next)}, ${next.refilledAt})
                     on conflict (account_id) do update set state = excluded.state, touched_at = excluded.touched_at`
          return result
        }))),
      purge: (before, limit) =>
        orStorage(Effect.map(sql`delete from rate_limits where touched_at < ${before} and account_id in (
            select account_id from rate_limits where touched_at < ${before} order by touched_at limit ${limit} ${skipLocked})
          returning account_id`, (rows) => rows.length))
    },

    idempotency: {
      begin: (accountId, key, fingerprint, token, now, limits) =>
        orStorage(Effect.gen(function*() {
          const where = sql`account_id = ${accountId} and idempotency_key = ${key}`
          // A purge may delete the row between the statements below: then start again.
          for (let attempt = 0;; attempt++) {
            // A free key is claimed by exactly one of concurrent inserts (the others do nothing)…
            const inserted = yield* sql`insert into idempotency_keys (account_id, idempotency_key, fingerprint, token, created_at)
              values (${accountId}, ${key}, ${fingerprint}, ${token}, ${now})
              on conflict (account_id, idempotency_key) do nothing returning token`
            if (inserted.length > 0) return { kind: "new" } as const
            // …an expired or abandoned one by exactly one of concurrent updates (the condition is
            // checked again on the row each finds, and no longer holds after the first).
            const taken = yield* sql`update idempotency_keys set fingerprint = ${fingerprint}, token = ${token}, created_at = ${now},
                response_status = ${null}, response_headers = ${null}, response_body = ${null}
              where ${where} and (created_at < ${limits.expiredBefore} or (response_status is null and created_at < ${limits.abandonedBefore}))
              returning token`
            if (taken.length > 0) return { kind: "new" } as const
            const rows = yield* sql`select fingerprint, response_status, response_headers, response_body from idempotency_keys where ${where}`
            const row = rows[0] as { fingerprint: string; response_status: unknown; response_headers: unknown; response_body: unknown } | undefined
            if (!row) {
              if (attempt < 3) continue
              return { kind: "in_progress" } as const
            }
            if (row.fingerprint !== fingerprint) return { kind: "mismatch" } as const
            if (row.response_status === null || row.response_status === undefined) return { kind: "in_progress" } as const
            return {
              kind: "replay",
              response: {
                status: Number(row.response_status),
                headers: parse<Record<string, string>>(row.response_headers) ?? {},
                body: row.response_body === null || row.response_body === undefined ? null : String(row.response_body)
              }
            } as const
          }
        })),
      complete: (accountId, key, token, response) =>
        affected(sql`update idempotency_keys set response_status = ${response.status}, response_headers = ${json(response.headers)},
            response_body = ${response.body}
          where account_id = ${accountId} and idempotency_key = ${key} and token = ${token} and response_status is null
          returning token`),
      release: (accountId, key, token) =>
        affected(sql`delete from idempotency_keys
          where account_id = ${accountId} and idempotency_key = ${key} and token = ${token} and response_status is null
          returning token`),
      purge: (before, limit) =>
        orStorage(Effect.map(sql`delete from idempotency_keys where created_at < ${before} and (account_id, idempotency_key) in (
            select account_id, idempotency_key from idempotency_keys where created_at < ${before} order by created_at limit ${limit} ${skipLocked})
          returning token`, (rows) => rows.length))
    },

    requests: {
      // PostgreSQL: batched per account, no lock held across round trips (`batchedMeter.ts`).
      // Elsewhere the statements of `requestPath.ts`, shared with the SQLite adapter's synchronous
      // route; SQLite's BEGIN IMMEDIATE already holds the write lock.
      meter: dialect === "pg" ? batchedMeter(c) : (accountId, period, decide) =>
        transaction(orStorage(Effect.gen(function*() {
          const row = (yield* text(RequestPath.PLAN_AND_BUCKET, [accountId]))[0] as { plan: Plan; state: unknown } | undefined
          if (!row) return undefined
          const plan = RequestPath.meterPlan(accountId, period, row, decide)
          yield* text(...plan.save)
          return { result: plan.result, count: RequestPath.counted((yield* text(...plan.counter))[0]) }
        })))
    }
  }
}
