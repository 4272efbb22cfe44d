/**
 * Hostile overlap comparisons never hold the event loop: two small comb-shaped boundaries whose
 * teeth cross (67,600 crossings from two 523-position rings, under 10 KB each) are compared
 * through `GET /v1/projects?intersects=` and through `POST /v1/projects`, four at a time, while
 * `/health` is probed (within 100 ms of what the probe sees with nothing else sent); on SQLite and
 * on PostgreSQL, over a real socket. Every request is answered in bounded time (a comparison that
 * cannot finish leaves its report incomplete).
 */
import type { Geometry } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { setTimeout as sleep } from "node:timers/promises"
import type { RunningServer } from "../src/index.ts"
import { client, request } from "@canopy/server/testing"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

const round = (x: number) => Math.round(x * 1e6) / 1e6

/**
 * A comb of `teeth` teeth over the square (lon, lat)–(lon + side, lat + side): a spine along one
 * side and teeth across the square; `across` turns it a quarter (teeth along longitude instead).
 */
export const comb = (teeth: number, lon: number, lat: number, side: number, across = false): Geometry.Polygon => {
  const pitch = side / teeth
  const spine = side * 0.05
  // Counter-clockwise in (u, v): the spine along v = 0, the teeth rising in v; a quarter turn keeps the orientation.
  const uv: Array<[number, number]> = [[0, 0], [side, 0]]
  for (let i = teeth - 1; i >= 0; i--) {
    const right = (i + 1) * pitch
    const left = i * pitch + pitch / 2
    uv.push([right, spine], [right, side], [left, side], [left, spine])
  }
  uv.push([0, spine])
  const ring = uv.map(([u, v]) => (across ? [round(lon + v), round(lat + side - u)] : [round(lon + u), round(lat + v)]) as Geometry.Position)
  const closed = [...ring, ring[0]!]
  return { type: "Polygon", coordinates: [closed] }
}

/**
 * Runs `attack` while probing `/health` every 10 ms; answers the slowest probe (ms: from when it
 * was due, so a loop held while the prober sleeps counts too) and the attack's result.
 */
const probing = async <A>(url: string, attack: () => Promise<A>) => {
  let slowest = 0
  let running = true
  const probe = (async () => {
    while (running) {
      const due = performance.now() + 10
      await sleep(10)
      const r = await request(url, "GET", "/health")
      assert.strictEqual(r.status, 200)
      slowest = Math.max(slowest, performance.now() - due)
    }
  })()
  const t0 = performance.now()
  const result = await attack()
  const took = performance.now() - t0
  running = false
  await probe
  return { slowest, took, result }
}

/**
 * The bound on `/health`: 100 ms above what the same probe sees over a second with nothing else
 * sent (on a machine shared with other work, the process itself may wait for a core that long).
 */
const healthBound = async (url: string) => 100 + (await probing(url, () => sleep(1_000))).slowest

/**
 * Runs `attack` under the probe until a run keeps `/health` within its bound, at most three times
 * (a comparison held on the loop fails every run; a busy shared machine now and then delays one
 * probe by itself); checks every run's result with `check` and answers the runs' outcomes.
 */
const withinBound = async <A>(url: string, attack: () => Promise<A>, check: (result: A) => void) => {
  const seen: Array<string> = []
  for (let run = 0; run < 3; run++) {
    const bound = await healthBound(url)
    const { slowest, took, result } = await probing(url, attack)
    check(result)
    assert.isBelow(took, 10_000, `answered in ${took.toFixed(0)} ms`)
    if (slowest < bound) return
    seen.push(`/health waited ${slowest.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`)
  }
  assert.fail(`in three runs: ${seen.join("; ")}`)
}

const stored = comb(130, 12, 45, 0.05)
const attacker = comb(130, 12, 45, 0.05, true)

const suite = (store: string, open: () => Promise<StoreServer>) =>
  describe(`comb-shaped overlaps off the event loop (${store})`, () => {
    let server: { running: RunningServer; close: () => Promise<void> }
    let api: ReturnType<typeof client>
    let storedId: string
    beforeAll(async () => {
      server = await open()
      const b = await server.running.canopy.bootstrap({ account_name: "Combs", email: "combs@example.com", plan: "enterprise" })
      api = client(server.running.url, b.api_key.token)
      const created = await api.post("/v1/projects", { name: "Comb", geometry: stored })
      assert.strictEqual(created.status, 201, created.text)
      storedId = created.body.data.id
      // The workers start on first use (~0.4 s each): not part of what is measured.
      await api.post("/v1/projects", { name: "Warm-up", geometry: comb(80, 40, 10, 0.05) })
      await api.post("/v1/projects", { name: "Warm-up across", geometry: comb(80, 40, 10, 0.05, true) })
    }, 60_000)
    afterAll(() => server?.close())

    it("four GET ?intersects= with a crossing comb keep /health under 100 ms and are answered", async () => {
      const query = `/v1/projects?intersects=${encodeURIComponent(JSON.stringify(attacker))}`
      await withinBound(server.running.url, () => Promise.all(Array.from({ length: 4 }, () => api.get(query))), (result) => {
        for (const r of result) {
          assert.strictEqual(r.status, 200, r.text)
          const ids = (r.body.data as Array<{ id: string }>).map((p) => p.id)
          // Either the comparison finished (the combs share area) or the total says it is not exact.
          assert.isTrue(ids.includes(storedId) || r.body.meta.total_exact === false || r.body.meta.resume !== null, r.text.slice(0, 300))
        }
      })
    })

    it("four POST of a crossing comb keep /health under 100 ms and are answered with their report", async () => {
      let sent = 0
      await withinBound(server.running.url,
        () => Promise.all(Array.from({ length: 4 }, () => api.post("/v1/projects", { name: `Attack ${sent++}`, geometry: attacker }))), (result) => {
        for (const r of result) {
          assert.strictEqual(r.status, 201, r.text)
          const report = r.body.data.overlaps as { overlaps: Array<{ project_id: string }>; complete: boolean }
          assert.isTrue(report.overlaps.some((o) => o.project_id === storedId) || !report.complete, JSON.stringify(report))
        }
      })
    })
  })

for (const [store, open] of serverOnEachStore) suite(store, open)
