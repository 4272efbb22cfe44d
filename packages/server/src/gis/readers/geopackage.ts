/**
 * OGC GeoPackage (a SQLite database) with sql.js — SQLite compiled to WebAssembly, so no native
 * database driver is added to @canopy/server and the file is opened from its bytes in the
 * WebAssembly module's own memory: nothing is written to the host's file system. sql.js is loaded
 * on first use only. Geometry blobs are a short GeoPackage header and a WKB geometry, read with wkx.
 *
 * Every feature table of `gpkg_geometry_columns` is read (tables only, not views, so a crafted
 * view cannot make the query expensive), at most `maxFeatures` rows in all.
 */
import type { Database, SqlJsStatic } from "sql.js"
import wkx from "wkx"
import { crsName, isWgs84, reprojectGeometry, toWgs84, type Converter } from "../reproject.ts"
import { featureLabel, FileProblem, type ImportLimits, type ReadResult, type SourceFeature } from "../types.ts"

const SQLITE_MAGIC = "SQLite format 3\u0000"

export const looksLikeSqlite = (bytes: Uint8Array): boolean => {
  if (bytes.length < 100) return false
  for (let i = 0; i < SQLITE_MAGIC.length; i++) if (bytes[i] !== SQLITE_MAGIC.charCodeAt(i)) return false
  return true
}

let sqlJs: Promise<SqlJsStatic> | undefined

const loadSqlJs = (): Promise<SqlJsStatic> => {
  sqlJs ??= import("sql.js").then((m) => m.default()).catch((e: unknown) => {
    sqlJs = undefined
    throw new FileProblem(`GeoPackage support is not available on this server: the sql.js package could not be loaded (${e instanceof Error ? e.message : String(e)})`)
  })
  return sqlJs
}

/** Bytes of the envelope for each envelope-contents indicator of the header's flags (GeoPackage §2.1.3). */
const ENVELOPE_BYTES = [0, 32, 48, 48, 64] as const

/** The WKB part of a GeoPackage geometry blob, or null for an empty geometry. */
const wkbOf = (blob: Uint8Array): Uint8Array | null => {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) throw new Error("not a GeoPackage geometry blob (no GP magic)")
  const flags = blob[3]!
  if (flags & 0b0010_0000) throw new Error("extended GeoPackage geometries are not supported")
  const envelope = ENVELOPE_BYTES[(flags >> 1) & 0b111]
  if (envelope === undefined) throw new Error("invalid envelope indicator in the geometry header")
  if (flags & 0b0001_0000) return null
  return blob.subarray(8 + envelope)
}

const quoteIdent = (name: string) => `"${name.replaceAll("\"", "\"\"")}"`

const rows = (db: Database, sql: string, params: Array<string | number> = []): Array<Record<string, unknown>> => {
  const stmt = db.prepare(sql)
  try {
    stmt.bind(params)
    const out: Array<Record<string, unknown>> = []
    while (stmt.step()) out.push(stmt.getAsObject())
    return out
  } finally {
    stmt.free()
  }
}

export const readGeoPackage = async (bytes: Uint8Array, limits: ImportLimits): Promise<ReadResult> => {
  const SQL = await loadSqlJs()
  let db: Database
  try {
    db = new SQL.Database(bytes)
  } catch (e) {
    throw new FileProblem(`not a readable SQLite database (${e instanceof Error ? e.message : String(e)})`)
  }
  try {
    let columns: Array<Record<string, unknown>>
    try {
      columns = rows(db, `SELECT c.table_name AS t, c.column_name AS c, c.srs_id AS srs FROM gpkg_geometry_columns c
        JOIN sqlite_master m ON m.name = c.table_name AND m.type = 'table' ORDER BY c.table_name`)
    } catch (e) {
      throw new FileProblem(`not a GeoPackage: no readable gpkg_geometry_columns table (${e instanceof Error ? e.message : String(e)})`)
    }
    if (columns.length === 0) throw new FileProblem("the GeoPackage has no feature table")
    const features: Array<SourceFeature> = []
    const warnings: Array<string> = []
    const crsNames = new Set<string>()
    for (const col of columns) {
      const table = String(col.t), column = String(col.c), srsId = Number(col.srs)
      const srs = rows(db, "SELECT organization AS o, organization_coordsys_id AS id, definition AS d FROM gpkg_spatial_ref_sys WHERE srs_id = ?", [srsId])[0]
      let convert: Converter | undefined
      if (srsId === 0 || (srs && String(srs.o).toUpperCase() === "EPSG" && Number(srs.id) === 4326) || (srs && isWgs84(String(srs.d)))) {
        crsNames.add("EPSG:4326")
        if (srsId === 0) warnings.push(`${table}: undefined geographic CRS (srs_id 0); coordinates taken as WGS84 longitude/latitude`)
      } else if (!srs || typeof srs.d !== "string" || srs.d === "undefined") {
        throw new FileProblem(`the GeoPackage table ${JSON.stringify(table)} has no usable coordinate reference system (srs_id ${srsId})`)
      } else {
        convert = toWgs84(srs.d, `the GeoPackage table ${JSON.stringify(table)}`)
        const name = srs.o && srs.id ? `${String(srs.o).toUpperCase()}:${String(srs.id)}` : crsName(srs.d)
        crsNames.add(name)
        warnings.push(`${table}: coordinates reprojected from ${name} to WGS84 (EPSG:4326)`)
      }
      const nameColumn = rows(db, `PRAGMA table_info(${quoteIdent(table)})`).map((c) => String(c.name)).find((n) => n.toLowerCase() === "name")
      const stmt = db.prepare(`SELECT ${quoteIdent(column)} AS g, ${nameColumn ? quoteIdent(nameColumn) : "NULL"} AS n FROM ${quoteIdent(table)}`)
      try {
        let i = 0
        while (stmt.step()) {
          if (features.length >= limits.maxFeatures) throw new FileProblem(`has more than ${limits.maxFeatures} features`)
          const [blob, name] = stmt.get()
          const label = featureLabel(i++, name, columns.length > 1 ? table : undefined)
          if (blob === null || blob === undefined) {
            features.push({ geometry: null, label })
            continue
          }
          if (!(blob instanceof Uint8Array)) throw new FileProblem(`${label}: the geometry column holds ${typeof blob}, not a geometry blob`)
          let geometry: unknown
          try {
            const wkb = wkbOf(blob)
            geometry = wkb === null ? null : wkx.Geometry.parse(Buffer.from(wkb.buffer, wkb.byteOffset, wkb.byteLength)).toGeoJSON()
          } catch (e) {
            throw new FileProblem(`${label}: unreadable geometry (${e instanceof Error ? e.message : String(e)})`)
          }
          features.push({ geometry: convert && geometry ? reprojectGeometry(geometry, convert) : geometry, label })
        }
      } finally {
        stmt.free()
      }
    }
    return { features, sourceCrs: [...crsNames].join(", "), warnings }
  } finally {
    db.close()
  }
}
