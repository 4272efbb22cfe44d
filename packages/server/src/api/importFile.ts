/**
 * The one way a file becomes a boundary, for the API's file routes (api/gis.ts) and the
 * dashboard's upload (pages/projectForms.ts): the permission, then the project, then the import
 * workers with their budgets (gis/offload.ts); and the overlap deadline of the write that
 * follows, started once the file is read.
 */
import { Errors, Overlap, Principal, Projects, type Storage } from "@canopy/core"
import { Clock, Effect } from "effect"
import type { FormFile } from "../gis/multipart.ts"
import { importPool } from "../gis/offload.ts"
import { type ImportProblem, type ImportSuccess, MEDIA_TYPES } from "../gis/types.ts"
import { answerDependsOnLoad } from "../http/idempotency.ts"

/** Media types an import accepts as its body (the file itself). */
export const IMPORT_MEDIA_TYPES: ReadonlyArray<string> = [
  "application/geo+json",
  "application/json",
  MEDIA_TYPES.kml,
  MEDIA_TYPES.kmz,
  MEDIA_TYPES.shapefile,
  MEDIA_TYPES.geopackage
]

/** A raw body as the pipeline hands it to a route with `rawBody`. */
export interface RawBody {
  readonly bytes: Uint8Array
  /** The file's media type, without parameters, lowercased: the request's, or the form's file part's. */
  readonly mediaType: string
  /** The form's file part's name, when the file came in a multipart form. */
  readonly filename?: string | undefined
  /** The new project's name from a multipart form's `name` field (the import's alternative to `?name=`). */
  readonly name?: string | undefined
}

/** The module's problems as the spec's `details`: the validator's path, the feature named in the message. */
const details = (problems: ReadonlyArray<ImportProblem>) =>
  problems.map((p) => ({ field: p.field, message: p.source ? `${p.message} (${p.source})` : p.message }))

/** What a file route is about to do with the file: create a project, or replace the boundary of one. */
export type FileTarget = { readonly create: true } | { readonly projectId: string }

/**
 * The one way a file becomes a boundary, for the API and the dashboard alike: the permission
 * first (a credential that may not write learns nothing of its file), then the project (another
 * account's or a missing one is a 404), and only then the file, read by the import workers
 * within their budgets. Fails with the 422 listing every problem; a read that ran out of time
 * frees the request's Idempotency-Key (its answer depends on the load).
 */
export const importFile = (
  principal: Principal.Principal,
  target: FileTarget,
  file: RawBody
): Effect.Effect<ImportSuccess, Errors.DomainError | Storage.StorageError, Projects> =>
  Effect.gen(function*() {
    yield* Principal.authorize(principal, "create" in target ? "projects.create" : "projects.update")
    // (Looked up as the account itself: the caller's permission is projects:write; it may lack read.)
    if ("projectId" in target) yield* (yield* Projects).get(Principal.system(principal.account_id), target.projectId)
    const result = yield* importPool().read(file.bytes, { mediaType: file.mediaType || undefined, filename: file.filename }, principal.account_id)
    if (result.ok) return result
    if ("overBudget" in result && result.overBudget === "time") yield* answerDependsOnLoad
    return yield* new Errors.ValidationError({
      message: `The file is not a boundary Canopy can import${result.format ? ` (read as ${result.format})` : ""}`,
      details: details(result.problems)
    })
  })

/**
 * Runs a write of a file's boundary with its overlap comparisons' deadline starting now (once the
 * file is read): reading the file is not charged to the comparisons.
 */
export const writeAfterRead = <A, E, R>(write: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.provideService(write, Overlap.WriteStarted, now))

/** A form's file part as the import reads it: its part's media type is a hint only when it names one of `accepted`. */
export const formFile = (file: FormFile, accepted: ReadonlyArray<string> = IMPORT_MEDIA_TYPES): RawBody => {
  const part = file.mediaType?.split(";")[0]!.trim().toLowerCase()
  // (browsers send application/octet-stream, text/plain, … for extensions they do not know)
  return { bytes: file.bytes, mediaType: part && accepted.includes(part) ? part : "", filename: file.filename }
}
