/**
 * Overlaps between project boundaries: the same hectares counted in two projects is the classic
 * carbon-accounting error. The area shared by two boundaries is their intersection measured as
 * project areas are: geodesically on the WGS84 ellipsoid (`Geometry.areaHectares`). It is summed
 * over the pieces of both boundaries' edges that bound the intersection (Green's theorem,
 * `internal/sharedArea.ts`), without building it; the clipper (`polyclip-ts`, Turf 7's) measures
 * the rare pair whose pieces do not close. Edges are cut where their straight lon/lat lines cross;
 * for boundaries of fields and forests (edges of metres to kilometres) that differs from the
 * geodesic crossing by far less than the 4 decimals the API reports. docs/decisions.md, "Overlaps";
 * docs/architecture.md, "Overlaps by the pieces of edges".
 */
import { Context } from "effect"
import { createHash } from "node:crypto"
import { intersection, type Geom } from "polyclip-ts"
import * as Geometry from "./Geometry.ts"
import * as PreparedArea from "./internal/preparedArea.ts"
import * as SharedArea from "./internal/sharedArea.ts"

/** What an account does when a new or changed boundary overlaps another project's. */
export type Policy = "warn" | "reject"
/** The policies, for schemas. */
export const policies = ["warn", "reject"] as const

/** Another project sharing hectares with the one being written. */
export interface Overlap {
  readonly project_id: string
  readonly name: string
  /** The shared area in geodesic hectares, rounded like `area_hectares` (4 decimals). */
  readonly overlap_hectares: number
}

/**
 * Most other projects one write compares its boundary with: the candidates are the projects whose
 * bounding boxes meet its box (found through a spatial index), in id order; beyond this many, the report
 * says it is incomplete rather than doing unbounded work.
 */
export const MAX_CANDIDATES = 1_000

/**
 * Longest boundary text (characters) the store compares with its neighbours' to recognise
 * duplicates without reading them out; a longer one is compared after each neighbour is read
 * (sending megabytes with every candidate query would cost more than it saves).
 */
export const SAME_BOUNDARY_MAX_CHARS = 1_000_000

/**
 * How long after a write began its comparisons may still run (ms): a write is answered within
 * about 2 s whatever its boundary, its validation included. Comparisons left when it has passed
 * are not made, and the report says it is incomplete.
 */
export const WRITE_DEADLINE_MS = 1_700

/** Most time one `intersects` list request spends testing candidates (ms). */
export const LIST_BUDGET_MS = 2_000

/**
 * When the current write began (epoch ms), as the host knows it: the HTTP layer sets the time the
 * request arrived, so that validating a large body before the service counts too. Without it, the
 * service's own start.
 */
export const WriteStarted = Context.Reference<number | undefined>("canopy/Overlap/WriteStarted", { defaultValue: () => undefined })

/** The overlaps found by one write, and whether every candidate was compared. */
export interface Report {
  readonly overlaps: ReadonlyArray<Overlap>
  /** False when candidates were left out (more than `MAX_CANDIDATES`, or the time budget ran out). */
  readonly complete: boolean
}

/** The polygons' rings as the clipper takes them, positions snapped to `1 / grid` degrees when given. */
const polygonsOf = (g: Geometry.Boundary, grid?: number): Array<Array<Array<[number, number]>>> => {
  const at = grid === undefined ? (x: number) => x : (x: number) => Math.round(x * grid) / grid
  return (g.type === "Polygon" ? [g.coordinates] : g.coordinates).map((rings) => rings.map((ring) => ring.map((p) => [at(p[0]), at(p[1])] as [number, number])))
}

/** Keys of the boundaries written last, by text: a few writes interleave, each asking for its own key two or three times. */
const recentKeys = new Map<string, string>()
let recentChars = 0
const RECENT_KEYS = 16
const RECENT_KEY_CHARS = 4_000_000

/**
 * The key stores keep beside a stored boundary text (its SHA-256, hex): fixed-size, so that
 * duplicates are found without comparing texts; equal keys are taken as equal texts.
 */
export const boundaryKey = (text: string): string => {
  // A write asks for its own boundary's key two or three times (each comparison, then its insert);
  // the same string object finds its entry without reading the text again (V8 keeps its hash).
  let key = recentKeys.get(text)
  if (key === undefined) {
    key = createHash("sha256").update(text).digest("hex")
    recentKeys.set(text, key)
    recentChars += text.length
    for (const old of recentKeys.keys()) {
      if (recentKeys.size <= RECENT_KEYS && recentChars <= RECENT_KEY_CHARS) break
      recentKeys.delete(old)
      recentChars -= old.length
    }
  }
  return key
}

