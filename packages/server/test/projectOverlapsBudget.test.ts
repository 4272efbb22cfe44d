/**
 * `GET /v1/projects/{id}/overlaps` when measures do not finish, over a real socket on SQLite and
 * PostgreSQL: with geometry workers that give a measure no time (`sharedBudgetMs: 0`), two comb
 * neighbours whose teeth cross the project's (too much work to measure inline) cannot be measured.
 * The first is left out; the second, after another measure in the same request, is not skipped:
 * the page stops before it and the next request measures it first. A cheap neighbour after them is
 * still found, and no total says it is exact.
 */
import type { Geometry } from "@canopy/core"
import { postgresStorage } from "@canopy/adapter-postgres"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { type RunningServer, serve } from "../src/index.ts"
import { client } from "@canopy/server/testing"

const round = (x: number) => Math.round(x * 1e6) / 1e6

/** A comb of `teeth` teeth over the square of `side` at (lon, lat); `across` turns it a quarter, so two combs' teeth cross. */
const comb = (teeth: number, lon: number, lat: number, side: number, across = false): Geometry.Polygon => {
  const pitch = side / teeth
  const spine = side * 0.05
  const uv: Array<[number, number]> = [[0, 0], [side, 0]]
  for (let i = teeth - 1; i >= 0; i--) uv.push([(i + 1) * pitch, spine], [(i + 1) * pitch, side], [i * pitch + pitch / 2, side], [i * pitch + pitch / 2, spine])
  uv.push([0, spine])
  const ring = uv.map(([u, v]) => (across ? [round(lon + v), round(lat + side - u)] : [round(lon + u), round(lat + v)]) as Geometry.Position)
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
}

/** Workers that stop every measure at once: a measure too large to run inline never finishes. */
const geometry = { sharedBudgetMs: 0 }

const stores: ReadonlyArray<readonly [string, () => Promise<{ running: RunningServer; close: () => Promise<void> }>]> = [
  ["SQLite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-overlaps-"))
    const running = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "canopy.db"), log: false, dispatcher: false, geometry })
    return { running, close: async () => {
      await running.close()
      rmSync(dir, { recursive: true, force: true })
    } }
  }],
  ["PostgreSQL", async () => {
    const scope = await Effect.runPromise(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
    const running = await serve({ port: 0, host: "127.0.0.1", storage: postgresStorage({ url }), log: false, dispatcher: false, geometry })
    return { running, close: async () => {
      await running.close()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    } }
  }]
]

for (const [store, open] of stores) {
  describe(`project overlaps whose measures do not finish (${store})`, () => {
    let server: { running: RunningServer; close: () => Promise<void> }
    beforeAll(async () => {
      server = await open()
    }, 60_000)
    afterAll(() => server?.close())

    it("the first unfinished measure is left out; the next one ends the page and is measured first by the next request", async () => {
      const b = await server.running.canopy.bootstrap({ account_name: "Combs", email: "combs@example.com", plan: "enterprise" })
      const api = client(server.running.url, b.api_key.token)
      const create = async (name: string, g: Geometry.Polygon) => {
        const r = await api.post("/v1/projects", { name, geometry: g })
        assert.strictEqual(r.status, 201, r.text)
        return r.body.data.id as string
      }
      const centre = await create("Centre comb", comb(130, 10, 50, 0.01))
      await create("A comb", comb(130, 10, 50, 0.01, true))
      await create("B comb", comb(129, 10.0001, 50.0001, 0.0098, true))
      const cheap = await create("C plot", { type: "Polygon",
        coordinates: [[[10.002, 49.9995], [10.003, 49.9995], [10.003, 50.0003], [10.002, 50.0003], [10.002, 49.9995]]] })

      const first = await api.get(`/v1/projects/${centre}/overlaps`)
      assert.strictEqual(first.status, 200, first.text)
      assert.deepStrictEqual(first.body.data, [], "A is left out; the page stops before B")
      assert.include(first.body.meta, { has_more: true, total_exact: false })
      const second = await api.get(`/v1/projects/${centre}/overlaps?cursor=${first.body.meta.next_cursor}`)
      assert.strictEqual(second.status, 200, second.text)
      assert.deepStrictEqual(second.body.data.map((o: { project_id: string }) => o.project_id), [cheap], "B is measured first (and left out), then C")
      assert.include(second.body.meta, { has_more: false, next_cursor: null, total_exact: false })
      assert.isAbove(second.body.data[0].overlap_hectares, 0)
    })
  })
}
