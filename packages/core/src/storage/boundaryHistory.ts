/**
 * Boundary history: every change of a project's boundary kept as a numbered version — the
 * boundary as it became, who changed it, when, by which route, and the hectares before and after.
 * Versions are written in the transaction of the change itself and read newest first, a keyset
 * page at a time on (account, project, version).
 */
import { Schema } from "effect"
import type { RawJson } from "../RawJson.ts"
import { BBoxColumn, type Fx, RawJsonColumn, Timestamp } from "./common.ts"

/** How a boundary change came in (docs/decisions.md, "Boundary history"). */
export const BoundaryVia = Schema.Literals([
  "initial",
  "create",
  "import",
  "update",
  "boundary_file",
  "dashboard",
  "dashboard_file",
  "version_restore"
])
export type BoundaryVia = typeof BoundaryVia.Type

/** Versions kept per project: writing one more removes the oldest beyond this. */
export const MAX_BOUNDARY_VERSIONS = 50

export const BoundaryVersionRow = Schema.Struct({
  account_id: Schema.String,
  project_id: Schema.String,
  /** 1, 2, 3… per project, in the order the changes were made. */
  version: Schema.Number,
  /** The boundary as this change left it (null: cleared), as its stored JSON text. */
  geometry: Schema.NullOr(RawJsonColumn),
  bbox: Schema.NullOr(BBoxColumn),
  area_hectares_before: Schema.Number,
  area_hectares_after: Schema.Number,
  via: BoundaryVia,
  /** The import's file format (`kml`, `shapefile`…), when the boundary came from a file. */
  file_format: Schema.NullOr(Schema.String),
  /** The version a `version_restore` brought back. */
  restored_from: Schema.NullOr(Schema.Number),
  /** The credential's kind, user and credential (all null for the `initial` version of a boundary older than its history). */
  actor_kind: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  credential_id: Schema.NullOr(Schema.String),
  created_at: Timestamp
})
export type BoundaryVersionRow = typeof BoundaryVersionRow.Type

/** A version to store: `geometry` absent means the project's current boundary (see `append`). */
export type NewBoundaryVersion = Omit<BoundaryVersionRow, "geometry"> & { readonly geometry?: BoundaryVersionRow["geometry"] }

/** A version as lists read it: everything but the boundary's text (which can weigh megabytes). */
export type BoundaryVersionSummary = Omit<BoundaryVersionRow, "geometry">

/** The boundary-history area of the storage contract. */
export interface BoundaryHistoryShape {
  readonly boundaryVersions: {
    /**
     * Stores a version and removes the project's version `MAX_BOUNDARY_VERSIONS` older (one row at
     * most: the cost does not grow with the history). Call inside the change's transaction. A row
     * without `geometry` is the project's current boundary, not copied: `get` reads it from the
     * project row until `supersedeLatest` gives the version its own (so a create writes its boundary once).
     */
    readonly append: (row: NewBoundaryVersion) => Fx<void>
    /**
     * Gives the project's newest version, appended without its boundary, the boundary the project
     * had (`geometry`, null for none) before the write that replaces it — a version with its own
     * keeps it — and answers that version's number; undefined, writing nothing, when the project
     * has no version. One statement: call inside that write's transaction, before appending the
     * next version.
     */
    readonly supersedeLatest: (accountId: string, projectId: string, geometry: RawJson | null) => Fx<number | undefined>
    readonly get: (accountId: string, projectId: string, version: number) => Fx<BoundaryVersionRow | undefined>
    /**
     * Newest first: at most `limit` versions below `before` (all when undefined), skipping `offset`;
     * `hasMore` says whether another follows; `total` counts the project's versions (at most
     * `MAX_BOUNDARY_VERSIONS`).
     */
    readonly list: (accountId: string, projectId: string,
      q: { readonly limit: number; readonly offset: number; readonly before?: number | undefined }
    ) => Fx<{ readonly rows: ReadonlyArray<BoundaryVersionSummary>; readonly hasMore: boolean; readonly total: number }>
    /** Removes every version of the project (at most `MAX_BOUNDARY_VERSIONS` rows). */
    readonly deleteProject: (accountId: string, projectId: string) => Fx<void>
  }
}
