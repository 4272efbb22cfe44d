/**
 * Boundaries in and out over the API (docs/gis.md, "Endpoints"): create a project from a GIS
 * file, replace a project's boundary from one, and export one project or a filtered list as a
 * GeoJSON FeatureCollection or KML. Every file, the dashboard's upload included, takes one path
 * (`importFile`, api/importFile.ts): the permission and the project first, then the import
 * workers with their budgets (gis/offload.ts); the boundary then goes through the normal Projects
 * create/update, so validation, limits, events and idempotency apply unchanged.
 */
import { type Canopy, type Principal, Projects, Schemas } from "@canopy/core"
import { Effect, Schema } from "effect"
// The export writers and the formats' names only: the readers (and their parsers) load on first
// use, so the server's heap — and its garbage collections — stay small.
import {
  type ExportEnd, type ExportProject, featureChunk, featureCollectionChunks, featureCollectionHead, featureCollectionTail, GEOJSON_MEDIA_TYPE,
  KML_MEDIA_TYPE, kmlChunks, kmlHead, kmlPlacemark, kmlTail
} from "../gis/export.ts"
import { FILE_FIELD, FORM_LIMITS, readForm } from "../gis/multipart.ts"
import { BadRequest } from "../http/input.ts"
import { formFile, importFile, type RawBody, writeAfterRead } from "./importFile.ts"

export { IMPORT_MEDIA_TYPES, type RawBody } from "./importFile.ts"


/** The form an import also accepts: one file part named `file` (docs/gis.md, "Endpoints"). */
export const MULTIPART_MEDIA_TYPE = "multipart/form-data"

/** Media types an export answers. */
export const EXPORT_MEDIA_TYPES: ReadonlyArray<string> = [GEOJSON_MEDIA_TYPE, KML_MEDIA_TYPE]

/** Most projects one list export holds. */
export const MAX_EXPORT_PROJECTS = 10_000

/**
 * Most bytes one list export writes (256 MiB): the export stops before the project that would
 * pass it and says so at the end of the file. `CANOPY_EXPORT_MAX_BYTES` (a positive integer)
 * overrides it, read at each export.
 */
export const MAX_EXPORT_BYTES = 256 * 1024 * 1024

/** The environment variable overriding `MAX_EXPORT_BYTES`. */
export const EXPORT_MAX_BYTES_ENV = "CANOPY_EXPORT_MAX_BYTES"

/** Projects a list export reads per storage call (the list's largest page). */
export const EXPORT_PAGE_SIZE = Schemas.limits.perPage

/** Bytes kept free for the file's tail (its `truncated` and `next_cursor`, a cursor is at most 600 characters). */
const TAIL_RESERVE = 1024

const exportMaxBytes = (): number => {
  const v = Number(process.env[EXPORT_MAX_BYTES_ENV])
  return Number.isSafeInteger(v) && v > 0 ? v : MAX_EXPORT_BYTES
}

/** What the list exports of this process have done: pages read from storage, and exports still being written. */
const activity = { pagesRead: 0, streamsOpen: 0 }

/** A snapshot of the list exports' activity (for tests and diagnostics). */
export const exportActivity = (): { readonly pagesRead: number; readonly streamsOpen: number } => ({ ...activity })


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
  readonly stream?: (run: RunEffect) => AsyncIterable<string>
  readonly headers?: Readonly<Record<string, string>>
}

const Format = Schema.Literals(["geojson", "kml"]).annotate({ description: "`geojson` (a FeatureCollection, `application/geo+json`) or `kml` (KML 2.2)" })

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

/** `GET /projects/{id}/export`'s query. */
export const ExportProjectQuery = Schema.Struct({ format: Schema.optionalKey(Format) })

/** `GET /projects/export`'s query: the list's filters and order. */
export const ExportProjectsQuery = Schema.Struct({
  format: Schema.optionalKey(Format),
  cursor: Schema.optionalKey(Schemas.ListCursor.annotate({
    description: "Resume an export that stopped at a cap: the file's `next_cursor` (GeoJSON member, KML `ExtendedData`), with the same filters and order"
  })),
  status: Schema.optionalKey(Schemas.ProjectStatus),
  search: Schema.optionalKey(Schemas.SearchTerm),
  bbox: Schema.optionalKey(Schemas.BoxQuery),
  intersects: Schema.optionalKey(Schemas.IntersectsQuery),
  sort: Schema.optionalKey(Schemas.ProjectSort),
  order: Schema.optionalKey(Schemas.Order)
})



