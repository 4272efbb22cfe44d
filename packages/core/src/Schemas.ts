/**
 * Schemas for every resource and every request body and query of the spec, with DECISIONS'
 * limits. Request schemas decode what a caller sends; `decodeRequest` runs one and answers either
 * the value or every problem as `{ field, message }`.
 */
import { type JsonSchema, Result, Schema } from "effect"
import * as Cursor from "./Cursor.ts"
import type * as Errors from "./Errors.ts"
import * as Events from "./Events.ts"
import { type FieldError, formatPath, fromSchemaError } from "./FieldError.ts"
import * as Geometry from "./Geometry.ts"
import * as Permissions from "./Permissions.ts"
import * as Plans from "./Plans.ts"
import * as Slug from "./Slug.ts"

// ---------------------------------------------------------------------------------------------
// Building blocks

/**
 * An email address as HTML's `<input type=email>` accepts it (the WHATWG rule: an ASCII local part
 * without quotes, spaces or angle brackets; a domain of LDH labels), with at least one dot in the
 * domain.
 */
const emailPattern =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/

/** Content limits (DECISIONS). */
export const limits = {
  name: 200,
  description: 5_000,
  metadataBytes: 16 * 1024,
  search: 200,
  searchMin: 3,
  maxOffset: 10_000,
  perPage: 100,
  defaultPerPage: 20,
  webhooksPerAccount: 25,
  email: 254,
  webhookSecretMin: 16,
  webhookSecretMax: 256,
  url: 2_048
} as const

/** A required human-readable name: not blank, at most 200 characters. */
export const Name = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => s.trim().length > 0 || "must not be empty")),
  Schema.check(Schema.makeFilter((s: string) => s.length <= limits.name || `must be at most ${limits.name} characters`))
)

/** A description: at most 5,000 characters. */
export const Description = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => s.length <= limits.description || `must be at most ${limits.description} characters`))
)

// GeoJSON as the API speaks it (RFC 7946), for the reference and the typed clients. What is
// accepted is decided by `Geometry.problems` / `Geometry.pointProblems`; these schemas describe it.

/** A position: `[longitude, latitude]`, optionally followed by an altitude that Canopy keeps but ignores. */
export const GeoJsonPosition = Schema.Array(Schema.Finite).pipe(
  Schema.check(Schema.isMinLength(2), Schema.isMaxLength(3))
).annotate({ identifier: "GeoJsonPosition", description: "[longitude, latitude] (WGS84 degrees), optionally with an altitude", examples: [[-122.4, 37.8]] })

/** A closed linear ring of at least 4 positions (first equals last). */
const GeoJsonLinearRing = Schema.Array(GeoJsonPosition).pipe(Schema.check(Schema.isMinLength(4)))
  .annotate({ description: "A closed ring: at least 4 positions, the last equal to the first; the first ring is the exterior, the others holes" })

/** GeoJSON Polygon. */
export const GeoJsonPolygon = Schema.Struct({
  type: Schema.Literal("Polygon"),
  coordinates: Schema.Array(GeoJsonLinearRing).pipe(Schema.check(Schema.isMinLength(1)))
}).annotate({
  identifier: "GeoJsonPolygon",
  description: "GeoJSON Polygon (RFC 7946 §3.1.6)",
  examples: [{ type: "Polygon", coordinates: [[[-122.5, 37.7], [-122.4, 37.7], [-122.4, 37.8], [-122.5, 37.8], [-122.5, 37.7]]] }]
})

/** GeoJSON MultiPolygon. */
export const GeoJsonMultiPolygon = Schema.Struct({
  type: Schema.Literal("MultiPolygon"),
  coordinates: Schema.Array(Schema.Array(GeoJsonLinearRing).pipe(Schema.check(Schema.isMinLength(1)))).pipe(Schema.check(Schema.isMinLength(1)))
}).annotate({ identifier: "GeoJsonMultiPolygon", description: "GeoJSON MultiPolygon (RFC 7946 §3.1.7)" })

/** GeoJSON Point. */
export const GeoJsonPoint = Schema.Struct({ type: Schema.Literal("Point"), coordinates: GeoJsonPosition })
  .annotate({ identifier: "GeoJsonPoint", description: "GeoJSON Point (RFC 7946 §3.1.2)", examples: [{ type: "Point", coordinates: [-122.45, 37.75] }] })

