/**
 * Projects and assets: their enumerations, request bodies and list queries, and the resources as
 * returned (the fields kept as the store keeps them are the rows' own schemas).
 */
import { Schema, Struct } from "effect"
import { formatPath } from "../FieldError.ts"
import * as Geometry from "../Geometry.ts"
import * as Lifecycle from "../Lifecycle.ts"
import type { RawJson } from "../RawJson.ts"
import * as Slug from "../Slug.ts"
import { AssetRow, ProjectRow } from "../storage/projects.ts"
import { AnyObject, Description, documented, literal, Measure, Metadata, Name, newestFirst, Order, type Ordering, pageFields, paginated, SearchTerm,
  Timestamp } from "./common.ts"
import { Boundary, boundaryJsonSchema, DeferredBoundary, Point, pointJsonSchema } from "./geojson.ts"

/** Project status. */
export const ProjectStatus = literal(Lifecycle.statuses)
/** Asset types (DECISIONS). */
export const AssetType = literal(["equipment", "monitoring_station", "point_of_interest", "sensor", "other"])
export type AssetType = typeof AssetType.Type
/** Asset statuses (DECISIONS). */
export const AssetStatus = literal(["active", "inactive", "maintenance", "retired"])
export type AssetStatus = typeof AssetStatus.Type
/** Sort fields of the project list. */
export const ProjectSort = literal(["name", "created_at", "area_hectares"])

// ---------------------------------------------------------------------------------------------
// Request bodies and queries

const createProjectFields = <G extends Schema.Top>(geometry: G) => ({
  name: Name,
  description: Schema.optionalKey(Schema.NullOr(Description)),
  geometry: Schema.optionalKey(Schema.NullOr(geometry)),
  status: Schema.optionalKey(literal(["active", "draft"])),
  slug: Schema.optionalKey(Slug.Slug)
})

const updateProjectFields = <G extends Schema.Top>(geometry: G) => ({
  name: Schema.optionalKey(Name),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  geometry: Schema.optionalKey(Schema.NullOr(geometry)),
  status: Schema.optionalKey(ProjectStatus),
  slug: Schema.optionalKey(Slug.Slug)
})

/** POST /projects */
export const CreateProject = Schema.Struct(createProjectFields(Boundary))
export type CreateProject = typeof CreateProject.Type

/** PUT /projects/{id}: any subset; `description` and `geometry` may be null to clear them. */
export const UpdateProject = Schema.Struct(updateProjectFields(Boundary))
export type UpdateProject = typeof UpdateProject.Type

/**
 * `CreateProject` and `UpdateProject` with the geometry left unchecked (`DeferredBoundary`): what
 * the Projects service decodes before it checks the geometry through `GeometryCheck`.
 */
export const CreateProjectDeferred = Schema.Struct(createProjectFields(DeferredBoundary))
export const UpdateProjectDeferred = Schema.Struct(updateProjectFields(DeferredBoundary))

/** Projects: `created_at` by default; `order` defaults to asc for names, desc otherwise. */
export const projectOrdering = (q: { readonly sort?: string | undefined; readonly order?: "asc" | "desc" | undefined }): Ordering => {
  const sort = q.sort ?? "created_at"
  return { sort, order: q.order ?? (sort === "name" ? "asc" : "desc") }
}

/** `west,south,east,north` as a list query gives it (four decimal degrees); `parseBoxQuery` reads it. */
const boxPattern = /^\s*(-?[0-9.eE+-]+)\s*,\s*(-?[0-9.eE+-]+)\s*,\s*(-?[0-9.eE+-]+)\s*,\s*(-?[0-9.eE+-]+)\s*$/

/** The four numbers of a `bbox` query value, or why it is not one. */
export const parseBoxQuery = (s: string): readonly [number, number, number, number] | string => {
  const m = boxPattern.exec(s)
  const n = m ? [m[1], m[2], m[3], m[4]].map(Number) : []
  if (n.length !== 4 || n.some((x) => !Number.isFinite(x))) return "must be four numbers: west,south,east,north (degrees)"
  const [w, so, e, no] = n as [number, number, number, number]
  if (w < -180 || e > 180 || so < -90 || no > 90) return "must lie within longitudes -180 to 180 and latitudes -90 to 90"
  if (so > no) return "south must not exceed north"
  if (w > e) return "west must not exceed east (for an area across the antimeridian, ask for each side)"
  return [w, so, e, no]
}

