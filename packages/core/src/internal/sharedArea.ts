/**
 * The area two valid boundaries share, measured without building their intersection.
 *
 * Green's theorem: the area of a region is a sum over its boundary's edges, each edge adding a term
 * of its own (for the geodesic area, the area between the edge and the equator:
 * `geodesy.edgeArea`). The boundary of A ∩ B is made of the pieces of A's edges inside B and of
 * B's edges inside A, plus the stretches where the two boundaries run along each other in the same
 * direction (both regions on the same side), counted once. So the shared area is found by:
 *
 * 1. finding where A's edges meet B's (a sweep over longitude of the edges that reach the box both
 *    boxes share; the decisions by exact orientation predicates, the crossing points computed once
 *    and used on both edges): `edgeCuts.ts`;
 * 2. cutting each edge at those points, and classifying each piece by its midpoint: inside the
 *    other boundary (even–odd ray test over latitude bands of the other's edges), outside, or along
 *    one of its edges (found exactly in step 1): `edgePieces.ts`;
 * 3. summing the geodesic terms of the pieces kept, checking that they close (`closedSum`): here.
 *
 * The pieces kept must close into rings: every point reached is left as often. When they do not
 * (a crossing placed by floating point where a nearly collinear neighbour disagrees), the measure
 * throws and the caller falls back to a clipper. Cost O((n + k) log n) for n edges and k
 * crossings, against a clipper's building of the whole polygon.
 *
 * "Do they share area?" is the same walk stopped early: at the first crossing where the edges
 * truly cross (not touch), or the first piece kept.
 */
import { budgeted, edgesOf, pointTest, type Rings } from "./edges.ts"
import { walk } from "./edgeCuts.ts"
import { pieces } from "./edgePieces.ts"
import { edgeArea } from "./geodesy.ts"

export type { Rings } from "./edges.ts"

/** How many edges a boundary has (its edges, made once per rings array). */
export const edgeCount = (a: Rings): number => edgesOf(a).n

/** The two boundaries' edges and the box both boxes share (`apart`: none). */
const shared = (a: Rings, b: Rings) => {
  const A = edgesOf(a), B = edgesOf(b)
  const box = [Math.max(A.box[0], B.box[0]), Math.max(A.box[1], B.box[1]), Math.min(A.box[2], B.box[2]), Math.min(A.box[3], B.box[3])] as const
  return { A, B, box, apart: !(box[0] <= box[2] && box[1] <= box[3]) }
}

/**
 * Whether two valid boundaries share area (more than edges or points). Throws `OverBudget` past
 * `limit` units of work (pairs of edges examined, edges tested, pieces).
 */
export const sharesArea = (a: Rings, b: Rings, limit = Infinity): boolean =>
  budgeted(limit, () => {
    const { A, B, box, apart } = shared(a, b)
    if (apart) return false
    const m = walk(A, B, box, true)
    if (m.crossed) return true
    const stop = () => false
    return !pieces(A, m.cutsA, box, pointTest(B), true, stop) || !pieces(B, m.cutsB, box, pointTest(A), false, stop)
  })

// Scratch space for one position's bits, hashed by `closedSum`.
const bits = new Float64Array(2)
const words = new Int32Array(bits.buffer)

/**
 * A sum of edge terms over pieces that must close into rings (Neumaier summation). Every point
 * the kept pieces reach must be left as often as it is reached (exactly: a cut point is one value
 * shared by both edges). A piece misplaced by rounding would leave the rings open, and its term
 * (the area down to the equator) would count whole. Checked by two independent 32-bit hashes of
 * the positions, added for starts and subtracted for ends.
 */
export const closedSum = (term: (x1: number, y1: number, x2: number, y2: number) => number) => {
  let sum = 0, comp = 0
  let h1 = 0, h2 = 0
  const tally = (x: number, y: number, d: number) => {
    bits[0] = x
    bits[1] = y
    const a = Math.imul(words[0]! ^ Math.imul(words[1]!, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(words[2]! ^ 0x27d4eb2f, 0xc2b2ae35) ^ words[3]!
    const b = Math.imul(words[2]! + Math.imul(words[3]!, 0x165667b1), 0x27d4eb2f) ^ Math.imul(words[0]! + 0x61c88647, 0x9e3779b1) ^ words[1]!
    h1 = (h1 + d * Math.imul(a ^ (a >>> 15), 0x2c1b3c6d)) | 0
    h2 = (h2 + d * Math.imul(b ^ (b >>> 13), 0x297a2d39)) | 0
  }
  const addValue = (v: number) => {
    const t = sum + v
    comp += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum
    sum = t
  }
  return {
    /** Adds a piece from (x1, y1) to (x2, y2). */
    add: (x1: number, y1: number, x2: number, y2: number) => {
      addValue(term(x1, y1, x2, y2))
      tally(x1, y1, 1)
      tally(x2, y2, -1)
      return true
    },
    /** Adds a chain of pieces from (x1, y1) to (x2, y2) whose terms sum to `value`. */
    addChain: (value: number, x1: number, y1: number, x2: number, y2: number) => {
      addValue(value)
      tally(x1, y1, 1)
      tally(x2, y2, -1)
    },
    /** The sum; throws when the pieces added do not close into rings. */
    total: () => {
      if (h1 !== 0 || h2 !== 0) throw new Error("the shared boundary does not close")
      return sum + comp
    }
  }
}

/** The sum of `term` over the pieces bounding A ∩ B; throws when they do not close. */
const boundarySum = (a: Rings, b: Rings, term: (x1: number, y1: number, x2: number, y2: number) => number): number => {
  const { A, B, box, apart } = shared(a, b)
  if (apart) return 0
  const m = walk(A, B, box, false)
  const acc = closedSum(term)
  pieces(A, m.cutsA, box, pointTest(B), true, acc.add)
  pieces(B, m.cutsB, box, pointTest(A), false, acc.add)
  return acc.total()
}

/**
 * The geodesic area two valid boundaries share, in m² (edges as straight lines in the lon/lat
 * plane where they are cut, like a clipper's output measured by `ringSignedArea`). Throws when the
 * pieces found do not close into rings, or `OverBudget` past `limit` units of work.
 */
export const sharedSquareMetres = (a: Rings, b: Rings, limit = Infinity): number =>
  // The geodesic terms of a counter-clockwise boundary (in lon/lat) add up to minus its area.
  Math.max(0, -budgeted(limit, () => boundarySum(a, b, edgeArea)))

/**
 * The area two valid boundaries share in the lon/lat plane (square degrees): the same pieces with
 * the shoelace term, about the box's corner. Independent of where a straight edge is cut, so it
 * compares exactly with a clipper's output (tests).
 */
export const sharedPlanarArea = (a: Rings, b: Rings): number => {
  const [ox, oy] = shared(a, b).box
  return boundarySum(a, b, (x1, y1, x2, y2) => ((x1 - ox) * (y2 - oy) - (x2 - ox) * (y1 - oy)) / 2)
}
