/**
 * Reprojection to WGS84 longitude/latitude with proj4. No network: proj4 knows EPSG:4326,
 * EPSG:4269 and EPSG:3857 by code, and any CRS given as WKT (a Shapefile's .prj, a GeoPackage's
 * `gpkg_spatial_ref_sys.definition`) or as a proj string.
 */
import proj4 from "proj4"
import { FileProblem } from "./types.ts"

export type Converter = (xy: [number, number]) => [number, number]

/**
 * A converter from the CRS `definition` (WKT, proj string or a code proj4 knows) to WGS84
 * longitude/latitude; a `FileProblem` when proj4 cannot read it.
 */
export const toWgs84 = (definition: string, what: string): Converter => {
  let converter: proj4.Converter
  try {
    converter = proj4(definition, "EPSG:4326")
  } catch (e) {
    throw new FileProblem(
      `cannot read the coordinate reference system of ${what} (${
        e instanceof Error ? e.message : String(e)
      }); reproject the data to WGS84 (EPSG:4326) and upload it again`
    )
  }
  return (xy) => converter.forward(xy) as [number, number]
}

/** A readable name of a WKT CRS definition: its first quoted name, e.g. `WGS 84 / UTM zone 32N`. */
export const crsName = (definition: string): string => {
  const m = /^\s*[A-Z_0-9]+\s*\[\s*"([^"]{1,200})"/.exec(definition)
  return m?.[1] ?? definition.trim().slice(0, 80)
}

/**
 * Whether a WKT or proj definition is plain geographic WGS84 longitude/latitude in degrees
 * (no reprojection needed).
 */
export const isWgs84 = (definition: string): boolean => {
  const d = definition.trim()
  if (/^(EPSG:4326|WGS84|urn:ogc:def:crs:OGC:1\.3:CRS84|urn:ogc:def:crs:EPSG::4326)$/i.test(d)) return true
  return /^GEOG(CS|CRS)\s*\[\s*"(GCS_WGS_1984|WGS 84|WGS84|WGS_1984)"/i.test(d)
}

/** Deepest position in a GeoJSON geometry: a MultiPolygon's `coordinates[p][r][i]`. */
const POSITION_DEPTH = 3
/** Deepest GeometryCollection nesting reprojected (the assembler reads no deeper either). */
const COLLECTION_DEPTH = 5

/**
 * A copy of a GeoJSON geometry with every position converted; non-positions, and anything nested
 * deeper than a geometry's positions can be, are left as they are (for the validator to report).
 */
export const reprojectGeometry = (geometry: unknown, convert: Converter, depth = 0): unknown => {
  const positions = (value: unknown, level: number): unknown => {
    if (!Array.isArray(value)) return value
    if (value.length >= 2 && typeof value[0] === "number" && typeof value[1] === "number") {
      const [x, y] = convert([value[0], value[1]])
      return value.length > 2 ? [x, y, ...value.slice(2)] : [x, y]
    }
    return level >= POSITION_DEPTH ? value : value.map((v) => positions(v, level + 1))
  }
  if (typeof geometry !== "object" || geometry === null) return geometry
  const g = geometry as Record<string, unknown>
  if (g.type === "GeometryCollection" && Array.isArray(g.geometries)) {
    return depth >= COLLECTION_DEPTH ? g : { ...g, geometries: g.geometries.map((c) => reprojectGeometry(c, convert, depth + 1)) }
  }
  return "coordinates" in g ? { ...g, coordinates: positions(g.coordinates, 0) } : g
}
