/**
 * An Effect `SqlClient` over better-sqlite3: one connection, a semaphore so one fiber uses it at a
 * time, prepared statements cached, transactions begun `IMMEDIATE` (the write lock is taken up
 * front, so two writers queue on `busy_timeout` instead of deadlocking on an upgrade).
 */
import Database from "better-sqlite3"
import { Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError, type SqlConnection, Statement } from "effect/sql"

/** How to open the database. */
export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly filename: string
  /** How long a writer waits for another process's lock (ms). Default 5,000. */
  readonly busyTimeoutMs?: number
}

const classify = (operation: string) => (cause: unknown) => {
  const code = (cause as { code?: unknown }).code
  const reason = code === "SQLITE_CONSTRAINT_PRIMARYKEY"
    ? new SqlError.UniqueViolation({ cause, operation, constraint: "primary key" })
    : SqlError.classifySqliteError(cause, { operation })
  return new SqlError.SqlError({ reason })
}

/** Opens the database and builds the client; the database closes with the scope. */
export const make = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const db = new Database(options.filename)
          db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5_000}`)
          if (options.filename !== ":memory:") db.pragma("journal_mode = WAL")
          db.pragma("synchronous = NORMAL")
          db.pragma("foreign_keys = ON")
          return db
        },
        catch: classify("open")
      }),
      (db) => Effect.sync(() => db.close())
    )

    const cache = new Map<string, Database.Statement>()
    const prepare = (sql: string) => {
      let st = cache.get(sql)
      if (!st) {
        st = db.prepare(sql)
        if (cache.size >= 500) cache.delete(cache.keys().next().value!)
        cache.set(sql, st)
      }
      return st
    }
    const run = (sql: string, params: ReadonlyArray<unknown>, raw = false) =>
      Effect.try({
        try: () => {
          const st = prepare(sql)
          if (st.reader) return st.all(...params) as ReadonlyArray<Record<string, unknown>>
          const info = st.run(...params)
          return (raw ? info : []) as never
        },
        catch: classify("execute")
      })
    const values = (sql: string, params: ReadonlyArray<unknown>) =>
      Effect.try({
        try: () => {
          const st = prepare(sql)
          if (st.reader) return st.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
          st.run(...params)
          return []
        },
        catch: classify("execute")
      })
    // Transaction control runs as cached prepared statements (it is on every write's path);
    // other parameterless statements (DDL, several statements at once) go through exec.
    const TRANSACTION_CONTROL = /^\s*(BEGIN( IMMEDIATE)?|COMMIT|ROLLBACK|SAVEPOINT \w+|RELEASE SAVEPOINT \w+|ROLLBACK TO SAVEPOINT \w+)\s*$/i
    const unprepared = (sql: string, params: ReadonlyArray<unknown>) =>
      params.length === 0 && !/^\s*(select|with|insert|update|delete)/i.test(sql) && !TRANSACTION_CONTROL.test(sql)
        ? Effect.try({ try: () => (db.exec(sql), [] as ReadonlyArray<Record<string, unknown>>), catch: classify("execute") })
        : run(sql, params)

    const connection: SqlConnection.Connection = {
      execute: (sql, params, transform) => (transform ? Effect.map(run(sql, params), transform) : run(sql, params)),
      executeUnprepared: (sql, params, transform) => (transform ? Effect.map(unprepared(sql, params), transform) : unprepared(sql, params)),
      executeRaw: (sql, params) => run(sql, params, true),
      executeValues: values,
      executeValuesUnprepared: values,
      executeStream: () => Stream.die(new Error("streaming is not supported by the better-sqlite3 driver"))
    }
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore: yield* Semaphore.make(1),
      isTransaction: () => db.inTransaction
    })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "better-sqlite3",
      beginTransaction: "BEGIN IMMEDIATE",
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/** The client as a layer. */
export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
