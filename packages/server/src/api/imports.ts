/**
 * Bulk imports over the API (docs/gis.md, "Bulk imports"): `POST /v1/imports` reads a file in the
 * import workers — after the permission check, and after making sure the account has no import
 * running — feature by feature (or, with `mode=merge`, as one boundary), and hands the features to
 * the core's Imports service, which answers the job at once (202) and creates the projects in the
 * background; `GET /v1/imports/{id}` reports its progress and per-feature results, and
 * `POST /v1/imports/{id}/cancel` stops it.
 */
import { Errors, type ImportFeature, type ImportResource, Imports, Principal, type Projects, type Storage } from "@canopy/core"
import { Effect, Schema } from "effect"
import type { FeatureRead } from "../gis/features.ts"
import { importPool } from "../gis/offload.ts"
import type { ImportProblem } from "../gis/types.ts"
import { answerDependsOnLoad } from "../http/idempotency.ts"
import { importFile, type RawBody } from "./importFile.ts"

/** An attribute's name in a query: 1 to 100 characters. */
const FieldName = Schema.String.pipe(Schema.check(Schema.makeFilter((s: string) => (s.length >= 1 && s.length <= 100) || "must be 1 to 100 characters")))

/** `POST /v1/imports`'s query. */
export const StartImportQuery = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["per_feature", "merge"]).annotate({
    description: "`per_feature` (the default): each feature its own project, a refused feature stores nothing and is listed with its " +
      "problems; `merge`: every polygon of the file one project, as `POST /v1/projects/import` does"
  })),
  name_field: Schema.optionalKey(
    FieldName.annotate({
      description: "The attribute naming each feature's project (default: the feature's `name`, else the file's name and the feature's number)"
    })
  ),
  description_field: Schema.optionalKey(FieldName.annotate({ description: "The attribute giving each project's description" })),
  dry_run: Schema.optionalKey(
    Schema.Literals(["true", "false"]).annotate({
      description: "`true`: a preview — the per-feature results say what would happen; nothing is stored but the preview itself"
    })
  ),
  name: Schema.optionalKey(
    Schema.String.annotate({ description: "`mode=merge`: the project's name (default: a multipart form's `name` field, else the file's name)" })
  )
})

type Query = Readonly<Record<string, string>>

/** What an import's routes fail with: a domain error or a storage failure. */
type Failure = Errors.DomainError | Storage.StorageError

/** A problem of the reader as the API lists it: the feature named in the message. */
const asDetail = (p: ImportProblem) => ({ field: p.field, message: p.source && !p.message.includes(p.source) ? `${p.message} (${p.source})` : p.message })

/** The file's name without its extension, to name features the file leaves unnamed. */
const baseName = (filename: string | undefined) => {
  const last = filename?.split(/[\\/]/).pop()?.replace(/\.[^.]*$/, "").trim()
  return last ? last.slice(0, 150) : undefined
}

const refused = (format: string | undefined, problems: ReadonlyArray<ImportProblem>) =>
  new Errors.ValidationError({
    message: `The file is not a set of boundaries Canopy can import${format ? ` (read as ${format})` : ""}`,
    details: problems.map(asDetail)
  })

/** The features of a file read one by one, named from `name_field` (else their own name, else the file's). */
const perFeature = (principal: Principal.Principal, query: Query, file: RawBody) =>
  Effect.gen(function*() {
    const read = yield* importPool().readFeatures(file.bytes, { mediaType: file.mediaType || undefined, filename: file.filename }, principal.account_id, {
      nameField: query.name_field,
      descriptionField: query.description_field
    })
    if (!read.ok) {
      if ("overBudget" in read && read.overBudget === "time") yield* answerDependsOnLoad
      return yield* refused(read.format, read.problems)
    }
    if (read.missingFields.length > 0) {
      return yield* new Errors.ValidationError({
        message: "Invalid query parameters",
        details: read.missingFields.map((f) => ({
          field: f === query.name_field ? "query.name_field" : "query.description_field",
          message: `no feature of the file has an attribute ${JSON.stringify(f)}`
        }))
      })
    }
    const base = baseName(file.filename) ?? "Imported feature"
    const features = read.features.map((f: FeatureRead, i): ImportFeature => ({
      label: f.label,
      name: f.name ?? `${base} ${i + 1}`,
      description: f.description,
      geometry: f.geometry,
      areaHectares: f.areaHectares,
      problems: f.problems.map(asDetail)
    }))
    return { features, format: read.format, sourceCrs: read.sourceCrs }
  })

/** The file's polygons as one feature (one project), read as `POST /v1/projects/import` reads it. */
const merged = (principal: Principal.Principal, query: Query, file: RawBody) =>
  Effect.gen(function*() {
    const read = yield* importFile(principal, { create: true }, file)
    const name = query.name ?? file.name ?? baseName(file.filename) ?? "Imported boundary"
    const feature: ImportFeature = { label: "the file", name, geometry: read.geometry, areaHectares: read.areaHectares, problems: [] }
    return { features: [feature], format: read.format, sourceCrs: read.sourceCrs }
  })

/** `POST /v1/imports`: the permission and the account's running import first, then the file, then the job. */
export const startImport = (principal: Principal.Principal, query: Query, body: unknown): Effect.Effect<ImportResource, Failure, Imports | Projects> =>
  Effect.gen(function*() {
    const imports = yield* Imports
    const dryRun = query.dry_run === "true"
    // A preview may run beside an import; an import may not run beside another of the account.
    yield* dryRun ? Principal.authorize(principal, "projects.create") : imports.admit(principal)
    const file = body as RawBody
    const mode = query.mode === "merge" ? "merge" : "per_feature"
    const read = mode === "merge" ? yield* merged(principal, query, file) : yield* perFeature(principal, query, file)
    return yield* imports.start(principal, {
      mode,
      dryRun,
      features: read.features,
      file: { name: file.filename ?? null, format: read.format, sourceCrs: read.sourceCrs }
    })
  })

/** `GET /v1/imports/{id}`. */
export const getImport = (principal: Principal.Principal, id: string, query: Query): Effect.Effect<ImportResource, Failure, Imports> =>
  Effect.flatMap(Imports, (s) => s.get(principal, id, query))

/** `POST /v1/imports/{id}/cancel`. */
export const cancelImport = (principal: Principal.Principal, id: string): Effect.Effect<ImportResource, Failure, Imports> =>
  Effect.flatMap(Imports, (s) => s.cancel(principal, id))
