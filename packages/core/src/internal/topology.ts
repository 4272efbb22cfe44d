/**
 * Topology checks for polygon rings in the [lon, lat] plane: self-intersection, crossing rings,
 * holes outside their shell, nested holes and overlapping polygons.
 *
 * Candidate edge pairs come from a packed R-tree (flatbush) of edge bounding boxes, so the cost is
 * O(n log n + k) for n edges and k overlapping boxes, not O(n²); each candidate pair is decided
 * with Shewchuk's exact orientation predicate, so no rounding error can hide or invent a crossing.
 */
import Flatbush from "flatbush"
import { orient2d } from "robust-predicates"

/** A ring as given: positions [lon, lat, ...], closing position included. */
export type RingInput = ReadonlyArray<ReadonlyArray<number>>

/** One topology problem, located by polygon and ring index. */
export interface TopologyProblem {
  readonly polygon: number
  readonly ring: number
  readonly message: string
}

interface Edges {
  readonly ax: Float64Array
  readonly ay: Float64Array
  readonly bx: Float64Array
  readonly by: Float64Array
  /** Global ring number of each edge. */
  readonly ringOf: Int32Array
  /** Index of the edge within its ring (after dropping repeated positions). */
  readonly indexInRing: Int32Array
  /** Position index (in the original ring) where the edge starts. */
  readonly startPosition: Int32Array
}

interface RingRef {
  readonly polygon: number
  readonly ring: number
  readonly edgeCount: number
}

const sign = (x: number): number => (x > 0 ? 1 : x < 0 ? -1 : 0)
/** The sign orient2d gives to a counter-clockwise triple (the library documents it; we measure it). */
const CCW = sign(orient2d(0, 0, 1, 0, 0, 1))

type Contact = "none" | "touch" | "cross" | "overlap"

const within = (a: number, b: number, v: number): boolean => (a <= b ? a <= v && v <= b : b <= v && v <= a)

/** How two segments meet: not at all, at a point, crossing, or along a shared stretch. */
const contact = (
  ax: number, ay: number, bx: number, by: number,
  cx: number, cy: number, dx: number, dy: number
): Contact => {
  const d1 = sign(orient2d(cx, cy, dx, dy, ax, ay))
  const d2 = sign(orient2d(cx, cy, dx, dy, bx, by))
  const d3 = sign(orient2d(ax, ay, bx, by, cx, cy))
  const d4 = sign(orient2d(ax, ay, bx, by, dx, dy))
  if (d1 * d2 < 0 && d3 * d4 < 0) return "cross"
  if (d1 === 0 && d2 === 0) {
    // Collinear: compare the projections on the dominant axis.
    const useX = Math.abs(bx - ax) + Math.abs(dx - cx) >= Math.abs(by - ay) + Math.abs(dy - cy)
    const [p0, p1, q0, q1] = useX ? [ax, bx, cx, dx] : [ay, by, cy, dy]
    const lo = Math.max(Math.min(p0, p1), Math.min(q0, q1))
    const hi = Math.min(Math.max(p0, p1), Math.max(q0, q1))
    return hi > lo ? "overlap" : hi === lo ? "touch" : "none"
  }
  if (
    (d1 === 0 && within(cx, dx, ax) && within(cy, dy, ay)) ||
    (d2 === 0 && within(cx, dx, bx) && within(cy, dy, by)) ||
    (d3 === 0 && within(ax, bx, cx) && within(ay, by, cy)) ||
    (d4 === 0 && within(ax, bx, dx) && within(ay, by, dy))
  ) return "touch"
  return "none"
}

const buildEdges = (polygons: ReadonlyArray<ReadonlyArray<RingInput>>): { edges: Edges; rings: Array<RingRef> } => {
  let total = 0
  for (const poly of polygons) for (const ring of poly) total += ring.length
  const ax = new Float64Array(total), ay = new Float64Array(total)
  const bx = new Float64Array(total), by = new Float64Array(total)
  const ringOf = new Int32Array(total), indexInRing = new Int32Array(total), startPosition = new Int32Array(total)
  const rings: Array<RingRef> = []
  let e = 0
  polygons.forEach((poly, p) => {
    poly.forEach((ring, r) => {
      const ringNo = rings.length
      let count = 0
      let prev = 0
      for (let i = 1; i < ring.length; i++) {
        const s = ring[prev]!, t = ring[i]!
        if (s[0] === t[0] && s[1] === t[1]) continue // repeated position: no edge
        ax[e] = s[0]!; ay[e] = s[1]!; bx[e] = t[0]!; by[e] = t[1]!
        ringOf[e] = ringNo; indexInRing[e] = count; startPosition[e] = prev
        e++; count++; prev = i
      }
      rings.push({ polygon: p, ring: r, edgeCount: count })
    })
  })
  const slice = (a: Float64Array) => a.subarray(0, e)
  return {
    edges: {
      ax: slice(ax), ay: slice(ay), bx: slice(bx), by: slice(by),
      ringOf: ringOf.subarray(0, e), indexInRing: indexInRing.subarray(0, e), startPosition: startPosition.subarray(0, e)
    },
    rings
  }
}

const fmt = (x: number, y: number) => `[${x}, ${y}]`

/** Where a point lies against one ring: strictly inside, outside, or on its boundary. */
type Side = "inside" | "outside" | "boundary"

/**
 * Checks every ring of every polygon. Returns at most `limit` problems; an empty array means the
 * rings are simple, do not cross, holes sit inside their shell and not inside each other, and no
 * polygon of a multipolygon lies inside another.
 */
