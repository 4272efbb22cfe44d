/**
 * The pieces of a boundary's edges that bound the region two boundaries share, the second step of
 * the shared-area measure (`sharedArea.ts`): each edge is cut at its cuts (`edgeCuts.ts`) and each
 * piece classified as inside the other boundary (a point test over its latitude bands), outside,
 * or along one of its edges. Between points where the other boundary only touches, one test
 * decides a whole run of pieces (inside and outside swap at each true crossing).
 */
import type { Cuts, CutTable } from "./edgeCuts.ts"
import { type Edges, IN, ON, QUARTERS, spend } from "./edges.ts"

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

/** Visits the pieces of all E's edges reaching `box` that bound A ∩ B (`edgePieces`); false when `visit` stopped. */
export const pieces = (
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
