/**
 * Vector tiles over a real socket on SQLite and PostgreSQL: a tile holds the account's projects
 * with their properties (never another account's), a tile elsewhere holds none, the ETag answers
 * 304 until a write to one of the tile's projects, a tile past the cap holds points, and a bad
 * address is a 400 naming the parameter.
 */
import { VectorTile } from "@mapbox/vector-tile"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { PbfReader } from "pbf"
import { MAX_BOUNDARIES, MAX_BOUNDARY_TEXT } from "../src/api/tiles.ts"
import type { RunningServer } from "../src/index.ts"
import { client, isErrorBody, request } from "@canopy/server/testing"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

const rect = (w: number, s: number, e: number, n: number) => ({ type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] })

/** The XYZ tile holding a point at a zoom. */
const tileOf = (lon: number, lat: number, z: number) => {
  const n = 2 ** z
  const r = (lat * Math.PI) / 180
  return { z, x: Math.floor(((lon + 180) / 360) * n), y: Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n) }
}

/** A tile fetched with a token: status, headers, and its layers decoded. */
const fetchTile = async (url: string, token: string, t: { z: number; x: number; y: number }, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/v1/tiles/${t.z}/${t.x}/${t.y}.mvt`, { headers: { authorization: `Bearer ${token}`, ...headers } })
  const bytes = new Uint8Array(await res.arrayBuffer())
  const layers: Record<string, Array<{ properties: Record<string, unknown>; type: number; rings: number }>> = {}
  if (res.status === 200) {
    const vt = new VectorTile(new PbfReader(bytes))
    for (const [name, layer] of Object.entries(vt.layers)) {
      layers[name] = Array.from({ length: layer.length }, (_, i) => {
        const f = layer.feature(i)
        return { properties: f.properties as Record<string, unknown>, type: f.type, rings: f.loadGeometry().length }
      })
    }
  }
  return { status: res.status, headers: res.headers, bytes, layers }
}

const suite = (store: string, open: () => Promise<StoreServer>) =>
  describe(`vector tiles (${store})`, () => {
    let server: { running: RunningServer; close: () => Promise<void> }
    let n = 0
    const account = async () => {
      const b = await server.running.canopy.bootstrap({ account_name: `Tiles ${++n}`, email: `tiles${n}@example.com`, plan: "enterprise" })
      return { token: b.api_key.token, api: client(server.running.url, b.api_key.token) }
    }
    beforeAll(async () => {
      server = await open()
    }, 60_000)
    afterAll(() => server?.close())

    it("a tile holds the account's projects with their properties, not another account's; a tile elsewhere none; ETag, 304 and invalidation", async () => {
      const url = server.running.url
      const mine = await account()
      const theirs = await account()
      const oak = (await mine.api.post("/v1/projects", { name: "Oak stand", geometry: rect(5.01, 45.01, 5.03, 45.02) })).body.data
      const beech = (await mine.api.post("/v1/projects", { name: "Beech stand", status: "draft", geometry: rect(5.04, 45.01, 5.05, 45.03) })).body.data
      await mine.api.post("/v1/projects", { name: "Far away", geometry: rect(-60, -10, -59.99, -9.99) })
      await theirs.api.post("/v1/projects", { name: "Neighbour's stand", geometry: rect(5.01, 45.01, 5.03, 45.02) })
      const t = tileOf(5.03, 45.02, 10)

      const first = await fetchTile(url, mine.token, t)
      assert.strictEqual(first.status, 200)
      assert.match(first.headers.get("content-type") ?? "", /^application\/vnd\.mapbox-vector-tile/)
      assert.strictEqual(first.headers.get("x-tile-mode"), "boundaries")
      const shown = (first.layers.projects ?? []).map((f) => f.properties).sort((a, b) => String(a.name).localeCompare(String(b.name)))
      assert.deepStrictEqual(shown, [
        { id: beech.id, name: "Beech stand", status: "draft", area_hectares: beech.area_hectares },
        { id: oak.id, name: "Oak stand", status: "active", area_hectares: oak.area_hectares }
      ])
      assert.isTrue(first.layers.projects!.every((f) => f.type === 3 && f.rings === 1), "polygons, one ring each")

      const theirTile = await fetchTile(url, theirs.token, t)
      assert.deepStrictEqual(theirTile.layers.projects!.map((f) => f.properties.name), ["Neighbour's stand"])
      const elsewhere = await fetchTile(url, mine.token, tileOf(100, 10, 10))
      assert.strictEqual(elsewhere.status, 200)
      assert.deepStrictEqual(Object.keys(elsewhere.layers), [])

      const etag = first.headers.get("etag")!
      assert.match(etag, /^"[\w-]+"$/)
      const again = await fetchTile(url, mine.token, t, { "if-none-match": etag })
      assert.strictEqual(again.status, 304)
      assert.strictEqual(again.bytes.length, 0)
      assert.strictEqual(again.headers.get("etag"), etag)
      // another account's write changes nothing of this tile
      await theirs.api.post("/v1/projects", { name: "Another", geometry: rect(5.06, 45.01, 5.07, 45.02) })
      assert.strictEqual((await fetchTile(url, mine.token, t, { "if-none-match": etag })).status, 304)

      assert.strictEqual((await mine.api.put(`/v1/projects/${oak.id}`, { name: "Old oak stand" })).status, 200)
      const changed = await fetchTile(url, mine.token, t, { "if-none-match": etag })
      assert.strictEqual(changed.status, 200)
      assert.notStrictEqual(changed.headers.get("etag"), etag)
      assert.includeMembers(changed.layers.projects!.map((f) => f.properties.name), ["Old oak stand", "Beech stand"])
      assert.strictEqual((await mine.api.post(`/v1/projects/${beech.id}/archive`)).status, 200)
      assert.strictEqual((await mine.api.del(`/v1/projects/${beech.id}`)).status, 204)
      const afterDelete = await fetchTile(url, mine.token, t, { "if-none-match": changed.headers.get("etag")! })
      assert.strictEqual(afterDelete.status, 200)
      assert.deepStrictEqual(afterDelete.layers.projects!.map((f) => f.properties.name), ["Old oak stand"])
    })

    it(`past ${MAX_BOUNDARIES} projects a tile holds their boxes' centres as points`, async () => {
      const mine = await account()
      const count = MAX_BOUNDARIES + 5
      const side = 18
      for (let start = 0; start < count; start += 8) {
        await Promise.all(Array.from({ length: Math.min(8, count - start) }, (_, k) => {
          const i = start + k
          const w = 20.005 + (i % side) * 0.015
          const s = 50.005 + Math.floor(i / side) * 0.008
          return mine.api.post("/v1/projects", { name: `Stand ${i}`, geometry: rect(w, s, w + 0.01, s + 0.005) }).then((r) =>
            assert.strictEqual(r.status, 201, r.text)
          )
        }))
      }
      const t = tileOf(20.1, 50.05, 9)
      const tile = await fetchTile(server.running.url, mine.token, t)
      assert.strictEqual(tile.status, 200)
      assert.strictEqual(tile.headers.get("x-tile-mode"), "points")
      assert.isUndefined(tile.layers.projects)
      const points = tile.layers.projects_points!
      assert.strictEqual(points.length, count)
      assert.isTrue(points.every((f) => f.type === 1 && typeof f.properties.id === "string" && f.properties.status === "active"))
      // zoomed in, a tile of a few of them draws boundaries again
      const close = await fetchTile(server.running.url, mine.token, tileOf(20.006, 50.006, 14))
      assert.strictEqual(close.headers.get("x-tile-mode"), "boundaries")
      assert.include(close.layers.projects!.map((f) => f.properties.name), "Stand 0")
    }, 120_000)

    it(`a boundary whose text passes the tile's ${MAX_BOUNDARY_TEXT / 1024} KiB is a point; the others of the tile are drawn`, async () => {
      const mine = await account()
      // 40,000 positions at full precision: about 1.5 MB of text
      const n = 40_000
      const ring = Array.from({ length: n }, (_, i) => {
        const a = (2 * Math.PI * i) / n
        return [40.05 + 0.02 * Math.cos(a), -20.05 + 0.015 * Math.sin(a)]
      })
      const big = await mine.api.post("/v1/projects", { name: "Surveyed estate", geometry: { type: "Polygon", coordinates: [[...ring, ring[0]]] } })
      assert.strictEqual(big.status, 201, big.text.slice(0, 300))
      await mine.api.post("/v1/projects", { name: "Small stand", geometry: rect(40.0, -20.06, 40.01, -20.05) })
      const t = await fetchTile(server.running.url, mine.token, tileOf(40.05, -20.05, 10))
      assert.strictEqual(t.headers.get("x-tile-mode"), "boundaries")
      assert.deepStrictEqual(t.layers.projects?.map((f) => f.properties.name), ["Small stand"])
      assert.deepStrictEqual(t.layers.projects_points!.map((f) => f.properties.name), ["Surveyed estate"])
      assert.strictEqual((await fetchTile(server.running.url, mine.token, tileOf(40.05, -20.05, 10), { "if-none-match": t.headers.get("etag")! })).status, 304)
    }, 120_000)

    it("a bad address is a 400 naming the parameter; no token is a 401", async () => {
      const { token } = await account()
      const url = server.running.url
      for (const [path, field] of [["23/0/0", "path.z"], ["x/0/0", "path.z"], ["10/1024/0", "path.x"], ["10/-1/0", "path.x"], ["10/0/1024", "path.y"], [
        "1/0/1.5",
        "path.y"
      ]] as const) {
        const r = await request(url, "GET", `/v1/tiles/${path}.mvt`, { token })
        assert.strictEqual(r.status, 400, path)
        assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"), r.text)
        assert.strictEqual(r.body.error.details[0].field, field, path)
      }
      assert.strictEqual((await request(url, "GET", "/v1/tiles/0/0/0")).status, 404, "the extension is part of the path")
      assert.strictEqual((await request(url, "GET", "/v1/tiles/0/0/0.mvt")).status, 401)
    })
  })

for (const [store, open] of serverOnEachStore) suite(store, open)
