/**
 * Why `@turf/area` is not the area engine: it measures on a sphere, and on the geodesy corpus its
 * error against GeographicLib's ellipsoidal `PolygonArea` is thousands of times the 1e-6 that
 * Canopy's own area keeps (docs/decisions.md, "HTTP stack and area engine").
 */
import { assert, describe, it } from "@effect/vitest"
import turfArea from "@turf/area"
import { Geometry } from "../src/index.ts"
import { corpus, oracleHectares } from "./geodesyCorpus.ts"

/** The corpus tolerance: relative difference from GeographicLib (Geometry.test.ts). */
const TOLERANCE = 1e-6

const relativeErrors = (hectares: (b: Geometry.Boundary) => number) =>
  corpus.map(({ boundary }) => Math.abs(hectares(boundary) - oracleHectares(boundary)) / oracleHectares(boundary))

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

describe("@turf/area against GeographicLib on the geodesy corpus", () => {
  const ours = relativeErrors(Geometry.areaHectares)
  const turf = relativeErrors((b) => turfArea({ type: "Feature", properties: {}, geometry: b }) / 10_000)

  it("Canopy's area stays within the corpus tolerance on every polygon", () => {
    assert.isBelow(Math.max(...ours), TOLERANCE)
  })

  it("turf's spherical area misses it on every polygon, by 0.1 % or more at the median", () => {
    for (const [i, e] of turf.entries()) assert.isAbove(e, TOLERANCE, corpus[i]!.name)
    assert.isAbove(median(turf), 1e-3)
    assert.isAbove(median(turf), 1_000 * Math.max(...ours))
  })
})
