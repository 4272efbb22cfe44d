/**
 * Project boundaries: GeoJSON Polygon and MultiPolygon validation, geodesic area on the WGS84
 * ellipsoid, RFC 7946 winding, bounding boxes; and asset locations (GeoJSON Point).
 *
 * Validation is strict and never repairs silently, except winding order (see `normalize`).
 */
import { type FieldError, formatPath, type Path } from "./FieldError.ts"
import { ringSignedArea } from "./internal/geodesy.ts"
import { topologyProblems } from "./internal/topology.ts"

/** `[longitude, latitude]`, optionally followed by an altitude that Canopy keeps but ignores. */
export type Position = readonly [number, number] | readonly [number, number, number]
/** A closed linear ring: first and last positions equal. */
export type Ring = ReadonlyArray<Position>

/** GeoJSON Polygon: an exterior ring followed by holes. */
export interface Polygon {
  readonly type: "Polygon"
  readonly coordinates: ReadonlyArray<Ring>
}

/** GeoJSON MultiPolygon: polygons that do not overlap. */
export interface MultiPolygon {
  readonly type: "MultiPolygon"
  readonly coordinates: ReadonlyArray<ReadonlyArray<Ring>>
}

/** A project boundary. */
export type Boundary = Polygon | MultiPolygon

/** GeoJSON Point, for asset locations. */
export interface Point {
  readonly type: "Point"
  readonly coordinates: Position
}

/** `[minLon, minLat, maxLon, maxLat]`. */
export type BBox = readonly [number, number, number, number]

/** A validation problem with its path as keys, relative to the validated value. */
export interface Problem {
  readonly path: Path
  readonly message: string
}

/** Most positions a boundary may have (DECISIONS). */
export const MAX_POSITIONS = 100_000
/** Most problems reported for one value; the rest are summarised in one last entry. */
export const MAX_PROBLEMS = 100

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const describe = (u: unknown): string => u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "number" ? String(u) : typeof u

class Collector {
  readonly problems: Array<Problem> = []
  extra = 0
  add(path: Path, message: string) {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ path, message })
    else this.extra++
  }
  result(): Array<Problem> {
    if (this.extra === 0) return this.problems
    return [...this.problems, { path: [], message: `and ${this.extra} more problems` }]
  }
}

/** Whether a value is a well-formed position inside the coordinate ranges (no allocation: the common case). */
const isGoodPosition = (value: unknown): boolean => {
  if (!Array.isArray(value) || (value.length !== 2 && value.length !== 3)) return false
  const lon = value[0], lat = value[1]
  if (typeof lon !== "number" || typeof lat !== "number" || !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90)) return false
  return value.length === 2 || (typeof value[2] === "number" && Number.isFinite(value[2]))
}

/** Checks one position; a likely latitude/longitude swap gets a hint. */
const checkPosition = (c: Collector, value: unknown, path: Path): value is Position => {
  if (isGoodPosition(value)) return true
  if (!Array.isArray(value)) return c.add(path, `must be a position [longitude, latitude], got ${describe(value)}`), false
  if (value.length < 2 || value.length > 3) {
    return c.add(path, `must have 2 numbers [longitude, latitude] (or 3 with altitude), got ${value.length}`), false
  }
  let ok = true
  value.forEach((n, i) => {
    if (typeof n !== "number" || !Number.isFinite(n)) {
      c.add([...path, i], `must be a finite number, got ${typeof n === "number" ? String(n) : describe(n)}`)
      ok = false
    }
  })
  if (!ok) return false
  const [lon, lat] = value as [number, number]
  const swapHint = Math.abs(lat) <= 180 && Math.abs(lon) <= 90
    ? " (positions are [longitude, latitude]: are these two swapped?)"
    : ""
  if (lon < -180 || lon > 180) {
    c.add([...path, 0], `longitude ${lon} is outside [-180, 180]`)
    ok = false
  }
  if (lat < -90 || lat > 90) {
    c.add([...path, 1], `latitude ${lat} is outside [-90, 90]${swapHint}`)
    ok = false
  }
  return ok
}