/** Whether two boxes share at least one point. */
export const boxesMeet = (a: Geometry.BBox, b: Geometry.BBox): boolean => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]

/** A boundary's polygons as one array, the same array each time (the measure keeps its edges by it). */
const ringsOf = (g: Geometry.Boundary): SharedArea.Rings => {
  if (g.type === "MultiPolygon") return g.coordinates
  let rings = polygonRings.get(g)
  if (!rings) polygonRings.set(g, rings = [g.coordinates])
  return rings
}
const polygonRings = new WeakMap<Geometry.Boundary, SharedArea.Rings>()

/**
 * Whether two valid boundaries share area (not only edges or points): stops at the first place
 * where their edges truly cross, else classifies the pieces of their edges. Exact orientation
 * predicates decide every meeting of two edges. O((n + k) log n).
 */
export const sharesArea = (a: Geometry.Boundary, b: Geometry.Boundary): boolean => {
  if (!boxesMeet(Geometry.bbox(a), Geometry.bbox(b))) return false
  try {
    return SharedArea.sharesArea(ringsOf(a), ringsOf(b))
  } catch {
    return clippedHectares(a, b) > 0
  }
}

/**
 * The geodesic area shared by two valid boundaries, in hectares (unrounded; 0 when they only
 * touch or are apart), by Green's theorem over the pieces of both boundaries' edges that bound
 * the intersection (`internal/sharedArea.ts`). Its first stage is the walk of `sharesArea` carried
 * to the end: neighbours that share nothing (the stands of an estate, sharing edges) cost what that
 * test costs. No polygon is built, yet the figure is the clipper's. Should those pieces
 * not close into rings (rounding on nearly collinear edges), the clipper measures instead
 * (`clippedHectares`); throws when it cannot either. Cost O((n + k) log n) for n edges meeting k
 * times: run it where a time budget applies for large ones (`GeometryCheck.shared`).
 */
export const sharedHectares = (a: Geometry.Boundary, b: Geometry.Boundary): number => {
  try {
    return sharedHectaresByEdges(a, b)
  } catch {
    return clippedHectares(a, b)
  }
}

/**
 * `sharedHectares` without the clipper's fallback: throws when the pieces of edges found do not
 * close into rings, or when its work passes `limit` units (pairs of edges examined, edges tested,
 * pieces: ~5–20 ns each, besides the linear reading of both boundaries), so a host can measure on
 * its event loop what is certainly cheap and hand the rest to a worker.
 */
export const sharedHectaresByEdges = (a: Geometry.Boundary, b: Geometry.Boundary, limit = Infinity): number =>
  SharedArea.sharedSquareMetres(ringsOf(a), ringsOf(b), limit) / 10_000

/**
 * `sharedHectaresByEdges` for a boundary compared with many others: the boundary with more edges
 * is prepared once (its edges in a grid, running sums of their terms; kept by its rings array as
 * long as the boundary object lives) and each other one costs what its own edges meet
 * (`internal/preparedArea.ts`). The same pieces and terms, summed in another order: equal to
 * `sharedHectaresByEdges` to rounding. Throws as it does.
 */
export const sharedHectaresPrepared = (a: Geometry.Boundary, b: Geometry.Boundary, limit = Infinity): number => {
  const ra = ringsOf(a), rb = ringsOf(b)
  return PreparedArea.sharedSquareMetresPrepared(ra, rb, SharedArea.edgeCount(ra) >= SharedArea.edgeCount(rb) ? "a" : "b", limit) / 10_000
}

/**
 * The geodesic area shared by two valid boundaries, by building their intersection with the
 * clipper (`polyclip-ts`) and measuring it; throws when the clipper cannot handle the pair even on
 * snapped positions. The reference `sharedHectares` is checked against, and its fallback.
 */
export const clippedHectares = (a: Geometry.Boundary, b: Geometry.Boundary): number => {
  const ab = Geometry.bbox(a)
  const bb = Geometry.bbox(b)
  if (!boxesMeet(ab, bb)) return 0
  // Only what lies in the box both boxes share can be shared: each ring is cut to that box first
  // (linear), so two large boundaries that overlap at their edges are clipped on a few positions.
  const box: Geometry.BBox = [Math.max(ab[0], bb[0]), Math.max(ab[1], bb[1]), Math.min(ab[2], bb[2]), Math.min(ab[3], bb[3])]
  a = cutToBox(a, box)
  b = cutToBox(b, box)
  let failure: unknown
  // Boundaries that nearly coincide (the same field drawn twice, one reprojected) can defeat the
  // clipper's floating point ("Unable to complete output ring"): it is retried on positions
  // snapped to 1e-10, then 1e-8 degrees (about a millimetre), which it handles.
  for (const grid of [undefined, 1e10, 1e8]) {
    try {
      const shared = intersection(polygonsOf(a, grid) as Geom, polygonsOf(b, grid) as Geom)
      return shared.length === 0 ? 0 : Geometry.areaHectares({ type: "MultiPolygon", coordinates: shared })
    } catch (e) {
      failure = e
    }
  }
  throw failure
}