/** The GeoJSON schemas the documented geometry fields refer to, by identifier. */
export const geoJsonSchemas = { GeoJsonPosition, GeoJsonPolygon, GeoJsonMultiPolygon, GeoJsonPoint } as const

const ref = (id: keyof typeof geoJsonSchemas) => ({ $ref: `#/$defs/${id}` })

/** A value typed `T` whose JSON Schema is `jsonSchema` (a GeoJSON geometry held as checked JSON, or as `RawJson` text). */
const documented = <T>(jsonSchema: JsonSchema.JsonSchema) =>
  Schema.Any.pipe(Schema.refine((_u: unknown): _u is T => true, { toJsonSchema: () => jsonSchema }))

const boundaryJsonSchema: JsonSchema.JsonSchema = { anyOf: [ref("GeoJsonPolygon"), ref("GeoJsonMultiPolygon")], description: "GeoJSON Polygon or MultiPolygon in WGS84" }
const pointJsonSchema: JsonSchema.JsonSchema = ref("GeoJsonPoint")

/**
 * A project boundary: GeoJSON Polygon or MultiPolygon, every problem reported at its path. The
 * check runs in place, synchronously, inside decoding: fine for a caller decoding a body itself.
 * The services decode with `DeferredBoundary` instead and check through `GeometryCheck`.
 */
export const Boundary = Schema.Any.pipe(
  Schema.check(Schema.makeFilter((u: unknown) => Geometry.problems(u).map((p) => ({ path: p.path, issue: p.message })))),
  Schema.refine((_u: unknown): _u is Geometry.Boundary => true, { toJsonSchema: () => boundaryJsonSchema })
)

/**
 * A boundary left unchecked by decoding: any value passes, untouched and uncopied. The project
 * services decode bodies with it, so that decoding stays cheap whatever the geometry's size, and
 * then check the value through `GeometryCheck` (which the server runs off the event loop, within
 * a time budget); the problems come out exactly as `Boundary` reports them.
 */
export const DeferredBoundary = Schema.Unknown

/** An asset location: GeoJSON Point. */
export const Point = Schema.Any.pipe(
  Schema.check(Schema.makeFilter((u: unknown) => Geometry.pointProblems(u).map((p) => ({ path: p.path, issue: p.message })))),
  Schema.refine((_u: unknown): _u is Geometry.Point => true, { toJsonSchema: () => pointJsonSchema })
)

/** Free-form metadata: a JSON object of at most 16 KiB. */
export const Metadata = Schema.Record(Schema.String, Schema.Unknown).pipe(
  Schema.check(Schema.makeFilter((m: Readonly<Record<string, unknown>>) => {
    const size = Buffer.byteLength(JSON.stringify(m), "utf8")
    return size <= limits.metadataBytes || `must be at most ${limits.metadataBytes} bytes as JSON, got ${size}`
  }, { toJsonSchema: () => [{ additionalProperties: true }, true] }))
).annotate({ description: `Free-form JSON object (any keys), at most ${limits.metadataBytes} bytes as JSON`, examples: [{ serial: "WX-1042", height_m: 2.5 }] })

/** An email address (normalised to lowercase by the services). */
export const Email = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) =>
    (s.length <= limits.email && emailPattern.test(s)) || "must be an email address"))
)

/** An integer query parameter, given as a number or as a decimal string. */
const queryInt = (min: number, max: number) =>
  Schema.Union([Schema.Number, Schema.NumberFromString]).pipe(
    Schema.check(Schema.makeFilter((n: number) =>
      (Number.isInteger(n) && n >= min && n <= max) || `must be an integer from ${min} to ${max}`,
    // As it travels in a URL: an integer in the range (the reference keeps just this).
    { toJsonSchema: () => ({ type: "integer", minimum: min, maximum: max }) }))
  )

const literal = <const L extends ReadonlyArray<string>>(values: L) =>
  Schema.Literals(values).annotate({ message: `must be one of ${values.join(", ")}` })

