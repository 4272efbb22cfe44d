/**
 * @canopy/adapter-postgres: Canopy's storage on PostgreSQL through `@effect/sql-pg`. The driver and
 * the schema live here; the storage behaviour is `@canopy/core`'s `SqlStorage`, with row locks
 * (`SELECT … FOR UPDATE`) where several instances must see each other's writes in order.
 */
import { type Canopy, SqlStorage, Storage } from "@canopy/core"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as Migrations from "./migrations.ts"

export { Migrations }

/** How to reach the database. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string
  /**
   * Connections this process's pool may open. Default `CANOPY_PG_POOL_SIZE` or 10. Every instance
   * (server or worker) has its own pool: instances × pool size must stay under the server's
   * `max_connections` less its reserve, or go through a pooler (PgBouncer).
   */
  readonly maxConnections?: number
  /**
   * How long opening a connection (TCP, TLS, authentication) may take, in ms. Default
   * `CANOPY_PG_CONNECT_TIMEOUT_MS` or 5000.
   */
  readonly connectTimeoutMs?: number
  /**
   * How long one storage operation may take, in ms: the server cancels a statement running longer
   * (`statement_timeout`), and the client gives up on an operation (waiting for a pooled
   * connection included) that has no answer by then, e.g. a frozen or unreachable server, with a
   * `StorageError`. A transaction gets three times this. Default `CANOPY_PG_STATEMENT_TIMEOUT_MS`
   * or 10000.
   */
  readonly statementTimeoutMs?: number
  /**
   * Whether statements are prepared by name and kept per connection (the default). Turn off
   * behind a pooler in transaction mode that cannot keep named statements (PgBouncer before 1.21,
   * or without `max_prepared_statements`): every statement then runs unnamed. Default
   * `CANOPY_PG_PREPARED_STATEMENTS` (`0`/`off`/`false` turn it off), else on.
   */
  readonly preparedStatements?: boolean
}

/** Defaults of the timeouts (ms). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000
/** Default of the pool size per process. */
export const DEFAULT_POOL_SIZE = 10

const fromEnv = (name: string, unit = "milliseconds"): number | undefined => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number of ${unit}, got ${JSON.stringify(raw)}`)
  return n
}

/** The pool size in effect: the option, else `CANOPY_PG_POOL_SIZE`, else 10. */
export const poolSize = (options: PostgresOptions): number => options.maxConnections ?? fromEnv("CANOPY_PG_POOL_SIZE", "connections") ?? DEFAULT_POOL_SIZE

/** The timeouts in effect: the options, else the environment, else the defaults. */
export const timeouts = (options: PostgresOptions): { readonly connectMs: number; readonly statementMs: number } => ({
  connectMs: options.connectTimeoutMs ?? fromEnv("CANOPY_PG_CONNECT_TIMEOUT_MS") ?? DEFAULT_CONNECT_TIMEOUT_MS,
  statementMs: options.statementTimeoutMs ?? fromEnv("CANOPY_PG_STATEMENT_TIMEOUT_MS") ?? DEFAULT_STATEMENT_TIMEOUT_MS
})

/** Whether statements are prepared: the option, else the environment, else on. */
export const preparedStatements = (options: PostgresOptions): boolean => {
  if (options.preparedStatements !== undefined) return options.preparedStatements
  const raw = process.env.CANOPY_PG_PREPARED_STATEMENTS?.trim().toLowerCase()
  if (raw === undefined || raw === "") return true
  if (["0", "off", "false", "no"].includes(raw)) return false
  if (["1", "on", "true", "yes"].includes(raw)) return true
  throw new Error(`CANOPY_PG_PREPARED_STATEMENTS must be on or off, got ${JSON.stringify(process.env.CANOPY_PG_PREPARED_STATEMENTS)}`)
}

/** The SQL client as a layer. */
export const clientLayer = (options: PostgresOptions) => {
  const t = timeouts(options)
  return PgClient.layer({
    url: Redacted.make(options.url),
    maxConnections: poolSize(options),
    prepare: preparedStatements(options),
    applicationName: "canopy",
    connectTimeout: t.connectMs,
    startupParameters: { statement_timeout: String(t.statementMs) }
  })
}

/**
 * One connection without a statement timeout, for migrations: building an index or backfilling
 * totals over a million rows may rightly take longer than any request may.
 */
const migrationClientLayer = (options: PostgresOptions) =>
  PgClient.layer({
    url: Redacted.make(options.url),
    maxConnections: 1,
    applicationName: "canopy-migrate",
    prepare: preparedStatements(options),
    connectTimeout: timeouts(options).connectMs,
    startupParameters: { statement_timeout: "0" }
  })

const runMigrations = (options: PostgresOptions) => Effect.scoped(Effect.provide(Migrations.run, migrationClientLayer(options)))

/**
 * Bounds every operation of a store in time: an operation without an answer after `ms` fails with
 * `StorageError` (the statement is interrupted; the driver cancels it, or drops the connection).
 */
export const withTimeouts = (storage: Storage.StorageShape, ms: number): Storage.StorageShape => {
  // The operation runs in a fiber of its own, so that the answer does not wait for it to stop: a
  // frozen server never acknowledges the driver's cancel request, and interrupting the query in
  // place would hold the request until the connection gives up. It is interrupted in the background.
  // The fiber starts in the caller's turn: started on a later one, every operation waited behind all
  // else the event loop had queued (a create's under its account's lock, 1–2 ms each on a busy server).
  const bound = <A, E, R>(self: Effect.Effect<A, E, R>, limit: number): Effect.Effect<A, E | Storage.StorageError, R> =>
    Effect.flatMap(Effect.forkDetach(self, { startImmediately: true }), (fiber) => {
      // Answered at once (a row the transaction remembered, an insert it holds): no timer to set.
      const done = fiber.pollUnsafe()
      if (done !== undefined) return done
      // One timer and the fiber's observer (a race with a sleep would start two more fibers an operation).
      return Effect.callback<A, E | Storage.StorageError>((resume) => {
        const timer = setTimeout(() => {
          stop()
          fiber.interruptUnsafe()
          resume(Effect.fail(new Storage.StorageError({ message: `storage timeout: no answer from PostgreSQL within ${limit} ms` })))
        }, limit)
        const stop = fiber.addObserver((exit) => {
          clearTimeout(timer)
          resume(exit)
        })
        return Effect.sync(() => {
          clearTimeout(timer)
          stop()
        })
      })
    })
  // A transaction holds several statements: three times the bound.
  return Storage.mapOperations(storage, (operation, effect) => bound(effect, operation === "transaction" ? ms * 3 : ms))
}

/** The Storage service on PostgreSQL, migrated on open, every operation bounded in time. */
export const layer = (options: PostgresOptions): Layer.Layer<Storage.Storage, unknown> =>
  Layer.effect(
    Storage.Storage,
    Effect.map(Effect.andThen(runMigrations(options), SqlStorage.make), (s) => withTimeouts(s, timeouts(options).statementMs))
  ).pipe(Layer.provide(clientLayer(options)))

/** A storage provider for `createCanopy`. */
export const postgresStorage = (options: PostgresOptions): Canopy.StorageProvider => ({ layer: layer(options) })

/** Applies pending migrations and returns what ran. */
export const migrate = (options: PostgresOptions) => runMigrations(options)
