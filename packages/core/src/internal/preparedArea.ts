/**
 * The area one boundary shares with each of many others, the same figure as `sharedArea.ts`
 * gives pair by pair, with the one boundary's side of the work done once.
 *
 * A boundary compared with hundreds of neighbours (a new outline over the stands it covers) is
 * prepared once: its edges in a grid over its box, and running sums of their geodesic terms
 * along each ring. Then a neighbour of m edges costs the meetings of its edges with the prepared
 * edges in the grid cells they reach, and the pieces of its own edges — not a sweep over both:
 *
 * - the prepared edges the neighbour's boundary meets (exact predicates tell) are split into pieces
 *   exactly as the pairwise measure splits them (`sharedArea.edgePieces`);
 * - between two such edges along a ring, every edge lies wholly inside or wholly outside the
 *   neighbour (its boundary meets none of them, so none of the vertices they share either), so
 *   one point test decides the whole run, and the run's terms are a difference of the running sums.
 *
 * The pieces kept and their terms are the pairwise measure's; only the order of summation
 * differs. Cost O(n) to prepare, then O(m·c + k log k + r) per neighbour for c prepared edges per
 * grid cell reached, k edges met and r runs, against O((n + m) log(n + m)) for the pair.
 */
import { edgeArea } from "./geodesy.ts"
import { budgeted, cellAt, type Edges, edgesOf, pointTest, type Rings, spend } from "./edges.ts"
import { type CutTable, meet } from "./edgeCuts.ts"
import { edgePieces, insideTest, reaches } from "./edgePieces.ts"
import { closedSum } from "./sharedArea.ts"
import { int32, scratch } from "./scratch.ts"

/** A boundary prepared for many measures: its edges, their grid, and running sums of their terms. */
interface Prepared {
  readonly E: Edges
  readonly cols: number
  readonly rows: number
  /** The grid column and row of a longitude and a latitude (the same rounding for both sides). */
  readonly col: (x: number) => number
  readonly row: (y: number) => number
  /** Start of each cell's edges in `items` (one more entry). */
  readonly start: Int32Array
  readonly items: Int32Array
  /**
   * Running sums of the edges' geodesic terms in index order, as unevaluated pairs (hi + lo); made
   * when a measure first needs a run of whole edges inside its neighbour (a boundary that only
   * nearly coincides with its one neighbour never does).
   */
  sums: { readonly hi: Float64Array; readonly lo: Float64Array } | undefined
  /** Per edge: the pass that last examined it (one measure at a time per thread). */
  readonly seen: Int32Array
  pass: number
  /** Per edge: whether the current neighbour's boundary meets it. */
  readonly marked: Uint8Array
}

const preparedOf = new WeakMap<Rings, Prepared>()

/** The prepared form of a boundary; made once per rings array (its working arrays are scratch: ./scratch.ts). */
const prepare = (rings: Rings): Prepared => preparedOf.get(rings) ?? scratch(() => prepareNew(rings))

