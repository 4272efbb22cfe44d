/** The domain cases for boundary history: versions written by changes, listed, read and restored. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import * as RawJson from "../../RawJson.ts"
import { BoundaryHistory } from "../../services/BoundaryHistory.ts"
import { Projects } from "../../services/Projects.ts"
import { Storage } from "../../Storage.ts"
import { newAccount, projectRow, squareHa } from "../fixtures.ts"
import { type DomainIt, eventsOf, failure, type SuiteClock, withPermissions } from "./helpers.ts"

export const boundaryHistoryCases = (it: DomainIt, { tick }: SuiteClock): void => {
  it.effect("boundary history: create and each boundary change make a version (who, via, hectares); other writes do not", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const projects = yield* Projects
      const history = yield* BoundaryHistory
      const p = yield* projects.create(admin, { name: "Oak stand", geometry: squareHa(10) })
      yield* tick
      yield* projects.update(admin, p.id, { name: "Oak stand, renamed" })
      yield* projects.update(admin, p.id, { geometry: squareHa(10) })
      yield* projects.update(admin, p.id, { geometry: squareHa(4) })
      yield* projects.archive(admin, p.id)
      const page = yield* history.list(admin, p.id)
      assert.deepStrictEqual(page.data.map((v) => [v.version, v.via]), [[2, "update"], [1, "create"]])
      const v2 = page.data[0]!
      assert.closeTo(v2.area_hectares_before, 10, 0.1)
      assert.closeTo(v2.area_hectares_after, 4, 0.1)
      assert.deepStrictEqual(v2.changed_by, { kind: admin.kind, user_id: admin.user_id, credential_id: admin.credential_id })
      assert.deepStrictEqual([page.meta.total, page.meta.has_more, page.meta.next_cursor], [2, false, null])
      const one = yield* history.get(admin, p.id, "2")
      assert.deepStrictEqual(RawJson.materialize(one.geometry), RawJson.materialize((yield* projects.get(admin, p.id)).geometry))
      yield* projects.update(admin, p.id, { geometry: null })
      const cleared = yield* history.get(admin, p.id, "3")
      assert.deepStrictEqual([cleared.geometry, cleared.area_hectares_after], [null, 0])
    }))

  it.effect("boundary history: pages by cursor; a restore is a normal update that becomes a version", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const projects = yield* Projects
      const history = yield* BoundaryHistory
      const p = yield* projects.create(admin, { name: "Pine", geometry: squareHa(8) })
      for (const ha of [7, 6, 5, 4]) yield* projects.update(admin, p.id, { geometry: squareHa(ha) })
      const first = yield* history.list(admin, p.id, { per_page: "2" })
      assert.deepStrictEqual(first.data.map((v) => v.version), [5, 4])
      const second = yield* history.list(admin, p.id, { per_page: "2", cursor: first.meta.next_cursor })
      assert.deepStrictEqual([second.data.map((v) => v.version), second.meta.page], [[3, 2], null])
      const third = yield* history.list(admin, p.id, { per_page: "2", cursor: second.meta.next_cursor })
      assert.deepStrictEqual([third.data.map((v) => v.version), third.meta.has_more], [[1], false])
      const before = (yield* eventsOf(account.id, "project.updated")).length
      const restored = yield* history.restore(admin, p.id, "1")
      assert.closeTo(restored.area_hectares, 8, 0.1)
      assert.strictEqual((yield* projects.get(admin, p.id)).area_hectares, restored.area_hectares)
      assert.strictEqual((yield* eventsOf(account.id, "project.updated")).length, before + 1)
      const v6 = (yield* history.list(admin, p.id, { per_page: "1" })).data[0]!
      assert.deepStrictEqual([v6.version, v6.via, v6.restored_from], [6, "version_restore", 1])
      assert.closeTo(v6.area_hectares_before, 4, 0.1)
      assert.strictEqual(v6.area_hectares_after, restored.area_hectares)
      // restoring the boundary it already has still records the restore
      yield* history.restore(admin, p.id, "6")
      assert.strictEqual((yield* history.list(admin, p.id)).meta.total, 7)
    }))

  it.effect("boundary history: a refused change stores no version (invalid geometry, over the plan's hectares)", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const projects = yield* Projects
      const history = yield* BoundaryHistory
      const big = yield* projects.create(admin, { name: "Big", geometry: squareHa(600) })
      yield* projects.update(admin, big.id, { geometry: squareHa(300) })
      yield* projects.create(admin, { name: "Other", geometry: squareHa(600, 20) })
      const invalid = yield* failure(projects.update(admin, big.id, { geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] } }))
      assert.strictEqual(invalid.tag, "ValidationError")
      assert.strictEqual((yield* failure(history.restore(admin, big.id, "1"))).tag, "LimitExceeded")
      const page = yield* history.list(admin, big.id)
      assert.deepStrictEqual(page.data.map((v) => v.version), [2, 1])
      assert.closeTo((yield* projects.get(admin, big.id)).area_hectares, 300, 1)
    }))

  it.effect("boundary history: a boundary older than the history is kept as the initial version when first changed", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const s = yield* Storage
      const row = projectRow(account.id, { geometry: RawJson.RawJson.of(squareHa(3)), area_hectares: 3, bbox: [10, 0, 10.01, 0.01] })
      yield* s.projects.insert(row)
      yield* (yield* Projects).update(admin, row.id, { geometry: squareHa(2) })
      const page = yield* (yield* BoundaryHistory).list(admin, row.id)
      assert.deepStrictEqual(page.data.map((v) => [v.version, v.via, v.changed_by === null, v.area_hectares_after]), [
        [2, "update", false, page.data[0]!.area_hectares_after],
        [1, "initial", true, 3]
      ])
      assert.strictEqual(((yield* (yield* BoundaryHistory).get(admin, row.id, "1")).geometry as RawJson.RawJson | null)?.text, row.geometry!.text)
    }))

  it.effect("boundary history: read with projects:read, restore needs projects:write; other accounts and bad versions are 404s; gone with the project", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const other = yield* newAccount()
      const projects = yield* Projects
      const history = yield* BoundaryHistory
      const p = yield* projects.create(admin, { name: "Larch", geometry: squareHa(5) })
      const reader = withPermissions(admin, ["projects:read"])
      assert.strictEqual((yield* history.list(reader, p.id)).meta.total, 1)
      assert.strictEqual((yield* history.get(reader, p.id, "1")).version, 1)
      assert.strictEqual((yield* failure(history.restore(reader, p.id, "1"))).tag, "Forbidden")
      for (const v of ["0", "2", "x", "1.5", "-1"]) assert.strictEqual((yield* failure(history.get(admin, p.id, v))).tag, "NotFound")
      assert.strictEqual((yield* failure(history.list(other.admin, p.id))).tag, "NotFound")
      assert.strictEqual((yield* failure(history.get(other.admin, p.id, "1"))).tag, "NotFound")
      assert.strictEqual((yield* failure(history.restore(other.admin, p.id, "1"))).tag, "NotFound")
      assert.strictEqual((yield* failure(history.list(admin, p.id, { per_page: "0" }))).tag, "ValidationError")
      yield* projects.archive(admin, p.id)
      assert.strictEqual((yield* history.list(admin, p.id)).meta.total, 1, "an archived project keeps its history")
      yield* projects.delete(admin, p.id)
      assert.strictEqual((yield* (yield* Storage).boundaryVersions.list(admin.account_id, p.id, { limit: 1, offset: 0 })).total, 0)
      assert.strictEqual((yield* failure(history.list(admin, p.id))).tag, "NotFound")
    }))
}
