/**
 * @canopy/adapter-sqlite: Canopy's storage on one SQLite file. The driver lives here, and the
 * synchronous route for the two operations of every request (`RequestPath`); the schema and the
 * storage behaviour are `@canopy/core`'s (`SqlMigrations`, `SqlStorage`).
 */
import { type Canopy, SqlStorage, Storage } from "@canopy/core"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import * as SqliteClient from "./SqliteClient.ts"
import * as Migrations from "./migrations.ts"
import * as RequestPath from "./RequestPath.ts"

export { Migrations, SqliteClient }
export type { SqliteOptions } from "./SqliteClient.ts"

/**
 * The Storage service on an open connection, migrated first: core's `SqlStorage`, with the two
 * operations of every request's path run synchronously on the connection (`RequestPath`).
 *
 * Once migrated, the connection keeps its temporary files in memory (`temp_store = MEMORY`). In
 * the http benchmark's steady state, SQLite opened a temporary file in /var/tmp for every create's
 * project insert (the row, its indexes and its triggers' rows, inside the create's transaction):
 * the insert took 434–473 µs, and 288–295 µs with the file in memory. What a statement of the
 * request path keeps there is bounded by the rows it touches. The migrations run before, with
 * temporary files on disk: their index builds over a grown database sort millions of rows.
 */
export const make: Effect.Effect<
  Storage.StorageShape,
  Effect.Error<typeof Migrations.run> | Effect.Error<typeof SqlStorage.make> | SqlError.SqlError,
  SqlClient.SqlClient | SqliteClient.SqliteDatabase
> = Effect.gen(function*() {
  yield* Migrations.run
  const database = yield* SqliteClient.SqliteDatabase
  yield* database.use("temp_store", (_prepare, db) => db.pragma("temp_store = MEMORY"))
  const storage = yield* SqlStorage.make
  const fast = RequestPath.make(database)
  return { ...storage, credentials: { ...storage.credentials, getByHash: fast.getByHash }, requests: { meter: fast.meter } } satisfies Storage.StorageShape
})

/** The Storage service on a SQLite file, migrated on open (`make`). */
export const layer = (options: SqliteClient.SqliteOptions): Layer.Layer<Storage.Storage, unknown> =>
  Layer.effect(Storage.Storage, make).pipe(Layer.provide(SqliteClient.layer(options)))

/** A storage provider for `createCanopy`. */
export const sqliteStorage = (options: SqliteClient.SqliteOptions): Canopy.StorageProvider => ({ layer: layer(options) })

/**
 * Copies a live database to `destination` with SQLite's online backup API: consistent even while
 * servers write to it (WAL), without stopping them. Refuses to overwrite an existing file; checks
 * the copy's integrity before answering its size in pages.
 */
export const backup = async (filename: string, destination: string, onProgress?: (done: number, total: number) => void) => {
  if (existsSync(destination)) throw new Error(`${resolve(destination)} already exists; a backup never overwrites a file`)
  if (!existsSync(filename)) throw new Error(`no database at ${resolve(filename)}`)
  const source = new Database(filename, { readonly: true, fileMustExist: true })
  try {
    const { totalPages } = await source.backup(destination, {
      progress: ({ totalPages: total, remainingPages }) => {
        onProgress?.(total - remainingPages, total)
        return 1_000 // pages per step: the event loop stays free between steps
      }
    })
    const copy = new Database(destination, { readonly: true, fileMustExist: true })
    try {
      const check = copy.pragma("integrity_check", { simple: true })
      if (check !== "ok") throw new Error(`the copy at ${resolve(destination)} failed its integrity check: ${String(check)}`)
    } finally {
      copy.close()
    }
    return { pages: totalPages }
  } finally {
    source.close()
  }
}

/** Opens a database, applies pending migrations, and closes it; returns the migrations applied. */
export const migrate = (options: SqliteClient.SqliteOptions) => Effect.scoped(Effect.provide(Migrations.run, SqliteClient.layer(options)))
