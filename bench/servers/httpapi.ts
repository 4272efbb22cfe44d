/**
 * A prototype of Canopy's `/v1` read path on `@effect/platform-node` and effect's `HttpApi`, for
 * the HTTP stack benchmark (`bench/httpapi.ts`): `GET /v1/projects/{project_id}` and
 * `GET /v1/projects` with Canopy's own request work (bearer token, rate limit and usage count,
 * permission check, then the rows from Canopy's services over a SQLite file), each endpoint
 * declaring its path, query, success and error schemas. Answers the spec's envelopes and error
 * bodies with `X-Request-Id` and the rate-limit headers. Prints its port.
 *
 * `HTTPAPI_RESPONSES=spliced`: a success is written as Canopy writes it (`RawJson.stringify`, a
 * boundary's stored JSON text spliced in unparsed) instead of through the success schema's
 * encoder and `JSON.stringify` (which parses every boundary to serialise it again).
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { Accounts, Canopy, Credentials, Errors, FieldError, Ids, Principal, Projects, type RateLimit, RawJson, Schemas, Settings } from "@canopy/core"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity } from "effect/http-api"
import { createServer } from "node:http"

// As `canopy serve` does (ownProcessDefaults): no stack trace is captured.
Error.stackTraceLimit = 0

/** Headers an answer may carry. */
const ResponseHeaders = Schema.Struct({
  "x-request-id": Schema.String,
  "x-content-type-options": Schema.optionalKey(Schema.String),
  "x-ratelimit-limit": Schema.optionalKey(Schema.String),
  "x-ratelimit-remaining": Schema.optionalKey(Schema.String),
  "x-ratelimit-reset": Schema.optionalKey(Schema.String),
  "retry-after": Schema.optionalKey(Schema.String),
  "www-authenticate": Schema.optionalKey(Schema.String)
})
type ResponseHeaders = typeof ResponseHeaders.Type

const FieldErrorSchema = Schema.Struct({ field: Schema.String, message: Schema.String })

/** The spec's error body. */
const ErrorBody = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.String, details: Schema.Array(FieldErrorSchema) }),
  meta: Schema.Struct({ request_id: Schema.String })
})

const failureFields = { code: Schema.String, message: Schema.String, details: Schema.Array(FieldErrorSchema), headers: ResponseHeaders }

/** A failure answered with `status`: the handlers' value, the spec's error body and headers on the wire. */
const apiError = <const Tag extends string>(tag: Tag, status: number) =>
  Schema.TaggedStruct(tag, failureFields).pipe(HttpApiSchema.encodeToWithHeaders(
    { body: ErrorBody.pipe(HttpApiSchema.status(status)), headers: ResponseHeaders.fields },
    {
      decode: ({ body, headers }) => ({ _tag: tag, ...body.error, headers }),
      encode: ({ code, details, headers, message }) => ({ body: { error: { code, message, details }, meta: { request_id: headers["x-request-id"] } }, headers })
    }
  ))

const BadRequest = apiError("BadRequest", 400)
const Unauthorized = apiError("Unauthorized", 401)
const Forbidden = apiError("Forbidden", 403)
const NotFound = apiError("NotFound", 404)
const Unprocessable = apiError("Unprocessable", 422)
const RateLimited = apiError("RateLimited", 429)
const Internal = apiError("Internal", 500)
const Unavailable = apiError("Unavailable", 503)
/** What the domain services' and the store's failures become (a bad query is `BadRequest`, apart). */
type Failure = typeof Unauthorized.Type | typeof Forbidden.Type | typeof NotFound.Type | typeof Unprocessable.Type | typeof RateLimited.Type
  | typeof Internal.Type | typeof Unavailable.Type

const tagOfStatus: Record<number, Failure["_tag"]> = { 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 422: "Unprocessable", 429: "RateLimited" }

