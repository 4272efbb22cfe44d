/**
 * Maintenance purges in bounded batches and lets the event loop turn between them: on SQLite a
 * batch holds the loop while it runs, so a request waiting behind the purge waits one batch, not all.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { inBatches, PURGE_BATCH, PURGE_BATCHES } from "../src/services/common.ts"

it("a purge runs its batches until one deletes fewer, at most its bound", async () => {
  let calls = 0
  const limits: Array<number> = []
  const full = (limit: number) => Effect.sync(() => (limits.push(limit), ++calls < 3 ? 10 : 4))
  assert.strictEqual(await Effect.runPromise(inBatches(full, 10, 5)), 24)
  assert.deepStrictEqual(limits, [10, 10, 10], "each batch asks for the batch size")
  assert.strictEqual(calls, 3, "stops at the batch that deleted fewer than the batch size")
  calls = 0
  const endless = () => Effect.sync(() => (++calls, 10))
  assert.strictEqual(await Effect.runPromise(inBatches(endless, 10, 5)), 50)
  assert.strictEqual(calls, 5, "never more batches than the bound, whatever is left")
  assert.strictEqual(PURGE_BATCH * PURGE_BATCHES, 20_000, "a maintenance call deletes up to 20,000 rows of a kind")
  let asked = 0
  const defaults = (limit: number) => Effect.sync(() => (++asked, limit))
  assert.strictEqual(await Effect.runPromise(inBatches(defaults)), 20_000, "by default, PURGE_BATCH rows a batch and PURGE_BATCHES batches")
  assert.strictEqual(asked, PURGE_BATCHES)
})

it("the event loop turns between batches", async () => {
  // An I/O callback queued before the purge: it must run before the purge's second batch.
  const turnsSeen: Array<boolean> = []
  let turned = false
  setImmediate(() => {
    turned = true
  })
  const batch = () =>
    Effect.sync(() => {
      turnsSeen.push(turned)
      return turnsSeen.length < 3 ? 10 : 0
    })
  await Effect.runPromise(inBatches(batch, 10, 5))
  assert.deepStrictEqual(turnsSeen, [false, true, true])
})