/** Page number, from 1. */
export const Page = queryInt(1, 1_000_000)
/** Page size, 1 to 100. */
export const PerPage = queryInt(1, limits.perPage)
/** An opaque list cursor (a previous page's `meta.next_cursor`). */
export const ListCursor = Schema.String.pipe(Schema.check(Schema.isMaxLength(600)))
/** A search term: a case-insensitive substring, 3 to 200 characters (it runs on a trigram index). */
export const SearchTerm = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => s.length >= limits.searchMin || `must be at least ${limits.searchMin} characters`)),
  Schema.check(Schema.isMaxLength(limits.search))
)

// ---------------------------------------------------------------------------------------------
// Enumerations

/** Project status. */
export const ProjectStatus = literal(["active", "archived", "draft"])
/** Asset types (DECISIONS). */
export const AssetType = literal(["equipment", "monitoring_station", "point_of_interest", "sensor", "other"])
export type AssetType = typeof AssetType.Type
/** Asset statuses (DECISIONS). */
export const AssetStatus = literal(["active", "inactive", "maintenance", "retired"])
export type AssetStatus = typeof AssetStatus.Type
/** Member roles. */
export const Role = literal(Permissions.roles)
/** Roles an invitation may grant. */
export const InvitableRole = literal(Permissions.invitableRoles)
/** Plans. */
export const Plan = literal(Plans.plans)
/** Sort fields of the project list. */
export const ProjectSort = literal(["name", "created_at", "area_hectares"])
/** Sort order. */
export const Order = literal(["asc", "desc"])
/** A webhook subscription: an event type of the catalogue, or `*`. */
export const WebhookEvent = literal([...Events.types, "*"])
/** Delivery log statuses. */
export const DeliveryStatus = literal(["success", "failed", "pending", "canceled"])

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

/** A list's ordering: sort key and direction. */
export interface Ordering {
  readonly sort: string
  readonly order: "asc" | "desc"
}

/** Projects: `created_at` by default; `order` defaults to asc for names, desc otherwise. */
export const projectOrdering = (q: { readonly sort?: string | undefined; readonly order?: "asc" | "desc" | undefined }): Ordering => {
  const sort = q.sort ?? "created_at"
  return { sort, order: q.order ?? (sort === "name" ? "asc" : "desc") }
}

/** Assets, events and delivery logs: newest first. */
export const newestFirst = (): Ordering => ({ sort: "created_at", order: "desc" })

type PageQuery = { readonly page?: number | undefined; readonly per_page?: number | undefined; readonly cursor?: string | undefined }

/**
 * A list query with its pagination rules: `cursor` (a previous page's `meta.next_cursor`) or
 * `page`, not both; a cursor only with the ordering it was made for; page numbers reach at most
 * `limits.maxOffset` rows deep (deeper lists are walked with cursors, at O(log n) a page).
 */
const paginated = <S extends Schema.Codec<PageQuery, unknown>>(schema: S, ordering: (q: S["Type"]) => Ordering) =>
  schema.pipe(Schema.check(Schema.makeFilter((q: S["Type"]) => {
    const perPage = q.per_page ?? limits.defaultPerPage
    if (q.cursor !== undefined) {
      if (q.page !== undefined) return { path: ["cursor"], issue: "give either cursor or page, not both" }
      const at = Cursor.decode(q.cursor)
      if (!at) return { path: ["cursor"], issue: "is not a cursor this API returned (pass meta.next_cursor as it is)" }
      const o = ordering(q)
      if (at.sort !== o.sort || at.order !== o.order) {
        return { path: ["cursor"], issue: `was made for sort=${at.sort}&order=${at.order}; repeat those with it` }
      }
      return true
    }
    return (q.page ?? 1) * perPage <= limits.maxOffset ||
      { path: ["page"], issue: `pages reach at most ${limits.maxOffset} rows deep; walk further with cursor=<meta.next_cursor>` }
  })))

/** GET /projects */
export const ListProjects = paginated(Schema.Struct({
  page: Schema.optionalKey(Page),
  per_page: Schema.optionalKey(PerPage),
  cursor: Schema.optionalKey(ListCursor),
  status: Schema.optionalKey(ProjectStatus),
  search: Schema.optionalKey(SearchTerm),
  sort: Schema.optionalKey(ProjectSort),
  order: Schema.optionalKey(Order)
}), projectOrdering)
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
  page: Schema.optionalKey(Page),
  per_page: Schema.optionalKey(PerPage),
  cursor: Schema.optionalKey(ListCursor),
  type: Schema.optionalKey(AssetType),
  status: Schema.optionalKey(AssetStatus),
  search: Schema.optionalKey(SearchTerm)
}), newestFirst)
export type ListAssets = typeof ListAssets.Type

