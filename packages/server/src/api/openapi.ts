/**
 * The OpenAPI 3.1 document of the v1 API, generated from the route table and the core's schemas:
 * named resources under `components.schemas` (by their `identifier`), each operation's error
 * responses from the errors its route answers (`answers`: rows of `Errors.table`, one response per
 * status, with the spec's error body and the row's headers), the headers every answer carries, both security schemes (bearer tokens and
 * OAuth 2.0 authorization code with its scopes), and the `webhooks` Canopy sends.
 */
import { Errors, Events, Idempotency, Permissions, Plans, Schemas } from "@canopy/core"
import { Schema } from "effect"
import * as Gis from "./gis.ts"
import { answers, type Route, routes } from "./routes.ts"
import * as Tiles from "./tiles.ts"

type JsonSchema = Record<string, unknown>

/** Named schemas collected while the document is built (`components.schemas`). */
type Components = Record<string, JsonSchema>

const COMPONENTS = "#/components/schemas/"

/** Rewrites `#/$defs/X` references to `components.schemas`, dropping Effect's `Encoded` suffix. */
const componentName = (def: string) => def.replace(/Encoded$/, "")
const relink = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(relink)
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/") ? COMPONENTS + componentName(v.slice("#/$defs/".length)) : relink(v)
    }
    // An open object says so: openapi-typescript reads a bare `type: object` as having no keys.
    if (out.type === "object" && !("properties" in out) && !("additionalProperties" in out) && Array.isArray(out.allOf) &&
      out.allOf.every((x) => x && typeof x === "object" && (x as JsonSchema).additionalProperties === true)) {
      const described = out.allOf.find((x) => typeof (x as JsonSchema).description === "string") as JsonSchema | undefined
      delete out.allOf
      out.additionalProperties = true
      if (described && !("description" in out)) out.description = described.description
    }
    return out
  }
  return value
}

/** The JSON Schema of `s`, its named parts put into `components`. */
const jsonSchema = (s: Schema.Top, components: Components): JsonSchema => {
  const doc = Schema.toJsonSchemaDocument(s as never)
  for (const [name, def] of Object.entries(doc.definitions ?? {})) components[componentName(name)] ??= relink(def) as JsonSchema
  return relink(doc.schema) as JsonSchema
}

/** A query parameter's schema as it travels in the URL: a number check's own form when it has one. */
const queryParameterSchema = (schema: JsonSchema): JsonSchema => {
  if (schema.type === "integer" && Array.isArray(schema.anyOf)) {
    const { anyOf: _anyOf, ...rest } = schema
    return rest
  }
  return schema
}

const header = (description: string, schema: JsonSchema = { type: "integer" }) => ({ description, schema })

/** Headers on every answer of an authenticated operation. */
const commonHeaders = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" }
}

/** Named error responses and their headers, collected while the document is built. */
interface ErrorComponents {
  readonly responses: Record<string, unknown>
  readonly headers: Record<string, unknown>
}

/**
 * The response of one status that `tags` (rows of one status, in the table's order) share, as a
 * component named after them (`Conflict`, `ConflictOrIdempotencyKeyInProgress`): every row's
 * meaning and example, and the headers every one of them carries.
 */
const errorComponent = (tags: ReadonlyArray<Errors.Tag>, errorSchema: JsonSchema, into: ErrorComponents) => {
  const name = tags.join("Or")
  const rows = tags.map((t) => [t, Errors.table[t] as Errors.Row<Errors.AnyError>] as const)
  const body = (row: Errors.Row<Errors.AnyError>) => ({ error: { code: row.code, message: row.example, details: [] }, meta: { request_id: "req_1a2b3c4d5e" } })
  const shared = Object.keys(rows[0]![1].headers ?? {}).filter((h) => rows.every(([, r]) => r.headers?.[h] !== undefined))
  for (const h of shared) {
    const { description, schema } = rows[0]![1].headers![h]!
    into.headers[h] ??= { description, schema }
  }
  into.responses[name] ??= {
    description: rows.map(([, r]) => r.description).join("; or: "),
    headers: { "X-Request-Id": commonHeaders["X-Request-Id"], ...Object.fromEntries(shared.map((h) => [h, { $ref: `#/components/headers/${h}` }])) },
    content: {
      "application/json": {
        schema: errorSchema,
        ...(rows.length === 1
          ? { example: body(rows[0]![1]) }
          : { examples: Object.fromEntries(rows.map(([t, r]) => [t, { summary: r.description, value: body(r) }])) })
      }
    }
  }
  return { $ref: `#/components/responses/${name}` }
}

