/**
 * Projects out as a zipped ESRI Shapefile: one polygon layer (`.shp`, `.shx`, `.dbf`), its CRS
 * (`.prj`, WGS84 longitude/latitude as ESRI WKT) and its text encoding (`.cpg`: UTF-8), zipped with
 * fflate. Written by hand rather than with `@mapbox/shp-write`, whose dBASE writer stores one byte
 * per UTF-16 code unit (names beyond Latin-1 come out wrong) and which splits Polygons and
 * MultiPolygons into two layers.
 *
 * - One record per project, in the list's order: a Polygon or MultiPolygon is one polygon record
 *   (shape type 5) whose parts are all its rings, outer rings clockwise and holes
 *   counter-clockwise (the Shapefile rule); a project without a boundary is a null shape.
 * - Attributes (dBASE III, UTF-8): `id`, `name`, `slug`, `descriptio`, `status`, `area_hecta`,
 *   `created_at`, `updated_at` — the names GDAL gives the export's GeoJSON properties in a
 *   Shapefile (at most 10 characters). The import names features by `name`. A text field holds
 *   at most 254 bytes: a longer value is cut at a character boundary.
 * - `canopy_export.txt`, when the file is a list export's: whether it holds the whole list, and
 *   the cursor of the rest.
 */
import { zipSync } from "fflate"
import type { Geometry } from "@canopy/core"
import type { ExportEnd } from "./export.ts"

/** A project as the binary writers take it: attributes and the boundary as a value. */
export interface ExportRecord {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string | null
  readonly status: string
  readonly area_hectares: number
  readonly created_at?: string | undefined
  readonly updated_at?: string | undefined
  readonly geometry: Geometry.Boundary | null
}

/** WGS84 longitude/latitude in degrees, as ESRI writes it in a `.prj`. */
export const WGS84_PRJ =
  "GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]"

/** The name of the entry saying whether a list export is complete. */
const EXPORT_NOTE_ENTRY = "canopy_export.txt"

/** Twice the signed planar area of a ring: positive when counter-clockwise. */
const signedArea = (ring: ReadonlyArray<Geometry.Position>): number => {
  let sum = 0
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) sum += (ring[j]![0] - ring[i]![0]) * (ring[j]![1] + ring[i]![1])
  return sum
}

/** The rings of a boundary, each oriented for a Shapefile (outer clockwise, holes counter-clockwise). */
const shapefileRings = (g: Geometry.Boundary): Array<ReadonlyArray<Geometry.Position>> => {
  const polygons = g.type === "Polygon" ? [g.coordinates] : g.coordinates
  const rings: Array<ReadonlyArray<Geometry.Position>> = []
  for (const polygon of polygons) {
    polygon.forEach((ring, i) => {
      const clockwise = signedArea(ring) < 0
      rings.push(clockwise === (i === 0) ? ring : [...ring].reverse())
    })
  }
  return rings
}

interface Box {
  minX: number
  minY: number
  maxX: number
  maxY: number
}

const emptyBox = (): Box => ({ minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity })

/** One record's content (after its 8-byte header): a polygon, or a null shape. */
const shapeContent = (geometry: Geometry.Boundary | null, layerBox: Box): Uint8Array => {
  if (geometry === null) {
    const out = new Uint8Array(4)
    new DataView(out.buffer).setInt32(0, 0, true)
    return out
  }
  const rings = shapefileRings(geometry)
  const points = rings.reduce((n, r) => n + r.length, 0)
  const out = new Uint8Array(44 + 4 * rings.length + 16 * points)
  const view = new DataView(out.buffer)
  view.setInt32(0, 5, true)
  view.setInt32(36, rings.length, true)
  view.setInt32(40, points, true)
  const box = emptyBox()
  let at = 44 + 4 * rings.length
  let index = 0
  rings.forEach((ring, part) => {
    view.setInt32(44 + 4 * part, index, true)
    for (const p of ring) {
      const [x, y] = p
      if (!Number.isFinite(x) || !Number.isFinite(y)) throw new TypeError("a boundary position is not a finite number")
      view.setFloat64(at, x, true)
      view.setFloat64(at + 8, y, true)
      at += 16
      box.minX = Math.min(box.minX, x)
      box.minY = Math.min(box.minY, y)
      box.maxX = Math.max(box.maxX, x)
      box.maxY = Math.max(box.maxY, y)
    }
    index += ring.length
  })
  ;[box.minX, box.minY, box.maxX, box.maxY].forEach((v, i) => view.setFloat64(4 + 8 * i, v, true))
  layerBox.minX = Math.min(layerBox.minX, box.minX)
  layerBox.minY = Math.min(layerBox.minY, box.minY)
  layerBox.maxX = Math.max(layerBox.maxX, box.maxX)
  layerBox.maxY = Math.max(layerBox.maxY, box.maxY)
  return out
}

/** The 100-byte header of a `.shp` or `.shx` of `bytes` bytes. */
const mainHeader = (bytes: number, box: Box): Uint8Array => {
  const out = new Uint8Array(100)
  const view = new DataView(out.buffer)
  view.setInt32(0, 9994, false)
  view.setInt32(24, bytes / 2, false)
  view.setInt32(28, 1000, true)
  view.setInt32(32, 5, true)
  const empty = box.minX > box.maxX
  ;[box.minX, box.minY, box.maxX, box.maxY].forEach((v, i) => view.setFloat64(36 + 8 * i, empty ? 0 : v, true))
  return out
}