const prepareNew = (rings: Rings): Prepared => {
  const E = edgesOf(rings)
  const [w, s, e, n] = E.box
  const width = Math.max(e - w, Number.MIN_VALUE), height = Math.max(n - s, Number.MIN_VALUE)
  // Each edge's span of cells, for the grid being tried (plain loops: this runs for every write's boundary).
  const c0 = int32(E.n), c1 = int32(E.n), r0 = int32(E.n), r1 = int32(E.n)
  // About two cells per edge, square in degrees; coarser while long edges would fill too many.
  let cells = Math.max(1, 2 * E.n)
  let cols = 1, rows = 1, entries = 0
  for (;;) {
    cols = Math.max(1, Math.min(4096, Math.round(Math.sqrt((cells * width) / height))))
    rows = Math.max(1, Math.min(4096, Math.round(cells / cols)))
    entries = 0
    for (let i = 0; i < E.n; i++) {
      const xa = E.x1[i]!, xb = E.x2[i]!, ya = E.y1[i]!, yb = E.y2[i]!
      c0[i] = cellAt(Math.min(xa, xb), w, width, cols)
      c1[i] = cellAt(Math.max(xa, xb), w, width, cols)
      r0[i] = cellAt(Math.min(ya, yb), s, height, rows)
      r1[i] = cellAt(Math.max(ya, yb), s, height, rows)
      entries += (c1[i]! - c0[i]! + 1) * (r1[i]! - r0[i]! + 1)
    }
    if (cells <= 1 || entries <= 16 * E.n + 64) break
    cells = Math.floor(cells / 4)
  }
  // What the prepared form keeps, in one allocation: the grid's cell starts and items, and per edge
  // its pass and mark.
  const kept = new Int32Array(cols * rows + 1 + entries + E.n)
  const start = kept.subarray(0, cols * rows + 1), items = kept.subarray(cols * rows + 1, cols * rows + 1 + entries)
  for (let i = 0; i < E.n; i++) for (let r = r0[i]!; r <= r1[i]!; r++) for (let c = c0[i]!; c <= c1[i]!; c++) start[r * cols + c + 1]!++
  for (let k = 0; k < cols * rows; k++) start[k + 1]! += start[k]!
  const fill = int32(cols * rows)
  fill.set(start.subarray(0, cols * rows))
  for (let i = 0; i < E.n; i++) for (let r = r0[i]!; r <= r1[i]!; r++) for (let c = c0[i]!; c <= c1[i]!; c++) items[fill[r * cols + c]!++] = i
  const col = (x: number) => cellAt(x, w, width, cols), row = (y: number) => cellAt(y, s, height, rows)
  const P: Prepared = { E, cols, rows, col, row, start, items, sums: undefined, seen: kept.subarray(cols * rows + 1 + entries), pass: 0,
    marked: new Uint8Array(E.n) }
  preparedOf.set(rings, P)
  return P
}

/** The prepared boundary's running sums, made on first use. */
const sumsOf = (P: Prepared) => {
  if (P.sums) return P.sums
  const E = P.E
  // Compensated running sums (TwoSum): a run's terms are then as exact as summing them one by one.
  const sumHi = new Float64Array(E.n + 1), sumLo = new Float64Array(E.n + 1)
  let hi = 0, lo = 0
  for (let i = 0; i < E.n; i++) {
    const v = edgeArea(E.x1[i]!, E.y1[i]!, E.x2[i]!, E.y2[i]!)
    const t = hi + v
    lo += Math.abs(hi) >= Math.abs(v) ? hi - t + v : v - t + hi
    hi = t
    sumHi[i + 1] = hi
    sumLo[i + 1] = lo
  }
  return P.sums = { hi: sumHi, lo: sumLo }
}

/** The terms of edges `from` to `to` (exclusive) of a prepared boundary. */
const termsBetween = (P: Prepared, from: number, to: number): number => {
  const { hi, lo } = sumsOf(P)
  return (hi[to]! - hi[from]!) + (lo[to]! - lo[from]!)
}

/**
 * The geodesic area `a` and `b` share, in m², as `sharedArea.sharedSquareMetres(a, b)` measures it,
 * with `prepared` (`a` or `b`) prepared once for all its measures. Throws when the pieces found do
 * not close into rings, or `OverBudget` past `limit` units of work (edges examined, edges tested, pieces).
 */
export const sharedSquareMetresPrepared = (a: Rings, b: Rings, prepared: "a" | "b", limit = Infinity): number =>
  Math.max(0, -budgeted(limit, () => prepared === "a" ? preparedSum(prepare(a), edgesOf(b), true) : preparedSum(prepare(b), edgesOf(a), false)))

/**
 * The sum of the terms of the pieces bounding the intersection. The pairwise measure's first
 * boundary keeps the stretches both run along in the same direction: the prepared one when
 * `preparedFirst`, else the other (`B` here); crossings are placed on the first one's edges.
 */
