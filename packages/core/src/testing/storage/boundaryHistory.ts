/** The storage contract's cases for boundary versions: rows as written, the newest version's copy, keyset pages, retention, tenancy, atomicity. */
import { assert, type Vitest } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { RawJson } from "../../RawJson.ts"
import { MAX_BOUNDARY_VERSIONS, Storage, type StorageShape } from "../../Storage.ts"
import { projectRow } from "../fixtures.ts"
import { newAccountRow, versionRow } from "./helpers.ts"

/** The project's newest version number, read as the history's first page of one; undefined without versions. */
const newest = (s: StorageShape, accountId: string, projectId: string) =>
  Effect.map(s.boundaryVersions.list(accountId, projectId, { limit: 1, offset: 0 }), (page) => page.rows[0]?.version)

const projectWithVersions = (s: StorageShape, versions: number) =>
  Effect.gen(function*() {
    const a = yield* newAccountRow(s)
    const p = projectRow(a.id)
    yield* s.projects.insert(p)
    const rows = Array.from({ length: versions }, (_, i) => versionRow(a.id, p.id, i + 1))
    yield* s.transaction(Effect.forEach(rows, (r) => s.boundaryVersions.append(r), { discard: true }))
    return { a, p, rows }
  })

export const boundaryHistoryCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("boundary versions: rows out equal rows in (a cleared boundary and nulls included); the newest first", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, p, rows } = yield* projectWithVersions(s, 2)
      assert.strictEqual(yield* newest(s, a.id, p.id), 2)
      const got = yield* s.boundaryVersions.get(a.id, p.id, 1)
      assert.instanceOf(got?.geometry, RawJson)
      assert.strictEqual(got?.geometry?.text, rows[0]!.geometry!.text)
      assert.deepStrictEqual({ ...got, geometry: null }, { ...rows[0]!, geometry: null })
      const cleared = versionRow(a.id, p.id, 3, {
        geometry: null,
        bbox: null,
        area_hectares_after: 0,
        via: "version_restore",
        file_format: "kml",
        restored_from: 1,
        actor_kind: null,
        user_id: null,
        credential_id: null
      })
      yield* s.boundaryVersions.append(cleared)
      assert.deepStrictEqual(yield* s.boundaryVersions.get(a.id, p.id, 3), cleared)
      assert.strictEqual(yield* newest(s, a.id, p.id), 3)
      assert.isUndefined(yield* s.boundaryVersions.get(a.id, p.id, 4))
      const other = projectRow(a.id)
      yield* s.projects.insert(other)
      assert.isUndefined(yield* newest(s, a.id, other.id))
    }))

  it.effect("boundary versions: newest first, without boundaries; pages by keyset and by offset", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, p, rows } = yield* projectWithVersions(s, 7)
      const first = yield* s.boundaryVersions.list(a.id, p.id, { limit: 3, offset: 0 })
      assert.deepStrictEqual(first.rows.map((r) => r.version), [7, 6, 5])
      assert.deepStrictEqual([first.hasMore, first.total], [true, 7])
      const { geometry: _, ...summary } = rows[6]!
      assert.deepStrictEqual(first.rows[0], summary)
      assert.notProperty(first.rows[0], "geometry")
      const second = yield* s.boundaryVersions.list(a.id, p.id, { limit: 3, offset: 0, before: 5 })
      assert.deepStrictEqual(second.rows.map((r) => r.version), [4, 3, 2])
      const last = yield* s.boundaryVersions.list(a.id, p.id, { limit: 3, offset: 0, before: 2 })
      assert.deepStrictEqual([last.rows.map((r) => r.version), last.hasMore], [[1], false])
      const byOffset = yield* s.boundaryVersions.list(a.id, p.id, { limit: 2, offset: 5 })
      assert.deepStrictEqual([byOffset.rows.map((r) => r.version), byOffset.hasMore], [[2, 1], false])
      const past = yield* s.boundaryVersions.list(a.id, p.id, { limit: 2, offset: 50 })
      assert.deepStrictEqual([past.rows, past.total], [[], 7])
    }))

  it.effect("boundary versions: at most MAX_BOUNDARY_VERSIONS kept, the oldest removed as one more is written", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, p } = yield* projectWithVersions(s, MAX_BOUNDARY_VERSIONS)
      assert.strictEqual((yield* s.boundaryVersions.list(a.id, p.id, { limit: 1, offset: 0 })).total, MAX_BOUNDARY_VERSIONS)
      yield* s.boundaryVersions.append(versionRow(a.id, p.id, MAX_BOUNDARY_VERSIONS + 1))
      const page = yield* s.boundaryVersions.list(a.id, p.id, { limit: 100, offset: 0 })
      assert.strictEqual(page.total, MAX_BOUNDARY_VERSIONS)
      assert.deepStrictEqual([page.rows[0]?.version, page.rows[page.rows.length - 1]?.version], [MAX_BOUNDARY_VERSIONS + 1, 2])
      assert.isUndefined(yield* s.boundaryVersions.get(a.id, p.id, 1))
    }))

  it.effect("boundary versions: another account's read as absent; deleteProject removes one project's only", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, p } = yield* projectWithVersions(s, 2)
      const b = yield* newAccountRow(s)
      assert.isUndefined(yield* s.boundaryVersions.get(b.id, p.id, 1))
      assert.isUndefined(yield* newest(s, b.id, p.id))
      assert.deepStrictEqual(yield* s.boundaryVersions.list(b.id, p.id, { limit: 10, offset: 0 }), { rows: [], hasMore: false, total: 0 })
      yield* s.boundaryVersions.deleteProject(b.id, p.id)
      assert.strictEqual(yield* newest(s, a.id, p.id), 2)
      const other = projectRow(a.id)
      yield* s.projects.insert(other)
      yield* s.boundaryVersions.append(versionRow(a.id, other.id, 1))
      yield* s.boundaryVersions.deleteProject(a.id, p.id)
      assert.isUndefined(yield* newest(s, a.id, p.id))
      assert.strictEqual((yield* s.boundaryVersions.list(a.id, p.id, { limit: 10, offset: 0 })).total, 0)
      assert.strictEqual(yield* newest(s, a.id, other.id), 1)
    }))

  it.effect("boundary versions: a version written in a failed transaction is not kept", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const { a, p } = yield* projectWithVersions(s, 1)
      const failed = yield* Effect.exit(s.transaction(Effect.gen(function*() {
        yield* s.lockAccount(a.id)
        yield* s.boundaryVersions.append(versionRow(a.id, p.id, 2))
        return yield* Effect.fail("refused after the version was written" as const)
      })))
      assert.isTrue(Exit.isFailure(failed))
      assert.strictEqual(yield* newest(s, a.id, p.id), 1)
      assert.isUndefined(yield* s.boundaryVersions.get(a.id, p.id, 2))
    }))

  it.effect("boundary versions: the newest, stored without a copy, reads the project's boundary; supersedeLatest gives it its own", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const square = (side: number) => RawJson.of({ type: "Polygon", coordinates: [[[0, 0], [side, 0], [side, side], [0, side], [0, 0]]] })
      const p = projectRow(a.id, { geometry: square(1) })
      yield* s.projects.insert(p)
      const { geometry: _, ...first } = versionRow(a.id, p.id, 1)
      yield* s.boundaryVersions.append(first)
      assert.strictEqual((yield* s.boundaryVersions.get(a.id, p.id, 1))?.geometry?.text, square(1).text)
      // The boundary changes to 2, then is cleared: each write first gives the newest its own copy.
      yield* s.transaction(Effect.gen(function*() {
        yield* s.projects.update(a.id, p.id, { geometry: square(2) })
        assert.strictEqual(yield* s.boundaryVersions.supersedeLatest(a.id, p.id, square(1)), 1)
        yield* s.boundaryVersions.append({ ...first, version: 2 })
      }))
      yield* s.transaction(Effect.gen(function*() {
        yield* s.projects.update(a.id, p.id, { geometry: null })
        assert.strictEqual(yield* s.boundaryVersions.supersedeLatest(a.id, p.id, square(2)), 2)
        yield* s.boundaryVersions.append({ ...first, version: 3 })
      }))
      const texts = yield* Effect.forEach([1, 2, 3], (v) => Effect.map(s.boundaryVersions.get(a.id, p.id, v), (r) => r?.geometry?.text ?? null))
      assert.deepStrictEqual(texts, [square(1).text, square(2).text, null])
      // Set again: the cleared version keeps "no boundary" once superseded; the older ones keep theirs.
      yield* s.projects.update(a.id, p.id, { geometry: square(4) })
      assert.strictEqual(yield* s.boundaryVersions.supersedeLatest(a.id, p.id, null), 3)
      yield* s.boundaryVersions.append({ ...first, version: 4 })
      const again = yield* Effect.forEach([2, 3, 4], (v) => Effect.map(s.boundaryVersions.get(a.id, p.id, v), (r) => r?.geometry?.text ?? null))
      assert.deepStrictEqual(again, [square(2).text, null, square(4).text])
      // A newest version with its own copy (a history from before copies were deferred) keeps it.
      assert.strictEqual(yield* s.boundaryVersions.supersedeLatest(a.id, p.id, square(4)), 4)
      yield* s.boundaryVersions.append({ ...first, version: 5, geometry: square(5) })
      assert.strictEqual(yield* s.boundaryVersions.supersedeLatest(a.id, p.id, square(3)), 5)
      assert.strictEqual((yield* s.boundaryVersions.get(a.id, p.id, 5))?.geometry?.text, square(5).text)
      assert.strictEqual((yield* s.boundaryVersions.get(a.id, p.id, 4))?.geometry?.text, square(4).text)
      // Another account's call, or a project without versions: undefined, and nothing written.
      const other = yield* newAccountRow(s)
      assert.isUndefined(yield* s.boundaryVersions.supersedeLatest(other.id, p.id, square(6)))
      assert.isUndefined(yield* s.boundaryVersions.get(other.id, p.id, 4))
      const fresh = projectRow(a.id, { geometry: square(7) })
      yield* s.projects.insert(fresh)
      assert.isUndefined(yield* s.boundaryVersions.supersedeLatest(a.id, fresh.id, square(6)))
      assert.isUndefined(yield* newest(s, a.id, fresh.id))
      assert.deepStrictEqual(
        yield* Effect.forEach([4, 5], (v) => Effect.map(s.boundaryVersions.get(a.id, p.id, v), (r) => r?.geometry?.text ?? null)),
        [square(4).text, square(5).text]
      )
    }))
}
