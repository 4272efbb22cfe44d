/** Webhooks and the outbox over SQL: events, leased deliveries, delivery logs. */
import { Array as Arr, Effect } from "effect"
import type * as S from "../Storage.ts"
import { fromDb, numOrNull } from "./codec.ts"
import { type Context, forgetting, memo, memoKey, orStorage } from "./common.ts"

export const outbox = (c: Context): S.OutboxShape => {
  const { sql, dialect, one, all, count, affected, insert, insertAll, holdOrRun, patchRow, page, totals, skipLocked, transaction } = c

  /** Deliveries joined with their event and webhook, as a dispatcher needs them. */
  const claimedRows = (ids: ReadonlyArray<string>) =>
    Effect.map(
      sql`select d.*, e.payload as payload, e.type as event_type, e.created_at as event_created_at,
            w.url as url, w.secret as secret, coalesce(w.enabled, 0) as webhook_enabled,
            coalesce(w.consecutive_failures, 0) as webhook_consecutive_failures, w.failing_since as webhook_failing_since
          from deliveries d join events e on e.id = d.event_id left join webhooks w on w.id = d.webhook_id
          where d.id in ${sql.in(ids)} order by d.next_attempt_at, d.id`,
      (rows) =>
        rows.map((r) => {
          const x = r as { webhook_enabled: unknown; webhook_consecutive_failures: unknown }
          return {
            ...fromDb<S.DeliveryRow>("deliveries", r)!,
            webhook_enabled: Boolean(Number(x.webhook_enabled)),
            webhook_consecutive_failures: Number(x.webhook_consecutive_failures)
          } as S.ClaimedDelivery
        })
    )

  return {
    webhooks: {
      insert: (row) => forgetting(orStorage(Effect.asVoid(insert("webhooks", row)))),
      get: (accountId, id) => one("webhooks", sql`select * from webhooks where account_id = ${accountId} and id = ${id}`),
      update: (accountId, id, patch) => forgetting(one("webhooks", patchRow("webhooks", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`])))),
      delete: (accountId, id) => forgetting(affected(sql`delete from webhooks where account_id = ${accountId} and id = ${id} returning id`)),
      list: (accountId) =>
        memo(memoKey.webhooksOf(accountId), all("webhooks", sql`select * from webhooks where account_id = ${accountId} order by created_at asc, id asc`)),
      count: (accountId) => Effect.map(totals(accountId), (t) => t.webhooks)
    },

    outbox: {
      // The event and its deliveries in one statement on PostgreSQL (data-modifying CTEs: one
      // round trip, held in a transaction to go with its other appends; the deliveries' foreign
      // key is checked at the statement's end).
      append: (event, deliveries) =>
        orStorage(
          holdOrRun(Arr.isReadonlyArrayNonEmpty(deliveries) ? [insert("events", event), insertAll("deliveries", deliveries)] : [insert("events", event)])
        ),
      getEvent: (accountId, id) => one("events", sql`select * from events where account_id = ${accountId} and id = ${id}`),
      listEvents: (accountId, q) => {
        const clauses = [sql`account_id = ${accountId}`]
        if (q.type !== undefined) clauses.push(sql`type = ${q.type}`)
        if (q.created_after !== undefined) clauses.push(sql`created_at >= ${q.created_after}`)
        if (q.created_before !== undefined) clauses.push(sql`created_at < ${q.created_before}`)
        return page<S.EventRow>("events", clauses, "created_at", true, q)
      },
      listDeliveries: (accountId, eventId) =>
        all("deliveries", sql`select * from deliveries where account_id = ${accountId} and event_id = ${eventId} order by created_at asc, id asc`),
      cancelPending: (accountId, webhookId, at) =>
        all<S.DeliveryRow>("deliveries",
          sql`update deliveries set status = 'canceled', next_attempt_at = null, lease_owner = null, lease_expires_at = null, updated_at = ${at}
              where account_id = ${accountId} and webhook_id = ${webhookId} and status = 'pending' returning *`),
      claimDue: (now, limit, owner, leaseUntil, exclude = []) =>
        transaction(orStorage(Effect.gen(function*() {
          const notExcluded = exclude.length > 0 ? sql`and webhook_id not in ${sql.in(exclude)}` : sql``
          const pick = sql`select id from deliveries where status = 'pending' and next_attempt_at <= ${now}
            and (lease_expires_at is null or lease_expires_at < ${now}) ${notExcluded}
            order by next_attempt_at, id limit ${limit}`
          const ids = (dialect === "pg" ? yield* sql`${pick} for update skip locked` : yield* pick).map((r) => (r as { id: string }).id)
          if (ids.length === 0) return []
          yield* sql`update deliveries set lease_owner = ${owner}, lease_expires_at = ${leaseUntil} where id in ${sql.in(ids)}`
          return yield* claimedRows(ids)
        }))),
      release: (ids, owner) =>
        ids.length === 0 ? Effect.void : orStorage(Effect.asVoid(
          sql`update deliveries set lease_owner = null, lease_expires_at = null where id in ${sql.in(ids)} and lease_owner = ${owner}`
        )),
      claimOne: (id, now, owner, leaseUntil) =>
        transaction(orStorage(Effect.gen(function*() {
          const rows = yield* sql`update deliveries set lease_owner = ${owner}, lease_expires_at = ${leaseUntil}
            where id = ${id} and status = 'pending' and (lease_expires_at is null or lease_expires_at < ${now} or lease_owner = ${owner}) returning id`
          if (rows.length === 0) return undefined
          return (yield* claimedRows([id]))[0]
        }))),
      recordAttempt: (r) =>
        transaction(orStorage(Effect.gen(function*() {
          yield* insert("delivery_logs", r.log)
          const updated = yield* sql`update deliveries set attempts = ${r.attempts}, status = ${r.status}, next_attempt_at = ${r.next_attempt_at},
              lease_owner = null, lease_expires_at = null, updated_at = ${r.updated_at}
            where id = ${r.delivery_id} and status = 'pending' and lease_owner = ${r.owner} returning id`
          return updated.length > 0
        }))),
      nextDue: orStorage(
        Effect.map(sql`select min(next_attempt_at) as at from deliveries where status = 'pending'`,
          (rows) => numOrNull((rows[0] as { at?: unknown } | undefined)?.at))
      ),
      pendingCount: (cap) => count(sql`select count(*) as n from (select 1 from deliveries where status = 'pending' limit ${cap}) c`),
      getLog: (accountId, webhookId, id) =>
        one("delivery_logs", sql`select * from delivery_logs where account_id = ${accountId} and webhook_id = ${webhookId} and id = ${id}`),
      purgeLogs: (before, limit) =>
        orStorage(Effect.map(
          sql`delete from delivery_logs where id in (
            select id from delivery_logs where created_at < ${before} order by created_at limit ${limit} ${skipLocked}) returning id`,
          (rows) => rows.length
        )),
      // Found oldest first by the events' time index, each checked for a pending delivery by the
      // deliveries' event index; the deliveries go first (the foreign key would cascade anyway).
      purgeEvents: (before, limit) =>
        transaction(orStorage(Effect.gen(function*() {
          const ids = (yield* sql`select id from events e where created_at < ${before}
              and not exists (select 1 from deliveries d where d.event_id = e.id and d.status = 'pending')
              order by created_at limit ${limit} ${skipLocked}`).map((r) => (r as { id: string }).id)
          if (ids.length === 0) return 0
          yield* sql`delete from deliveries where event_id in ${sql.in(ids)}`
          yield* sql`delete from events where id in ${sql.in(ids)}`
          return ids.length
        }))),
      addDeliveries: (deliveries) => Arr.isReadonlyArrayNonEmpty(deliveries) ? orStorage(Effect.asVoid(insertAll("deliveries", deliveries))) : Effect.void,
      insertLog: (row) => orStorage(Effect.asVoid(insert("delivery_logs", row))),
      listLogs: (accountId, webhookId, q) => {
        const clauses = [sql`account_id = ${accountId}`, sql`webhook_id = ${webhookId}`]
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        if (q.event_type !== undefined) clauses.push(sql`event_type = ${q.event_type}`)
        return page<S.DeliveryLogRow>("delivery_logs", clauses, "created_at", true, q)
      }
    }
  }
}
