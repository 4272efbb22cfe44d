/**
 * How a boundary travels to a geometry worker. A well-formed one (every position an array of 2 or
 * 3 finite numbers) goes packed: longitudes and latitudes in one Float64Array, with ring and
 * polygon sizes, moved (not copied) with `postMessage` — ~1 ms on the event loop for 100,000
 * positions, where a structured clone of the nested arrays costs ~25 ms. Only what validation and
 * measurement read travels: altitudes stay behind (they are kept in the stored geometry, which the
 * caller normalises itself, and never affect a verdict). A malformed one goes as JSON text (~7 ms
 * per MB): the validator only lists its structural problems, but listing them for, say, a million
 * empty rings still takes hundreds of milliseconds. The values come from a parsed JSON body, so the
 * text is exact.
 */
import type { Geometry } from "@canopy/core"

/** A boundary whose every position is an array of 2 or 3 finite numbers, packed. */
export interface Packed {
  readonly type: "Polygon" | "MultiPolygon"
  /** `lon, lat` of every position, ring after ring. */
  readonly xy: Float64Array
  /** Positions of each ring. */
  readonly rings: Int32Array
  /** Rings of each polygon (one entry for a Polygon). */
  readonly polygons: Int32Array
}

/**
 * A job for a worker: the boundary packed, or as JSON text; or a whole JSON request body to parse,
 * whose top-level `field` is the boundary to check.
 */
export type Request =
  | { readonly id: number; readonly packed: Packed }
  | { readonly id: number; readonly json: string }
  | { readonly id: number; readonly body: Uint8Array; readonly field: string }
  /** Two valid stored boundaries (JSON text): the area they share. */
  | { readonly id: number; readonly shared: readonly [string, string] }
  /** A valid stored boundary (JSON text) and a position: whether the boundary covers it. */
  | { readonly id: number; readonly covers: string; readonly position: readonly [number, number] }

/** A worker's answer: the problems (paths relative to the value), or the measures. */
export type Answer =
  | { readonly id: number; readonly problems: ReadonlyArray<Geometry.Problem> }
  | { readonly id: number; readonly area_hectares: number; readonly bbox: Geometry.BBox }
  | { readonly id: number; readonly sharedHectares: number }
  | { readonly id: number; readonly covered: boolean }
  | BodyAnswer

/**
 * A worker's answer to a body: not JSON; or the body without its boundary field, and the field —
 * absent, null, its problems, or its normalised JSON text (UTF-8, its memory moved with the message:
 * no 3 MB string is copied onto the event loop's heap) with the measures.
 */
export type BodyAnswer =
  | { readonly id: number; readonly notJson: string }
  | {
    readonly id: number
    readonly rest: unknown
    readonly field:
      | { readonly kind: "absent" }
      | { readonly kind: "value"; readonly value: unknown }
      | { readonly kind: "invalid"; readonly problems: ReadonlyArray<Geometry.Problem> }
      | { readonly kind: "valid"; readonly utf8: Uint8Array; readonly area_hectares: number; readonly bbox: Geometry.BBox }
  }

/**
 * Request bodies that the HTTP adapter assembled for one request alone (node.ts): their memory
 * may be moved to a geometry worker (which leaves the body empty on this thread) instead of copied.
 * A body the pool is not sure of (an embedder's own buffer) is copied.
 */
export const movableBodies = new WeakSet<Uint8Array>()

/** The list of what moves with a body's job: its memory, when it is movable and the body spans all of it. */
export const bodyTransfer = (body: Uint8Array): Array<ArrayBuffer> =>
  movableBodies.has(body) && body.buffer instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength
    ? [body.buffer]
    : []

/** What a worker says once it has loaded and can take jobs. */
export interface Ready {
  readonly ready: true
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const kind = (value: unknown): "Polygon" | "MultiPolygon" | undefined => {
  if (!isRecord(value) || !Array.isArray(value.coordinates)) return undefined
  return value.type === "Polygon" || value.type === "MultiPolygon" ? value.type : undefined
}

/** The polygons of a boundary: its rings for a Polygon, its polygons for a MultiPolygon. */
const polygonsOf = (value: unknown): ReadonlyArray<unknown> => {
  const v = value as { readonly type: string; readonly coordinates: ReadonlyArray<unknown> }
  return v.type === "Polygon" ? [v.coordinates] : v.coordinates
}

/**
 * How much work a boundary is: its positions (as the validator counts them for its 100,000 cap)
 * and its parts (rings and polygons, which cost work even when empty, and which no cap bounds);
 * undefined when the value is not a Polygon or MultiPolygon with coordinates. Touches rings, not
 * positions.
 */
export const sizeOf = (value: unknown): { readonly positions: number; readonly parts: number } | undefined => {
  if (!kind(value)) return undefined
  const polygons = polygonsOf(value)
  let positions = 0, parts = polygons.length
  for (const rings of polygons) {
    if (!Array.isArray(rings)) continue
    parts += rings.length
    for (const ring of rings) if (Array.isArray(ring)) positions += ring.length
  }
  return { positions, parts }
}

const isFiniteNumber = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)

/**
 * The packed boundary, or undefined when some polygon, ring or position is malformed (the caller
 * then sends it as JSON text).
 */
export const pack = (value: unknown): Packed | undefined => {
  const type = kind(value)
  if (!type) return undefined
  const polygons = polygonsOf(value)
  let positions = 0, ringCount = 0
  for (const rings of polygons) {
    if (!Array.isArray(rings)) return undefined
    for (const ring of rings) {
      if (!Array.isArray(ring)) return undefined
      positions += ring.length
      ringCount++
    }
  }
  const xy = new Float64Array(positions * 2)
  const ringSizes = new Int32Array(ringCount)
  const polygonSizes = new Int32Array(polygons.length)
  let k = 0, r = 0
  for (let p = 0; p < polygons.length; p++) {
    const rings = polygons[p] as ReadonlyArray<ReadonlyArray<unknown>>
    polygonSizes[p] = rings.length
    for (const ring of rings) {
      ringSizes[r++] = ring.length
      for (const position of ring) {
        if (!Array.isArray(position) || position.length < 2 || position.length > 3) return undefined
        const lon = position[0], lat = position[1]
        if (!isFiniteNumber(lon) || !isFiniteNumber(lat) || (position.length === 3 && !isFiniteNumber(position[2]))) return undefined
        xy[k++] = lon
        xy[k++] = lat
      }
    }
  }
  return { type, xy, rings: ringSizes, polygons: polygonSizes }
}

/** The boundary back from its packed form, positions as `[lon, lat]`. */
export const unpack = (packed: Packed): Geometry.Boundary => {
  let k = 0, r = 0
  const polygons: Array<Array<Array<[number, number]>>> = []
  for (let p = 0; p < packed.polygons.length; p++) {
    const rings: Array<Array<[number, number]>> = []
    for (let i = 0; i < packed.polygons[p]!; i++) {
      const size = packed.rings[r++]!
      const ring: Array<[number, number]> = new Array(size)
      for (let j = 0; j < size; j++, k += 2) ring[j] = [packed.xy[k]!, packed.xy[k + 1]!]
      rings.push(ring)
    }
    polygons.push(rings)
  }
  return packed.type === "Polygon"
    ? { type: "Polygon", coordinates: polygons[0]! }
    : { type: "MultiPolygon", coordinates: polygons }
}
