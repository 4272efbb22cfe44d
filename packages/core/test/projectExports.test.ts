/**
 * The list export's walk (`ProjectExports.walkExport`) over the in-memory reference store: it
 * stops before the project that would pass the count or the byte cap, and its resume cursor
 * continues exactly after the last project taken — also when the cap falls on a page's end (the
 * next page is then not read) and when a spatial filter answers short or empty pages.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Canopy from "../src/Canopy.ts"
import type { Boundary } from "../src/Geometry.ts"
import { MemoryStorage, type Principal, ProjectExports, Projects, RawJson } from "../src/index.ts"
import { Storage } from "../src/Storage.ts"
import { newAccount, projectRow } from "../src/testing/fixtures.ts"

const square = (west: number, south: number, side: number): Boundary => ({
  type: "Polygon",
  coordinates: [[[west, south], [west + side, south], [west + side, south + side], [west, south + side], [west, south]]]
})

/** Projects stored directly (no overlap checks), each a small square at `[lon, lat]`. */
const insert = (accountId: string, names: ReadonlyArray<string>, at: (name: string) => readonly [number, number]) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    for (const name of names) {
      const [lon, lat] = at(name)
      const g = square(lon, lat, 0.001)
      yield* storage.projects.insert(projectRow(accountId, {
        name,
        geometry: RawJson.RawJson.of(g),
        bbox: [lon, lat, lon + 0.001, lat + 0.001],
        area_hectares: 1
      }))
    }
  })

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, "0")}`)

/** Walks an export through, taking each project's name; with the pages read and how many of them held none. */
const walkAll = (principal: Principal.Principal, query: Readonly<Record<string, string>>, caps: ProjectExports.ExportCaps, size = 1, reserved = 0) =>
  Effect.gen(function*() {
    let pagesRead = 0
    let emptyPages = 0
    const walk = yield* ProjectExports.walkExport(principal, query, {
      caps,
      reservedBytes: reserved,
      encode: (p, index) => ({ name: p.name, index }),
      size: () => size,
      onPageRead: () => pagesRead++
    })
    const taken: Array<string> = []
    for (let page = yield* walk.nextPage; page; page = yield* walk.nextPage) {
      const before = taken.length
      for (const { index, name } of page) {
        assert.strictEqual(index, taken.length)
        taken.push(name)
      }
      if (taken.length === before) emptyPages++
    }
    return { taken, end: yield* walk.end, total: walk.total, pagesRead, emptyPages }
  })

const byName = { sort: "name", order: "asc" }
const unlimited = { maxProjects: 100_000, maxBytes: Number.MAX_SAFE_INTEGER }

layer(Canopy.layer.pipe(Layer.provideMerge(MemoryStorage.layer)), { timeout: "60 seconds" })("ProjectExports.walkExport", (it) => {
  it.effect("stops at the count cap and resumes after the last project taken; a cap on a page's end reads no further page", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const all = names("p", 250)
      yield* insert(account.id, all, () => [10, 10])

      const first = yield* walkAll(admin, byName, { ...unlimited, maxProjects: 120 })
      assert.deepStrictEqual(first.taken, all.slice(0, 120))
      assert.strictEqual(first.total, 250)
      assert.strictEqual(first.pagesRead, 2)
      assert.isTrue(first.end.truncated)
      const rest = yield* walkAll(admin, { ...byName, cursor: first.end.next_cursor! }, unlimited)
      assert.deepStrictEqual(rest.taken, all.slice(120))
      assert.deepStrictEqual(rest.end, { truncated: false, next_cursor: null })

      // The cap on the first page's last project: the second page is not read, its cursor is the resume point.
      const atEdge = yield* walkAll(admin, byName, { ...unlimited, maxProjects: ProjectExports.EXPORT_PAGE_SIZE })
      assert.strictEqual(atEdge.pagesRead, 1)
      assert.deepStrictEqual(atEdge.taken, all.slice(0, 100))
      const listed = yield* (yield* Projects).list(admin, { ...byName, per_page: "100" })
      assert.deepStrictEqual(atEdge.end, { truncated: true, next_cursor: listed.meta.next_cursor })
    }))

  it.effect("stops before the project that would pass the byte cap, the reserved bytes counted", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const all = names("q", 150)
      yield* insert(account.id, all, () => [11, 11])
      // 14 reserved and 37 × 10 fill 384 bytes exactly; with 4 reserved, 38 do
      const capped = yield* walkAll(admin, byName, { maxProjects: 1000, maxBytes: 384 }, 10, 14)
      assert.deepStrictEqual(capped.taken, all.slice(0, 37))
      const exact = yield* walkAll(admin, byName, { maxProjects: 1000, maxBytes: 384 }, 10, 4)
      assert.deepStrictEqual(exact.taken, all.slice(0, 38))
      const rest = yield* walkAll(admin, { ...byName, cursor: capped.end.next_cursor! }, unlimited, 10)
      assert.deepStrictEqual(rest.taken, all.slice(37))
      assert.isFalse(rest.end.truncated)
      // Nothing fits: a truncated, empty file whose rest is the whole list (no cursor).
      const none = yield* walkAll(admin, byName, { maxProjects: 1000, maxBytes: 9 }, 10)
      assert.deepStrictEqual(none.taken, [])
      assert.deepStrictEqual(none.end, { truncated: true, next_cursor: null })
    }))

  it.effect("a spatially filtered list: short and empty pages walked through, the resume cursor exact", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      // An L over [0, 0, 2, 2] without its north-east quarter: candidates there share its box, not its area.
      const l: Boundary = { type: "Polygon", coordinates: [[[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2], [0, 0]]] }
      const hitsB = names("b", 5)
      const hitsD = names("d", 3)
      yield* insert(account.id, [...names("a", 600), ...names("c", 600)], () => [1.5, 1.5])
      yield* insert(account.id, [...hitsB, ...hitsD], () => [0.5, 0.5])
      const query = { ...byName, intersects: JSON.stringify(l) }

      const whole = yield* walkAll(admin, query, unlimited)
      assert.deepStrictEqual(whole.taken, [...hitsB, ...hitsD])
      assert.isAtLeast(whole.emptyPages, 1)
      assert.isFalse(whole.end.truncated)

      for (const maxProjects of [3, 5]) {
        const first = yield* walkAll(admin, query, { ...unlimited, maxProjects })
        assert.deepStrictEqual(first.taken, hitsB.slice(0, maxProjects))
        assert.isTrue(first.end.truncated)
        const rest = yield* walkAll(admin, { ...query, cursor: first.end.next_cursor! }, unlimited)
        assert.deepStrictEqual(rest.taken, [...hitsB.slice(maxProjects), ...hitsD])
        assert.isFalse(rest.end.truncated)
      }
    }))

  it.effect("refuses `page`: a page number would skip rows yet end as a complete file", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const error = yield* Effect.flip(walkAll(admin, { page: "2" }, unlimited))
      assert.strictEqual(error._tag, "BadRequest")
      assert.deepStrictEqual(error._tag === "BadRequest" ? error.details.map((d) => d.field) : [], ["query.page"])
    }))
})

describe("ProjectExports.exportCaps", () => {
  it("a positive integer override replaces the streamed byte cap and lowers the built one; anything else is ignored", () => {
    const { exportCaps, MAX_BINARY_EXPORT_BYTES, MAX_EXPORT_BYTES, MAX_EXPORT_PROJECTS } = ProjectExports
    assert.deepStrictEqual(exportCaps("streamed", undefined), { maxProjects: MAX_EXPORT_PROJECTS, maxBytes: MAX_EXPORT_BYTES })
    assert.strictEqual(exportCaps("built", undefined).maxBytes, MAX_BINARY_EXPORT_BYTES)
    assert.strictEqual(exportCaps("streamed", "5000").maxBytes, 5000)
    assert.strictEqual(exportCaps("built", "5000").maxBytes, 5000)
    assert.strictEqual(exportCaps("built", String(MAX_EXPORT_BYTES)).maxBytes, MAX_BINARY_EXPORT_BYTES)
    for (const bad of ["", "0", "-1", "1.5", "abc", "1e400"]) assert.strictEqual(exportCaps("streamed", bad).maxBytes, MAX_EXPORT_BYTES)
  })
})
