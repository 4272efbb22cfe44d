import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Geometry } from "../src/index.ts"
import type { Boundary, Polygon, Position, Ring } from "../src/Geometry.ts"
import { blob, corpus, oracleHectares, oracleRingArea, square } from "./geodesyCorpus.ts"

const poly = (...rings: Array<Array<Position>>): Polygon => ({ type: "Polygon", coordinates: rings })
const unit: Array<Position> = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]
const fields = (v: unknown) => Geometry.validate(v).map((p) => p.field)
const messages = (v: unknown) => Geometry.validate(v).map((p) => `${p.field}: ${p.message}`).join("\n")

describe("Geometry.areaHectares", () => {
  for (const { name, boundary } of corpus) {
    it(`${name}: within 1e-6 of GeographicLib's PolygonArea`, () => {
      assert.deepStrictEqual(Geometry.validate(boundary), [])
      const ours = Geometry.areaHectares(boundary)
      const oracle = oracleHectares(boundary)
      assert.isAbove(oracle, 0)
      assert.isBelow(Math.abs(ours - oracle) / oracle, 1e-6, `${name}: ours ${ours} ha, GeographicLib ${oracle} ha`)
    })
  }

  it("the corpus sizes are what their names say", () => {
    const ha = Object.fromEntries(corpus.map((c) => [c.name, Geometry.areaHectares(c.boundary)]))
    assert.closeTo(ha["1 ha square at 65°N"]!, 1, 0.001)
    assert.closeTo(ha["1,000 ha irregular plot"]!, 1_000, 50)
    assert.closeTo(ha["100,000 ha in the Amazon"]!, 100_000, 100)
    assert.closeTo(ha["1,000,000 ha at 65°N (100 km edges)"]!, 1_000_000, 5_000)
    assert.closeTo(ha["50 km × 20 m strip"]!, 100, 0.01)
  })

  it("differs from a spherical-Earth area by the ellipsoid's 0.2–0.7%", () => {
    // A 1° cell at 65°N on a sphere of the mean radius, integrated exactly, is measurably off.
    const R = 6371008.8
    const cell = poly([[25, 65], [26, 65], [26, 66], [25, 66], [25, 65]])
    const sphere = (R * R * (Math.PI / 180) * (Math.sin((66 * Math.PI) / 180) - Math.sin((65 * Math.PI) / 180))) / 10_000
    const rel = Math.abs(Geometry.areaHectares(cell) - sphere) / sphere
    assert.isAbove(rel, 0.001)
  })

  const convexRing = fc.record({
    lon: fc.double({ min: -170, max: 170, noNaN: true }),
    lat: fc.double({ min: -70, max: 70, noNaN: true }),
    radius: fc.double({ min: 50, max: 50_000, noNaN: true }),
    n: fc.integer({ min: 3, max: 40 })
  }).map(({ lat, lon, n, radius }) => blob(lon, lat, radius, n))

  it("property: invariant under ring rotation and reversal", () => {
    fc.assert(fc.property(convexRing, fc.nat(), (ring, k) => {
      const open = ring.slice(0, -1)
      const shift = k % open.length
      const rotated = [...open.slice(shift), ...open.slice(0, shift)]
      const a = Geometry.areaHectares(poly(ring as Array<Position>))
      const b = Geometry.areaHectares(poly([...rotated, rotated[0]!]))
      const c = Geometry.areaHectares(poly([...ring].reverse()))
      assert.closeTo(b, a, a * 1e-9)
      assert.closeTo(c, a, a * 1e-9)
    }), { numRuns: 200 })
  })

  it("property: a convex polygon cut along a diagonal sums to the whole", () => {
    fc.assert(fc.property(convexRing, fc.nat(), (ring, k) => {
      const open = ring.slice(0, -1)
      if (open.length < 4) return
      const cut = 2 + (k % (open.length - 3))
      const left = [...open.slice(0, cut + 1), open[0]!]
      const right = [...open.slice(cut), open[0]!, open[cut]!]
      const whole = Geometry.areaHectares(poly(ring as Array<Position>))
      const sum = Geometry.areaHectares(poly(left)) + Geometry.areaHectares(poly(right))
      assert.closeTo(sum, whole, whole * 1e-9)
    }), { numRuns: 200 })
  })

  it("property: a hole subtracts exactly its own area", () => {
    fc.assert(fc.property(
      fc.double({ min: -170, max: 170, noNaN: true }),
      fc.double({ min: -70, max: 70, noNaN: true }),
      fc.double({ min: 200, max: 20_000, noNaN: true }),
      fc.double({ min: 0.1, max: 0.9, noNaN: true }),
      (lon, lat, side, ratio) => {
        const shell = square(lon, lat, side) as Array<Position>
        const hole = [...square(lon, lat, side * ratio)].reverse() as Array<Position>
        const withHole = Geometry.areaHectares(poly(shell, hole))
        const expected = Geometry.areaHectares(poly(shell)) - Geometry.areaHectares(poly(hole))
        assert.closeTo(withHole, expected, Geometry.areaHectares(poly(shell)) * 1e-12)
        assert.closeTo(Geometry.areaHectares(poly(hole)), oracleRingArea(hole) / 10_000, (oracleRingArea(hole) / 10_000) * 1e-6)
      }
    ), { numRuns: 100 })
  })
})

