/**
 * OGC GeoPackage (a SQLite database) with sql.js — SQLite compiled to WebAssembly, so no native
 * database driver is added to @canopy/server and the file is opened from its bytes in the
 * WebAssembly module's own memory: nothing is written to the host's file system. sql.js is loaded
 * on first use only. Geometry blobs are a short GeoPackage header and a WKB geometry, read with wkx.
 *
 * Every feature table of `gpkg_geometry_columns` is read, at most `maxFeatures` rows in all.
 * SQLite runs whatever a view or a generated column says when it is read, and sql.js can neither
 * interrupt a query nor bound its memory, so only stored data is read: the GeoPackage tables
 * (`gpkg_contents`, `gpkg_geometry_columns`, `gpkg_spatial_ref_sys`) must be plain tables, and a
 * column read (from those or a feature table) must not be generated; a feature table that is a
 * view is skipped. (A column default is no risk: for a row stored before its column was added,
 * SQLite reads only a literal default, never evaluating an expression.) Every query has a `LIMIT`, and each
 * geometry's size is checked with `length()` before it is read.
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
    throw new FileProblem(
      `GeoPackage support is not available on this server: the sql.js package could not be loaded (${e instanceof Error ? e.message : String(e)})`
    )
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

/** Most feature tables (rows of `gpkg_geometry_columns`) read. */
const MAX_FEATURE_TABLES = 100
/** Most bytes of one geometry blob (100,000 positions with Z and M take 3.2 MB). */
const MAX_GEOMETRY_BYTES = 8 * 1024 * 1024
/** Most characters of one CRS definition (WKT of real CRSs take a few KB). */
const MAX_CRS_DEFINITION = 64 * 1024
const GPKG_TABLES = ["gpkg_contents", "gpkg_geometry_columns", "gpkg_spatial_ref_sys"] as const

/** The schema entries (type and SQL) of `names`, by lower-cased name, from one scan of sqlite_master. */
const schemaOf = (db: Database, names: ReadonlyArray<string>): Map<string, { readonly type: string; readonly sql: string }> => {
  const lower = [...new Set(names.map((n) => n.toLowerCase()))]
  const found = rows(db, `SELECT lower(name) AS n, type AS t, sql AS s FROM sqlite_master WHERE lower(name) IN (${lower.map(() => "?").join(",")})`, lower)
  return new Map(found.map((r) => [String(r.n), { type: String(r.t), sql: String(r.s ?? "") }]))
}

/** Whether a schema entry is a virtual table (its module's code runs on every read). */
const isVirtual = (entry: { readonly sql: string }) => /^\s*CREATE\s+VIRTUAL\s/i.test(entry.sql)

/**
 * The table's columns by lower-cased name (`PRAGMA table_xinfo`, which lists generated columns
 * too), each with why it cannot be read, if so: a generated column runs its expression on every read.
 */
const columnsOf = (db: Database, table: string): Map<string, { readonly name: string; readonly unreadable?: string }> =>
  new Map(rows(db, `PRAGMA table_xinfo(${quoteIdent(table)})`).map((c) => {
    const name = String(c.name)
    return [name.toLowerCase(), Number(c.hidden) !== 0
      ? { name, unreadable: `column ${JSON.stringify(name)} is a generated column; generated columns are not read` }
      : { name }]
  }))

/** Refuses when a column of `read` is missing or cannot be read. */
const checkColumns = (db: Database, table: string, read: ReadonlyArray<string>): void => {
  const columns = columnsOf(db, table)
  for (const name of read) {
    const c = columns.get(name)
    if (!c) throw new FileProblem(`the GeoPackage's ${table} has no column ${name}`)
    if (c.unreadable) throw new FileProblem(`the GeoPackage's ${table}: ${c.unreadable}`)
  }
}

/** Refuses a GeoPackage whose own tables are views or virtual tables, or lack `gpkg_geometry_columns`. */
const checkGpkgTables = (db: Database): void => {
  const schema = schemaOf(db, GPKG_TABLES)
  for (const name of GPKG_TABLES) {
    const entry = schema.get(name)
    if (!entry) {
      if (name === "gpkg_geometry_columns") throw new FileProblem("not a GeoPackage: no gpkg_geometry_columns table")
      continue
    }
    if (entry.type !== "table") throw new FileProblem(`the GeoPackage's ${name} is a ${entry.type}, not a table; it is not read`)
    if (isVirtual(entry)) throw new FileProblem(`the GeoPackage's ${name} is a virtual table, not a plain table; it is not read`)
  }
  checkColumns(db, "gpkg_geometry_columns", ["table_name", "column_name", "srs_id"])
  if (schema.has("gpkg_spatial_ref_sys")) checkColumns(db, "gpkg_spatial_ref_sys", ["srs_id", "organization", "organization_coordsys_id", "definition"])
}

interface SpatialRefSys {
  readonly organization: string
  readonly code: number
  readonly definition: string | null
}

/** The spatial reference systems `ids`, from one query. */
const spatialRefSystems = (db: Database, ids: ReadonlyArray<number>): Map<number, SpatialRefSys> => {
  const out = new Map<number, SpatialRefSys>()
  if (ids.length === 0) return out
  let found: Array<Record<string, unknown>>
  try {
    found = rows(db, `SELECT srs_id AS i, organization AS o, organization_coordsys_id AS c, length(definition) AS l,
      CASE WHEN length(definition) <= ${MAX_CRS_DEFINITION} THEN definition END AS d
      FROM gpkg_spatial_ref_sys WHERE srs_id IN (${ids.map(() => "?").join(",")}) LIMIT ${ids.length}`, [...ids])
  } catch (e) {
    throw new FileProblem(`not a GeoPackage: no readable gpkg_spatial_ref_sys table (${e instanceof Error ? e.message : String(e)})`)
  }
  for (const r of found) {
    if (Number(r.l) > MAX_CRS_DEFINITION)
      throw new FileProblem(`the GeoPackage's CRS definition ${Number(r.i)} has ${Number(r.l)} characters; at most ${MAX_CRS_DEFINITION} are read`)
    out.set(Number(r.i), { organization: String(r.o ?? ""), code: Number(r.c), definition: typeof r.d === "string" ? r.d : null })
  }
  return out
}

