/** The storage contract's cases for metering: counters, rate-limit state, request metering, idempotency keys. */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import * as Ids from "../../Ids.ts"
import type { Plan } from "../../Plans.ts"
import type { State as RateLimitState } from "../../RateLimit.ts"
import { Storage } from "../../Storage.ts"
import { countEvery, newAccountRow } from "./helpers.ts"

export const meteringCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("counters: concurrent increments are never lost; an alert fires for exactly one caller", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const values = yield* Effect.all(Array.from({ length: 50 }, () => Effect.map(s.requests.meter(a.id, "2026-01", countEvery), (r) => r!.count)), {
        concurrency: "unbounded"
      })
      assert.strictEqual(yield* s.usage.get(a.id, "2026-01", "api_requests"), 50)
      assert.deepStrictEqual([...values].sort((x, y) => x - y), Array.from({ length: 50 }, (_, i) => i + 1))
      assert.strictEqual(yield* s.usage.get(a.id, "2026-02", "api_requests"), 0)
      const marks = yield* Effect.all(Array.from({ length: 10 }, () => s.usage.markAlert(a.id, "2026-01", "hectares", 75)), { concurrency: "unbounded" })
      assert.strictEqual(marks.filter(Boolean).length, 1)
      yield* s.usage.markAlert(a.id, "2026-01", "hectares", 90)
      assert.deepStrictEqual(yield* s.usage.alerts(a.id, "2026-01", "hectares"), [75, 90])
      assert.deepStrictEqual(yield* s.usage.alerts(a.id, "2026-02", "hectares"), [])
    }))

  it.effect("rate-limit state: concurrent read-modify-write never loses an update", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const step = (state: { units: number; refilledAt: number; day: number; dayCount: number } | undefined) => {
        const next = { units: 0, refilledAt: 0, day: 0, dayCount: (state?.dayCount ?? 0) + 1 }
        return [next.dayCount, next] as const
      }
      const seen = yield* Effect.all(Array.from({ length: 40 }, () => s.rateLimits.update(a.id, step)), { concurrency: "unbounded" })
      assert.deepStrictEqual([...seen].sort((x, y) => x - y), Array.from({ length: 40 }, (_, i) => i + 1))
    }))

  it.effect("metering: the plan and state are read, N counted calls add exactly N, refused ones nothing, inside a failed transaction nothing", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const plans: Array<string> = []
      // Every third call is refused: it stores the state but is not counted.
      const decide = (plan: Plan, state: RateLimitState | undefined) => {
        plans.push(plan)
        const calls = (state?.dayCount ?? 0) + 1
        return { result: calls, state: { units: 0, refilledAt: 0, day: 0, dayCount: calls }, count: calls % 3 !== 0 }
      }
      const results = yield* Effect.all(Array.from({ length: 30 }, () => s.requests.meter(a.id, "2026-01", decide)), { concurrency: "unbounded" })
      assert.deepStrictEqual(results.map((r) => r!.result).sort((x, y) => x - y), Array.from({ length: 30 }, (_, i) => i + 1))
      assert.deepStrictEqual([...new Set(plans)], [a.plan])
      assert.strictEqual(yield* s.usage.get(a.id, "2026-01", "api_requests"), 20)
      const counts = results.map((r) => r!.count).sort((x, y) => x - y)
      assert.strictEqual(counts.at(-1), 20)
      // A refused call answers the current count unchanged.
      const refused = results.find((r) => r!.result === 30)!
      assert.strictEqual(refused.count, 20)
      assert.isUndefined(yield* s.requests.meter("acc_unknown", "2026-01", decide))
      const failed = yield* Effect.exit(s.transaction(Effect.andThen(s.requests.meter(a.id, "2026-01", decide), Effect.fail("abort"))))
      assert.isTrue(failed._tag === "Failure")
      assert.strictEqual(yield* s.usage.get(a.id, "2026-01", "api_requests"), 20)
      assert.strictEqual((yield* s.requests.meter(a.id, "2026-01", decide))!.result, 31)
    }))

  it.effect("idempotency: claimed once, replayed as stored, refused for another fingerprint, per account; the claim's token completes or releases it", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      const now = Date.UTC(2026, 0, 1)
      const limits = { expiredBefore: now - 86_400_000, abandonedBefore: now - 300_000 }
      const key = `key-${Ids.make("request")}`
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp1", "t1", now, limits), { kind: "new" })
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp1", "t2", now, limits), { kind: "in_progress" })
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp2", "t2", now, limits), { kind: "mismatch" })
      // Another account's key of the same name is its own.
      assert.deepStrictEqual(yield* s.idempotency.begin(b.id, key, "fp2", "t3", now, limits), { kind: "new" })
      // Only the claim's token completes it, once.
      const response = { status: 201, headers: { "content-type": "application/json; charset=utf-8", location: "/x" }, body: "{\"data\":{\"name\":\"é ✓\"}}" }
      assert.isFalse(yield* s.idempotency.complete(a.id, key, "t2", response))
      assert.isFalse(yield* s.idempotency.release(a.id, key, "t2"))
      assert.isTrue(yield* s.idempotency.complete(a.id, key, "t1", response))
      assert.isFalse(yield* s.idempotency.complete(a.id, key, "t1", { ...response, status: 200 }))
      assert.isFalse(yield* s.idempotency.release(a.id, key, "t1"))
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp1", "t4", now + 1, limits), { kind: "replay", response })
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp2", "t4", now + 1, limits), { kind: "mismatch" })
      // A response without a body.
      assert.isTrue(yield* s.idempotency.complete(b.id, key, "t3", { status: 204, headers: {}, body: null }))
      assert.deepStrictEqual(yield* s.idempotency.begin(b.id, key, "fp2", "t5", now, limits), { kind: "replay",
        response: { status: 204, headers: {}, body: null } })
      // A released claim is free again.
      const k2 = `${key}-2`
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, k2, "fp1", "t6", now, limits), { kind: "new" })
      assert.isTrue(yield* s.idempotency.release(a.id, k2, "t6"))
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, k2, "fp2", "t7", now, limits), { kind: "new" })
      // An abandoned claim (never completed, claimed before `abandonedBefore`) is taken over; the
      // old token can then neither complete nor release it.
      const later = now + 300_001
      const laterLimits = { expiredBefore: later - 86_400_000, abandonedBefore: later - 300_000 }
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, k2, "fp2", "t8", later, laterLimits), { kind: "new" })
      assert.isFalse(yield* s.idempotency.complete(a.id, k2, "t7", response))
      assert.isFalse(yield* s.idempotency.release(a.id, k2, "t7"))
      // A completed key is replayed until it expires, then claimed afresh, whatever its fingerprint.
      assert.deepStrictEqual((yield* s.idempotency.begin(a.id, key, "fp1", "t9", later, laterLimits)).kind, "replay")
      const dayLater = now + 86_400_001
      const dayLimits = { expiredBefore: dayLater - 86_400_000, abandonedBefore: dayLater - 300_000 }
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp3", "t10", dayLater, dayLimits), { kind: "new" })
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp3", "t11", dayLater, dayLimits), { kind: "in_progress" })
    }))

  it.effect("idempotency: of 20 concurrent begins with one key, exactly one is new; the others wait for it, then replay", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const now = Date.UTC(2026, 0, 2)
      const limits = { expiredBefore: now - 86_400_000, abandonedBefore: now - 300_000 }
      const key = `race-${Ids.make("request")}`
      const answers = yield* Effect.all(Array.from({ length: 20 }, (_, i) => s.idempotency.begin(a.id, key, "fp", `t${i}`, now, limits)), {
        concurrency: "unbounded"
      })
      assert.strictEqual(answers.filter((x) => x.kind === "new").length, 1)
      assert.strictEqual(answers.filter((x) => x.kind === "in_progress").length, 19)
      const winner = `t${answers.findIndex((x) => x.kind === "new")}`
      assert.isTrue(yield* s.idempotency.complete(a.id, key, winner, { status: 201, headers: {}, body: "{}" }))
      const again = yield* Effect.all(Array.from({ length: 10 }, (_, i) => s.idempotency.begin(a.id, key, "fp", `u${i}`, now, limits)), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual([...new Set(again.map((x) => x.kind))], ["replay"])
      // Concurrent take-overs of an expired key: exactly one again.
      const dayLater = now + 86_400_001
      const taken = yield* Effect.all(Array.from({ length: 20 }, (_, i) =>
        s.idempotency.begin(a.id, key, "fp", `v${i}`, dayLater, { expiredBefore: dayLater - 86_400_000, abandonedBefore: dayLater - 300_000 })), {
        concurrency: "unbounded"
      })
      assert.strictEqual(taken.filter((x) =>
        x.kind === "new"
      ).length, 1)
    }))

  it.effect("idempotency: keys are purged in bounded batches, oldest first, completed or not", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const limits = { expiredBefore: 0, abandonedBefore: 0 }
      // Claimed at times far before every other case's, so that the purge sees only these.
      for (let i = 0; i < 5; i++) {
        yield* s.idempotency.begin(a.id, `purge-${i}`, "fp", `t${i}`, 100 + i, limits)
        if (i % 2 === 0) yield* s.idempotency.complete(a.id, `purge-${i}`, `t${i}`, { status: 200, headers: {}, body: "{}" })
      }
      assert.strictEqual(yield* s.idempotency.purge(103, 2), 2)
      assert.strictEqual(yield* s.idempotency.purge(103, 2), 1)
      assert.strictEqual(yield* s.idempotency.purge(103, 2), 0)
      // The purged keys are free again; the others are kept.
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, "purge-0", "other", "x0", 200, limits), { kind: "new" })
      assert.deepStrictEqual(yield* s.idempotency.begin(a.id, "purge-3", "other", "x3", 200, limits), { kind: "mismatch" })
      assert.deepStrictEqual((yield* s.idempotency.begin(a.id, "purge-4", "fp", "x4", 200, limits)).kind, "replay")
    }))
}