/** How many distinct positions a ring has, counted up to 3 (all a ring needs). */
const distinctUpTo3 = (positions: Ring): number => {
  const a = positions[0]!
  let b: Position | undefined
  for (const p of positions) {
    if (p[0] === a[0] && p[1] === a[1]) continue
    if (b === undefined) b = p
    else if (p[0] !== b[0] || p[1] !== b[1]) return 3
  }
  return b === undefined ? 1 : 2
}

/** Structural checks of one ring; returns whether the ring can go on to topology checks. */
const checkRing = (c: Collector, ring: unknown, path: Path): ring is Ring => {
  if (!Array.isArray(ring)) return c.add(path, `must be an array of positions, got ${describe(ring)}`), false
  let ok = true
  for (let i = 0; i < ring.length; i++) if (!isGoodPosition(ring[i])) ok = checkPosition(c, ring[i], [...path, i]) && ok
  if (!ok) return false
  const positions = ring as Ring
  if (positions.length < 4) {
    c.add(path, `a linear ring needs at least 4 positions, got ${positions.length}`)
    return false
  }
  const first = positions[0]!, last = positions[positions.length - 1]!
  if (first[0] !== last[0] || first[1] !== last[1]) {
    c.add(path, `ring is not closed: the last position must equal the first [${first[0]}, ${first[1]}]`)
    ok = false
  }
  const distinct = distinctUpTo3(positions)
  if (distinct < 3) {
    c.add(path, `a linear ring needs at least 3 distinct positions, got ${distinct}`)
    ok = false
  }
  for (let i = 0; i + 1 < positions.length; i++) {
    if (Math.abs(positions[i + 1]![0] - positions[i]![0]) >= 180) {
      c.add([...path, i + 1], "an edge spans 180° of longitude or more: split a boundary that crosses the antimeridian into a MultiPolygon")
      ok = false
      break
    }
  }
  return ok
}

/** The positions in `coordinates`, arrays of positions nested `depth` levels deep (a Polygon's 1, a MultiPolygon's 2). */
export const countPositions = (coordinates: unknown, depth: number): number => {
  if (!Array.isArray(coordinates)) return 0
  if (depth === 0) return coordinates.length
  let n = 0
  for (const child of coordinates) n += countPositions(child, depth - 1)
  return n
}

/** Structural checks of one polygon's rings; returns whether all of them are well formed. */
const checkPolygonRings = (c: Collector, rings: unknown, path: Path): rings is ReadonlyArray<Ring> => {
  if (!Array.isArray(rings)) return c.add(path, `must be an array of linear rings, got ${describe(rings)}`), false
  if (rings.length === 0) return c.add(path, "a polygon needs an exterior ring"), false
  let ok = true
  rings.forEach((ring, i) => {
    ok = checkRing(c, ring, [...path, i]) && ok
  })
  return ok
}

/**
 * Every problem of a boundary, with paths relative to the value (`["coordinates", 0, 3]`).
 * Never throws, whatever the input.
 */
export const problems = (value: unknown): Array<Problem> => {
  const c = new Collector()
  if (!isObject(value)) return [{ path: [], message: `must be a GeoJSON Polygon or MultiPolygon object, got ${describe(value)}` }]
  const type = value.type
  if (type !== "Polygon" && type !== "MultiPolygon") {
    return [{ path: ["type"], message: `must be "Polygon" or "MultiPolygon", got ${typeof type === "string" ? JSON.stringify(type) : describe(type)}` }]
  }
  const coordinates = value.coordinates
  if (!Array.isArray(coordinates)) {
    return [{ path: ["coordinates"], message: `must be an array, got ${describe(coordinates)}` }]
  }
  const total = countPositions(coordinates, type === "Polygon" ? 1 : 2)
  if (total > MAX_POSITIONS) {
    return [{ path: ["coordinates"], message: `has ${total} positions; at most ${MAX_POSITIONS} are allowed` }]
  }
  let polygons: Array<ReadonlyArray<Ring>> = []
  if (type === "Polygon") {
    if (checkPolygonRings(c, coordinates, ["coordinates"])) polygons = [coordinates as ReadonlyArray<Ring>]
  } else {
    if (coordinates.length === 0) return [{ path: ["coordinates"], message: "a MultiPolygon needs at least one polygon" }]
    let ok = true
    coordinates.forEach((rings, i) => {
      ok = checkPolygonRings(c, rings, ["coordinates", i]) && ok
    })
    if (ok) polygons = coordinates as Array<ReadonlyArray<Ring>>
  }
  if (c.problems.length === 0 && polygons.length > 0) {
    for (const t of topologyProblems(polygons)) {
      c.add(type === "Polygon" ? ["coordinates", t.ring] : ["coordinates", t.polygon, t.ring], t.message)
    }
  }
  return c.result()
}

