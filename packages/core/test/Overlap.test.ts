import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { intersection } from "polyclip-ts"
import { Geometry, Overlap } from "../src/index.ts"

const rect = (w: number, s: number, e: number, n: number): Geometry.Polygon => ({ type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] })

// A square field with a pond, and the same field after a round trip through UTM zone 32N (as a
// Shapefile import gives it): nearly coinciding, which defeats the clipper on raw positions.
const HOLED: Geometry.Polygon = { "type": "Polygon",
  "coordinates": [[[8.2, 48.1], [8.219999999999999, 48.1], [8.219999999999999, 48.120000000000005], [8.2, 48.120000000000005], [8.2, 48.1]], [[8.205,
    48.105000000000004], [8.205, 48.115], [8.215, 48.115], [8.215, 48.105000000000004], [8.205, 48.105000000000004]]] }
const HOLED_VIA_UTM: Geometry.Polygon = {
  type: "Polygon",
  coordinates: [[[8.200000000000003, 48.099999999999994], [8.220000000000002, 48.1], [8.219999999999994, 48.12], [8.2, 48.12], [8.200000000000003,
    48.099999999999994]], [[8.204999999999993, 48.105000000000004], [8.204999999999997, 48.115], [8.215000000000002, 48.114999999999995], [8.214999999999998,
    48.105], [8.204999999999993, 48.105000000000004]]]
}

describe("Overlap", () => {
  it("shared hectares: a known rectangle, none for an edge or a corner, the whole for a copy", () => {
    const a = rect(10, 50, 10.01, 50.01)
    assert.closeTo(Overlap.sharedHectares(a, rect(10.005, 50, 10.015, 50.01)), Geometry.areaHectares(rect(10.005, 50, 10.01, 50.01)), 1e-6)
    assert.strictEqual(Overlap.sharedHectares(a, rect(10.01, 50, 10.02, 50.01)), 0)
    assert.strictEqual(Overlap.sharedHectares(a, rect(10.01, 50.01, 10.02, 50.02)), 0)
    assert.strictEqual(Overlap.sharedHectares(a, rect(11, 50, 11.01, 50.01)), 0)
    assert.closeTo(Overlap.sharedHectares(a, a), Geometry.areaHectares(a), 1e-6)
  })

  it("nearly coinciding boundaries (a reprojected copy) are measured on snapped positions instead of failing", () => {
    const shared = Overlap.sharedHectares(HOLED, HOLED_VIA_UTM)
    assert.closeTo(shared, Geometry.areaHectares(HOLED), 1e-3)
  })

  it("property: symmetric, at most the smaller area, and the area of a rectangle inside both", () => {
    const box = fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }))
      .map(([x, y, w, h]) => rect(x / 1000, 45 + y / 1000, (x + w) / 1000, 45 + (y + h) / 1000))
    fc.assert(fc.property(box, box, (a, b) => {
      const ab = Overlap.sharedHectares(a, b)
      const ba = Overlap.sharedHectares(b, a)
      assert.closeTo(ab, ba, 1e-6)
      assert.isAtMost(ab, Math.min(Geometry.areaHectares(a), Geometry.areaHectares(b)) + 1e-6)
      const [aw, as, ae, an] = Geometry.bbox(a)
      const [bw, bs, be, bn] = Geometry.bbox(b)
      const w = Math.max(aw, bw), s = Math.max(as, bs), e = Math.min(ae, be), n = Math.min(an, bn)
      assert.closeTo(ab, w < e && s < n ? Geometry.areaHectares(rect(w, s, e, n)) : 0, 1e-6)
    }), { numRuns: 200 })
  })

  it("property: concave shapes cut to the shared box first measure what the clipper measures on the whole shapes", () => {
    // stars: concave rings whose parts leave the shared box and come back
    const star = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 5, max: 40 }),
      fc.array(fc.integer({ min: 20, max: 100 }), { minLength: 6, maxLength: 24 }))
      .map(([x, y, r, radii]): Geometry.Polygon => {
        const ring = radii.map((k, i) => {
          const t = (2 * Math.PI * i) / radii.length
          return [x / 1000 + (r * k / 100000) * Math.cos(t), 45 + y / 1000 + (r * k / 100000) * Math.sin(t)] as const
        })
        return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
      })
    fc.assert(fc.property(star, star, (a, b) => {
      const whole = intersection(a.coordinates as never, b.coordinates as never)
      const expected = whole.length === 0 ? 0 : Geometry.areaHectares({ type: "MultiPolygon", coordinates: whole })
      assert.closeTo(Overlap.sharedHectares(a, b), expected, 1e-6 + expected * 1e-9)
    }), { numRuns: 300 })
  })

  it("a point is covered inside a shell and on any edge, not inside a hole", () => {
    assert.isTrue(Overlap.coversPoint(HOLED, [8.201, 48.101]))
    assert.isFalse(Overlap.coversPoint(HOLED, [8.21, 48.11]), "in the pond")
    assert.isTrue(Overlap.coversPoint(HOLED, [8.205, 48.11]), "on the pond's edge")
    assert.isTrue(Overlap.coversPoint(HOLED, [8.2, 48.11]), "on the fence")
    assert.isFalse(Overlap.coversPoint(HOLED, [8.25, 48.11]))
    const two: Geometry.MultiPolygon = { type: "MultiPolygon", coordinates: [rect(0, 0, 1, 1).coordinates, rect(2, 0, 3, 1).coordinates] }
    assert.isTrue(Overlap.coversPoint(two, [2.5, 0.5]))
    assert.isFalse(Overlap.coversPoint(two, [1.5, 0.5]))
  })
})
