/**
 * The storage contract's cases for the zoom grid (`projects.cells`): each account's cells at every
 * level hold the projects whose box's centre lies in them, with their hectares, kept in step with
 * inserts, boundary and area changes and deletes; one account's cells never hold another's
 * projects; a read gives the range asked for, in key order, at most `limit` cells.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { BBox } from "../../Geometry.ts"
import { type ProjectRow, Storage, type StorageShape, type ZoomCell } from "../../Storage.ts"
import { cellOf, FINEST, LEVELS } from "../../TileGrid.ts"
import { projectRow } from "../fixtures.ts"
import { newAccountRow } from "./helpers.ts"

/** The whole world's range of keys at a level. */
const world = (level: number) => ({ lo: 0, hi: 4 ** level - 1 })

/** The cells `rows` make at `level`, counted here from their boxes. */
export const expectedCells = (rows: ReadonlyArray<Pick<ProjectRow, "bbox" | "area_hectares">>, level: number): Array<ZoomCell> => {
  const found = new Map<number, { projects: number; units: number }>()
  for (const r of rows) {
    if (r.bbox === null) continue
    const cell = Math.floor(cellOf(r.bbox) / 4 ** (FINEST - level))
    const c = found.get(cell) ?? { projects: 0, units: 0 }
    found.set(cell, { projects: c.projects + 1, units: c.units + Math.round(r.area_hectares * 10_000) })
  }
  return [...found].sort(([a], [b]) => a - b).map(([cell, c]) => ({ cell, projects: c.projects, hectares: c.units / 10_000 }))
}

/** Every cell of the account at every level, as the store answers them. */
export const storedCells = (s: StorageShape, accountId: string) =>
  Effect.forEach(LEVELS, (level) => s.projects.cells(accountId, level, world(level).lo, world(level).hi, 1_000_000))

/**
 * A SQL database as it was before the zoom grid's migration (`17_zoom_cells`): its triggers, table
 * and column gone, the migration not recorded.
 */
export const undoZoomCellsMigration = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  for (const event of ["insert", "update", "delete"]) {
    yield* sql.unsafe(pg ? `drop function projects_zoom_cells_${event}() cascade` : `drop trigger projects_zoom_cells_${event}`)
  }
  yield* sql.unsafe(`drop table zoom_cells`)
  yield* sql.unsafe(`alter table projects drop column zoom_cell`)
  yield* sql.unsafe(`delete from effect_sql_migrations where name = 'zoom_cells'`)
})

export const zoomCellsCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("zoom cells: every level counts the projects by their box's centre, in step with writes, one account each", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      const at = (name: string, bbox: BBox | null, area: number) => projectRow(a.id, { name, bbox, area_hectares: area })
      const rows = new Map<string, ProjectRow>()
      const put = (r: ProjectRow) => Effect.tap(s.projects.insert(r), () => Effect.sync(() => rows.set(r.id, r)))
      // two stands sharing a centre, neighbours a few metres apart, one far away, one without a boundary
      yield* put(at("Oak", [5.0, 45.0, 5.02, 45.02], 12.5))
      yield* put(at("Oak twin", [5.005, 45.005, 5.015, 45.015], 3.25))
      for (let i = 0; i < 40; i++) yield* put(at(`Row ${i}`, [5.1 + i * 0.0003, 45.1, 5.1 + i * 0.0003 + 0.0001, 45.1001], 0.5))
      yield* put(at("Antipodes", [-70.6, -33.5, -70.5, -33.4], 800))
      yield* put(at("Unmapped", null, 0))
      yield* s.projects.insert(projectRow(b.id, { name: "Neighbour", bbox: [5.0, 45.0, 5.02, 45.02], area_hectares: 9 }))
      const check = (label: string) =>
        Effect.gen(function*() {
          const stored = yield* storedCells(s, a.id)
          LEVELS.forEach((level, i) => assert.deepStrictEqual(stored[i], expectedCells([...rows.values()], level), `${label}, level ${level}`))
        })
      yield* check("after inserts")
      assert.deepStrictEqual((yield* storedCells(s, b.id)).map((cells) => cells.map((c) => c.projects)), LEVELS.map(() => [1]))

      const oak = [...rows.values()].find((r) => r.name === "Oak")!
      const moved = { bbox: [-70.55, -33.45, -70.54, -33.44] as BBox, area_hectares: 40 }
      yield* s.projects.update(a.id, oak.id, moved)
      rows.set(oak.id, { ...oak, ...moved })
      const twin = [...rows.values()].find((r) => r.name === "Oak twin")!
      yield* s.projects.update(a.id, twin.id, { area_hectares: 4 })
      rows.set(twin.id, { ...twin, area_hectares: 4 })
      yield* s.projects.update(a.id, twin.id, { name: "Renamed twin" })
      yield* check("after moving and resizing")

      const unmapped = [...rows.values()].find((r) => r.name === "Unmapped")!
      yield* s.projects.update(a.id, unmapped.id, { bbox: [5.1, 45.1, 5.1001, 45.1001], area_hectares: 0.1 })
      rows.set(unmapped.id, { ...unmapped, bbox: [5.1, 45.1, 5.1001, 45.1001], area_hectares: 0.1 })
      yield* s.projects.update(a.id, twin.id, { bbox: null, area_hectares: 0 })
      rows.set(twin.id, { ...twin, bbox: null, area_hectares: 0 })
      for (const r of [...rows.values()].filter((r) => r.name.startsWith("Row 1"))) {
        yield* s.projects.delete(a.id, r.id)
        rows.delete(r.id)
      }
      yield* check("after mapping, unmapping and deleting")

      // a range at a level: the cells within it only, in key order, at most `limit`
      const level = LEVELS.at(-1)!
      const all = expectedCells([...rows.values()], level)
      assert.isAbove(all.length, 3)
      const within = yield* s.projects.cells(a.id, level, all[1]!.cell, all[all.length - 2]!.cell, 1_000)
      assert.deepStrictEqual(within, all.slice(1, -1))
      assert.deepStrictEqual(yield* s.projects.cells(a.id, level, all[0]!.cell, all[all.length - 1]!.cell, 2), all.slice(0, 2))
    }))
}
