/**
 * Boundaries in and out over the API (docs/gis.md, "Endpoints"): create a project from a GIS
 * file, replace a project's boundary from one, and the file answers of the exports
 * (api/gisExport.ts: one project or a filtered list as GeoJSON, KML, zipped Shapefile or
 * GeoPackage). Every file, the dashboard's upload included, takes one path (`importFile`,
 * api/importFile.ts): the permission and the project first, then the import workers with their
 * budgets (gis/offload.ts); the boundary then goes through the normal Projects create/update, so
 * validation, limits, events and idempotency apply unchanged.
 */
import { boundaryChangeVia, type Canopy, type Principal, Projects, Schemas } from "@canopy/core"
import { Effect, Schema } from "effect"
import { FILE_FIELD, FORM_LIMITS, readForm } from "../gis/multipart.ts"
import { formFile, importFile, type RawBody, writeAfterRead } from "./importFile.ts"

export { IMPORT_MEDIA_TYPES, type RawBody } from "./importFile.ts"
export * from "./gisExport.ts"


/** The form an import also accepts: one file part named `file` (docs/gis.md, "Endpoints"). */
export const MULTIPART_MEDIA_TYPE = "multipart/form-data"

/** Runs an effect of a route with the server's runtime after the route answered (a streamed file's later pages). */
export type RunEffect = <A>(effect: Effect.Effect<A, unknown, Canopy.Services>) => Promise<A>

/**
 * A file answer: the handler writes it as it is, with `Content-Disposition: attachment`. Either
 * the whole `body`, or a `stream` the handler starts with its runtime once the headers are known.
 */
export interface FileAnswer {
  readonly contentType: string
  readonly filename: string
  readonly body?: string
  /** A binary file built whole (zipped Shapefile, GeoPackage): sent with its length, no charset. */
  readonly bytes?: Uint8Array
  readonly stream?: (run: RunEffect) => AsyncIterable<string | Uint8Array>
  readonly headers?: Readonly<Record<string, string>>
}

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

type Run<A> = Effect.Effect<A, unknown, Canopy.Services>

export const importProject = (principal: Principal.Principal, query: Readonly<Record<string, string>>, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const read = yield* importFile(principal, { create: true }, body as RawBody)
    const projects = yield* Projects
    // `rawBodyOf` made sure one of the two is there
    const name = query.name ?? (body as RawBody).name
    return yield* writeAfterRead(projects.create(principal, { ...query, ...(name !== undefined ? { name } : {}), geometry: read.geometry }))
      .pipe(boundaryChangeVia({ via: "import", file_format: read.format }))
  })

export const replaceBoundary = (principal: Principal.Principal, id: string, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const read = yield* importFile(principal, { projectId: id }, body as RawBody)
    return yield* writeAfterRead((yield* Projects).update(principal, id, { geometry: read.geometry }))
      .pipe(boundaryChangeVia({ via: "boundary_file", file_format: read.format }))
  })

// ---------------------------------------------------------------------------------------------
// The two hooks of the request pipeline (http/input.ts, http/handler.ts) for these routes.

type BodyProblem = { readonly ok: false; readonly message: string; readonly details: ReadonlyArray<{ field: string; message: string }> }

/** The import's path (its query's `name` may come from the form instead). */
const IMPORT_PATH = /\/projects\/import\/?$/


/**
 * A route with `rawBody`: the file's bytes and media type, or the 400's message and details.
 * The body is the file itself, with one of the route's media types, or a `multipart/form-data`
 * form whose one file part (named `file`) is the file, its part's media type and file name the
 * format's hints; its other text fields are ignored but, on the import, `name`. An empty raw body
 * passes (the route looks up its project first, then the module answers "the file is empty").
 * On the import, a name is required: `?name=` or the form's `name` field.
 */
export const rawBodyOf = (
  accepted: ReadonlyArray<string>,
  req: {
    readonly headers: Readonly<Record<string, string | undefined>>
    readonly body: Uint8Array | undefined
    readonly path?: string
    readonly query?: URLSearchParams
  }
): { readonly ok: true; readonly body: RawBody } | BodyProblem => {
  const given = req.headers["content-type"]
  const mediaType = (given ?? "").split(";")[0]!.trim().toLowerCase()
  const bytes = req.body ?? new Uint8Array()
  let body: RawBody
  if (mediaType === MULTIPART_MEDIA_TYPE) {
    const form = readForm(given!, bytes)
    if (!form.ok) return { ok: false, message: form.message, details: [{ field: form.field, message: form.detail }] }
    if (form.truncated.includes("name")) {
      return { ok: false, message: "The multipart form's name field is too long", details: [{ field: "name", message: `must be at most ${FORM_LIMITS.fieldBytes} bytes` }] }
    }
    body = { ...formFile(form.file, accepted), name: form.fields.name }
  } else {
    if (bytes.length > 0 && !accepted.includes(mediaType)) {
      const allowed = [...accepted, MULTIPART_MEDIA_TYPE].join(", ")
      return {
        ok: false,
        message: `Content-Type must be one of ${allowed}`,
        details: [{ field: "content-type", message: `must be one of ${allowed}, got ${given ?? "none"}` }]
      }
    }
    body = { bytes, mediaType }
  }
  if (req.path !== undefined && IMPORT_PATH.test(req.path) && !req.query?.has("name") && body.name === undefined) {
    return {
      ok: false,
      message: "Invalid query parameters",
      details: [{ field: "query.name", message: `is required: give ?name=…${mediaType === MULTIPART_MEDIA_TYPE ? " or a form field \"name\"" : " (or send a multipart form with a name field)"}` }]
    }
  }
  return { ok: true, body }
}

/**
 * A `file` envelope's answer: the file as it is, as an attachment, with the request's headers. A
 * streamed file is started with `run` (the server's runtime): chunked, no `Content-Length`.
 */
export const fileResponse = (status: number, requestId: string, value: unknown, headers: Readonly<Record<string, string>>, run: RunEffect) => {
  const file = value as FileAnswer
  if (file.bytes) {
    return {
      status,
      headers: {
        ...file.headers,
        "content-type": file.contentType,
        "content-disposition": `attachment; filename="${file.filename}"`,
        "x-request-id": requestId,
        ...headers
      },
      body: undefined,
      chunks: [file.bytes]
    }
  }
  return {
    status,
    headers: {
      ...file.headers,
      "content-type": `${file.contentType}; charset=utf-8`,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "x-request-id": requestId,
      ...headers
    },
    body: file.stream ? undefined : file.body ?? "",
    ...(file.stream ? { stream: file.stream(run) } : {})
  }
}

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
