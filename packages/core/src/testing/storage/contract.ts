/** The storage contract's cases for rows as written, reachability, tenancy, uniqueness, atomicity (every area). */
import { assert, type Vitest } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import * as Ids from "../../Ids.ts"
import { RawJson } from "../../RawJson.ts"
import { Storage } from "../../Storage.ts"
import { assetRow, credentialRow, eventWithDeliveries, memberRow, projectRow, webhookRow } from "../fixtures.ts"
import { countEvery, failureTag, iso, newAccountRow, versionRow } from "./helpers.ts"

export const contractCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("rows out equal rows in, JSON values and nulls included", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      assert.deepStrictEqual(yield* s.accounts.get(a.id), a)
      const p = projectRow(a.id, {
        description: "Ünïcode ✓ \"quoted\"",
        geometry: RawJson.of({ type: "Polygon", coordinates: [[[1, 2], [3, 2], [3, 4], [1, 2]]] }),
        area_hectares: 1234.5678,
        bbox: [1, 2, 3, 4],
        created_by: Ids.make("user")
      })
      yield* s.projects.insert(p)
      assert.deepStrictEqual(yield* s.projects.get(a.id, p.id), p)
      const asset = assetRow(a.id, p.id, { location: { type: "Point", coordinates: [1.5, -2.25] }, metadata: { nested: { list: [1, "two", null, true] } } })
      yield* s.assets.insert(asset)
      assert.deepStrictEqual(yield* s.assets.get(a.id, p.id, asset.id), asset)
      const w = webhookRow(a.id, { events: ["project.created", "asset.deleted"], enabled: false, disabled_reason: "410 Gone", disabled_at: iso(3) })
      yield* s.webhooks.insert(w)
      assert.deepStrictEqual(yield* s.webhooks.get(a.id, w.id), w)
      const c = credentialRow(a.id, { kind: "service_token", id: Ids.make("serviceToken"), ip_allowlist: ["10.0.0.0/8"],
        permissions: ["projects:read", "assets:write"] })
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
        yield* s.requests.meter(a.id, "2026-01", countEvery)
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

  it.effect("a transaction reads its own writes: the account and its webhooks, read again after they change", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const w = webhookRow(a.id)
      yield* s.transaction(Effect.gen(function*() {
        yield* s.lockAccount(a.id)
        assert.strictEqual((yield* s.accounts.get(a.id))?.name, a.name)
        assert.lengthOf(yield* s.webhooks.list(a.id), 0)
        yield* s.accounts.update(a.id, { name: "Renamed", overlap_policy: "reject" })
        const after = yield* s.accounts.get(a.id)
        assert.strictEqual(after?.name, "Renamed")
        assert.strictEqual(after?.overlap_policy, "reject")
        yield* s.webhooks.insert(w)
        assert.deepStrictEqual((yield* s.webhooks.list(a.id)).map((x) => x.id), [w.id])
        yield* s.webhooks.update(a.id, w.id, { enabled: false })
        assert.isFalse((yield* s.webhooks.list(a.id))[0]?.enabled)
        yield* s.webhooks.delete(a.id, w.id)
        assert.lengthOf(yield* s.webhooks.list(a.id), 0)
      }))
      // and after it, another transaction sees what it committed
      assert.strictEqual((yield* s.transaction(s.accounts.get(a.id)))?.name, "Renamed")
    }))

  it.effect("a transaction reads its own writes: the running totals, read again after each project, member and webhook write", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const p = projectRow(a.id, { area_hectares: 12.5 })
      const m = memberRow(a.id)
      yield* s.transaction(Effect.gen(function*() {
        yield* s.lockAccount(a.id)
        assert.deepStrictEqual(yield* s.projects.stats(a.id), { active: 0, archived: 0, draft: 0, hectares: 0 })
        yield* s.projects.insert(p)
        assert.deepStrictEqual(yield* s.projects.stats(a.id), { active: 1, archived: 0, draft: 0, hectares: 12.5 })
        yield* s.projects.update(a.id, p.id, { status: "archived" })
        assert.deepStrictEqual(yield* s.projects.stats(a.id), { active: 0, archived: 1, draft: 0, hectares: 0 })
        const members = yield* s.members.count(a.id)
        yield* s.members.insert(m)
        assert.strictEqual(yield* s.members.count(a.id), members + 1)
        yield* s.members.delete(a.id, m.id)
        assert.strictEqual(yield* s.members.count(a.id), members)
        yield* s.webhooks.insert(webhookRow(a.id))
        assert.strictEqual(yield* s.webhooks.count(a.id), 1)
        yield* s.projects.delete(a.id, p.id)
        assert.deepStrictEqual(yield* s.projects.stats(a.id), { active: 0, archived: 0, draft: 0, hectares: 0 })
      }))
    }))

  // (that none of them is kept after a failure: "atomicity: a failure inside a transaction leaves no row and no event" and
  // "boundary versions: a version written in a failed transaction is not kept")
  it.effect("a transaction reads its own writes: events with their deliveries and boundary versions, before it commits, kept after it", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const w = webhookRow(a.id)
      yield* s.webhooks.insert(w)
      const p = projectRow(a.id)
      yield* s.projects.insert(p)
      const created = eventWithDeliveries(a.id, [w.id])
      const overlap = eventWithDeliveries(a.id, [], "project.overlap_detected")
      const later = eventWithDeliveries(a.id, [w.id], "project.updated")
      yield* s.transaction(Effect.gen(function*() {
        yield* s.lockAccount(a.id)
        // a create's writes after its row, one after the other, then read back
        yield* s.boundaryVersions.append(versionRow(a.id, p.id, 1))
        yield* s.outbox.append(created.event, created.deliveries)
        yield* s.outbox.append(overlap.event, overlap.deliveries)
        assert.strictEqual((yield* s.outbox.getEvent(a.id, created.event.id))?.payload, created.event.payload)
        assert.deepStrictEqual((yield* s.outbox.listDeliveries(a.id, created.event.id)).map((d) => d.id), created.deliveries.map((d) => d.id))
        assert.strictEqual((yield* s.outbox.getEvent(a.id, overlap.event.id))?.type, "project.overlap_detected")
        assert.strictEqual((yield* s.boundaryVersions.get(a.id, p.id, 1))?.version, 1)
        // more after a read, then a write that reads what came before it (the newest version)
        yield* s.outbox.append(later.event, later.deliveries)
        yield* s.boundaryVersions.append(versionRow(a.id, p.id, 2))
        assert.strictEqual(yield* s.boundaryVersions.supersedeLatest(a.id, p.id, null), 2)
      }))
      for (const e of [created, overlap, later]) assert.strictEqual((yield* s.outbox.getEvent(a.id, e.event.id))?.id, e.event.id)
      assert.lengthOf(yield* s.outbox.listDeliveries(a.id, later.event.id), 1)
      assert.strictEqual((yield* s.boundaryVersions.list(a.id, p.id, { limit: 5, offset: 0 })).rows.length, 2)
    }))

  it.effect("the account's lock: what a write reads after it includes what the previous holder committed", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const w = webhookRow(a.id, { events: ["project.created"], description: "from the first holder" })
      yield* s.transaction(Effect.andThen(s.lockAccount(a.id), s.webhooks.list(a.id))) // a first read, remembered nowhere after
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(s.transaction(Effect.gen(function*() {
        yield* s.lockAccount(a.id)
        yield* s.projects.insert(projectRow(a.id, { area_hectares: 7 }))
        yield* s.webhooks.insert(w)
        yield* s.accounts.update(a.id, { name: "Renamed by the first" })
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(locked)
      const second = yield* Effect.forkChild(s.transaction(Effect.gen(function*() {
        yield* s.lockAccount(a.id) // waits for the first to commit
        return { stats: yield* s.projects.stats(a.id), webhooks: yield* s.webhooks.list(a.id), account: yield* s.accounts.get(a.id) }
      })))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100))) // the second is waiting for the lock by now
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      const seen = yield* Fiber.join(second)
      assert.deepStrictEqual(seen.stats, { active: 1, archived: 0, draft: 0, hectares: 7 })
      assert.deepStrictEqual(seen.webhooks, [w])
      assert.strictEqual(seen.account?.name, "Renamed by the first")
      // what the lock remembered is what a read outside any transaction answers
      assert.deepStrictEqual(seen.webhooks, yield* s.webhooks.list(a.id))
      assert.deepStrictEqual(seen.account, yield* s.accounts.get(a.id))
    }))
}
