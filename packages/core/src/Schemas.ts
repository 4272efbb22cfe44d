/**
 * Schemas for every resource and every request body and query of the spec, with DECISIONS'
 * limits. Request schemas decode what a caller sends; `decodeRequest` runs one and answers either
 * the value or every problem as `{ field, message }`.
 */
import { Result, Schema } from "effect"
import * as Cursor from "./Cursor.ts"
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

/**
 * A project boundary: GeoJSON Polygon or MultiPolygon, every problem reported at its path. The
 * check runs in place, synchronously, inside decoding: fine for a caller decoding a body itself.
 * The services decode with `DeferredBoundary` instead and check through `GeometryCheck`.
 */
export const Boundary = Schema.declare((_u: unknown): _u is Geometry.Boundary => true).pipe(
  Schema.check(Schema.makeFilter((u: unknown) => Geometry.problems(u).map((p) => ({ path: p.path, issue: p.message }))))
)

/**
 * A boundary left unchecked by decoding: any value passes, untouched and uncopied. The project
 * services decode bodies with it, so that decoding stays cheap whatever the geometry's size, and
 * then check the value through `GeometryCheck` (which the server runs off the event loop, within
 * a time budget); the problems come out exactly as `Boundary` reports them.
 */
export const DeferredBoundary = Schema.Unknown

/** An asset location: GeoJSON Point. */
export const Point = Schema.declare((_u: unknown): _u is Geometry.Point => true).pipe(
  Schema.check(Schema.makeFilter((u: unknown) => Geometry.pointProblems(u).map((p) => ({ path: p.path, issue: p.message }))))
)

/** Free-form metadata: a JSON object of at most 16 KiB. */
export const Metadata = Schema.Record(Schema.String, Schema.Unknown).pipe(
  Schema.check(Schema.makeFilter((m: Readonly<Record<string, unknown>>) => {
    const size = Buffer.byteLength(JSON.stringify(m), "utf8")
    return size <= limits.metadataBytes || `must be at most ${limits.metadataBytes} bytes as JSON, got ${size}`
  }))
)

/** An email address (normalised to lowercase by the services). */
export const Email = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) =>
    (s.length <= limits.email && emailPattern.test(s)) || "must be an email address"))
)

/** An integer query parameter, given as a number or as a decimal string. */
const queryInt = (min: number, max: number) =>
  Schema.Union([Schema.Number, Schema.NumberFromString]).pipe(
    Schema.check(Schema.makeFilter((n: number) =>
      (Number.isInteger(n) && n >= min && n <= max) || `must be an integer from ${min} to ${max}`))
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
// Resources as returned

const Timestamp = Schema.String
const NullableTimestamp = Schema.NullOr(Schema.String)

/** Project (spec, plus `bbox`). */
export const Project = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  geometry: Schema.NullOr(Schema.Unknown),
  area_hectares: Schema.Number,
  bbox: Schema.NullOr(Schema.Tuple([Schema.Number, Schema.Number, Schema.Number, Schema.Number])),
  status: ProjectStatus,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Project = typeof Project.Type

/** Asset (spec). */
export const Asset = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  name: Schema.String,
  type: AssetType,
  location: Schema.NullOr(Schema.Unknown),
  status: AssetStatus,
  metadata: Schema.Record(Schema.String, Schema.Unknown),
  created_at: Timestamp,
  updated_at: Timestamp
})
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
})
export type Member = typeof Member.Type

/** Account (spec). */
export const Account = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  type: Schema.Literal("team"),
  plan: Plan,
  usage: Schema.Struct({ hectares: Schema.Number, projects: Schema.Number, members: Schema.Number }),
  created_at: Timestamp
})
export type Account = typeof Account.Type

/** GET /account/usage (spec). */
export const UsageStatistics = Schema.Struct({
  period: Schema.Struct({ start: Timestamp, end: Timestamp }),
  hectares: Schema.Struct({ current: Schema.Number, limit: Schema.Number, percentage: Schema.Number }),
  projects: Schema.Struct({ active: Schema.Number, archived: Schema.Number, total: Schema.Number }),
  members: Schema.Struct({ current: Schema.Number, limit: Schema.Number }),
  api_requests: Schema.Struct({ current: Schema.Number, limit: Schema.Number })
})
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
  secret: Schema.optionalKey(Schema.String)
})
export type Webhook = typeof Webhook.Type

/** Delivery log entry (spec, plus `attempt` and `error_class`). */
export const DeliveryLog = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  status: DeliveryStatus,
  attempt: Schema.Number,
  response_code: Schema.NullOr(Schema.Number),
  response_time_ms: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String),
  error_class: Schema.NullOr(Schema.String),
  delivered_at: NullableTimestamp,
  next_retry_at: NullableTimestamp
})
export type DeliveryLog = typeof DeliveryLog.Type

/** GET /auth/verify (spec). */
export const Verification = Schema.Struct({
  valid: Schema.Boolean,
  type: literal(["api_key", "service_token", "oauth"]),
  permissions: Schema.Array(Schema.String),
  account_id: Schema.String,
  expires_at: NullableTimestamp
})
export type Verification = typeof Verification.Type

/** The spec's error body. */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    message: Schema.String,
    details: Schema.Array(Schema.Struct({ field: Schema.String, message: Schema.String }))
  }),
  meta: Schema.Struct({ request_id: Schema.String })
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

