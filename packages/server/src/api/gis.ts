/**
 * Boundaries in and out over the API (issue 17, point 2; docs/gis.md, "Endpoints"): create a
 * project from a GIS file, replace a project's boundary from one, and export one project or a
 * filtered list as a GeoJSON FeatureCollection or KML. The file is read by the conversion layer
 * (`importBoundary`, off the event loop: gis/offload.ts); the boundary then goes through the
 * normal Projects create/update, so validation, limits, events and idempotency apply unchanged.
 */
import { type Canopy, Errors, Principal, Projects, Schemas } from "@canopy/core"
import { Effect, Schema } from "effect"
// The export writers and the formats' names only: the readers (and their parsers) load on first
// use, so the server's heap — and its garbage collections — stay small.
import { type ExportProject, featureCollectionChunks, GEOJSON_MEDIA_TYPE, KML_MEDIA_TYPE, kmlChunks } from "../gis/export.ts"
import { type ImportProblem, MEDIA_TYPES } from "../gis/types.ts"
import { importPool } from "../gis/offload.ts"

/** Media types an import accepts as its body (the file itself). */
export const IMPORT_MEDIA_TYPES: ReadonlyArray<string> = [
  "application/geo+json", "application/json", MEDIA_TYPES.kml, MEDIA_TYPES.kmz, MEDIA_TYPES.shapefile, MEDIA_TYPES.geopackage
]

/** Media types an export answers. */
export const EXPORT_MEDIA_TYPES: ReadonlyArray<string> = [GEOJSON_MEDIA_TYPE, KML_MEDIA_TYPE]

/** Most projects one list export holds. */
export const MAX_EXPORT_PROJECTS = 10_000

/** A raw body as the pipeline hands it to a route with `rawBody`. */
export interface RawBody {
  readonly bytes: Uint8Array
  /** The request's media type, without parameters, lowercased. */
  readonly mediaType: string
}

/** A file answer: the handler writes it as it is, with `Content-Disposition: attachment`. */
export interface FileAnswer {
  readonly contentType: string
  readonly filename: string
  readonly body: string
  readonly headers?: Readonly<Record<string, string>>
}

const Format = Schema.Literals(["geojson", "kml"]).annotate({ description: "`geojson` (a FeatureCollection, `application/geo+json`) or `kml` (KML 2.2)" })

/** `POST /projects/import`'s query: the new project's fields besides its boundary. */
export const ImportProjectQuery = Schema.Struct({
  name: Schema.String.annotate({ description: "The new project's name (required)" }),
  description: Schema.optionalKey(Schema.String),
  slug: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(Schemas.ProjectStatus)
})

/** `GET /projects/{id}/export`'s query. */
export const ExportProjectQuery = Schema.Struct({ format: Schema.optionalKey(Format) })

/** `GET /projects/export`'s query: the list's filters and order. */
export const ExportProjectsQuery = Schema.Struct({
  format: Schema.optionalKey(Format),
  status: Schema.optionalKey(Schemas.ProjectStatus),
  search: Schema.optionalKey(Schemas.SearchTerm),
  sort: Schema.optionalKey(Schemas.ProjectSort),
  order: Schema.optionalKey(Schemas.Order)
})

/** The module's problems as the spec's `details`: the validator's path, the feature named in the message. */
const details = (problems: ReadonlyArray<ImportProblem>) =>
  problems.map((p) => ({ field: p.field, message: p.source ? `${p.message} (${p.source})` : p.message }))

/**
 * Reads the uploaded file into a boundary, or fails with the 422 listing every problem. The
 * module's limits bound the work (its `maxBytes` is above the pipeline's body limit).
 */
const readBoundary = (body: unknown) => {
  const raw = body as RawBody
  return Effect.flatMap(importPool().read(raw.bytes, { mediaType: raw.mediaType }), (result) =>
    result.ok
      ? Effect.succeed(result.geometry)
      : Effect.fail(new Errors.ValidationError({
        message: `The file is not a boundary Canopy can import${result.format ? ` (read as ${result.format})` : ""}`,
        details: details(result.problems)
      })))
}

type Run<A> = Effect.Effect<A, unknown, Canopy.Services>

export const importProject = (principal: Principal.Principal, query: Readonly<Record<string, string>>, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const geometry = yield* readBoundary(body)
    const projects = yield* Projects
    return yield* projects.create(principal, { ...query, geometry })
  })

export const replaceBoundary = (principal: Principal.Principal, id: string, body: unknown): Run<Schemas.Project> =>
  Effect.gen(function*() {
    const projects = yield* Projects
    // Another account's or a missing project is a 404 before the file is read. (Looked up as the
    // account itself: the caller's permission is projects:write, checked before; it may lack read.)
    yield* projects.get(Principal.system(principal.account_id), id)
    const geometry = yield* readBoundary(body)
    return yield* projects.update(principal, id, { geometry })
  })

const fileName = (base: string, format: "geojson" | "kml") => `${base.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 100) || "projects"}.${format}`

