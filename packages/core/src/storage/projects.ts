/**
 * Projects and assets, with their lists (filters, search, keyset pages) and running totals.
 */
import { Schema } from "effect"
import * as Lifecycle from "../Lifecycle.ts"
import { BBoxColumn, type Duplicate, type Fx, JsonObject, type Page, type Patch, PointColumn, RawJsonColumn, Timestamp, type Window } from "./common.ts"

export const ProjectRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  /** The boundary (a `Geometry.Boundary`) as its JSON text: stored and answered without parsing. */
  geometry: Schema.NullOr(RawJsonColumn),
  area_hectares: Schema.Number,
  bbox: Schema.NullOr(BBoxColumn),
  status: Schema.Literals(Lifecycle.statuses),
  created_by: Schema.NullOr(Schema.String),
  /** Lowercase name, for sorting. */
  sort_name: Schema.String,
  /** Lowercase name and description, for search. */
  search_text: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ProjectRow = typeof ProjectRow.Type

export const AssetRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  project_id: Schema.String,
  name: Schema.String,
  type: Schema.String,
  location: Schema.NullOr(PointColumn),
  status: Schema.String,
  metadata: JsonObject,
  /** Lowercase name, for search. */
  search_text: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type AssetRow = typeof AssetRow.Type

export interface ProjectQuery extends Window {
  readonly status?: ProjectRow["status"] | undefined
  /** Already lowercased. */
  readonly search?: string | undefined
  /**
   * `[west, south, east, north]`: only projects whose bbox shares at least one point with this box
   * (edges count); projects without a boundary never match. Served by a spatial index.
   */
  readonly bbox?: readonly [number, number, number, number] | undefined
  /**
   * Rows come with `geometry: null`, their other fields as stored: for lists that show no
   * boundary (a boundary's text can weigh megabytes).
   */
  readonly omitGeometry?: boolean | undefined
  readonly sort: "name" | "created_at" | "area_hectares"
  readonly order: "asc" | "desc"
}

export interface AssetQuery extends Window {
  readonly type?: string | undefined
  readonly status?: string | undefined
  /** Already lowercased. */
  readonly search?: string | undefined
}

/** A project whose bounding box meets another box (`projects.meeting`). */
export interface BoxNeighbour {
  readonly id: string
  readonly name: string
  readonly updated_at: string
  readonly area_hectares: number
  /** Its stored boundary's text is exactly `sameBoundary`'s (false when none was given). */
  readonly same_boundary: boolean
  /** `Overlap.boundaryKey` of its stored boundary's text: neighbours with equal keys store the same boundary. */
  readonly boundary_key: string
}

/** A cell of the zoom grid (`TileGrid`) with its projects: those whose box's centre lies in it. */
export interface ZoomCell {
  /** Its Morton key at its level. */
  readonly cell: number
  readonly projects: number
  readonly hectares: number
}

/** Project counts and hectares of one account. */
export interface ProjectStats {
  readonly active: number
  readonly archived: number
  readonly draft: number
  /** Hectares of active and draft projects (DECISIONS: usage counts those). */
  readonly hectares: number
}

/** The projects-and-assets area of the storage contract. */
export interface ProjectsShape {
  readonly projects: {
    readonly insert: (row: ProjectRow) => Fx<void, Duplicate>
    readonly get: (accountId: string, id: string) => Fx<ProjectRow | undefined>
    readonly update: (accountId: string, id: string, patch: Patch<ProjectRow, "created_by">) => Fx<ProjectRow | undefined, Duplicate>
    /** Deletes the project and its assets. */
    readonly delete: (accountId: string, id: string) => Fx<boolean>
    readonly list: (accountId: string, query: ProjectQuery) => Fx<Page<ProjectRow>>
    /** From the running totals: O(1). */
    readonly stats: (accountId: string) => Fx<ProjectStats>
    /**
     * Active and draft projects of the account, other than `excludeId`, whose bbox shares at least
     * one point with `bbox`: at most `limit` of them (which ones, when more meet it, is the store's
     * choice). Through a spatial index: the cost follows the projects near the box, not the
     * account's size or other accounts'. With `sameBoundary` (a boundary's stored text), each says
     * whether its boundary is that very text, compared by the store by key (no boundary is read out).
     */
    readonly meeting: (accountId: string, bbox: readonly [number, number, number, number], options: {
      readonly excludeId?: string | undefined
      readonly limit: number
      readonly sameBoundary?: string | undefined
    }) => Fx<ReadonlyArray<BoxNeighbour>>
    /**
     * The account's non-empty cells at `level` (one of `TileGrid.LEVELS`) with keys from `lo` to
     * `hi`, in key order: counts kept by the store with every project write, so that the cost
     * follows the cells read (at most `limit`), not the projects in them.
     */
    readonly cells: (accountId: string, level: number, lo: number, hi: number, limit: number) => Fx<ReadonlyArray<ZoomCell>>
  }

  readonly assets: {
    readonly insert: (row: AssetRow) => Fx<void>
    readonly get: (accountId: string, projectId: string, id: string) => Fx<AssetRow | undefined>
    readonly update: (accountId: string, projectId: string, id: string, patch: Patch<AssetRow, "project_id">) => Fx<AssetRow | undefined>
    readonly delete: (accountId: string, projectId: string, id: string) => Fx<boolean>
    /** Newest first, ties by id descending. */
    readonly list: (accountId: string, projectId: string, query: AssetQuery) => Fx<Page<AssetRow>>
  }
}
