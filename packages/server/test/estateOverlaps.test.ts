/**
 * Overlap reports that cost what they report, over a real socket on SQLite and PostgreSQL: an
 * estate's stands (a grid of squares sharing edges) overlap nothing, so an account under
 * `overlap_policy: reject` stores every one; its outline overlaps all 64 and gets a complete report
 * (more than 50 neighbours are compared); and a 990-position re-survey nearly coinciding with 50
 * stored 64-position surveys is measured against all of them within the write's deadline.
 */
import { Geometry } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { RunningServer } from "../src/index.ts"
import { estateGrid } from "./estateGrid.ts"
import { client, isErrorBody } from "@canopy/server/testing"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

const SIDE = 8
/** A stand grid at 60° N, 4 segments per stand side. */
const grid = estateGrid({ lon: 15, lat: 60, dx: 0.004, dy: 0.002, segments: 4 })
const stand = grid.stand
const outline = grid.outline(SIDE, SIDE)

/** A ring of `n` positions around (3, 40), its radius and starting angle varied: a survey of one field. */
const survey = (k: number, n: number): Geometry.Polygon => {
  const ring = Array.from({ length: n }, (_, i): Geometry.Position => {
    const a = (2 * Math.PI * (i + k / 50)) / n
    const r = 0.01 * (1 + k * 1e-5)
    return [3 + r * Math.cos(a), 40 + r * Math.sin(a)]
  })
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
}

const suite = (store: string, open: () => Promise<StoreServer>) =>
  describe(`estate overlaps (${store})`, () => {
    let server: { running: RunningServer; close: () => Promise<void> }
    let n = 0
    const account = async () => {
      const b = await server.running.canopy.bootstrap({ account_name: `Estate ${++n}`, email: `estate${n}@example.com`, plan: "enterprise" })
      return client(server.running.url, b.api_key.token)
    }
    beforeAll(async () => {
      server = await open()
    }, 60_000)
    afterAll(() => server?.close())

    it("under reject, 64 stands sharing edges are all stored; their outline is refused, listing all 64; under warn its report is complete", async () => {
      const api = await account()
      assert.strictEqual((await api.put("/v1/account", { overlap_policy: "reject" })).status, 200)
      const ids = new Set<string>()
      for (let r = 0; r < SIDE; r++) {
        for (let c = 0; c < SIDE; c++) {
          const created = await api.post("/v1/projects", { name: `Stand ${r}-${c}`, geometry: stand(c, r) })
          assert.strictEqual(created.status, 201, created.text)
          assert.deepStrictEqual(created.body.data.overlaps, { overlaps: [], complete: true })
          ids.add(created.body.data.id)
        }
      }
      const refused = await api.post("/v1/projects", { name: "Outline", geometry: outline })
      isErrorBody(refused, "CONFLICT")
      assert.include(refused.body.error.message, "and 61 more")
      assert.strictEqual((await api.get("/v1/projects")).body.meta.total, 64)
      assert.strictEqual((await api.put("/v1/account", { overlap_policy: "warn" })).status, 200)
      const t0 = performance.now()
      const warned = await api.post("/v1/projects", { name: "Outline", geometry: outline })
      const took = performance.now() - t0
      assert.strictEqual(warned.status, 201, warned.text)
      const report = warned.body.data.overlaps as { overlaps: Array<{ project_id: string; overlap_hectares: number }>; complete: boolean }
      assert.isTrue(report.complete)
      assert.deepStrictEqual(new Set(report.overlaps.map((o) => o.project_id)), ids)
      const each = Geometry.roundHectares(Geometry.areaHectares(stand(0, 0)))
      for (const o of report.overlaps) assert.closeTo(o.overlap_hectares, each, 0.01)
      assert.isBelow(took, 2_000, `the outline was answered in ${took.toFixed(0)} ms`)
    })

    it("a 990-position re-survey nearly coinciding with 50 stored 64-position surveys is compared with all 50 in time", async () => {
      const api = await account()
      for (let k = 0; k < 50; k++) {
        const created = await api.post("/v1/projects", { name: `Survey ${k}`, geometry: survey(k, 64) })
        assert.strictEqual(created.status, 201, created.text)
      }
      // Under 1,000 positions the boundary is validated inline: the deadline is the comparisons' alone.
      const again = await api.post("/v1/projects", { name: "Survey 50", geometry: survey(50, 990) })
      assert.strictEqual(again.status, 201, again.text)
      const report = again.body.data.overlaps as { overlaps: Array<{ overlap_hectares: number }>; complete: boolean }
      assert.isTrue(report.complete, JSON.stringify(report).slice(0, 300))
      assert.strictEqual(report.overlaps.length, 50)
      const whole = Geometry.areaHectares(survey(0, 64))
      for (const o of report.overlaps) assert.closeTo(o.overlap_hectares, whole, whole * 0.001)
    }, 120_000)
  })

for (const [store, open] of serverOnEachStore) suite(store, open)
