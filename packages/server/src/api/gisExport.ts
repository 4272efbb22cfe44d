/**
 * Projects out over the API (docs/gis.md, "Endpoints"): one project or a filtered list as a
 * GeoJSON FeatureCollection or KML (the list streamed, page by page), or as a zipped Shapefile or
 * GeoPackage (built whole in an export worker, gis/exportOffload.ts), each list within its caps
 * and saying whether it holds the whole list and where the rest starts.
 */
import { type Canopy, type Errors, type Principal, ProjectExports, Projects, RawJson, Schemas, type Storage } from "@canopy/core"
import { Effect, Schema, Struct } from "effect"
// The export writers and the formats' names only: the readers (and their parsers) load on first
// use, so the server's heap — and its garbage collections — stay small.
import { type ExportEnd, exportProperties, featureChunk, featureCollectionChunks, featureCollectionHead, featureCollectionTail, GEOJSON_MEDIA_TYPE,
  KML_MEDIA_TYPE, kmlChunks, kmlHead, kmlPlacemark, kmlTail } from "../gis/export.ts"
import { exportPool } from "../gis/exportOffload.ts"
import type { BinaryExportFormat } from "../gis/exportWorker.ts"
import { MEDIA_TYPES } from "../gis/types.ts"
import type { FileAnswer, RunEffect } from "../http/files.ts"

/** Media types an export answers. */
export const EXPORT_MEDIA_TYPES: ReadonlyArray<string> = [GEOJSON_MEDIA_TYPE, KML_MEDIA_TYPE, MEDIA_TYPES.shapefile, MEDIA_TYPES.geopackage]

/** The list export's caps and page size (core's `ProjectExports`), for the routes' descriptions and the tests. */
export const { EXPORT_MAX_BYTES_ENV, EXPORT_PAGE_SIZE, MAX_BINARY_EXPORT_BYTES, MAX_EXPORT_BYTES, MAX_EXPORT_PROJECTS } = ProjectExports

/** Bytes kept free for the file's tail (its `truncated` and `next_cursor`, a cursor is at most 600 characters). */
const TAIL_RESERVE = 1024

/** What the list exports of this process have done: pages read from storage, and exports still being written. */
const activity = { pagesRead: 0, streamsOpen: 0 }

/** A snapshot of the list exports' activity (for tests and diagnostics). */
export const exportActivity = (): { readonly pagesRead: number; readonly streamsOpen: number } => ({ ...activity })

const countPage = () => {
  activity.pagesRead++
}

const Format = Schema.Literals(["geojson", "kml", "shapefile", "geopackage"]).annotate({
  description: "`geojson` (a FeatureCollection, `application/geo+json`), `kml` (KML 2.2), `shapefile` (a zipped Shapefile in WGS84 with " +
    "`.prj` and a UTF-8 `.cpg`, `application/zip`) or `geopackage` (`application/geopackage+sqlite3`)"
})

/** `GET /projects/{id}/export`'s query. */
export const ExportProjectQuery = Schema.Struct({ format: Schema.optionalKey(Format) })

/**
 * `GET /projects/export`'s query: the list's filters and order. A cursor is checked as the list
 * checks it (one of ours, made for this sort and order): a 400 on `query.cursor`.
 */
export const ExportProjectsQuery = Schemas.paginated(Schema.Struct({
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
}), Schemas.projectOrdering)

/** An export's work: it fails with a domain error or a storage failure (the list's also with a `BadRequest`). */
type Run<A, E = Failure> = Effect.Effect<A, E, Canopy.Services>

/** What a list page's read fails with. */
type Failure = Errors.DomainError | Storage.StorageError

type ExportFormat = "geojson" | "kml" | BinaryExportFormat

const formatOf = (query: Readonly<Record<string, string>>): ExportFormat =>
  query.format === "kml" || query.format === "shapefile" || query.format === "geopackage" ? query.format : "geojson"

const EXTENSIONS: Readonly<Record<ExportFormat, string>> = { geojson: "geojson", kml: "kml", shapefile: "zip", geopackage: "gpkg" }

const stemOf = (base: string) => base.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 100) || "projects"

const fileName = (base: string, format: ExportFormat) => `${stemOf(base)}.${EXTENSIONS[format]}`

const mediaTypeOf = (format: ExportFormat) => format === "kml" ? KML_MEDIA_TYPE : format === "geojson" ? GEOJSON_MEDIA_TYPE : MEDIA_TYPES[format]

const isBinary = (format: ExportFormat): format is BinaryExportFormat => format === "shapefile" || format === "geopackage"

const encoder = new TextEncoder()

/** A project as the export worker reads it: its attributes and boundary as one UTF-8 JSON text (the stored boundary spliced in). */
const exportRecord = (p: Schemas.Project): Uint8Array => encoder.encode(RawJson.stringify({ ...exportProperties(p), geometry: p.geometry ?? null }))