describe("Geometry.validate", () => {
  it("accepts a valid polygon, multipolygon, holes, altitude and repeated positions", () => {
    assert.deepStrictEqual(Geometry.validate(poly(unit)), [])
    assert.deepStrictEqual(Geometry.validate(poly([[0, 0, 10], [1, 0, 12], [1, 1, 9], [0, 0, 10]])), [])
    assert.deepStrictEqual(Geometry.validate(poly([[0, 0], [1, 0], [1, 0], [1, 1], [0, 0]])), [])
    assert.deepStrictEqual(
      Geometry.validate(poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [1, 2], [2, 2], [2, 1], [1, 1]])),
      []
    )
    // A hole touching its shell at a single point is valid (OGC).
    assert.deepStrictEqual(Geometry.validate(poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[0, 0], [1, 2], [2, 1], [0, 0]])), [])
    assert.deepStrictEqual(Geometry.validate({ type: "MultiPolygon", coordinates: [[unit], [[[2, 0], [3, 0], [3, 1], [2, 0]]]] }), [])
  })

  it("rejects non-objects, wrong types and wrong shapes at their paths", () => {
    assert.deepStrictEqual(fields(null), ["geometry"])
    assert.deepStrictEqual(fields({ type: "Point", coordinates: [0, 0] }), ["geometry.type"])
    assert.deepStrictEqual(fields({ type: "Polygon" }), ["geometry.coordinates"])
    assert.deepStrictEqual(fields({ type: "Polygon", coordinates: [] }), ["geometry.coordinates"])
    assert.deepStrictEqual(fields({ type: "Polygon", coordinates: [5] }), ["geometry.coordinates[0]"])
    assert.deepStrictEqual(fields({ type: "MultiPolygon", coordinates: [] }), ["geometry.coordinates"])
    assert.deepStrictEqual(Geometry.validate(null, { field: "boundary" })[0]!.field, "boundary")
  })

  it("reports every bad position with its own path", () => {
    const problems = Geometry.validate(poly([[0, 0], [1, "x" as never], [200, 0], [1, Infinity], [0, 0]]))
    assert.deepStrictEqual(problems.map((p) => p.field), [
      "geometry.coordinates[0][1][1]",
      "geometry.coordinates[0][2][0]",
      "geometry.coordinates[0][3][1]"
    ])
  })

  it("hints at a latitude/longitude swap", () => {
    const [p] = Geometry.validate(poly([[45, 120], [46, 120], [46, 121], [45, 120]]))
    assert.strictEqual(p!.field, "geometry.coordinates[0][0][1]")
    assert.match(p!.message, /outside \[-90, 90\].*swapped/)
    const [q] = Geometry.validate(poly([[150, 120], [151, 120], [151, 121], [150, 120]]))
    assert.notMatch(q!.message, /swapped/)
  })

  it("rejects unclosed rings, too few positions and too few distinct positions", () => {
    assert.match(messages(poly([[0, 0], [1, 0], [1, 1], [0, 1]])), /geometry\.coordinates\[0\]: ring is not closed/)
    assert.match(messages(poly([[0, 0], [1, 0], [0, 0]])), /geometry\.coordinates\[0\]: a linear ring needs at least 4 positions, got 3/)
    assert.match(messages(poly([[0, 0], [1, 0], [0, 0], [1, 0], [0, 0]])), /at least 3 distinct positions, got 2/)
    // both problems of one ring are reported
    assert.strictEqual(Geometry.validate(poly([[0, 0], [1, 0], [1, 0], [1, 0]])).length, 2)
  })

  it("rejects a self-intersecting ring (bow tie) and a ring that touches itself", () => {
    assert.match(messages(poly([[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]])), /coordinates\[0\]: ring self-intersects/)
    assert.match(messages(poly([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2], [1, 1], [0, 0]])), /self-intersects/)
    // a spike that runs back along its own edge
    assert.match(messages(poly([[0, 0], [2, 0], [1, 0], [1, 1], [0, 0]])), /self-intersects/)
  })

  it("rejects holes outside the shell, crossing rings, nested holes and overlapping polygons", () => {
    const shell: Array<Position> = [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]
    assert.match(messages(poly(shell, [[5, 5], [6, 5], [6, 6], [5, 5]])), /coordinates\[1\]: hole lies outside its shell/)
    assert.match(messages(poly(shell, [[3, 3], [5, 3], [5, 5], [3, 3]])), /coordinates\[\d\]: rings cross/)
    assert.match(
      messages(poly(shell, [[1, 1], [3, 1], [3, 3], [1, 3], [1, 1]], [[1.5, 1.5], [2, 1.5], [2, 2], [1.5, 1.5]])),
      /coordinates\[2\]: hole lies inside hole 1/
    )
    assert.match(
      messages({ type: "MultiPolygon", coordinates: [[shell], [[[1, 1], [2, 1], [2, 2], [1, 1]]]] }),
      /coordinates\[1\]\[0\]: polygon lies inside polygon 0/
    )
    assert.match(
      messages({ type: "MultiPolygon", coordinates: [[shell], [[[3, 3], [5, 3], [5, 5], [3, 3]]]] }),
      /rings cross/
    )
  })

  it("rejects rings that cross only where they share a vertex", () => {
    const square: Array<Position> = [[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]
    const through: Array<Position> = [[0, 0], [2, 2], [3, 3], [-1, 3], [-1, -1], [0, 0]]
    assert.match(messages({ type: "MultiPolygon", coordinates: [[square], [through]] }), /rings cross: this ring crosses ring 0 of polygon 1 \(near \[0, 0\]\)/)
    // a hole's vertex on the shell's edge, the hole going out on one side and in on the other
    assert.match(messages(poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[2, 0], [3, -1], [3, 1], [2, 0]])), /rings cross/)
  })

  it("rejects a polygon whose interior is cut in two by touching rings (GEOS: Interior is disconnected)", () => {
    const shell: Array<Position> = [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]
    // a hole touching the shell at two opposite corners
    assert.strictEqual(
      messages(poly(shell, [[0, 0], [2, 1], [4, 4], [1, 2], [0, 0]])),
      "geometry.coordinates[1]: the polygon's interior is cut in two: this ring touches ring 0 at [4, 4] and [0, 0]"
    )
    // two holes touching each other, each touching the shell
    assert.match(
      messages(poly(shell, [[0, 2], [1, 1], [2, 2], [1, 3], [0, 2]], [[2, 2], [3, 1], [4, 2], [3, 3], [2, 2]])),
      /^geometry\.coordinates\[2\]: the polygon's interior is cut in two: this ring, ring 1 and ring 0 touch one another in a loop, at \[4, 2\], \[2, 2\] and \[0, 2\]$/
    )
    // in a MultiPolygon the path names the polygon
    assert.match(
      messages({ type: "MultiPolygon", coordinates: [[[[9, 9], [10, 9], [10, 10], [9, 9]]], [shell, [[0, 0], [2, 1], [4, 4], [1, 2], [0, 0]]]] }),
      /^geometry\.coordinates\[1\]\[1\]: the polygon's interior is cut in two/
    )
  })

  it("accepts touches that leave the interior connected", () => {
    const shell: Array<Position> = [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]
    // two holes touching each other away from the shell
    assert.deepStrictEqual(Geometry.validate(poly(shell, [[0.5, 2], [1, 1], [2, 2], [1, 3], [0.5, 2]], [[2, 2], [3, 1], [3.5, 2], [3, 3], [2, 2]])), [])
    // a shell and two holes all meeting at one point
    assert.deepStrictEqual(Geometry.validate(poly(shell, [[0, 0], [3, 1], [2, 1.5], [0, 0]], [[0, 0], [1.5, 2], [1, 3], [0, 0]])), [])
    // a hole touching the shell with a vertex on the shell's edge
    assert.deepStrictEqual(Geometry.validate(poly(shell, [[2, 0], [3, 1], [1, 1], [2, 0]])), [])
    // polygons of a MultiPolygon may touch at several points: only each polygon's interior counts
    const island: Array<Position> = [[1, 1], [2, 1.5], [3, 3], [1.5, 2], [1, 1]]
    assert.deepStrictEqual(Geometry.validate({ type: "MultiPolygon", coordinates: [[shell, [[1, 1], [3, 1], [3, 3], [1, 3], [1, 1]]], [island]] }), [])
  })

  it("validates hostile shapes in O(n log n): a 100,000-position star, 10,000 squares, 5,000 holes", () => {
    const star = (n: number, cx: number, cy: number, inner: number): Array<Position> => {
      const ring = Array.from({ length: n - 1 }, (_, i): Position => {
        const r = i % 2 === 0 ? 1 : inner, t = (2 * Math.PI * i) / (n - 1)
        return [cx + r * Math.cos(t), cy + r * Math.sin(t)]
      })
      return [...ring, ring[0]!]
    }
    const t0 = performance.now()
    assert.deepStrictEqual(Geometry.validate(poly(star(100_000, 10, 10, 0.001))), [])
    const squares = Array.from({ length: 10_000 }, (_, i) => {
      const x = 10 + (i % 100) * 0.01, y = 10 + Math.floor(i / 100) * 0.01
      return [[[x, y], [x + 0.005, y], [x + 0.005, y + 0.005], [x, y + 0.005], [x, y]] as Array<Position>]
    })
    assert.deepStrictEqual(Geometry.validate({ type: "MultiPolygon", coordinates: squares }), [])
    const holes = Array.from({ length: 5_000 }, (_, i): Array<Position> => {
      const x = 10.001 + (i % 70) * 0.01, y = 10.001 + Math.floor(i / 70) * 0.01
      return [[x, y], [x, y + 0.005], [x + 0.005, y], [x, y]]
    })
    assert.deepStrictEqual(Geometry.validate(poly(star(60_000, 10.35, 10.35, 0.9), ...holes)), [])
    // quadratic work would take minutes here; the bound is loose for slow, busy machines
    assert.isBelow(performance.now() - t0, 15_000)
  })

  it("rejects an edge spanning the antimeridian the long way", () => {
    assert.match(messages(poly([[179, 0], [-179, 0], [-179, 1], [179, 0]])), /antimeridian/)
  })

  it("rejects more than 100,000 positions in one problem", () => {
    const ring = Array.from({ length: 100_001 }, (_, i): Position => [Math.cos(i), Math.sin(i)])
    const problems = Geometry.validate(poly(ring))
    assert.strictEqual(problems.length, 1)
    assert.match(problems[0]!.message, /100001 positions; at most 100000/)
  })

  it("caps the report at 100 problems plus a summary", () => {
    const ring = Array.from({ length: 500 }, (): Position => [500, 0])
    const problems = Geometry.validate(poly(ring))
    assert.strictEqual(problems.length, 101)
    assert.match(problems[100]!.message, /and \d+ more problems/)
  })

  it("property: never throws on any JSON value, and answers with field paths", () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      for (const p of Geometry.validate(v)) assert.match(p.field, /^geometry/)
    }), { numRuns: 500 })
    fc.assert(fc.property(
      fc.record({ type: fc.constantFrom("Polygon", "MultiPolygon"), coordinates: fc.anything() }),
      (v) => {
        Geometry.validate(v)
      }
    ), { numRuns: 500 })
  })

  it("property: any convex blob is valid and its reversal is valid too", () => {
    fc.assert(fc.property(
      fc.double({ min: -170, max: 170, noNaN: true }),
      fc.double({ min: -80, max: 80, noNaN: true }),
      fc.integer({ min: 3, max: 60 }),
      (lon, lat, n) => {
        const ring = blob(lon, lat, 1000, n) as Array<Position>
        assert.deepStrictEqual(Geometry.validate(poly(ring)), [])
        assert.deepStrictEqual(Geometry.validate(poly([...ring].reverse())), [])
      }
    ), { numRuns: 100 })
  })
})