/** The `bbox` filter of the project list. */
export const BoxQuery = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter((s: string) => typeof parseBoxQuery(s) !== "string" || (parseBoxQuery(s) as string), {
      toJsonSchema: () => ({ type: "string", pattern: "^-?[0-9.]+,-?[0-9.]+,-?[0-9.]+,-?[0-9.]+$" })
    })
  )
).annotate({
  description: "Only projects whose bounding box shares at least one point with this box: west,south,east,north in degrees (WGS84), edges included",
  examples: ["-122.6,37.6,-122.3,37.9"]
})

/** Most positions the geometry of an `intersects` filter may hold. */
export const MAX_INTERSECTS_POSITIONS = 1_000

const countPositions = (g: Geometry.Boundary | Geometry.Point): number =>
  g.type === "Point" ? 1 : (g.type === "Polygon" ? [g.coordinates] : g.coordinates).reduce((n, rings) => n + rings.reduce((m, r) => m + r.length, 0), 0)

/** The geometry of an `intersects` query value (GeoJSON Point, Polygon or MultiPolygon), or why it is not one. */
export const parseIntersectsQuery = (s: string): Geometry.Boundary | Geometry.Point | string => {
  let value: unknown
  try {
    value = JSON.parse(s)
  } catch {
    return "must be a GeoJSON Point, Polygon or MultiPolygon as JSON (URL-encoded)"
  }
  const type = (value as { type?: unknown } | null)?.type
  const problems = type === "Point" ? Geometry.pointProblems(value) : Geometry.problems(value)
  if (problems.length > 0) {
    const p = problems[0]!
    return `${p.path.length ? `${formatPath(p.path)}: ` : ""}${p.message}`
  }
  const g = value as Geometry.Boundary | Geometry.Point
  if (countPositions(g) > MAX_INTERSECTS_POSITIONS) return `must hold at most ${MAX_INTERSECTS_POSITIONS} positions (simplify it, or use bbox)`
  return g
}

/** The `intersects` filter of the project list. */
export const IntersectsQuery = Schema.String.pipe(
  // 1,000 positions at full double precision are about 40,000 characters
  Schema.check(Schema.isMaxLength(65_536)),
  Schema.check(Schema.makeFilter((s: string) => typeof parseIntersectsQuery(s) !== "string" || (parseIntersectsQuery(s) as string)))
).annotate({
  description: "Only projects whose boundary covers this GeoJSON Point (edges included) or shares area with this Polygon or " +
    `MultiPolygon (at most ${MAX_INTERSECTS_POSITIONS} positions), as URL-encoded JSON. Pages may hold fewer rows than per_page: ` +
    "follow next_cursor while has_more",
  examples: ["{\"type\":\"Point\",\"coordinates\":[-122.45,37.75]}"]
})

/** GET /projects */
export const ListProjects = paginated(Schema.Struct({
  ...pageFields,
  status: Schema.optionalKey(ProjectStatus),
  search: Schema.optionalKey(SearchTerm),
  bbox: Schema.optionalKey(BoxQuery),
  intersects: Schema.optionalKey(IntersectsQuery),
  sort: Schema.optionalKey(ProjectSort),
  order: Schema.optionalKey(Order)
}), projectOrdering).pipe(
  Schema.check(
    Schema.makeFilter((q: { readonly intersects?: string | undefined; readonly page?: number | undefined }) =>
      q.intersects === undefined || (q.page ?? 1) === 1 ||
      { path: ["page"], issue: "with intersects, pages are walked with cursor=<meta.next_cursor>" }
    )
  )
)
export type ListProjects = typeof ListProjects.Type

