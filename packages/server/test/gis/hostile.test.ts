/**
 * importBoundary over the hostile corpus (hostileCorpus.ts): every file is refused with a problem
 * naming its cause, in well under a second, before the reader does the work the file asks for.
 */
import { Geometry } from "@canopy/core"
import { Effect } from "effect"
import { unzipSync, zipSync } from "fflate"
import proj4 from "proj4"
import initSqlJs from "sql.js"
import { describe, expect, it } from "vitest"
import { type ImportHint, type ImportLimits, type ImportProblem, type ImportSuccess, importBoundary, toKml } from "../../src/gis/index.ts"
import { makeImportPool } from "../../src/gis/offload.ts"
import { geopackage, hectares, kml, kmz, NORTH, shapefileZip, SOUTH, square, utf8, UTM32N, UTM32N_PRJ } from "./fixtures.ts"
import { handMadeZip, hostileFiles, lyingDbfShapefile } from "./hostileCorpus.ts"

/** Each refusal must come this fast (measured: a few ms to ~100 ms on a busy 2-core machine). */
const REFUSAL_MS = 500

describe("hostile files are refused quickly, naming the cause", () => {
  for (const file of hostileFiles) {
    it(`${file.name}: ${file.description}`, async () => {
      const bytes = await file.bytes()
      const started = performance.now()
      const result = await importBoundary(bytes, { filename: file.name })
      const elapsed = performance.now() - started
      if (result.ok) throw new Error(`${file.name} was imported (${result.areaHectares} ha)`)
      expect(result.problems[0]).toMatchObject({ field: file.expect.field })
      expect(result.problems[0]!.message).toMatch(file.expect.problem)
      expect(elapsed).toBeLessThan(REFUSAL_MS)
    })
  }
})

const problemOf = async (bytes: Uint8Array, hint: ImportHint = {}, limits?: Partial<ImportLimits>): Promise<ImportProblem> => {
  const r = await importBoundary(bytes, hint, limits ? { limits } : undefined)
  if (r.ok) throw new Error(`expected a refusal, got an import of ${r.areaHectares} ha`)
  return r.problems[0]!
}
const imported = async (bytes: Uint8Array, hint: ImportHint = {}, limits?: Partial<ImportLimits>): Promise<ImportSuccess> => {
  const r = await importBoundary(bytes, hint, limits ? { limits } : undefined)
  if (!r.ok) throw new Error(`expected an import, got ${JSON.stringify(r.problems)}`)
  return r
}

describe("KML: markup checked before parsing", () => {
  const north = kml([{ name: "North", polygon: NORTH }])

  it("accepts the words <!DOCTYPE and <!ENTITY inside CDATA and comments; refuses a DOCTYPE after them", async () => {
    const quoted = north.replace("<Folder>", "<Folder><description><![CDATA[<!DOCTYPE html><p>&nbsp;</p>]]></description><!-- <!ENTITY x 'y'> -->")
    expect(Math.abs((await imported(utf8(quoted))).areaHectares - hectares(NORTH))).toBeLessThan(1e-6)
    const declared = quoted.replace("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?xml version=\"1.0\"?><!-- ]]> --><!DOCTYPE kml [<!ENTITY a \"b\">]>")
    expect((await problemOf(utf8(declared))).message).toMatch(/DOCTYPE/)
  })

  it("counts elements, attributes, comments and end tags against maxXmlElements, and the document against maxXmlBytes", async () => {
    // The fixture's text holds no "=" outside its tags: each is an attribute (the XML declaration's too).
    const nodes = (north.match(/<[^/!]/g) ?? []).length + (north.match(/=/g) ?? []).length
    await imported(utf8(north), {}, { maxXmlElements: nodes })
    expect(await problemOf(utf8(north), {}, { maxXmlElements: nodes - 1 })).toMatchObject({
      field: "file",
      message: `the KML document has more than ${nodes - 1} XML elements, attributes and comments; at most ${nodes - 1} are read`
    })
    const limits = { maxXmlElements: 40 }
    expect((await problemOf(utf8(`<kml>${"</a>".repeat(50)}</kml>`), {}, limits)).message).toMatch(/more than 40 XML elements/)
    expect((await problemOf(utf8(`<kml><a ${Array.from({ length: 40 }, (_, i) => `x${i}="="`).join(" ")}/></kml>`), {}, limits)).message).toMatch(
      /more than 40 XML elements/
    )
    expect((await problemOf(utf8(`<kml>${"<!-- x -->".repeat(40)}</kml>`), {}, limits)).message).toMatch(/more than 40 XML elements/)
    expect((await problemOf(utf8(`<kml><a ${Array.from({ length: 257 }, (_, i) => `x${i}='1'`).join(" ")}/></kml>`))).message)
      .toBe("the KML element at character 5 has more than 256 attributes")
    expect((await problemOf(utf8(`<kml><a x="<b/>"/></kml>`))).message).toBe("not well-formed XML (a \"<\" inside the tag at character 5)")
    expect((await problemOf(utf8(north), {}, { maxXmlBytes: 100 })).message).toMatch(/at most 100 are read/)
    // A KMZ's document is measured by its declared size, before it is inflated.
    expect((await problemOf(kmz(north), {}, { maxXmlBytes: 100 })).message).toMatch(/"doc\.kml" inflates to \d+ bytes; at most 100 of KML are read/)
  })

  it("reads a 10,000-placemark KMZ as Canopy exports it within the default limits, in an import worker with its default budgets", async () => {
    const projects = Array.from({ length: 10_000 }, (_, i) => ({
      id: `proj_${i}`,
      name: `Stand ${i}`,
      slug: `stand-${i}`,
      status: "active",
      area_hectares: 1,
      description: "oak",
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      geometry: square(8 + (i % 100) * 0.001, 48 + Math.floor(i / 100) * 0.001, 0.0005) as unknown as Geometry.Boundary
    }))
    const pool = makeImportPool({ workers: 1 })
    try {
      const r = await Effect.runPromise(pool.read(kmz(toKml(projects)), { filename: "export.kmz" }, "account"))
      expect(r.ok && r.features).toBe(10_000)
    } finally {
      await pool.close()
    }
  }, 60_000)
})

