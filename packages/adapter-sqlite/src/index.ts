/**
 * @canopy/adapter-sqlite: Canopy's storage on one SQLite file. The driver lives here, and the
 * synchronous route for the two operations of every request (`RequestPath`); the schema and the
 * storage behaviour are `@canopy/core`'s (`SqlMigrations`, `SqlStorage`).
 */
import { type Canopy, SqlStorage, Storage } from "@canopy/core"
import { Effect, Layer } from "effect"
import * as SqliteClient from "./SqliteClient.ts"
import * as Migrations from "./migrations.ts"
import * as RequestPath from "./RequestPath.ts"

export { Migrations, SqliteClient }
export type { SqliteOptions } from "./SqliteClient.ts"

/**
 * The Storage service on a SQLite file, migrated on open: core's `SqlStorage`, with the two
 * operations of every request's path run synchronously on the connection (`RequestPath`).
 */
export const layer = (options: SqliteClient.SqliteOptions): Layer.Layer<Storage.Storage, unknown> =>
  Layer.effect(Storage.Storage, Effect.gen(function*() {
    yield* Migrations.run
    const storage = yield* SqlStorage.make
    const fast = RequestPath.make(yield* SqliteClient.SqliteDatabase)
    return { ...storage, credentials: { ...storage.credentials, getByHash: fast.getByHash }, requests: { meter: fast.meter } }
  })).pipe(Layer.provide(SqliteClient.layer(options)))

/** A storage provider for `createCanopy`. */
export const sqliteStorage = (options: SqliteClient.SqliteOptions): Canopy.StorageProvider => ({ layer: layer(options) })

/** Opens a database, applies pending migrations, and closes it; returns the migrations applied. */
export const migrate = (options: SqliteClient.SqliteOptions) =>
  Effect.scoped(Effect.provide(Migrations.run, SqliteClient.layer(options)))
