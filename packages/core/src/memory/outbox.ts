/** Webhooks and the outbox in memory: events, leased deliveries, delivery logs. */
import type * as S from "../Storage.ts"
import { byKeyThenId, clone, type Ctx, owned, page } from "./common.ts"

export const outbox = (db: Ctx): S.OutboxShape => {
  /** Leases a delivery and joins what sending it needs. */
  const claimed = (d: S.DeliveryRow, owner: string, leaseUntil: number): S.ClaimedDelivery => {
    const leased = { ...d, lease_owner: owner, lease_expires_at: leaseUntil }
    db.t.deliveries.set(d.id, leased)
    const e = db.t.events.get(d.event_id)!
    const w = db.t.webhooks.get(d.webhook_id)
    return clone({
      ...leased,
      payload: e.payload,
      event_type: e.type,
      event_created_at: e.created_at,
      url: w?.url ?? null,
      secret: w?.secret ?? null,
      webhook_enabled: w?.enabled ?? false,
      webhook_consecutive_failures: w?.consecutive_failures ?? 0,
      webhook_failing_since: w?.failing_since ?? null
    })
  }

  return {
    webhooks: {
      insert: (row) => db.locked(() => void db.t.webhooks.set(row.id, clone(row))),
      get: (accountId, id) => db.locked(() => clone(owned(db.t.webhooks.get(id), accountId))),
      update: (accountId, id, patch) => db.locked(() => db.update(db.t.webhooks, owned(db.t.webhooks.get(id), accountId), patch)),
      delete: (accountId, id) => db.locked(() => !!owned(db.t.webhooks.get(id), accountId) && db.t.webhooks.delete(id)),
      list: (accountId) =>
        db.locked(() => [...db.t.webhooks.values()].filter((w) => w.account_id === accountId).sort(byKeyThenId((w) => w.created_at, false)).map(clone)),
      count: (accountId) => db.locked(() => [...db.t.webhooks.values()].filter((w) => w.account_id === accountId).length)
    },

    outbox: {
      append: (event, deliveries) =>
        db.locked(() => {
          db.t.events.set(event.id, clone(event))
          for (const d of deliveries) db.t.deliveries.set(d.id, clone(d))
        }),
      getEvent: (accountId, id) => db.locked(() => clone(owned(db.t.events.get(id), accountId))),
      listEvents: (accountId, q) =>
        db.locked(() => {
          const rows = [...db.t.events.values()].filter((e) =>
            e.account_id === accountId && (q.type === undefined || e.type === q.type) &&
            (q.created_after === undefined || e.created_at >= q.created_after) && (q.created_before === undefined || e.created_at < q.created_before)
          )
          return page(rows, (e) => e.created_at, true, q, false)
        }),
      listDeliveries: (accountId, eventId) =>
        db.locked(() =>
          [...db.t.deliveries.values()].filter((d) => d.account_id === accountId && d.event_id === eventId)
            .sort(byKeyThenId((d) => d.created_at, false)).map(clone)
        ),
      cancelPending: (accountId, webhookId, at) =>
        db.locked(() => {
          const canceled: Array<S.DeliveryRow> = []
          for (const d of db.t.deliveries.values()) {
            if (d.account_id === accountId && d.webhook_id === webhookId && d.status === "pending") {
              const row: S.DeliveryRow = { ...d, status: "canceled", next_attempt_at: null, lease_owner: null, lease_expires_at: null, updated_at: at }
              db.t.deliveries.set(d.id, row)
              canceled.push(clone(row))
            }
          }
          return canceled
        }),
      claimDue: (now, limit, owner, leaseUntil, exclude = []) =>
        db.locked(() => {
          const due = [...db.t.deliveries.values()]
            .filter((d) =>
              d.status === "pending" && d.next_attempt_at !== null && d.next_attempt_at <= now &&
              (d.lease_expires_at === null || d.lease_expires_at < now) && !exclude.includes(d.webhook_id)
            )
            .sort((a, b) => (a.next_attempt_at! - b.next_attempt_at!) || (a.id < b.id ? -1 : 1))
            .slice(0, limit)
          return due.map((d) => claimed(d, owner, leaseUntil))
        }),
      release: (ids, owner) =>
        db.locked(() => {
          for (const id of ids) {
            const d = db.t.deliveries.get(id)
            if (d && d.lease_owner === owner) db.t.deliveries.set(id, { ...d, lease_owner: null, lease_expires_at: null })
          }
        }),
      claimOne: (id, now, owner, leaseUntil) =>
        db.locked(() => {
          const d = db.t.deliveries.get(id)
          if (!d || d.status !== "pending" || (d.lease_expires_at !== null && d.lease_expires_at >= now && d.lease_owner !== owner)) return undefined
          return claimed(d, owner, leaseUntil)
        }),
      recordAttempt: (r) =>
        db.locked(() => {
          db.t.logs.set(r.log.id, clone(r.log))
          const d = db.t.deliveries.get(r.delivery_id)
          if (!d || d.status !== "pending" || d.lease_owner !== r.owner) return false
          db.t.deliveries.set(d.id, { ...d, attempts: r.attempts, status: r.status, next_attempt_at: r.next_attempt_at, lease_owner: null,
            lease_expires_at: null, updated_at: r.updated_at })
          return true
        }),
      nextDue: db.locked(() => {
        let min: number | null = null
        for (const d of db.t.deliveries.values()) {
          if (d.status === "pending" && d.next_attempt_at !== null && (min === null || d.next_attempt_at < min)) min = d.next_attempt_at
        }
        return min
      }),
      pendingCount: (cap) =>
        db.locked(() => {
          let n = 0
          for (const d of db.t.deliveries.values()) {
            if (n >= cap) break
            if (d.status === "pending") n++
          }
          return n
        }),
      getLog: (accountId, webhookId, id) =>
        db.locked(() => {
          const l = owned(db.t.logs.get(id), accountId)
          return clone(l && l.webhook_id === webhookId ? l : undefined)
        }),
      purgeLogs: (before, limit) =>
        db.locked(() => {
          const old = [...db.t.logs.values()].filter((l) => l.created_at < before)
            .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)).slice(0, limit)
          for (const l of old) db.t.logs.delete(l.id)
          return old.length
        }),
      purgeEvents: (before, limit) =>
        db.locked(() => {
          const pending = new Set([...db.t.deliveries.values()].filter((d) => d.status === "pending").map((d) => d.event_id))
          const old = [...db.t.events.values()].filter((e) => e.created_at < before && !pending.has(e.id))
            .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)).slice(0, limit)
          const gone = new Set(old.map((e) => e.id))
          for (const d of db.t.deliveries.values()) if (gone.has(d.event_id)) db.t.deliveries.delete(d.id)
          for (const id of gone) db.t.events.delete(id)
          return old.length
        }),
      addDeliveries: (deliveries) =>
        db.locked(() => {
          for (const d of deliveries) db.t.deliveries.set(d.id, clone(d))
        }),
      insertLog: (row) => db.locked(() => void db.t.logs.set(row.id, clone(row))),
      listLogs: (accountId, webhookId, q) =>
        db.locked(() => {
          const rows = [...db.t.logs.values()].filter((l) =>
            l.account_id === accountId && l.webhook_id === webhookId &&
            (q.status === undefined || l.status === q.status) &&
            (q.event_type === undefined || l.event_type === q.event_type)
          )
          return page(rows, (l) => l.created_at, true, q, false)
        })
    }
  }
}
