/**
 * The in-memory reference implementation of the storage contract: plain maps, one lock, and
 * snapshot-and-restore transactions, one module per area under `memory/`. It is the executable
 * reading of `Storage.ts` — fast for tests and for trying Canopy without a database; nothing
 * survives the process.
 */
import { Effect, Layer, Semaphore } from "effect"
import { boundaryHistory } from "./memory/boundaryHistory.ts"
import { credentials } from "./memory/credentials.ts"
import { InTransaction, makeContext, snapshot } from "./memory/common.ts"
import { identity } from "./memory/identity.ts"
import { imports } from "./memory/imports.ts"
import { metering } from "./memory/metering.ts"
import { outbox } from "./memory/outbox.ts"
import { projects } from "./memory/projects.ts"
import { Storage, type StorageShape } from "./Storage.ts"

/** A fresh, empty in-memory store. */
export const make = Effect.gen(function*() {
  const lock = yield* Semaphore.make(1)
  const db = makeContext(lock)
  const store: StorageShape = {
    transaction: (effect) =>
      Effect.gen(function*() {
        if (yield* InTransaction) return yield* effect
        return yield* lock.withPermit(Effect.suspend(() => {
          const before = snapshot(db.t)
          return effect.pipe(
            Effect.provideService(InTransaction, true),
            Effect.onExit((exit) =>
              Effect.sync(() => {
                if (exit._tag === "Failure") db.t = before
              })
            )
          )
        }))
      }),
    lockAccount: () => Effect.void,
    ping: Effect.void,
    ...identity(db),
    ...projects(db),
    ...boundaryHistory(db),
    ...outbox(db),
    ...credentials(db),
    ...metering(db),
    ...imports(db)
  }
  return store
})

/** A layer with a fresh, empty in-memory store. */
export const layer: Layer.Layer<Storage> = Layer.effect(Storage, make)
