/**
 * Topology checks for polygon rings in the [lon, lat] plane: self-intersection, crossing rings,
 * holes outside their shell, nested holes, overlapping polygons and polygons whose interior is cut
 * in two (OGC simple features, as GEOS IsValid judges them).
 *
 * A polygon of one ring certified simple by a grid of its edges (./simpleRing.ts) has no problem;
 * otherwise one sweep line (./sweep.ts) finds the illegal meetings of edges, the points where rings touch
 * and the ring around every ring, in O(n log n) for n edges whatever the shape; the rest is linear
 * in the number of rings and touch points. Every decision uses exact orientation predicates.
 */
import { float64, int32, scratch } from "./scratch.ts"
import { certifiedSimple } from "./simpleRing.ts"
import { type EdgeSet, sweep } from "./sweep.ts"

/** A ring as given: positions [lon, lat, ...], closing position included. */
export type RingInput = ReadonlyArray<ReadonlyArray<number>>

/** One topology problem, located by polygon and ring index. */
export interface TopologyProblem {
  readonly polygon: number
  readonly ring: number
  readonly message: string
}

interface Rings {
  readonly edges: EdgeSet
  /** Position index (in the original ring) where each edge starts. */
  readonly startPosition: Int32Array
  readonly polygonOf: Int32Array
  readonly indexOf: Int32Array
  /** Global number of each polygon's first ring (its shell). */
  readonly shellOf: Int32Array
}

const buildRings = (polygons: ReadonlyArray<ReadonlyArray<RingInput>>): Rings => {
  let total = 0, ringCount = 0
  for (const poly of polygons)
    for (const ring of poly) {
      total += ring.length
      ringCount++
    }
  const ax = float64(total), ay = float64(total)
  const bx = float64(total), by = float64(total)
  const ringOf = int32(total), startPosition = int32(total)
  const ringStart = int32(ringCount + 1), polygonOf = int32(ringCount)
  const indexOf = int32(ringCount), shellOf = int32(polygons.length)
  let e = 0, g = 0
  polygons.forEach((poly, p) => {
    shellOf[p] = g
    poly.forEach((ring, r) => {
      ringStart[g] = e
      polygonOf[g] = p
      indexOf[g] = r
      let prev = 0
      for (let i = 1; i < ring.length; i++) {
        const s = ring[prev]!, t = ring[i]!
        if (s[0] === t[0] && s[1] === t[1]) continue // repeated position: no edge
        ax[e] = s[0]!
        ay[e] = s[1]!
        bx[e] = t[0]!
        by[e] = t[1]!
        ringOf[e] = g
        startPosition[e] = prev
        e++
        prev = i
      }
      g++
    })
  })
  ringStart[g] = e
  const edges: EdgeSet = {
    ax: ax.subarray(0, e),
    ay: ay.subarray(0, e),
    bx: bx.subarray(0, e),
    by: by.subarray(0, e),
    ringOf: ringOf.subarray(0, e),
    ringStart
  }
  return { edges, startPosition: startPosition.subarray(0, e), polygonOf, indexOf, shellOf }
}

const fmt = (x: number, y: number) => `[${x}, ${y}]`
const list = (items: ReadonlyArray<string>) => items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

/** "ring 2" within the same polygon, "ring 0 of polygon 3" across polygons. */
const ringName = (rings: Rings, g: number, from: number) =>
  rings.polygonOf[g] === rings.polygonOf[from]
    ? `ring ${rings.indexOf[g]}`
    : `ring ${rings.indexOf[g]} of polygon ${rings.polygonOf[g]}`

/**
 * Checks every ring of every polygon. Returns at most `limit` problems; an empty array means the
 * rings are simple, do not cross, holes sit inside their shell and not inside each other, no
 * polygon of a multipolygon lies inside another, and every polygon's interior is connected.
 */
export const topologyProblems = (polygons: ReadonlyArray<ReadonlyArray<RingInput>>, limit = 10): Array<TopologyProblem> =>
  scratch(() => problemsOf(polygons, limit))

