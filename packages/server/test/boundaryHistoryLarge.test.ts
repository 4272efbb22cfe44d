/**
 * Boundary history with a large boundary (20,000 positions, ~750 KB of JSON) on SQLite and
 * PostgreSQL: restoring it, reading it back and listing the versions keep `/health` prompt (the
 * stored text is handed over as checked, never parsed or re-validated on the event loop; lists
 * never read the boundaries' text). Prints each answer's time for the record.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { RunningServer } from "../src/index.ts"
import { client } from "@canopy/server/testing"
import { withoutStall } from "./healthProbe.ts"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

/** A closed ring of `n` positions around (cx, cy). */
const circle = (n: number, r: number, cx: number, cy: number) => {
  const ring: Array<[number, number]> = []
  for (let i = 0; i < n - 1; i++) ring.push([cx + r * Math.cos((2 * Math.PI * i) / (n - 1)), cy + r * Math.sin((2 * Math.PI * i) / (n - 1))])
  ring.push([...ring[0]!])
  return { type: "Polygon", coordinates: [ring] }
}

const suite = (store: string, open: () => Promise<StoreServer>) =>
  describe(`boundary history of a large boundary (${store})`, () => {
    let server: StoreServer
    let running: RunningServer
    beforeAll(async () => {
      server = await open()
      running = server.running
    }, 60_000)
    afterAll(() => server?.close())

    it("restore, read and list keep /health prompt; the restored boundary is the stored one", async () => {
      const b = await running.canopy.bootstrap({ account_name: "Large history", email: `large-${store}@example.com`, plan: "enterprise" })
      const api = client(running.url, b.api_key.token)
      const auth = { authorization: `Bearer ${b.api_key.token}` }
      const created = await api.post("/v1/projects", { name: "Estate", geometry: circle(20_000, 0.2, 20, 40) })
      assert.strictEqual(created.status, 201, created.text.slice(0, 300))
      const p = created.body.data
      assert.strictEqual((await api.put(`/v1/projects/${p.id}`, { geometry: circle(50, 0.01, 20, 40) })).status, 200)
      const timed = async (label: string, send: () => Promise<Response>) => {
        const times: Array<number> = []
        // (spaced out, so that /health is probed between answers that take a few ms)
        const answers = await withoutStall(running.url, async () => {
          await new Promise((r) => setTimeout(r, 20))
          const t = performance.now()
          const r = await send()
          times.push(performance.now() - t)
          return r
        })
        console.log(`${store} ${label}: ${times.slice(-4).map((t) => Math.round(t)).join(", ")} ms`)
        for (const a of answers) assert.strictEqual(a.status, 200, a.text.slice(0, 300))
        return answers
      }
      const restores = await timed("restore of version 1",
        () => fetch(`${running.url}/v1/projects/${p.id}/boundaries/1/restore`, { method: "POST", headers: auth }))
      assert.strictEqual(JSON.parse(restores[0]!.text).data.area_hectares, p.area_hectares)
      await timed("GET project", () => fetch(`${running.url}/v1/projects/${p.id}`, { headers: auth }))
      const read = await timed("GET version 1", () => fetch(`${running.url}/v1/projects/${p.id}/boundaries/1`, { headers: auth }))
      assert.deepStrictEqual(JSON.parse(read[0]!.text).data.geometry, p.geometry)
      const lists = await timed("list", () => fetch(`${running.url}/v1/projects/${p.id}/boundaries?per_page=100`, { headers: auth }))
      const listed = JSON.parse(lists.at(-1)!.text)
      assert.isAtLeast(listed.meta.total, 6)
      assert.isBelow(lists.at(-1)!.text.length, 10_000, "the list carries no boundary")
      assert.deepStrictEqual(JSON.parse((await api.get(`/v1/projects/${p.id}`)).text).data.geometry, p.geometry)
    }, 180_000)
  })

for (const [store, open] of serverOnEachStore) suite(store, open)
