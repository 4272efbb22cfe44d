/**
 * From the features a reader found to one boundary: polygons kept (a single one as a Polygon,
 * several merged into one MultiPolygon), points and lines skipped with a warning, then the core
 * validator (`Geometry.problems`) decides. Its problems keep its path and message; `source` names
 * the feature of the file the polygon came from.
 */
import { FieldError, Geometry } from "@canopy/core"
import type { ImportProblem, ReadResult } from "./types.ts"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

export type Assembled =
  | { readonly ok: true; readonly geometry: Geometry.Boundary; readonly features: number; readonly warnings: ReadonlyArray<string> }
  | { readonly ok: false; readonly problems: ReadonlyArray<ImportProblem> }

export const assemble = (read: ReadResult): Assembled => {
  const polygons: Array<unknown> = []
  const sources: Array<string> = []
  const skipped = new Map<string, number>()
  const problems: Array<ImportProblem> = []
  let used = 0
  let positions = 0
  const skip = (kind: string) => skipped.set(kind, (skipped.get(kind) ?? 0) + 1)

  const visit = (geometry: unknown, label: string, depth: number): boolean => {
    if (geometry === null || geometry === undefined) return skip("feature without geometry"), false
    if (!isObject(geometry)) {
      problems.push({ field: "file", message: `${label}: the geometry is not an object`, source: label })
      return false
    }
    switch (geometry.type) {
      case "Polygon":
        polygons.push(geometry.coordinates)
        sources.push(label)
        positions += countPositions(geometry.coordinates)
        return true
      case "MultiPolygon":
        if (!Array.isArray(geometry.coordinates)) {
          polygons.push(geometry.coordinates) // the validator reports it
          sources.push(label)
          return true
        }
        for (const p of geometry.coordinates) {
          polygons.push(p)
          sources.push(label)
          positions += countPositions(p)
        }
        return true
      case "GeometryCollection": {
        if (depth > 4 || !Array.isArray(geometry.geometries)) return skip("nested geometry collection"), false
        let any = false
        for (const g of geometry.geometries) any = visit(g, label, depth + 1) || any
        return any
      }
      case "Point":
      case "MultiPoint":
        return skip("point"), false
      case "LineString":
      case "MultiLineString":
        return skip("line"), false
      default:
        problems.push({ field: "file", message: `${label}: unknown geometry type ${JSON.stringify(String(geometry.type))}`, source: label })
        return false
    }
  }
  for (const f of read.features) {
    if (visit(f.geometry, f.label, 0)) used++
    if (positions > Geometry.MAX_POSITIONS) {
      return {
        ok: false,
        problems: [{ field: "geometry.coordinates",
          message: `has more than ${Geometry.MAX_POSITIONS} positions; at most ${Geometry.MAX_POSITIONS} are allowed` }]
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems }
  const warnings = [...read.warnings]
  if (skipped.size > 0) {
    warnings.push(
      `ignored ${[...skipped].map(([kind, n]) => `${n} ${kind}${n > 1 && !kind.startsWith("feature") ? "s" : ""}`).join(", ")}: a boundary is made of polygons`
    )
  }
  if (polygons.length === 0) {
    return {
      ok: false,
      problems: [{ field: "file",
        message: `no polygon found${
          read.features.length > 0 ? ` among ${read.features.length} feature(s)` : ""
        }: a project boundary needs a Polygon or MultiPolygon` }]
    }
  }
  const candidate = polygons.length === 1
    ? { type: "Polygon" as const, coordinates: polygons[0] }
    : { type: "MultiPolygon" as const, coordinates: polygons }
  const found = Geometry.problems(candidate)
  if (found.length > 0) {
    return {
      ok: false,
      problems: found.map((p) => {
        const polygon = candidate.type === "MultiPolygon" && typeof p.path[1] === "number" ? p.path[1]
          : candidate.type === "Polygon" && p.path.length > 0 ? 0 : undefined
        const source = polygon !== undefined ? sources[polygon] : undefined
        return { field: FieldError.formatPath(["geometry", ...p.path]), message: p.message, ...(source ? { source } : {}) }
      })
    }
  }
  return { ok: true, geometry: Geometry.normalize(candidate as Geometry.Boundary), features: used, warnings }
}

const countPositions = (coordinates: unknown): number => {
  if (!Array.isArray(coordinates)) return 0
  let n = 0
  for (const ring of coordinates) if (Array.isArray(ring)) n += ring.length
  return n
}
