/** The storage contract's cases for projects and assets: lists, sorting, search, keyset pages, counts, running totals. */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { COUNT_LIMIT, SEARCH_COUNT_LIMIT, Storage } from "../../Storage.ts"
import { assetRow, memberRow, projectRow, webhookRow } from "../fixtures.ts"
import { iso, newAccountRow, recountProjects } from "./helpers.ts"

export const projectsCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("lists: empty, last page, past the end, per_page 100, totals", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const q = { sort: "created_at" as const, order: "asc" as const }
      const empty = yield* s.projects.list(a.id, { ...q, limit: 20, offset: 0 })
      assert.deepStrictEqual(empty, { rows: [], total: 0, totalExact: true, hasMore: false })
      const rows = Array.from({ length: 105 }, (_, i) => projectRow(a.id, { name: `P${String(i).padStart(3, "0")}`, created_at: iso(i) }))
      yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
      const page = (limit: number, offset: number) => s.projects.list(a.id, { ...q, limit, offset })
      const p1 = yield* page(20, 0)
      assert.strictEqual(p1.total, 105)
      assert.deepStrictEqual(p1.rows.map((r) => r.name), rows.slice(0, 20).map((r) => r.name))
      const last = yield* page(20, 100)
      assert.deepStrictEqual(last.rows.map((r) => r.name), ["P100", "P101", "P102", "P103", "P104"])
      const past = yield* page(20, 200)
      assert.deepStrictEqual(past, { rows: [], total: 105, totalExact: true, hasMore: false })
      assert.isTrue(p1.hasMore)
      assert.isFalse(last.hasMore)
      assert.lengthOf((yield* page(100, 0)).rows, 100)
      assert.lengthOf((yield* page(100, 100)).rows, 5)
    }))

  it.effect("sorting: by created_at, name and area, both orders, ties by id in the sort's direction", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const same = iso(7)
      const rows = [
        projectRow(a.id, { name: "beta", sort_name: "beta", area_hectares: 5, created_at: same }),
        projectRow(a.id, { name: "Alpha", sort_name: "alpha", area_hectares: 5, created_at: same }),
        projectRow(a.id, { name: "gamma", sort_name: "gamma", area_hectares: 1.5, created_at: iso(1) }),
        projectRow(a.id, { name: "delta", sort_name: "delta", area_hectares: 100, created_at: same })
      ]
      for (const r of rows) yield* s.projects.insert(r)
      const ids = (sort: "name" | "created_at" | "area_hectares", order: "asc" | "desc") =>
        Effect.map(s.projects.list(a.id, { sort, order, limit: 10, offset: 0 }), (p) => p.rows.map((r) => r.name))
      const tieIds = rows.filter((r) => r.created_at === same).sort((x, y) => (x.id < y.id ? -1 : 1)).map((r) => r.name)
      assert.deepStrictEqual(yield* ids("created_at", "desc"), [...tieIds].reverse().concat("gamma"))
      assert.deepStrictEqual(yield* ids("created_at", "asc"), ["gamma", ...tieIds])
      assert.deepStrictEqual(yield* ids("name", "asc"), ["Alpha", "beta", "delta", "gamma"])
      assert.deepStrictEqual(yield* ids("name", "desc"), ["gamma", "delta", "beta", "Alpha"])
      const fives = rows.filter((r) => r.area_hectares === 5).sort((x, y) => (x.id < y.id ? -1 : 1)).map((r) => r.name)
      assert.deepStrictEqual(yield* ids("area_hectares", "asc"), ["gamma", ...fives, "delta"])
      assert.deepStrictEqual(yield* ids("area_hectares", "desc"), ["delta", ...[...fives].reverse(), "gamma"])
    }))

  it.effect("filter and search: status, case-insensitive substring, wildcards taken literally", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const mk = (name: string, description: string | null, status: "active" | "archived" | "draft" = "active") =>
        projectRow(a.id, { name, description, status, search_text: `${name}\n${description ?? ""}`.toLowerCase() })
      for (const r of [
        mk("Forêt Noire", null),
        mk("Amazon 100%", "Reforestation"),
        mk("Boreal_Plot", "spruce and BIRCH", "archived"),
        mk("Other", null, "draft")
      ]) yield* s.projects.insert(r)
      const names = (search?: string, status?: "active" | "archived" | "draft") =>
        Effect.map(s.projects.list(a.id, { search, status, sort: "name", order: "asc", limit: 100, offset: 0 }), (p) => p.rows.map((r) => r.name))
      assert.deepStrictEqual(yield* names("forêt"), ["Forêt Noire"])
      assert.deepStrictEqual(yield* names("birch"), ["Boreal_Plot"])
      assert.deepStrictEqual(yield* names("00%"), ["Amazon 100%"])
      assert.deepStrictEqual(yield* names("l_p"), ["Boreal_Plot"])
      assert.deepStrictEqual(yield* names("ore", "archived"), ["Boreal_Plot"])
      assert.deepStrictEqual(yield* names("ore"), ["Amazon 100%", "Boreal_Plot"])
      assert.deepStrictEqual(yield* names("\"quo"), [])
      assert.deepStrictEqual(yield* names(undefined, "draft"), ["Other"])
      assert.deepStrictEqual(yield* names("nothing"), [])
      assert.deepStrictEqual(yield* s.projects.stats(a.id), { active: 2, archived: 1, draft: 1, hectares: 0 })

      const p = projectRow(a.id)
      yield* s.projects.insert(p)
      for (const [name, type, status] of [["Tractor", "equipment", "active"], ["Rain gauge", "sensor", "maintenance"], ["Big tractor", "equipment",
        "retired"]] as const) {
        yield* s.assets.insert(assetRow(a.id, p.id, { name, type, status, search_text: name.toLowerCase() }))
      }
      const assets = (q: { type?: string; status?: string; search?: string }) =>
        Effect.map(s.assets.list(a.id, p.id, { ...q, limit: 100, offset: 0 }), (r) => r.rows.map((x) => x.name).sort())
      assert.deepStrictEqual(yield* assets({ type: "equipment" }), ["Big tractor", "Tractor"])
      assert.deepStrictEqual(yield* assets({ status: "maintenance" }), ["Rain gauge"])
      assert.deepStrictEqual(yield* assets({ search: "tractor", status: "retired" }), ["Big tractor"])
      assert.deepStrictEqual(yield* assets({ search: "TRAC".toLowerCase() }), ["Big tractor", "Tractor"])
      yield* s.assets.update(a.id, p.id, (yield* s.assets.list(a.id, p.id, { search: "gauge", limit: 10, offset: 0 })).rows[0]!.id, { name: "Rain meter",
        search_text: "rain meter" })
      assert.deepStrictEqual(yield* assets({ search: "gauge" }), [])
      assert.deepStrictEqual(yield* assets({ search: "meter" }), ["Rain meter"])
    }))

  it.effect("keyset pages: walking `after` from the start gives the same rows as offset pages, every sort and order, filters kept", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      // Few distinct sort values, so that most rows tie and the id decides.
      const rows = Array.from({ length: 37 }, (_, i) =>
        projectRow(a.id, {
          name: `n${i % 4}`,
          slug: `p-${i}`,
          sort_name: `n${i % 4}`,
          area_hectares: [0, 1.5, 1.5, 2][i % 4]!,
          created_at: iso(i % 3),
          status: i % 5 === 0 ? "draft" : "active"
        }))
      yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
      for (const sort of ["created_at", "name", "area_hectares"] as const) {
        for (const order of ["asc", "desc"] as const) {
          for (const status of [undefined, "draft"] as const) {
            const q = { sort, order, status }
            const all = (yield* s.projects.list(a.id, { ...q, limit: 100, offset: 0 })).rows.map((r) => r.id)
            const walked: Array<string> = []
            let after: { value: string | number; id: string } | undefined
            for (let guard = 0; guard < 50; guard++) {
              const p = yield* s.projects.list(a.id, { ...q, limit: 5, offset: 0, after })
              walked.push(...p.rows.map((r) => r.id))
              const last = p.rows[p.rows.length - 1]
              assert.strictEqual(p.hasMore, walked.length < all.length, `${sort} ${order} ${status}: hasMore`)
              if (!p.hasMore || !last) break
              after = { value: sort === "name" ? last.sort_name : sort === "area_hectares" ? last.area_hectares : last.created_at, id: last.id }
            }
            assert.deepStrictEqual(walked, all, `${sort} ${order} ${status ?? "any status"}`)
            assert.strictEqual(all.length, status === "draft" ? 8 : 37)
          }
        }
      }
      const p = projectRow(a.id)
      yield* s.projects.insert(p)
      const assets = Array.from({ length: 7 }, (_, i) => assetRow(a.id, p.id, { created_at: iso(i % 2) }))
      for (const x of assets) yield* s.assets.insert(x)
      const first = yield* s.assets.list(a.id, p.id, { limit: 4, offset: 0 })
      const last = first.rows[3]!
      const rest = yield* s.assets.list(a.id, p.id, { limit: 4, offset: 0, after: { value: last.created_at, id: last.id } })
      assert.deepStrictEqual([...first.rows, ...rest.rows].map((x) => x.id), (yield* s.assets.list(a.id, p.id, { limit: 100, offset: 0 })).rows.map((x) =>
        x.id
      ))
      assert.isTrue(first.hasMore)
      assert.isFalse(rest.hasMore)
    }))

  it.effect("counts: a filtered list counts up to COUNT_LIMIT and says when it stopped there", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const p = projectRow(a.id)
      yield* s.projects.insert(p)
      yield* s.transaction(
        Effect.forEach(Array.from({ length: COUNT_LIMIT + 2 }, (_, i) => assetRow(a.id, p.id, { type: i === 0 ? "sensor" : "equipment" })),
          (x) => s.assets.insert(x), { discard: true })
      )
      const many = yield* s.assets.list(a.id, p.id, { type: "equipment", limit: 2, offset: 0 })
      assert.deepStrictEqual([many.total, many.totalExact, many.rows.length, many.hasMore], [COUNT_LIMIT, false, 2, true])
      const one = yield* s.assets.list(a.id, p.id, { type: "sensor", limit: 2, offset: 0 })
      assert.deepStrictEqual([one.total, one.totalExact, one.rows.length, one.hasMore], [1, true, 1, false])
    }))

  it.effect("search among thousands: rare and common terms give the right first pages and capped totals, with keyset", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      yield* s.projects.insert(projectRow(b.id, { name: "Zqx elsewhere", search_text: "zqx elsewhere\n" }))
      // 6,000 projects (more than a searched list walks before asking the index): every name holds
      // "plot"; three hold the rare "zqx", at the oldest end so that the walk cannot find them.
      const rows = Array.from({ length: 6_000 }, (_, i) => {
        const name = `Plot ${i}${i % 2000 === 1 ? " zqx" : ""}`
        return projectRow(a.id, { name, slug: `plot-${i}`, sort_name: name.toLowerCase(), search_text: `${name.toLowerCase()}\n`, created_at: iso(i) })
      })
      yield* s.transaction(Effect.forEach(rows, (r) => s.projects.insert(r), { discard: true }))
      const q = { sort: "created_at" as const, order: "desc" as const, limit: 2, offset: 0 }
      const rare = yield* s.projects.list(a.id, { ...q, search: "zqx" })
      assert.deepStrictEqual(rare.rows.map((r) => r.name), ["Plot 4001 zqx", "Plot 2001 zqx"])
      assert.deepStrictEqual([rare.total, rare.totalExact, rare.hasMore], [3, true, true])
      const last = rare.rows[1]!
      const rest = yield* s.projects.list(a.id, { ...q, search: "zqx", after: { value: last.created_at, id: last.id } })
      assert.deepStrictEqual([rest.rows.map((r) => r.name), rest.hasMore], [["Plot 1 zqx"], false])
      const second = yield* s.projects.list(a.id, { ...q, search: "zqx", offset: 2 })
      assert.deepStrictEqual(second.rows.map((r) => r.name), ["Plot 1 zqx"])
      const common = yield* s.projects.list(a.id, { ...q, search: "plot" })
      assert.deepStrictEqual(common.rows.map((r) => r.name), ["Plot 5999", "Plot 5998"])
      assert.deepStrictEqual([common.total, common.totalExact, common.hasMore], [SEARCH_COUNT_LIMIT, false, true])
      const byName = yield* s.projects.list(a.id, { sort: "name", order: "asc", limit: 3, offset: 0, search: "t 59" })
      assert.deepStrictEqual(byName.rows.map((r) => r.name), ["Plot 59", "Plot 590", "Plot 5900"])
      assert.strictEqual(byName.total, 111)
    }))

  it.effect("running totals equal a recount after any sequence of writes (model test)", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const statuses = ["active", "archived", "draft"] as const
      const op = fc.oneof(
        fc.record({ _tag: fc.constant("create" as const), status: fc.constantFrom(...statuses), area: fc.integer({ min: 0, max: 50_000_000 }) }),
        fc.record({ _tag: fc.constant("update" as const), pick: fc.nat(), status: fc.constantFrom(...statuses),
          area: fc.option(fc.integer({ min: 0, max: 50_000_000 })) }),
        fc.record({ _tag: fc.constant("delete" as const), pick: fc.nat() }),
        fc.record({ _tag: fc.constant("member" as const), add: fc.boolean(), pick: fc.nat() }),
        fc.record({ _tag: fc.constant("webhook" as const), add: fc.boolean(), pick: fc.nat() }),
        fc.record({ _tag: fc.constant("failed" as const), status: fc.constantFrom(...statuses) })
      )
      const run = (ops: ReadonlyArray<typeof op extends fc.Arbitrary<infer A> ? A : never>) =>
        Effect.gen(function*() {
          const a = yield* newAccountRow(s)
          const projects: Array<string> = [], members: Array<string> = [], webhooks: Array<string> = []
          for (const o of ops) {
            if (o._tag === "create") {
              const p = projectRow(a.id, { status: o.status, area_hectares: o.area / 10_000 })
              yield* s.projects.insert(p)
              projects.push(p.id)
            } else if (o._tag === "update" && projects.length > 0) {
              const id = projects[o.pick % projects.length]!
              yield* s.projects.update(a.id, id, { status: o.status, ...(o.area === null ? {} : { area_hectares: o.area / 10_000 }) })
            } else if (o._tag === "delete" && projects.length > 0) {
              yield* s.projects.delete(a.id, projects.splice(o.pick % projects.length, 1)[0]!)
            } else if (o._tag === "member") {
              if (o.add || members.length === 0) {
                const m = memberRow(a.id)
                yield* s.members.insert(m)
                members.push(m.id)
              } else yield* s.members.delete(a.id, members.splice(o.pick % members.length, 1)[0]!)
            } else if (o._tag === "webhook") {
              if (o.add || webhooks.length === 0) {
                const w = webhookRow(a.id)
                yield* s.webhooks.insert(w)
                webhooks.push(w.id)
              } else yield* s.webhooks.delete(a.id, webhooks.splice(o.pick % webhooks.length, 1)[0]!)
            } else if (o._tag === "failed") {
              // A write rolled back moves no total.
              yield* Effect.exit(
                s.transaction(Effect.andThen(s.projects.insert(projectRow(a.id, { status: o.status, area_hectares: 7 })), Effect.fail("abort")))
              )
            }
          }
          const recount = yield* recountProjects(s, a.id)
          assert.deepStrictEqual(yield* s.projects.stats(a.id), recount)
          assert.strictEqual(yield* s.members.count(a.id), (yield* s.members.list(a.id)).length)
          assert.strictEqual(yield* s.webhooks.count(a.id), (yield* s.webhooks.list(a.id)).length)
          const all = yield* s.projects.list(a.id, { sort: "created_at", order: "desc", limit: 1, offset: 0 })
          assert.deepStrictEqual([all.total, all.totalExact], [recount.active + recount.archived + recount.draft, true])
          const drafts = yield* s.projects.list(a.id, { status: "draft", sort: "created_at", order: "desc", limit: 1, offset: 0 })
          assert.strictEqual(drafts.total, recount.draft)
        })
      const context = yield* Effect.context<never>()
      yield* Effect.promise(() =>
        fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 30 }), (ops) => Effect.runPromiseWith(context)(run(ops))), { numRuns: 25 })
      )
    }))

  it.effect("running totals stay exact under concurrent creates, status changes and deletes", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const seed = Array.from({ length: 20 }, (_, i) => projectRow(a.id, { area_hectares: 1.2345 * (i + 1) }))
      yield* s.transaction(Effect.forEach(seed, (p) => s.projects.insert(p), { discard: true }))
      yield* Effect.all([
        ...Array.from({ length: 20 },
          (_, i) => s.transaction(s.projects.insert(projectRow(a.id, { area_hectares: 0.0001 * (i + 1), status: i % 2 ? "draft" : "active" })))),
        ...seed.slice(0, 10).map((p) => s.transaction(s.projects.update(a.id, p.id, { status: "archived" }))),
        ...seed.slice(10, 15).map((p) => s.transaction(s.projects.delete(a.id, p.id))),
        ...Array.from({ length: 10 }, () => s.transaction(s.members.insert(memberRow(a.id))))
      ], { concurrency: "unbounded", discard: true })
      assert.deepStrictEqual(yield* s.projects.stats(a.id), yield* recountProjects(s, a.id))
      assert.strictEqual(yield* s.members.count(a.id), 10)
    }))
}
