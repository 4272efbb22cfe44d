/**
 * The v1 API as data: every endpoint with its method, path, the operation (and so the permission)
 * it performs, its success status, the schemas of its query, body and answer, and the domain call
 * it makes. The request handler routes by this table and the OpenAPI document (and from it the
 * typed clients) is generated from it; `route` ties the type of what `run` produces to the
 * documented `resource` schema, and the errors `run` may fail with to the route's declared
 * `errors` (rows of `Errors.table`), so the code cannot answer something the document does not say.
 */
import { Accounts, Assets, Deliveries, Errors, Members, OAuth, OAuthServer, Principal, Projects, Schemas, Webhooks, type Canopy, type Permissions,
  type Storage } from "@canopy/core"
import { GetImportQuery, ImportResource } from "@canopy/core"
import { ListProjectOverlaps, ProjectOverlaps } from "@canopy/core"
import { BoundaryHistory } from "@canopy/core"
import { Effect, type Schema } from "effect"
import { exportVersion } from "./boundaryExport.ts"
import * as Gis from "./gis.ts"
import * as BulkImports from "./imports.ts"
import * as Tiles from "./tiles.ts"

/** What a handler receives. */
export interface RouteContext {
  readonly principal: Principal.Principal
  readonly params: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, string>>
  readonly body: unknown
}

/**
 * How a result is wrapped: one resource, a list (with its meta), no content, or a file (written
 * as it is, with its media type and `Content-Disposition: attachment`: `Gis.FileAnswer`).
 */
export type Envelope = "resource" | "list" | "empty" | "file"

/** What every endpoint states, whatever it answers. */
interface Common {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  /** Below `/v1`, with `{name}` path parameters. */
  readonly path: string
  readonly operation: Permissions.Operation
  /** Short, as a sentence's start ("Create a project"): the operation's title in the reference. */
  readonly summary: string
  /** Longer explanation for the reference (Markdown), when the summary is not enough. */
  readonly description?: string
  readonly tag: string
  /** Query schema: a query that does not decode is a 400. */
  readonly query?: Schema.Top
  /** Body schema: the route takes a JSON body. */
  readonly body?: Schema.Top
  /**
   * The route takes the request body as it is (a file), in one of these media types: `body` is
   * then a `Gis.RawBody` (its bytes and media type); another Content-Type is a 400.
   */
  readonly rawBody?: ReadonlyArray<string>
  /**
   * With `rawBody`: the `name` query parameter may come from a multipart form's `name` field
   * instead, and one of the two is required (a 400 on `query.name` otherwise).
   */
  readonly nameFromForm?: boolean
}

/** A list's metadata as the services produce it (the pipeline adds `request_id` and `timestamp`). */
export interface ListMeta {
  readonly total: number
}

/**
 * What any `run` may fail with undeclared, because the pipeline answers it on every route anyway:
 * the credential (401), its permission (403), the rate limit (429), the database (503).
 */
type Anywhere = Errors.Unauthorized | Errors.Forbidden | Errors.RateLimited | Storage.StorageError

/** A route's domain call, failing only with the errors `T` declares (and `Anywhere`). */
type Run<A, T extends Errors.Tag = never> = (ctx: RouteContext) => Effect.Effect<A, Errors.ErrorOf<T> | Anywhere, Canopy.Services>

/** The errors a domain service's type says it may fail with, besides `Anywhere`: what a route calling one declares. */
export const SERVICE_ERRORS = ["NotFound", "Conflict", "ValidationError", "LimitExceeded"] as const

/**
 * `A`, refused when it has a top-level key `T` lacks: TypeScript would let a value with more
 * fields than the documented resource through (the extra field would be undocumented).
 */
type Exactly<A, T> = A & { readonly [K in Exclude<keyof A, keyof T>]: never }

/** One endpoint, as the handler and the document generator see it (the answer's and errors' types erased). */
export interface Route extends Common {
  readonly status: 200 | 201 | 202 | 204
  readonly envelope: Envelope
  /** The resource schema of the success response (each element's, for a list). */
  readonly resource?: Schema.Top
  /** A file answer's possible media types. */
  readonly produces?: ReadonlyArray<string>
  /** The errors `run` may fail with, besides those every route answers (`answers` adds those). */
  readonly errors: ReadonlyArray<Errors.Tag>
  readonly run: (ctx: RouteContext) => Effect.Effect<unknown, unknown, Canopy.Services>
}

