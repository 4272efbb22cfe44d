/**
 * The OpenAPI 3.1 document of the v1 API, generated from the route table and the core's schemas:
 * named resources under `components.schemas` (by their `identifier`), each operation's error
 * responses from the errors its route answers (`answers`: rows of `Errors.table`, one response per
 * status, with the spec's error body and the row's headers), the headers every answer carries, both security schemes (bearer tokens and
 * OAuth 2.0 authorization code with its scopes), and the `webhooks` Canopy sends (openapiWebhooks.ts).
 */
import { Errors, Idempotency, Permissions, Plans, RateLimit, Schemas } from "@canopy/core"
import { Schema } from "effect"
import * as Gis from "./gis.ts"
import { webhookOperations } from "./openapiWebhooks.ts"
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
  [RateLimit.HEADERS.limit]: { $ref: `#/components/headers/${RateLimit.HEADERS.limit}` },
  [RateLimit.HEADERS.remaining]: { $ref: `#/components/headers/${RateLimit.HEADERS.remaining}` },
  [RateLimit.HEADERS.reset]: { $ref: `#/components/headers/${RateLimit.HEADERS.reset}` }
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
  const webhooks = webhookOperations((s) => jsonSchema(s, components))
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
        [RateLimit.HEADERS.limit]: header("Requests allowed per minute on the account's plan"),
        [RateLimit.HEADERS.remaining]: header("Requests left in the current window", { type: "integer", minimum: 0 }),
        [RateLimit.HEADERS.reset]: header("Seconds since the epoch when the window resets"),
        ...errors.headers
      },
      responses: errors.responses
    }
  }
}