describe("zip: one listing per name", () => {
  it("refuses a name listed twice, with different case too, in a KMZ and in a zipped Shapefile", async () => {
    const doc = utf8(kml([{ name: "North", polygon: NORTH }]))
    expect((await problemOf(handMadeZip([{ name: "doc.kml", data: doc }, { name: "DOC.KML", data: doc }], [0, 1]))).message)
      .toBe("the zip archive lists \"DOC.KML\" more than once")
    const shapes = unzipSync(await shapefileZip([{ name: "North", polygon: NORTH }]))
    const files = Object.entries(shapes).map(([name, data]) => ({ name, data }))
    const shp = files.findIndex((f) => f.name.endsWith(".shp"))
    expect((await problemOf(handMadeZip(files, [...files.keys(), shp]))).message).toMatch(/lists ".*\.shp" more than once/)
    expect(Math.abs((await imported(handMadeZip(files, [...files.keys()]))).areaHectares - hectares(NORTH))).toBeLessThan(1e-6)
  })
})

describe("GeoJSON crs: EPSG codes only", () => {
  const withCrs = (name: string, ring = NORTH.coordinates[0]!) =>
    utf8(JSON.stringify({ type: "Polygon", crs: { type: "name", properties: { name } }, coordinates: [ring] }))

  it("refuses a proj string and a WKT definition on crs, naming what is read", async () => {
    for (const name of [UTM32N, UTM32N_PRJ]) {
      const problem = await problemOf(withCrs(name))
      expect(problem.field).toBe("crs")
      expect(problem.message).toMatch(/only EPSG codes are read/)
    }
  })

  it("reads the EPSG code in its URN and URI forms, and CRS84 as WGS84", async () => {
    const merc = NORTH.coordinates[0]!.map(([x, y]) => proj4("EPSG:4326", "EPSG:3857", [x, y]) as [number, number])
    for (const name of ["EPSG:3857", "urn:ogc:def:crs:EPSG::3857", "urn:ogc:def:crs:EPSG:6.18:3857", "http://www.opengis.net/def/crs/EPSG/0/3857"]) {
      const r = await imported(withCrs(name, merc))
      expect(r.sourceCrs).toBe("EPSG:3857")
      expect(Math.abs(r.areaHectares - hectares(NORTH))).toBeLessThan(1e-6)
    }
    // Coordinates nested deeper than any geometry's are left for the validator, not walked.
    const deep = utf8(`{"type":"Polygon","crs":{"type":"name","properties":{"name":"EPSG:3857"}},"coordinates":${"[".repeat(200_000)}1${"]".repeat(200_000)}}`)
    expect(await problemOf(deep)).toMatchObject({ field: "geometry.coordinates[0][0]" })
    const r = await imported(withCrs("urn:ogc:def:crs:OGC:1.3:CRS84"))
    expect(r.sourceCrs).toBe("EPSG:4326")
    expect(r.warnings).toEqual([])
  })
})

