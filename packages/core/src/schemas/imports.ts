/**
 * The bulk import's resource and query (`POST /v1/imports`, `GET /v1/imports/{id}`): the job with
 * its progress and totals, and a page of its per-feature results.
 */
import { Schema } from "effect"
import { Count, Measure, Timestamp } from "./common.ts"
import { OverlapReport } from "./projects.ts"

/** Results one read of an import answers at most. */
const MAX_RESULTS_PER_PAGE = 1_000

const FieldProblem = Schema.Struct({ field: Schema.String, message: Schema.String })

/** One feature's result, as `GET /v1/imports/{id}` lists it. */
const ImportFeatureResult = Schema.Struct({
  position: Count.annotate({ description: "The feature's place in the file, from 0" }),
  feature: Schema.String.annotate({ description: "How the file names the feature, e.g. `feature 3 \"North block\"`" }),
  outcome: Schema.Literals(["created", "refused", "valid"]).annotate({
    description:
      "`created`: its project is `project_id`; `refused`: nothing was stored, see `problems`; `valid` (a preview): it would be created, with the `overlaps` its create would report"
  }),
  name: Schema.NullOr(Schema.String).annotate({ description: "The project's name (given, or that it would have)" }),
  project_id: Schema.NullOr(Schema.String),
  area_hectares: Schema.NullOr(Measure),
  problems: Schema.Array(FieldProblem).annotate({ description: "Why the feature was refused: the validator's path and message, naming the feature" }),
  overlaps: Schema.optionalKey(OverlapReport)
}).annotate({ identifier: "ImportFeatureResult" })

/** A bulk import (`POST /v1/imports`, `GET /v1/imports/{id}`). */
export const ImportResource = Schema.Struct({
  id: Schema.String,
  status: Schema.Literals(["running", "completed", "failed", "cancelled"]),
  mode: Schema.Literals(["per_feature", "merge"]),
  dry_run: Schema.Boolean.annotate({ description: "A preview: the results say what an import would do; nothing was stored" }),
  file: Schema.Struct({ name: Schema.NullOr(Schema.String), format: Schema.NullOr(Schema.String), source_crs: Schema.NullOr(Schema.String) }),
  progress: Schema.Struct({
    features_read: Count.annotate({ description: "Features read from the file" }),
    done: Count.annotate({ description: "Features dealt with so far" }),
    created: Count,
    refused: Count
  }),
  totals: Schema.Struct({
    features: Count,
    created: Count,
    refused: Count,
    hectares: Measure.annotate({ description: "Hectares of the projects created (a preview: that would be)" })
  }),
  error: Schema.NullOr(Schema.String).annotate({ description: "Why the import failed, when it did" }),
  results: Schema.Array(ImportFeatureResult).annotate({ description: "Per-feature results in file order, a page at a time" }),
  next_results_after: Schema.NullOr(Count).annotate({ description: "Pass as `results_after` for the next page of results; null at the end" }),
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Schema.NullOr(Timestamp)
}).annotate({ identifier: "Import" })
export type ImportResource = typeof ImportResource.Type

const queryInt = (min: number, max: number) =>
  Schema.Union([Schema.Number, Schema.NumberFromString]).pipe(
    Schema.check(Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= min && n <= max) || `must be an integer from ${min} to ${max}`, {
      toJsonSchema: () => ({ type: "integer", minimum: min, maximum: max })
    }))
  )

/** `GET /v1/imports/{id}`'s query: which page of results. */
export const GetImportQuery = Schema.Struct({
  results_after: Schema.optionalKey(queryInt(-1, 1_000_000_000).annotate({ description: "Results after this position (default -1: from the first)" })),
  results_per_page: Schema.optionalKey(queryInt(0, MAX_RESULTS_PER_PAGE).annotate({ description: "Results per page (default 100)" }))
})