describe("Geometry.normalize and bbox", () => {
  const signed = (r: Ring) => r.slice(0, -1).reduce((s, p, i) => s + p[0] * r[i + 1]![1] - r[i + 1]![0] * p[1], 0)
  it("applies the right-hand rule: shells counter-clockwise, holes clockwise", () => {
    const cw: Array<Position> = [...unit].reverse()
    const hole: Array<Position> = [[0.2, 0.2], [0.4, 0.2], [0.4, 0.4], [0.2, 0.2]] // counter-clockwise
    const out = Geometry.normalize(poly(cw, hole))
    assert.isAbove(signed(out.coordinates[0]!), 0)
    assert.isBelow(signed(out.coordinates[1]!), 0)
    const multi = Geometry.normalize<Boundary>({ type: "MultiPolygon", coordinates: [[cw]] })
    assert.isAbove(signed((multi as { coordinates: ReadonlyArray<ReadonlyArray<Ring>> }).coordinates[0]![0]!), 0)
    // already-correct rings are kept as they are
    assert.strictEqual(Geometry.normalize(poly(unit)).coordinates[0], unit)
  })
  it("computes the bounding box over every position", () => {
    assert.deepStrictEqual(Geometry.bbox(poly([[-3, 2], [5, 2], [5, 7], [-3, 2]])), [-3, 2, 5, 7])
    assert.deepStrictEqual(Geometry.bbox({ type: "Point", coordinates: [1, 2] }), [1, 2, 1, 2])
  })
})

describe("Geometry.validatePoint", () => {
  it("accepts [lon, lat] and rejects bad points at their paths", () => {
    assert.deepStrictEqual(Geometry.validatePoint({ type: "Point", coordinates: [10, 50] }), [])
    assert.deepStrictEqual(Geometry.validatePoint({ type: "Point", coordinates: [10, 95] }).map((p) => p.field), ["location.coordinates[1]"])
    assert.deepStrictEqual(Geometry.validatePoint({ type: "Polygon" }).map((p) => p.field), ["location.type"])
    assert.deepStrictEqual(Geometry.validatePoint("x").map((p) => p.field), ["location"])
  })
})
