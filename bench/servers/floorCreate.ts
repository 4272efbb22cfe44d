/**
 * What the floors' create does besides its lookups: the work any server must do to answer
 * `POST /v1/projects` as Canopy does, written plainly with Canopy's own pure functions (no Effect
 * runtime, no storage layer) — the boundary validated and measured (as `GeometryCheck.evaluate`), each
 * neighbour the spatial index finds measured against it (`Overlap.sharedHectaresPrepared`; copies
 * of one stored boundary measured once, copies of the posted one taking their own area), and the
 * overlap report as Canopy rounds and orders it. `FLOOR_GEOMETRY=0` skips it all (the floor then
 * stores the posted text as it came, area 0, and answers the id and name). `FLOOR_GEOMETRY=rows`
 * writes and answers the same rows as the default without computing the geometry (`rowsOf`,
 * `listed`): what the create costs apart from validating and measuring the boundary.
 */
import { Geometry, Overlap, TileGrid } from "@canopy/core"

/** Whether this floor does the create's rows (default, and `rows`) or only parses the body and inserts one. */
export const withGeometry = process.env.FLOOR_GEOMETRY !== "0"

/** Whether this floor writes the create's rows without computing the boundary's geometry (`FLOOR_GEOMETRY=rows`). */
export const rowsOnly = process.env.FLOOR_GEOMETRY === "rows"

/** A neighbour as the candidates' statement reads it: its text only when it is not the posted boundary. */
export interface Neighbour {
  readonly id: string
  readonly name: string
  readonly area_hectares: number
  readonly boundary_key: string | null
  readonly same: boolean | number
  readonly geometry: string | null
}

/** A checked create: the row's geometry columns, or the problems a 422 lists. */
export type Checked =
  | { readonly ok: true; readonly text: string; readonly boundary: Geometry.Boundary; readonly area_hectares: number; readonly bbox: Geometry.BBox;
    readonly key: string; readonly zoomCell: number }
  | { readonly ok: false; readonly problems: ReadonlyArray<Geometry.Problem> }

/** Validates and measures the posted boundary (what `GeometryCheck.evaluate` does, keeping the normalised object). */
export const check = (geometry: unknown): Checked => {
  const problems = Geometry.problems(geometry)
  if (problems.length > 0) return { ok: false, problems }
  const boundary = Geometry.normalize(geometry as Geometry.Boundary)
  const text = JSON.stringify(boundary)
  const bbox = Geometry.bbox(boundary)
  return { ok: true, text, boundary, area_hectares: Geometry.roundHectares(Geometry.areaHectares(boundary)), bbox, key: Overlap.boundaryKey(text),
    zoomCell: TileGrid.cellOf(bbox) }
}

/** The overlap report of a checked boundary against its neighbours (all measured: a floor has no deadline). */
export const report = (mine: Geometry.Boundary, neighbours: ReadonlyArray<Neighbour>) => {
  const byKey = new Map<string, number>()
  const overlaps: Array<{ project_id: string; name: string; overlap_hectares: number }> = []
  for (const n of neighbours) {
    let hectares: number
    if (n.same === true || n.same === 1) hectares = n.area_hectares
    else if (n.boundary_key && byKey.has(n.boundary_key)) hectares = byKey.get(n.boundary_key)!
    else if (n.geometry === null) continue
    else {
      hectares = Overlap.sharedHectaresPrepared(mine, JSON.parse(n.geometry) as Geometry.Boundary)
      if (n.boundary_key) byKey.set(n.boundary_key, hectares)
    }
    const rounded = Geometry.roundHectares(hectares)
    if (rounded > 0) overlaps.push({ project_id: n.id, name: n.name, overlap_hectares: rounded })
  }
  overlaps.sort((a, b) => b.overlap_hectares - a.overlap_hectares || (a.project_id < b.project_id ? -1 : 1))
  return { overlaps, complete: neighbours.length <= Overlap.MAX_CANDIDATES }
}

/**
 * The row's geometry columns without validating or measuring the boundary: its text as parsed,
 * its box (for the spatial index and the neighbours' read), its key and cell; area 0.
 */
export const rowsOf = (geometry: unknown): Checked => {
  const boundary = geometry as Geometry.Boundary
  const text = JSON.stringify(boundary)
  const bbox = Geometry.bbox(boundary)
  return { ok: true, text, boundary, area_hectares: 0, bbox, key: Overlap.boundaryKey(text), zoomCell: TileGrid.cellOf(bbox) }
}

/** A report as long as the measured one, unmeasured: every neighbour found, with its own area. */
export const listed = (neighbours: ReadonlyArray<Neighbour>) => ({
  overlaps: neighbours.map((n) => ({ project_id: n.id, name: n.name, overlap_hectares: n.area_hectares })),
  complete: neighbours.length <= Overlap.MAX_CANDIDATES
})
