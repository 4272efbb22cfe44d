/**
 * The domain cases for overlaps: the report in write answers (the shared area in geodesic
 * hectares), `project.overlap_detected`, archived projects left out, the account's `reject`
 * policy refusing overlapping writes and storing nothing — also when two writes race; and the
 * project list's exact `intersects` filter.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import * as Geometry from "../../Geometry.ts"
import * as GeometryCheck from "../../GeometryCheck.ts"
import { Accounts } from "../../services/Accounts.ts"
import { Projects } from "../../services/Projects.ts"
import { Storage } from "../../Storage.ts"
import { newAccount, projectRow } from "../fixtures.ts"
import { type DomainIt, eventsOf, failure, type SuiteClock } from "./helpers.ts"

/** A lon/lat rectangle as a Polygon. */
const rect = (w: number, s: number, e: number, n: number): Geometry.Polygon => ({ type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] })

/** What the API reports for a shared rectangle: its own geodesic area, rounded. */
const hectaresOf = (g: Geometry.Boundary) => Geometry.roundHectares(Geometry.areaHectares(g))

export const overlapsCases = (it: DomainIt, { tick }: SuiteClock): void => {
  it.effect("overlaps: a write reports the other projects it shares hectares with, largest first, and emits project.overlap_detected", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const projects = yield* Projects
      const west = yield* projects.create(admin, { name: "West block", geometry: rect(10, 50, 10.01, 50.01) })
      assert.deepStrictEqual(west.overlaps, { overlaps: [], complete: true })
      yield* tick
      const north = yield* projects.create(admin, { name: "North strip", geometry: rect(10.008, 50.009, 10.02, 50.02) })
      yield* tick
      // shares 5/10 × 10/10 of West's square with West, and a sliver with North
      const east = yield* projects.create(admin, { name: "East block", geometry: rect(10.005, 50, 10.015, 50.01) })
      assert.isTrue(east.overlaps?.complete)
      assert.deepStrictEqual(east.overlaps?.overlaps, [
        { project_id: west.id, name: "West block", overlap_hectares: hectaresOf(rect(10.005, 50, 10.01, 50.01)) },
        { project_id: north.id, name: "North strip", overlap_hectares: hectaresOf(rect(10.008, 50.009, 10.015, 50.01)) }
      ])
      assert.closeTo(east.overlaps!.overlaps[0]!.overlap_hectares, west.area_hectares / 2, 0.01)
      const [event] = yield* eventsOf(account.id, "project.overlap_detected")
      assert.deepStrictEqual(event?.data, {
        project: { id: east.id, name: "East block", slug: east.slug, area_hectares: east.area_hectares, status: "active" },
        overlaps: east.overlaps?.overlaps,
        complete: true
      })
      // a neighbour sharing only an edge, or only a corner, shares no hectares
      const edge = yield* projects.create(admin, { name: "Edge", geometry: rect(9.99, 50, 10, 50.01) })
      const corner = yield* projects.create(admin, { name: "Corner", geometry: rect(9.99, 49.99, 10, 50) })
      assert.deepStrictEqual(edge.overlaps?.overlaps, [])
      assert.deepStrictEqual(corner.overlaps?.overlaps, [])
      assert.lengthOf(yield* eventsOf(account.id, "project.overlap_detected"), 2, "North's and East's")
      // another account's projects are never compared
      const other = yield* newAccount()
      const elsewhere = yield* projects.create(other.admin, { name: "Same place", geometry: rect(10, 50, 10.01, 50.01) })
      assert.deepStrictEqual(elsewhere.overlaps, { overlaps: [], complete: true })
    }))

  it.effect("overlaps: updates and restores report them; archived projects, writes without a boundary and renames do not", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const projects = yield* Projects
      const a = yield* projects.create(admin, { name: "A", geometry: rect(20, 10, 20.01, 10.01) })
      const b = yield* projects.create(admin, { name: "B", geometry: rect(20.02, 10, 20.03, 10.01) })
      assert.deepStrictEqual(b.overlaps?.overlaps, [])
      const renamed = yield* projects.update(admin, b.id, { name: "B renamed" })
      assert.isFalse(Object.hasOwn(renamed, "overlaps"))
      assert.isFalse(Object.hasOwn(yield* projects.create(admin, { name: "No boundary" }), "overlaps"))
      const moved = yield* projects.update(admin, b.id, { geometry: rect(20.0075, 10, 20.0175, 10.01) })
      assert.deepStrictEqual(moved.overlaps?.overlaps.map((o) => [o.project_id, o.overlap_hectares]), [[a.id, hectaresOf(rect(20.0075, 10, 20.01, 10.01))]])
      yield* projects.archive(admin, a.id)
      const again = yield* projects.update(admin, b.id, { geometry: rect(20.005, 10, 20.015, 10.01) })
      assert.deepStrictEqual(again.overlaps?.overlaps, [], "an archived project counts toward nothing")
      const restored = yield* projects.restore(admin, a.id)
      assert.deepStrictEqual(restored.overlaps?.overlaps.map((o) => [o.project_id, o.overlap_hectares]), [[b.id, hectaresOf(rect(20.005, 10, 20.01, 10.01))]])
      assert.isFalse(Object.hasOwn(yield* projects.get(admin, a.id), "overlaps"))
      const draft = yield* projects.create(admin, { name: "Draft", status: "draft", geometry: rect(20, 10, 20.001, 10.001) })
      assert.deepStrictEqual(draft.overlaps?.overlaps.map((o) => o.project_id), [a.id])
      // the same boundary entered twice shares all of its hectares
      const copy = yield* projects.create(admin, { name: "Copy of A", status: "draft", geometry: rect(20, 10, 20.01, 10.01) })
      assert.deepStrictEqual(copy.overlaps?.overlaps.find((o) => o.project_id === a.id), { project_id: a.id, name: "A", overlap_hectares: a.area_hectares })
    }))

  it.effect("overlaps: copies of one stand are each reported, their shared area measured once", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const projects = yield* Projects
      const copies = []
      for (let i = 0; i < 3; i++) copies.push(yield* projects.create(admin, { name: `Stand copy ${i}`, geometry: rect(30, 10, 30.01, 10.01) }))
      const other = yield* projects.create(admin, { name: "Other stand", geometry: rect(30.01, 10, 30.02, 10.01) })
      let measures = 0
      const counting = { ...GeometryCheck.inline,
        shared: (a: Parameters<NonNullable<GeometryCheck.GeometryCheckShape["shared"]>>[0], b: typeof a) => (measures++, GeometryCheck.inline.shared!(a, b)) }
      const outline = yield* projects.create(admin, { name: "Outline", geometry: rect(30.005, 10, 30.015, 10.01) }).pipe(
        Effect.provideService(GeometryCheck.GeometryCheck, counting)
      )
      const half = hectaresOf(rect(30.005, 10, 30.01, 10.01))
      assert.deepStrictEqual(outline.overlaps?.overlaps.map((o) => [o.project_id, o.overlap_hectares]).sort(),
        [...copies.map((c) => [c.id, half]), [other.id, hectaresOf(rect(30.01, 10, 30.015, 10.01))]].sort())
      assert.isTrue(outline.overlaps?.complete)
      assert.strictEqual(measures, 2, "one copy and the other stand")
    }))

  it.effect("overlaps: under the reject policy an overlapping write is refused (409) and changes nothing", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const projects = yield* Projects
      const accounts = yield* Accounts
      assert.strictEqual((yield* accounts.get(admin)).overlap_policy, "warn")
      const updated = yield* accounts.update(admin, { overlap_policy: "reject" })
      assert.strictEqual(updated.overlap_policy, "reject")
      assert.strictEqual(updated.name, "Acme Forestry")
      const a = yield* projects.create(admin, { name: "A", geometry: rect(30, 10, 30.01, 10.01) })
      const refused = yield* failure(projects.create(admin, { name: "B", geometry: rect(30.005, 10, 30.015, 10.01) }))
      assert.strictEqual(refused.tag, "Conflict")
      assert.match((refused.error as { message: string }).message, new RegExp(`overlaps A \\(${a.id}\\) by [0-9.]+ ha`))
      const b = yield* projects.create(admin, { name: "B", geometry: rect(30.01, 10, 30.02, 10.01) })
      const moved = yield* failure(projects.update(admin, b.id, { name: "B moved", geometry: rect(30.009, 10, 30.02, 10.01) }))
      assert.strictEqual(moved.tag, "Conflict")
      const kept = yield* projects.get(admin, b.id)
      assert.strictEqual(kept.name, "B")
      assert.deepStrictEqual(kept.bbox, [30.01, 10, 30.02, 10.01])
      assert.strictEqual((yield* projects.list(admin)).meta.total, 2)
      assert.lengthOf(yield* eventsOf(account.id, "project.overlap_detected"), 0)
      // archived, it may be overlapped; its restore is then refused
      yield* projects.archive(admin, a.id)
      yield* projects.update(admin, b.id, { geometry: rect(30.005, 10, 30.02, 10.01) })
      assert.strictEqual((yield* failure(projects.restore(admin, a.id))).tag, "Conflict")
      assert.strictEqual((yield* projects.get(admin, a.id)).status, "archived")
    }))

  it.effect("overlaps: two overlapping creates racing under the reject policy — exactly one is stored, each time", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const projects = yield* Projects
      yield* (yield* Accounts).update(admin, { overlap_policy: "reject" })
      for (let round = 0; round < 5; round++) {
        const x = 40 + round * 0.1
        const outcomes = yield* Effect.all([
          Effect.exit(projects.create(admin, { name: `Left ${round}`, geometry: rect(x, 10, x + 0.01, 10.01) })),
          Effect.exit(projects.create(admin, { name: `Right ${round}`, geometry: rect(x + 0.005, 10, x + 0.015, 10.01) }))
        ], { concurrency: "unbounded" })
        assert.strictEqual(outcomes.filter((o) => o._tag === "Success").length, 1, `round ${round}`)
      }
      assert.strictEqual((yield* projects.list(admin)).meta.total, 5)
    }))

  it.effect("intersects: a point finds the boundaries covering it (edges yes, holes no); a polygon those it shares area with", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount("pro")
      const projects = yield* Projects
      const names = (query: Record<string, string>) => Effect.map(projects.list(admin, { sort: "name", ...query }), (r) => r.data.map((p) => p.name))
      const donut: Geometry.Polygon = { type: "Polygon",
        coordinates: [rect(50, 10, 50.03, 10.03).coordinates[0]!, [...rect(50.01, 10.01, 50.02, 10.02).coordinates[0]!].reverse()] }
      yield* projects.create(admin, { name: "Big", geometry: rect(50, 10, 50.03, 10.03) })
      yield* projects.create(admin, { name: "Donut", geometry: donut })
      yield* projects.create(admin, { name: "East", geometry: rect(50.015, 10.015, 50.05, 10.05) })
      yield* projects.create(admin, { name: "Elsewhere", geometry: rect(51, 11, 51.01, 11.01) })
      yield* projects.create(admin, { name: "No boundary" })
      const point = (x: number, y: number) => JSON.stringify({ type: "Point", coordinates: [x, y] })
      assert.deepStrictEqual(yield* names({ intersects: point(50.0155, 10.0155) }), ["Big", "East"], "inside Donut's hole")
      assert.deepStrictEqual(yield* names({ intersects: point(50.005, 10.005) }), ["Big", "Donut"])
      assert.deepStrictEqual(yield* names({ intersects: point(50.015, 10.02) }), ["Big", "Donut", "East"], "on the hole's edge and on East's")
      const poly = JSON.stringify(rect(50.025, 10.025, 50.06, 10.06))
      assert.deepStrictEqual(yield* names({ intersects: poly }), ["Big", "Donut", "East"])
      assert.deepStrictEqual(yield* names({ intersects: JSON.stringify(rect(50.03, 10, 50.031, 10.01)) }), [], "sharing an edge is sharing no area")
      assert.deepStrictEqual(yield* names({ intersects: poly, status: "draft" }), [])
      assert.deepStrictEqual(yield* names({ intersects: poly, search: "eas" }), ["East"])
      assert.deepStrictEqual(yield* names({ intersects: poly, bbox: "50.04,10.04,50.1,10.1" }), ["East"])
      const all = yield* projects.list(admin, { intersects: poly })
      assert.deepStrictEqual([all.meta.total, all.meta.total_exact, all.meta.has_more, all.meta.next_cursor], [3, true, false, null])
      for (const [bad, field] of [
        ["{", "intersects"],
        [JSON.stringify({ type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] }), "intersects"],
        [JSON.stringify({ type: "LineString", coordinates: [[0, 0], [1, 1]] }), "intersects"]
      ] as const) {
        const r = yield* failure(projects.list(admin, { intersects: bad }))
        assert.strictEqual(r.tag, "ValidationError")
        assert.strictEqual((r.error as unknown as { details: Array<{ field: string }> }).details[0]!.field, field)
      }
      const paged = yield* failure(projects.list(admin, { intersects: poly, page: "2" }))
      assert.strictEqual((paged.error as unknown as { details: Array<{ field: string }> }).details[0]!.field, "page")
    }))

  it.effect("intersects: pages follow cursors; past 500 candidates a page ends early with a cursor that resumes the walk", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount("enterprise")
      const projects = yield* Projects
      const s = yield* Storage
      // 520 frames around the point (their boxes hold it, their polygons do not), older than 4 projects covering it
      const frame = (i: number): Geometry.Polygon => ({
        type: "Polygon",
        coordinates: [rect(60 - 0.01 - i * 1e-5, 20 - 0.01, 60 + 0.01, 20 + 0.01).coordinates[0]!,
          [...rect(60 - 0.005, 20 - 0.005, 60 + 0.005, 20 + 0.005).coordinates[0]!].reverse()]
      })
      const rows = Array.from({ length: 520 }, (_, i) => {
        const v = GeometryCheck.evaluate(frame(i))
        if (v._tag !== "Valid") throw new Error("frame")
        return projectRow(account.id, { name: `frame ${i}`, geometry: v.geometry, bbox: v.bbox, area_hectares: v.area_hectares,
          created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() })
      })
      const covering = Array.from({ length: 4 }, (_, i) => {
        const v = GeometryCheck.evaluate(rect(59.999, 19.999, 60.001 + i * 1e-4, 20.001))
        if (v._tag !== "Valid") throw new Error("cover")
        return projectRow(account.id, { name: `cover ${i}`, geometry: v.geometry, bbox: v.bbox, area_hectares: v.area_hectares,
          created_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString() })
      })
      yield* s.transaction(Effect.forEach([...rows, ...covering], (r) => s.projects.insert(r), { discard: true }))
      const intersects = JSON.stringify({ type: "Point", coordinates: [60, 20] })
      const seen: Array<string> = []
      const pages: Array<number> = []
      let cursor: string | null | undefined
      for (let i = 0; i < 10; i++) {
        const r = yield* projects.list(admin, { intersects, per_page: "3", ...(cursor ? { cursor } : {}) })
        seen.push(...r.data.map((p) => p.name))
        pages.push(r.data.length)
        assert.strictEqual(r.meta.has_more, r.meta.next_cursor !== null)
        cursor = r.meta.next_cursor
        if (!cursor) break
      }
      assert.deepStrictEqual(seen, ["cover 3", "cover 2", "cover 1", "cover 0"])
      assert.strictEqual(pages[0], 0, "the first 500 candidates hold no match: an empty page that says to go on")
      assert.deepStrictEqual(pages.slice(1), [3, 1])
    }))
}
