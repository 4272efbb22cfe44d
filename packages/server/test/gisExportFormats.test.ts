/**
 * Zipped Shapefile and GeoPackage exports over a real socket, on SQLite and PostgreSQL: one
 * project and a filtered list, each re-imported through `POST /v1/projects/import` to the same
 * hectares within 1e-9 (a Polygon, a MultiPolygon, a polygon with holes); a list past the byte
 * cap says it is truncated, in its headers and in the file, and its `next_cursor` gives the rest.
 */
import { Geometry } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { strFromU8, unzipSync } from "fflate"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import initSqlJs from "sql.js"
import { EXPORT_MAX_BYTES_ENV } from "../src/api/gis.ts"
import { exportPool } from "../src/gis/exportOffload.ts"
import { toGeoPackage } from "../src/gis/geopackageWriter.ts"
import { importBoundary } from "../src/gis/index.ts"
import { type ExportRecord, toShapefileZip } from "../src/gis/shapefileWriter.ts"
import { type RunningServer, serve } from "../src/index.ts"
import { HOLED, NORTH, SOUTH, squareWithHole } from "./gis/fixtures.ts"
import { isErrorBody, request } from "@canopy/server/testing"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

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

const suite = (store: string, open: () => Promise<StoreServer>) =>
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
      const r = await request(server.running.url, "POST", `/v1/projects/import?name=${encodeURIComponent(name)}`, { token, body: bytes,
        headers: { "content-type": FORMATS[format].mediaType } })
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
        const features = await Promise.all(
          created.slice(0, 2).map(async (p) => (await download(`${server.running.url}/v1/projects/${p.id}/export`, token)).bytes.length)
        )
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
          const rest = await download(`${server.running.url}/v1/projects/export?format=${format}&sort=name&order=asc&cursor=${encodeURIComponent(cursor)}`,
            token)
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

for (const [store, open] of serverOnEachStore) suite(store, open)

describe("a large binary list export is built off the event loop", () => {
  const ring = (k: number, positions: number): Geometry.Boundary => {
    const points = Array.from({ length: positions }, (_, i): [number, number] => {
      const a = (2 * Math.PI * i) / positions
      return [10 + (k % 10) * 0.05 + 0.02 * Math.cos(a), 50 + Math.floor(k / 10) * 0.05 + 0.02 * Math.sin(a)]
    })
    return { type: "Polygon", coordinates: [[...points, points[0]!]] } as Geometry.Boundary
  }

  it("12 projects of 5,000 positions: each format reads back to their sum, the loop never held for more than 100 ms", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-exports-big-"))
    const running = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "canopy.db"), log: false, dispatcher: false })
    try {
      const b = await running.canopy.bootstrap({ account_name: "Large", email: "large@example.com", plan: "enterprise" })
      const token = b.api_key.token
      let expected = 0
      for (let k = 0; k < 12; k++) { // 60,000 positions: the import reads at most 100,000
        const geometry = ring(k, 5_000)
        expected += Geometry.areaHectares(geometry)
        const r = await request(running.url, "POST", "/v1/projects", { token, json: { name: `Stand ${k}`, geometry } })
        assert.strictEqual(r.status, 201, r.text)
      }
      // both files first (a re-import's overlap measures would run on the server's loop meanwhile). A busy
      // shared machine delays a probe by itself: up to three runs, one must pass (a build on the loop
      // — the JSON parse and the writer, measured below — would fail every run).
      const files = new Map<Format, Uint8Array>()
      for (const format of Object.keys(FORMATS) as Array<Format>) {
        const turns: Array<number> = []
        for (let run = 0; run < 3 && !(turns.length > 0 && turns.at(-1)! < 100); run++) {
          let worst = 0
          let last = performance.now()
          const probe = setInterval(() => {
            const now = performance.now()
            worst = Math.max(worst, now - last)
            last = now
          }, 5)
          const started = performance.now()
          const file = await download(`${running.url}/v1/projects/export?format=${format}`, token)
          const elapsed = performance.now() - started
          clearInterval(probe)
          assert.strictEqual(file.status, 200)
          console.log(`${format}: ${file.bytes.length} bytes in ${elapsed.toFixed(0)} ms, longest loop turn ${worst.toFixed(1)} ms`)
          turns.push(worst)
          files.set(format, file.bytes)
        }
        assert.isBelow(Math.min(...turns), 100, `longest loop turns: ${turns.map((t) => t.toFixed(0)).join(", ")} ms`)
      }
      const stands = (await request(running.url, "GET", "/v1/projects?per_page=100", { token })).body.data as Array<ExportRecord>
      for (const [format, build] of [["shapefile", () => toShapefileZip(stands, { baseName: "x" })], ["geopackage", () => toGeoPackage(stands)]] as const) {
        await build() // sql.js loaded
        const started = performance.now()
        await build()
        console.log(`${format} built on the loop instead: ${(performance.now() - started).toFixed(0)} ms`)
      }
      // read back by the import's reader (the API's write would also measure 60,000 positions against a 1.5 s deadline)
      for (const [format, bytes] of files) {
        const r = await importBoundary(bytes, { mediaType: FORMATS[format].mediaType })
        if (!r.ok) throw new Error(JSON.stringify(r.problems))
        assert.strictEqual(r.features, 12)
        assert.closeTo(r.areaHectares, expected, 1e-9)
      }
    } finally {
      await running.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})
