/**
 * Geometry benchmark: validate + area of a 100,000-position polygon, and our area against
 * GeographicLib's PolygonArea on the same polygon (the baseline, measured in the same run); and
 * validation of hostile "star" polygons (every edge's box overlaps every other's) against a
 * smooth outline with as many positions (the baseline): the sweep line keeps them alike.
 */
import { Geometry } from "@canopy/core"
import type { Polygon, Position } from "../packages/core/src/Geometry.ts"
import { blob, corpus, oracleHectares } from "../packages/core/test/geodesyCorpus.ts"

const time = (runs: number, f: () => void): number => {
  f() // warm up
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    f()
    samples.push(performance.now() - t0)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}

/** A valid star of `n` positions around (10, 10): radii alternating 1° and 0.001°. */
const star = (n: number): Polygon => {
  const ring: Array<Position> = []
  for (let i = 0; i < n - 1; i++) {
    const r = i % 2 === 0 ? 1 : 0.001, t = (2 * Math.PI * i) / (n - 1)
    ring.push([10 + r * Math.cos(t), 10 + r * Math.sin(t)])
  }
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
}

const validMs = (g: Polygon, runs: number) =>
  time(runs, () => {
    if (Geometry.validate(g).length !== 0) throw new Error("benchmark polygon must be valid")
  })

export const run = () => {
  // A traced boundary: 100,000 positions on a smooth, irregular outline of about 160,000 ha.
  const big: Polygon = { type: "Polygon", coordinates: [blob(-60.5, -3.1, 25_000, 99_999, 0.3, 42, true)] }
  const validateMs = time(5, () => {
    if (Geometry.validate(big).length !== 0) throw new Error("benchmark polygon must be valid")
  })
  const ourAreaMs = time(9, () => Geometry.areaHectares(big))
  const libAreaMs = time(5, () => oracleHectares(big))
  const rel = Math.abs(Geometry.areaHectares(big) - oracleHectares(big)) / oracleHectares(big)
  console.log("geometry: 100,000-position polygon (median of runs)")
  console.log(`  validate                         ${validateMs.toFixed(1)} ms`)
  console.log(`  area (Canopy)                    ${ourAreaMs.toFixed(1)} ms`)
  console.log(`  validate + area                  ${(validateMs + ourAreaMs).toFixed(1)} ms  (goal < 1000 ms)`)
  console.log(`  area (GeographicLib PolygonArea) ${libAreaMs.toFixed(1)} ms  (baseline)`)
  console.log(`  speed ratio vs GeographicLib     ${(libAreaMs / ourAreaMs).toFixed(1)}×  (goal ≥ 10×), relative difference ${rel.toExponential(2)}`)
  console.log("geometry: hostile stars (radii 1° and 0.001° alternating) against a smooth outline of as many positions")
  for (const [n, goal] of [[24_000, 500], [100_000, 1500]] as const) {
    const starMs = validMs(star(n), 3)
    const smoothMs = validMs({ type: "Polygon", coordinates: [blob(-60.5, -3.1, 25_000, n - 1, 0.3, 42, true)] }, 3)
    const label = `${n.toLocaleString("en")} positions`
    console.log(`  ${label.padEnd(18)} star ${starMs.toFixed(1).padStart(7)} ms (goal < ${goal} ms), smooth ${smoothMs.toFixed(1).padStart(7)} ms (baseline), ratio ${(starMs / smoothMs).toFixed(2)}×`)
  }
  console.log("geometry: corpus accuracy against GeographicLib")
  for (const { name, boundary } of corpus) {
    const ours = Geometry.areaHectares(boundary)
    const ref = oracleHectares(boundary)
    console.log(`  ${name.padEnd(46)} ${ours.toFixed(6).padStart(20)} ha  rel. diff ${(Math.abs(ours - ref) / ref).toExponential(2)}`)
  }
}
