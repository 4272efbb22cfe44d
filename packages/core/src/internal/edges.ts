/**
 * The edges of a boundary as the overlap measure (`sharedArea.ts`) walks them: flat arrays,
 * oriented with the interior on the left; the order of a sweep over longitude; an exact even–odd
 * point test over latitude bands; and the budget of work a measure may spend.
 */
import { orient2d } from "robust-predicates"
import { int32, scratch } from "./scratch.ts"

/** Polygons as rings of [lon, lat] positions, closing position included (GeoJSON). */
export type Rings = ReadonlyArray<ReadonlyArray<ReadonlyArray<ReadonlyArray<number>>>>

/** Edges of one boundary, oriented so that its interior is on the left (shells CCW, holes CW). */
export interface Edges {
  readonly x1: Float64Array
  readonly y1: Float64Array
  readonly x2: Float64Array
  readonly y2: Float64Array
  readonly n: number
  readonly box: readonly [number, number, number, number]
  /** Where each ring's edges start (one more entry: `n`); each ring's edges are consecutive. */
  readonly ringStarts: Int32Array
  /** Per ring: whether its edges run against their index order (edge i + 1 ends where edge i starts). */
  readonly reversed: Uint8Array
  /** Every edge's index ordered by its western end (made when first needed). */
  byWest?: Int32Array
  /** Its point test (made when first needed). */
  test?: (x: number, y: number) => number
}

const planarTwiceArea = (ring: ReadonlyArray<ReadonlyArray<number>>): number => {
  let s = 0
  for (let i = 0; i + 1 < ring.length; i++) s += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!
  return s
}

/** Edges already made, by the rings they were made of (a write's boundary is compared with each neighbour). */
const made = new WeakMap<Rings, Edges>()

/**
 * The edges of a boundary's rings, without repeated positions, shells turned counter-clockwise and
 * holes clockwise; made once per rings array.
 */
export const edgesOf = (polygons: Rings): Edges => {
  let E = made.get(polygons)
  if (!E) made.set(polygons, E = makeEdges(polygons))
  return E
}

const makeEdges = (polygons: Rings): Edges => {
  let count = 0
  for (const rings of polygons) for (const ring of rings) count += Math.max(0, ring.length - 1)
  // One allocation for the four coordinate arrays (each typed array of its own costs microseconds).
  const all = new Float64Array(4 * count)
  const x1 = all.subarray(0, count), y1 = all.subarray(count, 2 * count), x2 = all.subarray(2 * count, 3 * count), y2 = all.subarray(3 * count)
  let n = 0
  let w = Infinity, s = Infinity, e = -Infinity, north = -Infinity
  const starts: Array<number> = [], reversed: Array<number> = []
  for (const rings of polygons) {
    rings.forEach((ring, r) => {
      const ccw = planarTwiceArea(ring) > 0
      const flip = r === 0 ? !ccw : ccw
      starts.push(n)
      reversed.push(flip ? 1 : 0)
      for (let i = 0; i + 1 < ring.length; i++) {
        const p = ring[flip ? i + 1 : i]!, q = ring[flip ? i : i + 1]!
        if (p[0] === q[0] && p[1] === q[1]) continue
        x1[n] = p[0]!
        y1[n] = p[1]!
        x2[n] = q[0]!
        y2[n] = q[1]!
        w = Math.min(w, p[0]!)
        e = Math.max(e, p[0]!)
        s = Math.min(s, p[1]!)
        north = Math.max(north, p[1]!)
        n++
      }
    })
  }
  starts.push(n)
  return { x1, y1, x2, y2, n, box: [w, s, e, north], ringStarts: Int32Array.from(starts), reversed: Uint8Array.from(reversed) }
}

/** Thrown when a measure passes its budget of work (`limit`): pairs of edges examined, edges tested, pieces. */
export class OverBudget extends Error {
  constructor() {
    super("the measure passed its budget of work")
  }
}

// The work done by the current measure (the code is synchronous: one measure at a time per thread).
let work = 0
let maxWork = Infinity
/** Counts `units` of work against the current measure's budget; throws `OverBudget` past it. */
export const spend = (units: number) => {
  if ((work += units) > maxWork) throw new OverBudget()
}
/** Runs a measure with a budget of `limit` units of work. */
export const budgeted = <A>(limit: number, f: () => A): A => {
  work = 0
  maxWork = limit
  try {
    return f()
  } finally {
    maxWork = Infinity
  }
}
/** Where a point lies against a boundary: inside, outside, or on one of its edges. */
export const IN = 1, OUT = 0, ON = -1
/** Where along a piece it is tested: its midpoint, then its quarters. */
export const QUARTERS = [0.5, 0.25, 0.75]
/** The sign orient2d gives to a counter-clockwise triple (the library's y axis points down). */
const CCW = Math.sign(orient2d(0, 0, 1, 0, 0, 1))

/** Where a point lies against a boundary (`IN`, `OUT`, `ON`): its banded test, made once per boundary. */
export const pointTest = (E: Edges): (x: number, y: number) => number => (E.test ??= bandIndex(E, E.box))

