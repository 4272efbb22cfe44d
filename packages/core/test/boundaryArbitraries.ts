/**
 * Random valid boundaries for the property tests of the shared-area measures (`SharedArea.test.ts`,
 * `PreparedArea.test.ts`): star-shaped rings around a point near 7° E 46° N, optionally snapped to a
 * grid (edges that coincide, touch or run along each other), and rectangles on a 0.0005° grid,
 * plain, holed or with a second part.
 */
import * as fc from "fast-check"
import type * as Geometry from "../src/Geometry.ts"

/** A ring of [lon, lat] positions, closed. */
export type Ring = Array<[number, number]>

/** The closed rectangle from (w, s) to (e, n), counter-clockwise. */
export const rect = (w: number, s: number, e: number, n: number): Ring => [[w, s], [e, s], [e, n], [w, n], [w, s]]

/** A star-shaped ring around (cx, cy): positions at increasing angles, radii given (degrees); snapped to `grid` when given. */
const starRing = (cx: number, cy: number, radii: ReadonlyArray<number>, turn: number, grid?: number): Ring => {
  const at = grid === undefined ? (x: number) => x : (x: number) => Math.round(x / grid) * grid
  const ring: Ring = radii.map((r, i) => {
    const a = turn + (2 * Math.PI * i) / radii.length
    return [at(cx + r * Math.cos(a)), at(cy + r * Math.sin(a))]
  })
  return [...ring, ring[0]!]
}

/** The polygon of one ring. */
export const polygon = (ring: Ring): Geometry.Polygon => ({ type: "Polygon", coordinates: [ring] })

/** Star-shaped polygons of 3 to `maxLength` positions, snapped to `grid` when given. */
export const star = (grid?: number, maxLength = 40) =>
  fc.record({
    cx: fc.double({ min: 7, max: 7.004, noNaN: true }),
    cy: fc.double({ min: 46, max: 46.004, noNaN: true }),
    radii: fc.array(fc.double({ min: 0.0005, max: 0.004, noNaN: true }), { minLength: 3, maxLength }),
    turn: fc.double({ min: 0, max: 6.3, noNaN: true })
  }).map(({ cx, cy, radii, turn }) => polygon(starRing(cx, cy, radii, turn, grid)))

/** Rectangles on a grid of 0.0005°, with a hole or a second part sometimes: edges coincide often. */
export const gridShape = fc.record({
  x: fc.integer({ min: 0, max: 8 }),
  y: fc.integer({ min: 0, max: 8 }),
  w: fc.integer({ min: 2, max: 8 }),
  h: fc.integer({ min: 2, max: 8 }),
  kind: fc.constantFrom("plain", "holed", "multi")
}).map(({ x, y, w, h, kind }): Geometry.Boundary => {
  const g = 0.0005
  const shell = rect(7 + x * g, 46 + y * g, 7 + (x + w) * g, 46 + (y + h) * g)
  if (kind === "holed")
    return { type: "Polygon", coordinates: [shell, [...rect(7 + (x + 1) * g, 46 + (y + 1) * g, 7 + (x + w - 1) * g, 46 + (y + h - 1) * g)].reverse()] }
  if (kind === "multi") return { type: "MultiPolygon", coordinates: [[shell], [rect(7 + (x + w + 1) * g, 46 + y * g, 7 + (x + w + 3) * g, 46 + (y + 2) * g)]] }
  return { type: "Polygon", coordinates: [shell] }
})
