/**
 * Boundaries in and out over the API (docs/gis.md, "Endpoints"): create a project from a GIS
 * file, replace a project's boundary from one, and the file answers of the exports
 * (api/gisExport.ts: one project or a filtered list as GeoJSON, KML, zipped Shapefile or
 * GeoPackage). Every file, the dashboard's upload included, takes one path (`importFile`,
 * api/importFile.ts): the permission and the project first, then the import workers with their
 * budgets (gis/offload.ts); the boundary then goes through the normal Projects create/update, so
 * validation, limits, events and idempotency apply unchanged.
 */
import { boundaryChangeVia, type Canopy, type Errors, type Principal, Projects, Schemas, type Storage } from "@canopy/core"
import { Effect, Schema } from "effect"
import { FILE_FIELD } from "../gis/multipart.ts"
import { MULTIPART_MEDIA_TYPE } from "../http/files.ts"
import { importFile, type RawBody, writeAfterRead } from "./importFile.ts"

export type { FileAnswer, RunEffect } from "../http/files.ts"
export { IMPORT_MEDIA_TYPES, type RawBody } from "./importFile.ts"
export * from "./gisExport.ts"

/** `POST /projects/import`'s query: the new project's fields besides its boundary. */
export const ImportProjectQuery = Schema.Struct({
  // Required, unless a multipart form gives it (checked with the body: `rawBodyOf`).
  name: Schema.optionalKey(Schema.String.annotate({
    description: "The new project's name: required, unless the body is a multipart form with a `name` field (this parameter wins when both are given)"
  })),
  description: Schema.optionalKey(Schema.String),
  slug: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(Schemas.ProjectStatus)
})

type Run<A> = Effect.Effect<A, Errors.DomainError | Storage.StorageError, Canopy.Services>

/** `POST /projects/import`: the file read (after the permission), then the project created with its boundary. */
export const importProject = (principal: Principal.Principal, query: Readonly<Record<string, string>>, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const read = yield* importFile(principal, { create: true }, body as RawBody)
    const projects = yield* Projects
    // `rawBodyOf` made sure one of the two is there
    const name = query.name ?? (body as RawBody).name
    return yield* writeAfterRead(projects.create(principal, { ...query, ...(name !== undefined ? { name } : {}), geometry: read.geometry }))
      .pipe(boundaryChangeVia({ via: "import", file_format: read.format }))
  })

/** `PUT /projects/{id}/boundary`: the project and the file read, then the boundary saved as by an update. */
export const replaceBoundary = (principal: Principal.Principal, id: string, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const read = yield* importFile(principal, { projectId: id }, body as RawBody)
    return yield* writeAfterRead((yield* Projects).update(principal, id, { geometry: read.geometry }))
      .pipe(boundaryChangeVia({ via: "boundary_file", file_format: read.format }))
  })

// ---------------------------------------------------------------------------------------------
// The OpenAPI document's parts for these routes (api/openapi.ts).

/**
 * The request body of a `rawBody` route: the file, in any of its media types, or a multipart form
 * with the file as its `file` part and, for the import, `name` (`nameField: false` leaves it out).
 */
export const openapiRequestBody = (mediaTypes: ReadonlyArray<string>, options: { readonly nameField?: boolean } = {}) => ({
  required: true,
  description: "The file itself (at most 5 MiB, the API's body limit), with its media type; or a `multipart/form-data` form with " +
    "the file as its one file part named `file` (its file name and media type are the hints then). The content decides the format, " +
    "a media type or file extension of another family than the content is a problem. Docs: docs/gis.md.",
  content: {
    ...Object.fromEntries(mediaTypes.map((t) => [t, { schema: { type: "string", contentMediaType: t } }])),
    [MULTIPART_MEDIA_TYPE]: {
      schema: {
        type: "object",
        properties: {
          [FILE_FIELD]: { type: "string", contentMediaType: "application/octet-stream", description: "The GIS file (exactly one file part)" },
          ...(options.nameField === false
            ? {}
            : {
              name: {
                type: "string",
                description: "`POST /v1/projects/import` only: the new project's name, when the `name` query parameter is not given " +
                  "(ignored by `PUT /v1/projects/{project_id}/boundary`)"
              }
            })
        },
        required: [FILE_FIELD]
      },
      encoding: { [FILE_FIELD]: { contentType: [...mediaTypes, "application/octet-stream"].join(", ") } }
    }
  }
})