/**
 * Sutherland–Hodgman: a ring cut to an axis-aligned box. The result has the same area inside the
 * box (where a concave ring leaves the box and comes back, it runs along the box's edge — zero
 * area, which the clipper handles); rings with nothing inside are dropped.
 */
const cutRing = (ring: Geometry.Ring, [w, s, e, n]: Geometry.BBox): Array<[number, number]> => {
  let points: Array<[number, number]> = ring.slice(0, -1).map((p) => [p[0], p[1]])
  const edges: ReadonlyArray<[(p: [number, number]) => boolean, (p: [number, number], q: [number, number]) => [number, number]]> = [
    [(p) => p[0] >= w, (p, q) => [w, p[1] + ((q[1] - p[1]) * (w - p[0])) / (q[0] - p[0])]],
    [(p) => p[0] <= e, (p, q) => [e, p[1] + ((q[1] - p[1]) * (e - p[0])) / (q[0] - p[0])]],
    [(p) => p[1] >= s, (p, q) => [p[0] + ((q[0] - p[0]) * (s - p[1])) / (q[1] - p[1]), s]],
    [(p) => p[1] <= n, (p, q) => [p[0] + ((q[0] - p[0]) * (n - p[1])) / (q[1] - p[1]), n]]
  ]
  for (const [inside, cross] of edges) {
    if (points.length === 0) break
    const out: Array<[number, number]> = []
    for (let i = 0; i < points.length; i++) {
      const p = points[i]!
      const q = points[(i + 1) % points.length]!
      const pin = inside(p)
      const qin = inside(q)
      if (pin) out.push(p)
      if (pin !== qin) out.push(cross(p, q))
    }
    points = out
  }
  return points.length >= 3 ? [...points, points[0]!] : []
}

/** A boundary with every ring cut to a box (polygons whose shell falls outside dropped). */
const cutToBox = (g: Geometry.Boundary, box: Geometry.BBox): Geometry.MultiPolygon => {
  const polygons: Array<Array<Geometry.Ring>> = []
  for (const rings of g.type === "Polygon" ? [g.coordinates] : g.coordinates) {
    const shell = cutRing(rings[0]!, box)
    if (shell.length === 0) continue
    polygons.push([shell, ...rings.slice(1).map((h) => cutRing(h, box)).filter((h) => h.length > 0)])
  }
  return { type: "MultiPolygon", coordinates: polygons }
}

/** Whether a position lies inside a ring (even-odd rule in the lon/lat plane), or on one of its edges. */
const ringCovers = (ring: Geometry.Ring, x: number, y: number): "in" | "on" | "out" => {
  let inside = false
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!
    const [xj, yj] = ring[j]!
    // on the edge: collinear and within its box
    const cross = (xj - xi) * (y - yi) - (yj - yi) * (x - xi)
    if (cross === 0 && Math.min(xi, xj) <= x && x <= Math.max(xi, xj) && Math.min(yi, yj) <= y && y <= Math.max(yi, yj)) return "on"
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside ? "in" : "out"
}

/**
 * Whether a valid boundary covers a position: inside a polygon's exterior and not strictly inside
 * one of its holes; on an edge counts as covered. Edges are taken as straight lon/lat lines (for
 * field-sized edges, within millimetres of the geodesic). O(positions).
 */
export const coversPoint = (b: Geometry.Boundary, position: Geometry.Position): boolean => {
  const [x, y] = position
  for (const rings of b.type === "Polygon" ? [b.coordinates] : b.coordinates) {
    const shell = ringCovers(rings[0]!, x, y)
    if (shell === "out") continue
    if (shell === "on") return true
    if (rings.slice(1).every((hole) => ringCovers(hole, x, y) !== "in")) return true
  }
  return false
}

/** The sentence a refused write answers with (a 409 under the `reject` policy). */
export const refusal = (overlaps: ReadonlyArray<Overlap>): string => {
  const listed = overlaps.slice(0, 3).map((o) => `${o.name} (${o.project_id}) by ${o.overlap_hectares} ha`).join(", ")
  const more = overlaps.length > 3 ? ` and ${overlaps.length - 3} more` : ""
  return `The boundary overlaps ${listed}${more}; this account refuses overlapping boundaries (overlap_policy: reject)`
}
