/**
 * The shared area with one boundary prepared for many measures (`Overlap.sharedHectaresPrepared`)
 * against the pairwise measure by edges (`Overlap.sharedHectaresByEdges`): the same pieces and
 * terms summed in another order, so the figures agree within 1e-9 of the larger of the shared
 * area and the smaller boundary's area — on random star-shaped rings, rings snapped to a grid
 * (shared positions, coinciding and touching edges), holed and multi-part rectangles, and nearly
 * coinciding rings (a dense ring and a sparse one on the same circle, vertices shared or nearly).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Geometry from "../src/Geometry.ts"
import * as Overlap from "../src/Overlap.ts"
import { OverBudget } from "../src/internal/edges.ts"
import { gridShape, polygon, rect, type Ring, star } from "./boundaryArbitraries.ts"

/** A regular `vertices`-gon on a circle (clockwise when `clockwise`), its positions nudged by up to `jitter` degrees. */
const circle = (vertices: number, radius: number, turn = 0, jitter: ReadonlyArray<number> = [], clockwise = false): Geometry.Polygon => {
  const ring: Ring = []
  for (let i = 0; i < vertices; i++) {
    const a = turn + ((clockwise ? -2 : 2) * Math.PI * i) / vertices
    const d = jitter[i % Math.max(1, jitter.length)] ?? 0
    ring.push([-60 + (radius + d) * Math.cos(a), -3 + (radius + d) * Math.sin(a)])
  }
  return polygon([...ring, ring[0]!])
}

const nearlyCoinciding = fc.record({
  dense: fc.integer({ min: 100, max: 1200 }),
  sparse: fc.integer({ min: 3, max: 90 }),
  turn: fc.constantFrom(0, 0, 1e-9, 0.01, Math.PI / 7),
  radius: fc.constantFrom(0.004, 0.004, 0.0040000001, 0.0039),
  jitter: fc.array(fc.double({ min: -1e-9, max: 1e-9, noNaN: true }), { maxLength: 5 }),
  clockwise: fc.boolean()
}).map(({ dense, sparse, turn, radius, jitter, clockwise }) => [circle(dense, 0.004, 0, [], clockwise), circle(sparse, radius, turn, jitter)] as const)

const valid = (g: Geometry.Boundary) => Geometry.validate(g).length === 0

/** Both measures agree, or the pairwise one declined the pair. Answers whether it declined. */
const agreeOneWay = (a: Geometry.Boundary, b: Geometry.Boundary): boolean => {
  let expected: number
  try {
    expected = Overlap.sharedHectaresByEdges(a, b)
  } catch {
    return true
  }
  const scale = Math.max(expected, Math.min(Geometry.areaHectares(a), Geometry.areaHectares(b)))
  assert.closeTo(Overlap.sharedHectaresPrepared(a, b), expected, 1e-9 * scale, JSON.stringify([a, b]))
  return false
}

/** `agreeOneWay` both ways round (the first boundary keeps the stretches both run along: the pairs differ there). */
const agree = (a: Geometry.Boundary, b: Geometry.Boundary): boolean => {
  const declined = agreeOneWay(a, b)
  return agreeOneWay(b, a) || declined
}

describe("shared area with one boundary prepared, against the pairwise measure by edges", () => {
  it("property: random star-shaped rings", () => {
    fc.assert(fc.property(star(), star(undefined, 400), (a, b) => {
      fc.pre(valid(a) && valid(b))
      assert.isFalse(agree(a, b))
    }), { numRuns: 300 })
  })

  it("property: star-shaped rings snapped to a 0.0005° grid (positions and edges shared, touching, nearly collinear)", () => {
    let measured = 0
    fc.assert(fc.property(star(0.0005), star(0.0005, 200), (a, b) => {
      fc.pre(valid(a) && valid(b))
      if (!agree(a, b)) measured++
    }), { numRuns: 300 })
    assert.isAbove(measured, 250)
  })

  it("property: grid rectangles, holed and multi-part (coinciding edges both ways)", () => {
    fc.assert(fc.property(gridShape, gridShape, (a, b) => {
      fc.pre(valid(a) && valid(b))
      assert.isFalse(agree(a, b))
    }), { numRuns: 300 })
  })

  it("property: nearly coinciding rings on one circle (a dense ring and a sparse one, vertices shared or nearly)", () => {
    let measured = 0
    fc.assert(fc.property(nearlyCoinciding, ([a, b]) => {
      fc.pre(valid(a) && valid(b))
      if (!agree(a, b)) measured++
    }), { numRuns: 200 })
    assert.isAbove(measured, 150)
  })

  it("one prepared boundary measured against many others in turn gives each pair's figure", () => {
    const outline = circle(1000, 0.004)
    const others = [circle(64, 0.004), circle(64, 0.004, 0.01), circle(7, 0.002), circle(1000, 0.004), polygon(rect(-60.01, -3.01, -59.99, -2.99)),
      polygon(rect(-60.002, -3.002, -59.9, -2.9)), polygon(rect(-59, -2, -58, -1)), circle(300, 0.0041, 0.3)]
    for (let round = 0; round < 3; round++) {
      for (const other of others) {
        const expected = Overlap.sharedHectaresByEdges(outline, other)
        assert.closeTo(Overlap.sharedHectaresPrepared(outline, other), expected, 1e-9 * Math.max(expected, Geometry.areaHectares(other)))
      }
    }
    assert.closeTo(Overlap.sharedHectaresPrepared(outline, circle(1000, 0.004)), Geometry.areaHectares(outline), 1e-6)
  })

  it("a measure stops past its budget of work, and the next one on the same prepared boundary is whole", () => {
    const outline = circle(1000, 0.004)
    const other = circle(64, 0.004)
    assert.throws(() => Overlap.sharedHectaresPrepared(outline, other, 50), OverBudget)
    assert.closeTo(Overlap.sharedHectaresPrepared(outline, other, 12_000), Overlap.sharedHectaresByEdges(outline, other), 1e-9)
  })
})
