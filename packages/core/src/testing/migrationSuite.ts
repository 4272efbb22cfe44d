/**
 * The migrations that fill in what the projects stored before them lack, run on each SQL store:
 * a database as it was before the migration (its columns, tables and triggers gone, the migration
 * not recorded) is migrated, and every project stored earlier then carries what the migration adds.
 *
 * ```ts
 * import { migrationSuite } from "@canopy/core/testing"
 * migrationSuite("SQLite", onTemporaryFile((filename) => SqliteClient.layer({ filename })))
 * ```
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { RawJson } from "../RawJson.ts"
import { boundaryKey } from "../Overlap.ts"
import * as SqlMigrations from "../sql/migrations.ts"
import * as SqlStorage from "../sql/SqlStorage.ts"
import { Storage } from "../Storage.ts"
import { LEVELS } from "../TileGrid.ts"
import { accountRow, projectRow } from "./fixtures.ts"
import { expectedCells, storedCells, undoZoomCellsMigration } from "./storage/zoomCells.ts"

/** The storage over the `SqlClient` in context, its database migrated up to migration `last` only: the schema a database had then. */
export const storageUpTo = (last: number): Layer.Layer<Storage, unknown, SqlClient.SqlClient> =>
  Layer.effect(Storage, Effect.andThen(SqlMigrations.runUpTo(last), SqlStorage.make))

/** More projects than one batch of a migration places (500), with a partial last batch. */
const STORED_BEFORE = 1_203

/** A store's migrated schema and an account, each case on a fresh database from `client`. */
const migrated = Effect.gen(function*() {
  yield* SqlMigrations.run
  const s = yield* SqlStorage.make
  const account = accountRow()
  yield* s.accounts.insert(account)
  return { s, account, sql: yield* SqlClient.SqlClient }
})

/** The database as it was before 18_account_lock (PostgreSQL's function gone, the migration not recorded). */
const undoAccountLockMigration = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({ pg: () => sql.unsafe(`drop function lock_account(text)`), orElse: () => Effect.void })
  yield* sql.unsafe(`delete from effect_sql_migrations where name = 'account_lock'`)
})

/** The database as it was before 19_search_short_pending_list (PostgreSQL's trigram indexes with GIN's default pending list). */
const undoSearchIndexMigration = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => Effect.forEach(SqlMigrations.SEARCH_INDEXES, (index) => sql.unsafe(`alter index ${index} reset (gin_pending_list_limit)`), { discard: true }),
    orElse: () => Effect.void
  })
  yield* sql.unsafe(`delete from effect_sql_migrations where name = 'search_short_pending_list'`)
})

/**
 * The database as it was before 20_boundaries_last and 21_boundaries_uncompressed: the migrations
 * not recorded. (Each runs again alike: a boundary already last moves to the end again, a column
 * already stored uncompressed is set so again.)
 */
const undoBoundaryStorageMigrations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`delete from effect_sql_migrations where name in ('boundaries_last', 'boundaries_uncompressed')`)
})

/** Registers the migration cases for a store; `client` opens a fresh, empty database each time it is built. */
export const migrationSuite = (name: string, client: Layer.Layer<SqlClient.SqlClient, unknown>): void => {
  describe(`${name}: migrations over stored projects`, () => {
    it.effect("16_boundary_keys keys the boundaries stored before it, 500 at a time", () =>
      Effect.gen(function*() {
        const { account, s, sql } = yield* migrated
        const square = (d: number) => `{"type":"Polygon","coordinates":[[[0,0],[${d},0],[${d},${d}],[0,${d}],[0,0]]]}`
        const rows = Array.from({ length: STORED_BEFORE },
          (_, i) => projectRow(account.id, { name: `Stand ${i}`, bbox: [0, 0, 1, 1], geometry: i === 0 ? null : new RawJson(square(1 + (i % 7))) }))
        yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
        // The database as it was before the migration (and the later ones).
        yield* undoBoundaryStorageMigrations
        yield* undoSearchIndexMigration
        yield* undoAccountLockMigration
        yield* undoZoomCellsMigration
        yield* sql.unsafe(`alter table projects drop column boundary_key`)
        yield* sql.unsafe(`delete from effect_sql_migrations where name = 'boundary_keys'`)
        const ran = yield* SqlMigrations.run
        assert.deepStrictEqual(ran.map(([, name]) => name), ["boundary_keys", "zoom_cells", "account_lock", "search_short_pending_list", "boundaries_last",
          "boundaries_uncompressed"])
        const found = yield* s.projects.meeting(account.id, [0, 0, 1, 1], { limit: 2_000 })
        assert.lengthOf(found, rows.length)
        const byId = new Map(rows.map((r) => [r.id, r]))
        for (const n of found) {
          const text = byId.get(n.id)!.geometry?.text
          assert.strictEqual(n.boundary_key, text === undefined ? "" : boundaryKey(text))
        }
      }).pipe(Effect.provide(client)), 60_000)

    it.effect("17_zoom_cells counts the projects stored before it, in batches, at every level", () =>
      Effect.gen(function*() {
        const { account, s } = yield* migrated
        const rows = Array.from({ length: STORED_BEFORE }, (_, i) => {
          const w = 5 + (i % 37) * 0.7
          const south = 40 + Math.floor(i / 37) * 0.3
          return projectRow(account.id, { name: `Stand ${i}`, bbox: i % 50 === 0 ? null : [w, south, w + 0.01, south + 0.01], area_hectares: 1 + (i % 9) })
        })
        yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
        yield* undoBoundaryStorageMigrations
        yield* undoSearchIndexMigration
        yield* undoAccountLockMigration
        yield* undoZoomCellsMigration
        const ran = yield* SqlMigrations.run
        assert.deepStrictEqual(ran.map(([, name]) => name), ["zoom_cells", "account_lock", "search_short_pending_list", "boundaries_last",
          "boundaries_uncompressed"])
        const stored = yield* storedCells(s, account.id)
        LEVELS.forEach((level, i) => assert.deepStrictEqual(stored[i], expectedCells(rows, level), `level ${level}`))
        assert.strictEqual(stored[0]!.reduce((n, c) => n + c.projects, 0), rows.length - 25)
        // and kept by the triggers from then on
        yield* s.projects.delete(account.id, rows[1]!.id)
        assert.strictEqual((yield* storedCells(s, account.id))[0]!.reduce((n, c) => n + c.projects, 0), rows.length - 26)
      }).pipe(Effect.provide(client)), 60_000)
  })
}
