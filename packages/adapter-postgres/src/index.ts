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
  /** Pool size per process. Default 10. */
  readonly maxConnections?: number
}

/** The SQL client as a layer. */
export const clientLayer = (options: PostgresOptions) =>
  PgClient.layer({
    url: Redacted.make(options.url),
    maxConnections: options.maxConnections ?? 10,
    applicationName: "canopy"
  })

/** The Storage service on PostgreSQL, migrated on open. */
export const layer = (options: PostgresOptions): Layer.Layer<Storage.Storage, unknown> =>
  Layer.effect(Storage.Storage, Effect.andThen(Migrations.run, SqlStorage.make)).pipe(Layer.provide(clientLayer(options)))

/** A storage provider for `createCanopy`. */
export const postgresStorage = (options: PostgresOptions): Canopy.StorageProvider => ({ layer: layer(options) })

/** Applies pending migrations and returns what ran. */
export const migrate = (options: PostgresOptions) => Effect.scoped(Effect.provide(Migrations.run, clientLayer(options)))
