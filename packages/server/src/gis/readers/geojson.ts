/**
 * GeoJSON (RFC 7946): a geometry, a Feature or a FeatureCollection. Coordinates are WGS84; a
 * legacy (2008) `crs` member naming EPSG:3857 or another EPSG code proj4 knows is reprojected.
 */
import { isWgs84, reprojectGeometry, toWgs84 } from "../reproject.ts"
import { featureLabel, FileProblem, type ReadResult, type SourceFeature } from "../types.ts"

const GEOMETRY_TYPES = new Set(["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"])

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** `EPSG:3857`, `EPSG::3857`, `urn:ogc:def:crs:EPSG::3857` (or with a version), `http://www.opengis.net/def/crs/EPSG/0/3857`. */
const EPSG_CODE = /^(?:EPSG:{1,2}|urn:ogc:def:crs:EPSG:[\d.]*:|https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/[\d.]+\/)(\d{1,6})$/i
/** Names of WGS84 longitude/latitude. */
const CRS84 = /^(?:WGS ?84|urn:ogc:def:crs:OGC:1\.3:CRS84|OGC:CRS84|https?:\/\/www\.opengis\.net\/def\/crs\/OGC\/1\.3\/CRS84)$/i

/**
 * The CRS named by a legacy `crs` member (as `EPSG:<code>`), or undefined when there is none;
 * anything but an EPSG code or CRS84 (a proj string, WKT) is refused.
 */
const legacyCrs = (value: Record<string, unknown>): string | undefined => {
  const crs = value.crs
  if (crs === undefined || crs === null) return undefined
  const name = isObject(crs) && isObject(crs.properties) ? crs.properties.name : undefined
  if (typeof name !== "string") throw new FileProblem("the crs member is not a named CRS; RFC 7946 GeoJSON is in WGS84 and has no crs member", "crs")
  const trimmed = name.trim()
  if (CRS84.test(trimmed)) return "EPSG:4326"
  const m = EPSG_CODE.exec(trimmed)
  if (!m) {
    throw new FileProblem(
      `the crs member names ${
        JSON.stringify(trimmed.slice(0, 80))
      }; only EPSG codes are read (EPSG:3857, urn:ogc:def:crs:EPSG::3857) — RFC 7946 GeoJSON is in WGS84 and has no crs member`,
      "crs"
    )
  }
  return `EPSG:${m[1]}`
}

/** Reads a GeoJSON geometry, Feature or FeatureCollection (at most `maxFeatures` features). */
export const readGeoJson = (text: string, maxFeatures: number): ReadResult => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw new FileProblem(`not valid JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  if (!isObject(value)) throw new FileProblem("must be a GeoJSON object (a geometry, a Feature or a FeatureCollection)")
  const warnings: Array<string> = []
  const features: Array<SourceFeature> = []
  if (value.type === "FeatureCollection") {
    if (!Array.isArray(value.features)) throw new FileProblem("a FeatureCollection needs a features array", "features")
    if (value.features.length > maxFeatures) {
      throw new FileProblem(`has ${value.features.length} features; at most ${maxFeatures} are allowed`, "features")
    }
    value.features.forEach((f: unknown, i: number) => {
      if (!isObject(f) || f.type !== "Feature") throw new FileProblem(`must be a GeoJSON Feature`, `features[${i}]`)
      const properties = isObject(f.properties) ? f.properties : undefined
      features.push({ geometry: f.geometry ?? null, label: featureLabel(i, properties?.name), properties })
    })
  } else if (value.type === "Feature") {
    const properties = isObject(value.properties) ? value.properties : undefined
    features.push({ geometry: value.geometry ?? null, label: featureLabel(0, properties?.name), properties })
  } else if (typeof value.type === "string" && GEOMETRY_TYPES.has(value.type)) {
    features.push({ geometry: value, label: "the geometry" })
  } else {
    throw new FileProblem(
      `type must be "FeatureCollection", "Feature" or a geometry type such as "Polygon", got ${
        typeof value.type === "string" ? JSON.stringify(value.type) : String(value.type)
      }`,
      "type"
    )
  }
  const crs = legacyCrs(value)
  if (crs === undefined || isWgs84(crs)) return { features, sourceCrs: "EPSG:4326", warnings }
  const convert = toWgs84(crs, `the crs member (${crs})`)
  warnings.push(`coordinates reprojected from ${crs} to WGS84 (EPSG:4326)`)
  return { features: features.map((f) => ({ ...f, geometry: reprojectGeometry(f.geometry, convert) })), sourceCrs: crs, warnings }
}