/** A domain or storage failure as the answer Canopy's handler gives it. */
const toFailure = (e: unknown, headers: ResponseHeaders): Failure => {
  if (Errors.isDomainError(e)) {
    const extra = e._tag === "Unauthorized" ? { "www-authenticate": "Bearer error=\"invalid_token\"" }
      : e._tag === "RateLimited" ? { "retry-after": String(Math.max(1, Math.ceil(e.retryAfter))) } : {}
    return {
      _tag: tagOfStatus[Errors.statusOf(e)] ?? "Internal",
      code: Errors.codeOf(e),
      message: e.message,
      details: e._tag === "ValidationError" ? e.details : [],
      headers: { ...headers, ...extra }
    }
  }
  if ((e as { _tag?: unknown } | null)?._tag === "StorageError") {
    return { _tag: "Unavailable", code: "INTERNAL_ERROR", message: "The database is unavailable; retry later", details: [],
      headers: { ...headers, "retry-after": "5" } }
  }
  return { _tag: "Internal", code: "INTERNAL_ERROR", message: "An unexpected error occurred; quote the request id when reporting it", details: [], headers }
}

/** The headers of every answer. */
const baseHeaders = (requestId: string) => ({ "x-request-id": requestId, "x-content-type-options": "nosniff" })

const rateLimitHeaders = (requestId: string, d: RateLimit.Decision): ResponseHeaders => ({
  ...baseHeaders(requestId),
  "x-ratelimit-limit": String(d.limit),
  "x-ratelimit-remaining": String(d.remaining),
  "x-ratelimit-reset": String(d.reset)
})

/** The authenticated, metered caller of a request, and the headers its answer carries. */
class Caller extends Context.Service<Caller, { readonly principal: Principal.Principal; readonly headers: ResponseHeaders }>()("bench/Caller") {}

/** Bearer token → principal → rate limit and usage count → permission, before anything else. */
class Metered extends HttpApiMiddleware.Service<Metered, { provides: Caller }>()("bench/Metered", {
  security: { bearer: HttpApiSecurity.bearer },
  // Any request may meet these: the handlers' failures are declared here once.
  error: [Unauthorized, Forbidden, NotFound, Unprocessable, RateLimited, Internal, Unavailable]
}) {}

/** A query that does not decode: Canopy's 400 with every problem. */
class QueryProblems extends HttpApiMiddleware.Service<QueryProblems, { requires: Caller }>()("bench/QueryProblems", { error: BadRequest }) {}

const ResponseMeta = Schema.Struct({ request_id: Schema.String, timestamp: Schema.String })
const ListMeta = Schema.Struct({
  total: Schema.Number,
  total_exact: Schema.Boolean,
  page: Schema.NullOr(Schema.Number),
  per_page: Schema.Number,
  total_pages: Schema.Number,
  has_more: Schema.Boolean,
  next_cursor: Schema.NullOr(Schema.String),
  request_id: Schema.String,
  timestamp: Schema.String
})

const operations = { getProject: "projects.get", listProjects: "projects.list" } as const

class ProjectsGroup extends HttpApiGroup.make("projects").add(
  HttpApiEndpoint.get("getProject", "/v1/projects/:project_id", {
    params: { project_id: Schema.String },
    success: HttpApiSchema.WithHeaders(Schema.Struct({ data: Schemas.Project, meta: ResponseMeta }), ResponseHeaders),
    error: NotFound
  }),
  HttpApiEndpoint.get("listProjects", "/v1/projects", {
    query: Schemas.ListProjects,
    success: HttpApiSchema.WithHeaders(Schema.Struct({ data: Schema.Array(Schemas.Project), meta: ListMeta }), ResponseHeaders),
    error: Unprocessable
  })
).middleware(QueryProblems).middleware(Metered) {}

// Every problem of a bad query is reported, as Canopy does.
class Api extends HttpApi.make("canopy").add(ProjectsGroup).annotate(HttpApi.ParseOptions, { errors: "all" }) {}