export const topologyProblems = (
  polygons: ReadonlyArray<ReadonlyArray<RingInput>>,
  limit = 10
): Array<TopologyProblem> => {
  const { edges, rings } = buildEdges(polygons)
  const n = edges.ax.length
  const problems: Array<TopologyProblem> = []
  if (n === 0) return problems
  const index = new Flatbush(n)
  for (let i = 0; i < n; i++) {
    index.add(
      Math.min(edges.ax[i]!, edges.bx[i]!), Math.min(edges.ay[i]!, edges.by[i]!),
      Math.max(edges.ax[i]!, edges.bx[i]!), Math.max(edges.ay[i]!, edges.by[i]!)
    )
  }
  index.finish()

  const reported = new Set<string>()
  for (let i = 0; i < n && problems.length < limit; i++) {
    const ri = edges.ringOf[i]!
    const candidates = index.search(
      Math.min(edges.ax[i]!, edges.bx[i]!), Math.min(edges.ay[i]!, edges.by[i]!),
      Math.max(edges.ax[i]!, edges.bx[i]!), Math.max(edges.ay[i]!, edges.by[i]!)
    )
    for (const j of candidates) {
      if (j <= i) continue
      const c = contact(
        edges.ax[i]!, edges.ay[i]!, edges.bx[i]!, edges.by[i]!,
        edges.ax[j]!, edges.ay[j]!, edges.bx[j]!, edges.by[j]!
      )
      if (c === "none") continue
      const rj = edges.ringOf[j]!
      const ring = rings[ri]!
      if (ri === rj) {
        const gap = Math.abs(edges.indexInRing[i]! - edges.indexInRing[j]!)
        const adjacent = gap === 1 || gap === ring.edgeCount - 1
        if (adjacent && c === "touch") continue
        const key = `self:${ri}`
        if (reported.has(key)) continue
        reported.add(key)
        const where = c === "overlap" ? "runs back along" : c === "cross" ? "crosses" : "touches"
        problems.push({
          polygon: ring.polygon, ring: ring.ring,
          message: `ring self-intersects: the edge from position ${edges.startPosition[i]} ${where} the edge from position ${edges.startPosition[j]} (near ${fmt(edges.ax[j]!, edges.ay[j]!)})`
        })
      } else if (c !== "touch") {
        const other = rings[rj]!
        const key = `cross:${ri}:${rj}`
        if (reported.has(key)) continue
        reported.add(key)
        const otherName = other.polygon === ring.polygon
          ? `ring ${other.ring}`
          : `ring ${other.ring} of polygon ${other.polygon}`
        problems.push({
          polygon: ring.polygon, ring: ring.ring,
          message: `rings cross: this ring ${c === "overlap" ? "shares an edge with" : "crosses"} ${otherName} (near ${fmt(edges.ax[j]!, edges.ay[j]!)})`
        })
      }
      if (problems.length >= limit) break
    }
  }
  if (problems.length > 0) return problems

  // No edges cross, so each ring lies wholly inside or outside every other ring: one point decides.
  const ringNumber = (p: number, r: number) => {
    let k = 0
    for (let pp = 0; pp < p; pp++) k += polygons[pp]!.length
    return k + r
  }
  const side = (x: number, y: number, ringNo: number): Side => {
    let inside = false
    const found = index.search(x, y, Infinity, y, (e) => edges.ringOf[e] === ringNo)
    for (const e of found) {
      const ax = edges.ax[e]!, ay = edges.ay[e]!, bx = edges.bx[e]!, by = edges.by[e]!
      if (orient2d(ax, ay, bx, by, x, y) === 0 && within(ax, bx, x) && within(ay, by, y)) return "boundary"
      if ((ay > y) !== (by > y)) {
        // The ray to +x crosses this edge when the point is left of an upward edge or right of a downward one.
        const o = sign(orient2d(ax, ay, bx, by, x, y))
        if (o === (by > ay ? CCW : -CCW)) inside = !inside
      }
    }
    return inside ? "inside" : "outside"
  }
  /** A point of ring `from` that does not lie on ring `against`'s boundary, and its side. */
  const sideOfRing = (from: RingInput, against: number): Side => {
    for (const pos of from) {
      const s = side(pos[0]!, pos[1]!, against)
      if (s !== "boundary") return s
    }
    for (let i = 0; i + 1 < from.length; i++) {
      const s = side((from[i]![0]! + from[i + 1]![0]!) / 2, (from[i]![1]! + from[i + 1]![1]!) / 2, against)
      if (s !== "boundary") return s
    }
    return "boundary"
  }

  polygons.forEach((poly, p) => {
    const shell = ringNumber(p, 0)
    for (let h = 1; h < poly.length && problems.length < limit; h++) {
      const s = sideOfRing(poly[h]!, shell)
      if (s !== "inside") {
        problems.push({ polygon: p, ring: h, message: s === "boundary" ? "hole coincides with its shell" : "hole lies outside its shell" })
        continue
      }
      for (let o = 1; o < poly.length; o++) {
        if (o === h) continue
        if (sideOfRing(poly[h]!, ringNumber(p, o)) === "inside") {
          problems.push({ polygon: p, ring: h, message: `hole lies inside hole ${o}` })
          break
        }
      }
    }
  })
  for (let p = 0; p < polygons.length && problems.length < limit; p++) {
    for (let o = 0; o < polygons.length; o++) {
      if (o === p) continue
      const other = polygons[o]!
      if (sideOfRing(polygons[p]![0]!, ringNumber(o, 0)) !== "inside") continue
      const inHole = other.some((_, h) => h > 0 && sideOfRing(polygons[p]![0]!, ringNumber(o, h)) !== "outside")
      if (!inHole) {
        problems.push({ polygon: p, ring: 0, message: `polygon lies inside polygon ${o}: polygons of a MultiPolygon must not overlap` })
        break
      }
    }
  }
  return problems
}
