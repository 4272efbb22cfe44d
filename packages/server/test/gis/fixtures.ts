/**
 * Test fixtures for the GIS conversion layer, made at test time with the formats' own writers
 * (@mapbox/shp-write for Shapefiles, sql.js + wkx for GeoPackages, fflate for zips) and, for KML,
 * hand-written text. Each boundary's expected area is `Geometry.areaHectares` of the WGS84
 * polygon the fixture was made from. `generate-fixtures.ts` writes them all to a folder.
 */
import { Geometry } from "@canopy/core"
import shpwrite from "@mapbox/shp-write"
import { zipSync } from "fflate"
import proj4 from "proj4"
import initSqlJs from "sql.js"
import wkx from "wkx"
import { type Polygon, squareAt as square } from "@canopy/server/testing"

/** The kit's test boundaries, as the GIS tests name them: `square(lon, lat, side)`. */
export { type Polygon, squareAt as square } from "@canopy/server/testing"

/** A square with a square hole in its middle. */
export const squareWithHole = (lon: number, lat: number, side: number): Polygon => {
  const q = side / 4
  return {
    type: "Polygon",
    coordinates: [
      square(lon, lat, side).coordinates[0]!,
      [[lon + q, lat + q], [lon + q, lat + 3 * q], [lon + 3 * q, lat + 3 * q], [lon + 3 * q, lat + q], [lon + q, lat + q]]
    ]
  }
}

export const hectares = (...polygons: ReadonlyArray<Polygon>): number =>
  polygons.reduce((sum, p) => sum + Geometry.areaHectares(p as unknown as Geometry.Boundary), 0)

/** Two 1 km-ish blocks in the Black Forest and one with a hole: the shapes of the fixtures. */
export const NORTH = square(8.1, 48.1, 0.01)
export const SOUTH = square(8.1, 48.05, 0.01)
export const HOLED = squareWithHole(8.2, 48.1, 0.02)
/** A bow tie: its edges cross, the validator refuses it. */
export const BOWTIE = { type: "Polygon", coordinates: [[[8, 48], [8.01, 48.01], [8.01, 48], [8, 48.01], [8, 48]]] } as const

const encoder = new TextEncoder()
export const utf8 = (s: string): Uint8Array => encoder.encode(s)

// ---------------------------------------------------------------------------------------------
// KML / KMZ (hand-written text, as Google Earth writes it: altitudes, a styled point, folders)

const kmlCoords = (ring: ReadonlyArray<readonly [number, number]>) => ring.map(([x, y]) => `${x},${y},0`).join(" ")
const kmlPolygon = (p: { readonly coordinates: ReadonlyArray<ReadonlyArray<readonly [number, number]>> }) =>
  `<Polygon><tessellate>1</tessellate><outerBoundaryIs><LinearRing><coordinates>\n  ${
    kmlCoords(p.coordinates[0]!)
  }\n</coordinates></LinearRing></outerBoundaryIs>${
    p.coordinates.slice(1).map((r) => `<innerBoundaryIs><LinearRing><coordinates>${kmlCoords(r)}</coordinates></LinearRing></innerBoundaryIs>`).join("")
  }</Polygon>`

export const kml = (
  placemarks: ReadonlyArray<{ readonly name: string; readonly polygon: { readonly coordinates: ReadonlyArray<ReadonlyArray<readonly [number, number]>> } }>,
  options?: { readonly withPoint?: boolean }
): string =>
  `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document><name>Stand boundaries</name><Style id="s"><PolyStyle><color>7f00ff00</color></PolyStyle></Style>
<Folder><name>Stands</name>
${
    placemarks.map((p) =>
      `<Placemark><name>${p.name.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</name><styleUrl>#s</styleUrl>${kmlPolygon(p.polygon)}</Placemark>`
    ).join("\n")
  }
