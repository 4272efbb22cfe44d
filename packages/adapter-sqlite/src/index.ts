/**
 * @canopy/adapter-sqlite: Canopy's storage on one SQLite file. The driver and the schema live
 * here; the storage behaviour is `@canopy/core`'s `SqlStorage`.
 */
import { type Canopy, SqlStorage, Storage } from "@canopy/core"
import { Effect, Layer } from "effect"
import * as SqliteClient from "./SqliteClient.ts"
import * as Migrations from "./migrations.ts"

export { Migrations, SqliteClient }
export type { SqliteOptions } from "./SqliteClient.ts"

/** The Storage service on a SQLite file, migrated on open. */
export const layer = (options: SqliteClient.SqliteOptions): Layer.Layer<Storage.Storage, unknown> =>
  Layer.effect(Storage.Storage, Effect.andThen(Migrations.run, SqlStorage.make)).pipe(
    Layer.provide(SqliteClient.layer(options))
  )

/** A storage provider for `createCanopy`. */
export const sqliteStorage = (options: SqliteClient.SqliteOptions): Canopy.StorageProvider => ({ layer: layer(options) })

/** Opens a database, applies pending migrations, and closes it; returns the migrations applied. */
export const migrate = (options: SqliteClient.SqliteOptions) =>
  Effect.scoped(Effect.provide(Migrations.run, SqliteClient.layer(options)))
