/**
 * Geometry benchmark: validate + area of a 100,000-position polygon, and our area against
 * GeographicLib's PolygonArea on the same polygon (the baseline, measured in the same run);
 * validation of hostile "star" polygons (every edge's box overlaps every other's) against a
 * smooth outline with as many positions (the baseline): the sweep line keeps them alike; and the
 * area two boundaries share, measured by the pieces of their edges (`Overlap.sharedHectares`)
 * against clipping with `polyclip-ts` and measuring the result (`Overlap.clippedHectares`, the
 * baseline), on nearly coinciding rings, crossing combs and an estate's stands; and the geometry
 * steps of one create as the http benchmark posts it, each on freshly parsed boundaries (a measure
 * keeps its preparation of a boundary by the object), against parsing the body (the baseline).
 */
import { Geometry, GeometryCheck, Overlap } from "@canopy/core"
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
    console.log(
      `  ${label.padEnd(18)} star ${starMs.toFixed(1).padStart(7)} ms (goal < ${goal} ms), smooth ${smoothMs.toFixed(1).padStart(7)} ms (baseline), ratio ${
        (starMs / smoothMs).toFixed(2)
      }×`
    )
  }
  overlaps()
  createSteps()
  console.log("geometry: corpus accuracy against GeographicLib")
  for (const { name, boundary } of corpus) {
    const ours = Geometry.areaHectares(boundary)
    const ref = oracleHectares(boundary)
    console.log(`  ${name.padEnd(46)} ${ours.toFixed(6).padStart(20)} ha  rel. diff ${(Math.abs(ours - ref) / ref).toExponential(2)}`)
  }
}

/** A ring of `n` positions around (lon, lat), radius in degrees, starting at `phase` steps. */
const circle = (n: number, lon: number, lat: number, r: number, phase = 0): Polygon => {
  const ring: Array<Position> = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * (i + phase)) / n
    return [lon + r * Math.cos(a), lat + r * Math.sin(a)]
  })
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
}

/** A comb of `teeth` teeth over a 0.05° square; `across` turns it a quarter. */
const comb = (teeth: number, across: boolean): Polygon => {
  const side = 0.05, pitch = side / teeth, spine = side * 0.05
  const uv: Array<Position> = [[0, 0], [side, 0]]
  for (let i = teeth - 1; i >= 0; i--) uv.push([(i + 1) * pitch, spine], [(i + 1) * pitch, side], [i * pitch + pitch / 2, side], [i * pitch + pitch / 2, spine])
  uv.push([0, spine])
  const ring = uv.map(([u, v]): Position => (across ? [12 + v!, 45 + side - u!] : [12 + u!, 45 + v!]))
  return { type: "Polygon", coordinates: [[...ring, ring[0]!]] }
}

const square = (w: number, s: number, side: number): Polygon => ({ type: "Polygon",
  coordinates: [[[w, s], [w + side, s], [w + side, s + side], [w, s + side], [w, s]]] })

const overlaps = () => {
  const pairs: ReadonlyArray<[string, Polygon, Polygon, number]> = [
    ["1,000 × 64 nearly coinciding rings", circle(1_000, 3, 40, 0.05), circle(64, 3, 40, 0.05, 0.3), 20],
    ["1,000 × 1,000 nearly coinciding", circle(1_000, 3, 40, 0.05), circle(1_000, 3, 40, 0.0500001, 0.5), 20],
    ["3,000 × 3,000 circles, half shared", circle(3_000, 3, 40, 0.05), circle(3_000, 3.05, 40, 0.05), 10],
    ["80-tooth combs crossing (25,600 ×)", comb(80, false), comb(80, true), 3],
    ["stand beside stand (an edge shared)", square(15, 60, 0.002), square(15.002, 60, 0.002), 200],
    ["stand inside an outline", square(15, 60, 0.1), square(15.01, 60.01, 0.002), 200]
  ]
  console.log("geometry: shared area of two boundaries (median of runs), pieces of edges vs clipping (baseline)")
  for (const [label, a, b, runs] of pairs) {
    const clipMs = time(runs, () => Overlap.clippedHectares(a, b))
    const edgesMs = time(runs * 5, () => Overlap.sharedHectares(a, b))
    const testMs = time(runs * 5, () => Overlap.sharesArea(a, b))
    const difference = Math.abs(Overlap.sharedHectares(a, b) - Overlap.clippedHectares(a, b))
    console.log(
      `  ${label.padEnd(38)} clip ${clipMs.toFixed(2).padStart(8)} ms, edges ${edgesMs.toFixed(2).padStart(7)} ms (${
        (clipMs / edgesMs).toFixed(0).padStart(3)
      }×), shares? ${testMs.toFixed(3).padStart(6)} ms; |Δ| ${difference.toExponential(1)} ha`
    )
  }
}

/**
 * The geometry steps of one create, as `npm run bench -- http` posts it (a 1,000-position circle
 * over its site's 64-vertex boundary), each timed on boundaries parsed afresh, as every request's
 * are: the ratio is to parsing the request body, the one step every server does.
 */
const createSteps = () => {
  const posted = JSON.stringify({ name: "Re-survey", geometry: circle(1_000, -60, -3, 0.004, 0.5) })
  const neighbour = JSON.stringify(Geometry.normalize(circle(64, -60, -3, 0.004)))
  const perStep = (step: (body: { geometry: Geometry.Boundary }) => unknown): number => {
    let spent = 0, runs = 0
    for (let round = 0; round < 60; round++) {
      const fresh = Array.from({ length: 25 }, () => JSON.parse(posted) as { geometry: Geometry.Boundary })
      const t0 = performance.now()
      for (const body of fresh) step(body)
      if (round >= 10) { // the first rounds compile
        spent += performance.now() - t0
        runs += fresh.length
      }
    }
    return (spent / runs) * 1000
  }
  const parseUs = perStep(() => JSON.parse(posted))
  const steps: ReadonlyArray<[string, (body: { geometry: Geometry.Boundary }) => unknown]> = [
    ["validation (Geometry.problems)", (b) => Geometry.problems(b.geometry)],
    ["stored text (normalise + JSON)", (b) => JSON.stringify(Geometry.normalize(b.geometry))],
    // What the server does instead for a plain boundary: its text read from the body (GeometryCheck.keepSource).
    ["stored text as sent (normalise + body)", (b) => {
      GeometryCheck.keepSource(b, posted)
      return Geometry.normalize(b.geometry)
    }],
    ["geodesic area", (b) => Geometry.areaHectares(b.geometry)],
    ["shared area with the neighbour", (b) => Overlap.sharedHectaresPrepared(b.geometry, JSON.parse(neighbour) as Geometry.Boundary)]
  ]
  console.log("geometry: one create's steps on a fresh 1,000-position boundary (µs each, ratio to parsing the body)")
  console.log(`  ${"JSON.parse of the body".padEnd(38)} ${parseUs.toFixed(0).padStart(6)} µs  (baseline)`)
  for (const [label, step] of steps) {
    const us = perStep(step)
    console.log(`  ${label.padEnd(38)} ${us.toFixed(0).padStart(6)} µs  ${(us / parseUs).toFixed(2)}×`)
  }
}