/**
 * Every error a route may answer, in the table's order: its declared ones and the pipeline's,
 * from its shape (the credential, the permission, the rate limit; a query or body that cannot be
 * read; a JSON body's nesting; a body over the limit; a POST's `Idempotency-Key`; the database).
 */
export const answers = (r: Route): ReadonlyArray<Errors.Tag> => {
  const pipeline: Array<Errors.Tag> = ["CredentialsMissing", "Unauthorized", "Forbidden", "RateLimited", "Unavailable", "Unexpected"]
  if (r.query || r.body || r.rawBody || r.method === "POST") pipeline.push("BadRequest")
  if (r.body) pipeline.push("ValidationError")
  if (r.body || r.rawBody) pipeline.push("BodyTooLarge")
  if (r.method === "POST") pipeline.push("IdempotencyKeyReused", "IdempotencyKeyInProgress")
  const all = new Set<Errors.Tag>([...pipeline, ...r.errors])
  return (Object.keys(Errors.table) as Array<Errors.Tag>).filter((t) => all.has(t))
}

/** The errors a route declares: rows of the table. */
type Declares<T extends Errors.Tag> = { readonly errors: ReadonlyArray<T> }

/**
 * An endpoint whose `run` must produce its `resource` schema's type: one resource (status 200, 201
 * or 202), a list of them with their meta, or nothing (204); and may fail only with the errors it
 * declares (`errors`) and those every route answers.
 */
export function route<S extends Schema.Top, A extends S["Type"], const T extends Errors.Tag = never>(
  r: Common & Declares<T> & {
    readonly envelope: "resource"
    readonly status: 200 | 201 | 202
    readonly resource: S
    readonly run: Run<Exactly<A, S["Type"]>, T>
  }
): Route
export function route<S extends Schema.Top, A extends S["Type"], const T extends Errors.Tag = never>(
  r: Common & Declares<T> & {
    readonly envelope: "list"
    readonly status: 200
    readonly resource: S
    readonly run: Run<{ readonly data: ReadonlyArray<Exactly<A, S["Type"]>>; readonly meta: ListMeta }, T>
  }
): Route
export function route<const T extends Errors.Tag = never>(
  r: Common & Declares<T> & { readonly envelope: "empty"; readonly status: 204; readonly run: Run<void, T> }
): Route
export function route<const T extends Errors.Tag = never>(
  r: Common & Declares<T> & { readonly envelope: "file"; readonly status: 200; readonly produces: ReadonlyArray<string>; readonly run: Run<Gis.FileAnswer, T> }
): Route
export function route(r: Route): Route {
  return r
}

/** `GET /v1/me`'s member, named for the reference. */
const Me = OAuth.Me.annotate({ identifier: "Me" })

