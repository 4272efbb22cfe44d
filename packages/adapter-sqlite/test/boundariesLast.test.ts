import { type Canopy, createCanopy, SqlMigrations } from "@canopy/core"
import * as Testing from "@canopy/core/testing"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Layer } from "effect"
import { SqliteClient, sqliteStorage } from "../src/index.ts"

/** A storage on a file migrated only up to `last` (the schema a database had then). */
const storageUpTo = (filename: string, last: number): Canopy.StorageProvider => ({
  layer: Testing.storageUpTo(last).pipe(Layer.provide(SqliteClient.layer({ filename })))
})

const square = (x: number, y: number, size: number, vertices = 4) => {
  const ring: Array<[number, number]> = []
  for (let i = 0; i < vertices; i++) {
    const t = (4 * i) / vertices, side = Math.floor(t), f = t - side
    const [px, py] = side === 0 ? [f, 0] : side === 1 ? [1, f] : side === 2 ? [1 - f, 1] : [0, 1 - f]
    ring.push([x + size * px, y + size * py])
  }
  ring.push(ring[0]!)
  return { type: "Polygon" as const, coordinates: [ring] }
}

/** Every row of a table by its key, with its rowid (the full-text and spatial indexes refer to it). */
const rowsOf = (db: Database.Database, table: string, key: string) =>
  Object.fromEntries((db.prepare(`select rowid as _rowid, * from ${table}`).all() as Array<Record<string, unknown>>).map((r) => [String(r[key]), r]))

const columnsOf = (db: Database.Database, table: string) => (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name)

describe("SQLite: boundaries in the last column (migration 20_boundaries_last)", () => {
  it("a database grown under the previous schema keeps every row, rowid, index entry and cascade", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-last-"))
    const filename = join(dir, "canopy.db")
    try {
      const before = await createCanopy({ storage: storageUpTo(filename, 19) })
      const { api_key } = await before.bootstrap({ account_name: "Grown", email: "g@example.com" })
      const principal = await before.authenticate(api_key.token)
      // a large boundary (its text spans many overflow pages), small ones, an archived one, a
      // replaced boundary (its old text copied into the history), an asset
      const large = await before.projects.create(principal, { name: "Estate outline", geometry: square(10, 10, 0.02, 20_000) })
      const small = await Promise.all([0, 1, 2].map((i) => before.projects.create(principal, { name: `Stand ${i}`, geometry: square(20 + i, 20, 0.005) })))
      await before.projects.archive(principal, small[2]!.id)
      await before.projects.update(principal, small[0]!.id, { geometry: square(20, 20, 0.006, 400) })
      const asset = await before.assets.create(principal, small[1]!.id, { name: "Creek gauge", type: "monitoring_station" })
      await before.close()

      const old = new Database(filename)
      assert.notStrictEqual(columnsOf(old, "projects").at(-1), "geometry")
      const snapshot = (db: Database.Database) => ({
        projects: rowsOf(db, "projects", "id"),
        versions: rowsOf(db, "boundary_versions", "_rowid"),
        rtree: db.prepare("select * from projects_rtree order by id").all(),
        search: db.prepare("select p.id from projects_fts f join projects p on p.rowid = f.rowid where projects_fts match 'Stand' order by p.id").all()
      })
      const was = snapshot(old)
      old.close()
      assert.strictEqual(Object.values(was.versions).filter((v) => v.geometry !== null).length, 1) // the replaced boundary, copied
      assert.strictEqual(was.search.length, 3)

      const after = await createCanopy({ storage: sqliteStorage({ filename }) })
      const db = new Database(filename)
      try {
        for (const table of SqlMigrations.BOUNDARY_TABLES) assert.strictEqual(columnsOf(db, table).at(-1), "geometry")
        const is = snapshot(db)
        assert.deepStrictEqual(is, was) // every column by name, every rowid, the R*Tree and the full-text index
        assert.strictEqual(String(is.projects[large.id]!.geometry).length > 200_000, true) // ~50 overflow pages
        assert.strictEqual(db.pragma("integrity_check", { simple: true }), "ok")
        assert.deepStrictEqual(db.pragma("foreign_key_check"), [])

        const principalAfter = await after.authenticate(api_key.token)
        const found = await after.projects.list(principalAfter, { search: "Estate", bbox: "10.005,10.005,10.01,10.01" })
        assert.deepStrictEqual(found.data.map((p) => p.id), [large.id])
        assert.deepStrictEqual((await after.projects.get(principalAfter, large.id)).geometry, square(10, 10, 0.02, 20_000))
        // the project's removal still takes its asset and its history with it
        for (const p of [small[1]!, small[0]!]) {
          await after.projects.archive(principalAfter, p.id)
          await after.projects.delete(principalAfter, p.id)
        }
        assert.strictEqual((db.prepare("select count(*) as n from assets where id = ?").get(asset.id) as { n: number }).n, 0)
        assert.strictEqual((db.prepare("select count(*) as n from boundary_versions where project_id = ?").get(small[0]!.id) as { n: number }).n, 0)
      } finally {
        db.close()
        await after.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
