/**
 * The shared area measured from the pieces of both boundaries' edges (`Overlap.sharedHectaresByEdges`)
 * against the clipper's (`Overlap.clippedHectares`: `polyclip-ts`, then the geodesic area of its
 * output) on random valid boundaries: star-shaped rings, rings snapped to a coarse grid (edges that
 * coincide, touch or run along each other), holes and multi-polygons, adjacent stands and combs.
 * The planar areas agree to rounding, the geodesic hectares far below the API's 4 decimals, and
 * "do they share area?" agrees with the clipper's area being positive.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { type Geom, intersection } from "polyclip-ts"
import { Geometry, Overlap } from "../src/index.ts"
import * as SharedArea from "../src/internal/sharedArea.ts"
import { gridShape, rect, type Ring, star } from "./boundaryArbitraries.ts"

const valid = (g: Geometry.Boundary) => Geometry.validate(g).length === 0

const ringsOf = (g: Geometry.Boundary) => (g.type === "Polygon" ? [g.coordinates] : g.coordinates)

/** The clipper's intersection, its area in the lon/lat plane (square degrees). */
const clippedPlanar = (a: Geometry.Boundary, b: Geometry.Boundary): number => {
  const shoelace = (ring: ReadonlyArray<ReadonlyArray<number>>) => {
    let s = 0
    for (let i = 0; i + 1 < ring.length; i++) s += ((ring[i]![0]! - 7) * (ring[i + 1]![1]! - 46) - (ring[i + 1]![0]! - 7) * (ring[i]![1]! - 46)) / 2
    return Math.abs(s)
  }
  return intersection(ringsOf(a) as Geom, ringsOf(b) as Geom)
    .reduce((sum, rings) => sum + rings.reduce((t, ring, i) => t + (i === 0 ? 1 : -1) * shoelace(ring), 0), 0)
}

/**
 * The planar areas agree to rounding (the same region, however its edges are cut); the geodesic
 * hectares agree to the API's 4 decimals, ±1 in the last (they differ only where a clipper keeps a point along a
 * straight edge that the measure by edges keeps whole: a geodesic cut at a point of the straight
 * lon/lat line bends, by ~0.1 m² for a 300 m edge, growing with the cube of its length); and whether
 * the boundaries share area agrees with the clipper (up to slivers that exact predicates see and
 * floating point does not). Where the measure by edges declines (a sliver thinner than rounding
 * between nearly collinear edges), `sharedHectares` is the clipper's figure. Answers whether it declined.
 */
const agree = (a: Geometry.Boundary, b: Geometry.Boundary, hectares = 2e-4): boolean => {
  const clipped = Overlap.clippedHectares(a, b)
  const shares = Overlap.sharesArea(a, b)
  if (clipped > 1e-6) assert.isTrue(shares, JSON.stringify([a, b]))
  assert.strictEqual(Overlap.sharesArea(b, a), shares)
  assert.closeTo(Overlap.sharedHectares(a, b), clipped, hectares, JSON.stringify([a, b]))
  let byEdges: number
  try {
    byEdges = Overlap.sharedHectaresByEdges(a, b)
  } catch {
    return true
  }
  const clippedDeg2 = clippedPlanar(a, b)
  assert.closeTo(SharedArea.sharedPlanarArea(ringsOf(a), ringsOf(b)), clippedDeg2, 1e-15 + 1e-9 * clippedDeg2, JSON.stringify([a, b]))
  assert.closeTo(byEdges, clipped, hectares, JSON.stringify([a, b]))
  if (!shares) assert.strictEqual(byEdges, 0)
  return false
}

/** A comb of `teeth` teeth on a 0.05° square at 12° E 45° N; `across`: turned a quarter, its teeth crossing the other's. */
const comb = (teeth: number, across: boolean): Geometry.Polygon => {
  const side = 0.05, pitch = side / teeth, spine = side * 0.05
  const uv: Ring = [[0, 0], [side, 0]]
  for (let i = teeth - 1; i >= 0; i--) uv.push([(i + 1) * pitch, spine], [(i + 1) * pitch, side], [i * pitch + pitch / 2, side], [i * pitch + pitch / 2, spine])
  uv.push([0, spine])
  const ring = uv.map(([u, v]): [number, number] => (across ? [12 + v, 45 + side - u] : [12 + u, 45 + v]))
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
}

describe("shared area by edges against the clipper", () => {
  it("property: random star-shaped rings, never declined", () => {
    fc.assert(fc.property(star(), star(), (a, b) => {
      fc.pre(valid(a) && valid(b))
      assert.isFalse(agree(a, b))
    }), { numRuns: 400 })
  })

  it("property: star-shaped rings snapped to a 0.0005° grid (positions and edges shared, touching, nearly collinear)", () => {
    let declined = 0, runs = 0
    fc.assert(fc.property(star(0.0005), star(0.0005), (a, b) => {
      fc.pre(valid(a) && valid(b))
      runs++
      if (agree(a, b)) declined++
    }), { numRuns: 400 })
    assert.isBelow(declined, runs / 10, `the clipper measured ${declined} of ${runs} pairs`)
  })

  it("property: grid rectangles, holed and multi-part (coinciding edges both ways), never declined", () => {
    fc.assert(fc.property(gridShape, gridShape, (a, b) => {
      fc.pre(valid(a) && valid(b))
      assert.isFalse(agree(a, b))
    }), { numRuns: 400 })
  })

  it("adjacent stands share nothing; a stand inside an outline shares all of itself; a copy shares all", () => {
    const stand = (i: number, j: number): Geometry.Polygon => ({ type: "Polygon",
      coordinates: [rect(7 + i * 0.001, 46 + j * 0.001, 7.001 + i * 0.001, 46.001 + j * 0.001)] })
    const outline: Geometry.Polygon = { type: "Polygon", coordinates: [rect(7, 46, 7.01, 46.01)] }
    for (const [i, j] of [[1, 0], [0, 1], [1, 1], [-1, 1]] as const) {
      assert.isFalse(Overlap.sharesArea(stand(0, 0), stand(i, j)))
      assert.strictEqual(Overlap.sharedHectaresByEdges(stand(0, 0), stand(i, j)), 0)
    }
    for (const s of [stand(0, 0), stand(3, 4), stand(9, 9)]) {
      assert.closeTo(Overlap.sharedHectaresByEdges(outline, s), Geometry.areaHectares(s), 1e-9)
      assert.closeTo(Overlap.sharedHectaresByEdges(s, s), Geometry.areaHectares(s), 1e-9)
    }
  })

  it("a measure stops past its budget of work: crossing combs throw, a stand inside its outline costs a few dozen units", () => {
    assert.throws(() => Overlap.sharedHectaresByEdges(comb(80, false), comb(80, true), 20_000), /budget of work/)
    const outline: Geometry.Polygon = { type: "Polygon", coordinates: [rect(15, 60, 15.1, 60.08)] }
    const inside: Geometry.Polygon = { type: "Polygon", coordinates: [rect(15.01, 60.01, 15.014, 60.012)] }
    assert.closeTo(Overlap.sharedHectaresByEdges(outline, inside, 100), Geometry.areaHectares(inside), 1e-9)
  })

  it("two crossing combs: 6,400 meetings of edges, the clipper's figure (its 5.5 km edges kept whole here, cut by the clipper)", () => {
    assert.isFalse(agree(comb(40, false), comb(40, true), 0.02))
  })
})