/** The zipped Shapefile's files with `edit` applied to the bytes of the one whose name ends in `ext`. */
const editShapefile = async (ext: string, edit: (view: DataView) => void, features = [{ name: "North", polygon: NORTH }]): Promise<Uint8Array> => {
  const files = unzipSync(await shapefileZip(features))
  const name = Object.keys(files).find((n) => n.endsWith(ext))!
  const bytes = files[name]!.slice()
  edit(new DataView(bytes.buffer))
  return zipSync({ ...files, [name]: bytes })
}

describe("Shapefile: headers checked against the bytes present", () => {
  it("refuses a .dbf declaring one record more than it holds, or records shorter than its fields", async () => {
    expect((await problemOf(await editShapefile(".dbf", (v) => v.setUint32(4, 2, true)))).message).toMatch(
      /stands\.dbf declares 2 records of \d+ bytes, more than its \d+ bytes hold/
    )
    expect((await problemOf(await editShapefile(".dbf", (v) => v.setUint16(10, 1, true)))).message).toMatch(
      /stands\.dbf declares 1-byte records, shorter than its 1 fields/
    )
    expect((await problemOf(lyingDbfShapefile(2), {}, { maxFeatures: 1 })).message).toBe("x.dbf declares 2 records; at most 1 features are read")
  })

  it("counts .shp records against maxFeatures and polygon positions against MAX_POSITIONS before shpjs reads them", async () => {
    const two = [{ name: "North", polygon: NORTH }, { name: "South", polygon: SOUTH }]
    expect((await problemOf(await editShapefile(".dbf", () => {}, two), {}, { maxFeatures: 1 })).message).toMatch(/stands\.shp holds more than 1 records/)
    expect((await problemOf(await editShapefile(".shp", (v) => v.setInt32(100 + 8 + 40, Geometry.MAX_POSITIONS + 1, true)))).message)
      .toMatch(new RegExp(`stands\\.shp holds polygons of more than ${Geometry.MAX_POSITIONS} positions`))
    expect((await problemOf(await editShapefile(".shp", (v) => v.setInt32(100 + 4, 1)))).message).toMatch(
      /stands\.shp: record 1 has an invalid length \(2 bytes\)/
    )
    const longPrj = await shapefileZip([{ name: "North", polygon: NORTH }], { prj: `${UTM32N_PRJ}${" ".repeat(70_000)}` })
    expect((await problemOf(longPrj)).message).toMatch(/stands\.prj has \d+ bytes; at most 65536 are read/)
  })
})

/** A fixture GeoPackage (North, in EPSG:4326) with `statements` run on it. */
const alteredGeoPackage = async (...statements: ReadonlyArray<string>): Promise<Uint8Array> => {
  const SQL = await initSqlJs()
  const db = new SQL.Database(await geopackage([{ name: "North", geometry: NORTH }]))
  try {
    for (const s of statements) db.run(s)
    return db.export()
  } finally {
    db.close()
  }
}

describe("GeoPackage: only stored data is read", () => {
  it("refuses gpkg_contents as a view and a generated CRS definition", async () => {
    expect((await problemOf(await alteredGeoPackage("DROP TABLE gpkg_contents", "CREATE VIEW gpkg_contents AS SELECT 'stands' AS table_name"))).message)
      .toBe("the GeoPackage's gpkg_contents is a view, not a table; it is not read")
    const generated = await alteredGeoPackage(
      "ALTER TABLE gpkg_spatial_ref_sys RENAME COLUMN definition TO stored",
      "ALTER TABLE gpkg_spatial_ref_sys ADD COLUMN definition TEXT GENERATED ALWAYS AS (printf('%.*c', 300000000, 'x')) VIRTUAL"
    )
    expect((await problemOf(generated)).message).toMatch(/gpkg_spatial_ref_sys: column "definition" is a generated column/)
  })

  it("skips a feature table that is a view (with a warning) and a generated name column (features numbered only)", async () => {
    const view = await alteredGeoPackage(
      "CREATE VIEW stands_view AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i AS fid, NULL AS geom FROM r",
      "INSERT INTO gpkg_geometry_columns VALUES ('stands_view', 'geom', 'POLYGON', 4326, 0, 0)"
    )
    const r = await imported(view)
    expect(r.warnings.join(" ")).toMatch(/stands_view: a view, not a table; views are not read/)
    expect(Math.abs(r.areaHectares - hectares(NORTH))).toBeLessThan(1e-6)
    const named = await alteredGeoPackage(
      "ALTER TABLE stands RENAME COLUMN name TO label",
      "ALTER TABLE stands ADD COLUMN name TEXT GENERATED ALWAYS AS (printf('%.*c', 300000000, 'x')) VIRTUAL"
    )
    const started = performance.now()
    expect((await imported(named)).features).toBe(1)
    expect(performance.now() - started).toBeLessThan(REFUSAL_MS)
  })
})
