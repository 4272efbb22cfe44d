/**
 * The storage contract: what every Canopy store (in-memory, SQLite, PostgreSQL) promises,
 * described as behaviour. The domain services hold every rule; a store only keeps rows, enforces
 * uniqueness, scopes every read and write to an account, and makes transactions atomic.
 *
 * Behaviour every implementation must show (the conformance suite in `@canopy/core/testing`
 * checks each point):
 *
 * - **Tenancy.** Every operation on account-owned rows takes the account id and touches only that
 *   account's rows: another account's id reads as absent, and updates or deletes of it change
 *   nothing and report `false`/`undefined`.
 * - **Uniqueness.** Project slugs are unique per account, member emails are unique per account,
 *   credential hashes are unique. A write that would break this fails with `Duplicate` and changes
 *   nothing. Under concurrency exactly one caller wins: of N parallel inserts of the same slug,
 *   one succeeds and N−1 fail with `Duplicate`.
 * - **Atomicity.** Inside `transaction`, every write commits together or not at all: when the
 *   effect fails (or dies, or is interrupted) no row it wrote remains, including events and
 *   deliveries appended to the outbox. Nested `transaction` calls join the outer one. Every
 *   operation inside a transaction sees what the transaction wrote before it, in order; a store may
 *   send an append (`outbox.append`, `boundaryVersions.append`) with later writes, and its failure
 *   then fails the transaction at the next operation or the commit instead of the append.
 * - **Serialisation.** `lockAccount` inside a transaction makes concurrent transactions on the same
 *   account run one after another from that point, so read-check-write sequences (usage limits,
 *   last-owner guard, rate limits) see each other's effects.
 * - **Lists.** `rows` is the window `[offset, offset + limit)` of the ordering asked for, ties
 *   broken by id in the sort's direction — or, with `after`, the first `limit` rows strictly after
 *   that position (keyset pagination; `offset` is then ignored). `hasMore` says whether a row
 *   follows the window. `total` counts the matching rows exactly when no search or other filter
 *   beyond `status` is given (from running totals, O(1)); otherwise it counts up to `COUNT_LIMIT`
 *   (`SEARCH_COUNT_LIMIT` with a search), and `totalExact` is false when it stopped there. An offset past the end gives no rows and the
 *   same total. Search is a case-insensitive substring match on the row's `search_text`, by index;
 *   terms shorter than `MIN_SEARCH` characters are the caller's to refuse.
 * - **Running totals.** Project counts and hectares by status, members and webhooks of an account
 *   are kept in the same transaction as every write that moves them, and always equal a recount.
 * - **Idempotency keys.** `idempotency.begin` claims a key of an account atomically: of N
 *   concurrent begins with one key, exactly one answers `new`; the others see the claim
 *   (`in_progress`, or `mismatch` when their fingerprint differs) and, once it is completed, its
 *   stored response (`replay`). Keys of different accounts are independent.
 * - **Reachability.** `ping` succeeds while the store answers and fails with `StorageError` when
 *   it does not; it reads and writes nothing.
 * - **Rows out equal rows in.** JSON values (geometry, metadata, lists) and nulls come back as
 *   they were written.
 *
 * Layout: one module per area under `storage/` — `identity` (accounts, members, invitations,
 * sessions), `projects` (projects, assets), `boundaryHistory` (boundary versions), `outbox` (webhooks, events, deliveries, logs),
 * `credentials` (credentials, OAuth), `metering` (usage, rate limits, requests, idempotency), `imports`
 * (bulk imports and their per-feature results) — each
 * with its rows (one `Schema.Struct` per row: the row type is its `Type`, and the SQL store derives
 * its column codec from it) and its operations. This module composes them and re-exports all.
 */
import { Context, Effect } from "effect"
import type { BoundaryHistoryShape } from "./storage/boundaryHistory.ts"
import type { Fx, StorageError } from "./storage/common.ts"
import type { CredentialsShape } from "./storage/credentials.ts"
import type { IdentityShape } from "./storage/identity.ts"
import type { ImportsShape } from "./storage/imports.ts"
import type { MeteringShape } from "./storage/metering.ts"
import type { OutboxShape } from "./storage/outbox.ts"
import type { ProjectsShape } from "./storage/projects.ts"

// Every area's rows (one Schema each; the row type is the schema's `Type`), queries and shape.
export * from "./storage/boundaryHistory.ts"
export * from "./storage/common.ts"
export * from "./storage/credentials.ts"
export * from "./storage/identity.ts"
export * from "./storage/imports.ts"
export * from "./storage/metering.ts"
export * from "./storage/outbox.ts"
export * from "./storage/projects.ts"

/**
 * The storage contract: the areas' operations together, plus transactions. See the module
 * documentation for the behaviour each operation promises.
 */
export interface StorageShape extends IdentityShape, ProjectsShape, BoundaryHistoryShape, OutboxShape, CredentialsShape, MeteringShape, ImportsShape {
  /**
   * Runs `effect` atomically; nested calls join the outer transaction. Inside it every read sees
   * the transaction's own writes (a store may keep rows it read — the account, its webhooks — for
   * the rest of the transaction, and must read them anew after writing them).
   */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
  /** Inside a transaction: waits for, then holds, the account's write lock until commit. */
  readonly lockAccount: (accountId: string) => Fx<void>
  /**
   * A trivial round trip to the database (`SELECT 1`): succeeds when the store answers, fails with
   * `StorageError` when it does not. The readiness probe (`GET /ready`) runs it.
   */
  readonly ping: Fx<void>
}

/** The storage service. */
export class Storage extends Context.Service<Storage, StorageShape>()("canopy/Storage") {}

/**
 * The store with each operation's Effect passed through `f` with the operation's path
 * (`projects.get`, `transaction`, `ping`…): found by walking the store, functions answering an
 * Effect and Effect values. What an adapter or a host wraps around every operation (timeouts,
 * timing, held inserts sent first).
 */
export const mapOperations = (
  storage: StorageShape,
  f: (operation: string, effect: Effect.Effect<unknown, unknown, unknown>) => Effect.Effect<unknown, unknown, unknown>
): StorageShape => {
  const wrap = (value: unknown, path: string): unknown => {
    if (Effect.isEffect(value)) return f(path, value)
    if (typeof value === "function") {
      const operation = value as (...args: Array<unknown>) => unknown
      return (...args: Array<unknown>) => {
        const out = operation(...args)
        return Effect.isEffect(out) ? f(path, out) : out
      }
    }
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wrap(v, path ? `${path}.${k}` : k)]))
    }
    return value
  }
  return wrap(storage, "") as StorageShape
}
