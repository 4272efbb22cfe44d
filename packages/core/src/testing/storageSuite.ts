/**
 * The storage contract's conformance cases: each point of `Storage.ts`'s documentation, checked
 * against a real store. Every adapter runs this unchanged (through `suite`).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, type Layer } from "effect"
import * as Ids from "../Ids.ts"
import * as fc from "fast-check"
import { COUNT_LIMIT, SEARCH_COUNT_LIMIT, Storage, type StorageShape } from "../Storage.ts"
import type { Plan } from "../Plans.ts"
import type { State as RateLimitState } from "../RateLimit.ts"
import { accountRow, assetRow, credentialRow, eventWithDeliveries, memberRow, projectRow, webhookRow } from "./fixtures.ts"
import { RawJson } from "../RawJson.ts"

const newAccountRow = (s: StorageShape) =>
  Effect.gen(function*() {
    const a = accountRow()
    yield* s.accounts.insert(a)
    return a
  })

const accountWithTwoWebhooks = (s: StorageShape) =>
  Effect.gen(function*() {
    const a = yield* newAccountRow(s)
    const w1 = webhookRow(a.id)
    const w2 = webhookRow(a.id)
    yield* s.webhooks.insert(w1)
    yield* s.webhooks.insert(w2)
    return { a, w1, w2 }
  })

const failureTag = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? (exit.cause.reasons[0].error as { _tag?: string })._tag : undefined

/** Project counts and hectares recounted by walking every page of the account's projects. */
const recountProjects = (s: StorageShape, accountId: string) =>
  Effect.gen(function*() {
    const counts = { active: 0, archived: 0, draft: 0 }
    let units = 0
    let after: { value: string; id: string } | undefined
    for (;;) {
      const p = yield* s.projects.list(accountId, { sort: "created_at", order: "asc", limit: 100, offset: 0, after })
      for (const r of p.rows) {
        counts[r.status]++
        if (r.status !== "archived") units += Math.round(r.area_hectares * 10_000)
      }
      const last = p.rows[p.rows.length - 1]
      if (!p.hasMore || !last) break
      after = { value: last.created_at, id: last.id }
    }
    return { ...counts, hectares: units / 10_000 }
  })

const iso = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString()

