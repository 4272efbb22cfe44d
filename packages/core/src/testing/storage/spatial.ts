/**
 * The storage contract's cases for the spatial index: the project list's `bbox` filter (edges
 * included, with sorts, cursors, status and search, past the sort-order walk) and `meeting` (the
 * overlap candidates: counted projects only, one account only, kept in step with writes).
 */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import type { BBox } from "../../Geometry.ts"
import { boundaryKey, boxesMeet } from "../../Overlap.ts"
import { RawJson } from "../../RawJson.ts"
import { type ProjectQuery, type ProjectRow, SEARCH_COUNT_LIMIT, Storage, type StorageShape } from "../../Storage.ts"
import { projectRow } from "../fixtures.ts"
import { iso, newAccountRow } from "./helpers.ts"

const names = (rows: ReadonlyArray<{ readonly name: string }>) => rows.map((r) => r.name).sort()

/** Every page of a list walked with keyset cursors (the service's `after`), in order. */
const walk = (s: StorageShape, accountId: string, q: Omit<ProjectQuery, "limit" | "offset" | "after">, limit: number) =>
  Effect.gen(function*() {
    const out: Array<ProjectRow> = []
    let after: ProjectQuery["after"]
    for (let i = 0; i < 1_000; i++) {
      const page = yield* s.projects.list(accountId, { ...q, limit, offset: 0, after })
      out.push(...page.rows)
      if (!page.hasMore) return out
      const last = page.rows[page.rows.length - 1]!
      after = { value: q.sort === "name" ? last.sort_name : q.sort === "area_hectares" ? last.area_hectares : last.created_at, id: last.id }
    }
    return out
  })