/** POST /account/members/invite */
export const InviteMember = Schema.Struct({ email: Email, role: InvitableRole })
export type InviteMember = typeof InviteMember.Type

/** PUT /account/members/{id} */
export const UpdateMember = Schema.Struct({ role: Role })
export type UpdateMember = typeof UpdateMember.Type

/** PUT /account */
export const UpdateAccount = Schema.Struct({ name: Name })
export type UpdateAccount = typeof UpdateAccount.Type

const WebhookUrl = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => {
    if (s.length > limits.url) return `must be at most ${limits.url} characters`
    try {
      const u = new URL(s)
      return u.protocol === "https:" || u.protocol === "http:" || "must be an https:// URL"
    } catch {
      return "must be an absolute URL"
    }
  }))
)
const WebhookEvents = Schema.Array(WebhookEvent).pipe(
  Schema.check(Schema.makeFilter((a: ReadonlyArray<string>) => a.length > 0 || "must list at least one event type, or \"*\""))
)
const WebhookSecret = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) =>
    (s.length >= limits.webhookSecretMin && s.length <= limits.webhookSecretMax) ||
    `must be ${limits.webhookSecretMin} to ${limits.webhookSecretMax} characters`))
)

/** POST /webhooks */
export const CreateWebhook = Schema.Struct({
  url: WebhookUrl,
  events: WebhookEvents,
  secret: Schema.optionalKey(WebhookSecret),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  enabled: Schema.optionalKey(Schema.Boolean)
})
export type CreateWebhook = typeof CreateWebhook.Type

/** PUT /webhooks/{id} */
export const UpdateWebhook = Schema.Struct({
  url: Schema.optionalKey(WebhookUrl),
  events: Schema.optionalKey(WebhookEvents),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  enabled: Schema.optionalKey(Schema.Boolean)
})
export type UpdateWebhook = typeof UpdateWebhook.Type

/** GET /webhooks/{id}/logs */
export const ListDeliveryLogs = paginated(Schema.Struct({
  page: Schema.optionalKey(Page),
  per_page: Schema.optionalKey(PerPage),
  cursor: Schema.optionalKey(ListCursor),
  status: Schema.optionalKey(DeliveryStatus),
  event_type: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isMaxLength(100))))
}), newestFirst)
export type ListDeliveryLogs = typeof ListDeliveryLogs.Type

const Timestamp8601 = Schema.String.pipe(Schema.check(Schema.makeFilter((s: string) =>
  !Number.isNaN(Date.parse(s)) || "must be an ISO 8601 timestamp")))

/** GET /events (beyond the spec: catching up after an outage) */
export const ListEvents = paginated(Schema.Struct({
  page: Schema.optionalKey(Page),
  per_page: Schema.optionalKey(PerPage),
  cursor: Schema.optionalKey(ListCursor),
  type: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isMaxLength(100)))),
  created_after: Schema.optionalKey(Timestamp8601),
  created_before: Schema.optionalKey(Timestamp8601)
}), newestFirst)
export type ListEvents = typeof ListEvents.Type

// ---------------------------------------------------------------------------------------------
// Resources as returned: the route table types each endpoint's answer with these, and the
// OpenAPI document names them (`identifier`) under `components.schemas`.

const Timestamp = Schema.String.annotate({ format: "date-time" })
const NullableTimestamp = Schema.NullOr(Timestamp)
/** A count: a non-negative integer. */
const Count = Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0)))
/** A measure (hectares, percent, milliseconds): a finite number, never NaN or Infinity. */
const Measure = Schema.Finite