const render = (format: "geojson" | "kml", projects: ReadonlyArray<ExportProject>, base: string, headers?: Record<string, string>): FileAnswer => ({
  contentType: format === "kml" ? KML_MEDIA_TYPE : GEOJSON_MEDIA_TYPE,
  filename: fileName(base, format),
  body: [...(format === "kml" ? kmlChunks(projects) : featureCollectionChunks(projects))].join(""),
  ...(headers ? { headers } : {})
})

export const exportProject = (principal: Principal.Principal, id: string, query: Readonly<Record<string, string>>): Run<FileAnswer> =>
  Effect.map(Effect.flatMap(Projects, (s) => s.get(principal, id)), (p) =>
    render(query.format === "kml" ? "kml" : "geojson", [p as ExportProject], p.slug))

/**
 * The filtered list, walked page by page with the list's cursors (100 a page), at most
 * `MAX_EXPORT_PROJECTS`; `X-Total-Count` says how many matched and `X-Export-Truncated: true`
 * that the file holds only the first `MAX_EXPORT_PROJECTS` of them.
 */
export const exportProjects = (principal: Principal.Principal, query: Readonly<Record<string, string>>): Run<FileAnswer> =>
  Effect.gen(function*() {
    const projects = yield* Projects
    const { format: _format, ...filters } = query
    const out: Array<ExportProject> = []
    let cursor: string | undefined
    let total = 0
    for (;;) {
      const page = yield* projects.list(principal, {
        ...filters, per_page: String(Schemas.limits.perPage), ...(cursor ? { cursor } : {})
      })
      if (cursor === undefined) total = page.meta.total
      for (const p of page.data) if (out.length < MAX_EXPORT_PROJECTS) out.push(p as ExportProject)
      const next = (page.meta as { next_cursor?: string | null }).next_cursor
      if (!next || out.length >= MAX_EXPORT_PROJECTS || page.data.length === 0) {
        const truncated = Boolean(next) && out.length >= MAX_EXPORT_PROJECTS
        return render(query.format === "kml" ? "kml" : "geojson", out, "projects", {
          "x-total-count": String(Math.max(total, out.length)),
          "x-export-truncated": String(truncated)
        })
      }
      cursor = next
    }
  })

// ---------------------------------------------------------------------------------------------
// The two hooks of the request pipeline (http/input.ts, http/handler.ts) for these routes.

/**
 * A route with `rawBody`: the request's bytes and media type, or the 400's message and details
 * when a body came with a media type the route does not take. An empty body passes (the route
 * looks up its project first, then the module answers "the file is empty").
 */
export const rawBodyOf = (
  accepted: ReadonlyArray<string>, req: { readonly headers: Readonly<Record<string, string | undefined>>; readonly body: Uint8Array | undefined }
): { readonly ok: true; readonly body: RawBody } | { readonly ok: false; readonly message: string; readonly details: ReadonlyArray<{ field: string; message: string }> } => {
  const given = req.headers["content-type"]
  const mediaType = (given ?? "").split(";")[0]!.trim().toLowerCase()
  const bytes = req.body ?? new Uint8Array()
  if (bytes.length > 0 && !accepted.includes(mediaType)) {
    return {
      ok: false,
      message: `Content-Type must be one of ${accepted.join(", ")}`,
      details: [{ field: "content-type", message: `must be one of ${accepted.join(", ")}, got ${given ?? "none"}` }]
    }
  }
  return { ok: true, body: { bytes, mediaType } }
}

/** A `file` envelope's answer: the file as it is, as an attachment, with the request's headers. */
export const fileResponse = (status: number, requestId: string, value: unknown, headers: Readonly<Record<string, string>>) => {
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
    body: file.body
  }
}

// ---------------------------------------------------------------------------------------------
// The OpenAPI document's parts for these routes (api/openapi.ts).

/** The request body of a `rawBody` route: the file, in any of its media types. */
export const openapiRequestBody = (mediaTypes: ReadonlyArray<string>) => ({
  required: true,
  description: "The file itself (at most 5 MiB, the API's body limit), with its media type; the content decides the format, " +
    "a media type of another family than the content is a problem. Docs: docs/gis.md.",
  content: Object.fromEntries(mediaTypes.map((t) => [t, { schema: { type: "string", contentMediaType: t } }]))
})

/** The success response of a `file` route: GeoJSON or KML as an attachment, with the common headers. */
export const openapiFileResponse = (mediaTypes: ReadonlyArray<string>, headers: Record<string, unknown>, list: boolean) => ({
  description: "The file, as an attachment",
  headers: {
    ...headers,
    "Content-Disposition": { description: "`attachment; filename=\"<slug or projects>.<geojson|kml>\"`", schema: { type: "string" } },
    ...(list
      ? {
        "X-Total-Count": { description: "Projects that matched the filters (at least this many when counting stopped)", schema: { type: "integer", minimum: 0 } },
        "X-Export-Truncated": { description: `\`true\` when more than ${MAX_EXPORT_PROJECTS} matched: the file holds the first ${MAX_EXPORT_PROJECTS}`, schema: { type: "string", enum: ["true", "false"] } }
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
          }
        },
        required: ["type", "features"]
      }
    }
    : { schema: { type: "string", description: "A KML 2.2 document, one Placemark per project" } }]))
})
