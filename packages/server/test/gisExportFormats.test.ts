/**
 * Zipped Shapefile and GeoPackage exports over a real socket, on SQLite and PostgreSQL: one
 * project and a filtered list, each re-imported through `POST /v1/projects/import` to the same
 * hectares within 1e-9 (a Polygon, a MultiPolygon, a polygon with holes); a list past the byte
 * cap says it is truncated, in its headers and in the file, and its `next_cursor` gives the rest.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { Geometry } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { strFromU8, unzipSync } from "fflate"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import initSqlJs from "sql.js"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { EXPORT_MAX_BYTES_ENV } from "../src/api/gis.ts"
import { exportPool } from "../src/gis/exportOffload.ts"
import { type RunningServer, serve } from "../src/index.ts"
import { HOLED, NORTH, SOUTH, squareWithHole } from "./gis/fixtures.ts"
import { isErrorBody, request } from "./harness.ts"

const FORMATS = {
  shapefile: { mediaType: "application/zip", extension: "zip" },
  geopackage: { mediaType: "application/geopackage+sqlite3", extension: "gpkg" }
} as const
type Format = keyof typeof FORMATS

const BOUNDARIES: ReadonlyArray<readonly [string, Geometry.Boundary]> = [
  ["Nördlich", NORTH as unknown as Geometry.Boundary],
  ["Pair", { type: "MultiPolygon", coordinates: [SOUTH.coordinates, HOLED.coordinates] } as unknown as Geometry.Boundary],
  ["Ring", squareWithHole(8.3, 48.3, 0.04) as unknown as Geometry.Boundary]
]
const areaOf = (geometry: unknown) => Geometry.areaHectares(geometry as Geometry.Boundary)

/** A GET answering bytes. */
const download = async (url: string, token: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) }
}

/** What a list export's file says of itself. */
const noteOf = async (format: Format, bytes: Uint8Array): Promise<string> => {
  if (format === "shapefile") return strFromU8(unzipSync(bytes)["canopy_export.txt"]!)
  const db = new (await initSqlJs()).Database(bytes)
  const rows = db.exec("SELECT key, value FROM canopy_export ORDER BY key DESC")[0]!.values
  db.close()
  return rows.map(([k, v]) => `${String(k)}: ${v ?? ""}\n`).join("")
}