/** Runs the storage-contract cases against a store layer. */
export const storageSuite = (name: string, storageLayer: Layer.Layer<Storage, unknown>) =>
  layer(storageLayer, { timeout: "120 seconds" })(`${name}: storage contract`, (it) => {
    it.effect("rows out equal rows in, JSON values and nulls included", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        assert.deepStrictEqual(yield* s.accounts.get(a.id), a)
        const p = projectRow(a.id, {
          description: "Ünïcode ✓ \"quoted\"",
          geometry: RawJson.of({ type: "Polygon", coordinates: [[[1, 2], [3, 2], [3, 4], [1, 2]]] }),
          area_hectares: 1234.5678, bbox: [1, 2, 3, 4], created_by: Ids.make("user")
        })
        yield* s.projects.insert(p)
        assert.deepStrictEqual(yield* s.projects.get(a.id, p.id), p)
        const asset = assetRow(a.id, p.id, { location: { type: "Point", coordinates: [1.5, -2.25] }, metadata: { nested: { list: [1, "two", null, true] } } })
        yield* s.assets.insert(asset)
        assert.deepStrictEqual(yield* s.assets.get(a.id, p.id, asset.id), asset)
        const w = webhookRow(a.id, { events: ["project.created", "asset.deleted"], enabled: false, disabled_reason: "410 Gone", disabled_at: iso(3) })
        yield* s.webhooks.insert(w)
        assert.deepStrictEqual(yield* s.webhooks.get(a.id, w.id), w)
        const c = credentialRow(a.id, { kind: "service_token", id: Ids.make("serviceToken"), ip_allowlist: ["10.0.0.0/8"], permissions: ["projects:read", "assets:write"] })
        yield* s.credentials.insert(c)
        assert.deepStrictEqual(yield* s.credentials.get(a.id, c.id), c)
        assert.deepStrictEqual(yield* s.credentials.getByHash(c.token_hash), c)
        assert.isUndefined(yield* s.accounts.get(Ids.make("account")))
        const listed = yield* s.accounts.list
        assert.isTrue(listed.some((x) => x.id === a.id))
        assert.strictEqual(yield* s.accounts.count, listed.length)
        assert.isUndefined(yield* s.projects.get(a.id, Ids.make("project")))
      }))

    it.effect("ping answers when the store is reachable, inside a transaction too", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        yield* s.ping
        yield* s.transaction(s.ping)
      }))

    it.effect("updates apply a patch and return the row; deletes report whether a row went", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const p = projectRow(a.id)
        yield* s.projects.insert(p)
        const u = yield* s.projects.update(a.id, p.id, { name: "Renamed", description: null, status: "archived" })
        assert.strictEqual(u?.name, "Renamed")
        assert.strictEqual(u?.status, "archived")
        assert.strictEqual(u?.slug, p.slug)
        assert.deepStrictEqual(yield* s.projects.get(a.id, p.id), u)
        const renamed = yield* s.accounts.update(a.id, { name: "New name" })
        assert.strictEqual(renamed?.name, "New name")
        const asset = assetRow(a.id, p.id)
        yield* s.assets.insert(asset)
        assert.isTrue(yield* s.projects.delete(a.id, p.id))
        assert.isFalse(yield* s.projects.delete(a.id, p.id))
        assert.isUndefined(yield* s.projects.get(a.id, p.id))
        assert.isUndefined(yield* s.assets.get(a.id, p.id, asset.id), "deleting a project deletes its assets")
        assert.isUndefined(yield* s.projects.update(a.id, p.id, { name: "x" }))
      }))

    it.effect("tenancy: another account's rows read as absent and cannot be changed", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const b = yield* newAccountRow(s)
        const p = projectRow(a.id)
        yield* s.projects.insert(p)
        const asset = assetRow(a.id, p.id)
        yield* s.assets.insert(asset)
        const w = webhookRow(a.id)
        yield* s.webhooks.insert(w)
        const m = memberRow(a.id)
        yield* s.members.insert(m)
        const c = credentialRow(a.id)
        yield* s.credentials.insert(c)
        const { deliveries, event } = eventWithDeliveries(a.id, [w.id])
        yield* s.outbox.append(event, deliveries)

        assert.isUndefined(yield* s.projects.get(b.id, p.id))
        assert.isUndefined(yield* s.projects.update(b.id, p.id, { name: "stolen" }))
        assert.isFalse(yield* s.projects.delete(b.id, p.id))
        assert.strictEqual((yield* s.projects.list(b.id, { sort: "created_at", order: "desc", limit: 100, offset: 0 })).total, 0)
        assert.deepStrictEqual(yield* s.projects.stats(b.id), { active: 0, archived: 0, draft: 0, hectares: 0 })
        assert.isUndefined(yield* s.assets.get(b.id, p.id, asset.id))
        assert.isUndefined(yield* s.assets.update(b.id, p.id, asset.id, { name: "stolen" }))
        assert.isFalse(yield* s.assets.delete(b.id, p.id, asset.id))
        assert.strictEqual((yield* s.assets.list(b.id, p.id, { limit: 100, offset: 0 })).total, 0)
        assert.isUndefined(yield* s.webhooks.get(b.id, w.id))
        assert.isUndefined(yield* s.webhooks.update(b.id, w.id, { enabled: false }))
        assert.isFalse(yield* s.webhooks.delete(b.id, w.id))
        assert.lengthOf(yield* s.webhooks.list(b.id), 0)
        assert.isUndefined(yield* s.members.get(b.id, m.id))
        assert.isUndefined(yield* s.members.getByEmail(b.id, m.email))
        assert.isUndefined(yield* s.members.update(b.id, m.id, { role: "owner" }))
        assert.isFalse(yield* s.members.delete(b.id, m.id))
        assert.isUndefined(yield* s.credentials.get(b.id, c.id))
        assert.isFalse(yield* s.credentials.revoke(b.id, c.id, iso(1)))
        assert.lengthOf(yield* s.credentials.list(b.id, "api_key"), 0)
        assert.isUndefined(yield* s.outbox.getEvent(b.id, event.id))
        assert.lengthOf(yield* s.outbox.listDeliveries(b.id, event.id), 0)
        assert.lengthOf(yield* s.outbox.cancelPending(b.id, w.id, iso(1)), 0)
        // and account A's rows are untouched
        assert.deepStrictEqual(yield* s.projects.get(a.id, p.id), p)
        assert.deepStrictEqual(yield* s.assets.get(a.id, p.id, asset.id), asset)
        assert.deepStrictEqual(yield* s.webhooks.get(a.id, w.id), w)
        assert.deepStrictEqual(yield* s.members.get(a.id, m.id), m)
        assert.deepStrictEqual(yield* s.credentials.get(a.id, c.id), c)
        assert.strictEqual((yield* s.outbox.listDeliveries(a.id, event.id))[0]?.status, "pending")
        // an asset is only found under its own project
        const other = projectRow(a.id)
        yield* s.projects.insert(other)
        assert.isUndefined(yield* s.assets.get(a.id, other.id, asset.id))
      }))

    it.effect("uniqueness: slug per account, email per account, token hash; a duplicate changes nothing", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const b = yield* newAccountRow(s)
        const p = projectRow(a.id, { slug: "same" })
        yield* s.projects.insert(p)
        const dup = yield* Effect.exit(s.projects.insert(projectRow(a.id, { slug: "same" })))
        assert.strictEqual(failureTag(dup), "Duplicate")
        yield* s.projects.insert(projectRow(b.id, { slug: "same" }))
        const q = projectRow(a.id, { slug: "other" })
        yield* s.projects.insert(q)
        const clash = yield* Effect.exit(s.projects.update(a.id, q.id, { slug: "same", name: "changed" }))
        assert.strictEqual(failureTag(clash), "Duplicate")
        assert.deepStrictEqual(yield* s.projects.get(a.id, q.id), q)
        assert.strictEqual((yield* s.projects.list(a.id, { sort: "created_at", order: "desc", limit: 100, offset: 0 })).total, 2)

        const m = memberRow(a.id, { email: "ada@example.com" })
        yield* s.members.insert(m)
        assert.strictEqual(failureTag(yield* Effect.exit(s.members.insert(memberRow(a.id, { email: "ada@example.com" })))), "Duplicate")
        yield* s.members.insert(memberRow(b.id, { email: "ada@example.com" }))
        const c = credentialRow(a.id)
        yield* s.credentials.insert(c)
        assert.strictEqual(failureTag(yield* Effect.exit(s.credentials.insert(credentialRow(b.id, { token_hash: c.token_hash })))), "Duplicate")
      }))

    it.effect("concurrency: of 20 parallel inserts of one slug, exactly one wins", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const exits = yield* Effect.all(
          Array.from({ length: 20 }, () => Effect.exit(s.transaction(s.projects.insert(projectRow(a.id, { slug: "contested" }))))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
        assert.deepStrictEqual(exits.filter(Exit.isFailure).map(failureTag), Array(19).fill("Duplicate"))
        assert.strictEqual((yield* s.projects.list(a.id, { sort: "created_at", order: "desc", limit: 100, offset: 0 })).total, 1)
      }))

    it.effect("atomicity: a failure inside a transaction leaves no row and no event", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const w = webhookRow(a.id)
        yield* s.webhooks.insert(w)
        const p = projectRow(a.id)
        const { deliveries, event } = eventWithDeliveries(a.id, [w.id])
        const failed = yield* Effect.exit(s.transaction(Effect.gen(function*() {
          yield* s.lockAccount(a.id)
          yield* s.projects.insert(p)
          yield* s.outbox.append(event, deliveries)
          yield* s.usage.increment(a.id, "2026-01", "api_requests", 5)
          return yield* Effect.fail("injected failure before commit" as const)
        })))
        assert.isTrue(Exit.isFailure(failed))
        assert.isUndefined(yield* s.projects.get(a.id, p.id))
        assert.isUndefined(yield* s.outbox.getEvent(a.id, event.id))
        assert.lengthOf(yield* s.outbox.listDeliveries(a.id, event.id), 0)
        assert.strictEqual(yield* s.usage.get(a.id, "2026-01", "api_requests"), 0)

        const died = yield* Effect.exit(s.transaction(Effect.andThen(s.projects.insert(p), Effect.die("crash"))))
        assert.isTrue(Exit.isFailure(died))
        assert.isUndefined(yield* s.projects.get(a.id, p.id))

        // nested transactions join the outer one
        const nested = yield* Effect.exit(s.transaction(Effect.gen(function*() {
          yield* s.transaction(s.projects.insert(p))
          return yield* Effect.fail("outer fails after inner succeeded" as const)
        })))
        assert.isTrue(Exit.isFailure(nested))
        assert.isUndefined(yield* s.projects.get(a.id, p.id))

        yield* s.transaction(Effect.andThen(s.projects.insert(p), s.outbox.append(event, deliveries)))
        assert.deepStrictEqual(yield* s.projects.get(a.id, p.id), p)
        assert.strictEqual((yield* s.outbox.getEvent(a.id, event.id))?.payload, event.payload)
      }))

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
          mk("Forêt Noire", null), mk("Amazon 100%", "Reforestation"), mk("Boreal_Plot", "spruce and BIRCH", "archived"), mk("Other", null, "draft")
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
        for (const [name, type, status] of [["Tractor", "equipment", "active"], ["Rain gauge", "sensor", "maintenance"], ["Big tractor", "equipment", "retired"]] as const) {
          yield* s.assets.insert(assetRow(a.id, p.id, { name, type, status, search_text: name.toLowerCase() }))
        }
        const assets = (q: { type?: string; status?: string; search?: string }) =>
          Effect.map(s.assets.list(a.id, p.id, { ...q, limit: 100, offset: 0 }), (r) => r.rows.map((x) => x.name).sort())
        assert.deepStrictEqual(yield* assets({ type: "equipment" }), ["Big tractor", "Tractor"])
        assert.deepStrictEqual(yield* assets({ status: "maintenance" }), ["Rain gauge"])
        assert.deepStrictEqual(yield* assets({ search: "tractor", status: "retired" }), ["Big tractor"])
        assert.deepStrictEqual(yield* assets({ search: "TRAC".toLowerCase() }), ["Big tractor", "Tractor"])
        yield* s.assets.update(a.id, p.id, (yield* s.assets.list(a.id, p.id, { search: "gauge", limit: 10, offset: 0 })).rows[0]!.id,
          { name: "Rain meter", search_text: "rain meter" })
        assert.deepStrictEqual(yield* assets({ search: "gauge" }), [])
        assert.deepStrictEqual(yield* assets({ search: "meter" }), ["Rain meter"])
      }))

    it.effect("keyset pages: walking `after` from the start gives the same rows as offset pages, every sort and order, filters kept", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        // Few distinct sort values, so that most rows tie and the id decides.
        const rows = Array.from({ length: 37 }, (_, i) => projectRow(a.id, {
          name: `n${i % 4}`, slug: `p-${i}`, sort_name: `n${i % 4}`, area_hectares: [0, 1.5, 1.5, 2][i % 4]!, created_at: iso(i % 3),
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
        assert.deepStrictEqual([...first.rows, ...rest.rows].map((x) => x.id),
          (yield* s.assets.list(a.id, p.id, { limit: 100, offset: 0 })).rows.map((x) => x.id))
        assert.isTrue(first.hasMore)
        assert.isFalse(rest.hasMore)
      }))

    it.effect("counts: a filtered list counts up to COUNT_LIMIT and says when it stopped there", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const p = projectRow(a.id)
        yield* s.projects.insert(p)
        yield* s.transaction(Effect.forEach(Array.from({ length: COUNT_LIMIT + 2 }, (_, i) =>
          assetRow(a.id, p.id, { type: i === 0 ? "sensor" : "equipment" })), (x) => s.assets.insert(x), { discard: true }))
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
          fc.record({ _tag: fc.constant("update" as const), pick: fc.nat(), status: fc.constantFrom(...statuses), area: fc.option(fc.integer({ min: 0, max: 50_000_000 })) }),
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
                yield* Effect.exit(s.transaction(Effect.andThen(s.projects.insert(projectRow(a.id, { status: o.status, area_hectares: 7 })), Effect.fail("abort"))))
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
        yield* Effect.promise(() => fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 30 }), (ops) =>
          Effect.runPromiseWith(context)(run(ops))), { numRuns: 25 }))
      }))

    it.effect("running totals stay exact under concurrent creates, status changes and deletes", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const seed = Array.from({ length: 20 }, (_, i) => projectRow(a.id, { area_hectares: 1.2345 * (i + 1) }))
        yield* s.transaction(Effect.forEach(seed, (p) => s.projects.insert(p), { discard: true }))
        yield* Effect.all([
          ...Array.from({ length: 20 }, (_, i) => s.transaction(s.projects.insert(projectRow(a.id, { area_hectares: 0.0001 * (i + 1), status: i % 2 ? "draft" : "active" })))),
          ...seed.slice(0, 10).map((p) => s.transaction(s.projects.update(a.id, p.id, { status: "archived" }))),
          ...seed.slice(10, 15).map((p) => s.transaction(s.projects.delete(a.id, p.id))),
          ...Array.from({ length: 10 }, () => s.transaction(s.members.insert(memberRow(a.id))))
        ], { concurrency: "unbounded", discard: true })
        assert.deepStrictEqual(yield* s.projects.stats(a.id), yield* recountProjects(s, a.id))
        assert.strictEqual(yield* s.members.count(a.id), 10)
      }))

    it.effect("members: list oldest first, counts, role counts", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const first = memberRow(a.id, { role: "owner", created_at: iso(1) })
        const second = memberRow(a.id, { role: "owner", status: "invited", created_at: iso(2) })
        const third = memberRow(a.id, { role: "viewer", created_at: iso(3) })
        for (const m of [third, first, second]) yield* s.members.insert(m)
        assert.deepStrictEqual((yield* s.members.list(a.id)).map((m) => m.id), [first.id, second.id, third.id])
        assert.strictEqual(yield* s.members.count(a.id), 3)
        assert.strictEqual(yield* s.members.countActiveWithRole(a.id, "owner"), 1)
        assert.deepStrictEqual(yield* s.members.getByEmail(a.id, third.email), third)
        const b = yield* newAccountRow(s)
        const elsewhere = memberRow(b.id, { email: third.email, created_at: iso(9) })
        yield* s.members.insert(elsewhere)
        assert.deepStrictEqual((yield* s.members.findByEmail(third.email)).map((m) => m.id), [third.id, elsewhere.id])
      }))

    it.effect("invitations: by token hash, accepted exactly once, removed with the member", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const m = memberRow(a.id, { status: "invited" })
        yield* s.members.insert(m)
        const inv = { id: Ids.make("invitation"), account_id: a.id, user_id: m.id, token_hash: Ids.randomBase32(40), expires_at: iso(60), accepted_at: null, created_at: iso(0) }
        yield* s.invitations.insert(inv)
        assert.deepStrictEqual(yield* s.invitations.getByTokenHash(inv.token_hash), inv)
        const results = yield* Effect.all(Array.from({ length: 5 }, () => s.transaction(s.invitations.markAccepted(inv.id, iso(5)))), { concurrency: "unbounded" })
        assert.deepStrictEqual(results.filter(Boolean).length, 1)
        assert.strictEqual((yield* s.invitations.getByTokenHash(inv.token_hash))?.accepted_at, iso(5))
        yield* s.invitations.deleteForMember(a.id, m.id)
        assert.isUndefined(yield* s.invitations.getByTokenHash(inv.token_hash))
      }))

    it.effect("outbox: events, deliveries, cancelling a webhook's pending deliveries, logs newest first with filters", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const { a, w1, w2 } = yield* accountWithTwoWebhooks(s)
        const e1 = eventWithDeliveries(a.id, [w1.id, w2.id], "project.created")
        const e2 = eventWithDeliveries(a.id, [w1.id], "asset.created")
        yield* s.outbox.append(e1.event, e1.deliveries)
        yield* s.outbox.append({ ...e2.event, created_at: iso(9) }, e2.deliveries)
        assert.lengthOf(yield* s.outbox.listDeliveries(a.id, e1.event.id), 2)
        const events = yield* s.outbox.listEvents(a.id, { limit: 10, offset: 0 })
        assert.deepStrictEqual(events.rows.map((e) => e.id), [e2.event.id, e1.event.id])
        assert.strictEqual((yield* s.outbox.listEvents(a.id, { type: "asset.created", limit: 10, offset: 0 })).total, 1)
        assert.deepStrictEqual((yield* s.outbox.cancelPending(a.id, w1.id, iso(10))).map((d) => d.status), ["canceled", "canceled"])
        assert.lengthOf(yield* s.outbox.cancelPending(a.id, w1.id, iso(10)), 0)
        const statuses = (yield* s.outbox.listDeliveries(a.id, e1.event.id)).map((d) => `${d.webhook_id === w1.id ? "w1" : "w2"}:${d.status}`).sort()
        assert.deepStrictEqual(statuses, ["w1:canceled", "w2:pending"])

        const log = (i: number, status: "success" | "failed", type: string) => ({
          id: Ids.make("log"), account_id: a.id, webhook_id: w2.id, delivery_id: e1.deliveries[1]!.id, event_id: e1.event.id,
          event_type: type, attempt: i, status, response_code: status === "success" ? 200 : 500, response_time_ms: 12,
          error: status === "failed" ? "HTTP 500" : null, error_class: status === "failed" ? "http" : null,
          delivered_at: iso(i), next_retry_at: status === "failed" ? iso(i + 1) : null, created_at: iso(i)
        })
        for (const l of [log(1, "failed", "project.created"), log(2, "failed", "project.created"), log(3, "success", "asset.created")]) {
          yield* s.outbox.insertLog(l)
        }
        const logs = yield* s.outbox.listLogs(a.id, w2.id, { limit: 10, offset: 0 })
        assert.deepStrictEqual(logs.rows.map((l) => l.attempt), [3, 2, 1])
        assert.strictEqual((yield* s.outbox.listLogs(a.id, w2.id, { status: "failed", limit: 10, offset: 0 })).total, 2)
        assert.strictEqual((yield* s.outbox.listLogs(a.id, w2.id, { event_type: "asset.created", limit: 10, offset: 0 })).total, 1)
        assert.deepStrictEqual((yield* s.outbox.listLogs(a.id, w2.id, { limit: 1, offset: 1 })).rows.map((l) => l.attempt), [2])
        assert.strictEqual((yield* s.outbox.listLogs(a.id, w1.id, { limit: 10, offset: 0 })).total, 0)
      }))

    it.effect("delivery claims: due first, leased once, never twice at a time, reclaimed after the lease; attempts recorded under the lease", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const { a, w1, w2 } = yield* accountWithTwoWebhooks(s)
        const T = 1_000_000_000
        const events = Array.from({ length: 6 }, (_, i) => eventWithDeliveries(a.id, [i % 2 ? w2.id : w1.id]))
        yield* Effect.forEach(events, ({ deliveries, event }, i) =>
          s.outbox.append(event, deliveries.map((d) => ({ ...d, next_attempt_at: T + i * 10 }))), { discard: true })
        const ours = new Set(events.map((e) => e.deliveries[0]!.id))
        const mine = <R extends { readonly id: string }>(rows: ReadonlyArray<R>) => rows.filter((r) => ours.has(r.id))
        assert.isAtMost((yield* s.outbox.nextDue) ?? Infinity, T)

        // not yet due
        assert.lengthOf(mine(yield* s.outbox.claimDue(T - 1, 100, "early", T + 60_000)), 0)
        // concurrent claimers share the due deliveries without overlap
        const claims = yield* Effect.all(Array.from({ length: 4 }, (_, k) => s.outbox.claimDue(T + 25, 100, `owner-${k}`, T + 30_000)), { concurrency: "unbounded" })
        const claimedIds = claims.flatMap((c) => mine(c).map((d) => d.id))
        assert.strictEqual(claimedIds.length, 3, "deliveries due by T+25")
        assert.strictEqual(new Set(claimedIds).size, 3)
        const first = claims.flatMap((c) => mine(c))[0]!
        assert.strictEqual(first.payload, events.find((e) => e.deliveries[0]!.id === first.id)!.event.payload)
        assert.strictEqual(first.url, first.webhook_id === w1.id ? w1.url : w2.url)
        assert.isString(first.secret)
        assert.isTrue(first.webhook_enabled)
        // excluded webhooks are left alone; leased ones are not handed out again
        const rest = mine(yield* s.outbox.claimDue(T + 100, 100, "other", T + 30_000, [w2.id]))
        assert.deepStrictEqual(rest.map((d) => d.webhook_id), [w1.id])
        assert.lengthOf(mine(yield* s.outbox.claimDue(T + 100, 100, "other", T + 30_000)), 2)
        // a released lease makes the delivery claimable at once
        yield* s.outbox.release([rest[0]!.id], "someone-else")
        assert.lengthOf(mine(yield* s.outbox.claimDue(T + 100, 100, "third", T + 30_000)), 0, "only the holder can release")
        yield* s.outbox.release([rest[0]!.id], "other")
        assert.deepStrictEqual(mine(yield* s.outbox.claimDue(T + 100, 100, "third", T + 30_000)).map((d) => d.id), [rest[0]!.id])
        // after the lease expires, a delivery is claimable again
        const reclaimed = mine(yield* s.outbox.claimDue(T + 30_001, 100, "rescuer", T + 60_000))
        assert.strictEqual(reclaimed.length, 6)

        // an attempt recorded by a stale owner writes its log but does not move the delivery
        const d = reclaimed[0]!
        const log = (attempt: number, status: "success" | "failed") => ({
          id: Ids.make("log"), account_id: a.id, webhook_id: d.webhook_id, delivery_id: d.id, event_id: d.event_id, event_type: d.event_type,
          attempt, status, response_code: status === "success" ? 200 : 500, response_time_ms: 5, error: null, error_class: null,
          delivered_at: iso(1), next_retry_at: null, created_at: iso(1)
        })
        const stale = yield* s.outbox.recordAttempt({ delivery_id: d.id, owner: "owner-0", attempts: 1, status: "success", next_attempt_at: null, updated_at: iso(1), log: log(1, "failed") })
        assert.isFalse(stale)
        const ok = yield* s.outbox.recordAttempt({ delivery_id: d.id, owner: "rescuer", attempts: 1, status: "pending", next_attempt_at: T + 90_000, updated_at: iso(2), log: log(1, "failed") })
        assert.isTrue(ok)
        const after = (yield* s.outbox.getDelivery(a.id, d.id))!
        assert.deepStrictEqual([after.attempts, after.status, after.next_attempt_at, after.lease_owner, after.lease_expires_at], [1, "pending", T + 90_000, null, null])
        assert.strictEqual((yield* s.outbox.listLogs(a.id, d.webhook_id, { limit: 10, offset: 0 })).total, 2)
        // claimOne takes a specific pending delivery
        const one = yield* s.outbox.claimOne(d.id, T + 31_000, "tester", T + 90_000)
        assert.strictEqual(one?.id, d.id)
        assert.isUndefined(yield* s.outbox.claimOne(d.id, T + 31_000, "somebody-else", T + 90_000))
        assert.isTrue(yield* s.outbox.recordAttempt({ delivery_id: d.id, owner: "tester", attempts: 2, status: "success", next_attempt_at: null, updated_at: iso(3), log: log(2, "success") }))
        assert.isUndefined(yield* s.outbox.claimOne(d.id, T + 31_000, "tester", T + 90_000), "a delivered delivery is not claimable")
        // a canceled delivery is not resurrected by a late attempt
        const c = reclaimed[1]!
        yield* s.outbox.cancelPending(a.id, c.webhook_id, iso(4))
        assert.isFalse(yield* s.outbox.recordAttempt({ delivery_id: c.id, owner: "rescuer", attempts: 1, status: "success", next_attempt_at: null, updated_at: iso(4), log: { ...log(1, "success"), id: Ids.make("log"), delivery_id: c.id, webhook_id: c.webhook_id } }))
        assert.strictEqual((yield* s.outbox.getDelivery(a.id, c.id))?.status, "canceled")
        // logs by id, redelivery rows, purge
        const logs = yield* s.outbox.listLogs(a.id, d.webhook_id, { limit: 10, offset: 0 })
        assert.deepStrictEqual(yield* s.outbox.getLog(a.id, d.webhook_id, logs.rows[0]!.id), logs.rows[0])
        assert.isUndefined(yield* s.outbox.getLog(a.id, c.webhook_id === d.webhook_id ? "wh_other" : c.webhook_id, logs.rows[0]!.id))
        yield* s.outbox.addDeliveries([{ ...events[0]!.deliveries[0]!, id: Ids.make("delivery"), next_attempt_at: T }])
        assert.lengthOf(yield* s.outbox.listDeliveries(a.id, events[0]!.event.id), 2)
        const hooks = [...new Set([d.webhook_id, c.webhook_id])]
        const oldLogs = Effect.map(Effect.forEach(hooks, (w) => s.outbox.listLogs(a.id, w, { limit: 100, offset: 0 })),
          (pages) => pages.flatMap((p) => p.rows).filter((l) => l.created_at < iso(2)).length)
        assert.isAtLeast(yield* oldLogs, 1)
        const newer = { ...log(3, "success"), id: Ids.make("log"), created_at: iso(5) }
        yield* s.outbox.insertLog(newer)
        // Purging is store-wide (other cases' logs may go too), in batches of at most `limit`.
        assert.strictEqual(yield* s.outbox.purgeLogs(iso(2), 1), 1, "a purge deletes at most its limit")
        while ((yield* s.outbox.purgeLogs(iso(2), 1_000)) > 0) { /* until none is left */ }
        assert.strictEqual(yield* oldLogs, 0)
        assert.deepStrictEqual(yield* s.outbox.getLog(a.id, d.webhook_id, newer.id), newer, "newer logs stay")
      }))

    it.effect("oauth: clients per account; a code is used by exactly one caller; a refresh token rotates once; families revoke together", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const b = yield* newAccountRow(s)
        const client = {
          id: Ids.make("oauthClient"), account_id: a.id, name: "Field app", redirect_uris: ["https://app.example.com/cb"],
          scopes: ["projects:read", "offline_access"], confidential: false, allowed_origins: [], secret_hash: null, created_at: iso(1), updated_at: iso(1)
        }
        yield* s.oauth.insertClient(client)
        assert.deepStrictEqual(yield* s.oauth.getClient(client.id), client)
        assert.deepStrictEqual((yield* s.oauth.listClients(a.id)).map((c) => c.id), [client.id])
        assert.lengthOf(yield* s.oauth.listClients(b.id), 0)
        assert.isUndefined(yield* s.oauth.updateClient(b.id, client.id, { name: "stolen" }))
        assert.isFalse(yield* s.oauth.deleteClient(b.id, client.id))
        assert.strictEqual((yield* s.oauth.updateClient(a.id, client.id, { name: "Renamed", confidential: true, secret_hash: "h" }))?.confidential, true)

        const code = {
          code_hash: Ids.randomBase32(40), client_id: client.id, account_id: a.id, user_id: Ids.make("user"), redirect_uri: "https://app.example.com/cb",
          scopes: ["projects:read"], code_challenge: null, expires_at: 2_000_000_000_000, used_at: null, created_at: iso(2)
        }
        yield* s.oauth.insertCode(code)
        assert.deepStrictEqual(yield* s.oauth.getCode(code.code_hash), code, "reading a code does not use it")
        assert.isUndefined(yield* s.oauth.getCode("nope"))
        const uses = yield* Effect.all(Array.from({ length: 8 }, () => s.oauth.useCode(code.code_hash, 1_000)), { concurrency: "unbounded" })
        assert.strictEqual(uses.filter((u) => u?.used_at === null).length, 1)
        assert.isTrue(uses.every((u) => u?.code_hash === code.code_hash))
        assert.isUndefined(yield* s.oauth.useCode("nope", 1))
        assert.strictEqual((yield* s.oauth.getCode(code.code_hash))?.used_at, 1_000)

        const token = (kind: "access" | "refresh", family: string) => ({
          id: Ids.make("oauthToken"), token_hash: Ids.randomBase32(52), kind, client_id: client.id, account_id: a.id, user_id: code.user_id,
          scopes: ["projects:read"], family_id: family, expires_at: kind === "access" ? 5_000 : null, rotated_at: null, revoked_at: null,
          last_used_at: 1_000, created_at: iso(3)
        })
        const family = Ids.randomBase32(20)
        const access = token("access", family)
        const refresh = token("refresh", family)
        const other = token("access", Ids.randomBase32(20))
        for (const x of [access, refresh, other]) yield* s.oauth.insertToken(x)
        assert.deepStrictEqual(yield* s.oauth.getToken(refresh.token_hash), refresh)
        const rotations = yield* Effect.all(Array.from({ length: 6 }, () => s.oauth.rotate(refresh.token_hash, 2_000)), { concurrency: "unbounded" })
        assert.strictEqual(rotations.filter(Boolean).length, 1)
        yield* s.oauth.touchToken(access.token_hash, 3_000)
        assert.strictEqual((yield* s.oauth.getToken(access.token_hash))?.last_used_at, 3_000)
        assert.strictEqual(yield* s.oauth.revokeFamily(family, 4_000), 2)
        assert.strictEqual(yield* s.oauth.revokeFamily(family, 5_000), 0)
        assert.strictEqual((yield* s.oauth.getToken(access.token_hash))?.revoked_at, 4_000)
        assert.isNull((yield* s.oauth.getToken(other.token_hash))?.revoked_at)
        assert.isTrue(yield* s.oauth.deleteClient(a.id, client.id))
      }))

    it.effect("oauth: an application's allowed origins are kept, changed and found exactly; a token is found by its id", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const suffix = Ids.randomBase32(8).toLowerCase()
        const origin = `https://spa-${suffix}.example.com`
        const client = {
          id: Ids.make("oauthClient"), account_id: a.id, name: "Browser app", redirect_uris: [`${origin}/cb`], scopes: ["profile"],
          confidential: false, allowed_origins: [origin, "http://localhost:5173"], secret_hash: null, created_at: iso(1), updated_at: iso(1)
        }
        yield* s.oauth.insertClient(client)
        assert.deepStrictEqual((yield* s.oauth.getClient(client.id))?.allowed_origins, [origin, "http://localhost:5173"])
        assert.isTrue(yield* s.oauth.originAllowed(origin))
        // exact match only: no prefix, suffix, other port or LIKE wildcard gets in
        for (const other of [`https://spa-${suffix}.example.co`, `${origin}:8443`, `https://x${origin.slice(8)}`, "https://%", "https://_pa-" + suffix + ".example.com"]) {
          assert.isFalse(yield* s.oauth.originAllowed(other), other)
        }
        const moved = `https://moved-${suffix}.example.com`
        assert.deepStrictEqual((yield* s.oauth.updateClient(a.id, client.id, { allowed_origins: [moved] }))?.allowed_origins, [moved])
        assert.isFalse(yield* s.oauth.originAllowed(origin))
        assert.isTrue(yield* s.oauth.originAllowed(moved))
        const token = {
          id: Ids.make("oauthToken"), token_hash: Ids.randomBase32(52), kind: "access" as const, client_id: client.id, account_id: a.id,
          user_id: Ids.make("user"), scopes: ["profile"], family_id: Ids.randomBase32(20), expires_at: 5_000, rotated_at: null, revoked_at: null,
          last_used_at: 1_000, created_at: iso(2)
        }
        yield* s.oauth.insertToken(token)
        assert.deepStrictEqual(yield* s.oauth.getTokenById(token.id), token)
        assert.isUndefined(yield* s.oauth.getTokenById(Ids.make("oauthToken")))
        assert.isTrue(yield* s.oauth.deleteClient(a.id, client.id))
        assert.isFalse(yield* s.oauth.originAllowed(moved))
      }))

    it.effect("maintenance: expired sessions and idle rate-limit buckets are purged in bounded batches; live ones stay", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const T = 1_900_000_000_000
        const session = (expires_at: number) => ({
          token_hash: Ids.randomBase32(52), account_id: a.id, user_id: Ids.make("user"), csrf: "c", expires_at, created_at: iso(1)
        })
        const expired = [session(T - 3), session(T - 2), session(T)]
        const live = session(T + 1)
        for (const x of [...expired, live]) yield* s.sessions.insert(x)
        assert.strictEqual(yield* s.sessions.purgeExpired(T, 2), 2, "at most `limit` rows per call")
        let more = 0
        for (let n = -1; n !== 0;) more += n = yield* s.sessions.purgeExpired(T, 2)
        assert.isAtLeast(more, 1)
        for (const x of expired) assert.isUndefined(yield* s.sessions.get(x.token_hash))
        assert.deepStrictEqual(yield* s.sessions.get(live.token_hash), live)

        // A bucket's age is when `update` last stored it (its state's refilledAt).
        const bucket = (refilledAt: number): RateLimitState => ({ units: 0, refilledAt, day: Math.floor(refilledAt / 86_400_000), dayCount: 1 })
        const keys = Array.from({ length: 4 }, () => `purge-test:${Ids.randomBase32(12)}`)
        const ages = [T - 300, T - 200, T - 100, T]
        for (let i = 0; i < keys.length; i++) yield* s.rateLimits.update(keys[i]!, () => [undefined, bucket(ages[i]!)] as const)
        assert.strictEqual(yield* s.rateLimits.purge(T - 50, 2), 2, "at most `limit` buckets per call")
        for (let n = -1; n !== 0;) n = yield* s.rateLimits.purge(T - 50, 2)
        const current = (key: string) => s.rateLimits.update(key, (state) => [state, state ?? bucket(0)] as const)
        for (const k of keys.slice(0, 3)) assert.isUndefined(yield* current(k), "an idle bucket is gone")
        assert.strictEqual((yield* current(keys[3]!))?.refilledAt, T, "a recent bucket stays")
        // the account's own bucket, kept by metering, is not the purge's business
        yield* s.requests.meter(a.id, "2026-01", (_plan, state) => ({ result: undefined, state: state ?? bucket(1), count: false }))
        for (let n = -1; n !== 0;) n = yield* s.rateLimits.purge(T, 100)
        const kept = yield* s.requests.meter(a.id, "2026-01", (_plan, state) => ({ result: state, state: state ?? bucket(2), count: false }))
        assert.strictEqual(kept?.result?.refilledAt, 1)
      }))

    it.effect("sessions: by token hash, deleted on sign-out", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const row = { token_hash: Ids.randomBase32(52), account_id: a.id, user_id: Ids.make("user"), csrf: "csrf-value", expires_at: 2_000_000_000_000, created_at: iso(1) }
        yield* s.sessions.insert(row)
        assert.deepStrictEqual(yield* s.sessions.get(row.token_hash), row)
        assert.strictEqual(failureTag(yield* Effect.exit(s.sessions.insert(row))), "Duplicate")
        yield* s.sessions.delete(row.token_hash)
        assert.isUndefined(yield* s.sessions.get(row.token_hash))
      }))

    it.effect("credentials: revoke once, touch, list by kind", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const key = credentialRow(a.id, { created_at: iso(1) })
        const svc = credentialRow(a.id, { id: Ids.make("serviceToken"), kind: "service_token", created_at: iso(2) })
        yield* s.credentials.insert(key)
        yield* s.credentials.insert(svc)
        assert.deepStrictEqual((yield* s.credentials.list(a.id, "api_key")).map((c) => c.id), [key.id])
        assert.deepStrictEqual((yield* s.credentials.list(a.id, "service_token")).map((c) => c.id), [svc.id])
        yield* s.credentials.touch(key.id, iso(3))
        assert.strictEqual((yield* s.credentials.get(a.id, key.id))?.last_used_at, iso(3))
        assert.isTrue(yield* s.credentials.revoke(a.id, key.id, iso(4)))
        assert.isFalse(yield* s.credentials.revoke(a.id, key.id, iso(5)))
        assert.strictEqual((yield* s.credentials.getByHash(key.token_hash))?.revoked_at, iso(4))
      }))

    it.effect("counters: concurrent increments are never lost; an alert fires for exactly one caller", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const values = yield* Effect.all(Array.from({ length: 50 }, () => s.usage.increment(a.id, "2026-01", "api_requests", 1)), { concurrency: "unbounded" })
        assert.strictEqual(yield* s.usage.get(a.id, "2026-01", "api_requests"), 50)
        assert.deepStrictEqual([...values].sort((x, y) => x - y), Array.from({ length: 50 }, (_, i) => i + 1))
        assert.strictEqual(yield* s.usage.get(a.id, "2026-02", "api_requests"), 0)
        const marks = yield* Effect.all(Array.from({ length: 10 }, () => s.usage.markAlert(a.id, "2026-01", "hectares", 75)), { concurrency: "unbounded" })
        assert.strictEqual(marks.filter(Boolean).length, 1)
        yield* s.usage.markAlert(a.id, "2026-01", "hectares", 90)
        assert.deepStrictEqual(yield* s.usage.alerts(a.id, "2026-01", "hectares"), [75, 90])
        assert.deepStrictEqual(yield* s.usage.alerts(a.id, "2026-02", "hectares"), [])
      }))

    it.effect("rate-limit state: concurrent read-modify-write never loses an update", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const step = (state: { units: number; refilledAt: number; day: number; dayCount: number } | undefined) => {
          const next = { units: 0, refilledAt: 0, day: 0, dayCount: (state?.dayCount ?? 0) + 1 }
          return [next.dayCount, next] as const
        }
        const seen = yield* Effect.all(Array.from({ length: 40 }, () => s.rateLimits.update(a.id, step)), { concurrency: "unbounded" })
        assert.deepStrictEqual([...seen].sort((x, y) => x - y), Array.from({ length: 40 }, (_, i) => i + 1))
      }))

    it.effect("metering: the plan and state are read, N counted calls add exactly N, refused ones nothing, inside a failed transaction nothing", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const plans: Array<string> = []
        // Every third call is refused: it stores the state but is not counted.
        const decide = (plan: Plan, state: RateLimitState | undefined) => {
          plans.push(plan)
          const calls = (state?.dayCount ?? 0) + 1
          return { result: calls, state: { units: 0, refilledAt: 0, day: 0, dayCount: calls }, count: calls % 3 !== 0 }
        }
        const results = yield* Effect.all(Array.from({ length: 30 }, () => s.requests.meter(a.id, "2026-01", decide)), { concurrency: "unbounded" })
        assert.deepStrictEqual(results.map((r) => r!.result).sort((x, y) => x - y), Array.from({ length: 30 }, (_, i) => i + 1))
        assert.deepStrictEqual([...new Set(plans)], [a.plan])
        assert.strictEqual(yield* s.usage.get(a.id, "2026-01", "api_requests"), 20)
        const counts = results.map((r) => r!.count).sort((x, y) => x - y)
        assert.strictEqual(counts.at(-1), 20)
        // A refused call answers the current count unchanged.
        const refused = results.find((r) => r!.result === 30)!
        assert.strictEqual(refused.count, 20)
        assert.isUndefined(yield* s.requests.meter("acc_unknown", "2026-01", decide))
        const failed = yield* Effect.exit(s.transaction(Effect.andThen(s.requests.meter(a.id, "2026-01", decide), Effect.fail("abort"))))
        assert.isTrue(failed._tag === "Failure")
        assert.strictEqual(yield* s.usage.get(a.id, "2026-01", "api_requests"), 20)
        assert.strictEqual((yield* s.requests.meter(a.id, "2026-01", decide))!.result, 31)
      }))

    it.effect("idempotency: claimed once, replayed as stored, refused for another fingerprint, per account; the claim's token completes or releases it", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const b = yield* newAccountRow(s)
        const now = Date.UTC(2026, 0, 1)
        const limits = { expiredBefore: now - 86_400_000, abandonedBefore: now - 300_000 }
        const key = `key-${Ids.make("request")}`
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp1", "t1", now, limits), { kind: "new" })
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp1", "t2", now, limits), { kind: "in_progress" })
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp2", "t2", now, limits), { kind: "mismatch" })
        // Another account's key of the same name is its own.
        assert.deepStrictEqual(yield* s.idempotency.begin(b.id, key, "fp2", "t3", now, limits), { kind: "new" })
        // Only the claim's token completes it, once.
        const response = { status: 201, headers: { "content-type": "application/json; charset=utf-8", location: "/x" }, body: "{\"data\":{\"name\":\"é ✓\"}}" }
        assert.isFalse(yield* s.idempotency.complete(a.id, key, "t2", response))
        assert.isFalse(yield* s.idempotency.release(a.id, key, "t2"))
        assert.isTrue(yield* s.idempotency.complete(a.id, key, "t1", response))
        assert.isFalse(yield* s.idempotency.complete(a.id, key, "t1", { ...response, status: 200 }))
        assert.isFalse(yield* s.idempotency.release(a.id, key, "t1"))
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp1", "t4", now + 1, limits), { kind: "replay", response })
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp2", "t4", now + 1, limits), { kind: "mismatch" })
        // A response without a body.
        assert.isTrue(yield* s.idempotency.complete(b.id, key, "t3", { status: 204, headers: {}, body: null }))
        assert.deepStrictEqual(yield* s.idempotency.begin(b.id, key, "fp2", "t5", now, limits), { kind: "replay", response: { status: 204, headers: {}, body: null } })
        // A released claim is free again.
        const k2 = `${key}-2`
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, k2, "fp1", "t6", now, limits), { kind: "new" })
        assert.isTrue(yield* s.idempotency.release(a.id, k2, "t6"))
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, k2, "fp2", "t7", now, limits), { kind: "new" })
        // An abandoned claim (never completed, claimed before `abandonedBefore`) is taken over; the
        // old token can then neither complete nor release it.
        const later = now + 300_001
        const laterLimits = { expiredBefore: later - 86_400_000, abandonedBefore: later - 300_000 }
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, k2, "fp2", "t8", later, laterLimits), { kind: "new" })
        assert.isFalse(yield* s.idempotency.complete(a.id, k2, "t7", response))
        assert.isFalse(yield* s.idempotency.release(a.id, k2, "t7"))
        // A completed key is replayed until it expires, then claimed afresh, whatever its fingerprint.
        assert.deepStrictEqual((yield* s.idempotency.begin(a.id, key, "fp1", "t9", later, laterLimits)).kind, "replay")
        const dayLater = now + 86_400_001
        const dayLimits = { expiredBefore: dayLater - 86_400_000, abandonedBefore: dayLater - 300_000 }
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp3", "t10", dayLater, dayLimits), { kind: "new" })
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, key, "fp3", "t11", dayLater, dayLimits), { kind: "in_progress" })
      }))

    it.effect("idempotency: of 20 concurrent begins with one key, exactly one is new; the others wait for it, then replay", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const now = Date.UTC(2026, 0, 2)
        const limits = { expiredBefore: now - 86_400_000, abandonedBefore: now - 300_000 }
        const key = `race-${Ids.make("request")}`
        const answers = yield* Effect.all(Array.from({ length: 20 }, (_, i) => s.idempotency.begin(a.id, key, "fp", `t${i}`, now, limits)), { concurrency: "unbounded" })
        assert.strictEqual(answers.filter((x) => x.kind === "new").length, 1)
        assert.strictEqual(answers.filter((x) => x.kind === "in_progress").length, 19)
        const winner = `t${answers.findIndex((x) => x.kind === "new")}`
        assert.isTrue(yield* s.idempotency.complete(a.id, key, winner, { status: 201, headers: {}, body: "{}" }))
        const again = yield* Effect.all(Array.from({ length: 10 }, (_, i) => s.idempotency.begin(a.id, key, "fp", `u${i}`, now, limits)), { concurrency: "unbounded" })
        assert.deepStrictEqual([...new Set(again.map((x) => x.kind))], ["replay"])
        // Concurrent take-overs of an expired key: exactly one again.
        const dayLater = now + 86_400_001
        const taken = yield* Effect.all(Array.from({ length: 20 }, (_, i) => s.idempotency.begin(a.id, key, "fp", `v${i}`, dayLater, { expiredBefore: dayLater - 86_400_000, abandonedBefore: dayLater - 300_000 })), { concurrency: "unbounded" })
        assert.strictEqual(taken.filter((x) => x.kind === "new").length, 1)
      }))

    it.effect("idempotency: keys are purged in bounded batches, oldest first, completed or not", () =>
      Effect.gen(function*() {
        const s = yield* Storage
        const a = yield* newAccountRow(s)
        const limits = { expiredBefore: 0, abandonedBefore: 0 }
        // Claimed at times far before every other case's, so that the purge sees only these.
        for (let i = 0; i < 5; i++) {
          yield* s.idempotency.begin(a.id, `purge-${i}`, "fp", `t${i}`, 100 + i, limits)
          if (i % 2 === 0) yield* s.idempotency.complete(a.id, `purge-${i}`, `t${i}`, { status: 200, headers: {}, body: "{}" })
        }
        assert.strictEqual(yield* s.idempotency.purge(103, 2), 2)
        assert.strictEqual(yield* s.idempotency.purge(103, 2), 1)
        assert.strictEqual(yield* s.idempotency.purge(103, 2), 0)
        // The purged keys are free again; the others are kept.
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, "purge-0", "other", "x0", 200, limits), { kind: "new" })
        assert.deepStrictEqual(yield* s.idempotency.begin(a.id, "purge-3", "other", "x3", 200, limits), { kind: "mismatch" })
        assert.deepStrictEqual((yield* s.idempotency.begin(a.id, "purge-4", "fp", "x4", 200, limits)).kind, "replay")
      }))
  })
