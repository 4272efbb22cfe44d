/**
 * The binary export writers (zipped Shapefile, GeoPackage) re-imported with importBoundary: the
 * same hectares within 1e-9 for a Polygon, a MultiPolygon and polygons with holes; the files'
 * sidecars, attributes, ring orientation and the list export's note.
 */
import { Geometry } from "@canopy/core"
import { strFromU8, unzipSync } from "fflate"
import initSqlJs from "sql.js"
import { describe, expect, it } from "vitest"
import { toGeoPackage } from "../../src/gis/geopackageWriter.ts"
import { importBoundary } from "../../src/gis/index.ts"
import { type ExportRecord, toShapefileZip, WGS84_PRJ } from "../../src/gis/shapefileWriter.ts"
import { HOLED, NORTH, SOUTH, squareWithHole } from "./fixtures.ts"

const record = (name: string, geometry: Geometry.Boundary | null): ExportRecord => ({
  id: `prj_${name}`,
  name,
  slug: name.toLowerCase(),
  description: `${name} — Fläche`,
  status: "active",
  area_hectares: geometry ? Geometry.areaHectares(geometry) : 0,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-02T00:00:00.000Z",
  geometry
})
const normalized = (g: unknown) => Geometry.normalize(g as Geometry.Boundary)
const BOUNDARIES: ReadonlyArray<readonly [string, Geometry.Boundary]> = [
  ["Polygon", normalized(NORTH)],
  ["MultiPolygon", normalized({ type: "MultiPolygon", coordinates: [SOUTH.coordinates, HOLED.coordinates] })],
  ["polygon with holes", normalized(squareWithHole(8.3, 48.3, 0.04))]
]
const writers = {
  shapefile: (records: ReadonlyArray<ExportRecord>) => Promise.resolve(toShapefileZip(records, { baseName: "stands" })),
  geopackage: (records: ReadonlyArray<ExportRecord>) => toGeoPackage(records)
}

describe("binary exports re-import to the same hectares", () => {
  for (const [format, write] of Object.entries(writers)) {
    for (const [kind, boundary] of BOUNDARIES) {
      it(`${format}: a ${kind}`, async () => {
        const r = await importBoundary(await write([record("Nord", boundary)]), {})
        if (!r.ok) throw new Error(JSON.stringify(r.problems))
        expect(r.format).toBe(format)
        expect(r.geometry.type).toBe(boundary.type)
        expect(Math.abs(r.areaHectares - Geometry.areaHectares(boundary))).toBeLessThan(1e-9)
        expect(r.sourceCrs).toBe("EPSG:4326")
      })
    }
    it(`${format}: several projects, one without a boundary, to their sum`, async () => {
      const records = [record("A", BOUNDARIES[0]![1]), record("Leer", null), record("B", BOUNDARIES[2]![1])]
      const r = await importBoundary(await write(records), {})
      if (!r.ok) throw new Error(JSON.stringify(r.problems))
      expect(r.features).toBe(2)
      expect(Math.abs(r.areaHectares - Geometry.areaHectares(BOUNDARIES[0]![1]) - Geometry.areaHectares(BOUNDARIES[2]![1]))).toBeLessThan(1e-9)
    })
  }
})

describe("the Shapefile's parts", () => {
  const zip = unzipSync(toShapefileZip([record("Nördlich", BOUNDARIES[2]![1])], { baseName: "stands", end: { truncated: true, next_cursor: "abc" } }))

  it("has .shp, .shx, .dbf, a WGS84 .prj, a UTF-8 .cpg and the list's note", () => {
    expect(Object.keys(zip).sort()).toEqual(["canopy_export.txt", "stands.cpg", "stands.dbf", "stands.prj", "stands.shp", "stands.shx"])
    expect(strFromU8(zip["stands.prj"]!)).toBe(WGS84_PRJ)
    expect(strFromU8(zip["stands.cpg"]!)).toBe("UTF-8")
    expect(strFromU8(zip["canopy_export.txt"]!)).toBe("truncated: true\nnext_cursor: abc\n")
  })

  it("writes outer rings clockwise and holes counter-clockwise", () => {
    const shp = new DataView(zip["stands.shp"]!.buffer, zip["stands.shp"]!.byteOffset)
    const at = 100 + 8
    expect(shp.getInt32(at, true)).toBe(5)
    const parts = shp.getInt32(at + 36, true)
    const points = shp.getInt32(at + 40, true)
    expect(parts).toBe(2)
    const starts = [...Array.from({ length: parts }, (_, i) => shp.getInt32(at + 44 + 4 * i, true)), points]
    const signs = starts.slice(0, -1).map((start, p) => {
      let sum = 0
      for (let i = start; i < starts[p + 1]! - 1; i++) {
        const o = at + 44 + 4 * parts + 16 * i
        sum += (shp.getFloat64(o + 16, true) - shp.getFloat64(o, true)) * (shp.getFloat64(o + 24, true) + shp.getFloat64(o + 8, true))
      }
      return Math.sign(sum) // positive: clockwise
    })
    expect(signs).toEqual([1, -1])
  })

  it("stores the attributes in UTF-8 under names the import and GDAL read", () => {
    const dbf = zip["stands.dbf"]!
    const names = Array.from({ length: 8 }, (_, i) => strFromU8(dbf.subarray(32 + 32 * i, 32 + 32 * i + 11)).replace(/\0+$/, ""))
    expect(names).toEqual(["id", "name", "slug", "descriptio", "status", "area_hecta", "created_at", "updated_at"])
    expect(Buffer.from(dbf).includes(Buffer.from("Nördlich", "utf8"))).toBe(true)
  })
})

describe("the GeoPackage's tables", () => {
  it("registers EPSG:4326, the feature table with its attributes, and the list's note", async () => {
    const SQL = await initSqlJs()
    const db = new SQL.Database(await toGeoPackage([record("Nördlich", BOUNDARIES[0]![1])], { end: { truncated: false, next_cursor: null } }))
    expect(db.exec("PRAGMA application_id")[0]!.values[0]![0]).toBe(0x47504b47)
    expect(db.exec("SELECT organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = 4326")[0]!.values).toEqual([["EPSG", 4326]])
    expect(db.exec("SELECT table_name, geometry_type_name, srs_id FROM gpkg_geometry_columns")[0]!.values).toEqual([["projects", "POLYGON", 4326]])
    expect(db.exec("SELECT name, description, status FROM projects")[0]!.values).toEqual([["Nördlich", "Nördlich — Fläche", "active"]])
    expect(db.exec("SELECT key, value FROM canopy_export ORDER BY key")[0]!.values).toEqual([["next_cursor", null], ["truncated", "false"]])
    db.close()
  })
})