/** Reads the boundary features of a GeoPackage's feature tables, within `limits`. */
export const readGeoPackage = async (bytes: Uint8Array, limits: ImportLimits): Promise<ReadResult> => {
  const SQL = await loadSqlJs()
  let db: Database
  try {
    db = new SQL.Database(bytes)
  } catch (e) {
    throw new FileProblem(`not a readable SQLite database (${e instanceof Error ? e.message : String(e)})`)
  }
  try {
    let columns: Array<{ readonly table: string; readonly column: string; readonly srsId: number }>
    try {
      checkGpkgTables(db)
      columns = rows(db, `SELECT table_name AS t, column_name AS c, srs_id AS srs FROM gpkg_geometry_columns LIMIT ${MAX_FEATURE_TABLES + 1}`)
        .map((r) => ({ table: String(r.t), column: String(r.c), srsId: Number(r.srs) }))
        .sort((a, b) => a.table < b.table ? -1 : a.table > b.table ? 1 : 0)
    } catch (e) {
      if (e instanceof FileProblem) throw e
      throw new FileProblem(`not a GeoPackage: no readable gpkg_geometry_columns table (${e instanceof Error ? e.message : String(e)})`)
    }
    if (columns.length > MAX_FEATURE_TABLES) throw new FileProblem(`the GeoPackage has more than ${MAX_FEATURE_TABLES} feature tables`)
    const features: Array<SourceFeature> = []
    const warnings: Array<string> = []
    const crsNames = new Set<string>()
    const schema = schemaOf(db, columns.map((c) => c.table))
    const tables = columns.filter(({ table }) => {
      const entry = schema.get(table.toLowerCase())
      if (!entry) throw new FileProblem(`the GeoPackage lists the feature table ${JSON.stringify(table)}, which does not exist`)
      if (entry.type === "view") warnings.push(`${table}: a view, not a table; views are not read`)
      else if (entry.type !== "table" || isVirtual(entry))
        throw new FileProblem(`the GeoPackage's feature table ${JSON.stringify(table)} is not a plain table; it is not read`)
      return entry.type === "table"
    })
    if (tables.length === 0) throw new FileProblem("the GeoPackage has no feature table")
    const srsById = spatialRefSystems(db, [...new Set(tables.map((c) => c.srsId).filter((id) => id !== 0))])
    for (const { table, column, srsId } of tables) {
      const what = `the GeoPackage table ${JSON.stringify(table)}`
      const srs = srsById.get(srsId)
      let convert: Converter | undefined
      if (srsId === 0 || (srs && srs.organization.toUpperCase() === "EPSG" && srs.code === 4326) || (srs?.definition && isWgs84(srs.definition))) {
        crsNames.add("EPSG:4326")
        if (srsId === 0) warnings.push(`${table}: undefined geographic CRS (srs_id 0); coordinates taken as WGS84 longitude/latitude`)
      } else if (!srs || srs.definition === null || srs.definition === "undefined") {
        throw new FileProblem(`${what} has no usable coordinate reference system (srs_id ${srsId})`)
      } else {
        convert = toWgs84(srs.definition, what)
        const name = srs.organization && srs.code ? `${srs.organization.toUpperCase()}:${srs.code}` : crsName(srs.definition)
        crsNames.add(name)
        warnings.push(`${table}: coordinates reprojected from ${name} to WGS84 (EPSG:4326)`)
      }
      const tableColumns = columnsOf(db, table)
      const geometryColumn = tableColumns.get(column.toLowerCase())
      if (!geometryColumn) throw new FileProblem(`${what} has no column ${JSON.stringify(column)}`)
      if (geometryColumn.unreadable) throw new FileProblem(`${what}: ${geometryColumn.unreadable}`)
      const nameColumn = tableColumns.get("name")
      const readName = nameColumn !== undefined && !nameColumn.unreadable
      const stmt = db.prepare(`SELECT length(${quoteIdent(column)}) AS l,
        CASE WHEN length(${quoteIdent(column)}) <= ${MAX_GEOMETRY_BYTES} THEN ${quoteIdent(column)} END AS g,
        ${readName ? `substr(${quoteIdent(nameColumn.name)}, 1, 200)` : "NULL"} AS n
        FROM ${quoteIdent(table)} LIMIT ${limits.maxFeatures - features.length + 1}`)
      try {
        let i = 0
        while (stmt.step()) {
          if (features.length >= limits.maxFeatures) throw new FileProblem(`has more than ${limits.maxFeatures} features`)
          const [length, blob, name] = stmt.get()
          const label = featureLabel(i++, name, tables.length > 1 ? table : undefined)
          if (Number(length) > MAX_GEOMETRY_BYTES)
            throw new FileProblem(`${label}: the geometry has ${Number(length)} bytes; at most ${MAX_GEOMETRY_BYTES} are read`)
          if (blob === null || blob === undefined) {
            features.push({ geometry: null, label, ...(readName ? { properties: { name } } : {}) })
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
          features.push({ geometry: convert && geometry ? reprojectGeometry(geometry, convert) : geometry, label,
            ...(readName ? { properties: { name } } : {}) })
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
