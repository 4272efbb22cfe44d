/**
 * Hostile GIS uploads: small files built to make a reader work far beyond their size (a KMZ of
 * millions of empty elements, a GeoPackage whose metadata tables are endless views, a Shapefile
 * whose `.dbf` header declares billions of records, a zip listing one entry four times). Each is
 * made at test time by `bytes()`, with what `importBoundary` must answer: `{ ok: false }` with a
 * problem on `file` whose message matches `problem`, quickly (see the reader tests in
 * hostile.test.ts and the HTTP-level tests that reuse this list).
 */
import { crc32, deflateRawSync } from "node:zlib"
import { zipSync } from "fflate"
import initSqlJs from "sql.js"

/** One hostile file: how to make it, what it is, and what the import must answer. */
export interface HostileFile {
  /** A file name with the format's usual extension (also usable as the upload's `filename`). */
  readonly name: string
  /** What the file does to an unguarded reader. */
  readonly description: string
  /** The upload's bytes (made fresh on each call). */
  readonly bytes: () => Promise<Uint8Array>
  /** The import answers `{ ok: false }` with a problem on `file` whose message matches this. */
  readonly expect: { readonly ok: false; readonly field: "file"; readonly problem: RegExp }
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s)

/** A KMZ whose doc.kml is `<kml>`, `count` empty `<a/>` elements, `</kml>` (deflated at level 9). */
const emptyElementsKmz = (count: number): Uint8Array => zipSync({ "doc.kml": utf8(`<kml>${"<a/>".repeat(count)}</kml>`) }, { level: 9 })

/**
 * A zip assembled by hand: each of `files` stored once (deflated), then a central directory that
 * lists `listing` (indices into `files`, repeats allowed: several listings of one local entry).
 */
export const handMadeZip = (files: ReadonlyArray<{ readonly name: string; readonly data: Uint8Array }>, listing: ReadonlyArray<number>): Uint8Array => {
  const parts: Array<Uint8Array> = []
  const locals: Array<{ offset: number; name: Uint8Array; crc: number; size: number; compressed: number }> = []
  let at = 0
  for (const f of files) {
    const name = utf8(f.name)
    const deflated = deflateRawSync(f.data, { level: 9 })
    const crc = crc32(f.data)
    const local = new DataView(new ArrayBuffer(30))
    local.setUint32(0, 0x04034b50, true)
    local.setUint16(4, 20, true)
    local.setUint16(8, 8, true)
    local.setUint32(14, crc, true)
    local.setUint32(18, deflated.length, true)
    local.setUint32(22, f.data.length, true)
    local.setUint16(26, name.length, true)
    locals.push({ offset: at, name, crc, size: f.data.length, compressed: deflated.length })
    parts.push(new Uint8Array(local.buffer), name, deflated)
    at += 30 + name.length + deflated.length
  }
  const cdOffset = at
  for (const i of listing) {
    const l = locals[i]!
    const central = new DataView(new ArrayBuffer(46))
    central.setUint32(0, 0x02014b50, true)
    central.setUint16(4, 20, true)
    central.setUint16(6, 20, true)
    central.setUint16(10, 8, true)
    central.setUint32(16, l.crc, true)
    central.setUint32(20, l.compressed, true)
    central.setUint32(24, l.size, true)
    central.setUint16(28, l.name.length, true)
    central.setUint32(42, l.offset, true)
    parts.push(new Uint8Array(central.buffer), l.name)
    at += 46 + l.name.length
  }
  const end = new DataView(new ArrayBuffer(22))
  end.setUint32(0, 0x06054b50, true)
  end.setUint16(8, listing.length, true)
  end.setUint16(10, listing.length, true)
  end.setUint32(12, at - cdOffset, true)
  end.setUint32(16, cdOffset, true)
  parts.push(new Uint8Array(end.buffer))
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

/**
 * A zipped Shapefile: a `.shp` with a header and no record, and a `.dbf` with one 10-character
 * field whose header declares `records` records though none follows.
 */
export const lyingDbfShapefile = (records: number): Uint8Array => {
  const shp = new DataView(new ArrayBuffer(100))
  shp.setInt32(0, 9994) // file code, big-endian
  shp.setInt32(24, 50) // file length in 16-bit words
  shp.setInt32(28, 1000, true)
  shp.setInt32(32, 5, true) // polygon
  const dbf = new DataView(new ArrayBuffer(65))
  dbf.setUint8(0, 0x03)
  dbf.setUint32(4, records >>> 0, true)
  dbf.setUint16(8, 65, true) // header length: 32 + one field descriptor + terminator
  dbf.setUint16(10, 11, true) // record length: deletion flag + the field
  new Uint8Array(dbf.buffer).set(utf8("NAME"), 32)
  dbf.setUint8(32 + 11, "C".charCodeAt(0))
  dbf.setUint8(32 + 16, 10)
  dbf.setUint8(64, 0x0d)
  return zipSync({ "x.shp": new Uint8Array(shp.buffer), "x.dbf": new Uint8Array(dbf.buffer) }, { level: 9 })
}

const ENDLESS = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)"

