/**
 * GIS files in and out over the API, over a real socket: import a KML and a
 * zipped Shapefile (fixtures of known geodesic hectares), an invalid file (422 with the
 * validator's paths, nothing stored), replace a boundary, export one project and a filtered list
 * as GeoJSON and KML, the export round trip, permissions and tenant isolation.
 */
import { Geometry, Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { MAX_EXPORT_PROJECTS } from "../src/api/gis.ts"
import { importPool } from "../src/gis/offload.ts"
import { BOWTIE, hectares, HOLED, kml, kmz, NORTH, shapefileZip, SOUTH, toUtm32n, UTM32N_PRJ, utf8 } from "./gis/fixtures.ts"
import { isErrorBody, request, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
let token: string
let accountId: string

beforeAll(async () => {
  server = await startTestServer()
  ;({ accountId, token } = await server.newAccount("enterprise"))
}, 60_000)

afterAll(async () => {
  await server?.stop()
})

const KML_TYPE = "application/vnd.google-earth.kml+xml"

const upload = (method: "POST" | "PUT", path: string, bytes: Uint8Array, contentType: string, as = token, headers: Record<string, string> = {}) =>
  request(server.url, method, path, { token: as, body: bytes, headers: { "content-type": contentType, ...headers } })

const get = (path: string, as = token) => request(server.url, "GET", path, { token: as })

/** The unrounded geodesic area of a stored boundary. */
const areaOf = (geometry: unknown) => Geometry.areaHectares(geometry as Geometry.Boundary)

const count = async () => (await get("/v1/projects")).body.meta.total as number

describe("POST /v1/projects/import", () => {
  it("creates a project from a KML file (two placemarks: a MultiPolygon) with the expected hectares", async () => {
    const file = utf8(kml([{ name: "North block", polygon: NORTH }, { name: "South block", polygon: SOUTH }], { withPoint: true }))
    const r = await upload("POST", "/v1/projects/import?name=Black%20Forest%20stands&description=From%20GPS", file, KML_TYPE)
    assert.strictEqual(r.status, 201, r.text)
    const p = r.body.data
    assert.strictEqual(p.name, "Black Forest stands")
    assert.strictEqual(p.description, "From GPS")
    assert.strictEqual(p.geometry.type, "MultiPolygon")
    const expected = hectares(NORTH, SOUTH)
    assert.closeTo(p.area_hectares, expected, 1e-4) // the API rounds to 4 decimals
    assert.closeTo(areaOf(p.geometry), expected, 1e-9)
    // stored as any project: it reads back the same, and its event was written
    const again = await get(`/v1/projects/${p.id}`)
    const { overlaps: _overlaps, ...stored } = p // a write's answer also reports overlaps
    assert.deepStrictEqual(again.body.data, stored)
    const events = (await get("/v1/events?per_page=100")).body.data as Array<{ type: string; data: { id?: string } }>
    assert.isTrue(events.some((e) => e.type === "project.created" && JSON.stringify(e.data).includes(p.id)))
  })

  it("creates a project from a KMZ and from a zipped Shapefile in UTM 32N (reprojected) with the expected hectares", async () => {
    const fromKmz = await upload("POST", "/v1/projects/import?name=KMZ", kmz(kml([{ name: "Holed", polygon: HOLED }])), "application/vnd.google-earth.kmz")
    assert.strictEqual(fromKmz.status, 201, fromKmz.text)
    assert.closeTo(areaOf(fromKmz.body.data.geometry), hectares(HOLED), 1e-9)

    const zip = await shapefileZip([{ name: "North", polygon: toUtm32n(NORTH) }], { prj: UTM32N_PRJ })
    const r = await upload("POST", "/v1/projects/import?name=Shapefile%20stand&status=draft", zip, "application/zip")
    assert.strictEqual(r.status, 201, r.text)
    assert.strictEqual(r.body.data.status, "draft")
    assert.strictEqual(r.body.data.geometry.type, "Polygon")
    // UTM → WGS84 through proj4: well below a square metre on a 1 km² block
    assert.closeTo(r.body.data.area_hectares, hectares(NORTH), 1e-4)
    assert.closeTo(areaOf(r.body.data.geometry), hectares(NORTH), 1e-6)
    // zips are read off the event loop, in the import pool's worker threads
    assert.isAtLeast(importPool().stats().workers, 1)
  })

  it("an invalid file answers 422 with the validator's paths, and nothing is stored", async () => {
    const before = await count()
    const bowtie = utf8(JSON.stringify({ type: "Feature", properties: { name: "Crossed" }, geometry: BOWTIE }))
    const r = await upload("POST", "/v1/projects/import?name=Bad", bowtie, "application/geo+json")
    assert.strictEqual(r.status, 422, r.text)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"), r.text)
    const fields = (r.body.error.details as Array<{ field: string; message: string }>).map((d) => d.field)
    assert.isTrue(fields.some((f) => f.startsWith("geometry.coordinates[0]")), JSON.stringify(r.body.error.details))
    assert.include(JSON.stringify(r.body.error.details), "Crossed")

    const garbage = await upload("POST", "/v1/projects/import?name=Bad", utf8("<kml><Document>"), KML_TYPE)
    assert.strictEqual(garbage.status, 422, garbage.text)
    assert.strictEqual(garbage.body.error.details[0].field, "file")

    const empty = await upload("POST", "/v1/projects/import?name=Bad", new Uint8Array(), KML_TYPE)
    assert.strictEqual(empty.status, 422, empty.text)

    // a hint of another family than the content is a problem, not a guess
    const mislabelled = await upload("POST", "/v1/projects/import?name=Bad", utf8(kml([{ name: "N", polygon: NORTH }])), "application/zip")
    assert.strictEqual(mislabelled.status, 422, mislabelled.text)

    // a media type that is no GIS format, and a missing name: 400 before the file is read
    const wrongType = await upload("POST", "/v1/projects/import?name=Bad", bowtie, "text/plain")
    assert.strictEqual(wrongType.status, 400, wrongType.text)
    assert.strictEqual(wrongType.body.error.details[0].field, "content-type")
    const noName = await upload("POST", "/v1/projects/import", utf8(kml([{ name: "N", polygon: NORTH }])), KML_TYPE)
    assert.strictEqual(noName.status, 400, noName.text)
    assert.isTrue(noName.body.error.details.some((d: { field: string }) => d.field.startsWith("query.name")), noName.text)

    assert.strictEqual(await count(), before)
  })

  it("honours Idempotency-Key like POST /v1/projects", async () => {
    const file = utf8(kml([{ name: "N", polygon: NORTH }]))
    const headers = { "idempotency-key": "gis-import-1" }
    const first = await upload("POST", "/v1/projects/import?name=Once", file, KML_TYPE, token, headers)
    const second = await upload("POST", "/v1/projects/import?name=Once", file, KML_TYPE, token, headers)
    assert.strictEqual(first.status, 201)
    assert.strictEqual(second.status, 201)
    assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
    assert.strictEqual(second.body.data.id, first.body.data.id)
  })
})

describe("PUT /v1/projects/{id}/boundary", () => {
  it("replaces the boundary from a file; an invalid file leaves it as it was", async () => {
    const created = await upload("POST", "/v1/projects/import?name=Replace%20me", utf8(kml([{ name: "N", polygon: NORTH }])), KML_TYPE)
    const id = created.body.data.id as string
    const zip = await shapefileZip([{ name: "Holed", polygon: toUtm32n(HOLED) }], { prj: UTM32N_PRJ })
    const r = await upload("PUT", `/v1/projects/${id}/boundary`, zip, "application/zip")
    assert.strictEqual(r.status, 200, r.text)
    assert.closeTo(areaOf(r.body.data.geometry), hectares(HOLED), 1e-6)
    assert.strictEqual(r.body.data.name, "Replace me")

    const bad = await upload("PUT", `/v1/projects/${id}/boundary`, utf8(JSON.stringify(BOWTIE)), "application/json")
    assert.strictEqual(bad.status, 422, bad.text)
    assert.deepStrictEqual((await get(`/v1/projects/${id}`)).body.data.geometry, r.body.data.geometry)
  })
})

describe("export", () => {
  it("one project as GeoJSON and KML, as attachments", async () => {
    const created = await upload("POST", "/v1/projects/import?name=Export%20%26%20me", utf8(kml([{ name: "N", polygon: NORTH }])), KML_TYPE)
    const p = created.body.data
    const geo = await get(`/v1/projects/${p.id}/export`)
    assert.strictEqual(geo.status, 200, geo.text)
    assert.match(geo.headers.get("content-type")!, /^application\/geo\+json/)
    assert.match(geo.headers.get("content-disposition")!, /^attachment; filename="export-me\.geojson"$/)
    assert.strictEqual(geo.body.type, "FeatureCollection")
    assert.strictEqual(geo.body.features.length, 1)
    assert.strictEqual(geo.body.features[0].id, p.id)
    assert.strictEqual(geo.body.features[0].properties.name, "Export & me")
    assert.deepStrictEqual(geo.body.features[0].geometry, p.geometry)

    const k = await get(`/v1/projects/${p.id}/export?format=kml`)
    assert.strictEqual(k.status, 200, k.text)
    assert.match(k.headers.get("content-type")!, /^application\/vnd\.google-earth\.kml\+xml/)
    assert.match(k.headers.get("content-disposition")!, /filename="export-me\.kml"/)
    assert.include(k.text, "<name>Export &amp; me</name>")
    assert.include(k.text, "<Polygon>")

    const bad = await get(`/v1/projects/${p.id}/export?format=shp`)
    assert.strictEqual(bad.status, 400)
    assert.isTrue(isErrorBody(bad, "VALIDATION_ERROR"))
  })

  it("a filtered list as GeoJSON and KML; exported GeoJSON and KML re-import to the same area within 1e-9 ha", async () => {
    const { token: own } = await server.newAccount("enterprise")
    const shapes = { Alder: NORTH, Birch: SOUTH, Cedar: HOLED }
    const ids: Record<string, string> = {}
    for (const [name, polygon] of Object.entries(shapes)) {
      const r = await upload("POST", `/v1/projects/import?name=${name}`, utf8(kml([{ name, polygon }])), KML_TYPE, own)
      assert.strictEqual(r.status, 201, r.text)
      ids[name] = r.body.data.id
    }
    await request(server.url, "POST", `/v1/projects/${ids.Cedar}/archive`, { token: own })

    const active = await get("/v1/projects/export?status=active&sort=name", own)
    assert.strictEqual(active.status, 200, active.text)
    assert.match(active.headers.get("content-disposition")!, /filename="projects\.geojson"/)
    assert.strictEqual(active.headers.get("x-total-count"), "2")
    // the end of the file says it holds the whole list (no header can: it is streamed)
    assert.isNull(active.headers.get("content-length"))
    assert.strictEqual(active.body.truncated, false)
    assert.isNull(active.body.next_cursor)
    assert.deepStrictEqual(active.body.features.map((f: { properties: { name: string } }) => f.properties.name), ["Alder", "Birch"])

    const searched = await get("/v1/projects/export?search=ceda&format=kml", own)
    assert.strictEqual(searched.status, 200, searched.text)
    assert.strictEqual((searched.text.match(/<Placemark/g) ?? []).length, 1)
    assert.include(searched.text, "<name>Cedar</name>")
    assert.match(searched.text,
      /<ExtendedData><Data name="truncated"><value>false<\/value><\/Data><Data name="next_cursor"><value><\/value><\/Data><\/ExtendedData><\/Document><\/kml>\n$/)

    const kmlList = await get("/v1/projects/export?format=kml&status=active&search=alder", own)
    const all = await get("/v1/projects/export", own)
    assert.strictEqual(all.body.features.length, 3)

    // Round trip: each exported feature re-imported (as GeoJSON, and the list as KML) keeps its area.
    for (const feature of all.body.features as Array<{ id: string; properties: { name: string }; geometry: unknown }>) {
      const original = (await get(`/v1/projects/${feature.id}`, own)).body.data
      const one = await get(`/v1/projects/${feature.id}/export`, own)
      const again = await upload("POST", `/v1/projects/import?name=${feature.properties.name}%20again`, utf8(one.text), "application/geo+json", own)
      assert.strictEqual(again.status, 201, again.text)
      assert.closeTo(areaOf(again.body.data.geometry), areaOf(original.geometry), 1e-9)
      assert.strictEqual(again.body.data.area_hectares, original.area_hectares)
    }
    const fromKml = await upload("POST", "/v1/projects/import?name=Alder%20from%20KML", utf8(kmlList.text), KML_TYPE, own)
    assert.strictEqual(fromKml.status, 201, fromKml.text)
    assert.closeTo(areaOf(fromKml.body.data.geometry), hectares(NORTH), 1e-9)
    assert.isAtLeast(MAX_EXPORT_PROJECTS, 10_000)
  })
})

describe("permissions and tenant isolation", () => {
  it("a read-only (viewer) credential cannot import or replace a boundary (403) but may export; another account's project is 404", async () => {
    const readOnly = await server.canopy.credentials.create(Principal.system(accountId), "api_key", { name: "viewer", permissions: ["projects:read"] }) as {
      token: string
    }
    const file = utf8(kml([{ name: "N", polygon: NORTH }]))
    const before = await count()
    const refused = await upload("POST", "/v1/projects/import?name=Nope", file, KML_TYPE, readOnly.token)
    assert.strictEqual(refused.status, 403, refused.text)
    assert.isTrue(isErrorBody(refused, "FORBIDDEN"))
    assert.strictEqual(await count(), before)

    const mine = (await upload("POST", "/v1/projects/import?name=Mine", file, KML_TYPE)).body.data
    const replace = await upload("PUT", `/v1/projects/${mine.id}/boundary`, file, KML_TYPE, readOnly.token)
    assert.strictEqual(replace.status, 403, replace.text)
    assert.strictEqual((await get(`/v1/projects/${mine.id}/export`, readOnly.token)).status, 200)

    const other = (await server.newAccount("enterprise")).token
    for (const r of [
      await upload("PUT", `/v1/projects/${mine.id}/boundary`, file, KML_TYPE, other),
      await get(`/v1/projects/${mine.id}/export`, other),
      await get(`/v1/projects/${mine.id}/export?format=kml`, other)
    ]) {
      assert.strictEqual(r.status, 404, r.text)
      assert.isTrue(isErrorBody(r, "NOT_FOUND"))
    }
    assert.strictEqual((await get("/v1/projects/export", other)).body.features.length, 0)
    assert.deepStrictEqual((await get(`/v1/projects/${mine.id}`)).body.data.geometry, mine.geometry)
  })
})
