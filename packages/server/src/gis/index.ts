/**
 * Boundaries in and out in the formats foresters hold: the conversion layer
 * the import/export endpoints and the dashboard upload use. Pure functions over bytes and
 * strings: no network, no file-system writes, bounded work (see `ImportLimits`, docs/gis.md).
 *
 * - `importBoundary(bytes, hint)`: GeoJSON, KML, KMZ, zipped Shapefile or GeoPackage → one WGS84
 *   Polygon/MultiPolygon validated by the core validator, or `{ ok: false, problems }`. Never throws.
 * - `toFeatureCollection(projects)` / `toKml(projects)` (and their chunked forms for streaming).
 *
 * Parsing is synchronous CPU work (up to a few seconds for the largest allowed files, e.g. a
 * 10,000-placemark KML): an endpoint serving uploads runs it off the event loop (a worker
 * thread); the function only needs the bytes and the hint, so it moves there unchanged.
 */
import { Geometry } from "@canopy/core"
import { assemble } from "./assemble.ts"
import { detectFormat } from "./detect.ts"
import { readGeoJson } from "./readers/geojson.ts"
import { readGeoPackage } from "./readers/geopackage.ts"
import { decodeText, readKml, readKmz } from "./readers/kml.ts"
import { readShapefileZip } from "./readers/shapefile.ts"
import { DEFAULT_LIMITS, FileProblem, type GisFormat, type ImportFailure, type ImportHint, type ImportLimits, type ImportOptions, type ImportResult,
  type ReadResult } from "./types.ts"

export { type ExportProject, kmlChunks, toFeatureCollection, toKml } from "./export.ts"
export { type GisFormat, type ImportFailure, type ImportHint, type ImportLimits, type ImportOptions, type ImportProblem, type ImportResult,
  type ImportSuccess } from "./types.ts"

/** The features of a file of a known format, as its reader finds them (within `limits`). */
const read = (format: GisFormat, bytes: Uint8Array, limits: ImportLimits): ReadResult | Promise<ReadResult> => {
  switch (format) {
    case "geojson":
      return readGeoJson(decodeText(bytes), limits.maxFeatures)
    case "kml":
      return readKml(decodeText(bytes), limits)
    case "kmz":
      return readKmz(bytes, limits)
    case "shapefile":
      return readShapefileZip(bytes, limits)
    case "geopackage":
      return readGeoPackage(bytes, limits)
  }
}

/**
 * A file checked (not empty, within `limits.maxBytes`), its format found and its features read,
 * then given to `use`; a problem of the file (thrown by any of these steps or by `use`) is an
 * `{ ok: false, problems }` answer naming the format when it was recognised, never an exception.
 */
export const readFile = async <A>(
  bytes: Uint8Array,
  hint: ImportHint,
  limits: ImportLimits,
  use: (format: GisFormat, result: ReadResult) => A
): Promise<A | ImportFailure> => {
  let format: GisFormat | undefined
  try {
    if (bytes.length === 0) throw new FileProblem("the file is empty")
    if (bytes.length > limits.maxBytes) throw new FileProblem(`the file has ${bytes.length} bytes; at most ${limits.maxBytes} are allowed`)
    format = detectFormat(bytes, hint, limits.maxZipEntries)
    return use(format, await read(format, bytes, limits))
  } catch (e) {
    const problems = e instanceof FileProblem
      ? e.problems
      : [{ field: "file", message: `could not read the file (${e instanceof Error ? e.message : String(e)})` }]
    return format ? { ok: false, format, problems } : { ok: false, problems }
  }
}

/**
 * Reads a boundary from an uploaded file. Every failure, whatever the bytes, is an
 * `{ ok: false, problems }` answer, never an exception.
 */
export const importBoundary = async (
  bytes: Uint8Array,
  hint: ImportHint = {},
  options?: ImportOptions
): Promise<ImportResult> => {
  const limits: ImportLimits = { ...DEFAULT_LIMITS, ...options?.limits }
  return readFile(bytes, hint, limits, (format, result): ImportResult => {
    const assembled = assemble(result)
    if (!assembled.ok) return { ok: false, format, problems: assembled.problems }
    return {
      ok: true,
      format,
      geometry: assembled.geometry,
      areaHectares: Geometry.areaHectares(assembled.geometry),
      features: assembled.features,
      sourceCrs: result.sourceCrs,
      warnings: assembled.warnings
    }
  })
}
