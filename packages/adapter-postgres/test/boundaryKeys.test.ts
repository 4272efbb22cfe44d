/**
 * The migration that keys stored boundaries (`16_boundary_keys`) keys the boundaries already
 * stored: a database as it was before it (no key column, the migration not recorded) is migrated,
 * and each neighbour then carries its text's key.
 */
import { Overlap, RawJson, SqlMigrations, SqlStorage } from "@canopy/core"
import { Fixtures, undoZoomCellsMigration } from "@canopy/core/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { clientLayer } from "../src/index.ts"
import { freshDatabase } from "./database.ts"

const client = Layer.unwrap(Effect.map(freshDatabase(inject("postgresUrl")), (url) => clientLayer({ url })))

layer(client, { timeout: 60_000 })("PostgreSQL: boundary keys", (it) => {
  it.effect("the migration keys the boundaries stored before it, 500 at a time", () =>
    Effect.gen(function*() {
      yield* SqlMigrations.run
      const s = yield* SqlStorage.make
      const sql = yield* SqlClient.SqlClient
      const account = Fixtures.accountRow()
      yield* s.accounts.insert(account)
      const square = (d: number) => `{"type":"Polygon","coordinates":[[[0,0],[${d},0],[${d},${d}],[0,${d}],[0,0]]]}`
      const rows = Array.from({ length: 1_203 }, (_, i) =>
        Fixtures.projectRow(account.id, { name: `Stand ${i}`, bbox: [0, 0, 1, 1], geometry: i === 0 ? null : new RawJson.RawJson(square(1 + (i % 7))) }))
      yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
      // The database as it was before the migration (and the later ones).
      yield* undoZoomCellsMigration
      yield* sql.unsafe(`alter table projects drop column boundary_key`)
      yield* sql.unsafe(`delete from effect_sql_migrations where name = 'boundary_keys'`)
      const ran = yield* SqlMigrations.run
      assert.deepStrictEqual(ran.map(([, name]) => name), ["boundary_keys", "zoom_cells"])
      const found = yield* s.projects.meeting(account.id, [0, 0, 1, 1], { limit: 2_000 })
      assert.lengthOf(found, rows.length)
      const byId = new Map(rows.map((r) => [r.id, r]))
      for (const n of found) {
        const text = byId.get(n.id)!.geometry?.text
        assert.strictEqual(n.boundary_key, text === undefined ? "" : Overlap.boundaryKey(text))
      }
    }))
})