/**
 * The cell (grid column or row, latitude band) of a coordinate: `count` cells of `size` from
 * `origin`, clamped to the first and last. Monotone in `v`, so two extents that meet reach a cell
 * in common.
 */
export const cellAt = (v: number, origin: number, size: number, count: number): number =>
  Math.max(0, Math.min(count - 1, Math.floor(((v - origin) / size) * count)))

/**
 * An even–odd point-in-boundary test over latitude bands of the boundary's edges near a box. Its
 * working arrays are scratch (./scratch.ts); the test keeps only its own index.
 */
const bandIndex = (E: Edges, box: readonly [number, number, number, number]) => scratch(() => bandTest(E, box))

const bandTest = (E: Edges, box: readonly [number, number, number, number]) => {
  const [w, s, , n] = box
  const keep = int32(E.n)
  let kept = 0
  for (let i = 0; i < E.n; i++) {
    if (Math.max(E.x1[i]!, E.x2[i]!) < w || Math.max(E.y1[i]!, E.y2[i]!) < s || Math.min(E.y1[i]!, E.y2[i]!) > n) continue
    keep[kept++] = i
  }
  const height = n - s
  let bands = Math.max(1, Math.min(4096, Math.ceil(kept / 2)))
  // Each kept edge's first and last band, for the band count being tried.
  const lo = int32(kept), hi = int32(kept)
  // Long edges sit in many bands: fewer bands when the index would pass 16 entries per edge.
  for (;;) {
    let entries = 0
    for (let k = 0; k < kept; k++) {
      const i = keep[k]!
      lo[k] = cellAt(Math.min(E.y1[i]!, E.y2[i]!), s, height, bands)
      hi[k] = cellAt(Math.max(E.y1[i]!, E.y2[i]!), s, height, bands)
      entries += hi[k]! - lo[k]! + 1
    }
    if (bands === 1 || entries <= 16 * kept + 64) break
    bands = Math.max(1, bands >> 1)
  }
  if (!(height > 0)) {
    bands = 1
    lo.fill(0)
    hi.fill(0)
  }
  // The index the test keeps: one allocation for its band starts and items.
  let entries = 0
  for (let k = 0; k < kept; k++) entries += hi[k]! - lo[k]! + 1
  const index = new Int32Array(bands + 1 + entries)
  const start = index.subarray(0, bands + 1), items = index.subarray(bands + 1)
  for (let k = 0; k < kept; k++) for (let b = lo[k]!; b <= hi[k]!; b++) start[b + 1]!++
  for (let b = 0; b < bands; b++) start[b + 1]! += start[b]!
  const fill = int32(bands)
  fill.set(start.subarray(0, bands))
  for (let k = 0; k < kept; k++) for (let b = lo[k]!; b <= hi[k]!; b++) items[fill[b]!++] = keep[k]!
  // Exact: which side of an edge the point lies on is an orientation predicate, and a point on an
  // edge is told apart (ON) rather than counted on one side by rounding.
  return (x: number, y: number): number => {
    const b = bands === 1 ? 0 : cellAt(y, s, height, bands)
    spend(start[b + 1]! - start[b]! + 1)
    let inside = false
    for (let k = start[b]!; k < start[b + 1]!; k++) {
      const i = items[k]!
      const ya = E.y1[i]!, yb = E.y2[i]!
      if ((ya > y) !== (yb > y)) {
        const up = yb > ya
        const side = Math.sign(up ? orient2d(E.x1[i]!, ya, E.x2[i]!, yb, x, y) : orient2d(E.x2[i]!, yb, E.x1[i]!, ya, x, y)) * CCW
        if (side === 0) return ON
        if (side > 0) inside = !inside
      } else if (ya === y && (yb === y ? Math.min(E.x1[i]!, E.x2[i]!) <= x && x <= Math.max(E.x1[i]!, E.x2[i]!) : E.x1[i] === x)) {
        return ON
      } else if (yb === y && E.x2[i] === x) {
        return ON
      }
    }
    return inside ? IN : OUT
  }
}

/** Indices of the edges that reach a box, ordered by their western end. */
export const sweepOrder = (E: Edges, [w, s, e, n]: readonly [number, number, number, number]): Int32Array => {
  if (!E.byWest) {
    const key = new Float64Array(E.n)
    for (let i = 0; i < E.n; i++) key[i] = Math.min(E.x1[i]!, E.x2[i]!)
    E.byWest = Int32Array.from(Array.from({ length: E.n }, (_, i) => i).sort((i, j) => key[i]! - key[j]!))
  }
  const keep = new Int32Array(E.n)
  let k = 0
  for (const i of E.byWest) {
    const x1 = E.x1[i]!, x2 = E.x2[i]!, y1 = E.y1[i]!, y2 = E.y2[i]!
    if (Math.min(x1, x2) > e) break
    if (Math.max(x1, x2) < w || Math.max(y1, y2) < s || Math.min(y1, y2) > n) continue
    keep[k++] = i
  }
  return keep.subarray(0, k)
}