/** A binary file built by the export workers, as an answer. */
const binaryAnswer = (
  principal: Principal.Principal,
  format: BinaryExportFormat,
  stem: string,
  records: ReadonlyArray<Uint8Array>,
  options: { readonly end?: ExportEnd; readonly headers?: Readonly<Record<string, string>> } = {}
): Run<FileAnswer> =>
  Effect.map(exportPool().build(format, records, { baseName: stemOf(stem), end: options.end, owner: principal.account_id }), (bytes) => ({
    contentType: mediaTypeOf(format),
    filename: fileName(stem, format),
    bytes,
    ...(options.headers ? { headers: options.headers } : {})
  }))

export const exportProject = (principal: Principal.Principal, id: string, query: Readonly<Record<string, string>>): Run<FileAnswer> =>
  Effect.flatMap(Effect.flatMap(Projects, (s) => s.get(principal, id)), (p) => exportOne(principal, p, query))

/** One project (as read, or with another boundary of it) as a file of the format `query` asks for, named from `stem`. */
export const exportOne = (principal: Principal.Principal, p: Schemas.Project, query: Readonly<Record<string, string>>, stem = p.slug): Run<FileAnswer> => {
  const format = formatOf(query)
  if (isBinary(format)) return binaryAnswer(principal, format, stem, [exportRecord(p)])
  const one = [p]
  return Effect.succeed({
    contentType: mediaTypeOf(format),
    filename: fileName(stem, format),
    // one boundary: at most ~4 MB
    body: [...(format === "kml" ? kmlChunks(one) : featureCollectionChunks(one))].join("")
  })
}

/**
 * The filtered list as one file (`ProjectExports.walkExport`: its pages, caps, stop and resume
 * cursor). The first page is read before the answer (its failures are the answer; `X-Total-Count`
 * is its total). GeoJSON and KML are streamed, the other pages read as the client reads; the end
 * of the file says whether it holds the whole list and where to resume (`truncated`,
 * `next_cursor`: GeoJSON foreign members, KML `ExtendedData`). A failure after the headers cuts
 * the response (the adapter destroys it): a file without its tail is not a complete one.
 */
export const exportProjects = (principal: Principal.Principal, query: Readonly<Record<string, string>>): Run<FileAnswer, Failure | Errors.BadRequest> =>
  Effect.suspend(() => {
    const { format: _format, ...listQuery } = query
    const format = formatOf(query)
    const override = process.env[EXPORT_MAX_BYTES_ENV]
    if (isBinary(format)) {
      return Effect.flatMap(
        ProjectExports.walkExport(principal, listQuery, { caps: ProjectExports.exportCaps("built", override), encode: exportRecord, size: byteLength,
          onPageRead: countPage }),
        (walk) => binaryListExport(principal, format, walk)
      )
    }
    const head = format === "kml" ? kmlHead() : featureCollectionHead
    return Effect.map(
      ProjectExports.walkExport(principal, listQuery, {
        caps: ProjectExports.exportCaps("streamed", override),
        reservedBytes: Buffer.byteLength(head) + TAIL_RESERVE,
        encode: format === "kml" ? kmlPlacemark : (p, taken) => featureChunk(p, taken === 0),
        size: (chunk) => Buffer.byteLength(chunk),
        onPageRead: countPage
      }),
      (walk) => ({
        contentType: mediaTypeOf(format),
        filename: fileName("projects", format),
        headers: { "x-total-count": String(walk.total) },
        stream: (run) => exportStream(run, head, format === "kml" ? kmlTail : featureCollectionTail, walk)
      })
    )
  })

const byteLength = (record: Uint8Array) => record.length

/** Bytes of project text encoded between two turns of the event loop (~1 ms per 100 KB). */
const ENCODE_SLICE_BYTES = 1024 * 1024

/**
 * The walk as a zipped Shapefile or a GeoPackage: each project encoded for the export worker (the
 * loop turns every few MiB, and between a page's read and its encoding); the worker then builds
 * the file. Whether it holds the whole list is in the file (`canopy_export.txt`, the
 * `canopy_export` table) and in the `X-Canopy-Truncated` and `X-Canopy-Next-Cursor` headers.
 */
const binaryListExport = (principal: Principal.Principal, format: BinaryExportFormat, walk: ProjectExports.ExportWalk<Uint8Array>): Run<FileAnswer> =>
  Effect.gen(function*() {
    const records: Array<Uint8Array> = []
    for (let page = yield* walk.nextPage, pages = 1; page; page = yield* walk.nextPage, pages++) {
      if (pages > 1) yield* Effect.yieldNow // the page's read and its encoding in two turns
      let sinceTurn = 0
      for (const record of page) {
        records.push(record)
        sinceTurn += record.length
        if (sinceTurn > ENCODE_SLICE_BYTES) {
          sinceTurn = 0
          yield* Effect.yieldNow
        }
      }
    }
    const end = yield* walk.end
    return yield* binaryAnswer(principal, format, "projects", records, {
      end,
      headers: {
        "x-total-count": String(walk.total),
        "x-canopy-truncated": String(end.truncated),
        ...(end.next_cursor !== null ? { "x-canopy-next-cursor": end.next_cursor } : {})
      }
    })
  })