/** Every v1 endpoint of the spec. */
export const routes: ReadonlyArray<Route> = [
  // Projects
  route({ method: "GET", path: "/projects", operation: "projects.list", tag: "Projects", summary: "List projects",
    description: "Filters combine: `status`, `search` (a case-insensitive substring of the name or description), and `bbox` " +
      "(`west,south,east,north`: projects whose bounding box shares at least one point with the box, edges included; projects " +
      "without a boundary never match), served by a spatial index; and `intersects` (a URL-encoded GeoJSON Point: the projects whose " +
      "boundary covers it; or a Polygon or MultiPolygon of up to 1,000 positions: those sharing area with it), tested exactly. With " +
      "`search` or `bbox`, `meta.total` counts matches up to 1,000. With `intersects`, pages are walked with cursors and one request " +
      "tests at most 500 candidates: a page may hold fewer rows than `per_page` (even none) while `has_more` is true.", status: 200, envelope: "list",
    errors: SERVICE_ERRORS, query: Schemas.ListProjects, resource: Schemas.Project,
    run: ({ principal, query }) => Effect.flatMap(Projects, (s) => s.list(principal, query)) }),
  route({ method: "POST", path: "/projects", operation: "projects.create", tag: "Projects", summary: "Create a project",
    description: "With a boundary, the answer carries `overlaps`: the account's other active and draft projects sharing at least " +
      "0.0001 ha with it, in geodesic hectares, and `project.overlap_detected` is emitted when there are any. Under the account's " +
      "`overlap_policy: reject`, an overlapping boundary is refused with 409 CONFLICT and nothing is stored.", status: 201, envelope: "resource",
    errors: SERVICE_ERRORS, body: Schemas.CreateProject, resource: Schemas.Project,
    run: ({ body, principal }) => Effect.flatMap(Projects, (s) => s.create(principal, body)) }),
  route({ method: "POST", path: "/projects/import", operation: "projects.create", tag: "Projects", summary: "Create a project from a GIS file",
    description: "The body is the file itself, with its media type: GeoJSON (`application/geo+json`, `application/json`), KML " +
      "(`application/vnd.google-earth.kml+xml`), KMZ (`application/vnd.google-earth.kmz`), a zipped Shapefile (`application/zip`) " +
      "or a GeoPackage (`application/geopackage+sqlite3`) — or a `multipart/form-data` form with the file as its one file part named " +
      "`file` (its file name and the part's media type are the hints; a `name` field may give the project's name when `?name=` is absent). " +
      "The project's `name` (required unless the form gives it; optionally `description`, `slug`, `status`) are query parameters. Every polygon of the file becomes the boundary (several: a MultiPolygon), reprojected to WGS84 " +
      "when the file says so. A file that cannot be read, or whose boundary is invalid, answers 422 with every problem in " +
      "`details` (the validator's path, e.g. `geometry.coordinates[0][2]`, or `file`); nothing is stored. The project is then " +
      "created as by `POST /v1/projects` (same validation, plan limits, `project.created` event, `Idempotency-Key`).", status: 201, envelope: "resource",
    errors: SERVICE_ERRORS, query: Gis.ImportProjectQuery, rawBody: Gis.IMPORT_MEDIA_TYPES, nameFromForm: true, resource: Schemas.Project,
    run: ({ body, principal, query }) => Gis.importProject(principal, query, body) }),
  route({ method: "POST", path: "/imports", operation: "projects.create", tag: "Projects", summary: "Import a GIS file's features as projects (a job)",
    description: "The body is the file, as for `POST /v1/projects/import` (raw, or the `file` part of a `multipart/form-data` form). " +
      "The file is read at once, off the event loop; the answer is 202 with the import, whose projects are then created in the " +
      "background: follow it with `GET /v1/imports/{import_id}` (progress, per-feature results, totals), stop it with " +
      "`POST /v1/imports/{import_id}/cancel`; `import.completed` is emitted when it ends. `mode=per_feature` (the default): each " +
      "feature becomes its own project as by `POST /v1/projects` (validation, overlaps, plan limits, `project.created`), named from " +
      "`name_field` and described from `description_field`; a refused feature stores nothing and is listed with its problems. " +
      "`mode=merge`: every polygon of the file one project. `dry_run=true`: a preview (status `completed`, results `valid` or " +
      "`refused`), nothing else stored. A file that cannot be read answers 422 with every problem; one whose valid features would " +
      "take the account past its plan's hectares, or past its plan's requests per day (one per feature), answers 403 and nothing " +
      "is stored; while an import of the account runs, another answers 429. Docs: docs/gis.md, \"Bulk imports\".", status: 202, envelope: "resource",
    errors: SERVICE_ERRORS, query: BulkImports.StartImportQuery, rawBody: Gis.IMPORT_MEDIA_TYPES, resource: ImportResource,
    run: ({ body, principal, query }) => BulkImports.startImport(principal, query, body) }),
  route({ method: "GET", path: "/imports/{import_id}", operation: "projects.get", tag: "Projects",
    summary: "An import's status, progress and per-feature results",
    description: "Results come in file order, `results_per_page` at a time (default 100, at most 1,000): pass `next_results_after` " +
      "as `results_after` for the next page. An import whose server stopped while it ran is `failed`, with the reason in `error`.", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, query: GetImportQuery, resource: ImportResource,
    run: ({ params, principal, query }) => BulkImports.getImport(principal, params.import_id!, query) }),
  route({ method: "POST", path: "/imports/{import_id}/cancel", operation: "projects.create", tag: "Projects", summary: "Cancel a running import",
    description: "The feature at hand is finished; the projects created stay, the features not reached are not imported. An import " +
      "that has ended already answers 409 CONFLICT.", status: 200, envelope: "resource", errors: SERVICE_ERRORS, resource: ImportResource,
    run: ({ params, principal }) => BulkImports.cancelImport(principal, params.import_id!) }),
  route({ method: "GET", path: "/projects/export", operation: "projects.list", tag: "Projects",
    summary: "Export projects as GeoJSON, KML, zipped Shapefile or GeoPackage",
    description: "The list's filters (`status`, `search`, `bbox`, `intersects`) and order (`sort`, `order`) as in `GET /v1/projects`, " +
      "as one file: a GeoJSON FeatureCollection (`format=geojson`, the default; `application/geo+json`), a KML document " +
      "(`format=kml`), a zipped Shapefile (`format=shapefile`; `application/zip`) or a GeoPackage (`format=geopackage`), one " +
      "feature per project, with `Content-Disposition: attachment`. GeoJSON and KML are streamed (chunked), at most " +
      `${Gis.MAX_EXPORT_PROJECTS.toLocaleString("en")} projects and ${Gis.MAX_EXPORT_BYTES / 1024 / 1024} MiB per file: ` +
      "`X-Total-Count` says how many matched; the end of the file says whether it holds them all (`truncated`, `next_cursor`: " +
      "GeoJSON members, KML `Document/ExtendedData`); pass `next_cursor` as `cursor` with the same filters and order for the rest " +
      "(`page` is refused with 400 on `query.page`: a file always starts at its cursor). " +
      "A response cut short is a failure, not a file. A zipped Shapefile or GeoPackage is built whole in an export worker and sent " +
      `with its length, from at most ${Gis.MAX_BINARY_EXPORT_BYTES / 1024 / 1024} MiB of project text (and the same project cap): ` +
      "`X-Canopy-Truncated` and `X-Canopy-Next-Cursor` say whether it holds the whole list, as does the file (`canopy_export.txt` " +
      "in the zip, the `canopy_export` table). Attributes are named as the import reads them (`name`). Docs: docs/gis.md.", status: 200, envelope: "file",
    errors: [...SERVICE_ERRORS, "BadRequest"], query: Gis.ExportProjectsQuery, produces: Gis.EXPORT_MEDIA_TYPES,
    run: ({ principal, query }) => Gis.exportProjects(principal, query) }),
  route({ method: "GET", path: "/projects/{project_id}", operation: "projects.get", tag: "Projects", summary: "Get a project", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, resource: Schemas.Project,
    run: ({ params, principal }) => Effect.flatMap(Projects, (s) => s.get(principal, params.project_id!)) }),
  route({ method: "PUT", path: "/projects/{project_id}", operation: "projects.update", tag: "Projects", summary: "Update a project (partial)",
    description: "A new boundary (or a status leaving `archived`) is compared with the account's other projects as on create: " +
      "`overlaps` in the answer, `project.overlap_detected`, and 409 CONFLICT under `overlap_policy: reject` (nothing changes).", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.UpdateProject, resource: Schemas.Project,
    run: ({ body, params, principal }) => Effect.flatMap(Projects, (s) => s.update(principal, params.project_id!, body)) }),
  route({ method: "PUT", path: "/projects/{project_id}/boundary", operation: "projects.update", tag: "Projects",
    summary: "Replace a project's boundary from a GIS file",
    description: "The body is the file itself, with its media type (the formats of `POST /v1/projects/import`), or a " +
      "`multipart/form-data` form with the file as its `file` part. Problems answer 422 " +
      "with every problem in `details` and leave the project as it was; the boundary is then saved as by `PUT /v1/projects/{project_id}` " +
      "with `geometry` (same validation, `project.updated` event).", status: 200, envelope: "resource", errors: SERVICE_ERRORS, rawBody: Gis.IMPORT_MEDIA_TYPES,
    resource: Schemas.Project, run: ({ body, params, principal }) => Gis.replaceBoundary(principal, params.project_id!, body) }),
  route({ method: "GET", path: "/projects/{project_id}/export", operation: "projects.get", tag: "Projects",
    summary: "Export a project as GeoJSON, KML, zipped Shapefile or GeoPackage",
    description: "A GeoJSON FeatureCollection with the project as its one feature (`format=geojson`, the default; `application/geo+json`), " +
      "a KML document (`format=kml`), a zipped Shapefile in WGS84 with its `.prj` and a UTF-8 `.cpg` (`format=shapefile`; " +
      "`application/zip`) or a GeoPackage (`format=geopackage`; `application/geopackage+sqlite3`), with `Content-Disposition: " +
      "attachment`. Re-importing any of them gives the same area.", status: 200, envelope: "file", errors: SERVICE_ERRORS, query: Gis.ExportProjectQuery,
    produces: Gis.EXPORT_MEDIA_TYPES, run: ({ params, principal, query }) => Gis.exportProject(principal, params.project_id!, query) }),
  route({ method: "DELETE", path: "/projects/{project_id}", operation: "projects.delete", tag: "Projects", summary: "Delete an archived project", status: 204,
    envelope: "empty", errors: SERVICE_ERRORS, run: ({ params, principal }) => Effect.flatMap(Projects, (s) => s.delete(principal, params.project_id!)) }),
  route({ method: "POST", path: "/projects/{project_id}/archive", operation: "projects.archive", tag: "Projects", summary: "Archive a project", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, resource: Schemas.Project,
    run: ({ params, principal }) => Effect.flatMap(Projects, (s) => s.archive(principal, params.project_id!)) }),
  route({ method: "POST", path: "/projects/{project_id}/restore", operation: "projects.restore", tag: "Projects", summary: "Restore an archived project",
    status: 200, envelope: "resource", errors: SERVICE_ERRORS, resource: Schemas.Project,
    run: ({ params, principal }) => Effect.flatMap(Projects, (s) => s.restore(principal, params.project_id!)) }),

  route({ method: "GET", path: "/projects/{project_id}/overlaps", operation: "projects.get", tag: "Projects",
    summary: "List the projects sharing area with a project",
    description: "The account's other active and draft projects whose boundaries share at least 0.0001 ha with this project's, " +
      "with the shared area in geodesic hectares, in name order (an archived project, or one without a boundary, overlaps nothing). " +
      "Candidates come from the spatial index; one request examines at most 500 of them and spends at most 2 s measuring: a page " +
      "may then hold fewer rows than `per_page` (even none) while `has_more` is true. Walk pages with `cursor=<meta.next_cursor>` " +
      "(`page` > 1 is a 400 on `query.page`); `meta.total` is exact only when one request examined every candidate.", status: 200, envelope: "list",
    errors: SERVICE_ERRORS, query: ListProjectOverlaps, resource: Schemas.ProjectOverlap,
    run: ({ params, principal, query }) => Effect.flatMap(ProjectOverlaps, (s) => s.list(principal, params.project_id!, query)) }),

  // Boundary history (docs/decisions.md, "Boundary history")
  route({ method: "GET", path: "/projects/{project_id}/boundaries", operation: "projects.get", tag: "Projects",
    summary: "List a project's boundary versions, newest first",
    description: "Every change of the project's boundary (create, update, file import, dashboard, version restore) is a numbered " +
      "version: who made it (`changed_by`), when, how (`via`, and the file's format), and the hectares before and after. Listed " +
      "without the boundaries themselves; walk pages with `cursor=<meta.next_cursor>`. The newest 50 versions are kept.", status: 200, envelope: "list",
    errors: SERVICE_ERRORS, query: Schemas.ListBoundaryVersions, resource: Schemas.BoundaryVersionSummary,
    run: ({ params, principal, query }) => Effect.flatMap(BoundaryHistory, (s) => s.list(principal, params.project_id!, query)) }),
  route({ method: "GET", path: "/projects/{project_id}/boundaries/{version}", operation: "projects.get", tag: "Projects",
    summary: "Get one boundary version, with its boundary (GeoJSON)", status: 200, envelope: "resource", errors: SERVICE_ERRORS,
    resource: Schemas.BoundaryVersion,
    run: ({ params, principal }) => Effect.flatMap(BoundaryHistory, (s) => s.get(principal, params.project_id!, params.version!)) }),
  route({ method: "GET", path: "/projects/{project_id}/boundaries/{version}/export", operation: "projects.get", tag: "Projects",
    summary: "Export one boundary version as GeoJSON, KML, zipped Shapefile or GeoPackage",
    description: "The project with this version's boundary and hectares, as `GET /v1/projects/{project_id}/export` writes a project " +
      "(`format=geojson`, the default, `kml`, `shapefile` or `geopackage`), named `<slug>-v<version>`.", status: 200, envelope: "file", errors: SERVICE_ERRORS,
    query: Gis.ExportProjectQuery, produces: Gis.EXPORT_MEDIA_TYPES,
    run: ({ params, principal, query }) => exportVersion(principal, params.project_id!, params.version!, query) }),
  route({ method: "POST", path: "/projects/{project_id}/boundaries/{version}/restore", operation: "projects.update", tag: "Projects",
    summary: "Set a project's boundary back to a version's",
    description: "A boundary update as by `PUT /v1/projects/{project_id}` with the version's boundary: the plan's hectares, the " +
      "overlap comparison (`overlaps`, 409 under `overlap_policy: reject`) and `project.updated` apply, and the restore becomes " +
      "a new version (`via: version_restore`, `restored_from`). Answers the project.", status: 200, envelope: "resource", errors: SERVICE_ERRORS,
    resource: Schemas.Project,
    run: ({ params, principal }) => Effect.flatMap(BoundaryHistory, (s) => s.restore(principal, params.project_id!, params.version!)) }),

  // Vector tiles (docs/decisions.md, "Vector tiles")
  route({ method: "GET", path: "/tiles/{z}/{x}/{y}.mvt", operation: "projects.list", tag: "Projects", summary: "A vector tile of the account's projects",
    description: "A Mapbox Vector Tile (version 2, extent 4096) of the account's projects meeting tile z/x/y (XYZ, y from the north). " +
      `Up to ${Tiles.MAX_BOUNDARIES} projects: a \`projects\` layer of their boundaries, clipped to the tile and simplified for its zoom ` +
      `(largest first, up to ${Tiles.MAX_BOUNDARY_TEXT / 1024 / 1024} MiB of boundary text; the others as points in \`projects_points\`). ` +
      `More projects, up to ${Tiles.MAX_POINTS.toLocaleString("en")}: a \`projects_points\` layer only, the centres of their boxes. ` +
      "More still: a `projects_clusters` layer, one point per cell of a 16×16 to 32×32 grid over the tile, with the `count` of projects " +
      "and their `area_hectares`. Boundaries and points carry `id`, `name`, `status` and `area_hectares` (points also `count: 1`); " +
      "`X-Tile-Mode` (`boundaries`, `points` or `clusters`) says which layer. Revalidate with `If-None-Match`: the `ETag` changes with any write to a project of the tile " +
      "(304 when it has not). z from 0 to 22, x and y from 0 to 2^z − 1; otherwise 400 naming `path.z`, `path.x` or `path.y`.", status: 200, envelope: "file",
    errors: [...SERVICE_ERRORS, "BadRequest"], produces: [Tiles.MVT_MEDIA_TYPE], // (api/tiles.ts types its failure `unknown`: taken as the declared errors; one outside the table would answer 500)
    run: ({ params, principal }) =>
      Tiles.tileAnswer(principal, params) as Effect.Effect<Gis.FileAnswer, Errors.ErrorOf<typeof SERVICE_ERRORS[number] | "BadRequest">> }),

  // Assets
  route({ method: "GET", path: "/projects/{project_id}/assets", operation: "assets.list", tag: "Assets", summary: "List a project's assets", status: 200,
    envelope: "list", errors: SERVICE_ERRORS, query: Schemas.ListAssets, resource: Schemas.Asset,
    run: ({ params, principal, query }) => Effect.flatMap(Assets, (s) => s.list(principal, params.project_id!, query)) }),
  route({ method: "POST", path: "/projects/{project_id}/assets", operation: "assets.create", tag: "Assets", summary: "Create an asset", status: 201,
    envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.CreateAsset, resource: Schemas.Asset,
    run: ({ body, params, principal }) => Effect.flatMap(Assets, (s) => s.create(principal, params.project_id!, body)) }),
  route({ method: "GET", path: "/projects/{project_id}/assets/{asset_id}", operation: "assets.get", tag: "Assets", summary: "Get an asset", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, resource: Schemas.Asset,
    run: ({ params, principal }) => Effect.flatMap(Assets, (s) => s.get(principal, params.project_id!, params.asset_id!)) }),
  route({ method: "PUT", path: "/projects/{project_id}/assets/{asset_id}", operation: "assets.update", tag: "Assets", summary: "Update an asset (partial)",
    status: 200, envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.UpdateAsset, resource: Schemas.Asset,
    run: ({ body, params, principal }) => Effect.flatMap(Assets, (s) => s.update(principal, params.project_id!, params.asset_id!, body)) }),
  route({ method: "DELETE", path: "/projects/{project_id}/assets/{asset_id}", operation: "assets.delete", tag: "Assets", summary: "Delete an asset",
    status: 204, envelope: "empty", errors: SERVICE_ERRORS,
    run: ({ params, principal }) => Effect.flatMap(Assets, (s) => s.delete(principal, params.project_id!, params.asset_id!)) }),

  // Members
  route({ method: "GET", path: "/account/members", operation: "members.list", tag: "Members", summary: "List members", status: 200, envelope: "list",
    errors: SERVICE_ERRORS, resource: Schemas.Member, run: ({ principal }) => Effect.flatMap(Members, (s) => s.list(principal)) }),
  route({ method: "POST", path: "/account/members/invite", operation: "members.invite", tag: "Members", summary: "Invite a member",
    description: "Answers the member (status `invited`) with the invitation link's one-time `token` and `expires_at`, for delivering the invitation yourself.",
    status: 201, envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.InviteMember, resource: Schemas.InvitedMember,
    run: ({ body, principal }) =>
      Effect.map(Effect.flatMap(Members, (s) => s.invite(principal, body)), (r) => ({
        ...r.member,
        invitation: { token: r.invitation.token, expires_at: r.invitation.expires_at }
      })) }),
  route({ method: "PUT", path: "/account/members/{member_id}", operation: "members.update", tag: "Members", summary: "Change a member's role", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.UpdateMember, resource: Schemas.Member,
    run: ({ body, params, principal }) => Effect.flatMap(Members, (s) => s.update(principal, params.member_id!, body)) }),
  route({ method: "DELETE", path: "/account/members/{member_id}", operation: "members.remove", tag: "Members", summary: "Remove a member", status: 204,
    envelope: "empty", errors: SERVICE_ERRORS, run: ({ params, principal }) => Effect.flatMap(Members, (s) => s.remove(principal, params.member_id!)) }),

  // Account
  route({ method: "GET", path: "/account", operation: "account.get", tag: "Account", summary: "Get the account", status: 200, envelope: "resource",
    errors: SERVICE_ERRORS, resource: Schemas.Account, run: ({ principal }) => Effect.flatMap(Accounts, (s) => s.get(principal)) }),
  route({ method: "PUT", path: "/account", operation: "account.update", tag: "Account", summary: "Update the account (name, overlap policy)", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.UpdateAccount, resource: Schemas.Account,
    run: ({ body, principal }) => Effect.flatMap(Accounts, (s) => s.update(principal, body)) }),
  route({ method: "GET", path: "/account/usage", operation: "account.usage", tag: "Account", summary: "Usage statistics of the billing period", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, resource: Schemas.UsageStatistics,
    run: ({ principal }) => Effect.flatMap(Accounts, (s) => s.usage(principal)) }),

  // Webhooks
  route({ method: "GET", path: "/webhooks", operation: "webhooks.list", tag: "Webhooks", summary: "List webhooks", status: 200, envelope: "list",
    errors: SERVICE_ERRORS, resource: Schemas.Webhook, run: ({ principal }) => Effect.flatMap(Webhooks, (s) => s.list(principal)) }),
  route({ method: "POST", path: "/webhooks", operation: "webhooks.create", tag: "Webhooks", summary: "Create a webhook (the secret is returned only here)",
    status: 201, envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.CreateWebhook, resource: Schemas.Webhook,
    run: ({ body, principal }) => Effect.flatMap(Webhooks, (s) => s.create(principal, body)) }),
  route({ method: "GET", path: "/webhooks/{webhook_id}", operation: "webhooks.list", tag: "Webhooks", summary: "Get a webhook", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, resource: Schemas.Webhook,
    run: ({ params, principal }) => Effect.flatMap(Webhooks, (s) => s.get(principal, params.webhook_id!)) }),
  route({ method: "PUT", path: "/webhooks/{webhook_id}", operation: "webhooks.update", tag: "Webhooks", summary: "Update a webhook", status: 200,
    envelope: "resource", errors: SERVICE_ERRORS, body: Schemas.UpdateWebhook, resource: Schemas.Webhook,
    run: ({ body, params, principal }) => Effect.flatMap(Webhooks, (s) => s.update(principal, params.webhook_id!, body)) }),
  route({ method: "DELETE", path: "/webhooks/{webhook_id}", operation: "webhooks.delete", tag: "Webhooks", summary: "Delete a webhook", status: 204,
    envelope: "empty", errors: SERVICE_ERRORS, run: ({ params, principal }) => Effect.flatMap(Webhooks, (s) => s.delete(principal, params.webhook_id!)) }),
  route({ method: "GET", path: "/webhooks/{webhook_id}/logs", operation: "webhooks.logs", tag: "Webhooks", summary: "Delivery log, newest first", status: 200,
    envelope: "list", errors: SERVICE_ERRORS, query: Schemas.ListDeliveryLogs, resource: Schemas.DeliveryLog,
    run: ({ params, principal, query }) => Effect.flatMap(Webhooks, (s) => s.logs(principal, params.webhook_id!, query)) }),

  route({ method: "POST", path: "/webhooks/{webhook_id}/test", operation: "webhooks.test", tag: "Webhooks",
    summary: "Send a signed webhook.test event now; answers its log entry", status: 200, envelope: "resource", errors: SERVICE_ERRORS,
    resource: Schemas.DeliveryLog, run: ({ params, principal }) => Effect.flatMap(Deliveries, (s) => s.test(principal, params.webhook_id!)) }),
  route({ method: "POST", path: "/webhooks/{webhook_id}/logs/{log_id}/redeliver", operation: "webhooks.redeliver", tag: "Webhooks",
    summary: "Deliver a logged event again now (same event id, a new attempt); answers the new log entry", status: 200, envelope: "resource",
    errors: SERVICE_ERRORS, resource: Schemas.DeliveryLog,
    run: ({ params, principal }) => Effect.flatMap(Deliveries, (s) => s.redeliver(principal, params.webhook_id!, params.log_id!)) }),

  // Events (beyond the spec: catching up after an outage)
  route({ method: "GET", path: "/events", operation: "events.list", tag: "Events", summary: "List the account's events, newest first", status: 200,
    envelope: "list", errors: SERVICE_ERRORS, query: Schemas.ListEvents, resource: Schemas.Event,
    run: ({ principal, query }) => Effect.flatMap(Deliveries, (s) => s.listEvents(principal, query)) }),

  // Authentication check
  route({ method: "GET", path: "/auth/verify", operation: "auth.verify", tag: "Authentication", summary: "Check the presented token", status: 200,
    envelope: "resource", errors: [], resource: Schemas.Verification, run: ({ principal }) => Effect.succeed(Principal.verification(principal)) }),
  // The member behind the credential (docs/decisions.md, "GET /v1/me"): what the profile scope's consent promises.
  route({ method: "GET", path: "/me", operation: "auth.verify", tag: "Authentication",
    summary: "The member this credential acts for: id, name, email, role, account (OAuth tokens need the profile scope; a service token has none: 404)",
    status: 200, envelope: "resource", errors: SERVICE_ERRORS, resource: Me, run: ({ principal }) => Effect.flatMap(OAuthServer, (s) => s.me(principal)) })
]
