/**
 * What a bulk import job is (see Imports): the features it is given as the server read them, how it
 * is started, the limits its jobs run under, and the import as the API shows it — its resource
 * with a page of results, the data of its `import.completed` event, and the reason a job whose
 * runner was lost is failed with.
 */
import { type Boundary, roundHectares } from "../Geometry.ts"
import type { ImportResource } from "../schemas/imports.ts"
import type { ImportResultRow, ImportRow } from "../Storage.ts"

/** The limits of the import jobs. */
export const IMPORT_JOBS = {
  /** How long a running import stays claimed without its runner's word (ms). */
  leaseMs: 30_000,
  /** Most features of one chunk (one transaction: their projects, results and progress). */
  chunkFeatures: 100,
  /** Longest a chunk's transaction holds the account's lock, but for the feature at hand (ms). */
  chunkMs: 100,
  /** Longest a chunk holds the event loop without a turn (ms): a synchronous store's chunk ends there. */
  sliceMs: 12,
  /** Imports running at once in one process; more are a 429. */
  perProcess: 4,
  /** How long a preview's overlap comparisons may run in all, from the request's start (ms): `importPreview.ts`. */
  previewOverlapMs: 3_000
} as const

/** One feature as the server read it: its name and boundary, or the problems that refuse it. */
export interface ImportFeature {
  readonly label: string
  readonly name: string
  readonly description?: string | undefined
  readonly geometry?: Boundary | undefined
  readonly areaHectares?: number | undefined
  readonly problems: ReadonlyArray<{ readonly field: string; readonly message: string }>
}

/** What `start` is given: the file's features and how to import them. */
export interface StartImport {
  readonly mode: "per_feature" | "merge"
  readonly dryRun: boolean
  readonly file: { readonly name: string | null; readonly format: string | null; readonly sourceCrs: string | null }
  readonly features: ReadonlyArray<ImportFeature>
}

/** `import.completed` data: the import without its results. */
export const completedData = (row: ImportRow) => ({
  id: row.id,
  status: row.status,
  mode: row.mode,
  file: { name: row.file_name, format: row.format, source_crs: row.source_crs },
  features: row.features,
  created: row.created,
  refused: row.refused,
  hectares: roundHectares(row.hectares),
  error: row.error,
  completed_at: row.completed_at
})

/** The resource of a row and a page of its results. */
export const toResource = (row: ImportRow, results: ReadonlyArray<ImportResultRow>, more: boolean): ImportResource => ({
  id: row.id,
  status: row.status,
  mode: row.mode,
  dry_run: row.dry_run,
  file: { name: row.file_name, format: row.format, source_crs: row.source_crs },
  progress: { features_read: row.features, done: row.done, created: row.created, refused: row.refused },
  totals: { features: row.features, created: row.created, refused: row.refused, hectares: roundHectares(row.hectares) },
  error: row.error,
  results: results.map((r) => ({
    position: r.position,
    feature: r.label,
    outcome: r.outcome,
    name: r.name,
    project_id: r.project_id,
    area_hectares: r.area_hectares,
    ...("overlaps" in r.problems ? { problems: [], overlaps: r.problems.overlaps } : { problems: r.problems })
  })),
  next_results_after: more && results.length > 0 ? results[results.length - 1]!.position : null,
  created_at: row.created_at,
  updated_at: row.updated_at,
  completed_at: row.completed_at
})

/** Why an import whose runner stopped before its end is failed: how far it got, and what to do. */
export const lostRunner = (row: Pick<ImportRow, "done" | "features">) =>
  `the server stopped while the file was being imported (${row.done} of ${row.features} features done); import the rest again`
