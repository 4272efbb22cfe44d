/** The storage contract's cases for outbox: events, deliveries, claims and leases, delivery logs. */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import * as Ids from "../../Ids.ts"
import { Storage } from "../../Storage.ts"
import { eventWithDeliveries } from "../fixtures.ts"
import { accountWithTwoWebhooks, deliveryOf, iso } from "./helpers.ts"

export const outboxCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("outbox: events, deliveries, cancelling a webhook's pending deliveries, logs newest first with filters", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, w1, w2 } = yield* accountWithTwoWebhooks(s)
      const e1 = eventWithDeliveries(a.id, [w1.id, w2.id], "project.created")
      const e2 = eventWithDeliveries(a.id, [w1.id], "asset.created")
      yield* s.outbox.append(e1.event, e1.deliveries)
      yield* s.outbox.append({ ...e2.event, created_at: iso(9) }, e2.deliveries)
      assert.lengthOf(yield* s.outbox.listDeliveries(a.id, e1.event.id), 2)
      const events = yield* s.outbox.listEvents(a.id, { limit: 10, offset: 0 })
      assert.deepStrictEqual(events.rows.map((e) => e.id), [e2.event.id, e1.event.id])
      assert.strictEqual((yield* s.outbox.listEvents(a.id, { type: "asset.created", limit: 10, offset: 0 })).total, 1)
      assert.deepStrictEqual((yield* s.outbox.cancelPending(a.id, w1.id, iso(10))).map((d) => d.status), ["canceled", "canceled"])
      assert.lengthOf(yield* s.outbox.cancelPending(a.id, w1.id, iso(10)), 0)
      const statuses = (yield* s.outbox.listDeliveries(a.id, e1.event.id)).map((d) => `${d.webhook_id === w1.id ? "w1" : "w2"}:${d.status}`).sort()
      assert.deepStrictEqual(statuses, ["w1:canceled", "w2:pending"])

      const log = (i: number, status: "success" | "failed", type: string) => ({
        id: Ids.make("log"),
        account_id: a.id,
        webhook_id: w2.id,
        delivery_id: e1.deliveries[1]!.id,
        event_id: e1.event.id,
        event_type: type,
        attempt: i,
        status,
        response_code: status === "success" ? 200 : 500,
        response_time_ms: 12,
        error: status === "failed" ? "HTTP 500" : null,
        error_class: status === "failed" ? "http" : null,
        delivered_at: iso(i),
        next_retry_at: status === "failed" ? iso(i + 1) : null,
        created_at: iso(i)
      })
      for (const l of [log(1, "failed", "project.created"), log(2, "failed", "project.created"), log(3, "success", "asset.created")]) {
        yield* s.outbox.insertLog(l)
      }
      const logs = yield* s.outbox.listLogs(a.id, w2.id, { limit: 10, offset: 0 })
      assert.deepStrictEqual(logs.rows.map((l) => l.attempt), [3, 2, 1])
      assert.strictEqual((yield* s.outbox.listLogs(a.id, w2.id, { status: "failed", limit: 10, offset: 0 })).total, 2)
      assert.strictEqual((yield* s.outbox.listLogs(a.id, w2.id, { event_type: "asset.created", limit: 10, offset: 0 })).total, 1)
      assert.deepStrictEqual((yield* s.outbox.listLogs(a.id, w2.id, { limit: 1, offset: 1 })).rows.map((l) => l.attempt), [2])
      assert.strictEqual((yield* s.outbox.listLogs(a.id, w1.id, { limit: 10, offset: 0 })).total, 0)
    }))

  it.effect("delivery claims: due first, leased once, never twice at a time, reclaimed after the lease; attempts recorded under the lease", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, w1, w2 } = yield* accountWithTwoWebhooks(s)
      const T = 1_000_000_000
      const events = Array.from({ length: 6 }, (_, i) => eventWithDeliveries(a.id, [i % 2 ? w2.id : w1.id]))
      yield* Effect.forEach(events, ({ deliveries, event }, i) => s.outbox.append(event, deliveries.map((d) => ({ ...d, next_attempt_at: T + i * 10 }))), {
        discard: true
      })
      const ours = new Set(events.map((e) => e.deliveries[0]!.id))
      const mine = <R extends { readonly id: string }>(rows: ReadonlyArray<R>) => rows.filter((r) => ours.has(r.id))
      assert.isAtMost((yield* s.outbox.nextDue) ?? Infinity, T)

      // not yet due
      assert.lengthOf(mine(yield* s.outbox.claimDue(T - 1, 100, "early", T + 60_000)), 0)
      // concurrent claimers share the due deliveries without overlap
      const claims = yield* Effect.all(Array.from({ length: 4 }, (_, k) => s.outbox.claimDue(T + 25, 100, `owner-${k}`, T + 30_000)), {
        concurrency: "unbounded"
      })
      const claimedIds = claims.flatMap((c) => mine(c).map((d) => d.id))
      assert.strictEqual(claimedIds.length, 3, "deliveries due by T+25")
      assert.strictEqual(new Set(claimedIds).size, 3)
      const first = claims.flatMap((c) => mine(c))[0]!
      assert.strictEqual(first.payload, events.find((e) => e.deliveries[0]!.id === first.id)!.event.payload)
      assert.strictEqual(first.url, first.webhook_id === w1.id ? w1.url : w2.url)
      assert.isString(first.secret)
      assert.isTrue(first.webhook_enabled)
      // excluded webhooks are left alone; leased ones are not handed out again
      const rest = mine(yield* s.outbox.claimDue(T + 100, 100, "other", T + 30_000, [w2.id]))
      assert.deepStrictEqual(rest.map((d) => d.webhook_id), [w1.id])
      assert.lengthOf(mine(yield* s.outbox.claimDue(T + 100, 100, "other", T + 30_000)), 2)
      // a released lease makes the delivery claimable at once
      yield* s.outbox.release([rest[0]!.id], "someone-else")
      assert.lengthOf(mine(yield* s.outbox.claimDue(T + 100, 100, "third", T + 30_000)), 0, "only the holder can release")
      yield* s.outbox.release([rest[0]!.id], "other")
      assert.deepStrictEqual(mine(yield* s.outbox.claimDue(T + 100, 100, "third", T + 30_000)).map((d) => d.id), [rest[0]!.id])
      // after the lease expires, a delivery is claimable again
      const reclaimed = mine(yield* s.outbox.claimDue(T + 30_001, 100, "rescuer", T + 60_000))
      assert.strictEqual(reclaimed.length, 6)

      // an attempt recorded by a stale owner writes its log but does not move the delivery
      const d = reclaimed[0]!
      const log = (attempt: number, status: "success" | "failed") => ({
        id: Ids.make("log"),
        account_id: a.id,
        webhook_id: d.webhook_id,
        delivery_id: d.id,
        event_id: d.event_id,
        event_type: d.event_type,
        attempt,
        status,
        response_code: status === "success" ? 200 : 500,
        response_time_ms: 5,
        error: null,
        error_class: null,
        delivered_at: iso(1),
        next_retry_at: null,
        created_at: iso(1)
      })
      const stale = yield* s.outbox.recordAttempt({ delivery_id: d.id, owner: "owner-0", attempts: 1, status: "success", next_attempt_at: null,
        updated_at: iso(1), log: log(1, "failed") })
      assert.isFalse(stale)
      const ok = yield* s.outbox.recordAttempt({ delivery_id: d.id, owner: "rescuer", attempts: 1, status: "pending", next_attempt_at: T + 90_000,
        updated_at: iso(2), log: log(1, "failed") })
      assert.isTrue(ok)
      const after = (yield* deliveryOf(s, a.id, d.event_id, d.id))!
      assert.deepStrictEqual([after.attempts, after.status, after.next_attempt_at, after.lease_owner, after.lease_expires_at], [1, "pending", T + 90_000, null,
        null])
      assert.strictEqual((yield* s.outbox.listLogs(a.id, d.webhook_id, { limit: 10, offset: 0 })).total, 2)
      // claimOne takes a specific pending delivery
      const one = yield* s.outbox.claimOne(d.id, T + 31_000, "tester", T + 90_000)
      assert.strictEqual(one?.id, d.id)
      assert.isUndefined(yield* s.outbox.claimOne(d.id, T + 31_000, "somebody-else", T + 90_000))
      assert.isTrue(
        yield* s.outbox.recordAttempt({ delivery_id: d.id, owner: "tester", attempts: 2, status: "success", next_attempt_at: null, updated_at: iso(3),
          log: log(2, "success") })
      )
      assert.isUndefined(yield* s.outbox.claimOne(d.id, T + 31_000, "tester", T + 90_000), "a delivered delivery is not claimable")
      // a canceled delivery is not resurrected by a late attempt
      const c = reclaimed[1]!
      yield* s.outbox.cancelPending(a.id, c.webhook_id, iso(4))
      assert.isFalse(
        yield* s.outbox.recordAttempt({ delivery_id: c.id, owner: "rescuer", attempts: 1, status: "success", next_attempt_at: null, updated_at: iso(4),
          log: { ...log(1, "success"), id: Ids.make("log"), delivery_id: c.id, webhook_id: c.webhook_id } })
      )
      assert.strictEqual((yield* deliveryOf(s, a.id, c.event_id, c.id))?.status, "canceled")
      // logs by id, redelivery rows, purge
      const logs = yield* s.outbox.listLogs(a.id, d.webhook_id, { limit: 10, offset: 0 })
      assert.deepStrictEqual(yield* s.outbox.getLog(a.id, d.webhook_id, logs.rows[0]!.id), logs.rows[0])
      assert.isUndefined(yield* s.outbox.getLog(a.id, c.webhook_id === d.webhook_id ? "wh_other" : c.webhook_id, logs.rows[0]!.id))
      yield* s.outbox.addDeliveries([{ ...events[0]!.deliveries[0]!, id: Ids.make("delivery"), next_attempt_at: T }])
      assert.lengthOf(yield* s.outbox.listDeliveries(a.id, events[0]!.event.id), 2)
      const hooks = [...new Set([d.webhook_id, c.webhook_id])]
      const oldLogs = Effect.map(Effect.forEach(hooks, (w) => s.outbox.listLogs(a.id, w, { limit: 100, offset: 0 })), (pages) =>
        pages.flatMap((p) => p.rows).filter((l) => l.created_at < iso(2)).length)
      assert.isAtLeast(yield* oldLogs, 1)
      const newer = { ...log(3, "success"), id: Ids.make("log"), created_at: iso(5) }
      yield* s.outbox.insertLog(newer)
      // Purging is store-wide (other cases' logs may go too), in batches of at most `limit`.
      assert.strictEqual(yield* s.outbox.purgeLogs(iso(2), 1), 1, "a purge deletes at most its limit")
      while ((yield* s.outbox.purgeLogs(iso(2), 1_000)) > 0) { /* until none is left */ }
      assert.strictEqual(yield* oldLogs, 0)
      assert.deepStrictEqual(yield* s.outbox.getLog(a.id, d.webhook_id, newer.id), newer, "newer logs stay")
    }))

  it.effect("event retention: settled events before the cut go with their deliveries, oldest first within the limit; pending and newer stay", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, w1, w2 } = yield* accountWithTwoWebhooks(s)
      // Years before any other case's events: the purge is store-wide.
      const at = (day: number, minute: number) => new Date(Date.UTC(2000, 0, day, 0, minute)).toISOString()
      const cut = at(2, 0)
      const made = (created_at: string, statuses: ReadonlyArray<"pending" | "success" | "failed" | "canceled">) => {
        const e = eventWithDeliveries(a.id, statuses.map((_, i) => (i % 2 ? w2.id : w1.id)))
        return { event: { ...e.event, created_at }, deliveries: e.deliveries.map((d, i) => ({ ...d, status: statuses[i]! })) }
      }
      const oldest = made(at(1, 1), ["success"])
      const settled = made(at(1, 2), ["failed", "canceled"])
      const waiting = made(at(1, 3), ["success", "pending"])
      const bare = made(at(1, 4), [])
      const recent = made(at(3, 0), ["success"])
      for (const e of [recent, bare, waiting, settled, oldest]) yield* s.outbox.append(e.event, e.deliveries)
      const present = (e: { event: { id: string } }) => Effect.map(s.outbox.getEvent(a.id, e.event.id), (row) => row !== undefined)

      assert.strictEqual(yield* s.outbox.purgeEvents(cut, 1), 1, "a purge deletes at most its limit")
      assert.isFalse(yield* present(oldest), "the oldest goes first")
      assert.lengthOf(yield* s.outbox.listDeliveries(a.id, oldest.event.id), 0, "its deliveries go with it")
      assert.isTrue(yield* present(settled))
      while ((yield* s.outbox.purgeEvents(cut, 1_000)) > 0) { /* until none is left */ }
      assert.isFalse(yield* present(settled))
      assert.isFalse(yield* present(bare))
      assert.isTrue(yield* present(waiting), "an event with a pending delivery stays")
      assert.lengthOf(yield* s.outbox.listDeliveries(a.id, waiting.event.id), 2)
      assert.isTrue(yield* present(recent), "a newer event stays")
      // Once its last delivery is settled, the waiting event goes too.
      yield* s.outbox.cancelPending(a.id, w2.id, at(3, 1))
      while ((yield* s.outbox.purgeEvents(cut, 1_000)) > 0) { /* until none is left */ }
      assert.isFalse(yield* present(waiting))
      assert.lengthOf(yield* s.outbox.listDeliveries(a.id, waiting.event.id), 0)
      assert.isTrue(yield* present(recent))
    }))

  it.effect("outbox: pending deliveries are counted up to a cap; cancelled ones leave the count", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, w1 } = yield* accountWithTwoWebhooks(s)
      // The count is store-wide: other cases' pending deliveries count too.
      const before = yield* s.outbox.pendingCount(1_000_000)
      for (let i = 0; i < 3; i++) {
        const { deliveries, event } = eventWithDeliveries(a.id, [w1.id])
        yield* s.outbox.append(event, deliveries)
      }
      assert.strictEqual(yield* s.outbox.pendingCount(1_000_000), before + 3)
      assert.strictEqual(yield* s.outbox.pendingCount(2), 2, "the count stops at its cap")
      assert.strictEqual(yield* s.outbox.pendingCount(0), 0)
      assert.lengthOf(yield* s.outbox.cancelPending(a.id, w1.id, iso(1)), 3)
      assert.strictEqual(yield* s.outbox.pendingCount(1_000_000), before)
    }))
}