const suite = (store: string, open: () => Promise<{ running: RunningServer; close: () => Promise<void> }>) =>
  describe(`Shapefile and GeoPackage exports (${store})`, () => {
    let server: { running: RunningServer; close: () => Promise<void> }
    let n = 0
    const account = async () => {
      const b = await server.running.canopy.bootstrap({ account_name: `Exports ${++n}`, email: `exports${n}@example.com`, plan: "enterprise" })
      const token = b.api_key.token
      const created: Array<{ id: string; name: string; geometry: unknown }> = []
      for (const [name, geometry] of BOUNDARIES) {
        const r = await request(server.running.url, "POST", "/v1/projects", { token, json: { name, geometry } })
        assert.strictEqual(r.status, 201, r.text)
        created.push(r.body.data)
      }
      return { token, created }
    }
    const reimport = async (token: string, format: Format, bytes: Uint8Array, name: string) => {
      const r = await request(server.running.url, "POST", `/v1/projects/import?name=${encodeURIComponent(name)}`,
        { token, body: bytes, headers: { "content-type": FORMATS[format].mediaType } })
      assert.strictEqual(r.status, 201, r.text)
      return r.body.data as { geometry: unknown; area_hectares: number }
    }
    beforeAll(async () => {
      server = await open()
    }, 60_000)
    afterAll(() => server?.close())

    for (const format of Object.keys(FORMATS) as Array<Format>) {
      it(`${format}: each project alone re-imports to the same hectares`, async () => {
        const { token, created } = await account()
        for (const p of created) {
          const file = await download(`${server.running.url}/v1/projects/${p.id}/export?format=${format}`, token)
          assert.strictEqual(file.status, 200)
          assert.strictEqual(file.headers.get("content-type"), FORMATS[format].mediaType)
          assert.strictEqual(file.headers.get("content-length"), String(file.bytes.length))
          assert.match(file.headers.get("content-disposition")!, new RegExp(`^attachment; filename="[a-z-]+\\.${FORMATS[format].extension}"$`))
          const again = await reimport(token, format, file.bytes, `${p.name} again`)
          assert.strictEqual((again.geometry as { type: string }).type, (p.geometry as { type: string }).type)
          assert.closeTo(areaOf(again.geometry), areaOf(p.geometry), 1e-9)
        }
        assert.isAtLeast(exportPool().stats().jobs, 3) // built in the export workers, off the event loop
      })

      it(`${format}: the list re-imports to the same hectares and says it is complete`, async () => {
        const { token, created } = await account()
        const file = await download(`${server.running.url}/v1/projects/export?format=${format}&sort=name`, token)
        assert.strictEqual(file.status, 200)
        assert.strictEqual(file.headers.get("x-total-count"), "3")
        assert.strictEqual(file.headers.get("x-canopy-truncated"), "false")
        assert.isNull(file.headers.get("x-canopy-next-cursor"))
        assert.match(file.headers.get("content-disposition")!, new RegExp(`filename="projects\\.${FORMATS[format].extension}"`))
        assert.strictEqual(await noteOf(format, file.bytes), "truncated: false\nnext_cursor: \n")
        const all = await reimport(token, format, file.bytes, "Everything")
        const expected = created.reduce((sum, p) => sum + areaOf(p.geometry), 0)
        assert.closeTo(areaOf(all.geometry), expected, 1e-9)
      })

      it(`${format}: a list past the byte cap says truncated, and its next_cursor gives the rest`, async () => {
        const { token, created } = await account()
        // each project's text is shorter than its GeoJSON Feature: two fit under the sum of two Features, three do not
        const features = await Promise.all(created.slice(0, 2).map(async (p) => (await download(`${server.running.url}/v1/projects/${p.id}/export`, token)).bytes.length))
        process.env[EXPORT_MAX_BYTES_ENV] = String(features[0]! + features[1]!)
        try {
          const first = await download(`${server.running.url}/v1/projects/export?format=${format}&sort=name&order=asc`, token)
          assert.strictEqual(first.status, 200)
          assert.strictEqual(first.headers.get("x-canopy-truncated"), "true")
          const cursor = first.headers.get("x-canopy-next-cursor")!
          assert.isString(cursor)
          assert.strictEqual(await noteOf(format, first.bytes), `truncated: true\nnext_cursor: ${cursor}\n`)
          const head = await reimport(token, format, first.bytes, "First two")
          assert.closeTo(areaOf(head.geometry), areaOf(created[0]!.geometry) + areaOf(created[1]!.geometry), 1e-9)
          const rest = await download(`${server.running.url}/v1/projects/export?format=${format}&sort=name&order=asc&cursor=${encodeURIComponent(cursor)}`, token)
          assert.strictEqual(rest.headers.get("x-canopy-truncated"), "false")
          const tail = await reimport(token, format, rest.bytes, "The rest")
          assert.closeTo(areaOf(tail.geometry), areaOf(created[2]!.geometry), 1e-9)
        } finally {
          delete process.env[EXPORT_MAX_BYTES_ENV]
        }
      })
    }

    it("another account's project is a 404 with the spec's body; an unknown format a 400", async () => {
      const mine = await account()
      const other = await account()
      const r = await request(server.running.url, "GET", `/v1/projects/${mine.created[0]!.id}/export?format=geopackage`, { token: other.token })
      assert.strictEqual(r.status, 404)
      assert.isTrue(isErrorBody(r, "NOT_FOUND"))
      const bad = await request(server.running.url, "GET", "/v1/projects/export?format=gpkg", { token: mine.token })
      assert.strictEqual(bad.status, 400)
      assert.isTrue(isErrorBody(bad, "VALIDATION_ERROR"))
    })
  })

suite("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-exports-"))
  const running = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "canopy.db"), log: false, dispatcher: false })
  return { running, close: async () => { await running.close(); rmSync(dir, { recursive: true, force: true }) } }
})

suite("PostgreSQL", async () => {
  const scope = await Effect.runPromise(Scope.make())
  const url = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
  const running = await serve({ port: 0, host: "127.0.0.1", storage: postgresStorage({ url }), log: false, dispatcher: false })
  return { running, close: async () => { await running.close(); await Effect.runPromise(Scope.close(scope, Exit.void)) } }
})
