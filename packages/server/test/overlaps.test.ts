/**
 * Overlaps and the spatial filter over a real socket: a create reports the projects it shares
 * hectares with (geodesic, as the API rounds them) and `project.overlap_detected` is listed; the
 * project list's `bbox` filter and its 400s; the account's `overlap_policy` (PUT /v1/account) and a
 * refused write answering 409 with the spec's body and storing nothing; large boundaries compared
 * through the geometry workers.
 */
import { Geometry } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { client, isErrorBody, startTestServer, type TestServer } from "@canopy/server/testing"

const rect = (w: number, s: number, e: number, n: number): Geometry.Polygon => ({ type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] })

const hectaresOf = (g: Geometry.Boundary) => Geometry.roundHectares(Geometry.areaHectares(g))

/** A closed ring of `n` positions around a centre (radius in degrees). */
const circle = (n: number, lon: number, lat: number, r: number): Geometry.Polygon => {
  const ring = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n
    return [lon + r * Math.cos(a), lat + r * Math.sin(a)] as const
  })
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
}

describe("overlaps and the bbox filter over HTTP", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.stop())

  it("a create reports the overlapped project with its shared hectares, and the event is listed", async () => {
    const api = client(server.url, (await server.newAccount()).token)
    const a = (await api.post("/v1/projects", { name: "Oak stand", geometry: rect(5, 45, 5.01, 45.01) })).body.data
    const created = await api.post("/v1/projects", { name: "Beech stand", geometry: rect(5.004, 45.002, 5.02, 45.02) })
    assert.strictEqual(created.status, 201)
    assert.deepStrictEqual(created.body.data.overlaps, {
      overlaps: [{ project_id: a.id, name: "Oak stand", overlap_hectares: hectaresOf(rect(5.004, 45.002, 5.01, 45.01)) }],
      complete: true
    })
    const events = await api.get("/v1/events?type=project.overlap_detected")
    assert.strictEqual(events.body.data.length, 1)
    assert.strictEqual(events.body.data[0].data.project.id, created.body.data.id)
    assert.deepStrictEqual(events.body.data[0].data.overlaps, created.body.data.overlaps.overlaps)
    const hooks = await api.post("/v1/webhooks", { url: "https://example.com/hook", events: ["project.overlap_detected"] })
    assert.strictEqual(hooks.status, 201, "project.overlap_detected can be subscribed to")
  })

  it("bbox filters the list through the index; a malformed box is a 400 on query.bbox", async () => {
    const api = client(server.url, (await server.newAccount()).token)
    const names = async (query: string) => {
      const r = await api.get(`/v1/projects?${query}`)
      assert.strictEqual(r.status, 200, r.text)
      return (r.body.data as Array<{ name: string }>).map((p) => p.name).sort()
    }
    await api.post("/v1/projects", { name: "Alps", geometry: rect(7, 46, 7.01, 46.01) })
    await api.post("/v1/projects", { name: "Vosges", geometry: rect(7, 48, 7.01, 48.01) })
    await api.post("/v1/projects", { name: "No boundary" })
    assert.deepStrictEqual(await names("bbox=6,45,8,47"), ["Alps"])
    assert.deepStrictEqual(await names("bbox=6.5,45,7.5,49&sort=name"), ["Alps", "Vosges"])
    assert.deepStrictEqual(await names("bbox=7.01,48.01,9,49"), ["Vosges"], "a shared corner counts")
    assert.deepStrictEqual(await names("bbox=-1,-1,1,1"), [])
    assert.deepStrictEqual(await names("bbox=6,45,8,49&search=vosg"), ["Vosges"])
    const listed = await api.get("/v1/projects?bbox=6,45,8,49&per_page=1")
    assert.deepStrictEqual([listed.body.meta.total, listed.body.data.length, listed.body.meta.has_more], [2, 1, true])
    const page2 = await api.get(`/v1/projects?bbox=6,45,8,49&per_page=1&cursor=${listed.body.meta.next_cursor}`)
    assert.strictEqual(page2.body.data.length, 1)
    assert.notStrictEqual(page2.body.data[0].id, listed.body.data[0].id)
    const at = (x: number, y: number) => encodeURIComponent(JSON.stringify({ type: "Point", coordinates: [x, y] }))
    assert.deepStrictEqual(await names(`intersects=${at(7.005, 46.005)}`), ["Alps"])
    assert.deepStrictEqual(await names(`intersects=${encodeURIComponent(JSON.stringify(rect(6, 45, 8, 49)))}&sort=name`), ["Alps", "Vosges"])
    const notJson = await api.get("/v1/projects?intersects=%7B")
    isErrorBody(notJson, "VALIDATION_ERROR")
    assert.deepStrictEqual([notJson.status, notJson.body.error.details[0].field], [400, "query.intersects"])
    for (const [box, words] of [["1,2,3", /four numbers/], ["8,45,6,47", /west must not exceed east/], ["6,47,8,45", /south/], ["6,45,181,47", /within/], [
      "a,b,c,d",
      /four numbers/
    ]] as const) {
      const r = await api.get(`/v1/projects?bbox=${box}`)
      isErrorBody(r, "VALIDATION_ERROR")
      assert.strictEqual(r.status, 400)
      assert.strictEqual(r.body.error.details[0].field, "query.bbox")
      assert.match(r.body.error.details[0].message, words)
    }
  })

  it("overlap_policy reject: PUT /v1/account sets it, an overlapping create is a 409 and stores nothing", async () => {
    const api = client(server.url, (await server.newAccount()).token)
    assert.strictEqual((await api.get("/v1/account")).body.data.overlap_policy, "warn")
    const bad = await api.put("/v1/account", { overlap_policy: "sometimes" })
    isErrorBody(bad, "VALIDATION_ERROR")
    assert.strictEqual(bad.body.error.details[0].field, "overlap_policy")
    const set = await api.put("/v1/account", { overlap_policy: "reject" })
    assert.deepStrictEqual([set.status, set.body.data.overlap_policy], [200, "reject"])
    const first = (await api.post("/v1/projects", { name: "First", geometry: rect(8, 45, 8.01, 45.01) })).body.data
    const refused = await api.post("/v1/projects", { name: "Second", geometry: rect(8.005, 45, 8.015, 45.01) })
    isErrorBody(refused, "CONFLICT")
    assert.strictEqual(refused.status, 409)
    assert.include(refused.body.error.message, first.id)
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, 1)
    assert.strictEqual((await api.put("/v1/account", { overlap_policy: "warn" })).body.data.overlap_policy, "warn")
    const warned = await api.post("/v1/projects", { name: "Second", geometry: rect(8.005, 45, 8.015, 45.01) })
    assert.strictEqual(warned.status, 201)
    assert.strictEqual(warned.body.data.overlaps.overlaps[0].project_id, first.id)
  })

  it("large boundaries are compared off the event loop: two 3,000-position circles", async () => {
    const api = client(server.url, (await server.newAccount()).token)
    const a = (await api.post("/v1/projects", { name: "Big A", geometry: circle(3_000, 3, 40, 0.05) })).body.data
    let longest = 0
    let last = performance.now()
    const probe = setInterval(() => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
    }, 5)
    const b = await api.post("/v1/projects", { name: "Big B", geometry: circle(3_000, 3.05, 40, 0.05) })
    clearInterval(probe)
    assert.strictEqual(b.status, 201, b.text)
    const [o] = b.body.data.overlaps.overlaps
    assert.strictEqual(o.project_id, a.id)
    // two equal circles whose centres are one radius apart share (2π/3 − √3/2) r², about 39.1% of each
    assert.closeTo(o.overlap_hectares / a.area_hectares, (2 * Math.PI / 3 - Math.sqrt(3) / 2) / Math.PI, 0.01)
    assert.isBelow(longest, 250, `the test process's own loop (and the server's, which is this process) was held ${longest.toFixed(0)} ms`)
  })

  it("a comparison that cannot finish in time leaves the report incomplete: two hostile 24,000-position stars are answered in about 2 s", async () => {
    const api = client(server.url, (await server.newAccount()).token)
    const star = (positions: number, phase: number): Geometry.Polygon => {
      const n = positions - 1
      const ring = Array.from({ length: n }, (_, i) => {
        const t = (2 * Math.PI * (i + phase)) / n
        const r = i % 2 === 0 ? 0.2 : 0.0002
        return [30 + r * Math.cos(t), 10 + r * Math.sin(t)] as const
      })
      return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
    }
    const first = await api.post("/v1/projects", { name: "Star one", geometry: star(24_000, 0) })
    assert.strictEqual(first.status, 201, first.text)
    const t0 = performance.now()
    const second = await api.post("/v1/projects", { name: "Star two", geometry: star(24_000, 0.5) })
    const took = performance.now() - t0
    assert.strictEqual(second.status, 201, second.text)
    assert.isFalse(second.body.data.overlaps.complete, "the comparison did not finish before the write's deadline")
    assert.deepStrictEqual(second.body.data.overlaps.overlaps, [])
    assert.isBelow(took, 3_500, `answered in ${took.toFixed(0)} ms`)
  })
})
