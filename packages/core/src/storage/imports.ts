/**
 * Bulk imports: one row per file being (or having been) imported, with its progress, and one row
 * per feature of the file with what became of it (a project, or the problems that refused it).
 * A running import holds a lease (`lease_until`) that its runner renews as it records progress;
 * an import whose lease has run out has lost its runner (the process stopped) and is settled as
 * failed by whoever notices (`expired`).
 */
import { Schema } from "effect"
import { EpochMs, type Fx, Timestamp } from "./common.ts"

/** Where an import is: running, or one of its ends. */
export const ImportStatus = Schema.Literals(["running", "completed", "failed", "cancelled"])
export type ImportStatus = typeof ImportStatus.Type

export const ImportRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  created_by: Schema.NullOr(Schema.String),
  status: ImportStatus,
  /** `per_feature`: each feature its own project; `merge`: every polygon of the file one project. */
  mode: Schema.Literals(["per_feature", "merge"]),
  /** A preview: results say what would happen, nothing else is stored. */
  dry_run: Schema.Boolean,
  file_name: Schema.NullOr(Schema.String),
  format: Schema.NullOr(Schema.String),
  source_crs: Schema.NullOr(Schema.String),
  /** Features of the file (results to come: one per feature). */
  features: Schema.Number,
  /** Features dealt with so far (created or refused). */
  done: Schema.Number,
  created: Schema.Number,
  refused: Schema.Number,
  /** Hectares of the projects created. */
  hectares: Schema.Number,
  /** Why the import failed, when it did. */
  error: Schema.NullOr(Schema.String),
  /** While running: when the import is taken as abandoned unless its runner renews this (epoch ms). */
  lease_until: EpochMs,
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Schema.NullOr(Timestamp)
})
export type ImportRow = typeof ImportRow.Type

/** A problem of a feature, in the spec's `details` shape. */
export const ImportProblemColumn = Schema.Struct({ field: Schema.String, message: Schema.String })

/**
 * What a preview's valid feature keeps in the `problems` column (it has none): the overlaps it
 * would have (`Overlap.Report`).
 */
export const ImportPreviewColumn = Schema.Struct({
  overlaps: Schema.Struct({
    overlaps: Schema.Array(Schema.Struct({ project_id: Schema.String, name: Schema.String, overlap_hectares: Schema.Number })),
    complete: Schema.Boolean
  })
})

export const ImportResultRow = Schema.Struct({
  import_id: Schema.String,
  account_id: Schema.String,
  /** The feature's place in the file, from 0. */
  position: Schema.Number,
  /** How the file names the feature (`feature 3 "North block"`). */
  label: Schema.String,
  /** `created`, `refused`, or in a preview `valid` (it would be created). */
  outcome: Schema.Literals(["created", "refused", "valid"]),
  /** The project's name (given or that it would have). */
  name: Schema.NullOr(Schema.String),
  project_id: Schema.NullOr(Schema.String),
  area_hectares: Schema.NullOr(Schema.Number),
  /** The feature's problems; for a preview's valid feature, its overlaps (`ImportPreviewColumn`). */
  problems: Schema.Union([Schema.Array(ImportProblemColumn), ImportPreviewColumn])
})
export type ImportResultRow = typeof ImportResultRow.Type

/** What a runner records as it goes: the counts so far and its lease's new end. */
export interface ImportProgress {
  readonly done: number
  readonly created: number
  readonly refused: number
  readonly hectares: number
  readonly lease_until: number
  readonly updated_at: string
}

/** How an import ends. */
export interface ImportEnd {
  readonly status: Exclude<ImportStatus, "running">
  readonly error: string | null
  readonly completed_at: string
}

/** The imports area of the storage contract. */
export interface ImportsShape {
  readonly imports: {
    readonly insert: (row: ImportRow) => Fx<void>
    readonly get: (accountId: string, id: string) => Fx<ImportRow | undefined>
    /**
     * Appends results and sets the progress counts (whatever the status: a runner's last results
     * are kept after a cancel); answers the row after, or undefined for another account's.
     */
    readonly record: (accountId: string, id: string, progress: ImportProgress, results: ReadonlyArray<ImportResultRow>) => Fx<ImportRow | undefined>
    /** Ends a running import; undefined (nothing changed) when it is not running or not the account's. */
    readonly finish: (accountId: string, id: string, end: ImportEnd) => Fx<ImportRow | undefined>
    /** The import's results in file order: at most `limit` with `position` above `after` (-1: from the start). */
    readonly results: (accountId: string, importId: string, after: number, limit: number) => Fx<ReadonlyArray<ImportResultRow>>
    /** The account's running imports, counted up to `limit`. */
    readonly running: (accountId: string, limit: number) => Fx<number>
    /** Running imports (of any account) whose lease ended before `now`: at most `limit`, through an index. */
    readonly expired: (now: number, limit: number) => Fx<ReadonlyArray<ImportRow>>
  }
}
