/**
 * Checks of a Shapefile's `.shp` and `.dbf` against the bytes actually present, before shpjs reads
 * them: shpjs loops as many times as a `.dbf` header declares records (a 240-byte file declaring
 * 0xFFFFFFFF records runs the process out of memory) and builds every `.shp` record it finds.
 * Both are refused beyond `maxFeatures`; the `.dbf` also beyond its own length and beyond
 * `MAX_DBF_VALUES` values; the `.shp` beyond `Geometry.MAX_POSITIONS` polygon positions.
 */
import { Geometry } from "@canopy/core"
import { FileProblem } from "../types.ts"

/** Most attribute values (records × fields) of one `.dbf` read: shpjs decodes each separately. */
const MAX_DBF_VALUES = 1_000_000

const DBF_HEADER = 32
const FIELD_DESCRIPTOR = 32
const HEADER_END = 0x0d

/**
 * Refuses a `.dbf` whose header declares more records than `maxFeatures`, or more records,
 * fields or field bytes than the file holds (`records × recordLength + headerLength ≤ size`).
 */
export const checkDbf = (dbf: Uint8Array, file: string, maxFeatures: number): void => {
  if (dbf.length < DBF_HEADER + 1) throw new FileProblem(`${file} is too short for a dBASE header (${dbf.length} bytes)`)
  const view = new DataView(dbf.buffer, dbf.byteOffset, dbf.byteLength)
  const records = view.getUint32(4, true)
  const headerLength = view.getUint16(8, true)
  const recordLength = view.getUint16(10, true)
  if (records > maxFeatures) throw new FileProblem(`${file} declares ${records} records; at most ${maxFeatures} features are read`)
  if (headerLength < DBF_HEADER + 1 || headerLength > dbf.length) {
    throw new FileProblem(`${file} declares a ${headerLength}-byte header in a ${dbf.length}-byte file`)
  }
  let fields = 0
  let fieldBytes = 0
  for (let at = DBF_HEADER; at + FIELD_DESCRIPTOR < headerLength; at += FIELD_DESCRIPTOR) {
    const length = dbf[at + 16]!
    if (length === 0) throw new FileProblem(`${file}: field ${fields + 1} has length 0`)
    fields++
    fieldBytes += length
    if (dbf[at + FIELD_DESCRIPTOR] === HEADER_END) break
  }
  if (records > 0 && recordLength < fieldBytes) {
    throw new FileProblem(`${file} declares ${recordLength}-byte records, shorter than its ${fields} fields (${fieldBytes} bytes)`)
  }
  if (headerLength + records * recordLength > dbf.length) {
    throw new FileProblem(`${file} declares ${records} records of ${recordLength} bytes, more than its ${dbf.length} bytes hold`)
  }
  if (records * fields > MAX_DBF_VALUES) {
    throw new FileProblem(`${file} holds ${records} records of ${fields} fields; at most ${MAX_DBF_VALUES} attribute values are read`)
  }
}

/** Shape types whose records start with a box, a part count and a point count (polygons, Z and M). */
const POLYGON_TYPES = new Set([5, 15, 25])

/**
 * Walks the `.shp` record headers: refuses an invalid record length, more than `maxFeatures`
 * records, and polygons of more than `Geometry.MAX_POSITIONS` positions in all.
 */
export const checkShp = (shp: Uint8Array, file: string, maxFeatures: number): void => {
  if (shp.length < 100) throw new FileProblem(`${file} is too short for a Shapefile header (${shp.length} bytes)`)
  const view = new DataView(shp.buffer, shp.byteOffset, shp.byteLength)
  let records = 0
  let positions = 0
  for (let at = 100; at + 8 <= shp.length;) {
    const length = view.getInt32(at + 4) * 2 // big-endian, in 16-bit words
    if (length < 0 || (length > 0 && length < 4)) throw new FileProblem(`${file}: record ${records + 1} has an invalid length (${length} bytes)`)
    if (length > 0 && at + 8 + length > shp.length) break // shpjs stops at a truncated record too
    if (++records > maxFeatures) throw new FileProblem(`${file} holds more than ${maxFeatures} records; at most ${maxFeatures} features are read`)
    if (length >= 44 && POLYGON_TYPES.has(view.getInt32(at + 8, true))) {
      positions += Math.max(0, view.getInt32(at + 8 + 40, true))
      if (positions > Geometry.MAX_POSITIONS) {
        throw new FileProblem(`${file} holds polygons of more than ${Geometry.MAX_POSITIONS} positions in all; at most ${Geometry.MAX_POSITIONS} are read`)
      }
    }
    at += 8 + length
  }
}
