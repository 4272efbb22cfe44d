/**
 * The OpenAPI 3.1 document of the v1 API, generated from the route table and the core's schemas.
 */
import { Idempotency, Permissions, Schemas } from "@canopy/core"
import { Schema } from "effect"
import { type Route, routes } from "./routes.ts"

type JsonSchema = Record<string, unknown>

const jsonSchema = (s: Schema.Top): JsonSchema => {
  const doc = Schema.toJsonSchemaDocument(s as never)
  return doc.schema as JsonSchema
}

const errorResponses = (route: Route): Record<string, unknown> => {
  const ref = { $ref: "#/components/responses/Error" }
  const out: Record<string, unknown> = { "401": ref, "403": ref, "404": ref, "429": ref, "500": ref }
  if (route.query || route.body || route.method === "POST") out["400"] = ref
  if (route.body || route.method === "POST") out["422"] = ref
  if (route.method === "POST" || ["projects.delete", "projects.archive", "projects.restore", "projects.create", "projects.update", "assets.create",
    "assets.update", "assets.delete", "members.invite", "members.update", "members.remove"].includes(route.operation)) out["409"] = ref
  return out
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
  schema: { type: "string", minLength: 1, maxLength: Idempotency.MAX_KEY_LENGTH, pattern: "^[\\x20-\\x7e]+$" }
}

const operationId = (r: Route) =>
  `${r.method.toLowerCase()}${r.path.replace(/\{(\w+)\}/g, "By_$1").split(/[/_-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}`

const successSchema = (r: Route): JsonSchema => {
  const resource = r.resource ? jsonSchema(r.resource) : {}
  const meta = r.envelope === "list"
    ? {
      type: "object",
      properties: {
        total: { type: "integer", description: "Matching rows; at least this many when total_exact is false" },
        total_exact: { type: "boolean", description: "False when counting stopped at 10,000 (filtered or searched lists)" },
        page: { type: ["integer", "null"], description: "The page served; null when walking by cursor" },
        per_page: { type: "integer" }, total_pages: { type: "integer" },
        has_more: { type: "boolean" },
        next_cursor: { type: ["string", "null"], description: "Pass as cursor= for the next page (same sort and order); null on the last page" },
        request_id: { type: "string" }, timestamp: { type: "string" }
      },
      required: ["total"]
    }
    : { type: "object", properties: { request_id: { type: "string" }, timestamp: { type: "string", format: "date-time" } }, required: ["request_id", "timestamp"] }
  return {
    type: "object",
    properties: { data: r.envelope === "list" ? { type: "array", items: resource } : resource, meta },
    required: ["data", "meta"]
  }
}

/**
 * The OpenAPI document. `server` is where the API is reached: the public URL, or the path Canopy
 * is mounted under (`/canopy`); default `/` (paths are `/v1/…` below it).
 */
export const document = (options: { readonly server?: string | undefined } = {}): Record<string, unknown> => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const path = `/v1${r.path}`
    const pathParams = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }))
    const queryParams = r.query
      ? Object.entries(((jsonSchema(r.query).properties ?? {}) as Record<string, JsonSchema>)).map(([name, schema]) => ({ name, in: "query", required: false, schema }))
      : []
    const need = Permissions.required[r.operation]
    paths[path] ??= {}
    paths[path][r.method.toLowerCase()] = {
      operationId: operationId(r),
      summary: r.summary,
      tags: [r.tag],
      description: need === "any" ? "Any valid token." : `Requires the \`${need}\` permission.`,
      security: [{ bearer: [] }],
      parameters: [...pathParams, ...queryParams, ...(r.method === "POST" ? [idempotencyKeyParameter] : [])],
      ...(r.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(r.body) } } } } : {}),
      responses: {
        [String(r.status)]: r.envelope === "empty"
          ? { description: "No content" }
          : { description: "Success", content: { "application/json": { schema: successSchema(r) } } },
        ...errorResponses(r)
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Canopy API",
      version: "1.0.0",
      description: "Forest projects with exact geodesic hectares, their assets, team, usage and webhooks. " +
        "Every response carries X-Request-Id; authenticated responses carry X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset."
    },
    servers: [{ url: options.server || "/" }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "API key, service token or OAuth access token" } },
      responses: {
        Error: { description: "Error", content: { "application/json": { schema: jsonSchema(Schemas.ErrorBody) } } }
      }
    }
  }
}