const preparedSum = (P: Prepared, B: Edges, preparedFirst: boolean): number => {
  const A = P.E
  const box = [Math.max(A.box[0], B.box[0]), Math.max(A.box[1], B.box[1]), Math.min(A.box[2], B.box[2]), Math.min(A.box[3], B.box[3])] as const
  if (!(box[0] <= box[2] && box[1] <= box[3])) return 0
  const cutsA: CutTable = new Array(A.n), cutsB: CutTable = new Array(B.n)
  const { marked, seen } = P
  const met: Array<number> = []
  try {
    // 1. Every prepared edge sharing a grid cell with a neighbour edge is met with it, once.
    for (let j = 0; j < B.n; j++) {
      const bx1 = B.x1[j]!, by1 = B.y1[j]!, bx2 = B.x2[j]!, by2 = B.y2[j]!
      const minX = Math.min(bx1, bx2), maxX = Math.max(bx1, bx2), minY = Math.min(by1, by2), maxY = Math.max(by1, by2)
      if (maxX < box[0] || minX > box[2] || maxY < box[1] || minY > box[3]) continue
      const c0 = P.col(minX), c1 = P.col(maxX), r0 = P.row(minY), r1 = P.row(maxY)
      if (P.pass >= 0x3fffffff) {
        seen.fill(0)
        P.pass = 0
      }
      const pass = ++P.pass
      let examined = 1
      for (let r = r0; r <= r1; r++) {
        for (let c = c0; c <= c1; c++) {
          const cell = r * P.cols + c
          examined += P.start[cell + 1]! - P.start[cell]!
          for (let k = P.start[cell]!; k < P.start[cell + 1]!; k++) {
            const i = P.items[k]!
            if (seen[i] === pass) continue
            seen[i] = pass
            const ax1 = A.x1[i]!, ax2 = A.x2[i]!, ay1 = A.y1[i]!, ay2 = A.y2[i]!
            if ((ax1 < minX && ax2 < minX) || (ax1 > maxX && ax2 > maxX) || (ay1 < minY && ay2 < minY) || (ay1 > maxY && ay2 > maxY)) continue
            if (preparedFirst) meet(A, i, B, j, cutsA, cutsB, marked)
            else meet(B, j, A, i, cutsB, cutsA, undefined, marked)
            if (marked[i] === 1 && (met.length === 0 || met[met.length - 1] !== i)) met.push(i)
          }
        }
      }
      spend(examined)
    }
    // 2. The prepared side's pieces: the edges met one by one, the runs between them whole.
    const acc = closedSum(edgeArea)
    const insideB = insideTest(box, pointTest(B))
    const edges = [...new Set(met)].sort((x, y) => x - y)
    let next = 0
    for (let r = 0; r + 1 < A.ringStarts.length; r++) {
      const first = A.ringStarts[r]!, end = A.ringStarts[r + 1]!
      if (first === end) continue
      const reversed = A.reversed[r] === 1
      // The run of whole edges from..to (exclusive, wrapping past the ring's end), decided by its first edge.
      const run = (from: number, to: number) => {
        spend(1)
        if (!reaches(A, from, box) || !insideB(A.x1[from]!, A.y1[from]!, A.x2[from]!, A.y2[from]!)) return
        const last = to - 1 < first ? end - 1 : to - 1
        const value = from < to ? termsBetween(P, from, to) : termsBetween(P, from, end) + termsBetween(P, first, to)
        if (reversed) acc.addChain(value, A.x1[last]!, A.y1[last]!, A.x2[from]!, A.y2[from]!)
        else acc.addChain(value, A.x1[from]!, A.y1[from]!, A.x2[last]!, A.y2[last]!)
      }
      const inRing: Array<number> = []
      while (next < edges.length && edges[next]! < end) inRing.push(edges[next++]!)
      if (inRing.length === 0) {
        run(first, first) // the whole ring
        continue
      }
      for (let k = 0; k < inRing.length; k++) {
        const i = inRing[k]!
        if (reaches(A, i, box)) edgePieces(A, i, cutsA[i], insideB, preparedFirst, acc.add)
        const after = i + 1 === end ? first : i + 1
        const upTo = k + 1 < inRing.length ? inRing[k + 1]! : inRing[0]!
        if (after !== upTo) run(after, upTo)
      }
    }
    // 3. The neighbour's own pieces, as the pairwise measure finds them.
    const insideA = insideTest(box, pointTest(A))
    for (let j = 0; j < B.n; j++) if (reaches(B, j, box)) edgePieces(B, j, cutsB[j], insideA, !preparedFirst, acc.add)
    return acc.total()
  } finally {
    for (const i of met) marked[i] = 0
  }
}