export const spatialCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("bbox filter: boxes that share a point, edges and corners included; no boundary never matches; other accounts never", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      const box = (name: string, bbox: BBox | null, over: Partial<ProjectRow> = {}) => projectRow(a.id, { name, bbox, ...over })
      const rows = [
        box("inside", [10.2, 50.2, 10.4, 50.4]),
        box("covering", [9, 49, 11, 51]),
        box("east-edge", [11, 50.5, 11.5, 50.6]),
        box("corner", [11, 51, 12, 52]),
        box("apart", [11.0001, 50, 12, 51]),
        box("south", [10, 40, 11, 48.9999]),
        box("no-boundary", null),
        box("archived", [10.5, 50.5, 10.6, 50.6], { status: "archived" })
      ]
      for (const r of rows) yield* s.projects.insert(r)
      yield* s.projects.insert(projectRow(b.id, { name: "other-account", bbox: [10, 50, 11, 51] }))
      const q = { sort: "name" as const, order: "asc" as const, limit: 100, offset: 0 }
      const page = yield* s.projects.list(a.id, { ...q, bbox: [10, 49, 11, 51] })
      assert.deepStrictEqual(page.rows.map((r) => r.name), ["archived", "corner", "covering", "east-edge", "inside"])
      assert.strictEqual(page.total, 5)
      assert.isTrue(page.totalExact)
      assert.deepStrictEqual(names((yield* s.projects.list(a.id, { ...q, bbox: [10, 49, 11, 51], status: "archived" })).rows), ["archived"])
      assert.deepStrictEqual(names((yield* s.projects.list(a.id, { ...q, bbox: [-180, -90, 180, 90], search: "edge" })).rows), ["east-edge"])
      assert.deepStrictEqual((yield* s.projects.list(a.id, { ...q, bbox: [-10, -10, -5, -5] })).rows, [])
      // a degenerate box (a point) finds the boxes holding it
      assert.deepStrictEqual(names((yield* s.projects.list(a.id, { ...q, bbox: [10.3, 50.3, 10.3, 50.3] })).rows), ["covering", "inside"])
      assert.deepStrictEqual(names((yield* s.projects.list(b.id, { ...q, bbox: [10, 49, 11, 51] })).rows), ["other-account"])
    }))

  it.effect("bbox filter agrees with the plain test for random boxes, in every sort, page by page", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const coordinate = (lo: number, hi: number) => fc.integer({ min: lo * 4, max: hi * 4 }).map((n) => n / 4)
      const arbBox = fc.tuple(coordinate(-20, 20), coordinate(-20, 20), coordinate(0, 8), coordinate(0, 8))
        .map(([w, so, dw, dh]): BBox => [w, so, w + dw, so + dh])
      const boxes = fc.sample(arbBox, { numRuns: 120, seed: 17 })
      const rows = boxes.map((bbox, i) =>
        projectRow(a.id, {
          name: `p${String(i).padStart(3, "0")}`,
          bbox,
          area_hectares: (i * 7) % 13,
          created_at: iso(i % 40)
        })
      )
      yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
      for (const query of fc.sample(arbBox, { numRuns: 12, seed: 5 })) {
        const expected = names(rows.filter((r) => boxesMeet(r.bbox!, query)))
        for (const sort of ["name", "created_at", "area_hectares"] as const) {
          const got = yield* walk(s, a.id, { sort, order: "desc", bbox: query }, 7)
          assert.deepStrictEqual(names(got), expected, `${sort} ${query.join(",")}`)
          const first = yield* s.projects.list(a.id, { sort, order: "desc", bbox: query, limit: 7, offset: 0 })
          assert.strictEqual(first.total, expected.length)
        }
      }
    }))

  it.effect("bbox filter past the sort-order walk: few matches among more than 5,000 projects, pages in order", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const far = Array.from({ length: 5_100 },
        (_, i) => projectRow(a.id, { name: `far ${i}`, bbox: [100, 10, 100.1, 10.1], created_at: iso(1_000 + (i % 500)) }))
      const near = Array.from({ length: 5 }, (_, i) => projectRow(a.id, { name: `near ${i}`, bbox: [1, 1, 1.1, 1.1], created_at: iso(i) }))
      yield* s.transaction(Effect.forEach([...far, ...near], (r) => s.projects.insert(r), { discard: true }))
      const got = yield* walk(s, a.id, { sort: "created_at", order: "desc", bbox: [0, 0, 2, 2] }, 2)
      assert.deepStrictEqual(got.map((r) => r.name), ["near 4", "near 3", "near 2", "near 1", "near 0"])
      const page = yield* s.projects.list(a.id, { sort: "created_at", order: "desc", bbox: [0, 0, 2, 2], limit: 2, offset: 2 })
      assert.deepStrictEqual(page.rows.map((r) => r.name), ["near 2", "near 1"])
      assert.strictEqual(page.total, 5)
      // A box holding more than SEARCH_COUNT_LIMIT projects: pages from the sort-order walk, the total capped.
      const byCreated = [...far, ...near].sort((x, y) => x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? 1 : -1)
      const wide = yield* s.projects.list(a.id, { sort: "created_at", order: "desc", bbox: [0, 0, 101, 11], limit: 3, offset: 0 })
      assert.deepStrictEqual(wide.rows.map((r) => r.id), byCreated.slice(0, 3).map((r) => r.id))
      assert.isTrue(wide.hasMore)
      assert.deepStrictEqual([wide.total, wide.totalExact], [SEARCH_COUNT_LIMIT, false])
      const last = wide.rows[2]!
      const next = yield* s.projects.list(a.id, { sort: "created_at", order: "desc", bbox: [0, 0, 101, 11], limit: 3, offset: 0,
        after: { value: last.created_at, id: last.id } })
      assert.deepStrictEqual(next.rows.map((r) => r.id), byCreated.slice(3, 6).map((r) => r.id))
    }))

  it.effect("meeting: counted projects of the account near a box, kept in step with updates and deletes, bounded by limit", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      const p = (name: string, bbox: BBox | null, over: Partial<ProjectRow> = {}) => projectRow(a.id, { name, bbox, ...over })
      const near = p("near", [0, 0, 1, 1])
      const draft = p("draft", [0.5, 0.5, 2, 2], { status: "draft" })
      const archived = p("archived", [0, 0, 1, 1], { status: "archived" })
      const far = p("far", [5, 5, 6, 6])
      const self = p("self", [0, 0, 1, 1])
      for (const r of [near, draft, archived, far, self, p("none", null)]) yield* s.projects.insert(r)
      yield* s.projects.insert(projectRow(b.id, { name: "other", bbox: [0, 0, 1, 1] }))
      const meeting = (box: BBox, limit = 10) => Effect.map(s.projects.meeting(a.id, box, { excludeId: self.id, limit }), (rows) => names(rows))
      assert.deepStrictEqual(yield* meeting([0.9, 0.9, 1.5, 1.5]), ["draft", "near"])
      const found = yield* s.projects.meeting(a.id, [0, 0, 1, 1], { limit: 10 })
      assert.deepStrictEqual(found.find((r) => r.id === near.id), { id: near.id, name: "near", updated_at: near.updated_at, area_hectares: near.area_hectares,
        same_boundary: false, boundary_key: "" })
      assert.lengthOf(yield* s.projects.meeting(a.id, [0, 0, 1, 1], { limit: 1 }), 1)
      // archiving and moving leave the candidates; restoring and moving back bring them again
      yield* s.projects.update(a.id, near.id, { status: "archived" })
      yield* s.projects.update(a.id, draft.id, { bbox: [7, 7, 8, 8] })
      assert.deepStrictEqual(yield* meeting([0.9, 0.9, 1.5, 1.5]), [])
      assert.deepStrictEqual(yield* meeting([7.5, 7.5, 9, 9]), ["draft"])
      yield* s.projects.update(a.id, near.id, { status: "active" })
      yield* s.projects.update(a.id, archived.id, { status: "active" })
      assert.deepStrictEqual(yield* meeting([0.9, 0.9, 1.5, 1.5]), ["archived", "near"])
      yield* s.projects.update(a.id, near.id, { bbox: null, geometry: null })
      yield* s.projects.delete(a.id, archived.id)
      assert.deepStrictEqual(yield* meeting([0.9, 0.9, 1.5, 1.5]), [])
      assert.deepStrictEqual(yield* meeting([5, 5, 5, 5]), ["far"])
    }))

  it.effect("meeting with sameBoundary: true exactly for the neighbours storing that very text", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const square = (d: number) => `{"type":"Polygon","coordinates":[[[0,0],[${d},0],[${d},${d}],[0,${d}],[0,0]]]}`
      const p = (name: string, text: string | null, area = 1) =>
        projectRow(a.id, { name, bbox: [0, 0, 1, 1], area_hectares: area, geometry: text === null ? null : new RawJson(text) })
      const rows = [p("twin", square(1), 12.5), p("twin too", square(1)), p("other", square(0.5)), p("spaced", square(1).replace(",", ", ")), p("none", null)]
      for (const r of rows) yield* s.projects.insert(r)
      const found = yield* s.projects.meeting(a.id, [0, 0, 1, 1], { limit: 10, sameBoundary: square(1) })
      assert.deepStrictEqual(found.filter((r) => r.same_boundary).map((r) => r.name).sort(), ["twin", "twin too"])
      assert.strictEqual(found.find((r) => r.name === "twin")!.area_hectares, 12.5)
      assert.lengthOf(found, 5)
      assert.isTrue((yield* s.projects.meeting(a.id, [0, 0, 1, 1], { limit: 10 })).every((r) => !r.same_boundary))
      // Each neighbour's boundary key: equal exactly for equal texts, kept in step with its boundary,
      // and never part of the row read back.
      const keyOf = (rows: ReadonlyArray<{ readonly name: string; readonly boundary_key: string }>, name: string) =>
        rows.find((r) => r.name === name)!.boundary_key
      assert.strictEqual(keyOf(found, "twin"), boundaryKey(square(1)))
      assert.strictEqual(keyOf(found, "twin too"), keyOf(found, "twin"))
      assert.strictEqual(keyOf(found, "other"), boundaryKey(square(0.5)))
      assert.notStrictEqual(keyOf(found, "spaced"), keyOf(found, "twin"))
      assert.strictEqual(keyOf(found, "none"), "")
      yield* s.projects.update(a.id, rows[1]!.id, { geometry: new RawJson(square(0.5)) })
      yield* s.projects.update(a.id, rows[0]!.id, { geometry: null })
      const after = yield* s.projects.meeting(a.id, [0, 0, 1, 1], { limit: 10, sameBoundary: square(1) })
      assert.deepStrictEqual([keyOf(after, "twin too"), keyOf(after, "twin")], [boundaryKey(square(0.5)), ""])
      assert.isTrue(after.every((r) => !r.same_boundary))
      assert.deepStrictEqual(yield* s.projects.get(a.id, rows[1]!.id), { ...rows[1]!, geometry: new RawJson(square(0.5)) })
    }))
}
