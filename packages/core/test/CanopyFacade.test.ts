/**
 * The Promise facade (`createCanopy`) reaches the services the HTTP API offers: boundary history
 * (list, get, restore), a project's overlaps, bulk imports (start, get, cancel) and an owner's
 * set-password link; errors come out as `CanopyError`s, a database failure as an `InternalError`
 * carrying it as its cause. On the memory store.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type Canopy, ConflictError, createCanopy, memoryStorage, NotFoundError } from "../src/Canopy.ts"
import { InternalError } from "../src/Errors.ts"
import * as MemoryStorage from "../src/MemoryStorage.ts"
import { Storage, StorageError } from "../src/Storage.ts"
import type { Principal } from "../src/Principal.ts"
import { squareHa } from "../src/testing/fixtures.ts"

let canopy: Canopy
let principal: Principal
let owner: { readonly accountId: string; readonly userId: string }

beforeAll(async () => {
  canopy = await createCanopy({ storage: memoryStorage() })
  const b = await canopy.bootstrap({ account_name: "Estate", email: "owner@example.com", plan: "pro" })
  principal = await canopy.authenticate(b.api_key.token)
  owner = { accountId: b.account.id, userId: b.user.id }
})
afterAll(() => canopy.close())

/** Resolves to the error a promise rejects with (fails the test when it resolves). */
const rejection = (p: Promise<unknown>) => p.then(() => assert.fail("expected a rejection"), (e: unknown) => e)

