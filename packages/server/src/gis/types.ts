/**
 * Types and limits of the GIS conversion layer (boundaries in and out in foresters' formats).
 */
import type { Geometry } from "@canopy/core"

/** The formats `importBoundary` reads. */
export type GisFormat = "geojson" | "kml" | "kmz" | "shapefile" | "geopackage"

/** What the caller knows about the upload besides its bytes (both optional, both only hints). */
export interface ImportHint {
  /** The upload's media type, e.g. from `Content-Type` or a multipart part. */
  readonly mediaType?: string | undefined
  /** The upload's file name, e.g. from a multipart part's `filename`. */
  readonly filename?: string | undefined
}

/**
 * One problem, in the spec's `details` shape (`{ field, message }`). Geometry problems carry the
 * core validator's path (`geometry.coordinates[0][3]`) and message; problems with the file itself
 * have `field: "file"`. `source` names the feature of the file a geometry problem comes from.
 */
export interface ImportProblem {
  readonly field: string
  readonly message: string
  readonly source?: string
}

export interface ImportSuccess {
  readonly ok: true
  readonly format: GisFormat
  /** The boundary in WGS84 longitude/latitude, RFC 7946 winding, valid for `Geometry.validate`. */
  readonly geometry: Geometry.Boundary
  /** Geodesic area of `geometry`, unrounded (`Geometry.areaHectares`). */
  readonly areaHectares: number
  /** Features of the file whose polygons make up the boundary. */
  readonly features: number
  /** The coordinate reference system the file was in, e.g. `EPSG:4326` or the .prj's name. */
  readonly sourceCrs: string
  /** Things ignored or assumed on the way (points and lines skipped, a missing .prj, ...). */
  readonly warnings: ReadonlyArray<string>
}

export interface ImportFailure {
  readonly ok: false
  /** The format, when it was recognised. */
  readonly format?: GisFormat
  readonly problems: ReadonlyArray<ImportProblem>
}

export type ImportResult = ImportSuccess | ImportFailure

/** Bounds on the work one import may do. Every field is optional in `ImportOptions`. */
export interface ImportLimits {
  /** Most bytes of the upload. */
  readonly maxBytes: number
  /** Most entries in a zip (KMZ, zipped Shapefile). */
  readonly maxZipEntries: number
  /** Most bytes a zip may decompress to, over the entries read (as the zip declares them; never more is inflated). */
  readonly maxUncompressedBytes: number
  /** Most features read from one file. */
  readonly maxFeatures: number
  /** Most bytes of one KML document (a .kml upload, or the document a KMZ inflates to). */
  readonly maxXmlBytes: number
  /**
   * Most XML nodes of one KML document — elements, attributes, comments, CDATA sections — (and
   * most end tags), counted before it is parsed.
   */
  readonly maxXmlElements: number
}

/** The defaults: a 10,000-placemark KML as Canopy exports it holds about 270,000 elements and attributes. */
export const DEFAULT_LIMITS: ImportLimits = {
  maxBytes: 25 * 1024 * 1024,
  maxZipEntries: 100,
  maxUncompressedBytes: 100 * 1024 * 1024,
  maxFeatures: 10_000,
  maxXmlBytes: 16 * 1024 * 1024,
  maxXmlElements: 300_000
}

export interface ImportOptions {
  readonly limits?: Partial<ImportLimits>
}

/** A problem with the file; thrown inside the readers, turned into an `ImportFailure` at the top. */
export class FileProblem extends Error {
  readonly problems: ReadonlyArray<ImportProblem>
  constructor(message: string, field = "file") {
    super(message)
    this.problems = [{ field, message }]
  }
}

/** A geometry read from a file, in WGS84, before it is merged and validated. */
export interface SourceFeature {
  /** A GeoJSON geometry object (any type, or null), as the parser produced it. */
  readonly geometry: unknown
  /** How to name this feature to the user: `feature 3 "North block"`. */
  readonly label: string
  /** The feature's attributes, when the format has them (a bulk import names projects from them). */
  readonly properties?: Readonly<Record<string, unknown>> | undefined
}

/** What every reader hands to the assembler. */
export interface ReadResult {
  readonly features: ReadonlyArray<SourceFeature>
  readonly sourceCrs: string
  readonly warnings: ReadonlyArray<string>
}

export const featureLabel = (index: number, name: unknown, layer?: string): string => {
  const named = typeof name === "string" && name.trim() !== "" ? ` ${JSON.stringify(name.trim().slice(0, 80))}` : ""
  return `${layer ? `layer ${JSON.stringify(layer)} ` : ""}feature ${index + 1}${named}`
}

/** Media types of the formats, for `Accept`/`Content-Type` handling and the API reference. */
export const MEDIA_TYPES: Readonly<Record<GisFormat, string>> = {
  geojson: "application/geo+json",
  kml: "application/vnd.google-earth.kml+xml",
  kmz: "application/vnd.google-earth.kmz",
  shapefile: "application/zip",
  geopackage: "application/geopackage+sqlite3"
}
