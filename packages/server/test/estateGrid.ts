/**
 * An estate laid out as a grid of square stands whose neighbours share their edges position for
 * position (they touch but share no area), and its outline over the same positions (it overlaps
 * every stand): the realistic layout of overlapping boundaries, used by tests and benchmarks.
 */
import type { Geometry } from "@canopy/core"

/** Where the grid lies: its south-west corner, a stand's side in degrees, and segments per side. */
export interface EstateGridOptions {
  readonly lon: number
  readonly lat: number
  readonly dx: number
  readonly dy: number
  readonly segments: number
}

/** The stands (column, row) and the outline of a `columns` × `rows` estate. */
export const estateGrid = (o: EstateGridOptions) => {
  const node = (i: number, j: number): Geometry.Position => [o.lon + (i * o.dx) / o.segments, o.lat + (j * o.dy) / o.segments]
  /** A closed counter-clockwise ring along the grid lines from node (i0, j0) to (i1, j1). */
  const ring = (i0: number, j0: number, i1: number, j1: number): Array<Geometry.Position> => {
    const r: Array<Geometry.Position> = []
    for (let i = i0; i < i1; i++) r.push(node(i, j0))
    for (let j = j0; j < j1; j++) r.push(node(i1, j))
    for (let i = i1; i > i0; i--) r.push(node(i, j1))
    for (let j = j1; j > j0; j--) r.push(node(i0, j))
    return [...r, r[0]!]
  }
  const s = o.segments
  return {
    stand: (c: number, r: number): Geometry.Polygon => ({ type: "Polygon", coordinates: [ring(c * s, r * s, (c + 1) * s, (r + 1) * s)] }),
    outline: (columns: number, rows: number): Geometry.Polygon => ({ type: "Polygon", coordinates: [ring(0, 0, columns * s, rows * s)] })
  }
}
