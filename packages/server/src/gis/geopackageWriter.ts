/**
 * Projects out as an OGC GeoPackage 1.3 (a SQLite file), written with sql.js in the WebAssembly
 * module's memory (nothing touches the file system) and exported as bytes.
 *
 * - `gpkg_spatial_ref_sys` with the three required systems (EPSG:4326, and the undefined
 *   Cartesian and geographic ones), `gpkg_contents` and `gpkg_geometry_columns`;
 *   `application_id` "GPKG" and `user_version` 10300.
 * - One feature table, `projects`: `fid`, `geom` (a GeoPackage geometry blob: the 8-byte header
 *   with the feature's xy envelope, then little-endian WKB, in EPSG:4326) and the attributes
 *   `id`, `name`, `slug`, `description`, `status`, `area_hectares`, `created_at`, `updated_at` (the
 *   export's GeoJSON property names; the import names features by `name`). Its geometry type is
 *   `POLYGON` when every boundary is one, else `MULTIPOLYGON` (Polygons written as one-polygon
 *   MultiPolygons). Rings are kept as stored (outer counter-clockwise, holes clockwise).
 * - `canopy_export` (an attributes table, listed in `gpkg_contents`), when the file is a list
 *   export's: rows `truncated` (`true`/`false`) and `next_cursor`.
 */
import type { Geometry } from "@canopy/core"
import type { SqlJsStatic } from "sql.js"
import wkx from "wkx"
import type { ExportEnd } from "./export.ts"
import type { ExportRecord } from "./shapefileWriter.ts"

let sqlJs: Promise<SqlJsStatic> | undefined
const loadSqlJs = (): Promise<SqlJsStatic> => (sqlJs ??= import("sql.js").then((m) => m.default()))

/** The name of the list export's note table. */
const EXPORT_NOTE_TABLE = "canopy_export"

const WGS84_WKT =
  "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563,AUTHORITY[\"EPSG\",\"7030\"]],AUTHORITY[\"EPSG\",\"6326\"]]," +
  "PRIMEM[\"Greenwich\",0,AUTHORITY[\"EPSG\",\"8901\"]],UNIT[\"degree\",0.0174532925199433,AUTHORITY[\"EPSG\",\"9122\"]],AUTHORITY[\"EPSG\",\"4326\"]]"

const SCHEMA = `
CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
  description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER, CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name), CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
CREATE TABLE projects (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom GEOMETRY, id TEXT, name TEXT, slug TEXT, description TEXT,
  status TEXT, area_hectares REAL, created_at TEXT, updated_at TEXT);
`

/** The 8-byte GeoPackage header (version 0, little-endian, xy envelope) and the envelope, then the WKB. */
const geometryBlob = (g: Geometry.Boundary, asMulti: boolean): { readonly blob: Uint8Array; readonly box: ReadonlyArray<number> } => {
  const value = asMulti && g.type === "Polygon" ? { type: "MultiPolygon", coordinates: [g.coordinates] } : g
  const wkb = wkx.Geometry.parseGeoJSON(value).toWkb()
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
  for (const polygon of g.type === "Polygon" ? [g.coordinates] : g.coordinates) {
    for (const [x, y] of polygon[0] ?? []) {
      minX = Math.min(minX, x)
      minY = Math.min(minY, y)
      maxX = Math.max(maxX, x)
      maxY = Math.max(maxY, y)
    }
  }
  const blob = new Uint8Array(8 + 32 + wkb.length)
  const view = new DataView(blob.buffer)
  blob.set([0x47, 0x50, 0, 0b0000_0011])
  view.setInt32(4, 4326, true)
  ;[minX, maxX, minY, maxY].forEach((v, i) => view.setFloat64(8 + 8 * i, v, true))
  blob.set(wkb, 40)
  return { blob, box: [minX, minY, maxX, maxY] }
}

/** The projects as a GeoPackage file; with `end`, the list export's note (`canopy_export`). */
export const toGeoPackage = async (records: ReadonlyArray<ExportRecord>, options: { readonly end?: ExportEnd } = {}): Promise<Uint8Array> => {
  const SQL = await loadSqlJs()
  const db = new SQL.Database()
  try {
    db.run("PRAGMA application_id = 1196444487; PRAGMA user_version = 10300;")
    db.run(SCHEMA)
    db.run("INSERT INTO gpkg_spatial_ref_sys VALUES (?,?,?,?,?,?), (?,?,?,?,?,?), (?,?,?,?,?,?)", [
      "Undefined cartesian SRS",
      -1,
      "NONE",
      -1,
      "undefined",
      "undefined cartesian coordinate reference system",
      "Undefined geographic SRS",
      0,
      "NONE",
      0,
      "undefined",
      "undefined geographic coordinate reference system",
      "WGS 84 geodetic",
      4326,
      "EPSG",
      4326,
      WGS84_WKT,
      "longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid"
    ])
    const multi = records.some((r) => r.geometry?.type === "MultiPolygon")
    const box = [Infinity, Infinity, -Infinity, -Infinity]
    const insert = db.prepare(
      "INSERT INTO projects (geom, id, name, slug, description, status, area_hectares, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)"
    )
    try {
      db.run("BEGIN")
      for (const r of records) {
        const g = r.geometry === null ? null : geometryBlob(r.geometry, multi)
        if (g) {
          box[0] = Math.min(box[0]!, g.box[0]!)
          box[1] = Math.min(box[1]!, g.box[1]!)
          box[2] = Math.max(box[2]!, g.box[2]!)
          box[3] = Math.max(box[3]!, g.box[3]!)
        }
        insert.run([g?.blob ?? null, r.id, r.name, r.slug, r.description, r.status, r.area_hectares, r.created_at ?? null, r.updated_at ?? null])
      }
      db.run("COMMIT")
    } finally {
      insert.free()
    }
    const extent = box[0]! <= box[2]! ? box : [null, null, null, null]
    db.run("INSERT INTO gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id) VALUES (?,?,?,?,?,?,?,?,?)", [
      "projects",
      "features",
      "projects",
      "Canopy projects",
      ...extent as Array<number | null>,
      4326
    ])
    db.run("INSERT INTO gpkg_geometry_columns VALUES (?,?,?,?,?,?)", ["projects", "geom", multi ? "MULTIPOLYGON" : "POLYGON", 4326, 0, 0])
    if (options.end) {
      db.run(`CREATE TABLE ${EXPORT_NOTE_TABLE} (key TEXT PRIMARY KEY NOT NULL, value TEXT)`)
      db.run(`INSERT INTO ${EXPORT_NOTE_TABLE} VALUES ('truncated', ?), ('next_cursor', ?)`, [String(options.end.truncated), options.end.next_cursor])
      db.run("INSERT INTO gpkg_contents (table_name, data_type, identifier, description) VALUES (?,?,?,?)", [EXPORT_NOTE_TABLE, "attributes", EXPORT_NOTE_TABLE,
        "Whether this file holds the whole list (truncated) and the cursor of the rest (next_cursor)"])
    }
    return db.export()
  } finally {
    db.close()
  }
}