/** The error responses of an operation: every error its route answers (`answers`), one response per status. */
const errorResponses = (route: Route, errorSchema: JsonSchema, into: ErrorComponents): Record<string, unknown> => {
  const byStatus = new Map<number, Array<Errors.Tag>>()
  for (const tag of answers(route)) {
    const status = Errors.table[tag].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), tag])
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, tags]) => [String(status), errorComponent(tags, errorSchema, into)]))
}

/** The `Idempotency-Key` header every POST accepts (docs/decisions.md, "Idempotency keys"). */
const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path " +
    "and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work " +
    "being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first " +
    "request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are " +
    "not kept (the key may be retried).",
  schema: { type: "string", minLength: 1, maxLength: Idempotency.MAX_KEY_LENGTH, pattern: "^[\\x20-\\x7e]+$" },
  example: "3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15"
}

/** The path parameters of a tile address (XYZ). */
const TILE_PARAMETERS: Readonly<Record<string, string>> = {
  z: "The zoom, 0 to 22",
  x: "The tile's column, 0 to 2^z − 1 (from the west)",
  y: "The tile's row, 0 to 2^z − 1 (from the north)"
}

const operationId = (r: Route) =>
  `${r.method.toLowerCase()}${r.path.replace(/\{(\w+)\}/g, "By_$1").split(/[/_.-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}`

const responseMeta = {
  type: "object",
  properties: { request_id: { type: "string" }, timestamp: { type: "string", format: "date-time" } },
  required: ["request_id", "timestamp"]
}

const listMeta = {
  type: "object",
  properties: {
    total: { type: "integer", minimum: 0, description: "Matching rows; at least this many when total_exact is false" },
    total_exact: { type: "boolean",
      description: `False when counting stopped at ${Schemas.limits.maxOffset.toLocaleString("en")} (filtered or searched lists)` },
    page: { type: ["integer", "null"], minimum: 1, description: "The page served; null when walking by cursor" },
    per_page: { type: "integer", minimum: 1, maximum: Schemas.limits.perPage },
    total_pages: { type: "integer", minimum: 0 },
    has_more: { type: "boolean" },
    next_cursor: { type: ["string", "null"], description: "Pass as cursor= for the next page (same sort and order); null on the last page" },
    request_id: { type: "string" },
    timestamp: { type: "string", format: "date-time" }
  },
  required: ["total", "request_id", "timestamp"]
}

const successSchema = (r: Route, components: Components): JsonSchema => {
  const resource = r.resource ? jsonSchema(r.resource, components) : {}
  return {
    type: "object",
    properties: {
      data: r.envelope === "list" ? { type: "array", items: resource } : resource,
      meta: { $ref: `${COMPONENTS}${r.envelope === "list" ? "ListMeta" : "ResponseMeta"}` }
    },
    required: ["data", "meta"]
  }
}

/** The example a resource schema carries, wrapped as the operation answers it. */
const successExample = (r: Route): unknown => {
  const examples = (r.resource?.ast as { annotations?: { examples?: ReadonlyArray<unknown> } } | undefined)?.annotations?.examples
  if (!examples?.[0]) return undefined
  const meta = { request_id: "req_1a2b3c4d5e", timestamp: "2026-01-05T10:00:00.000Z" }
  return r.envelope === "list"
    ? { data: [examples[0]],
      meta: { total: 1, total_exact: true, page: 1, per_page: Schemas.limits.defaultPerPage, total_pages: 1, has_more: false, next_cursor: null, ...meta } }
    : { data: examples[0], meta }
}