const MeteredLive = Layer.effect(Metered, Effect.gen(function*() {
  const credentials = yield* Credentials
  const accounts = yield* Accounts
  return Metered.of({
    // Generator functions made once (fnUntraced), not a closure per request, as Canopy's pipeline.
    bearer: Effect.fnUntraced(function*(httpEffect, { credential, endpoint }) {
      const requestId = Ids.make("request")
      const token = Redacted.value(credential)
      if (!token) {
        return yield* Effect.fail<Failure>({
          _tag: "Unauthorized",
          code: "UNAUTHORIZED",
          message: "Authentication required: send Authorization: Bearer <token>",
          details: [],
          headers: { ...baseHeaders(requestId), "www-authenticate": "Bearer" }
        })
      }
      const principal = yield* Effect.mapError(credentials.authenticate(token), (e) => toFailure(e, baseHeaders(requestId)))
      const decision = yield* Effect.mapError(accounts.meterRequest(principal.account_id), (e) => toFailure(e, baseHeaders(requestId)))
      const headers = rateLimitHeaders(requestId, decision)
      if (!decision.allowed) {
        return yield* Effect.fail(
          toFailure(new Errors.RateLimited({ message: `Rate limit exceeded: retry after ${decision.retryAfter} s`, retryAfter: decision.retryAfter }), headers)
        )
      }
      yield* Effect.mapError(Principal.authorize(principal, operations[endpoint.identifier as keyof typeof operations]), (e) => toFailure(e, headers))
      return yield* Effect.provideService(httpEffect, Caller, { principal, headers })
    })
  })
}))

const QueryProblemsLive = HttpApiMiddleware.layerSchemaErrorTransform(QueryProblems, (error) =>
  Effect.gen(function*() {
    const { headers } = yield* Caller
    return yield* Effect.fail({
      _tag: "BadRequest" as const,
      code: "VALIDATION_ERROR",
      message: "Invalid query parameters",
      details: FieldError.fromSchemaError(error.cause, ["query"]),
      headers
    })
  }))

const spliced = process.env.HTTPAPI_RESPONSES === "spliced"

/** A success: through the endpoint's schema, or (spliced) written as Canopy writes it. */
const answer = <A>(body: A, headers: ResponseHeaders) =>
  spliced
    ? HttpServerResponse.text(RawJson.stringify(body), { contentType: "application/json; charset=utf-8", headers })
    : HttpApiSchema.withHeaders({ body, headers })

const meta = (headers: ResponseHeaders) => ({ request_id: headers["x-request-id"], timestamp: new Date().toISOString() })

/** The query as it came (the last value of a repeated parameter), for the service's own decode. */
const rawQuery = Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
  const raw: Record<string, string> = {}
  for (const [k, v] of Object.entries(params)) raw[k] = Array.isArray(v) ? v[v.length - 1]! : v as string
  return raw
})

const ProjectsLive = HttpApiBuilder.group(Api, "projects", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* Projects
    return handlers
      .handle("getProject", Effect.fnUntraced(function*({ params }) {
        const { headers, principal } = yield* Caller
        const project = yield* Effect.mapError(projects.get(principal, params.project_id), (e) => toFailure(e, headers))
        return answer({ data: project, meta: meta(headers) }, headers)
      }))
      .handle("listProjects", Effect.fnUntraced(function*() {
        const { headers, principal } = yield* Caller
        const page = yield* Effect.mapError(projects.list(principal, yield* rawQuery), (e) => toFailure(e, headers))
        return answer({ data: page.data, meta: { ...page.meta, ...meta(headers) } }, headers)
      }))
  }))

// Rate limiting runs on every request; the limits are high enough that the load is never refused.
const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }
const [filename] = process.argv.slice(2) as [string]
const CanopyLive = Canopy.layer.pipe(
  Layer.provide(sqliteStorage({ filename }).layer),
  Layer.provideMerge(Layer.succeed(Settings.Settings, { ...Settings.defaults, plans: { free: big, pro: big, enterprise: big } }))
)

const ApiLive = HttpApiBuilder.layer(Api).pipe(
  Layer.provide(ProjectsLive),
  Layer.provide([MeteredLive, QueryProblemsLive]),
  Layer.provide(CanopyLive)
)

const ServerLive = HttpRouter.serve(ApiLive, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

const printPort = Layer.effectDiscard(Effect.gen(function*() {
  const { address } = yield* HttpServer.HttpServer
  if (address._tag !== "UnixPathAddress") process.stdout.write(`${address.port}\n`)
}))

Layer.launch(printPort.pipe(Layer.provide(ServerLive))).pipe(Effect.runFork)
process.once("SIGTERM", () => process.exit(0))