/** Project (spec, plus `bbox`). `geometry` travels as its JSON text inside the services (`RawJson`). */
export const Project = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  geometry: Schema.NullOr(documented<unknown>(boundaryJsonSchema)),
  area_hectares: Measure.annotate({ description: "Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary" }),
  bbox: Schema.NullOr(Schema.Tuple([Measure, Measure, Measure, Measure]).annotate({ description: "[west, south, east, north] in degrees" })),
  status: ProjectStatus,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({
  identifier: "Project",
  examples: [{
    id: "proj_9f2c1a7b4e", name: "Redwood Creek restoration", slug: "redwood-creek-restoration", description: null,
    geometry: { type: "Polygon", coordinates: [[[-122.5, 37.7], [-122.4, 37.7], [-122.4, 37.8], [-122.5, 37.8], [-122.5, 37.7]]] },
    area_hectares: 9790.1234, bbox: [-122.5, 37.7, -122.4, 37.8], status: "active",
    created_at: "2026-01-05T10:00:00.000Z", updated_at: "2026-01-05T10:00:00.000Z"
  }]
})
export type Project = typeof Project.Type

/** Asset (spec). */
export const Asset = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  name: Schema.String,
  type: AssetType,
  location: Schema.NullOr(documented<unknown>(pointJsonSchema)),
  status: AssetStatus,
  metadata: Schema.Record(Schema.String, Schema.Unknown).pipe(Schema.check(Schema.makeFilter(() => true, { toJsonSchema: () => [{ additionalProperties: true }, true] })))
    .annotate({ description: "Free-form JSON object (any keys)" }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Asset" })
export type Asset = typeof Asset.Type

/** Member (spec, plus `status`: active or invited). */
export const Member = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: Role,
  permissions: Schema.Array(Schema.String),
  status: literal(["active", "invited"]),
  joined_at: NullableTimestamp,
  last_active_at: NullableTimestamp
}).annotate({ identifier: "Member" })
export type Member = typeof Member.Type

/**
 * The answer to an invitation: the member (status `invited`) and the one-time invitation link's
 * token and expiry, for delivering the invitation yourself.
 */
export const InvitedMember = Schema.Struct({
  ...Member.fields,
  invitation: Schema.Struct({
    token: Schema.String.annotate({ description: "One-time token of the invitation link (/invitations/accept?token=…); shown only here" }),
    expires_at: Timestamp
  })
}).annotate({ identifier: "InvitedMember" })
export type InvitedMember = typeof InvitedMember.Type

/** Account (spec). */
export const Account = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  type: Schema.Literal("team"),
  plan: Plan,
  usage: Schema.Struct({ hectares: Measure, projects: Count, members: Count }),
  created_at: Timestamp
}).annotate({ identifier: "Account" })
export type Account = typeof Account.Type

/** GET /account/usage (spec). */
export const UsageStatistics = Schema.Struct({
  period: Schema.Struct({ start: Timestamp, end: Timestamp }),
  hectares: Schema.Struct({ current: Measure, limit: Measure, percentage: Measure }),
  projects: Schema.Struct({ active: Count, archived: Count, total: Count }),
  members: Schema.Struct({ current: Count, limit: Count }),
  api_requests: Schema.Struct({ current: Count, limit: Count })
}).annotate({ identifier: "UsageStatistics" })
export type UsageStatistics = typeof UsageStatistics.Type

/** Webhook record (DECISIONS); `secret` only in the create response. */
export const Webhook = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String),
  disabled_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  secret: Schema.optionalKey(Schema.String.annotate({ description: "The signing secret: only in the create response" }))
}).annotate({ identifier: "Webhook" })
export type Webhook = typeof Webhook.Type

/** Delivery log entry (spec, plus `attempt` and `error_class`). */
export const DeliveryLog = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  status: DeliveryStatus,
  attempt: Count,
  response_code: Schema.NullOr(Count),
  response_time_ms: Schema.NullOr(Measure),
  error: Schema.NullOr(Schema.String),
  error_class: Schema.NullOr(Schema.String),
  delivered_at: NullableTimestamp,
  next_retry_at: NullableTimestamp
}).annotate({ identifier: "DeliveryLog" })
export type DeliveryLog = typeof DeliveryLog.Type

/** An event as webhooks receive it and `GET /events` lists it (`Events.Envelope`). */
export const Event = Schema.Struct({
  id: Schema.String,
  type: literal([...Events.types, Events.TEST_EVENT]),
  created_at: Timestamp,
  data: Schema.Record(Schema.String, Schema.Unknown).pipe(Schema.check(Schema.makeFilter(() => true, { toJsonSchema: () => [{ additionalProperties: true }, true] })))
    .annotate({ description: "The event's subject (project, asset, member, …) as of the event" }),
  account: Schema.Struct({ id: Schema.String, name: Schema.String })
}).annotate({ identifier: "Event" })
export type Event = typeof Event.Type