/** The walk as a GeoJSON or KML file: its head, one chunk per project as the client reads, its tail. */
async function* exportStream(run: RunEffect, head: string, tail: (end: ExportEnd) => string, walk: ProjectExports.ExportWalk<string>): AsyncGenerator<string> {
  activity.streamsOpen++
  try {
    yield head
    for (let page = await run(walk.nextPage); page; page = await run(walk.nextPage)) yield* page
    yield tail(await run(walk.end))
  } finally {
    activity.streamsOpen--
  }
}

// ---------------------------------------------------------------------------------------------
// The OpenAPI document's part for these routes (api/openapi.ts).

const BINARY_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [MEDIA_TYPES.shapefile]: "A zipped Shapefile (`.shp`, `.shx`, `.dbf`, `.prj` in WGS84, `.cpg` UTF-8), one polygon record per project, " +
    "outer rings clockwise; attributes `id`, `name`, `slug`, `descriptio`, `status`, `area_hecta`, `created_at`, `updated_at`",
  [MEDIA_TYPES.geopackage]: "A GeoPackage 1.3, one row per project in the feature table `projects` (EPSG:4326) with the attributes " +
    "`id`, `name`, `slug`, `description`, `status`, `area_hectares`, `created_at`, `updated_at`"
}

/** A project as a GeoJSON Feature's `properties`: the Project schema's fields the export writes (`exportProperties`). */
const ExportAttributes = Schema.Struct({
  ...Struct.pick(Schemas.Project.fields, ["id", "name", "slug", "description", "status", "area_hectares"]),
  created_at: Schema.optionalKey(Schemas.Project.fields.created_at),
  updated_at: Schema.optionalKey(Schemas.Project.fields.updated_at)
})

/** An export as GeoJSON: a FeatureCollection of the projects; a list's says whether it holds them all. */
const exportFeatureCollection = (list: boolean) =>
  Schema.Struct({
    type: Schema.Literal("FeatureCollection"),
    features: Schema.Array(Schema.Struct({
      type: Schema.Literal("Feature"),
      id: Schemas.Project.fields.id,
      geometry: Schemas.Project.fields.geometry,
      properties: ExportAttributes
    })),
    ...(list
      ? {
        truncated: Schema.Boolean.annotate({ description: "Whether the export stopped at a cap before the end of the list" }),
        next_cursor: Schema.NullOr(Schema.String).annotate({ description: "Where the rest starts (pass as `cursor`); null when complete" })
      }
      : {})
  }).annotate({ description: "A GeoJSON FeatureCollection (RFC 7946), one Feature per project" })

/**
 * The success response of a `file` route: GeoJSON (its schema built from the Project schema with
 * `toJsonSchema`), KML, a zipped Shapefile or a GeoPackage, as an attachment, with the common headers.
 */
export const openapiFileResponse = (
  mediaTypes: ReadonlyArray<string>,
  headers: Record<string, unknown>,
  list: boolean,
  toJsonSchema: (schema: Schema.Top) => unknown
) => ({
  description: list
    ? `The file, as an attachment, streamed (chunked). It holds at most ${MAX_EXPORT_PROJECTS.toLocaleString("en")} projects and ` +
      `${MAX_EXPORT_BYTES / 1024 / 1024} MiB: its end says whether it holds the whole list (GeoJSON members \`truncated\` and ` +
      "`next_cursor`; KML `Document/ExtendedData`); pass `next_cursor` as `cursor` for the rest. A response cut short (no end) is " +
      "a failure, not a file. A zipped Shapefile or GeoPackage is built whole and sent with its length, from at most " +
      `${MAX_BINARY_EXPORT_BYTES / 1024 / 1024} MiB of project text: its headers \`X-Canopy-Truncated\` (\`true\` or \`false\`) and, ` +
      "when truncated, `X-Canopy-Next-Cursor` say whether it holds the whole list, and so does the file (`canopy_export.txt` in " +
      "the zip, the `canopy_export` table)."
    : "The file, as an attachment",
  headers: {
    ...headers,
    "Content-Disposition": { description: "`attachment; filename=\"<slug or projects>.<geojson|kml|zip|gpkg>\"`", schema: { type: "string" } },
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
    ? { schema: toJsonSchema(exportFeatureCollection(list)) }
    : { schema: { type: "string", description: BINARY_DESCRIPTIONS[t] ?? "A KML 2.2 document, one Placemark per project" } }]
  ))
})