/** POST /projects/{id}/assets */
export const CreateAsset = Schema.Struct({
  name: Name,
  type: AssetType,
  location: Schema.optionalKey(Schema.NullOr(Point)),
  status: Schema.optionalKey(AssetStatus),
  metadata: Schema.optionalKey(Metadata)
})
export type CreateAsset = typeof CreateAsset.Type

/** PUT /projects/{id}/assets/{asset_id}: any subset; `location: null` clears it; `metadata` replaces. */
export const UpdateAsset = Schema.Struct({
  name: Schema.optionalKey(Name),
  type: Schema.optionalKey(AssetType),
  location: Schema.optionalKey(Schema.NullOr(Point)),
  status: Schema.optionalKey(AssetStatus),
  metadata: Schema.optionalKey(Metadata)
})
export type UpdateAsset = typeof UpdateAsset.Type

/** GET /projects/{id}/assets */
export const ListAssets = paginated(Schema.Struct({
  ...pageFields,
  type: Schema.optionalKey(AssetType),
  status: Schema.optionalKey(AssetStatus),
  search: Schema.optionalKey(SearchTerm)
}), newestFirst)
export type ListAssets = typeof ListAssets.Type

// ---------------------------------------------------------------------------------------------
// Resources

/** Another project sharing hectares with the one written. */
export const ProjectOverlap = Schema.Struct({
  project_id: Schema.String,
  name: Schema.String,
  overlap_hectares: Measure.annotate({ description: "The shared area in geodesic hectares, 4 decimals" })
}).annotate({ identifier: "ProjectOverlap" })

/** The overlap report of a write that set, changed or restored a boundary. */
export const OverlapReport = Schema.Struct({
  overlaps: Schema.Array(ProjectOverlap),
  complete: Schema.Boolean.annotate({
    description: "False when not every nearby project was compared (more than 50 of them, or the time budget ran out)"
  })
}).annotate({
  identifier: "OverlapReport",
  description:
    "Present in the answer of a create or update that set, changed or restored a boundary counted toward usage: the account's other active and draft projects whose boundaries share at least 0.0001 ha with it, largest first"
})

/**
 * Project (spec, plus `bbox`, and `overlaps` in write answers). `geometry` travels as its JSON text
 * inside the services (`RawJson`); the Promise facade hands over its value (`RawJson.Materialized`).
 */
export const Project = Schema.Struct({
  ...Struct.pick(ProjectRow.fields, ["id", "name", "slug", "description"]),
  geometry: Schema.NullOr(documented<Geometry.Boundary | RawJson>(boundaryJsonSchema)),
  area_hectares: Measure.annotate({ description: "Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary" }),
  bbox: Schema.NullOr(Schema.Tuple([Measure, Measure, Measure, Measure]).annotate({ description: "[west, south, east, north] in degrees" })),
  status: ProjectStatus,
  created_at: Timestamp,
  updated_at: Timestamp,
  overlaps: Schema.optionalKey(OverlapReport)
}).annotate({
  identifier: "Project",
  examples: [{
    id: "proj_9f2c1a7b4e",
    name: "Redwood Creek restoration",
    slug: "redwood-creek-restoration",
    description: null,
    geometry: { type: "Polygon", coordinates: [[[-122.5, 37.7], [-122.4, 37.7], [-122.4, 37.8], [-122.5, 37.8], [-122.5, 37.7]]] },
    area_hectares: 9790.1234,
    bbox: [-122.5, 37.7, -122.4, 37.8],
    status: "active",
    created_at: "2026-01-05T10:00:00.000Z",
    updated_at: "2026-01-05T10:00:00.000Z"
  }]
})
export type Project = typeof Project.Type

/** Asset (spec). */
export const Asset = Schema.Struct({
  ...Struct.pick(AssetRow.fields, ["id", "project_id", "name"]),
  type: AssetType,
  location: Schema.NullOr(documented<Geometry.Point>(pointJsonSchema)),
  status: AssetStatus,
  metadata: AnyObject("Free-form JSON object (any keys)"),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Asset" })
export type Asset = typeof Asset.Type