/**
 * A one-feature GeoPackage (EPSG:4326) whose tables may be replaced: `geometryColumns` and
 * `spatialRefSys` are the statements creating those two (tables or views), `featureTable` the
 * statement creating `stands (fid, geom, name)`.
 */
const craftedGeoPackage = async (parts: {
  readonly geometryColumns?: string
  readonly spatialRefSys?: string
  readonly featureTable?: string
}): Promise<Uint8Array> => {
  const SQL = await initSqlJs()
  const db = new SQL.Database()
  try {
    db.run("PRAGMA application_id = 1196444487")
    db.run(parts.spatialRefSys ?? `CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
      organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT)`)
    if (!parts.spatialRefSys) db.run("INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS[\"WGS 84\"]', NULL)")
    db.run(`CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
      description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER)`)
    db.run("INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('stands', 'features', 'stands', 4326)")
    db.run(parts.geometryColumns ?? `CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
      geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL)`)
    if (!parts.geometryColumns) db.run("INSERT INTO gpkg_geometry_columns VALUES ('stands', 'geom', 'POLYGON', 4326, 0, 0)")
    db.run(parts.featureTable ?? "CREATE TABLE stands (fid INTEGER PRIMARY KEY, geom BLOB, name TEXT)")
    db.run("INSERT INTO stands (fid, name) VALUES (1, 'North')")
    return db.export()
  } finally {
    db.close()
  }
}

/** The hostile files, each refused by `importBoundary` with a problem naming the cause. */
export const hostileFiles: ReadonlyArray<HostileFile> = [
  {
    name: "empty-elements.kmz",
    description: "a 1.5 KB KMZ whose doc.kml is 350,000 empty elements (1.4 MB of XML)",
    bytes: async () => emptyElementsKmz(350_000),
    expect: { ok: false, field: "file", problem: /XML elements/ }
  },
  {
    name: "five-mib-of-a.kmz",
    description: "a 5 KB KMZ whose doc.kml holds 5 MiB of <a/> (1.3 M elements)",
    bytes: async () => emptyElementsKmz(5 * 1024 * 1024 / 4),
    expect: { ok: false, field: "file", problem: /XML elements/ }
  },
  {
    name: "duplicate-names.kmz",
    description: "a 75 KB KMZ listing one doc.kml of 75 MiB four times in its central directory (300 MiB declared in all)",
    bytes: async () => handMadeZip([{ name: "doc.kml", data: utf8(`<kml>${" ".repeat(75 * 1024 * 1024 - 11)}</kml>`) }], [0, 0, 0, 0]),
    expect: { ok: false, field: "file", problem: /lists "doc\.kml" more than once/ }
  },
  {
    name: "dbf-4294967295-records.zip",
    description: "a 240-byte zipped Shapefile whose .dbf header declares 0xFFFFFFFF records (none present)",
    bytes: async () => lyingDbfShapefile(0xffffffff),
    expect: { ok: false, field: "file", problem: /x\.dbf declares 4294967295 records/ }
  },
  {
    name: "dbf-20m-records.zip",
    description: "a 240-byte zipped Shapefile whose .dbf header declares 20,000,000 records (none present)",
    bytes: async () => lyingDbfShapefile(20_000_000),
    expect: { ok: false, field: "file", problem: /x\.dbf declares 20000000 records/ }
  },
  {
    name: "endless-geometry-columns.gpkg",
    description: "a GeoPackage whose gpkg_geometry_columns is a view over an endless recursive query",
    bytes: () =>
      craftedGeoPackage({
        geometryColumns: `CREATE VIEW gpkg_geometry_columns AS ${ENDLESS} SELECT 'stands' AS table_name, 'geom' AS column_name,
        'POLYGON' AS geometry_type_name, 4326 AS srs_id, 0 AS z, 0 AS m FROM r WHERE i < 0`
      }),
    expect: { ok: false, field: "file", problem: /gpkg_geometry_columns is a view/ }
  },
  {
    name: "endless-spatial-ref-sys.gpkg",
    description: "a GeoPackage whose gpkg_spatial_ref_sys is a view over an endless recursive query",
    bytes: () =>
      craftedGeoPackage({
        spatialRefSys: `CREATE VIEW gpkg_spatial_ref_sys AS ${ENDLESS} SELECT 'WGS 84' AS srs_name, 4326 AS srs_id, 'EPSG' AS organization,
        4326 AS organization_coordsys_id, 'GEOGCS["WGS 84"]' AS definition, NULL AS description FROM r WHERE i < 0`
      }),
    expect: { ok: false, field: "file", problem: /gpkg_spatial_ref_sys is a view/ }
  },
  {
    name: "generated-zeroblob.gpkg",
    description: "a GeoPackage whose feature table's geometry column is generated as zeroblob(600e6) (600 MB per row read)",
    bytes: () =>
      craftedGeoPackage({
        featureTable: "CREATE TABLE stands (fid INTEGER PRIMARY KEY, name TEXT, geom BLOB GENERATED ALWAYS AS (zeroblob(600000000)) VIRTUAL)"
      }),
    expect: { ok: false, field: "file", problem: /generated column/ }
  }
]
