/** Metering in memory: usage counters, rate-limit buckets, request metering, idempotency keys. */
import type * as S from "../Storage.ts"
import { clone, type Ctx } from "./common.ts"

export const metering = (db: Ctx): S.MeteringShape => ({
  usage: {
    get: (accountId, period, metric) => db.locked(() => db.t.usage.get(`${accountId}|${period}|${metric}`) ?? 0),
    markAlert: (accountId, period, metric, threshold) =>
      db.locked(() => {
        const key = `${accountId}|${period}|${metric}|${threshold}`
        if (db.t.alerts.has(key)) return false
        db.t.alerts.add(key)
        return true
      }),
    alerts: (accountId, period, metric) =>
      db.locked(() => {
        const prefix = `${accountId}|${period}|${metric}|`
        return [...db.t.alerts].filter((k) => k.startsWith(prefix)).map((k) => Number(k.slice(prefix.length))).sort((a, b) => a - b)
      })
  },

  rateLimits: {
    update: (accountId, step) =>
      db.locked(() => {
        const [result, state] = step(db.t.rateLimits.get(accountId) as never)
        db.t.rateLimits.set(accountId, clone(state))
        db.t.rateLimitUses.set(accountId, state.refilledAt)
        return result
      }),
    purge: (before, limit) =>
      db.locked(() => {
        const idle = [...db.t.rateLimitUses].filter(([, at]) => at < before).sort((a, b) => a[1] - b[1]).slice(0, limit)
        for (const [key] of idle) {
          db.t.rateLimits.delete(key)
          db.t.rateLimitUses.delete(key)
        }
        return idle.length
      })
  },

  idempotency: {
    begin: (accountId, key, fingerprint, token, now, limits) =>
      db.locked((): S.IdempotencyBegin => {
        const id = `${accountId}|${key}`
        const row = db.t.idempotency.get(id)
        const free = !row || row.created_at < limits.expiredBefore ||
          (row.response === null && row.created_at < limits.abandonedBefore)
        if (free) {
          db.t.idempotency.set(id, { fingerprint, token, created_at: now, response: null })
          return { kind: "new" }
        }
        if (row.fingerprint !== fingerprint) return { kind: "mismatch" }
        return row.response === null ? { kind: "in_progress" } : { kind: "replay", response: clone(row.response) }
      }),
    complete: (accountId, key, token, response) =>
      db.locked(() => {
        const id = `${accountId}|${key}`
        const row = db.t.idempotency.get(id)
        if (!row || row.token !== token || row.response !== null) return false
        db.t.idempotency.set(id, { ...row, response: clone(response) })
        return true
      }),
    release: (accountId, key, token) =>
      db.locked(() => {
        const id = `${accountId}|${key}`
        const row = db.t.idempotency.get(id)
        if (!row || row.token !== token || row.response !== null) return false
        db.t.idempotency.delete(id)
        return true
      }),
    purge: (before, limit) =>
      db.locked(() => {
        const old = [...db.t.idempotency].filter(([, r]) => r.created_at < before).sort((a, b) => a[1].created_at - b[1].created_at).slice(0, limit)
        for (const [id] of old) db.t.idempotency.delete(id)
        return old.length
      })
  },

  requests: {
    meter: (accountId, period, decide) =>
      db.locked(() => {
        const account = db.t.accounts.get(accountId)
        if (!account) return undefined
        const step = decide(account.plan, db.t.rateLimits.get(accountId) as never)
        db.t.rateLimits.set(accountId, clone(step.state))
        const key = `${accountId}|${period}|api_requests`
        const count = (db.t.usage.get(key) ?? 0) + (step.count ? 1 : 0)
        if (step.count) db.t.usage.set(key, count)
        return { result: step.result, count }
      })
  }
})
