/**
 * The storage contract over Effect's `SqlClient`, written once for every SQL database Canopy runs
 * on, one module per area (`identity`, `projects`, `outbox`, `credentials`, `metering`) over the
 * helpers of `common.ts`. The adapters supply the driver (the `SqlClient`) and run the migrations
 * that create the tables; the few dialect differences (row locks, one CTE) are branches in the
 * areas. Rows convert to and from columns by the codecs `codec.ts` derives from the row schemas.
 * An adapter may also run the two operations of every request's path by a faster route of its
 * own (the SQLite adapter's `RequestPath`), with the statements of `requestPath.ts`.
 *
 * Column conventions, identical in every dialect: timestamps are ISO 8601 text, scheduling times
 * are epoch milliseconds (integer/bigint), JSON values are text, booleans are integers 0/1.
 */
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import type { Row } from "effect/sql/SqlConnection"
import * as S from "../Storage.ts"
import { fromDb, type Table } from "./codec.ts"
import { boundaryHistory } from "./boundaryHistory.ts"
import { makeContext, memoKey, orStorage, remember, totalsOf } from "./common.ts"
import { credentials } from "./credentials.ts"
import { identity } from "./identity.ts"
import { imports } from "./imports.ts"
import { metering } from "./metering.ts"
import { outbox } from "./outbox.ts"
import { projects } from "./projects.ts"

export { storageError } from "./common.ts"
export * as RequestPath from "./requestPath.ts"

/** A row as the SQL driver answers it. */
export type { Row }

/** The tables whose rows `fromRow` converts. */
export type { Table }

/** A driver row of `table` converted to the storage contract's row (JSON, booleans, numbers). */
export const fromRow = <A>(table: Table, row: Row | undefined): A | undefined => fromDb<A>(table, row)

/** What `lock_account` answered (JSON, as text or parsed by the driver), remembered for the transaction. */
const rememberLocked = (accountId: string, answer: unknown) => {
  const locked = (typeof answer === "string" ? JSON.parse(answer) : answer) as {
    readonly account: Row
    readonly totals: Record<string, unknown> | null
    readonly webhooks: ReadonlyArray<Row>
  } | null
  return locked == null
    ? remember(memoKey.account(accountId), undefined)
    : Effect.all([
      remember(memoKey.account(accountId), fromRow("accounts", locked.account)),
      remember(memoKey.totalsOf(accountId), totalsOf(locked.totals)),
      remember(memoKey.webhooksOf(accountId), locked.webhooks.map((w) => fromRow("webhooks", w)))
    ], { discard: true })
}

/**
 * The operations that send nothing held first: the transaction itself, the two that hold their
 * inserts (`holdOrRun`), and the reads an event's emission makes between them — of the account and
 * its webhooks, tables no held insert writes (remembered by the transaction: no round trip).
 */
const NOT_FLUSHING: ReadonlySet<string> = new Set(["transaction", "outbox.append", "boundaryVersions.append", "accounts.get", "webhooks.list"])

/**
 * The store with every other operation first sending the inserts its transaction holds
 * (PostgreSQL): whatever it reads or writes then comes after them, as if none were held.
 */
const flushingFirst = (storage: S.StorageShape, flush: Effect.Effect<void, S.StorageError>): S.StorageShape =>
  S.mapOperations(storage, (operation, effect) => NOT_FLUSHING.has(operation) ? effect : Effect.andThen(flush, effect))

/** The storage contract implemented over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const c = yield* makeContext
  const { sql, dialect, transaction } = c
  const storage: S.StorageShape = {
    transaction,
    // On PostgreSQL one round trip locks the account and reads what the write then reads of it —
    // the account, its running totals and its webhooks — each kept for the transaction
    // (`lock_account`, migration 18). SQLite's transactions already hold the one write lock.
    lockAccount: (accountId) =>
      dialect === "pg"
        ? orStorage(Effect.flatMap(sql`select lock_account(${accountId}) as locked`, (rows) => rememberLocked(accountId, rows[0]?.locked)))
        : Effect.void,
    ping: orStorage(Effect.asVoid(sql`select 1`)),
    ...identity(c),
    ...projects(c),
    ...boundaryHistory(c),
    ...outbox(c),
    ...credentials(c),
    ...metering(c),
    ...imports(c)
  }
  return dialect === "pg" ? flushingFirst(storage, orStorage(c.flushHeld)) : storage
})

/** The storage layer over the `SqlClient` in context. */
export const layer: Layer.Layer<S.Storage, never, SqlClient.SqlClient> = Layer.effect(S.Storage, make)
