/**
 * `withTimeouts` bounds every operation of a store in time by running it in a fiber of its own.
 * That fiber starts in the caller's turn of the event loop: started on a later turn, each
 * operation waited behind whatever else the loop had queued, and a create's operations under its
 * account's lock waited so several times over (measured: 1–2 ms each on a loaded server).
 * Checked against the in-memory store, whose operations answer at once.
 */
import { MemoryStorage, Storage } from "@canopy/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { withTimeouts } from "../src/index.ts"

describe("withTimeouts", () => {
  it("an operation that answers at once is answered in the caller's turn", () => {
    const storage = Effect.runSync(MemoryStorage.make)
    const bounded = withTimeouts(storage, 1_000)
    // Run on the default scheduler: a fiber whose start waits for a later turn has no exit yet.
    for (const operation of [bounded.accounts.get("acct_none"), bounded.transaction(bounded.accounts.get("acct_none")), bounded.ping]) {
      const exit = Effect.runFork(operation).pollUnsafe()
      assert.isTrue(exit !== undefined && Exit.isSuccess(exit))
    }
  })

  it.live("an operation without an answer within the bound fails with StorageError", () =>
    Effect.gen(function*() {
      const storage = Effect.runSync(MemoryStorage.make)
      const bounded = withTimeouts({ ...storage, ping: Effect.never }, 20)
      const error = yield* Effect.flip(bounded.ping)
      assert.instanceOf(error, Storage.StorageError)
      assert.match(error.message, /within 20 ms/)
    }))
})
