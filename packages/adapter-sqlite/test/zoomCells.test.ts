/**
 * The zoom grid's migration (`17_zoom_cells`) places the projects stored before it: a database as
 * it was before it (no cell column, table or triggers; the migration not recorded) is migrated, and
 * every level's cells then count its projects, 500 placed at a time.
 */
import { SqlMigrations, SqlStorage, TileGrid } from "@canopy/core"
import { expectedCells, Fixtures, storedCells, undoZoomCellsMigration } from "@canopy/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqliteClient } from "../src/index.ts"

describe("SQLite: zoom cells", () => {
  it.effect("the migration counts the projects stored before it, in batches", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "canopy-cells-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      yield* Effect.gen(function*() {
        yield* SqlMigrations.run
        const s = yield* SqlStorage.make
        const account = Fixtures.accountRow()
        yield* s.accounts.insert(account)
        const rows = Array.from({ length: 1_203 }, (_, i) => {
          const w = 5 + (i % 37) * 0.7
          const south = 40 + Math.floor(i / 37) * 0.3
          return Fixtures.projectRow(account.id, { name: `Stand ${i}`, bbox: i % 50 === 0 ? null : [w, south, w + 0.01, south + 0.01],
            area_hectares: 1 + (i % 9) })
        })
        yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
        yield* undoZoomCellsMigration
        const ran = yield* SqlMigrations.run
        assert.deepStrictEqual(ran.map(([, name]) => name), ["zoom_cells"])
        const stored = yield* storedCells(s, account.id)
        TileGrid.LEVELS.forEach((level, i) => assert.deepStrictEqual(stored[i], expectedCells(rows, level), `level ${level}`))
        assert.strictEqual(stored[0]!.reduce((n, c) => n + c.projects, 0), rows.length - 25)
        // and kept by the triggers from then on
        yield* s.projects.delete(account.id, rows[1]!.id)
        assert.strictEqual((yield* storedCells(s, account.id))[0]!.reduce((n, c) => n + c.projects, 0), rows.length - 26)
      }).pipe(Effect.provide(SqliteClient.layer({ filename: join(dir, "canopy.db") })))
    }))
})
