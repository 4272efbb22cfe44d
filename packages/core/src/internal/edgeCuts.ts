/**
 * Where two boundaries' edges meet, the first step of the shared-area measure (`sharedArea.ts`):
 * a sweep over longitude examines every pair of edges (one of each boundary) whose extents meet,
 * deciding each meeting by exact orientation predicates. Each edge gets its cuts — the points where
 * the other boundary crosses or touches it (a crossing point computed once and used on both edges)
 * and the stretches where the two run along each other.
 */
import { orient2d } from "robust-predicates"
import { type Edges, spend, sweepOrder } from "./edges.ts"

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
export interface Meeting {
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

/**
 * The sweep over longitude: every pair of edges (one of each) whose extents meet is examined once.
 * With `stopAtCrossing`, stops at the first true crossing (`crossed`; the cuts then incomplete).
 */
export const walk = (A: Edges, B: Edges, box: readonly [number, number, number, number], stopAtCrossing: boolean): Meeting => {
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