const problemsOf = (polygons: ReadonlyArray<ReadonlyArray<RingInput>>, limit: number): Array<TopologyProblem> => {
  const rings = buildRings(polygons)
  const { edges, startPosition, polygonOf, indexOf, shellOf } = rings
  const problems: Array<TopologyProblem> = []
  if (edges.ax.length === 0) return problems
  // One ring (most boundaries): when no two edges meet, nothing below can find a problem.
  if (certifiedSimple(edges)) return problems
  const add = (g: number, message: string) => {
    problems.push({ polygon: polygonOf[g]!, ring: indexOf[g]!, message })
    return problems.length < limit
  }

  // 1. Edges: one problem per self-intersecting ring and per pair of crossing rings.
  const reported = new Set<string>()
  const { parent, touches } = sweep(edges, (kind, i, j, x, y) => {
    const ri = edges.ringOf[i]!, rj = edges.ringOf[j]!
    const key = ri === rj ? `self:${ri}` : `cross:${ri}:${rj}`
    if (reported.has(key)) return true
    reported.add(key)
    if (ri === rj) {
      const where = kind === "overlap" ? "runs back along" : kind === "cross" ? "crosses" : "touches"
      return add(ri, `ring self-intersects: the edge from position ${startPosition[i]} ${where} the edge from position ${startPosition[j]} (near ${fmt(x, y)})`)
    }
    return add(ri, `rings cross: this ring ${kind === "overlap" ? "shares an edge with" : "crosses"} ${ringName(rings, rj, ri)} (near ${fmt(x, y)})`)
  })
  if (problems.length > 0) return problems

  // 2. Nesting. Rings no longer cross, so they nest as a forest (`parent`); valid means every hole's
  // parent is its shell and every shell's parent is nothing or a hole of another polygon. The
  // messages name, for a hole, the nearest ring of its own polygon around it (a depth-first walk).
  const ringCount = parent.length
  const nearestOwn = nearestOwnAncestor(parent, polygonOf, polygons.length)
  for (let g = 0; g < ringCount && problems.length < limit; g++) {
    if (indexOf[g] === 0) continue
    const around = nearestOwn[g]!
    if (around < 0) add(g, "hole lies outside its shell")
    else if (indexOf[around] !== 0) add(g, `hole lies inside hole ${indexOf[around]}`)
  }
  for (let p = 0; p < polygons.length && problems.length < limit; p++) {
    const around = parent[shellOf[p]!]!
    if (around >= 0 && indexOf[around] === 0) {
      add(shellOf[p]!, `polygon lies inside polygon ${polygonOf[around]}: polygons of a MultiPolygon must not overlap`)
    }
  }
  if (problems.length > 0) return problems

  // 3. Connected interiors: in the graph of a polygon's rings and the points where they touch,
  // a cycle encloses part of the interior (GEOS's hole-cycle rule); union-find spots each first one.
  for (const cut of interiorCuts(touches, polygonOf, ringCount)) {
    const others = cut.rings.filter((g) => g !== cut.ring)
    const named = others.slice(0, 3).map((g) => ringName(rings, g, cut.ring))
    if (others.length > 3) named.push(`${others.length - 3} more rings`)
    const points = cut.points.slice(0, 3).map(([x, y]) => fmt(x, y))
    if (cut.points.length > 3) points.push(`${cut.points.length - 3} more points`)
    const message = others.length === 1
      ? `this ring touches ${named[0]} at ${list(points)}`
      : `${list(["this ring", ...named])} touch one another in a loop, at ${list(points)}`
    if (!add(cut.ring, `the polygon's interior is cut in two: ${message}`)) break
  }
  return problems
}