describe("createCanopy's facade", () => {
  it("boundaryHistory.list: a project's versions, newest first, without boundaries", async () => {
    const p = await canopy.projects.create(principal, { name: "Oak stand", geometry: squareHa(3) })
    await canopy.projects.update(principal, p.id, { geometry: squareHa(5) })
    const { data, meta } = await canopy.boundaryHistory.list(principal, p.id)
    assert.deepStrictEqual(data.map((v) => v.version), [2, 1])
    assert.strictEqual(meta.total, 2)
    assert.notProperty(data[0], "geometry")
    assert.closeTo(data[0]!.area_hectares_after!, 5, 0.01)
    assert.instanceOf(await rejection(canopy.boundaryHistory.list(principal, "proj_missing")), NotFoundError)
  })

  it("boundaryHistory.get: one version with its boundary, as plain JSON", async () => {
    const p = await canopy.projects.create(principal, { name: "Birch stand", geometry: squareHa(2, 11) })
    await canopy.projects.update(principal, p.id, { geometry: squareHa(3, 11) })
    const v = await canopy.boundaryHistory.get(principal, p.id, "1")
    assert.strictEqual(v.version, 1)
    assert.deepStrictEqual(JSON.parse(JSON.stringify(v.geometry)), JSON.parse(JSON.stringify(squareHa(2, 11))))
    const newest = await canopy.boundaryHistory.get(principal, p.id, "2")
    assert.deepStrictEqual(JSON.parse(JSON.stringify(newest.geometry)), JSON.parse(JSON.stringify(squareHa(3, 11))), "the newest: the project's boundary")
    assert.deepStrictEqual(JSON.parse(JSON.stringify((await canopy.projects.get(principal, p.id)).geometry)), JSON.parse(JSON.stringify(squareHa(3, 11))))
    assert.instanceOf(await rejection(canopy.boundaryHistory.get(principal, p.id, "9")), NotFoundError)
  })

  it("boundaryHistory.restore: the old boundary comes back as a new version; answers the project", async () => {
    const p = await canopy.projects.create(principal, { name: "Pine stand", geometry: squareHa(4, 12) })
    await canopy.projects.update(principal, p.id, { geometry: squareHa(8, 12) })
    const restored = await canopy.boundaryHistory.restore(principal, p.id, "1")
    assert.strictEqual(restored.id, p.id)
    assert.closeTo(restored.area_hectares!, 4, 0.01)
    const newest = (await canopy.boundaryHistory.list(principal, p.id)).data[0]!
    assert.strictEqual(newest.version, 3)
    assert.strictEqual(newest.via, "version_restore")
    assert.strictEqual(newest.restored_from, 1)
  })

  it("overlaps.list: the projects sharing area with one, with the shared hectares", async () => {
    const a = await canopy.projects.create(principal, { name: "West block", geometry: squareHa(4, 20) })
    const b = await canopy.projects.create(principal, { name: "Same block", geometry: squareHa(4, 20) })
    await canopy.projects.create(principal, { name: "Far block", geometry: squareHa(4, 30) })
    const { data } = await canopy.overlaps.list(principal, a.id)
    assert.deepStrictEqual(data.map((o) => o.project_id), [b.id])
    assert.closeTo(data[0]!.overlap_hectares, 4, 0.01)
    assert.instanceOf(await rejection(canopy.overlaps.list(principal, "proj_missing")), NotFoundError)
  })

  it("imports.start and imports.get: features become projects in the background, with per-feature results", async () => {
    const started = await canopy.imports.start(principal, {
      mode: "per_feature",
      dryRun: false,
      file: { name: "stands.geojson", format: "GeoJSON", sourceCrs: null },
      features: [
        { label: "feature 1", name: "Imported north", geometry: squareHa(1, 40), areaHectares: 1, problems: [] },
        { label: "feature 2", name: "Imported south", problems: [{ field: "features[1].geometry", message: "no boundary" }] }
      ]
    })
    assert.match(started.id, /^imp_/)
    let current = started
    for (let i = 0; i < 100 && current.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 20))
      current = await canopy.imports.get(principal, started.id)
    }
    assert.strictEqual(current.status, "completed")
    assert.deepStrictEqual([current.totals.created, current.totals.refused], [1, 1])
    const created = current.results.find((r) => r.project_id !== null)!
    assert.strictEqual((await canopy.projects.get(principal, created.project_id!)).name, "Imported north")
    assert.instanceOf(await rejection(canopy.imports.get(principal, "imp_missing")), NotFoundError)
  })

  it("imports.cancel: a running import stops (what is done stays done); a finished one is a conflict", async () => {
    const features = Array.from({ length: 400 }, (_, i) => ({
      label: `feature ${i + 1}`,
      name: `Plot ${i + 1}`,
      geometry: squareHa(0.5, 60 + (i % 20) * 0.1, (Math.floor(i / 20)) * 0.1),
      areaHectares: 0.5,
      problems: []
    }))
    const started = await canopy.imports.start(principal, { mode: "per_feature", dryRun: false, file: { name: null, format: null, sourceCrs: null }, features })
    const cancelled = await canopy.imports.cancel(principal, started.id)
    assert.strictEqual(cancelled.status, "cancelled")
    assert.isBelow(cancelled.progress.created, 400)
    assert.instanceOf(await rejection(canopy.imports.cancel(principal, started.id)), ConflictError)
    assert.instanceOf(await rejection(canopy.imports.cancel(principal, "imp_missing")), NotFoundError)
  })

  it("members.passwordLink: a one-time link with which the owner sets a password", async () => {
    const link = await canopy.members.passwordLink(owner.accountId, owner.userId)
    assert.match(link.token, /^cnp_inv_/)
    const member = await canopy.members.accept(link.token, { name: "Olive", password: "correct horse battery" })
    assert.strictEqual(member.status, "active")
    assert.strictEqual(member.role, "owner")
  })
})

describe("createCanopy's facade, when the database fails", () => {
  it("a storage failure reaches the host as InternalError with the failure as its cause, not the caller's fault", async () => {
    const outage = new StorageError({ message: "connection lost" })
    // The memory store, but project lists fail as a lost database connection would.
    const failing = Layer.effect(
      Storage,
      Effect.map(Storage, (s) => ({ ...s, projects: { ...s.projects, list: () => Effect.fail(outage) } }))
    ).pipe(Layer.provide(MemoryStorage.layer))
    const down = await createCanopy({ storage: { layer: failing } })
    try {
      const b = await down.bootstrap({ account_name: "Down", email: "down@example.com", plan: "pro" })
      const who = await down.authenticate(b.api_key.token)
      const e = await rejection(down.projects.list(who))
      assert.instanceOf(e, InternalError)
      assert.strictEqual((e as InternalError).code, "INTERNAL_ERROR")
      assert.strictEqual((e as InternalError).message, "the database is unavailable; retry later")
      assert.strictEqual((e as InternalError).cause, outage)
    } finally {
      await down.close()
    }
  })
})