type Run<A> = Effect.Effect<A, unknown, Canopy.Services>

export const importProject = (principal: Principal.Principal, query: Readonly<Record<string, string>>, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const read = yield* importFile(principal, { create: true }, body as RawBody)
    const projects = yield* Projects
    // `rawBodyOf` made sure one of the two is there
    const name = query.name ?? (body as RawBody).name
    return yield* writeAfterRead(projects.create(principal, { ...query, ...(name !== undefined ? { name } : {}), geometry: read.geometry }))
  })

export const replaceBoundary = (principal: Principal.Principal, id: string, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const read = yield* importFile(principal, { projectId: id }, body as RawBody)
    return yield* writeAfterRead((yield* Projects).update(principal, id, { geometry: read.geometry }))
  })

const fileName = (base: string, format: "geojson" | "kml") => `${base.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 100) || "projects"}.${format}`

const mediaTypeOf = (format: "geojson" | "kml") => format === "kml" ? KML_MEDIA_TYPE : GEOJSON_MEDIA_TYPE

export const exportProject = (principal: Principal.Principal, id: string, query: Readonly<Record<string, string>>): Run<FileAnswer> =>
  Effect.map(Effect.flatMap(Projects, (s) => s.get(principal, id)), (p) => {
    const format = query.format === "kml" ? "kml" : "geojson"
    const one = [p as ExportProject]
    return {
      contentType: mediaTypeOf(format),
      filename: fileName(p.slug, format),
      // one boundary: at most ~4 MB
      body: [...(format === "kml" ? kmlChunks(one) : featureCollectionChunks(one))].join("")
    }
  })

/** What an export needs of a list page. */
interface ProjectPage {
  readonly data: ReadonlyArray<unknown>
  readonly meta: { readonly total: number; readonly next_cursor: string | null }
}

/**
 * The filtered list as one file, streamed: the first page is read before the answer (its
 * failures are the answer; `X-Total-Count` is its total), the others as the client reads, one
 * storage call of `EXPORT_PAGE_SIZE` projects each. It stops before the project that would pass
 * `MAX_EXPORT_PROJECTS` or the byte cap (`MAX_EXPORT_BYTES`), and says at the end of the file
 * whether it did and where to resume (`truncated`, `next_cursor`: GeoJSON foreign members, KML
 * `ExtendedData`). A failure after the headers cuts the response (the adapter destroys it): a
 * file without its tail is not a complete one.
 */
export const exportProjects = (principal: Principal.Principal, query: Readonly<Record<string, string>>): Run<FileAnswer> =>
  Effect.gen(function*() {
    // The export is walked with `cursor` (the file's `next_cursor`): a page number would skip rows
    // yet end as a complete file.
    if (query.page !== undefined) {
      return yield* Effect.fail(new BadRequest("Invalid query parameters", [
        { field: "query.page", message: "is not accepted by the export: resume a truncated export with cursor=<next_cursor>" }
      ]))
    }
    const projects = yield* Projects
    const { cursor, format: _format, ...filters } = query
    const format = query.format === "kml" ? "kml" : "geojson"
    const listPage = (after: string | undefined, perPage: number) =>
      projects.list(principal, { ...filters, per_page: String(perPage), ...(after !== undefined ? { cursor: after } : {}) }) as Effect.Effect<ProjectPage, unknown>
    const first = yield* listPage(cursor, EXPORT_PAGE_SIZE)
    activity.pagesRead++
    const maxBytes = exportMaxBytes()
    return {
      contentType: mediaTypeOf(format),
      filename: fileName("projects", format),
      headers: { "x-total-count": String(first.meta.total) },
      stream: (run) => exportStream(run, { format, first, start: cursor, listPage, maxBytes, maxProjects: MAX_EXPORT_PROJECTS })
    }
  })

