/**
 * Idempotency keys of an account over the store: claim a key for a request (or learn that it is
 * taken, in progress, or has a response to replay), complete it with the response, release it when
 * the work failed, and the maintenance purge of keys past their 24 hours.
 */
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import * as Idempotency from "../Idempotency.ts"
import { type IdempotencyBegin, Storage, type StorageError, type StoredResponse } from "../Storage.ts"
import * as Time from "../Time.ts"
import { inBatches } from "./common.ts"

/** What `begin` answers: the store's answer, with the claim's token when the key is now the caller's. */
export type Begin = Exclude<IdempotencyBegin, { readonly kind: "new" }> | { readonly kind: "new"; readonly token: string }

/** The IdempotencyKeys service. */
export class IdempotencyKeys extends Context.Service<IdempotencyKeys, {
  /** Claims `key` of the account for a request with this fingerprint (see `Storage.idempotency.begin`). */
  readonly begin: (accountId: string, key: string, fingerprint: string) => Effect.Effect<Begin, StorageError>
  /** Stores the response of a claimed key; false when the claim was lost meanwhile. */
  readonly complete: (accountId: string, key: string, token: string, response: StoredResponse) => Effect.Effect<boolean, StorageError>
  /** Frees a claimed key whose work failed, so that a retry does it. */
  readonly release: (accountId: string, key: string, token: string) => Effect.Effect<boolean, StorageError>
  /**
   * Maintenance: deletes keys first used more than `Idempotency.TTL_MS` ago, in batches of
   * `PURGE_BATCH`, at most `PURGE_BATCHES` per call (what is left waits for the next call).
   */
  readonly purge: Effect.Effect<number, StorageError>
}>()("canopy/IdempotencyKeys") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) =>
    IdempotencyKeys.of({
      begin: (accountId, key, fingerprint) =>
        Effect.gen(function*() {
          const now = yield* Time.nowMillis
          const token = randomUUID()
          const r = yield* storage.idempotency.begin(accountId, key, fingerprint, token, now, {
            expiredBefore: now - Idempotency.TTL_MS,
            abandonedBefore: now - Idempotency.ABANDONED_AFTER_MS
          })
          return r.kind === "new" ? { kind: "new", token } : r
        }),
      complete: (accountId, key, token, response) => storage.idempotency.complete(accountId, key, token, response),
      release: (accountId, key, token) => storage.idempotency.release(accountId, key, token),
      purge: Effect.flatMap(Time.nowMillis, (now) => inBatches((limit) => storage.idempotency.purge(now - Idempotency.TTL_MS, limit)))
    })))
}