/** GET /auth/verify (spec). */
export const Verification = Schema.Struct({
  valid: Schema.Boolean,
  type: literal(["api_key", "service_token", "oauth"]),
  permissions: Schema.Array(Schema.String),
  account_id: Schema.String,
  expires_at: NullableTimestamp
}).annotate({ identifier: "Verification" })
export type Verification = typeof Verification.Type

/** Every error code (`Errors.Code`; the compiler checks the list is complete). */
const errorCodes = Object.keys({
  VALIDATION_ERROR: true, UNAUTHORIZED: true, FORBIDDEN: true, NOT_FOUND: true, CONFLICT: true, RATE_LIMITED: true, INTERNAL_ERROR: true
} as const satisfies Record<Errors.Code, true>) as ReadonlyArray<Errors.Code>

/** The spec's error body. */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literals(errorCodes),
    message: Schema.String,
    details: Schema.Array(Schema.Struct({ field: Schema.String, message: Schema.String }))
  }),
  meta: Schema.Struct({ request_id: Schema.String })
}).annotate({
  identifier: "Error",
  examples: [{ error: { code: "VALIDATION_ERROR", message: "The request body is invalid", details: [{ field: "name", message: "must not be empty" }] }, meta: { request_id: "req_1a2b3c4d5e" } }]
})
export type ErrorBody = typeof ErrorBody.Type

// ---------------------------------------------------------------------------------------------
// Decoding

/**
 * Decodes a request value against a schema, reporting every problem with its field path
 * (below `prefix`, e.g. `["query"]`).
 */
export const decodeRequest = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema as Schema.Decoder<S["Type"]>)
  return (input: unknown, prefix: ReadonlyArray<PropertyKey> = []): Result.Result<S["Type"], ReadonlyArray<FieldError>> => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return Result.fail([{ field: prefix.length ? String(prefix[0]) : "body", message: "must be a JSON object" }])
    }
    const unfit = textProblems(input, prefix)
    if (unfit.length > 0) return Result.fail(unfit)
    const result = decode(input, { errors: "all", onExcessProperty: "ignore" })
    return Result.isSuccess(result) ? Result.succeed(result.success) : Result.fail(fromSchemaError(result.failure, prefix))
  }
}

/** Deepest nesting of objects and arrays a request body or query may have. */
export const MAX_DEPTH = 32

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Why a string cannot be stored as text on every store, or undefined when it can. */
const textProblem = (s: string): string | undefined =>
  s.includes("\u0000") ? "must not contain NUL characters (U+0000)"
    : loneSurrogate.test(s) ? "must be valid Unicode text (it holds a lone surrogate)"
    : undefined

/**
 * Problems no schema should meet: nesting deeper than `MAX_DEPTH`, and strings (values or keys)
 * holding NUL or lone surrogates, which PostgreSQL refuses and other stores would alter. Walks
 * without recursion, at most 10 problems; a top-level `geometry` is left to the boundary's own
 * checks (numbers only, fixed depth, and possibly 100,000 positions long).
 */
const textProblems = (input: object, prefix: ReadonlyArray<PropertyKey>): Array<FieldError> => {
  const problems: Array<FieldError> = []
  const stack: Array<readonly [unknown, ReadonlyArray<PropertyKey>]> = [[input, []]]
  while (stack.length > 0 && problems.length < 10) {
    const [value, path] = stack.pop()!
    const field = () => formatPath([...prefix, ...path]) || "body"
    if (typeof value === "string") {
      const problem = textProblem(value)
      if (problem) problems.push({ field: field(), message: problem })
    } else if (typeof value === "object" && value !== null) {
      if (path.length >= MAX_DEPTH) {
        problems.push({ field: field(), message: `nests deeper than ${MAX_DEPTH} levels` })
        continue
      }
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], [...path, i]])
      } else {
        for (const [key, child] of Object.entries(value)) {
          if (path.length === 0 && key === "geometry") continue
          const problem = textProblem(key)
          if (problem) problems.push({ field: formatPath([...prefix, ...path]) || "body", message: `has a key that ${problem}` })
          else stack.push([child, [...path, key]])
        }
      }
    }
  }
  return problems
}