const concat = (parts: ReadonlyArray<Uint8Array>, total: number): Uint8Array => {
  const out = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** The `.shp` and `.shx` of the records. */
const shapes = (records: ReadonlyArray<ExportRecord>): { readonly shp: Uint8Array; readonly shx: Uint8Array } => {
  const box = emptyBox()
  const parts: Array<Uint8Array> = []
  const index = new Uint8Array(8 * records.length)
  const indexView = new DataView(index.buffer)
  let offset = 100
  records.forEach((r, i) => {
    const content = shapeContent(r.geometry, box)
    const header = new Uint8Array(8)
    const view = new DataView(header.buffer)
    view.setInt32(0, i + 1, false)
    view.setInt32(4, content.length / 2, false)
    indexView.setInt32(8 * i, offset / 2, false)
    indexView.setInt32(8 * i + 4, content.length / 2, false)
    parts.push(header, content)
    offset += 8 + content.length
  })
  return {
    shp: concat([mainHeader(offset, box), ...parts], offset),
    shx: concat([mainHeader(100 + index.length, box), index], 100 + index.length)
  }
}

const encoder = new TextEncoder()
/** Most bytes of a dBASE character field. */
const MAX_TEXT_BYTES = 254

/** UTF-8 bytes of `text`, cut to at most `max` bytes at a character boundary. */
const utf8Within = (text: string, max: number): Uint8Array => {
  const bytes = encoder.encode(text)
  if (bytes.length <= max) return bytes
  let end = max
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end-- // not inside a character's continuation bytes
  return bytes.subarray(0, end)
}

type Field = { readonly name: string; readonly type: "C" | "N"; readonly decimals: number; readonly value: (r: ExportRecord) => string }

const FIELDS: ReadonlyArray<Field> = [
  { name: "id", type: "C", decimals: 0, value: (r) => r.id },
  { name: "name", type: "C", decimals: 0, value: (r) => r.name },
  { name: "slug", type: "C", decimals: 0, value: (r) => r.slug },
  { name: "descriptio", type: "C", decimals: 0, value: (r) => r.description ?? "" },
  { name: "status", type: "C", decimals: 0, value: (r) => r.status },
  { name: "area_hecta", type: "N", decimals: 6, value: (r) => r.area_hectares.toFixed(6) },
  { name: "created_at", type: "C", decimals: 0, value: (r) => r.created_at ?? "" },
  { name: "updated_at", type: "C", decimals: 0, value: (r) => r.updated_at ?? "" }
]

/** The `.dbf` of the records: each field as wide as its longest value (1 to 254 bytes). */
const attributes = (records: ReadonlyArray<ExportRecord>): Uint8Array => {
  const values = records.map((r) => FIELDS.map((f) => utf8Within(f.value(r), f.type === "N" ? 20 : MAX_TEXT_BYTES)))
  const widths = FIELDS.map((_, i) => Math.max(1, ...values.map((v) => v[i]!.length)))
  const headerLength = 32 + 32 * FIELDS.length + 1
  const recordLength = 1 + widths.reduce((a, b) => a + b, 0)
  const out = new Uint8Array(headerLength + recordLength * records.length + 1)
  const view = new DataView(out.buffer)
  const now = new Date()
  out[0] = 0x03
  out[1] = now.getUTCFullYear() - 1900
  out[2] = now.getUTCMonth() + 1
  out[3] = now.getUTCDate()
  view.setUint32(4, records.length, true)
  view.setUint16(8, headerLength, true)
  view.setUint16(10, recordLength, true)
  FIELDS.forEach((f, i) => {
    const at = 32 + 32 * i
    out.set(encoder.encode(f.name), at)
    out[at + 11] = f.type.charCodeAt(0)
    out[at + 16] = widths[i]!
    out[at + 17] = f.decimals
  })
  out[headerLength - 1] = 0x0d
  out.fill(0x20, headerLength, out.length - 1)
  values.forEach((row, r) => {
    let at = headerLength + r * recordLength + 1
    row.forEach((bytes, i) => {
      // text left-aligned, numbers right-aligned, both padded with spaces
      out.set(bytes, FIELDS[i]!.type === "N" ? at + widths[i]! - bytes.length : at)
      at += widths[i]!
    })
  })
  out[out.length - 1] = 0x1a
  return out
}

/** The note of a list export: complete or not, and where the rest starts. */
const exportNote = (end: ExportEnd): string => `truncated: ${end.truncated}\nnext_cursor: ${end.next_cursor ?? ""}\n`

/**
 * The projects as a zipped Shapefile `<baseName>.shp` (and its sidecar files); with `end`, the
 * list export's note (`canopy_export.txt`).
 */
export const toShapefileZip = (records: ReadonlyArray<ExportRecord>, options: { readonly baseName: string; readonly end?: ExportEnd }): Uint8Array => {
  const { shp, shx } = shapes(records)
  const base = options.baseName
  return zipSync({
    [`${base}.shp`]: shp,
    [`${base}.shx`]: shx,
    [`${base}.dbf`]: attributes(records),
    [`${base}.prj`]: encoder.encode(WGS84_PRJ),
    [`${base}.cpg`]: encoder.encode("UTF-8"),
    ...(options.end ? { [EXPORT_NOTE_ENTRY]: encoder.encode(exportNote(options.end)) } : {})
  }, { level: 6 })
}
