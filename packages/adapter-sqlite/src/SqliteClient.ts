/**
 * An Effect `SqlClient` over better-sqlite3: one connection, a semaphore so one fiber uses it at a
 * time, prepared statements cached, transactions begun `IMMEDIATE` (the write lock is taken up
 * front, so two writers queue for it instead of deadlocking on an upgrade). Beside it,
 * `SqliteDatabase` hands the same connection, under the same semaphore, to synchronous code.
 *
 * A lock held elsewhere (another process on the file, the checkpoint thread's RESTART) is waited
 * for off the event loop: the connection's own `busy_timeout` is 0, and a statement that finds the
 * database busy before it changed anything is tried again after a sleep (1 ms, doubling to 20 ms)
 * until `busyTimeoutMs` has passed. SQLite's busy handler would sleep inside the call, holding the
 * loop — every request of the server — for as long as the other holds the lock.
 */
import Database from "better-sqlite3"
import { existsSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { Context, Effect, Layer, Option, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError, type SqlConnection, Statement } from "effect/sql"
import * as Checkpointer from "./Checkpointer.ts"
import { planIndependent } from "./Placeholders.ts"

/** How to open the database. */
export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly filename: string
  /**
   * How long a statement waits for a lock held elsewhere (ms), off the event loop, before it fails
   * with SQLite's busy error. Default 5,000.
   */
  readonly busyTimeoutMs?: number
  /**
   * Refuse to create the file: opening a path where no file exists fails ("no database at PATH")
   * instead of creating an empty database there. Default false (the file is created).
   */
  readonly mustExist?: boolean
  /**
   * Checkpoint the write-ahead log from a worker thread of its own (every 200 ms) instead of on
   * the committing call. SQLite's automatic checkpoint runs inside the commit that crosses 1,000
   * pages: a write of a 4 MB boundary then holds the event loop ~55 ms instead of ~10 ms.
   * Either way the log stays bounded under writes that never pause (see `Checkpointer`).
   * Default true for a file; ignored for `:memory:`.
   */
  readonly checkpointOffThread?: boolean
}

/**
 * Why a database could not be opened, in words naming the file: the message of the `SqlError`
 * (and so of `createCanopy`'s failure) for a missing folder, a missing file (`mustExist`), a
 * folder given as the file, a file that is not SQLite, or whatever SQLite said.
 */
const openFailure = (filename: string, cause: unknown): string => {
  const path = resolve(filename)
  const code = (cause as { code?: unknown }).code
  const message = cause instanceof Error ? cause.message : String(cause)
  if (!existsSync(dirname(path))) return `cannot open the database ${path}: the folder ${dirname(path)} does not exist`
  if (code === "CANOPY_NO_DATABASE") return `no database at ${path} (check --db; init, serve and migrate create one)`
  if (existsSync(path) && statSync(path).isDirectory()) return `cannot open the database ${path}: it is a folder, not a file`
  if (code === "SQLITE_NOTADB") return `cannot open the database ${path}: the file is not a SQLite database`
  return `cannot open the database ${path}: ${message}${typeof code === "string" ? ` (${code})` : ""}`
}

const classify = (operation: string) => (cause: unknown) => {
  const code = (cause as { code?: unknown }).code
  const reason = code === "SQLITE_CONSTRAINT_PRIMARYKEY"
    ? new SqlError.UniqueViolation({ cause, operation, constraint: "primary key" })
    : SqlError.classifySqliteError(cause, { operation })
  return new SqlError.SqlError({ reason })
}

const COMMIT = /^\s*COMMIT\s*$/i

