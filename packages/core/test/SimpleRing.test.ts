/**
 * The grid certificate of a simple ring (internal/simpleRing.ts) against brute force: whenever it
 * certifies a ring, comparing every pair of edges finds no meeting but neighbours at their shared
 * position; it certifies the ordinary large boundaries it exists for (so the validator's fast path
 * is taken); it stays within its budget on shapes that defeat a grid; and the validator's
 * verdicts on one-ring polygons are the same whichever way they were reached.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Geometry } from "../src/index.ts"
import { certifiedSimple } from "../src/internal/simpleRing.ts"
import { contact, type EdgeSet } from "../src/internal/sweep.ts"
import { topologyProblems } from "../src/internal/topology.ts"
import { star } from "./boundaryArbitraries.ts"

type Pt = readonly [number, number]

/** One closed ring's edges, repeated positions skipped, as the validator builds them. */
const edgeSet = (ring: ReadonlyArray<Pt>): EdgeSet => {
  const pts = ring.filter((p, i) => i === 0 || p[0] !== ring[i - 1]![0] || p[1] !== ring[i - 1]![1])
  const n = pts.length - 1
  const f = (k: 0 | 1, end: 0 | 1) => Float64Array.from({ length: n }, (_, e) => pts[e + end]![k])
  return { ax: f(0, 0), ay: f(1, 0), bx: f(0, 1), by: f(1, 1), ringOf: new Int32Array(n), ringStart: Int32Array.from([0, n]) }
}

/** Whether some two edges meet where a simple ring's may not (brute force over every pair). */
const meetsBruteForce = (edges: EdgeSet): boolean => {
  const { ax, ay, bx, by } = edges
  const n = ax.length
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const c = contact(ax[i]!, ay[i]!, bx[i]!, by[i]!, ax[j]!, ay[j]!, bx[j]!, by[j]!)
      const neighbours = j === i + 1 || (i === 0 && j === n - 1)
      if (neighbours ? c === "overlap" : c !== "none") return true
    }
  }
  return false
}

const closed = (open: ReadonlyArray<Pt>): Array<Pt> => [...open, open[0]!]
const circle = (vertices: number, radius = 0.004): Array<Pt> =>
  closed(
    Array.from({ length: vertices }, (_, i) => [-60 + radius * Math.cos((2 * Math.PI * i) / vertices), -3 + radius * Math.sin((2 * Math.PI * i) / vertices)])
  )
const ringOf = (g: Geometry.Boundary) => (g as Geometry.Polygon).coordinates[0]! as ReadonlyArray<Pt>

describe("certifiedSimple", () => {
  it("certifies only rings in which no two edges meet (random rings on a tiny grid and in floats)", () => {
    const small = fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })), { minLength: 3, maxLength: 12 })
    const floats = fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 3, maxLength: 12 })
    for (const ring of [small, floats]) {
      fc.assert(
        fc.property(ring, (open) => {
          const edges = edgeSet(closed(open))
          if (edges.ax.length < 3) return
          if (certifiedSimple(edges)) assert.isFalse(meetsBruteForce(edges))
        }),
        { numRuns: 3000 }
      )
    }
  })

  it("certifies star-shaped rings of up to 400 positions, snapped or not, exactly when brute force finds no meeting", () => {
    for (const grid of [undefined, 1e4, 2e5]) {
      fc.assert(
        fc.property(star(grid, 400), (g) => {
          const edges = edgeSet(ringOf(g))
          if (edges.ax.length < 3) return
          // A star's edges are short beside its box: the grid never gives up on one.
          assert.strictEqual(certifiedSimple(edges), !meetsBruteForce(edges))
        }),
        { numRuns: 150 }
      )
    }
  })

  it("certifies a 1,000- and a 100,000-position outline, and refuses one with a single crossing or a touch", () => {
    for (const vertices of [1_000, 100_000]) assert.isTrue(certifiedSimple(edgeSet(circle(vertices))))
    const ring = circle(1_000)
    const crossed = ring.slice()
    ;[crossed[500], crossed[501]] = [crossed[501]!, crossed[500]!]
    assert.isFalse(certifiedSimple(edgeSet(crossed)))
    const touching = ring.slice()
    touching[700] = touching[300]!
    assert.isFalse(certifiedSimple(edgeSet(touching)))
  })

  it("gives up on a comb (long edges over many cells) and on a ring that runs back along itself", () => {
    // 200 teeth, each 1 wide and 400 tall: every tooth's sides cross most rows of the grid.
    const comb: Array<Pt> = []
    for (let t = 0; t < 200; t++) comb.push([2 * t, 0], [2 * t, 400], [2 * t + 1, 400], [2 * t + 1, 1])
    comb.push([400, 1], [400, -1], [0, -1])
    assert.isFalse(certifiedSimple(edgeSet(closed(comb))))
    assert.isFalse(meetsBruteForce(edgeSet(closed(comb)))) // simple, all the same: the sweep says so
    assert.deepStrictEqual(topologyProblems([[closed(comb)]]), [])
    const spike = closed([[0, 0], [4, 0], [4, 4], [2, 4], [2, 6], [2, 4], [0, 4]])
    assert.isFalse(certifiedSimple(edgeSet(spike)))
    assert.isTrue(topologyProblems([[spike]]).some((p) => p.message.includes("runs back along")))
  })

  it("leaves the validator's verdict on one-ring polygons what the sweep alone finds", () => {
    fc.assert(
      fc.property(star(1e4, 60), (g) => {
        const ring = ringOf(g)
        const problems = topologyProblems([[ring]])
        // The same ring given as two polygons' rings goes through the sweep alone; its
        // self-intersections are reported the same way (ring 0 of polygon 0).
        const swept = topologyProblems([[ring], [circle(8, 0.00001)]]).filter((p) => p.polygon === 0 && p.message.startsWith("ring self-intersects"))
        assert.deepStrictEqual(problems.filter((p) => p.message.startsWith("ring self-intersects")), swept)
        assert.strictEqual(problems.length === 0, !meetsBruteForce(edgeSet(ring)))
      }),
      { numRuns: 300 }
    )
    assert.deepStrictEqual(Geometry.problems({ type: "Polygon", coordinates: [circle(1_000)] }), [])
  })
})
