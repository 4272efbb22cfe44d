/**
 * The geodesy test corpus, shared by the accuracy test and the benchmark, and GeographicLib's
 * `PolygonArea` as the oracle.
 */
import geographiclib from "geographiclib-geodesic"
import type { Boundary, Position, Ring } from "../src/Geometry.ts"

const { Geodesic } = geographiclib
const g = Geodesic.WGS84

/** GeographicLib's PolygonArea over one ring (closing position ignored), in m², unsigned. */
export const oracleRingArea = (ring: Ring): number => {
  const poly = g.Polygon(false)
  for (let i = 0; i < ring.length - 1; i++) poly.AddPoint(ring[i]![1], ring[i]![0])
  return Math.abs(poly.Compute(false, true).area ?? NaN)
}

/** GeographicLib's area of a boundary in hectares, holes subtracted. */
export const oracleHectares = (b: Boundary): number => {
  const polygons = b.type === "Polygon" ? [b.coordinates] : b.coordinates
  let m2 = 0
  for (const rings of polygons) rings.forEach((r, i) => (m2 += (i === 0 ? 1 : -1) * oracleRingArea(r)))
  return m2 / 10_000
}

const close = (ring: Array<Position>): Ring => [...ring, ring[0]!]

/** A square of `side` metres centred at (lon, lat), corners placed with the direct geodesic problem. */
export const square = (lon: number, lat: number, side: number): Ring => {
  const h = (side / 2) * Math.SQRT2
  const corner = (azi: number): Position => {
    const d = g.Direct(lat, lon, azi, h)
    return [d.lon2!, d.lat2!]
  }
  return close([corner(225), corner(135), corner(45), corner(315)])
}

/**
 * A ring of `n` positions around (lon, lat), star-shaped (so always simple), with radii between
 * `r*(1-wobble)` and `r`: random per vertex, or, with `smooth`, a sum of a few harmonics, as a
 * traced boundary would look.
 */
export const blob = (lon: number, lat: number, radius: number, n: number, wobble = 0, seed = 1, smooth = false): Ring => {
  let s = seed
  const rand = () => ((s = (s * 16807) % 2147483647) / 2147483647)
  const out: Array<Position> = []
  for (let i = 0; i < n; i++) {
    const azi = 360 - (i * 360) / n // counter-clockwise seen from above
    const theta = (azi * Math.PI) / 180
    const w = smooth ? (3 + Math.sin(3 * theta + seed) + Math.sin(7 * theta) + Math.sin(19 * theta + 1)) / 6 : rand()
    const d = g.Direct(lat, lon, azi, radius * (1 - wobble * w))
    out.push([d.lon2!, d.lat2!])
  }
  return close(out)
}

/** Densifies a ring by inserting `k` evenly spaced points along each edge's geodesic. */
const densify = (ring: Ring, k: number): Ring => {
  const out: Array<Position> = []
  for (let i = 0; i + 1 < ring.length; i++) {
    const [lon1, lat1] = ring[i]!
    const [lon2, lat2] = ring[i + 1]!
    const line = g.InverseLine(lat1, lon1, lat2, lon2)
    for (let j = 0; j <= k; j++) {
      const p = line.Position((line.s13! * j) / (k + 1))
      out.push([p.lon2!, p.lat2!])
    }
  }
  return close(out)
}

/** The corpus named by the core issue; every entry is a valid boundary. */
export const corpus: ReadonlyArray<{ readonly name: string; readonly boundary: Boundary }> = [
  { name: "1 ha square at the equator", boundary: { type: "Polygon", coordinates: [square(-60, 0, 100)] } },
  { name: "1 ha square at 45°N", boundary: { type: "Polygon", coordinates: [square(5, 45, 100)] } },
  { name: "1 ha square at 65°N", boundary: { type: "Polygon", coordinates: [square(25, 65, 100)] } },
  { name: "1,000 ha irregular plot", boundary: { type: "Polygon", coordinates: [blob(-122.5, 47.6, 2210, 23, 0.35, 7)] } },
  { name: "100,000 ha in the Amazon", boundary: { type: "Polygon", coordinates: [densify(square(-62.2, -3.4, 31_623), 40)] } },
  { name: "1,000,000 ha at 65°N (100 km edges)", boundary: { type: "Polygon", coordinates: [square(100, 65, 100_000)] } },
  {
    name: "polygon with a hole",
    boundary: { type: "Polygon", coordinates: [square(12, 52, 2_000), [...square(12, 52, 500)].reverse()] }
  },
  {
    name: "50 km × 20 m strip",
    boundary: {
      type: "Polygon",
      coordinates: [(() => {
        const a = g.Direct(58, 14, 90, 50_000)
        const [lon2, lat2] = [a.lon2!, a.lat2!]
        const up = (lon: number, lat: number, azi: number) => {
          const d = g.Direct(lat, lon, azi, 20)
          return [d.lon2!, d.lat2!] as Position
        }
        return close([[14, 58], [lon2, lat2], up(lon2, lat2, a.azi2! - 90), up(14, 58, 0)])
      })()]
    }
  },
  {
    name: "plot split at the antimeridian (MultiPolygon)",
    boundary: {
      type: "MultiPolygon",
      coordinates: [
        [close([[179.98, -16.9], [180, -16.9], [180, -16.8], [179.98, -16.8]])],
        [close([[-180, -16.9], [-179.97, -16.9], [-179.97, -16.8], [-180, -16.8]])]
      ]
    }
  }
]