${options?.withPoint ? "<Placemark><name>Gate</name><Point><coordinates>8.105,48.105,0</coordinates></Point></Placemark>" : ""}
</Folder></Document></kml>
`

export const kmz = (kmlText: string): Uint8Array => zipSync({ "doc.kml": utf8(kmlText), "files/icon.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47]) })

// ---------------------------------------------------------------------------------------------
// Zipped Shapefiles (@mapbox/shp-write)

export const UTM32N = "+proj=utm +zone=32 +datum=WGS84 +units=m +no_defs"
/** The .prj ESRI/QGIS write for EPSG:32632. */
export const UTM32N_PRJ =
  "PROJCS[\"WGS_1984_UTM_Zone_32N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],PARAMETER[\"Central_Meridian\",9.0],PARAMETER[\"Scale_Factor\",0.9996],PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]"

export const toUtm32n = <P extends { readonly coordinates: ReadonlyArray<ReadonlyArray<readonly [number, number]>> }>(p: P): Polygon => ({
  type: "Polygon",
  coordinates: p.coordinates.map((ring) => ring.map((xy) => proj4("EPSG:4326", UTM32N, [xy[0], xy[1]]) as [number, number]))
})

export const shapefileZip = async (
  features: ReadonlyArray<{ readonly name: string; readonly polygon: Polygon }>,
  options?: { readonly prj?: string }
): Promise<Uint8Array> => {
  const collection = {
    type: "FeatureCollection" as const,
    features: features.map((f) => ({ type: "Feature" as const, properties: { name: f.name }, geometry: f.polygon }))
  }
  return shpwrite.zip<"uint8array">(collection, {
    outputType: "uint8array",
    compression: "DEFLATE",
    types: { polygon: "stands" },
    ...(options?.prj !== undefined ? { prj: options.prj } : {})
  })
}

/** A zipped Shapefile with its .prj removed. */
export const withoutPrj = async (zip: Uint8Array): Promise<Uint8Array> => {
  const { unzipSync } = await import("fflate")
  const files = unzipSync(zip)
  return zipSync(Object.fromEntries(Object.entries(files).filter(([name]) => !name.endsWith(".prj"))))
}

// ---------------------------------------------------------------------------------------------
// GeoPackage (sql.js writes the SQLite file, wkx the WKB; the 8-byte GeoPackage header by hand)

const gpkgBlob = (geometry: object, srsId: number): Uint8Array => {
  const wkb = wkx.Geometry.parseGeoJSON(geometry).toWkb()
  const header = new Uint8Array(8)
  header.set([0x47, 0x50, 0, 0b0000_0001]) // "GP", version 0, flags: little-endian, no envelope
  new DataView(header.buffer).setInt32(4, srsId, true)
  const out = new Uint8Array(8 + wkb.length)
  out.set(header)
  out.set(wkb, 8)
  return out
}

export const geopackage = async (
  features: ReadonlyArray<{ readonly name: string; readonly geometry: object }>,
  srs: { readonly id: number; readonly organization: string; readonly definition: string } = {
    id: 4326,
    organization: "EPSG",
    definition: "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563]],PRIMEM[\"Greenwich\",0],UNIT[\"degree\",0.0174532925199433]]"
  }
): Promise<Uint8Array> => {
  const SQL = await initSqlJs()
  const db = new SQL.Database()
  try {
    db.run("PRAGMA application_id = 1196444487") // 'GPKG'
    db.run(`CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
      organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT)`)
    db.run("INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', NULL)")
    db.run("INSERT INTO gpkg_spatial_ref_sys VALUES ('srs', ?, ?, ?, ?, NULL)", [srs.id, srs.organization, srs.id, srs.definition])
    db.run(`CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
      description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER)`)
    db.run(`CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
      srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name))`)
    db.run("INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('stands', 'features', 'stands', ?)", [srs.id])
    db.run("INSERT INTO gpkg_geometry_columns VALUES ('stands', 'geom', 'POLYGON', ?, 0, 0)", [srs.id])
    db.run("CREATE TABLE stands (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POLYGON, name TEXT)")
    for (const f of features) db.run("INSERT INTO stands (geom, name) VALUES (?, ?)", [gpkgBlob(f.geometry, srs.id), f.name])
    return db.export()
  } finally {
    db.close()
  }
}

// ---------------------------------------------------------------------------------------------
// A zip bomb, assembled by hand around node:zlib's (native, fast) deflate: one entry of `size`
// zero bytes, its real size declared (a zip whose sizes lie is made in the test itself).

export const zipBomb = async (name: string, size: number): Promise<Uint8Array> => {
  const { crc32, deflateRawSync } = await import("node:zlib")
  const data = new Uint8Array(size)
  const deflated = deflateRawSync(data, { level: 9 })
  const crc = crc32(data)
  const fileName = utf8(name)
  const local = new DataView(new ArrayBuffer(30))
  local.setUint32(0, 0x04034b50, true)
  local.setUint16(4, 20, true)
  local.setUint16(8, 8, true) // deflate
  local.setUint32(14, crc, true)
  local.setUint32(18, deflated.length, true)
  local.setUint32(22, size, true)
  local.setUint16(26, fileName.length, true)
  const central = new DataView(new ArrayBuffer(46))
  central.setUint32(0, 0x02014b50, true)
  central.setUint16(4, 20, true)
  central.setUint16(6, 20, true)
  central.setUint16(10, 8, true)
  central.setUint32(16, crc, true)
  central.setUint32(20, deflated.length, true)
  central.setUint32(24, size, true)
  central.setUint16(28, fileName.length, true)
  const cdOffset = 30 + fileName.length + deflated.length
  const end = new DataView(new ArrayBuffer(22))
  end.setUint32(0, 0x06054b50, true)
  end.setUint16(8, 1, true)
  end.setUint16(10, 1, true)
  end.setUint32(12, 46 + fileName.length, true)
  end.setUint32(16, cdOffset, true)
  const parts = [new Uint8Array(local.buffer), fileName, deflated, new Uint8Array(central.buffer), fileName, new Uint8Array(end.buffer)]
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
