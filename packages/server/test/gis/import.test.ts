/**
 * importBoundary over fixtures made at test time with known geodesic areas (fixtures.ts): every
 * supported format, reprojection, merging, and inputs that must give problems (never throw).
 */
import { Geometry } from "@canopy/core"
import { strToU8, zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { importBoundary, type ImportResult, type ImportSuccess } from "../../src/gis/index.ts"
import { BOWTIE, geopackage, HOLED, hectares, kml, kmz, NORTH, shapefileZip, SOUTH, square, toUtm32n, utf8, UTM32N_PRJ, withoutPrj,
  zipBomb } from "./fixtures.ts"

const ok = (r: ImportResult): ImportSuccess => {
  if (!r.ok) throw new Error(`expected an import, got problems: ${JSON.stringify(r.problems)}`)
  expect(Geometry.validate(r.geometry)).toEqual([])
  expect(r.areaHectares).toBe(Geometry.areaHectares(r.geometry))
  return r
}
const problemsOf = (r: ImportResult) => {
  if (r.ok) throw new Error(`expected problems, got an import of ${r.areaHectares} ha`)
  expect(r.problems.length).toBeGreaterThan(0)
  for (const p of r.problems) {
    expect(typeof p.field).toBe("string")
    expect(typeof p.message).toBe("string")
  }
  return r.problems
}
const json = (v: unknown) => utf8(JSON.stringify(v))

/** Reprojection tolerance: proj4's UTM forward then inverse moves a position by far less than 1 mm. */
const REPROJECTED_HA = 1e-6

describe("GeoJSON", () => {
  it("reads a bare geometry, a Feature and a FeatureCollection to the same area", async () => {
    const expected = hectares(NORTH)
    expect(expected).toBeGreaterThan(70)
    for (const value of [NORTH, { type: "Feature", properties: { name: "North" }, geometry: NORTH }, { type: "FeatureCollection",
      features: [{ type: "Feature", properties: {}, geometry: NORTH }] }]) {
      const r = ok(await importBoundary(json(value), { mediaType: "application/geo+json" }))
      expect(r.format).toBe("geojson")
      expect(r.geometry.type).toBe("Polygon")
      expect(Math.abs(r.areaHectares - expected)).toBeLessThan(1e-6)
      expect(r.sourceCrs).toBe("EPSG:4326")
    }
  })

  it("merges several polygons into one MultiPolygon and skips points with a warning", async () => {
    const fc = {
      type: "FeatureCollection",
      features: [
        { type: "Feature", properties: { name: "North" }, geometry: NORTH },
        { type: "Feature", properties: { name: "Gate" }, geometry: { type: "Point", coordinates: [8.1, 48.1] } },
        { type: "Feature", properties: { name: "South+Holed" }, geometry: { type: "MultiPolygon", coordinates: [SOUTH.coordinates, HOLED.coordinates] } }
      ]
    }
    const r = ok(await importBoundary(json(fc), { filename: "stands.geojson" }))
    expect(r.geometry.type).toBe("MultiPolygon")
    expect(r.geometry.coordinates).toHaveLength(3)
    expect(r.features).toBe(2)
    expect(Math.abs(r.areaHectares - hectares(NORTH, SOUTH, HOLED))).toBeLessThan(1e-6)
    expect(r.warnings.join(" ")).toMatch(/ignored 1 point/)
  })

  it("applies RFC 7946 winding (a clockwise exterior ring is reversed)", async () => {
    const clockwise = { type: "Polygon", coordinates: [[...NORTH.coordinates[0]!].reverse()] }
    const r = ok(await importBoundary(json(clockwise), {}))
    expect(r.geometry.coordinates[0]).toEqual(NORTH.coordinates[0])
  })

  it("reprojects a legacy crs member naming EPSG:3857", async () => {
    const merc = (x: number, y: number) => [x * 20037508.342789244 / 180, Math.log(Math.tan((90 + y) * Math.PI / 360)) * 6378137]
    const ring = NORTH.coordinates[0]!.map(([x, y]) => merc(x, y))
    const value = { type: "Feature", crs: { type: "name", properties: { name: "urn:ogc:def:crs:EPSG::3857" } }, properties: {},
      geometry: { type: "Polygon", coordinates: [ring] } }
    const r = ok(await importBoundary(json(value), {}))
    expect(r.sourceCrs).toBe("EPSG:3857")
    expect(Math.abs(r.areaHectares - hectares(NORTH))).toBeLessThan(REPROJECTED_HA)
  })

  it("refuses a file of points only, an unknown crs and malformed JSON", async () => {
    const points = problemsOf(await importBoundary(json({ type: "Point", coordinates: [8, 48] }), {}))
    expect(points[0]!.message).toMatch(/no polygon found/)
    const crs = problemsOf(await importBoundary(json({ ...NORTH, crs: { type: "name", properties: { name: "EPSG:999999" } } }), {}))
    expect(crs[0]!.message).toMatch(/coordinate reference system/)
    const bad = problemsOf(await importBoundary(utf8("{\"type\": \"Polygon\", "), {}))
    expect(bad[0]).toMatchObject({ field: "file" })
    expect(bad[0]!.message).toMatch(/not valid JSON/)
  })

  it("gives the validator's path and message for an invalid polygon, with the feature it came from", async () => {
    const fc = {
      type: "FeatureCollection",
      features: [
        { type: "Feature", properties: { name: "North" }, geometry: NORTH },
        { type: "Feature", properties: { name: "Bad" }, geometry: { type: "Polygon", coordinates: [[[8, 48], [8.01, 48], [8.01, 95], [8, 48]]] } }
      ]
    }
    const problems = problemsOf(await importBoundary(json(fc), {}))
    const expected = Geometry.validate({ type: "MultiPolygon", coordinates: [NORTH.coordinates, fc.features[1]!.geometry.coordinates] })
    expect(expected.length).toBeGreaterThan(0)
    expect(problems.map(({ field, message }) => ({ field, message }))).toEqual(expected)
    expect(problems[0]).toMatchObject({ field: "geometry.coordinates[1][0][2][1]", source: "feature 2 \"Bad\"" })
  })

  it("refuses more than MAX_POSITIONS positions", async () => {
    const n = Geometry.MAX_POSITIONS + 1
    const ring = Array.from({ length: n }, (_, i) => [8 + 0.01 * Math.cos(2 * Math.PI * i / n), 48 + 0.01 * Math.sin(2 * Math.PI * i / n)])
    ring.push(ring[0]!)
    const problems = problemsOf(await importBoundary(json({ type: "Polygon", coordinates: [ring] }), {}))
    expect(problems[0]!.field).toBe("geometry.coordinates")
    expect(problems[0]!.message).toMatch(/at most 100000/)
  })
})

describe("KML and KMZ", () => {
  it("reads a KML (altitudes, folders, a point placemark) to the known area", async () => {
    const text = kml([{ name: "North & co", polygon: NORTH }, { name: "Holed", polygon: HOLED }], { withPoint: true })
    const r = ok(await importBoundary(utf8(text), { filename: "stands.kml" }))
    expect(r.format).toBe("kml")
    expect(r.geometry.type).toBe("MultiPolygon")
    expect(r.features).toBe(2)
    expect(Math.abs(r.areaHectares - hectares(NORTH, HOLED))).toBeLessThan(1e-6)
    expect(r.warnings.join(" ")).toMatch(/ignored 1 point/)
  })

  it("reads a KMZ", async () => {
    const r = ok(await importBoundary(kmz(kml([{ name: "South", polygon: SOUTH }])), { mediaType: "application/vnd.google-earth.kmz" }))
    expect(r.format).toBe("kmz")
    expect(r.geometry.type).toBe("Polygon")
    expect(Math.abs(r.areaHectares - hectares(SOUTH))).toBeLessThan(1e-6)
  })

  it("gives the validator's path and message for a self-intersecting polygon", async () => {
    const r = await importBoundary(utf8(kml([{ name: "Bow tie", polygon: BOWTIE }])), { filename: "bowtie.kml" })
    const problems = problemsOf(r)
    const expected = Geometry.validate({ type: "Polygon", coordinates: BOWTIE.coordinates.map((ring) => ring.map(([x, y]) => [x, y, 0])) })
    expect(expected.length).toBeGreaterThan(0)
    expect(expected[0]!.message).toMatch(/intersect/i)
    expect(problems.map(({ field, message }) => ({ field, message }))).toEqual(expected)
    expect(problems[0]!.field).toMatch(/^geometry\.coordinates\[0\]/)
    expect(problems[0]!.source).toBe("feature 1 \"Bow tie\"")
  })

  it("refuses XML with a DOCTYPE (entity expansion), XML that is not KML, and broken XML", async () => {
    const laughs =
      `<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><kml><Document><name>&b;</name></Document></kml>`
    expect(problemsOf(await importBoundary(utf8(laughs), {}))[0]!.message).toMatch(/DOCTYPE/)
    expect(problemsOf(await importBoundary(utf8("<gpx><trk/></gpx>"), {}))[0]!.message).toMatch(/not a KML document/)
    expect(problemsOf(await importBoundary(utf8("<kml><Document></kml>"), {}))[0]!.message).toMatch(/not well-formed XML/)
  })
})

describe("zipped Shapefile", () => {
  it("reads a WGS84 Shapefile to the known area", async () => {
    const zip = await shapefileZip([{ name: "North", polygon: NORTH }, { name: "Holed", polygon: HOLED }])
    const r = ok(await importBoundary(zip, { filename: "stands.zip", mediaType: "application/zip" }))
    expect(r.format).toBe("shapefile")
    expect(r.sourceCrs).toBe("EPSG:4326")
    expect(r.features).toBe(2)
    expect(Math.abs(r.areaHectares - hectares(NORTH, HOLED))).toBeLessThan(1e-6)
  })

  it("reprojects a Shapefile in UTM zone 32N with its .prj", async () => {
    const zip = await shapefileZip([{ name: "North", polygon: toUtm32n(NORTH) }, { name: "Holed", polygon: toUtm32n(HOLED) }], { prj: UTM32N_PRJ })
    const r = ok(await importBoundary(zip, { filename: "stands_utm.zip" }))
    expect(r.sourceCrs).toBe("WGS_1984_UTM_Zone_32N")
    expect(r.warnings.join(" ")).toMatch(/reprojected from WGS_1984_UTM_Zone_32N/)
    expect(Math.abs(r.areaHectares - hectares(NORTH, HOLED))).toBeLessThan(REPROJECTED_HA)
    // The positions come back where they started, within a micro-degree (< 0.1 m).
    const first = r.geometry.type === "MultiPolygon" ? r.geometry.coordinates[0]![0]![0]! : r.geometry.coordinates[0]![0]!
    expect(Math.abs(first[0] - 8.1) + Math.abs(first[1] - 48.1)).toBeLessThan(1e-6)
  })

  it("takes a Shapefile without .prj as WGS84 with a warning; refuses an unreadable .prj", async () => {
    const zip = await withoutPrj(await shapefileZip([{ name: "South", polygon: SOUTH }]))
    const r = ok(await importBoundary(zip, {}))
    expect(r.warnings.join(" ")).toMatch(/no \.prj/)
    expect(Math.abs(r.areaHectares - hectares(SOUTH))).toBeLessThan(1e-6)
    const bad = await shapefileZip([{ name: "South", polygon: SOUTH }], { prj: "PROJCS[\"nonsense\",FOO[1]]" })
    expect(problemsOf(await importBoundary(bad, {}))[0]!.message).toMatch(/coordinate reference system of stands\.prj/)
  })

  it("refuses a projected Shapefile without .prj: the validator reports longitudes out of range", async () => {
    const zip = await withoutPrj(await shapefileZip([{ name: "North", polygon: toUtm32n(NORTH) }]))
    const problems = problemsOf(await importBoundary(zip, {}))
    expect(problems[0]!.field).toMatch(/^geometry\.coordinates\[0\]\[\d+\]\[0\]$/)
    expect(problems[0]!.message).toMatch(/outside \[-180, 180\]/)
  })
})

describe("GeoPackage", () => {
  it("reads a GeoPackage in EPSG:4326 to the known area", async () => {
    const bytes = await geopackage([{ name: "North", geometry: NORTH }, { name: "Holed", geometry: HOLED }])
    const r = ok(await importBoundary(bytes, { filename: "stands.gpkg" }))
    expect(r.format).toBe("geopackage")
    expect(r.sourceCrs).toBe("EPSG:4326")
    expect(r.features).toBe(2)
    expect(Math.abs(r.areaHectares - hectares(NORTH, HOLED))).toBeLessThan(1e-6)
  })

  it("reprojects a GeoPackage in EPSG:32632", async () => {
    const bytes = await geopackage([{ name: "South", geometry: toUtm32n(SOUTH) }], { id: 32632, organization: "EPSG", definition: UTM32N_PRJ })
    const r = ok(await importBoundary(bytes, { mediaType: "application/geopackage+sqlite3" }))
    expect(r.sourceCrs).toBe("EPSG:32632")
    expect(Math.abs(r.areaHectares - hectares(SOUTH))).toBeLessThan(REPROJECTED_HA)
  })

  it("gives the validator's path and message for an invalid polygon, named from the table's name column", async () => {
    const bytes = await geopackage([{ name: "North", geometry: NORTH }, { name: "Bow tie", geometry: BOWTIE }])
    const problems = problemsOf(await importBoundary(bytes, { filename: "stands.gpkg" }))
    const expected = Geometry.validate({ type: "MultiPolygon", coordinates: [NORTH.coordinates, BOWTIE.coordinates] })
    expect(expected.length).toBeGreaterThan(0)
    expect(problems.map(({ field, message }) => ({ field, message }))).toEqual(expected)
    expect(problems[0]).toMatchObject({ source: "feature 2 \"Bow tie\"" })
  })

  it("refuses a SQLite database that is not a GeoPackage", async () => {
    const { default: initSqlJs } = await import("sql.js")
    const SQL = await initSqlJs()
    const db = new SQL.Database()
    db.run("CREATE TABLE t (a)")
    const bytes = db.export()
    db.close()
    expect(problemsOf(await importBoundary(bytes, {}))[0]!.message).toMatch(/not a GeoPackage/)
  })
})

describe("refusals (never a throw)", () => {
  it("an empty file", async () => {
    expect(problemsOf(await importBoundary(new Uint8Array(0), {}))).toEqual([{ field: "file", message: "the file is empty" }])
  })

  it("a file over the byte limit", async () => {
    const problems = problemsOf(await importBoundary(json(NORTH), {}, { limits: { maxBytes: 50 } }))
    expect(problems[0]!.message).toMatch(/at most 50 are allowed/)
  })

  it("a wrong format: PNG bytes, a PDF, a lone .shp, a hint contradicting the content", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
    expect(problemsOf(await importBoundary(png, { filename: "map.png" }))[0]!.message).toMatch(/unsupported format/)
    expect(problemsOf(await importBoundary(utf8("%PDF-1.7\n"), { mediaType: "application/pdf" }))[0]!.message).toMatch(/unsupported format/)
    expect(problemsOf(await importBoundary(new Uint8Array(200), { filename: "stands.shp" }))[0]!.message).toMatch(/upload the Shapefile as a \.zip/)
    const zip = await shapefileZip([{ name: "North", polygon: NORTH }])
    expect(problemsOf(await importBoundary(zip, { filename: "stands.kml" }))[0]!.message).toBe(
      "the file name \"stands.kml\" says kml, but the content is a zip archive"
    )
  })

  it("something that starts like a zip but is not one", async () => {
    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...utf8("this is not really a zip archive at all")])
    expect(problemsOf(await importBoundary(bytes, { filename: "stands.zip" }))[0]!.message).toMatch(/not a readable zip archive/)
  })

  it("a zip with neither .kml nor .shp, and one with too many entries", async () => {
    expect(problemsOf(await importBoundary(zipSync({ "readme.txt": utf8("hello") }), {}))[0]!.message).toMatch(/neither a \.kml/)
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.kml`, utf8("<kml/>")]))
    expect(problemsOf(await importBoundary(zipSync(many), {}))[0]!.message).toMatch(/more than 100 entries/)
  })

  it("a zip bomb: a KMZ whose document inflates past the limit is refused without inflating it", async () => {
    const bomb = await zipBomb("doc.kml", 101 * 1024 * 1024) // zeros: deflates to ~100 KB
    expect(bomb.length).toBeLessThan(1024 * 1024)
    // The same construction, small: a well-formed zip that is inflated, its zeros then refused as XML
    // (so the big one below is refused for its size, not for being a corrupt zip).
    const small = problemsOf(await importBoundary(await zipBomb("doc.kml", 4096), { filename: "small.kmz" }))
    expect(small[0]!.message).toMatch(/not well-formed XML|not a KML document/)
    const problems = problemsOf(await importBoundary(bomb, { filename: "bomb.kmz" }))
    expect(problems[0]!.message).toMatch(/inflates? to 105906176 bytes; at most \d+/)
  })

  it("a zip that lies about its entry's size inflates no more than it declares", async () => {
    // The polygon comes after 200,000 bytes of padding: only what the zip declares is inflated.
    const text = kml([{ name: "North", polygon: NORTH }]).replace("<Folder>", `<Folder>${" ".repeat(200_000)}`)
    const honest = zipSync({ "doc.kml": strToU8(text) })
    expect(Math.abs(ok(await importBoundary(honest, { filename: "honest.kmz" })).areaHectares - hectares(NORTH))).toBeLessThan(1e-6)
    const liar = honest.slice()
    // Rewrite the declared uncompressed size (local header at 22, central directory entry at +24) to 1,000 bytes.
    const view = new DataView(liar.buffer, liar.byteOffset, liar.byteLength)
    view.setUint32(22, 1000, true)
    let cd = liar.length - 22
    while (view.getUint32(cd, true) !== 0x02014b50) cd--
    view.setUint32(cd + 24, 1000, true)
    const problems = problemsOf(await importBoundary(liar, { filename: "liar.kmz" }))
    expect(problems[0]!.field).toBe("file")
    expect(problems[0]!.message).toMatch(/not well-formed XML|not a readable zip/)
  })
})

describe("merging", () => {
  it("refuses polygons of several features that overlap, naming both", async () => {
    const fc = {
      type: "FeatureCollection",
      features: [
        { type: "Feature", properties: { name: "A" }, geometry: NORTH },
        { type: "Feature", properties: { name: "B" }, geometry: square(8.105, 48.105, 0.01) }
      ]
    }
    const problems = problemsOf(await importBoundary(json(fc), {}))
    const expected = Geometry.validate({ type: "MultiPolygon", coordinates: [NORTH.coordinates, square(8.105, 48.105, 0.01).coordinates] })
    expect(expected.length).toBeGreaterThan(0)
    expect(problems.map(({ field, message }) => ({ field, message }))).toEqual(expected)
  })
})
