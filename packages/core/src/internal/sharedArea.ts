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
 *    and used on both edges);
 * 2. cutting each edge at those points, and classifying each piece by its midpoint: inside the
 *    other boundary (even–odd ray test over latitude bands of the other's edges), outside, or along
 *    one of its edges (found exactly in step 1);
 * 3. summing the geodesic terms of the pieces kept.
 *
 * The pieces kept must close into rings: every point reached is left as often. When they do not
 * (a crossing placed by floating point where a nearly collinear neighbour disagrees), the measure
 * throws and the caller falls back to a clipper. Cost O((n + k) log n) for n edges and k
 * crossings, against a clipper's building of the whole polygon.
 *
 * "Do they share area?" is the same walk stopped early: at the first crossing where the edges
 * truly cross (not touch), or the first piece kept.
 */
import { orient2d } from "robust-predicates"
import { budgeted, type Edges, edgesOf, IN, ON, pointTest, QUARTERS, type Rings, spend, sweepOrder } from "./edges.ts"
import { edgeArea } from "./geodesy.ts"

export type { Rings } from "./edges.ts"

const bits = new Float64Array(2)
const words = new Int32Array(bits.buffer)

/** How many edges a boundary has (its edges, made once per rings array). */
export const edgeCount = (a: Rings): number => edgesOf(a).n

/** Where an edge is cut: parameters along it and the points; stretches along the other boundary. */
export interface Cuts {
  readonly t: Array<number>
  readonly x: Array<number>
  readonly y: Array<number>
  /** Whether the other boundary truly crosses the edge there (inside and outside swap). */
  readonly crossing: Array<boolean>
  /** [t0, t1, same direction] stretches running along an edge of the other boundary. */
  readonly along: Array<[number, number, boolean]>
}

const paramOn = (E: Edges, i: number, x: number, y: number): number => {
  const dx = E.x2[i]! - E.x1[i]!, dy = E.y2[i]! - E.y1[i]!
  return ((x - E.x1[i]!) * dx + (y - E.y1[i]!) * dy) / (dx * dx + dy * dy)
}

/** The cuts of each edge that has any, by edge index. */
export type CutTable = Array<Cuts | undefined>

const cutsOf = (all: CutTable, i: number): Cuts => all[i] ??= { t: [], x: [], y: [], crossing: [], along: [] }

const cut = (all: CutTable, E: Edges, i: number, x: number, y: number, crossing = false) => {
  const t = paramOn(E, i, x, y)
  if (t <= 0 || t >= 1) return
  const c = cutsOf(all, i)
  c.t.push(t)
  c.x.push(x)
  c.y.push(y)
  c.crossing.push(crossing)
}

/** What one walk found: the cuts of each boundary's edges, or that the edges truly cross somewhere. */
interface Meeting {
  readonly cutsA: CutTable
  readonly cutsB: CutTable
  readonly crossed: boolean
}

/**
 * Records where edge `i` of A and edge `j` of B meet; answers whether they truly cross. With
 * `metA` (`metB`), marks edge `i` (`j`) when the two meet at all (exactly: a crossing at an end,
 * which cuts nothing there, included).
 */
export const meet = (A: Edges, i: number, B: Edges, j: number, cutsA: CutTable, cutsB: CutTable, metA?: Uint8Array, metB?: Uint8Array): boolean => {
  const px = A.x1[i]!, py = A.y1[i]!, qx = A.x2[i]!, qy = A.y2[i]!
  const rx = B.x1[j]!, ry = B.y1[j]!, sx = B.x2[j]!, sy = B.y2[j]!
  if (Math.max(py, qy) < Math.min(ry, sy) || Math.max(ry, sy) < Math.min(py, qy)) return false
  const d1 = Math.sign(orient2d(rx, ry, sx, sy, px, py)), d2 = Math.sign(orient2d(rx, ry, sx, sy, qx, qy))
  if (d1 !== 0 && d1 === d2) return false
  const d3 = Math.sign(orient2d(px, py, qx, qy, rx, ry)), d4 = Math.sign(orient2d(px, py, qx, qy, sx, sy))
  if (d3 !== 0 && d3 === d4) return false
  if (metA) metA[i] = 1
  if (metB) metB[j] = 1
  if (d1 === 0 && d2 === 0) {
    // Collinear: the stretch they share, if it has a length.
    const ta1 = paramOn(A, i, rx, ry), ta2 = paramOn(A, i, sx, sy)
    const a0 = Math.max(0, Math.min(ta1, ta2)), a1 = Math.min(1, Math.max(ta1, ta2))
    if (!(a1 > a0)) return false
    const same = (qx - px) * (sx - rx) + (qy - py) * (sy - ry) > 0
    cut(cutsA, A, i, rx, ry)
    cut(cutsA, A, i, sx, sy)
    cutsOf(cutsA, i).along.push([a0, a1, same])
    const tb1 = paramOn(B, j, px, py), tb2 = paramOn(B, j, qx, qy)
    cut(cutsB, B, j, px, py)
    cut(cutsB, B, j, qx, qy)
    cutsOf(cutsB, j).along.push([Math.max(0, Math.min(tb1, tb2)), Math.min(1, Math.max(tb1, tb2)), same])
    return false
  }
  if (d1 === 0) cut(cutsB, B, j, px, py)
  if (d2 === 0) cut(cutsB, B, j, qx, qy)
  if (d3 === 0) cut(cutsA, A, i, rx, ry)
  if (d4 === 0) cut(cutsA, A, i, sx, sy)
  if (d1 === 0 || d2 === 0 || d3 === 0 || d4 === 0) return false
  // A true crossing: one point, placed on A's edge, cuts both.
  const ex = qx - px, ey = qy - py, fx = sx - rx, fy = sy - ry
  const t = Math.min(1, Math.max(0, ((rx - px) * fy - (ry - py) * fx) / (ex * fy - ey * fx)))
  const x = px + t * ex, y = py + t * ey
  cut(cutsA, A, i, x, y, true)
  cut(cutsB, B, j, x, y, true)
  return true
}

/** The sweep over longitude: every pair of edges (one of each) whose extents meet is examined once. */
const walk = (A: Edges, B: Edges, box: readonly [number, number, number, number], stopAtCrossing: boolean): Meeting => {
  const cutsA: CutTable = new Array(A.n), cutsB: CutTable = new Array(B.n)
  const oa = sweepOrder(A, box), ob = sweepOrder(B, box)
  const activeA: Array<number> = [], activeB: Array<number> = []
  let ia = 0, ib = 0
  let crossed = false
  const minX = (E: Edges, i: number) => Math.min(E.x1[i]!, E.x2[i]!)
  const maxX = (E: Edges, i: number) => Math.max(E.x1[i]!, E.x2[i]!)
  while (ia < oa.length || ib < ob.length) {
    const fromA = ib >= ob.length || (ia < oa.length && minX(A, oa[ia]!) <= minX(B, ob[ib]!))
    const E = fromA ? A : B, i = fromA ? oa[ia++]! : ob[ib++]!
    const others = fromA ? activeB : activeA
    const x = minX(E, i)
    let kept = 0
    spend(others.length + 1)
    for (let k = 0; k < others.length; k++) {
      const j = others[k]!
      if (maxX(fromA ? B : A, j) < x) continue
      others[kept++] = j
      const crosses = fromA ? meet(A, i, B, j, cutsA, cutsB) : meet(A, j, B, i, cutsA, cutsB)
      if (crosses) {
        crossed = true
        if (stopAtCrossing) return { cutsA, cutsB, crossed }
      }
    }
    others.length = kept
    ;(fromA ? activeA : activeB).push(i)
  }
  return { cutsA, cutsB, crossed }
}

/** Whether a piece from parameter t0 to t1 runs along the other boundary: undefined if not, else in the same direction or not. */
const alongAt = (c: Cuts, tm: number): boolean | undefined => {
  for (const [t0, t1, same] of c.along) if (t0 <= tm && tm <= t1) return same
  return undefined
}

// Scratch space for one edge's points and pieces (the measure is synchronous: one edge at a time).
let order = new Int32Array(64), xs = new Float64Array(64), ys = new Float64Array(64), ts = new Float64Array(64)
let joins = new Int32Array(64), keep = new Int8Array(64)
const room = (size: number) => {
  if (xs.length >= size) return
  const n = 2 * size
  order = new Int32Array(n)
  xs = new Float64Array(n)
  ys = new Float64Array(n)
  ts = new Float64Array(n)
  joins = new Int32Array(n)
  keep = new Int8Array(n)
}

/** Puts the indices of an edge's cuts in order along it into `order` (stable; few cuts sorted in place). */
const sortCuts = (c: Cuts) => {
  const n = c.t.length
  if (n > 32) {
    Array.from(c.t.keys()).sort((a, b) => c.t[a]! - c.t[b]!).forEach((m, k) => void (order[k] = m))
    return
  }
  for (let k = 0; k < n; k++) {
    const t = c.t[k]!
    let at = k
    while (at > 0 && c.t[order[at - 1]!]! > t) {
      order[at] = order[at - 1]!
      at--
    }
    order[at] = k
  }
}

/** A test of whole pieces against the other boundary: inside it or not (`insideTest`). */
export type PieceTest = (ax: number, ay: number, bx: number, by: number) => boolean

/**
 * Whether a piece (crossing nothing) lies inside the other boundary, tested at its midpoint, or at
 * its quarters when rounding put the midpoint on the other boundary. A piece on it at all three (a
 * sliver thinner than rounding) is left undecided: the test throws.
 */
export const insideTest = (box: readonly [number, number, number, number], inOther: (x: number, y: number) => number): PieceTest => {
  const [w, s, e, n] = box
  return (ax, ay, bx, by) => {
    for (const f of QUARTERS) {
      const mx = ax + (bx - ax) * f, my = ay + (by - ay) * f
      if (mx < w || mx > e || my < s || my > n) return false
      const at = inOther(mx, my)
      if (at !== ON) return at === IN
    }
    throw new Error("a piece of an edge lies along the other boundary within rounding")
  }
}

/** Whether edge `i` of E reaches a box. */
export const reaches = (E: Edges, i: number, [w, s, e, n]: readonly [number, number, number, number]): boolean => {
  const px = E.x1[i]!, py = E.y1[i]!, qx = E.x2[i]!, qy = E.y2[i]!
  return !(Math.max(px, qx) < w || Math.min(px, qx) > e || Math.max(py, qy) < s || Math.min(py, qy) > n)
}

/**
 * Visits the pieces of E's edge `i` (cut by `c`, if at all) that belong to the boundary of A ∩ B:
 * inside the other boundary, or along it in the same direction when `keepAlong`. Consecutive kept
 * pieces are visited as one: a long edge that stays whole is measured whole (its exact geodesic
 * term), as a clipper's output ring would have it. `visit` answers false to stop.
 */
export const edgePieces = (
  E: Edges,
  i: number,
  c: Cuts | undefined,
  inside: PieceTest,
  keepAlong: boolean,
  visit: (x1: number, y1: number, x2: number, y2: number) => boolean
): boolean => {
  const px = E.x1[i]!, py = E.y1[i]!, qx = E.x2[i]!, qy = E.y2[i]!
  if (!c) return !inside(px, py, qx, qy) || visit(px, py, qx, qy)
  // The points along the edge, equal ones merged; at each inner point, how many times the other
  // boundary truly crosses there, or that it touches or turns there (-1).
  room(c.t.length + 2)
  sortCuts(c)
  xs[0] = px
  ys[0] = py
  ts[0] = 0
  joins[0] = 0
  let last = 0
  for (let k = 0; k < c.t.length; k++) {
    const m = order[k]!
    if (c.x[m] === xs[last] && c.y[m] === ys[last]) {
      if (last > 0 && joins[last]! >= 0) joins[last] = c.crossing[m] ? joins[last]! + 1 : -1
      continue
    }
    last++
    xs[last] = c.x[m]!
    ys[last] = c.y[m]!
    ts[last] = c.t[m]!
    joins[last] = c.crossing[m] ? 1 : -1
  }
  if (xs[last] === qx && ys[last] === qy) last--
  last++
  xs[last] = qx
  ys[last] = qy
  ts[last] = 1
  const count = last
  spend(count)
  // Each piece: along the other boundary (kept when in the same direction and `keepAlong`), or
  // inside or outside it. Inside and outside swap at each true crossing, so between points where
  // the other boundary only touches, one point test decides a whole run of pieces: made on the
  // run's longest piece, whose midpoint is farthest from the crossings (a piece shorter than
  // rounding is never tested itself). `keep`: -1 undecided, 0 dropped, 1 kept.
  keep.fill(-1, 0, count)
  if (c.along.length > 0) {
    for (let k = 0; k < count; k++) {
      const same = alongAt(c, (ts[k]! + ts[k + 1]!) / 2)
      if (same !== undefined) keep[k] = keepAlong && same ? 1 : 0
    }
  }
  const length = (k: number) => Math.abs(xs[k + 1]! - xs[k]!) + Math.abs(ys[k + 1]! - ys[k]!)
  for (let k = 0; k < count;) {
    if (keep[k] !== -1) {
      k++
      continue
    }
    let end = k + 1
    while (end < count && keep[end] === -1 && joins[end]! > 0) end++
    let longest = k
    for (let j = k + 1; j < end; j++) if (length(j) > length(longest)) longest = j
    keep[longest] = inside(xs[longest]!, ys[longest]!, xs[longest + 1]!, ys[longest + 1]!) ? 1 : 0
    for (let j = longest + 1; j < end; j++) keep[j] = joins[j]! % 2 === 1 ? 1 - keep[j - 1]! : keep[j - 1]!
    for (let j = longest - 1; j >= k; j--) keep[j] = joins[j + 1]! % 2 === 1 ? 1 - keep[j + 1]! : keep[j + 1]!
    k = end
  }
  let fromX = NaN, fromY = NaN, kept = false
  for (let k = 0; k < count; k++) {
    const now = keep[k] === 1
    if (now && !kept) {
      fromX = xs[k]!
      fromY = ys[k]!
    }
    if (!now && kept && !visit(fromX, fromY, xs[k]!, ys[k]!)) return false
    kept = now
  }
  return !kept || visit(fromX, fromY, qx, qy)
}

/** Visits the pieces of all E's edges reaching `box` that bound A ∩ B (`edgePieces`). */
const pieces = (
  E: Edges,
  cuts: CutTable,
  box: readonly [number, number, number, number],
  inOther: (x: number, y: number) => number,
  keepAlong: boolean,
  visit: (x1: number, y1: number, x2: number, y2: number) => boolean
): boolean => {
  const inside = insideTest(box, inOther)
  for (let i = 0; i < E.n; i++) {
    if (reaches(E, i, box) && !edgePieces(E, i, cuts[i], inside, keepAlong, visit)) return false
  }
  return true
}

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
