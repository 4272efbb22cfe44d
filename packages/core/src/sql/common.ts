/**
 * What every area of the SQL store shares: the client and its dialect, error mapping, row
 * conversion, transactions, and the list machinery (keyset or offset windows, capped counts).
 */
import { Context, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Row } from "effect/sql/SqlConnection"
import type { Statement as SqlStatement } from "effect/sql/Statement"
import * as S from "../Storage.ts"
import { fromDb, type Table, toDb } from "./codec.ts"
import { numbered } from "./requestPath.ts"

type Sql = SqlClient.SqlClient
export type Fragment = ReturnType<Sql["and"]>
type Statement = Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>

/** A SQL driver failure as the storage contract's StorageError (the cause kept, never shown). */
export const storageError = (e: SqlError.SqlError) => new S.StorageError({ message: `storage failure: ${e.reason._tag}`, cause: e })

const isUnique = (e: SqlError.SqlError) => e.reason._tag === "UniqueViolation"

/** Maps SQL failures: a unique violation to Duplicate, anything else to StorageError. */
export const onUnique =
  (entity: string, field: string) => <A, R>(self: Effect.Effect<A, SqlError.SqlError, R>): Effect.Effect<A, S.Duplicate | S.StorageError, R> =>
    Effect.mapError(self, (e) => (isUnique(e) ? new S.Duplicate({ entity, field }) : storageError(e)))

export const orStorage = <A, R>(self: Effect.Effect<A, SqlError.SqlError, R>): Effect.Effect<A, S.StorageError, R> => Effect.mapError(self, storageError)

/**
 * Rows a transaction read once and reads again from here (the account, its webhooks): a write
 * asks for its account when it checks its limits, its overlap policy and each event it emits —
 * on PostgreSQL a round trip each. Absent outside a transaction; each transaction has its own,
 * gone with it. A write through the store to those rows empties it.
 */
const TransactionMemo = Context.Reference<Map<string, unknown> | undefined>("canopy/sql/TransactionMemo", { defaultValue: () => undefined })

/**
 * Inserts a PostgreSQL transaction holds back to send together (`holdOrRun`): an event with its
 * deliveries, a boundary version. Consecutive ones go in one statement — each a data-modifying CTE
 * of it — before the store's next other operation or the commit (`flushHeld`): under the account's
 * lock, one round trip for a create's first version, its event and its overlap event, not three.
 * Absent outside a transaction and on SQLite (statements in the same process: no trip to save).
 */
const HeldInserts = Context.Reference<Array<SqlStatement<Row>> | undefined>("canopy/sql/HeldInserts", { defaultValue: () => undefined })

/** The keys rows are remembered under: one spelling for whoever reads or remembers them. */
export const memoKey = {
  account: (id: string) => `account:${id}`,
  webhooksOf: (accountId: string) => `webhooks:${accountId}`,
  totalsOf: (accountId: string) => `totals:${accountId}`
} as const

/** `read` once per transaction under `key` (every time outside one). */
export const memo = <A, E, R>(key: string, read: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(TransactionMemo), (m) =>
    m === undefined ? read
      : m.has(key) ? Effect.succeed(m.get(key) as A)
      : Effect.map(read, (a) => {
        m.set(key, a)
        return a
      }))

/** Remembers `value` under `key` for the rest of the transaction (nothing outside one). */
export const remember = (key: string, value: unknown): Effect.Effect<void> => Effect.map(Effect.service(TransactionMemo), (m) => void m?.set(key, value))

/**
 * `write`, after which what the transaction remembered is read anew: everything, or only `key`
 * (a write to projects or members changes the account's totals, `memoKey.totalsOf`, through the
 * tables' triggers, and nothing else remembered).
 */
export const forgetting = <A, E, R>(write: Effect.Effect<A, E, R>, key?: string): Effect.Effect<A, E, R> =>
  Effect.ensuring(write, Effect.map(Effect.service(TransactionMemo), (m) => void (key === undefined ? m?.clear() : m?.delete(key))))

/** An account's running totals. */
export interface Totals {
  readonly active: number
  readonly archived: number
  readonly draft: number
  readonly areaActive: number
  readonly areaArchived: number
  readonly areaDraft: number
  readonly members: number
  readonly webhooks: number
}

