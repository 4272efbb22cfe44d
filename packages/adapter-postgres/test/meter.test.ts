/**
 * Request metering across processes on one PostgreSQL: each store batches its own concurrent
 * requests and writes the bucket only if no other store wrote it since (no lock held across
 * round trips). Two stores — two pools, as two `canopy serve` would have — meter one account at
 * once: nothing is lost or counted twice, each request sees the bucket as the one before it left
 * it, and a plan changed by the other store is seen by the next request.
 */
import { Fixtures } from "@canopy/core/testing"
import { type Plans, type RateLimit, Storage } from "@canopy/core"
import { assert, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { inject } from "vitest"
import { layer } from "../src/index.ts"
import { freshDatabase } from "./database.ts"

const twoStores = Effect.gen(function*() {
  const url = yield* freshDatabase(inject("postgresUrl"))
  const open = Effect.map(Layer.build(Layer.fresh(layer({ url, maxConnections: 4 }))), (context) => Context.get(context, Storage.Storage))
  return [yield* open, yield* open] as const
})

/** Every request counted; the state's dayCount numbers the requests of the account in order. */
const decide = (seen: Array<Plans.Plan>) => (plan: Plans.Plan, state: RateLimit.State | undefined) => {
  seen.push(plan)
  const calls = (state?.dayCount ?? 0) + 1
  return { result: calls, state: { units: 0, refilledAt: 0, day: 0, dayCount: calls }, count: true }
}

it.live("two stores metering one account concurrently: N requests counted exactly N times, in one order", () =>
  Effect.scoped(Effect.gen(function*() {
    const [a, b] = yield* twoStores
    const account = Fixtures.accountRow()
    yield* a.accounts.insert(account)
    const seen: Array<Plans.Plan> = []
    // Spread over 40 ms, so that both stores write batch after batch while the other does.
    const results = yield* Effect.all(
      Array.from({ length: 300 }, (_, i) => Effect.delay((i % 2 ? a : b).requests.meter(account.id, "2026-01", decide(seen)), `${i % 40} millis`)),
      { concurrency: "unbounded" }
    )
    const order = results.map((r) => r!.result).sort((x, y) => x - y)
    // Each request saw the state the one before it stored: 1…300, none twice, none skipped.
    assert.deepStrictEqual(order, Array.from({ length: 300 }, (_, i) => i + 1))
    assert.deepStrictEqual(results.map((r) => r!.count).sort((x, y) => x - y), order)
    assert.strictEqual(yield* b.usage.get(account.id, "2026-01", "api_requests"), 300)
  })), { timeout: 60_000 })

it.live("a plan changed through another store is seen by the next request", () =>
  Effect.scoped(Effect.gen(function*() {
    const [a, b] = yield* twoStores
    const account = Fixtures.accountRow({ plan: "free" })
    yield* a.accounts.insert(account)
    const seen: Array<Plans.Plan> = []
    assert.strictEqual((yield* a.requests.meter(account.id, "2026-01", decide(seen)))!.result, 1)
    yield* b.accounts.update(account.id, { plan: "enterprise" })
    // The other store metered in between too: its write is seen as well.
    assert.strictEqual((yield* b.requests.meter(account.id, "2026-01", decide(seen)))!.result, 2)
    assert.strictEqual((yield* a.requests.meter(account.id, "2026-01", decide(seen)))!.result, 3)
    // A decision made on the plan this store knew is made again on the new one before it is stored.
    assert.deepStrictEqual([seen[0], seen.at(-1)], ["free", "enterprise"])
    assert.strictEqual(yield* a.usage.get(account.id, "2026-01", "api_requests"), 3)
  })), { timeout: 60_000 })