/** For each ring, the nearest ring of its own polygon around it in the `parent` forest, or -1. */
const nearestOwnAncestor = (parent: Int32Array, polygonOf: Int32Array, polygonCount: number): Int32Array => {
  const n = parent.length
  const childStart = int32(n + 2), children = int32(n)
  for (let g = 0; g < n; g++) childStart[parent[g]! + 2]!++
  for (let g = 0; g <= n; g++) childStart[g + 1]! += childStart[g]!
  const fill = int32(n + 2)
  fill.set(childStart)
  for (let g = 0; g < n; g++) children[fill[parent[g]! + 1]!++] = g
  // Depth-first from the roots (children of -1), keeping the innermost open ring of each polygon.
  const innermost = int32(polygonCount).fill(-1), saved = int32(n)
  const nearest = int32(n), next = int32(n)
  const stack: Array<number> = []
  const enter = (g: number) => {
    nearest[g] = saved[g] = innermost[polygonOf[g]!]!
    innermost[polygonOf[g]!] = g
    next[g] = childStart[g + 1]!
    stack.push(g)
  }
  for (let k = childStart[0]!; k < childStart[1]!; k++) {
    enter(children[k]!)
    while (stack.length > 0) {
      const g = stack[stack.length - 1]!
      if (next[g]! < childStart[g + 2]!) enter(children[next[g]!++]!)
      else {
        innermost[polygonOf[g]!] = saved[g]!
        stack.pop()
      }
    }
  }
  return nearest
}

/** A polygon whose interior is cut: the ring to report, and the rings and points of one cycle. */
interface Cut {
  readonly ring: number
  readonly rings: ReadonlyArray<number>
  readonly points: ReadonlyArray<readonly [number, number]>
}

/**
 * The first cycle of each polygon in the graph whose nodes are rings and touch points, with an
 * edge from a point to each ring of that polygon through it. Union-find over the edges, so
 * O(k α(k)) for k edges; a cycle is traced once, through the forest built so far.
 */
const interiorCuts = (
  touches: ReadonlyArray<{ readonly x: number; readonly y: number; readonly rings: ReadonlyArray<number> }>,
  polygonOf: Int32Array,
  ringCount: number
): Array<Cut> => {
  let size = ringCount
  for (const touch of touches) size += touch.rings.length
  const root = int32(size)
  for (let i = 0; i < size; i++) root[i] = i
  const find = (a: number): number => {
    while (root[a] !== a) a = root[a] = root[root[a]!]!
    return a
  }
  const points: Array<readonly [number, number]> = []
  const links: Array<Array<number>> = []
  const cuts: Array<Cut> = []
  const cutPolygons = new Set<number>()
  for (const touch of touches) {
    const at = [...touch.rings].sort((a, b) => a - b) // a polygon's rings are numbered together
    for (let k = 0, end = 0; k < at.length; k = end) {
      end = k + 1
      while (end < at.length && polygonOf[at[end]!] === polygonOf[at[k]!]) end++
      if (end - k < 2 || cutPolygons.has(polygonOf[at[k]!]!)) continue
      const node = ringCount + points.length
      points.push([touch.x, touch.y])
      for (let m = k; m < end; m++) {
        const g = at[m]!, a = find(node), b = find(g)
        if (a !== b) {
          root[a] = b
          ;(links[node] ??= []).push(g)
          ;(links[g] ??= []).push(node)
          continue
        }
        cutPolygons.add(polygonOf[g]!)
        const cycle = tracePath(links, g, node) // g, point, ring, point, …, node
        const cycleRings = cycle.filter((_, i) => i % 2 === 0)
        cuts.push({
          ring: cycleRings.reduce((a, b) => Math.max(a, b)),
          rings: cycleRings,
          points: [node, ...cycle.filter((_, i) => i % 2 === 1 && cycle[i] !== node)].map((q) => points[q - ringCount]!)
        })
        break
      }
    }
  }
  return cuts
}

/** The path from `from` to `to` in a forest given as adjacency lists (breadth-first). */
const tracePath = (links: ReadonlyArray<ReadonlyArray<number> | undefined>, from: number, to: number): Array<number> => {
  const cameFrom = new Map<number, number>([[from, from]])
  const queue = [from]
  for (let q = 0; q < queue.length && !cameFrom.has(to); q++) {
    for (const next of links[queue[q]!] ?? []) {
      if (!cameFrom.has(next)) {
        cameFrom.set(next, queue[q]!)
        queue.push(next)
      }
    }
  }
  const path = [to]
  while (path[path.length - 1] !== from) path.push(cameFrom.get(path[path.length - 1]!)!)
  return path.reverse()
}