async function* exportStream(run: RunEffect, o: {
  readonly format: "geojson" | "kml"
  readonly first: ProjectPage
  /** The cursor the first page was read from (undefined: the list's start). */
  readonly start: string | undefined
  readonly listPage: (after: string | undefined, perPage: number) => Effect.Effect<ProjectPage, unknown, Canopy.Services>
  readonly maxBytes: number
  readonly maxProjects: number
}): AsyncGenerator<string> {
  activity.streamsOpen++
  try {
    const head = o.format === "kml" ? kmlHead() : featureCollectionHead
    let written = Buffer.byteLength(head)
    yield head
    let page = o.first
    let from = o.start
    let count = 0
    /** Where the file stopped: the page's cursor and how many of its projects it holds. */
    let stop: { readonly from: string | undefined; readonly taken: number } | undefined
    walk: for (;;) {
      for (let i = 0; i < page.data.length; i++) {
        const chunk = o.format === "kml" ? kmlPlacemark(page.data[i] as ExportProject) : featureChunk(page.data[i] as ExportProject, count === 0)
        const size = Buffer.byteLength(chunk)
        if (count >= o.maxProjects || written + size + TAIL_RESERVE > o.maxBytes) {
          stop = { from, taken: i }
          break walk
        }
        written += size
        count++
        yield chunk
      }
      // (a spatially filtered page may hold fewer projects than asked, even none, and still have a next one)
      const next = page.meta.next_cursor
      if (!next) break
      if (count >= o.maxProjects) {
        stop = { from: next, taken: 0 }
        break
      }
      page = await run(o.listPage(next, EXPORT_PAGE_SIZE))
      activity.pagesRead++
      from = next
    }
    let end: ExportEnd = { truncated: false, next_cursor: null }
    if (stop) {
      // The cursor after the last project written: the page's own when none of it was, else the
      // list's cursor after the first `taken` projects from the page's cursor (one more storage
      // call; more when a spatial filter answers pages shorter than asked).
      let after = stop.from ?? null
      for (let need = stop.taken; need > 0;) {
        const part = await run(o.listPage(after ?? undefined, need))
        need -= part.data.length
        after = part.meta.next_cursor
        if (!after) break
      }
      end = { truncated: true, next_cursor: after }
    }
    yield o.format === "kml" ? kmlTail(end) : featureCollectionTail(end)
  } finally {
    activity.streamsOpen--
  }
}

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

/** The success response of a `file` route: GeoJSON or KML as an attachment, with the common headers. */
export const openapiFileResponse = (mediaTypes: ReadonlyArray<string>, headers: Record<string, unknown>, list: boolean) => ({
  description: list
    ? `The file, as an attachment, streamed (chunked). It holds at most ${MAX_EXPORT_PROJECTS.toLocaleString("en")} projects and ` +
      `${MAX_EXPORT_BYTES / 1024 / 1024} MiB: its end says whether it holds the whole list (GeoJSON members \`truncated\` and ` +
      "`next_cursor`; KML `Document/ExtendedData`); pass `next_cursor` as `cursor` for the rest. A response cut short (no end) is " +
      "a failure, not a file."
    : "The file, as an attachment",
  headers: {
    ...headers,
    "Content-Disposition": { description: "`attachment; filename=\"<slug or projects>.<geojson|kml>\"`", schema: { type: "string" } },
    ...(list
      ? {
        "X-Total-Count": {
          description: "Projects that matched the filters (at least this many when counting stopped), known before the file is written; " +
            "whether the file holds them all is said at its end (`truncated`, `next_cursor`)",
          schema: { type: "integer", minimum: 0 }
        }
      }
      : {})
  },
  content: Object.fromEntries(mediaTypes.map((t) => [t, t === GEOJSON_MEDIA_TYPE
    ? {
      schema: {
        type: "object",
        description: "A GeoJSON FeatureCollection (RFC 7946), one Feature per project",
        properties: {
          type: { const: "FeatureCollection" },
          features: {
            type: "array",
            items: {
              type: "object",
              properties: {
                type: { const: "Feature" },
                id: { type: "string" },
                geometry: { anyOf: [{ $ref: "#/components/schemas/GeoJsonPolygon" }, { $ref: "#/components/schemas/GeoJsonMultiPolygon" }, { type: "null" }] },
                properties: {
                  type: "object",
                  properties: {
                    id: { type: "string" }, name: { type: "string" }, slug: { type: "string" }, description: { type: ["string", "null"] },
                    status: { type: "string", enum: ["active", "archived", "draft"] }, area_hectares: { type: "number" },
                    created_at: { type: "string", format: "date-time" }, updated_at: { type: "string", format: "date-time" }
                  },
                  required: ["id", "name", "slug", "description", "status", "area_hectares"]
                }
              },
              required: ["type", "id", "geometry", "properties"]
            }
          },
          ...(list
            ? {
              truncated: { type: "boolean", description: "Whether the export stopped at a cap before the end of the list" },
              next_cursor: { type: ["string", "null"], description: "Where the rest starts (pass as `cursor`); null when complete" }
            }
            : {})
        },
        required: list ? ["type", "features", "truncated", "next_cursor"] : ["type", "features"]
      }
    }
    : { schema: { type: "string", description: "A KML 2.2 document, one Placemark per project" } }]))
})