/**
 * Validates a GeoJSON Polygon or MultiPolygon. Returns one `{ field, message }` per problem
 * (empty when valid); fields are paths below `field` (default `geometry`), such as
 * `geometry.coordinates[0][3]`.
 */
export const validate = (value: unknown, options?: { readonly field?: string }): ReadonlyArray<FieldError> => {
  const prefix = options?.field ?? "geometry"
  return problems(value).map((p) => ({ field: formatPath([...(prefix ? [prefix] : []), ...p.path]), message: p.message }))
}

const polygonsOf = (g: Boundary): ReadonlyArray<ReadonlyArray<Ring>> => g.type === "Polygon" ? [g.coordinates] : g.coordinates

/**
 * Geodesic area of a valid boundary on the WGS84 ellipsoid, in hectares, holes subtracted,
 * unrounded. Edges are geodesics, as in GeographicLib and PostGIS `geography`.
 */
export const areaHectares = (g: Boundary): number => {
  let m2 = 0
  for (const rings of polygonsOf(g)) {
    rings.forEach((ring, i) => {
      const a = Math.abs(ringSignedArea(ring))
      m2 += i === 0 ? a : -a
    })
  }
  return m2 / 10_000
}

/** Area rounded as stored and returned by the API: 4 decimals (DECISIONS). */
export const roundHectares = (hectares: number): number => Math.round(hectares * 10_000) / 10_000

/** Twice the signed planar area of a ring in the lon/lat plane: positive when counter-clockwise. */
const planarSignedArea2 = (ring: Ring): number => {
  let s = 0
  for (let i = 0; i + 1 < ring.length; i++) {
    s += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1]
  }
  return s
}

const orient = (ring: Ring, counterClockwise: boolean): Ring => (planarSignedArea2(ring) > 0) === counterClockwise ? ring : [...ring].reverse()

/**
 * The boundary with RFC 7946's right-hand rule applied: exterior rings counter-clockwise, holes
 * clockwise. Nothing else changes.
 */
export const normalize = <G extends Boundary>(g: G): G => {
  const fix = (rings: ReadonlyArray<Ring>) => rings.map((r, i) => orient(r, i === 0))
  return (g.type === "Polygon"
    ? { ...g, coordinates: fix(g.coordinates) }
    : { ...g, coordinates: g.coordinates.map(fix) }) as G
}

/** `[minLon, minLat, maxLon, maxLat]` over every position. */
export const bbox = (g: Boundary | Point): BBox => {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
  const visit = (p: Position) => {
    if (p[0] < minX) minX = p[0]
    if (p[0] > maxX) maxX = p[0]
    if (p[1] < minY) minY = p[1]
    if (p[1] > maxY) maxY = p[1]
  }
  if (g.type === "Point") visit(g.coordinates)
  else for (const rings of polygonsOf(g)) for (const ring of rings) for (const p of ring) visit(p)
  return [minX, minY, maxX, maxY]
}

/** Every problem of a GeoJSON Point (asset location), paths relative to the value. */
export const pointProblems = (value: unknown): Array<Problem> => {
  if (!isObject(value)) return [{ path: [], message: `must be a GeoJSON Point object, got ${describe(value)}` }]
  if (value.type !== "Point") {
    return [{ path: ["type"], message: `must be "Point", got ${typeof value.type === "string" ? JSON.stringify(value.type) : describe(value.type)}` }]
  }
  const c = new Collector()
  checkPosition(c, value.coordinates, ["coordinates"])
  return c.result()
}

/** Validates a GeoJSON Point; same shape of result as `validate`, below `field` (default `location`). */
export const validatePoint = (value: unknown, options?: { readonly field?: string }): ReadonlyArray<FieldError> => {
  const prefix = options?.field ?? "location"
  return pointProblems(value).map((p) => ({ field: formatPath([...(prefix ? [prefix] : []), ...p.path]), message: p.message }))
}