/** An `account_totals` row as `Totals` (zeros for an account without a row). */
export const totalsOf = (row: Record<string, unknown> | null | undefined): Totals => {
  const n = (k: string) => Number(row?.[k] ?? 0)
  return {
    active: n("projects_active"),
    archived: n("projects_archived"),
    draft: n("projects_draft"),
    areaActive: n("area_active"),
    areaArchived: n("area_archived"),
    areaDraft: n("area_draft"),
    members: n("members"),
    webhooks: n("webhooks")
  }
}

/** The helpers the areas are written with, over the `SqlClient` in context. */
export const makeContext = Effect.gen(function*() {
  const sql: Sql = yield* SqlClient.SqlClient
  const dialect = sql.onDialectOrElse({ pg: () => "pg" as const, sqlite: () => "sqlite" as const, orElse: () => "other" as const })

  const one = <A>(table: Table, statement: Statement) => orStorage(Effect.map(statement, (rows) => fromDb<A>(table, rows[0])))
  const all = <A>(table: Table, statement: Statement) => orStorage(Effect.map(statement, (rows) => rows.map((r) => fromDb<A>(table, r)!)))
  const count = (statement: Statement) => orStorage(Effect.map(statement, (rows) => Number((rows[0] as { n?: unknown } | undefined)?.n ?? 0)))
  const affected = (statement: Statement) => orStorage(Effect.map(statement, (rows) => rows.length > 0))
  /**
   * On PostgreSQL, a statement planned for its own values at every run (the unnamed statement),
   * never from a cached generic plan. For queries whose best plan depends on a value the planner
   * cannot see in a generic plan — a search pattern, a box: after five runs of a named statement
   * PostgreSQL may switch to a generic plan, and a generic `search_text like $1` is a sequential
   * scan (measured at 100,000 projects: 209 ms instead of 12 ms).
   */
  const planned = (statement: SqlStatement<Row>): Statement => dialect === "pg" ? statement.unprepared : statement
  /** A statement run as prepared (the default). */
  const prepared = (statement: SqlStatement<Row>): Statement => statement
  /** `insert into table (…) values (…)` of a whole row. */
  const insert = (table: Table, row: object) => sql`insert into ${sql(table)} ${sql.insert(toDb(table, row))}`
  /** `insert into table (…) values (…), (…)` of whole rows, all with the same fields. */
  const insertAll = (table: Table, [first, ...rest]: readonly [object, ...Array<object>]) =>
    sql`insert into ${sql(table)} ${sql.insert([toDb(table, first), ...rest.map((r) => toDb(table, r))])}`

  /**
   * Insert statements, in order, as one: on PostgreSQL one statement (all but the last as
   * data-modifying CTEs; a foreign key between them is checked at the statement's end), on SQLite
   * one after the other. The combined statement goes unnamed: its text changes with what was held
   * (which inserts, how many deliveries each event has), and named it would crowd out the
   * connection's other prepared statements (100, least recently used evicted, then parsed again).
   */
  const together = (parts: ReadonlyArray<SqlStatement<Row>>): Effect.Effect<void, SqlError.SqlError> => {
    if (parts.length === 0) return Effect.void
    if (dialect !== "pg" || parts.length === 1) return Effect.forEach(parts, (p) => p, { discard: true })
    const ctes = parts.slice(1, -1).reduce((acc, part, i) => sql`${acc}, ${sql.literal(`held${i + 1}`)} as (${part})`, sql`held0 as (${parts[0]!})`)
    return Effect.asVoid(sql`with ${ctes} ${parts.at(-1)!}`.unprepared)
  }
  /** Inserts held for the transaction's next flush where it holds them (PostgreSQL), else run now. */
  const holdOrRun = (parts: ReadonlyArray<SqlStatement<Row>>): Effect.Effect<void, SqlError.SqlError> =>
    Effect.flatMap(Effect.service(HeldInserts), (held) => held === undefined ? together(parts) : Effect.sync(() => void held.push(...parts)))
  /** Sends the inserts the transaction holds, in one statement (nothing when none). */
  const flushHeld: Effect.Effect<void, SqlError.SqlError> = Effect.flatMap(Effect.service(HeldInserts),
    (held) => held === undefined || held.length === 0 ? Effect.void : together(held.splice(0)))

  /** A statement written with `?` placeholders (shared with an adapter's own route), in this dialect. */
  const text = (statement: string, params: ReadonlyArray<unknown>) => sql.unsafe<Row>(dialect === "pg" ? numbered(statement) : statement, params)

  /** Rows a purge picks on PostgreSQL are locked, and rows others hold are skipped (no waits, no deadlocks). */
  const skipLocked = dialect === "pg" ? sql`for update skip locked` : sql``

  /** UPDATE … RETURNING *, or a plain read when the patch is empty. */
  const patchRow = (table: Table, patch: object, where: Fragment) => {
    const values = toDb(table, patch)
    return Object.keys(values).length === 0
      ? sql`select * from ${sql(table)} where ${where}`
      : sql`update ${sql(table)} set ${sql.update(values)} where ${where} returning *`
  }

  /** The order `column dir, id dir`: every list's, ties broken by id in the sort's direction. */
  const orderBy = (column: string, desc: boolean) => sql.literal(desc ? `${column} desc, id desc` : `${column} asc, id asc`)

  /** Rows strictly after `after` in the order `column dir, id dir` (keyset pagination). */
  const keyset = (column: string, desc: boolean, after: S.After | undefined) =>
    after === undefined ? [] : [desc
      ? sql`(${sql(column)}, id) < (${after.value}, ${after.id})`
      : sql`(${sql(column)}, id) > (${after.value}, ${after.id})`]

  /** Matching rows counted up to `limit` (one more, to know whether it stopped there). */
  const cappedCount = (table: Table, where: Fragment, limit: number, run = prepared) =>
    Effect.map(count(run(sql`select count(*) as n from (select 1 from ${sql(table)} where ${where} limit ${limit + 1}) c`)),
      (n) => ({ total: Math.min(n, limit), totalExact: n <= limit }))

  /**
   * One window of a list in the order `column dir, id dir`: by keyset when `after` is given, else
   * by offset; the total from `exactTotal` when given, else a count capped at `countLimit`.
   * `valueDependent`: the clauses hold a value whose plan must be made for it (see `planned`).
   */
  const page = <A>(
    table: Table,
    clauses: Array<Fragment>,
    column: string,
    desc: boolean,
    q: S.Window,
    options: {
      readonly exactTotal?: Effect.Effect<number, S.StorageError>
      readonly countLimit?: number
      readonly columns?: Fragment
      readonly valueDependent?: boolean
    } = {}
  ) =>
    Effect.gen(function*() {
      const run = options.valueDependent ? planned : prepared
      const where = sql.and([...clauses, ...keyset(column, desc, q.after)])
      const skip = q.after === undefined && q.offset > 0 ? sql`offset ${q.offset}` : sql``
      const fetched = yield* all<A>(table,
        run(sql`select ${options.columns ?? sql`*`} from ${sql(table)} where ${where} order by ${orderBy(column, desc)} limit ${q.limit + 1} ${skip}`))
      const counted = options.exactTotal
        ? { total: yield* options.exactTotal, totalExact: true }
        : yield* cappedCount(table, sql.and(clauses), options.countLimit ?? S.COUNT_LIMIT, run)
      return { rows: fetched.slice(0, q.limit), hasMore: fetched.length > q.limit, ...counted }
    })

  /** One account's running totals (zeros for an account without a row), once per transaction until a write changes them. */
  const totals = (accountId: string): Effect.Effect<Totals, S.StorageError> =>
    memo(memoKey.totalsOf(accountId), orStorage(Effect.map(sql`select * from account_totals where account_id = ${accountId}`, (rows) => totalsOf(rows[0]))))

  /**
   * Joins the current transaction when there is one (no savepoint), or opens one: with its memo,
   * and on PostgreSQL the inserts it holds, sent before the commit.
   */
  const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.serviceOption(sql.transactionService), (current) =>
      current._tag === "Some" ? effect : sql.withTransaction(
        Effect.tap(effect, () => flushHeld).pipe(
          Effect.provideService(TransactionMemo, new Map()),
          Effect.provideService(HeldInserts, dialect === "pg" ? [] : undefined)
        )
      ))

  /** `Storage.transaction`: atomically, a driver failure as StorageError. */
  const transaction: S.StorageShape["transaction"] = (effect) =>
    Effect.mapError(atomically(effect), (e) => (e as { _tag?: string })._tag === "SqlError" ? storageError(e as SqlError.SqlError) : e) as never

  return {
    sql,
    dialect,
    one,
    all,
    count,
    affected,
    planned,
    insert,
    insertAll,
    text,
    skipLocked,
    patchRow,
    holdOrRun,
    flushHeld,
    orderBy,
    keyset,
    page,
    totals,
    transaction
  }
})

/** The helpers of `makeContext`. */
export type Context = Effect.Success<typeof makeContext>
