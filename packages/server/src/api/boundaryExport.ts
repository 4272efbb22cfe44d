/**
 * One boundary version of a project as a file (`GET /v1/projects/{id}/boundaries/{version}/export`):
 * the project with that version's boundary and hectares, through the export writers of
 * `gisExport.ts` (GeoJSON, KML, zipped Shapefile, GeoPackage), named `<slug>-v<version>`.
 */
import { BoundaryHistory, type Canopy, type Errors, type Principal, Projects, type Storage } from "@canopy/core"
import { Effect } from "effect"
import type { FileAnswer } from "../http/files.ts"
import { exportOne } from "./gisExport.ts"

/** The version as a file of the format `query.format` names (GeoJSON by default). */
export const exportVersion = (
  principal: Principal.Principal,
  projectId: string,
  version: string,
  query: Readonly<Record<string, string>>
): Effect.Effect<FileAnswer, Errors.DomainError | Storage.StorageError, Canopy.Services> =>
  Effect.gen(function*() {
    const v = yield* (yield* BoundaryHistory).get(principal, projectId, version)
    const p = yield* (yield* Projects).get(principal, projectId)
    const asOf = { ...p, geometry: v.geometry, area_hectares: v.area_hectares_after, bbox: v.bbox, updated_at: v.created_at }
    return yield* exportOne(principal, asOf, query, `${p.slug}-v${v.version}`)
  })
