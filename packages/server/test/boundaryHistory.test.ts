/**
 * Boundary history over a real socket on SQLite and PostgreSQL: a create, a file replace and an
 * update each make a version (who, when, via, hectares before and after), listed newest first in
 * cursor pages and read one at a time; a restore brings the hectares back as a normal update (its
 * `project.updated` event) and becomes a version; refused changes (an invalid boundary, the plan's
 * hectares) store none; a version exports through the export writers; a read-only key reads but
 * may not restore; another account gets 404; the history goes with the project.
 */
import { Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { RunningServer } from "../src/index.ts"
import { client, isErrorBody, request, squareAt as square } from "@canopy/server/testing"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

const suite = (store: string, open: () => Promise<StoreServer>) =>
  describe(`boundary history (${store})`, () => {
    let server: StoreServer
    let running: RunningServer
    let n = 0
    /** A fresh free-plan account (1,000 ha): its key, and a read-only key of it. */
    const account = async () => {
      const b = await running.canopy.bootstrap({ account_name: `History ${++n}`, email: `history${n}@example.com`, plan: "free" })
      const reader = await running.canopy.credentials.create(Principal.system(b.account.id), "api_key", { name: "reader", permissions: ["projects:read"] })
      return { api: client(running.url, b.api_key.token), token: b.api_key.token, reader: client(running.url, reader.token), b }
    }
    const versionsOf = async (api: ReturnType<typeof client>, id: string) => {
      const r = await api.get(`/v1/projects/${id}/boundaries?per_page=100`)
      assert.strictEqual(r.status, 200, r.text)
      return (r.body.data as Array<{ version: number }>).map((v) => v.version)
    }

    beforeAll(async () => {
      server = await open()
      running = server.running
    }, 60_000)
    afterAll(() => server?.close())

    it("create, file replace and update make versions (who, when, via, hectares), listed newest first by cursor, read one at a time", async () => {
      const { api, token, b } = await account()
      const created = (await api.post("/v1/projects", { name: "Spruce", geometry: square(10, 50, 0.01) })).body.data
      const file = new TextEncoder().encode(JSON.stringify({ type: "Feature", properties: {}, geometry: square(10, 50, 0.02) }))
      const replaced = await request(running.url, "PUT", `/v1/projects/${created.id}/boundary`, {
        token,
        body: file,
        headers: { "content-type": "application/geo+json" }
      })
      assert.strictEqual(replaced.status, 200, replaced.text)
      const updated = (await api.put(`/v1/projects/${created.id}`, { geometry: square(10, 50, 0.005) })).body.data

      const first = await api.get(`/v1/projects/${created.id}/boundaries?per_page=2`)
      assert.strictEqual(first.status, 200, first.text)
      assert.deepStrictEqual(first.body.data.map((v: any) => [v.version, v.via, v.file_format]), [[3, "update", null], [2, "boundary_file", "geojson"]])
      assert.deepStrictEqual([first.body.meta.total, first.body.meta.has_more, first.body.meta.page], [3, true, 1])
      const [v3, v2] = first.body.data
      assert.deepStrictEqual([v2.area_hectares_before, v2.area_hectares_after], [created.area_hectares, replaced.body.data.area_hectares])
      assert.deepStrictEqual([v3.area_hectares_before, v3.area_hectares_after], [replaced.body.data.area_hectares, updated.area_hectares])
      const key = (await running.canopy.credentials.list(Principal.system(b.account.id), "api_key"))
        .find((c: { name: string }) => c.name !== "reader")
      assert.deepStrictEqual(v3.changed_by, { kind: "api_key", user_id: b.user.id, credential_id: key?.id ?? null })
      assert.isAtMost(Math.abs(Date.parse(v3.created_at) - Date.now()), 60_000)
      assert.notProperty(v3, "geometry")
      const second = await api.get(`/v1/projects/${created.id}/boundaries?per_page=2&cursor=${first.body.meta.next_cursor}`)
      assert.deepStrictEqual(second.body.data.map((v: any) => [v.version, v.via, v.area_hectares_before]), [[1, "create", 0]])
      assert.deepStrictEqual([second.body.meta.has_more, second.body.meta.next_cursor, second.body.meta.page], [false, null, null])

      const one = await api.get(`/v1/projects/${created.id}/boundaries/2`)
      assert.strictEqual(one.status, 200, one.text)
      assert.deepStrictEqual([one.body.data.version, one.body.data.area_hectares_after, one.body.data.bbox], [2, replaced.body.data.area_hectares,
        replaced.body.data.bbox])
      assert.deepStrictEqual(one.body.data.geometry, replaced.body.data.geometry)
      const renamed = await api.put(`/v1/projects/${created.id}`, { name: "Spruce, renamed" })
      assert.strictEqual(renamed.status, 200)
      assert.deepStrictEqual(await versionsOf(api, created.id), [3, 2, 1], "a write leaving the boundary as it was makes no version")
    })

    it("a restore is a normal update: the hectares come back, project.updated is emitted, and it becomes a version", async () => {
      const { api } = await account()
      const p = (await api.post("/v1/projects", { name: "Fir", geometry: square(11, 50, 0.02) })).body.data
      const smaller = (await api.put(`/v1/projects/${p.id}`, { geometry: square(11, 50, 0.01) })).body.data
      assert.isBelow(smaller.area_hectares, p.area_hectares)
      const events = async () => (await api.get("/v1/events?type=project.updated&per_page=100")).body.data as Array<any>
      const before = (await events()).length
      const restored = await api.post(`/v1/projects/${p.id}/boundaries/1/restore`)
      assert.strictEqual(restored.status, 200, restored.text)
      assert.deepStrictEqual([restored.body.data.area_hectares, restored.body.data.geometry], [p.area_hectares, p.geometry])
      assert.strictEqual((await api.get(`/v1/projects/${p.id}`)).body.data.area_hectares, p.area_hectares)
      const after = await events()
      assert.strictEqual(after.length, before + 1)
      assert.strictEqual(after[0].data.area_hectares, p.area_hectares)
      const newest = (await api.get(`/v1/projects/${p.id}/boundaries?per_page=1`)).body.data[0]
      assert.deepStrictEqual([newest.version, newest.via, newest.restored_from, newest.area_hectares_before, newest.area_hectares_after], [3, "version_restore",
        1, smaller.area_hectares, p.area_hectares])
    })

    it("refused changes store no version: an invalid boundary (422), a restore over the plan's hectares", async () => {
      const { api } = await account()
      // free plan: 1,000 ha; 0.026° squares at 50°N are about 540 ha
      const big = (await api.post("/v1/projects", { name: "Big", geometry: square(12, 50, 0.026) })).body.data
      await api.put(`/v1/projects/${big.id}`, { geometry: square(12, 50, 0.005) })
      const other = await api.post("/v1/projects", { name: "Other", geometry: square(13, 50, 0.026) })
      assert.strictEqual(other.status, 201, other.text)
      const invalid = await api.put(`/v1/projects/${big.id}`, { geometry: { type: "Polygon", coordinates: [[[12, 50], [12.1, 50], [12, 50]]] } })
      assert.strictEqual(invalid.status, 422)
      assert.isTrue(isErrorBody(invalid, "VALIDATION_ERROR"))
      const over = await api.post(`/v1/projects/${big.id}/boundaries/1/restore`)
      assert.strictEqual(over.status, 403, over.text)
      assert.isTrue(isErrorBody(over, over.body.error.code))
      assert.deepStrictEqual(await versionsOf(api, big.id), [2, 1])
      const now = (await api.get(`/v1/projects/${big.id}`)).body.data
      assert.deepStrictEqual(now.geometry, square(12, 50, 0.005))
    })

    it("a version exports in every format through the export writers; each file re-imports to its hectares (recorded as an import)", async () => {
      const { api, token } = await account()
      const p = (await api.post("/v1/projects", { name: "Birch", geometry: square(15, 50, 0.006) })).body.data
      await api.put(`/v1/projects/${p.id}`, { geometry: square(15, 50, 0.003) })
      const types = { geojson: "application/geo+json", kml: "application/vnd.google-earth.kml+xml", shapefile: "application/zip",
        geopackage: "application/geopackage+sqlite3" }
      for (const [format, mediaType] of Object.entries(types)) {
        const res = await fetch(`${running.url}/v1/projects/${p.id}/boundaries/1/export?format=${format}`, { headers: { authorization: `Bearer ${token}` } })
        assert.strictEqual(res.status, 200, format)
        assert.match(res.headers.get("content-disposition") ?? "", /filename="birch-v1\.\w+"/)
        const bytes = new Uint8Array(await res.arrayBuffer())
        const back = await request(running.url, "POST", `/v1/projects/import?name=${format}`, { token, body: bytes, headers: { "content-type": mediaType } })
        assert.strictEqual(back.status, 201, back.text)
        assert.closeTo(back.body.data.area_hectares, p.area_hectares, 0.001, format)
        const v1 = (await api.get(`/v1/projects/${back.body.data.id}/boundaries`)).body.data
        assert.deepStrictEqual(v1.map((v: any) => [v.version, v.via, v.file_format]), [[1, "import", format]])
      }
      assert.strictEqual((await api.get(`/v1/projects/${p.id}/boundaries/9/export`)).status, 404)
    })

    it("a read-only key reads the history but may not restore; another account and unknown versions get 404; gone with the project", async () => {
      const { api, reader } = await account()
      const stranger = (await account()).api
      const p = (await api.post("/v1/projects", { name: "Larch", geometry: square(14, 50, 0.01) })).body.data
      assert.deepStrictEqual(await versionsOf(reader, p.id), [1])
      assert.strictEqual((await reader.get(`/v1/projects/${p.id}/boundaries/1`)).status, 200)
      const refused = await reader.post(`/v1/projects/${p.id}/boundaries/1/restore`)
      assert.strictEqual(refused.status, 403)
      assert.isTrue(isErrorBody(refused, "FORBIDDEN"))
      for (const path of [`/boundaries`, `/boundaries/1`]) {
        const r = await stranger.get(`/v1/projects/${p.id}${path}`)
        assert.strictEqual(r.status, 404)
        assert.isTrue(isErrorBody(r, "NOT_FOUND"))
      }
      const theirs = await stranger.post(`/v1/projects/${p.id}/boundaries/1/restore`)
      assert.strictEqual(theirs.status, 404)
      for (const v of ["2", "0", "abc"]) assert.strictEqual((await api.get(`/v1/projects/${p.id}/boundaries/${v}`)).status, 404)
      const badCursor = await api.get(`/v1/projects/${p.id}/boundaries?cursor=nope`)
      assert.strictEqual(badCursor.status, 400)
      assert.strictEqual(badCursor.body.error.details[0].field, "query.cursor")
      assert.strictEqual((await api.get(`/v1/projects/${p.id}`)).body.data.area_hectares, p.area_hectares, "nothing changed")
      await api.post(`/v1/projects/${p.id}/archive`)
      assert.deepStrictEqual(await versionsOf(api, p.id), [1], "an archived project keeps its history")
      assert.strictEqual((await api.del(`/v1/projects/${p.id}`)).status, 204)
      assert.strictEqual((await api.get(`/v1/projects/${p.id}/boundaries`)).status, 404)
    })
  })

for (const [store, open] of serverOnEachStore) suite(store, open)
