/** The domain cases for projects and assets. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type * as Geometry from "../../Geometry.ts"
import * as Ids from "../../Ids.ts"
import * as RawJson from "../../RawJson.ts"
import { Assets } from "../../services/Assets.ts"
import { Members } from "../../services/Members.ts"
import { Projects } from "../../services/Projects.ts"
import { Storage } from "../../Storage.ts"
import { newAccount, squareHa } from "../fixtures.ts"
import { type DomainIt, eventsOf, eventTypes, failure, JAN_1, type SuiteClock } from "./helpers.ts"

export const projectsCases = (it: DomainIt, { clock, tick }: SuiteClock): void => {
  it.effect("projects: create measures the boundary, derives the slug, emits project.created with created_by", () =>
    Effect.gen(function*() {
      yield* clock.set(JAN_1)
      const { account, admin, user } = yield* newAccount()
      const projects = yield* Projects
      const cw = squareHa(10)
      const reversed = { type: "Polygon" as const, coordinates: [[...cw.coordinates[0]!].reverse()] }
      const p = yield* projects.create({ ...admin, user_id: user.id }, { name: "Forêt de Bercé", description: "oak", geometry: reversed })
      assert.strictEqual(p.slug, "foret-de-berce")
      assert.strictEqual(p.status, "active")
      assert.closeTo(p.area_hectares, 10, 0.1)
      assert.strictEqual(p.area_hectares, Math.round(p.area_hectares * 10_000) / 10_000)
      assert.deepStrictEqual(p.bbox?.map((x) => Math.round(x * 1e6) / 1e6), [10, 0, 10.002841, 0.00286])
      const ring = (RawJson.materialize(p.geometry) as Geometry.Polygon).coordinates[0]!
      const signed = ring.slice(0, -1).reduce((acc, q, i) => acc + q[0] * ring[i + 1]![1] - ring[i + 1]![0] * q[1], 0)
      assert.isAbove(signed, 0, "the stored shell is counter-clockwise (RFC 7946)")
      assert.strictEqual(p.created_at, new Date(JAN_1).toISOString())
      const [created] = yield* eventsOf(account.id, "project.created")
      assert.strictEqual(created?.data.id, p.id)
      assert.deepStrictEqual(created?.data.created_by, { id: user.id, email: user.email })
      assert.deepStrictEqual(created?.account, { id: account.id, name: account.name })
      assert.strictEqual((yield* projects.create(admin, { name: "No boundary" })).area_hectares, 0)
      assert.strictEqual((yield* projects.create(admin, { name: "Drafty", status: "draft", slug: "my-draft" })).slug, "my-draft")
    }))

  it.effect("projects: validation reports every problem with its path and stores nothing", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const projects = yield* Projects
      const r = yield* failure(projects.create(admin, {
        name: "",
        status: "archived",
        geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0.5]]] }
      }))
      assert.strictEqual(r.tag, "ValidationError")
      const fields = (r.error as unknown as { details: Array<{ field: string }> }).details.map((d) => d.field).sort()
      assert.deepStrictEqual(fields, ["geometry.coordinates[0]", "name", "status"])
      assert.strictEqual((yield* projects.list(admin)).meta.total, 0)
      assert.deepStrictEqual(yield* eventTypes(account.id), [])
    }))

  it.effect("projects: list filters, searches, sorts and paginates with the spec's meta", () =>
    Effect.gen(function*() {
      yield* clock.set(JAN_1)
      const { admin } = yield* newAccount("pro")
      const projects = yield* Projects
      for (const [i, name] of ["Cedar", "alder", "Birch", "Douglas fir", "Elm"].entries()) {
        yield* projects.create(admin, { name, geometry: squareHa(i + 1, 10 + i), description: i === 3 ? "Coastal CONIFER" : null })
        yield* clock.adjust(60_000)
      }
      const names = (q: unknown) => Effect.map(projects.list(admin, q), (r) => r.data.map((p) => p.name))
      assert.deepStrictEqual(yield* names({}), ["Elm", "Douglas fir", "Birch", "alder", "Cedar"])
      assert.deepStrictEqual(yield* names({ sort: "name" }), ["alder", "Birch", "Cedar", "Douglas fir", "Elm"])
      assert.deepStrictEqual(yield* names({ sort: "area_hectares", order: "asc" }), ["Cedar", "alder", "Birch", "Douglas fir", "Elm"])
      assert.deepStrictEqual(yield* names({ search: "conifer" }), ["Douglas fir"])
      assert.deepStrictEqual(yield* names({ search: "EDA" }), ["Cedar"])
      assert.strictEqual((yield* failure(projects.list(admin, { search: "ED" }))).tag, "ValidationError")
      const page = yield* projects.list(admin, { page: "2", per_page: "2", sort: "name" })
      assert.deepStrictEqual(page.data.map((p) => p.name), ["Cedar", "Douglas fir"])
      const { next_cursor, ...meta } = page.meta
      assert.deepStrictEqual(meta, { total: 5, total_exact: true, page: 2, per_page: 2, total_pages: 3, has_more: true })
      // The cursor of page 2 leads to page 3, by keyset; it only works with the sort it was made for.
      const third = yield* projects.list(admin, { cursor: next_cursor, per_page: "2", sort: "name" })
      assert.deepStrictEqual(third.data.map((p) => p.name), ["Elm"])
      assert.deepStrictEqual([third.meta.page, third.meta.has_more, third.meta.next_cursor], [null, false, null])
      assert.strictEqual((yield* failure(projects.list(admin, { cursor: next_cursor }))).tag, "ValidationError")
      assert.strictEqual((yield* failure(projects.list(admin, { cursor: "bm90LWEtY3Vyc29y" }))).tag, "ValidationError")
      assert.strictEqual((yield* failure(projects.list(admin, { cursor: next_cursor, page: 2, sort: "name" }))).tag, "ValidationError")
      // Page numbers reach 10,000 rows deep; beyond, cursors.
      assert.strictEqual((yield* projects.list(admin, { page: 100, per_page: 100 })).data.length, 0)
      assert.strictEqual((yield* failure(projects.list(admin, { page: 101, per_page: 100 }))).tag, "ValidationError")
      const beyond = yield* projects.list(admin, { page: 9 })
      assert.deepStrictEqual([beyond.data.length, beyond.meta.total], [0, 5])
      assert.strictEqual((yield* failure(projects.list(admin, { per_page: 500 }))).tag, "ValidationError")
      assert.strictEqual((yield* failure(projects.list(admin, { sort: "bogus" }))).tag, "ValidationError")
      assert.strictEqual((yield* projects.list(admin, { status: "draft" })).meta.total, 0)
    }))

  it.effect("hostile text: NUL, lone surrogates, deep nesting and markup emails are refused as validation errors, and nothing is stored", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount("pro")
      const projects = yield* Projects
      const s = yield* Storage
      const refused = <A, E>(effect: Effect.Effect<A, E, never>, field: string) =>
        Effect.gen(function*() {
          const f = yield* failure(effect)
          assert.strictEqual(f.tag, "ValidationError")
          assert.include((f.error as { details: ReadonlyArray<{ field: string }> }).details.map((d) => d.field), field)
        })
      yield* refused(projects.create(admin, { name: "Nul\u0000name" }), "name")
      yield* refused(projects.create(admin, { name: "Fine", description: "half a pair \ud800 here" }), "description")
      yield* refused(projects.list(admin, { search: "abc\u0000" }), "search")
      const p = yield* projects.create(admin, { name: "Holder" })
      let deep: unknown = "bottom"
      for (let i = 0; i < 8_000; i++) deep = { d: deep }
      const assets = yield* Assets
      const asset = yield* assets.create(admin, p.id, { name: "Gauge", type: "sensor" })
      yield* refused(assets.update(admin, p.id, asset.id, { metadata: deep }), "metadata.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d")
      yield* refused(assets.create(admin, p.id, { name: "Key", type: "sensor", metadata: { ["k\u0000"]: 1 } }), "metadata")
      yield* refused((yield* Members).invite(admin, { email: "\"><img/src=x/onerror=alert(4)>@x.io", role: "viewer" }), "email")
      assert.deepStrictEqual(yield* s.projects.stats(account.id), { active: 1, archived: 0, draft: 0, hectares: 0 })
      assert.strictEqual((yield* assets.get(admin, p.id, asset.id)).name, "Gauge")
      assert.strictEqual(yield* s.members.count(account.id), 1)
      // Astral characters (a well-formed surrogate pair) are fine.
      assert.strictEqual((yield* projects.create(admin, { name: "Forest 🌲" })).name, "Forest 🌲")
    }))

  it.effect("projects: update, archive, restore, delete follow the lifecycle and emit one event each", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const projects = yield* Projects
      const p = yield* projects.create(admin, { name: "Lifecycle", geometry: squareHa(2) })
      yield* tick
      const u = yield* projects.update(admin, p.id, { description: "now described", geometry: squareHa(5) })
      yield* tick
      assert.strictEqual(u.description, "now described")
      assert.strictEqual(u.name, "Lifecycle")
      assert.strictEqual(u.slug, "lifecycle")
      assert.closeTo(u.area_hectares, 5, 0.05)
      assert.strictEqual((yield* failure(projects.delete(admin, p.id))).tag, "Conflict")
      assert.strictEqual((yield* failure(projects.restore(admin, p.id))).tag, "Conflict")
      assert.strictEqual((yield* projects.archive(admin, p.id)).status, "archived")
      yield* tick
      assert.strictEqual((yield* failure(projects.archive(admin, p.id))).tag, "Conflict")
      assert.strictEqual((yield* projects.restore(admin, p.id)).status, "active")
      yield* tick
      assert.strictEqual((yield* projects.update(admin, p.id, { status: "draft" })).status, "draft")
      yield* tick
      yield* projects.archive(admin, p.id)
      yield* tick
      yield* projects.delete(admin, p.id)
      assert.strictEqual((yield* failure(projects.get(admin, p.id))).tag, "NotFound")
      assert.deepStrictEqual(yield* eventTypes(account.id), [
        "project.created",
        "project.updated",
        "project.archived",
        "project.restored",
        "project.updated",
        "project.archived",
        "project.deleted"
      ])
      const cleared = yield* projects.create(admin, { name: "Clear me", geometry: squareHa(1) })
      yield* tick
      const c2 = yield* projects.update(admin, cleared.id, { geometry: null, description: null })
      yield* tick
      assert.deepStrictEqual([c2.geometry, c2.area_hectares, c2.bbox], [null, 0, null])
    }))

  it.effect("projects: a duplicate slug is a conflict, also under 10 parallel creates", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const projects = yield* Projects
      yield* projects.create(admin, { name: "Same Name" })
      assert.strictEqual((yield* failure(projects.create(admin, { name: "same name!" }))).tag, "Conflict")
      const other = yield* projects.create(admin, { name: "Other" })
      assert.strictEqual((yield* failure(projects.update(admin, other.id, { slug: "same-name" }))).tag, "Conflict")
      const results = yield* Effect.all(
        Array.from({ length: 10 }, () => failure(projects.create(admin, { name: "Race" }))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((r) => r.tag === "(success)").length, 1)
      assert.strictEqual(results.filter((r) => r.tag === "Conflict").length, 9)
      assert.strictEqual((yield* projects.list(admin)).meta.total, 3)
    }))

  it.effect("assets: CRUD with scoping, status_changed, and archived projects read-only", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const projects = yield* Projects
      const assets = yield* Assets
      const p = yield* projects.create(admin, { name: "Assets home" })
      yield* tick
      const other = yield* projects.create(admin, { name: "Elsewhere" })
      yield* tick
      const a = yield* assets.create(admin, p.id, {
        name: "Weather station 1",
        type: "monitoring_station",
        location: { type: "Point", coordinates: [10.5, 45.1] },
        metadata: { model: "WS-9" }
      })
      assert.strictEqual(a.status, "active")
      assert.deepStrictEqual(a.metadata, { model: "WS-9" })
      assert.deepStrictEqual(yield* assets.get(admin, p.id, a.id), a)
      assert.strictEqual((yield* failure(assets.get(admin, other.id, a.id))).tag, "NotFound")
      assert.strictEqual((yield* failure(assets.create(admin, p.id, { name: "x", type: "tractor" }))).tag, "ValidationError")
      yield* assets.create(admin, p.id, { name: "Chainsaw", type: "equipment" })
      yield* tick
      assert.deepStrictEqual((yield* assets.list(admin, p.id, { type: "equipment" })).data.map((x) => x.name), ["Chainsaw"])
      assert.deepStrictEqual((yield* assets.list(admin, p.id, { search: "STATION" })).data.map((x) => x.name), ["Weather station 1"])
      const u = yield* assets.update(admin, p.id, a.id, { status: "maintenance", location: null, metadata: { replaced: true } })
      yield* tick
      assert.deepStrictEqual([u.status, u.location, u.metadata], ["maintenance", null, { replaced: true }])
      const [changed] = yield* eventsOf(account.id, "asset.status_changed")
      assert.strictEqual(changed?.data.previous_status, "active")
      assert.strictEqual(changed?.data.status, "maintenance")
      yield* projects.archive(admin, p.id)
      yield* tick
      assert.strictEqual((yield* assets.list(admin, p.id)).meta.total, 2)
      assert.strictEqual((yield* failure(assets.create(admin, p.id, { name: "y", type: "other" }))).tag, "Conflict")
      assert.strictEqual((yield* failure(assets.update(admin, p.id, a.id, { name: "z" }))).tag, "Conflict")
      assert.strictEqual((yield* failure(assets.delete(admin, p.id, a.id))).tag, "Conflict")
      yield* projects.restore(admin, p.id)
      yield* tick
      yield* assets.delete(admin, p.id, a.id)
      yield* tick
      assert.strictEqual((yield* failure(assets.get(admin, p.id, a.id))).tag, "NotFound")
      // asset.updated and asset.status_changed come from one call, in the same instant: compare as a multiset
      assert.deepStrictEqual((yield* eventTypes(account.id)).filter((t) => t.startsWith("asset.")).sort(), ["asset.created", "asset.created", "asset.deleted",
        "asset.status_changed", "asset.updated"])
      assert.strictEqual((yield* failure(assets.list(admin, Ids.make("project")))).tag, "NotFound")
    }))
}