/** Each OAuth scope with the words the consent page shows for it. */
const scopeDescriptions: Record<string, string> = Object.fromEntries(Permissions.scopes.map((s) => [s, Permissions.scopeWords[s]]))

const webhookDescription = [
  "Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with",
  "backoff until the receiver answers 2xx. Each request is signed twice:",
  "",
  "- `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret",
  "  (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.",
  "- Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over",
  "  `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject",
  "  timestamps more than 5 minutes old to stop replays.",
  "",
  "`X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and",
  "redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards."
].join("\n")

const webhookHeaders = [
  { name: "X-Service-Signature", description: "sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret>",
    schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" } },
  { name: "X-Service-Event-Id", description: "The event's id (stable across retries)", schema: { type: "string" } },
  { name: "X-Service-Event-Type", description: "The event's type", schema: { type: "string" } },
  { name: "webhook-id", description: "Standard Webhooks: the event's id", schema: { type: "string" } },
  { name: "webhook-timestamp", description: "Standard Webhooks: seconds since the epoch when sent", schema: { type: "string", pattern: "^[0-9]+$" } },
  { name: "webhook-signature", description: "Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body>", schema: { type: "string" } }
]

// Examples of event data, built with the payload builders the services use (`Events`).
const exampleAccount = { id: "acc_cnyzgxahr83pt8h0fdr7mjgxtx", name: "Redwood Trust" }
const at = (hour: number) => `2026-01-05T${String(hour).padStart(2, "0")}:00:00.000Z`
const exampleBoundary = { type: "Polygon", coordinates: [[[-122.5, 37.7], [-122.49, 37.7], [-122.49, 37.71], [-122.5, 37.71], [-122.5, 37.7]]] }
const exampleProject = {
  id: "proj_cpn7g1n76j40zpy591rjehchc7",
  name: "Redwood Creek restoration",
  slug: "redwood-creek-restoration",
  description: "Riparian replanting along the lower creek",
  geometry: exampleBoundary,
  area_hectares: 97.8753,
  bbox: [-122.5, 37.7, -122.49, 37.71],
  status: "active",
  created_at: at(1),
  updated_at: at(3)
}
const exampleAsset = {
  id: "asset_c6we7fv2yqf4kw702f0h078t0p",
  project_id: exampleProject.id,
  name: "Weather station 3",
  type: "monitoring_station",
  location: { type: "Point", coordinates: [-122.495, 37.705] },
  status: "maintenance",
  metadata: { serial: "WS-2291" },
  created_at: at(2),
  updated_at: at(3)
}
const exampleMember = (role: Permissions.Role, status: "active" | "invited") => ({
  id: "user_gnx8ec3qsjjwwvawzk281pqeh7",
  email: "ivy@redwood.example",
  name: status === "active" ? "Ivy Chen" : null,
  role,
  permissions: [...Permissions.byRole[role]],
  status,
  joined_at: status === "active" ? at(2) : null,
  last_active_at: status === "active" ? at(3) : null
})
const eventExamples: Record<Events.EventType | typeof Events.TEST_EVENT, unknown> = {
  "project.created": Events.projectCreated(exampleProject, { id: "user_ada0sx82jar9qhk1qvqfafr1bw", email: "maya@redwood.example" }),
  "project.updated": exampleProject,
  "project.archived": { ...exampleProject, status: "archived" },
  "project.restored": exampleProject,
  "project.deleted": { ...exampleProject, status: "archived" },
  "project.overlap_detected": Events.overlapDetected(exampleProject, {
    overlaps: [{ project_id: "proj_gpzgr5j2m31px2xs6t4hrzzk28", name: "Upper Redwood Creek", overlap_hectares: 24.4689 }],
    complete: true
  }),
  "asset.created": Events.assetCreated({ ...exampleAsset, status: "active" }),
  "asset.updated": exampleAsset,
  "asset.deleted": exampleAsset,
  "asset.status_changed": Events.assetStatusChanged(exampleAsset, "active"),
  "member.invited": exampleMember("editor", "invited"),
  "member.joined": Events.memberJoined(exampleMember("editor", "active")),
  "member.updated": { ...exampleMember("admin", "active"), previous_role: "editor" },
  "member.removed": exampleMember("admin", "active"),
  // Billing events carry what the embedding application's integration passes: these are illustrations.
  "subscription.created": { plan: "pro", external_id: "sub_2026_0042" },
  "subscription.updated": { account_id: exampleAccount.id, plan: "pro", previous_plan: "free" },
  "subscription.canceled": { plan: "pro", external_id: "sub_2026_0042" },
  "invoice.paid": { amount: 4900, currency: "eur", invoice_number: "2026-0107" },
  "invoice.failed": { amount: 4900, currency: "eur", invoice_number: "2026-0107" },
  "usage.threshold_reached": Events.thresholdReached("hectares", 90, 912.4821, 1000, { start: "2026-01-01T00:00:00.000Z", end: "2026-02-01T00:00:00.000Z" }),
  "usage.limit_exceeded": Events.limitExceeded("members", 3, 4, 3),
  "import.completed": {
    id: "imp_7m2k9q4xw1c8n5r3t6v0b2d4fh",
    status: "completed",
    mode: "per_feature",
    file: { name: "stands-2026.zip", format: "shapefile", source_crs: "ETRS89 / UTM zone 32N" },
    features: 412,
    created: 409,
    refused: 3,
    hectares: 2315.0417,
    error: null,
    completed_at: at(4)
  },
  [Events.TEST_EVENT]: Events.testData("wh_jb9k69k2fj86ycgq4zftg8f7ex")
}

/**
 * The OpenAPI document. `server` is where the API is reached: the public URL, or the path Canopy
 * is mounted under (`/canopy`); default `/` (paths are `/v1/…` below it). OAuth endpoints are
 * named below it too.
 */
export const document = (options: { readonly server?: string | undefined } = {}): Record<string, unknown> => {
  const server = options.server || "/"
  const base = server.replace(/\/+$/, "")
  const components: Components = {}
  for (const s of Object.values(Schemas.geoJsonSchemas)) jsonSchema(s, components)
  const errorSchema = jsonSchema(Schemas.ErrorBody, components)
  const errors: ErrorComponents = { responses: {}, headers: {} }
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const path = `/v1${r.path}`
    const pathParams = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      description: TILE_PARAMETERS[m[1]!] ?? `The ${m[1]!.replace(/_id$/, "").replace(/_/g, " ")}'s id`,
      schema: { type: "string" }
    }))
    const query = r.query ? jsonSchema(r.query, components) : {}
    const queryParams = Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)
      .map(([name, schema]) => ({ name, in: "query", required: ((query.required ?? []) as Array<string>).includes(name),
        schema: queryParameterSchema(schema) })
      )
    const need = Permissions.required[r.operation]
    const scopes = (Permissions.scopes as ReadonlyArray<string>).includes(need) ? [need] : []
    const example = successExample(r)
    const tile = r.produces?.includes(Tiles.MVT_MEDIA_TYPE) === true
    paths[path] ??= {}
    paths[path][r.method.toLowerCase()] = {
      operationId: operationId(r),
      summary: r.summary,
      tags: [r.tag],
      description: [need === "any" ? "Any valid token." : `Requires the \`${need}\` permission.`, r.description].filter(Boolean).join("\n\n"),
      security: [{ bearer: [] }, { oauth2: scopes }],
      parameters: [...pathParams, ...queryParams, ...(r.method === "POST" ? [idempotencyKeyParameter] : []), ...(tile ? Tiles.openapiParameters : [])],
      ...(r.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(r.body, components) } } } } : {}),
      ...(r.rawBody ? { requestBody: Gis.openapiRequestBody(r.rawBody) } : {}),
      responses: {
        [String(r.status)]: r.envelope === "empty"
          ? { description: "No content", headers: commonHeaders }
          : r.envelope === "file"
          ? Gis.openapiFileResponse(r.produces ?? [], commonHeaders, r.path === "/projects/export", (s) => jsonSchema(s, components))
          : {
            description: "Success",
            headers: commonHeaders,
            content: { "application/json": { schema: successSchema(r, components), ...(example ? { example } : {}) } }
          },
        ...(tile ? Tiles.openapiResponses(commonHeaders) : {}),
        ...errorResponses(r, errorSchema, errors)
      }
    }
  }
  const eventSchema = jsonSchema(Schemas.Event, components)
  const webhooks = Object.fromEntries(([...Events.types, Events.TEST_EVENT] as const).map((type) => {
    const { description, schema } = Schemas.eventData[type]
    return [type, {
      post: {
        operationId: `webhook${type.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}`,
        summary: `${type} event`,
        description: `${description}\n\n${webhookDescription}`,
        tags: ["Webhook events"],
        // Canopy authenticates itself to the receiver by the signatures, not by a credential.
        security: [],
        parameters: webhookHeaders.map((h) => ({ ...h, in: "header", required: true })),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { allOf: [eventSchema, { type: "object", properties: { type: { const: type }, data: jsonSchema(schema, components) } }] },
              example: { id: "evt_s229rws6d8r1ef7w2kxqaqtfwj", type, created_at: at(3), data: eventExamples[type], account: exampleAccount }
            }
          }
        },
        responses: { "200": { description: "Received (any 2xx); anything else is retried" } }
      }
    }]
  }))
  return {
    openapi: "3.1.0",
    info: {
      title: "Canopy API",
      version: "1.0.0",
      description: "Forest projects with exact geodesic hectares, their assets, team, usage and webhooks.\n\n" +
        "Every response carries `X-Request-Id`; authenticated responses carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and " +
        "`X-RateLimit-Reset`, and a 429 also `Retry-After` (requests per minute by default: " +
        `${Plans.plans.map((p) => `${p} ${Plans.defaults[p].requestsPerMinute}`).join(", ")}). ` +
        "Errors answer `{ error: { code, message, details }, meta: { request_id } }`.",
      license: { name: "MIT", identifier: "MIT" }
    },
    servers: [{ url: server }],
    tags: [
      { name: "Projects", description: "Forest projects and their boundaries (GeoJSON Polygon or MultiPolygon, WGS84)" },
      { name: "Assets", description: "Equipment, stations and points of interest inside a project" },
      { name: "Members", description: "The account's team" },
      { name: "Account", description: "The account, its plan and usage" },
      { name: "Webhooks", description: "Endpoints that receive events, and their delivery logs" },
      { name: "Events", description: "The account's events, for catching up after an outage" },
      { name: "Authentication", description: "The presented credential and the member behind it" },
      { name: "Webhook events", description: "What Canopy sends to webhooks, and how to verify it" }
    ],
    paths,
    webhooks,
    components: {
      schemas: { ...components, ResponseMeta: responseMeta, ListMeta: listMeta },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "API key, service token or OAuth access token: `Authorization: Bearer <token>`" },
        oauth2: {
          type: "oauth2",
          description: "OAuth 2.0 authorization code with PKCE (S256) for applications registered by an account admin; " +
            "public clients use PKCE without a secret. The access token is sent as a bearer token.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/oauth/authorize`,
              tokenUrl: `${base}/oauth/token`,
              refreshUrl: `${base}/oauth/token`,
              scopes: scopeDescriptions
            }
          }
        }
      },
      headers: {
        "X-Request-Id": header("The request's id: quote it when reporting a problem", { type: "string" }),
        "X-RateLimit-Limit": header("Requests allowed per minute on the account's plan"),
        "X-RateLimit-Remaining": header("Requests left in the current window", { type: "integer", minimum: 0 }),
        "X-RateLimit-Reset": header("Seconds since the epoch when the window resets"),
        ...errors.headers
      },
      responses: errors.responses
    }
  }
}