const isBusy = (cause: unknown) => {
  const code = (cause as { code?: unknown }).code
  return typeof code === "string" && code.startsWith("SQLITE_BUSY")
}
/** The longest sleep between two tries of a statement that found the database locked (ms). */
const LOCK_RETRY_MAX_MS = 20
/** A sleep of the wall clock (a lock is held in real time, whatever the fiber's `Clock` says). */
const pause = (ms: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/** A cached prepared statement of the connection. */
export type Prepare = (sql: string) => Database.Statement

/**
 * Synchronous use of the client's connection, for the few operations on every request's path
 * that are worth running without the SQL layer's per-statement cost. `use` runs `f` holding the
 * connection: inside the calling fiber's transaction when it is in one, otherwise while no other
 * fiber uses the connection; `f` runs to completion before anything else touches it.
 */
export class SqliteDatabase extends Context.Service<SqliteDatabase, {
  readonly use: <A>(operation: string, f: (prepare: Prepare, db: Database.Database) => A) => Effect.Effect<A, SqlError.SqlError>
  /** After a commit made through `use`: the writer's bound on the write-ahead log (`Checkpointer`). */
  readonly afterCommit: () => void
}>()("canopy/SqliteDatabase") {}

/** Opens the database and builds the client; the database closes with the scope. */
export const make = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const lockWaitMs = options.busyTimeoutMs ?? 5_000
    const opened = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const onDisk = options.filename !== ":memory:" && options.filename !== ""
          if (options.mustExist && onDisk && !existsSync(options.filename)) {
            throw Object.assign(new Error("no database"), { code: "CANOPY_NO_DATABASE" })
          }
          const db = new Database(options.filename, { fileMustExist: options.mustExist === true && onDisk })
          try {
            db.pragma(`busy_timeout = ${lockWaitMs}`) // opening may wait on the loop (once, at start)
            if (options.filename !== ":memory:") db.pragma("journal_mode = WAL")
            db.pragma("synchronous = NORMAL")
            db.pragma("foreign_keys = ON")
            db.pragma("cache_size = -65536") // 64 MiB of pages: indexes of a million projects stay in memory
            // The log file is cut back to this size when the log starts over (never otherwise).
            if (onDisk) db.pragma(`journal_size_limit = ${Checkpointer.HARD_BYTES}`)
          } catch (e) {
            db.close()
            throw e
          }
          db.pragma("busy_timeout = 0") // from here on, locks are waited for off the loop (`attempt`)
          const checkpointer = onDisk && options.checkpointOffThread !== false ? Checkpointer.start(db, options.filename) : undefined
          const afterCommit = checkpointer?.afterCommit ?? (onDisk ? Checkpointer.writerBound(db, options.filename) : undefined)
          return { db, stopCheckpointer: checkpointer?.stop, afterCommit }
        },
        catch: (cause) =>
          new SqlError.SqlError({ reason: SqlError.classifySqliteError(cause, { operation: "open", message: openFailure(options.filename, cause) }) })
      }),
      ({ db, stopCheckpointer }) =>
        Effect.promise(async () => {
          await stopCheckpointer?.()
          db.close()
        })
    )
    const { db, afterCommit } = opened

    const cache = new Map<string, Database.Statement>()
    // Cached statements stay prepared: no plan reads a bound value (`Placeholders.ts`).
    const prepare = (sql: string) => {
      let st = cache.get(sql)
      if (!st) {
        st = db.prepare(planIndependent(sql))
        if (cache.size >= 500) cache.delete(cache.keys().next().value!)
        cache.set(sql, st)
      }
      return st
    }
    /**
     * Runs `f` on the connection; when it finds the database locked (`SQLITE_BUSY`) having changed
     * nothing — outside a transaction, where a statement either completes or has no effect, and a
     * better-sqlite3 transaction function rolls back — it is tried again after a sleep, until
     * `lockWaitMs` has passed. Inside a transaction (which began `IMMEDIATE`, holding the write
     * lock) a busy error is passed on.
     */
    const attempt = <A>(operation: string, f: () => A): Effect.Effect<A, SqlError.SqlError> => {
      // `deadline` is set by the first busy answer; each later one sleeps twice as long, up to the cap.
      const tryAt = (deadline: number | undefined, sleepMs: number): Effect.Effect<A, SqlError.SqlError> => {
        try {
          return Effect.succeed(f())
        } catch (cause) {
          if (!isBusy(cause) || db.inTransaction || (deadline !== undefined && Date.now() >= deadline)) {
            return Effect.fail(classify(operation)(cause))
          }
          const until = deadline ?? Date.now() + lockWaitMs
          return Effect.flatMap(pause(sleepMs), () => tryAt(until, Math.min(sleepMs * 2, LOCK_RETRY_MAX_MS)))
        }
      }
      return Effect.suspend(() => tryAt(undefined, 1))
    }
    const run = (sql: string, params: ReadonlyArray<unknown>, raw = false) =>
      attempt("execute", () => {
        const st = prepare(sql)
        if (st.reader) return st.all(...params) as ReadonlyArray<Record<string, unknown>>
        const info = st.run(...params)
        if (afterCommit && COMMIT.test(sql)) afterCommit()
        return (raw ? info : []) as never
      })
    const values = (sql: string, params: ReadonlyArray<unknown>) =>
      attempt("execute", () => {
        const st = prepare(sql)
        if (st.reader) return st.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
        st.run(...params)
        return []
      })
    // Several statements at once may stop part-way: run with SQLite's own busy wait (on the loop;
    // DDL of migrations and tests, not a request's path).
    const execWaiting = (sql: string) => {
      db.pragma(`busy_timeout = ${lockWaitMs}`)
      try {
        db.exec(sql)
      } finally {
        db.pragma("busy_timeout = 0")
      }
      return [] as ReadonlyArray<Record<string, unknown>>
    }
    // Transaction control runs as cached prepared statements (it is on every write's path);
    // other parameterless statements (DDL, several statements at once) go through exec.
    const TRANSACTION_CONTROL = /^\s*(BEGIN( IMMEDIATE)?|COMMIT|ROLLBACK|SAVEPOINT \w+|RELEASE SAVEPOINT \w+|ROLLBACK TO SAVEPOINT \w+)\s*$/i
    const unprepared = (sql: string, params: ReadonlyArray<unknown>) =>
      params.length === 0 && !/^\s*(select|with|insert|update|delete)/i.test(sql) && !TRANSACTION_CONTROL.test(sql)
        ? Effect.try({ try: () => execWaiting(sql), catch: classify("execute") })
        : run(sql, params)

    const connection: SqlConnection.Connection = {
      execute: (sql, params, transform) => (transform ? Effect.map(run(sql, params), transform) : run(sql, params)),
      executeUnprepared: (sql, params, transform) => (transform ? Effect.map(unprepared(sql, params), transform) : unprepared(sql, params)),
      executeRaw: (sql, params) => run(sql, params, true),
      executeValues: values,
      executeValuesUnprepared: values,
      executeStream: () => Stream.die(new Error("streaming is not supported by the better-sqlite3 driver"))
    }
    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore,
      isTransaction: () => db.inTransaction
    })
    const client = yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "better-sqlite3",
      beginTransaction: "BEGIN IMMEDIATE",
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    const use = <A>(operation: string, f: (prepare: Prepare, db: Database.Database) => A) => {
      const direct = attempt(operation, () => f(prepare, db))
      // Outside a transaction, borrow the connection as the client's own statements do (the
      // borrower also rolls back a transaction a failed COMMIT's cleanup left open).
      return Effect.flatMap(Effect.serviceOption(client.transactionService), (tx) => Option.isSome(tx) ? direct : acquirers.borrower(() => direct))
    }
    return { client, database: SqliteDatabase.of({ use, afterCommit: afterCommit ?? (() => {}) }) }
  })

/** The client and the synchronous access to its connection, as a layer. */
export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient | SqliteDatabase, SqlError.SqlError> =>
  Layer.effectContext(
    Effect.map(make(options), ({ client, database }) => Context.make(SqlClient.SqlClient, client).pipe(Context.add(SqliteDatabase, database)))
  ).pipe(Layer.provide(Reactivity.layer))
