/**
 * The request pipeline, independent of any HTTP server: route → authenticate → rate limit and
 * count → authorise → decode query and body → the domain call → envelope. Every outcome, errors
 * included, is a response with the spec's body, an `X-Request-Id` and the security headers;
 * domain errors map to statuses here and nowhere else.
 */
import {
  Accounts, type CanopyClient, Credentials, Errors, type FieldError, GeometryCheck, Idempotency, IdempotencyKeys, Ids, Principal, type RateLimit, RawJson, Schemas,
  type Storage
} from "@canopy/core"
import { Cause, Effect, Exit } from "effect"
import { type Route, routes } from "../api/routes.ts"
import * as Docs from "./docs.ts"
import { writeRefusal } from "../observability/storage.ts"
import type { RequestTrace } from "../observability/tracing.ts"

/** A request as the pipeline sees it (what a server adapter extracts). */
export interface ApiRequest {
  readonly method: string
  /** Path below the mount point, starting with `/` (e.g. `/v1/projects`). */
  readonly path: string
  readonly query: URLSearchParams
  /** Header values by lowercase name. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The raw body; undefined when there was none. */
  readonly body: Uint8Array | undefined
  /** True when the body exceeded the size limit (and was not read to the end). */
  readonly bodyTooLarge?: boolean
  /** The client address (after trusted-proxy handling). */
  readonly ip: string
}

/** A response to write. */
export interface ApiResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

/** One structured access-log line (never a token). */
export interface AccessLogLine {
  readonly time: string
  readonly request_id: string
  readonly method: string
  readonly path: string
  /** The route's template (`/v1/projects/{project_id}`), the fixed path of a page, or `unmatched`. */
  readonly route: string
  readonly status: number
  readonly duration_ms: number
  readonly account_id?: string
  readonly error?: string
}

/** Options of the pipeline. */
export interface HandlerOptions {
  /** Called once per request with its access-log line. Default: none. */
  readonly log?: (line: AccessLogLine) => void
  /** Called after every successful request that may have written events (POST, PUT, DELETE). */
  readonly onWrite?: () => void
  /**
   * Routes outside the `/v1` pipeline, by `METHOD /path`, with their own authentication or none:
   * the OpenAPI document, docs and health pages, the OAuth endpoints and the account pages. A `GET`
   * route also answers `HEAD`.
   */
  readonly protocolRoutes?: Readonly<Record<string, (req: ApiRequest, requestId: string) => Promise<ApiResponse>>>
  /**
   * Told when the database refuses a request's metering write (full disk, read-only; the reason
   * is the database's code): a read is then served unmetered and without rate limiting, anything
   * else answers 503 before it does any work (docs/decisions.md).
   */
  readonly onMeteringRefused?: (operation: string, reason: string) => void
  /** Traces each request (OpenTelemetry), when tracing is on: `Tracing.request`. */
  readonly trace?: (req: ApiRequest) => RequestTrace
}

/** Largest accepted body (DECISIONS). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024

interface Compiled {
  readonly route: Route
  readonly segments: ReadonlyArray<string>
}

const compiled: ReadonlyArray<Compiled> = routes.map((route) => ({ route, segments: `/v1${route.path}`.split("/").slice(1) }))

/** The route for a method and path, or why there is none (404, or 405 with the allowed methods). */
const match = (method: string, path: string):
  | { readonly route: Route; readonly params: Record<string, string> }
  | { readonly allowed: ReadonlyArray<string> } => {
  const parts = path.split("/").slice(1)
  if (parts.length > 1 && parts.at(-1) === "") parts.pop()
  const allowed: Array<string> = []
  for (const c of compiled) {
    if (c.segments.length !== parts.length) continue
    const params: Record<string, string> = {}
    let ok = true
    for (let i = 0; i < parts.length && ok; i++) {
      const seg = c.segments[i]!
      if (seg.startsWith("{")) {
        try {
          params[seg.slice(1, -1)] = decodeURIComponent(parts[i]!)
        } catch {
          ok = false
        }
      } else ok = seg === parts[i]
    }
    if (!ok) continue
    if (c.route.method === method || (method === "HEAD" && c.route.method === "GET")) return { route: c.route, params }
    allowed.push(c.route.method)
  }
  return { allowed }
}

const json = (status: number, requestId: string, payload: unknown, headers: Record<string, string> = {}): ApiResponse => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId, ...headers },
  // A project's boundary is held as its JSON text (RawJson): spliced in, never parsed here.
  body: RawJson.stringify(payload)
})

/**
 * The policy of an HTML page that sets none of its own (the API reference): nothing loads but its
 * inline styles, it submits no form, and no page may frame it.
 */
const HTML_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * A response with the headers every response carries: `X-Content-Type-Options: nosniff`, and on
 * an HTML page a Content-Security-Policy and `X-Frame-Options: DENY` unless it set its own.
 */
export const withSecurityHeaders = (res: ApiResponse): ApiResponse => {
  const headers: Record<string, string> = { ...res.headers, "x-content-type-options": "nosniff" }
  if (/^text\/html\b/i.test(headers["content-type"] ?? "")) {
    headers["content-security-policy"] ??= HTML_CONTENT_SECURITY_POLICY
    headers["x-frame-options"] ??= "DENY"
  }
  return { ...res, headers }
}

/** The spec's error body. */
export const errorResponse = (
  status: number, requestId: string, code: Errors.Code, message: string,
  details: ReadonlyArray<FieldError.FieldError> = [], headers: Record<string, string> = {}
): ApiResponse => json(status, requestId, { error: { code, message, details }, meta: { request_id: requestId } }, headers)

const rateLimitHeaders = (d: RateLimit.Decision): Record<string, string> => ({
  "x-ratelimit-limit": String(d.limit),
  "x-ratelimit-remaining": String(d.remaining),
  "x-ratelimit-reset": String(d.reset),
  ...(d.allowed ? {} : { "retry-after": String(d.retryAfter) })
})

const isJsonContentType = (value: string | undefined) => {
  if (!value) return false
  const type = value.split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

/** A pipeline failure that is already an HTTP answer (400 for the query or body). */
class BadRequest {
  readonly _tag = "BadRequest"
  readonly message: string
  readonly details: ReadonlyArray<FieldError.FieldError>
  constructor(message: string, details: ReadonlyArray<FieldError.FieldError>) {
    this.message = message
    this.details = details
  }
}

const decodeQuery = (route: Route, query: URLSearchParams) =>
  Effect.suspend(() => {
    const raw: Record<string, string> = {}
    for (const [k, v] of query) raw[k] = v
    if (!route.query) return Effect.succeed(raw)
    const r = Schemas.decodeRequest(route.query as never)(raw, ["query"])
    return r._tag === "Success" ? Effect.succeed(raw) : Effect.fail(new BadRequest("Invalid query parameters", r.failure))
  })

const parseBody = (route: Route, req: ApiRequest) =>
  Effect.suspend(() => {
    if (!route.body) return Effect.succeed(undefined)
    const bytes = req.body
    if (!bytes || bytes.length === 0) return Effect.succeed({})
    if (!isJsonContentType(req.headers["content-type"])) {
      return Effect.fail(new BadRequest("Content-Type must be application/json", [
        { field: "content-type", message: `must be application/json, got ${req.headers["content-type"] ?? "none"}` }
      ]))
    }
    const parse = Effect.suspend(() => {
      try {
        return Effect.succeed(JSON.parse(Buffer.from(bytes).toString("utf8")) as unknown)
      } catch (e) {
        return Effect.fail(new BadRequest("The request body is not valid JSON", [
          { field: "body", message: e instanceof SyntaxError ? e.message : "invalid JSON" }
        ]))
      }
    })
    if (bytes.length < LARGE_BODY_BYTES) return parse
    // A large body with a boundary (100,000 positions: 25 ms to parse, 27 to serialise, and GC of
    // 200,000 arrays) is parsed where the boundary is checked, off the event loop, when the host
    // provides that; otherwise the parse at least has a turn of the loop of its own.
    return Effect.gen(function*() {
      const check = yield* GeometryCheck.GeometryCheck
      if (!check.parseBody || !hasBoundary(route)) return yield* Effect.yieldNow.pipe(Effect.andThen(parse), Effect.tap(() => Effect.yieldNow))
      const parsed = yield* check.parseBody(bytes, "geometry")
      if (parsed._tag === "Parsed") return parsed.body
      if (parsed._tag === "TooComplex") {
        return yield* new Errors.ValidationError({ message: "The request body is invalid", details: [{ field: "geometry", message: parsed.problem.message }] })
      }
      return yield* Effect.fail(new BadRequest("The request body is not valid JSON", [{ field: "body", message: parsed.message }]))
    })
  })

/** A body from this size on is parsed apart from the request's other work. */
const LARGE_BODY_BYTES = 256 * 1024

/** Whether a route's body has a top-level `geometry` (a project boundary). */
const hasBoundary = (route: Route) => Object.hasOwn((route.body as { fields?: object } | undefined)?.fields ?? {}, "geometry")

/**
 * A POST's idempotency key was already used: its stored response to replay, or why the request is
 * refused (another request with it, or one still at work). Already an HTTP answer.
 */
class KeyUsed {
  readonly _tag = "KeyUsed"
  readonly claim: Exclude<Storage.IdempotencyBegin, { readonly kind: "new" }>
  constructor(claim: Exclude<Storage.IdempotencyBegin, { readonly kind: "new" }>) {
    this.claim = claim
  }
}

/** A POST's `Idempotency-Key`, its request's fingerprint and, once claimed, the claim's token. */
interface KeyClaim {
  readonly key: string
  readonly fingerprint: string
  token?: string
}

/** What the pipeline learned before it finished or failed: for the log line and the rate-limit headers. */
interface Seen {
  accountId?: string
  decision?: RateLimit.Decision
  idempotency?: KeyClaim
}

/**
 * Authenticate → meter (rate limit + usage) → authorise → decode → the domain call. Defined once:
 * a generator closure made per request measurably costs more.
 */
const pipeline = Effect.fnUntraced(function*(
  route: Route, params: Record<string, string>, bearer: string, req: ApiRequest, seen: Seen,
  onMeteringRefused: HandlerOptions["onMeteringRefused"]
) {
  const principal = yield* (yield* Credentials).authenticate(bearer, { ip: req.ip })
  seen.accountId = principal.account_id
  // A database that refuses writes (full disk, read-only) cannot meter: a read goes on unmetered
  // (no rate-limit headers); a write stops here with the StorageError, answered 503.
  const decision = yield* Effect.catchIf((yield* Accounts).meterRequest(principal.account_id), (e) => writeRefusal(e) !== undefined, (e) => {
    onMeteringRefused?.("meter", writeRefusal(e)!)
    return route.method === "GET" ? Effect.succeed(undefined) : Effect.fail(e)
  })
  if (decision) seen.decision = decision
  if (decision && !decision.allowed) {
    return yield* new Errors.RateLimited({ message: `Rate limit exceeded: retry after ${decision.retryAfter} s`, retryAfter: decision.retryAfter })
  }
  // The core's check (one rule, one message), before the query and body are looked at: a
  // credential that may not perform the operation learns nothing about its input.
  yield* Principal.authorize(principal, route.operation)
  const idem = seen.idempotency
  const keyProblem = idem && Idempotency.checkKey(idem.key)
  if (keyProblem) {
    return yield* Effect.fail(new BadRequest(`The Idempotency-Key header ${keyProblem}`, [{ field: "idempotency-key", message: keyProblem }]))
  }
  const query = yield* decodeQuery(route, req.query)
  const body = yield* parseBody(route, req)
  // The key is claimed once the request is known to be well formed: from here on, what the request
  // answers (below 500, but 429) is its key's response.
  if (idem) {
    const claim = yield* (yield* IdempotencyKeys).begin(principal.account_id, idem.key, idem.fingerprint)
    if (claim.kind !== "new") return yield* Effect.fail(new KeyUsed(claim))
    idem.token = claim.token
  }
  return yield* route.run({ principal, params, query, body })
})

/** Builds the request pipeline over a running Canopy. */
export const makeHandler = (canopy: CanopyClient, options: HandlerOptions = {}) => {
  const log = options.log

  // The API reference's page gets its policy and its script a route (http/docs.ts).
  const protocolRoutes = Docs.withReference(options.protocolRoutes)

  return async (req: ApiRequest): Promise<ApiResponse> => {
    const started = performance.now()
    const requestId = Ids.make("request")
    const trace = options.trace?.(req)
    let accountId: string | undefined
    let failure: string | undefined
    let routeName = "unmatched"
    const finish = (res: ApiResponse): ApiResponse => {
      const secured = withSecurityHeaders(res)
      const out = req.method === "HEAD" ? { ...secured, body: undefined } : secured
      trace?.end(routeName, res.status, requestId)
      log?.({
        time: new Date().toISOString(), request_id: requestId, method: req.method, path: req.path, route: routeName, status: res.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        ...(accountId ? { account_id: accountId } : {}), ...(failure ? { error: failure } : {})
      })
      return out
    }

    const protocol = protocolRoutes[`${req.method === "HEAD" ? "GET" : req.method} ${req.path}`]
    if (protocol) {
      routeName = req.path
      if (req.bodyTooLarge) return finish(errorResponse(413, requestId, "VALIDATION_ERROR", `The request body exceeds ${MAX_BODY_BYTES} bytes`))
      const r = await protocol(req, requestId).catch(() => errorResponse(500, requestId, "INTERNAL_ERROR", "An unexpected error occurred"))
      return finish({ ...r, headers: { ...r.headers, "x-request-id": requestId } })
    }

    const found = match(req.method, req.path)
    if (!("route" in found)) {
      if (found.allowed.length === 0) {
        return finish(errorResponse(404, requestId, "NOT_FOUND", `No route for ${req.method} ${req.path}`))
      }
      return finish(errorResponse(405, requestId, "NOT_FOUND", `${req.method} is not allowed on ${req.path}; allowed: ${found.allowed.join(", ")}`, [],
        { allow: [...new Set(found.allowed)].join(", ") }))
    }
    if (req.bodyTooLarge) {
      return finish(errorResponse(413, requestId, "VALIDATION_ERROR", `The request body exceeds ${MAX_BODY_BYTES} bytes`, [
        { field: "body", message: `must be at most ${MAX_BODY_BYTES} bytes` }
      ]))
    }
    const { params, route } = found
    routeName = `/v1${route.path}`

    const auth = req.headers.authorization
    const bearer = auth && /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1]
    if (!bearer) {
      return finish(errorResponse(401, requestId, "UNAUTHORIZED", auth ? "The Authorization header must be \"Bearer <token>\"" : "Authentication required: send Authorization: Bearer <token>", [],
        { "www-authenticate": auth ? "Bearer error=\"invalid_request\"" : "Bearer" }))
    }

    const seen: Seen = {}
    const idempotencyKey = route.method === "POST" ? req.headers[Idempotency.HEADER] : undefined
    if (idempotencyKey !== undefined) {
      const target = req.query.size > 0 ? `${req.path}?${req.query.toString()}` : req.path
      seen.idempotency = { key: idempotencyKey, fingerprint: Idempotency.fingerprint(req.method, target, req.body) }
    }
    const work = pipeline(route, params, bearer, req, seen, options.onMeteringRefused)
    const exit = await canopy.runExit(trace ? trace.wrap(routeName, work) : work)
    accountId = seen.accountId
    const decision = seen.decision
    const limitHeaders = decision ? rateLimitHeaders(decision) : {}

    /**
     * The answer, after its key (when the request claimed one) keeps it for replays or is freed:
     * a 5xx or 429 says "try again", so the key is left for the retry to do the work.
     */
    const settle = async (res: ApiResponse): Promise<ApiResponse> => {
      const claim = seen.idempotency
      if (claim?.token && accountId) {
        const account = accountId
        const token = claim.token
        const keep = res.status < 500 && res.status !== 429
        const stored = await canopy.runExit(Effect.flatMap(IdempotencyKeys, (k) => keep
          ? k.complete(account, claim.key, token, { status: res.status, headers: Idempotency.storedHeaders(res.headers), body: res.body ?? null })
          : k.release(account, claim.key, token)))
        // The work is done either way; a key that could not be updated stays claimed until it is
        // abandoned (Idempotency.ABANDONED_AFTER_MS), then a retry may do the work again.
        if (Exit.isFailure(stored)) failure = `IdempotencyKey${keep ? "NotStored" : "NotReleased"}`
      }
      return finish(res)
    }

    if (Exit.isSuccess(exit)) {
      if (route.method !== "GET") options.onWrite?.()
      if (route.envelope === "empty") return settle({ status: route.status, headers: { "x-request-id": requestId, ...limitHeaders }, body: undefined })
      const meta = { request_id: requestId, timestamp: new Date().toISOString() }
      const value = exit.value as { data?: unknown; meta?: object }
      const payload = route.envelope === "list"
        ? { data: value.data, meta: { ...value.meta, ...meta } }
        : { data: value, meta }
      return settle(json(route.status, requestId, payload, limitHeaders))
    }
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "Some") {
      const e = error.value
      if (e instanceof BadRequest) return finish(errorResponse(400, requestId, "VALIDATION_ERROR", e.message, e.details, limitHeaders))
      if (e instanceof KeyUsed) {
        const claim = e.claim
        switch (claim.kind) {
          case "replay":
            // The first response as it was (its body names the request that did the work); the
            // headers of this request are its own.
            return finish({
              status: claim.response.status,
              headers: { ...claim.response.headers, "x-request-id": requestId, ...limitHeaders, [Idempotency.REPLAYED_HEADER]: "true" },
              body: claim.response.body ?? undefined
            })
          case "mismatch":
            return finish(errorResponse(422, requestId, "VALIDATION_ERROR",
              "This Idempotency-Key was used with another request (method, path or body); use a new key for a new request", [
                { field: "idempotency-key", message: "was already used with another request within 24 hours" }
              ], limitHeaders))
          case "in_progress":
            return finish(errorResponse(409, requestId, "CONFLICT",
              "A request with this Idempotency-Key is in progress; retry after it completes", [
                { field: "idempotency-key", message: "a request with this key is in progress" }
              ], { ...limitHeaders, "retry-after": "1" }))
        }
      }
      if (Errors.isDomainError(e)) {
        const headers = e._tag === "Unauthorized"
          ? { "www-authenticate": "Bearer error=\"invalid_token\"" }
          : e._tag === "RateLimited"
          ? { ...limitHeaders, "retry-after": String(Math.max(1, Math.ceil(e.retryAfter))) }
          : limitHeaders
        return settle(errorResponse(Errors.statusOf(e), requestId, Errors.codeOf(e), e.message,
          e._tag === "ValidationError" ? e.details : [], headers))
      }
    }
    failure = describeFailure(exit.cause)
    if (error._tag === "Some" && isStorageError(error.value)) return settle(unavailable(requestId, limitHeaders))
    return settle(errorResponse(500, requestId, "INTERNAL_ERROR", "An unexpected error occurred; quote the request id when reporting it", [], limitHeaders))
  }
}

/** Seconds a client is asked to wait before retrying when the database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 5

const isStorageError = (e: unknown): boolean => (e as { _tag?: unknown } | null)?._tag === "StorageError"

/**
 * The answer when the database is down, frozen (an operation timed out) or refuses writes: `503`
 * with the spec's body, code `INTERNAL_ERROR` (the spec's code for server errors; DECISIONS) and
 * `Retry-After`.
 */
export const unavailable = (requestId: string, headers: Record<string, string> = {}): ApiResponse =>
  errorResponse(503, requestId, "INTERNAL_ERROR", "The database is unavailable; retry later", [], {
    ...headers, "retry-after": String(UNAVAILABLE_RETRY_AFTER_S)
  })

/** How long the readiness probe waits for the database. */
export const READY_TIMEOUT_MS = 2_000

/**
 * `GET /ready`: 200 `{"status":"ready"}` when the database answers a trivial query within
 * `READY_TIMEOUT_MS` (migrations ran when the store opened, before the server listened); else the
 * 503 of an unavailable database. No authentication. `/health` stays liveness only.
 */
export const readinessRoute = (canopy: CanopyClient) => async (_req: ApiRequest, requestId: string): Promise<ApiResponse> => {
  // A plain race, so the answer never waits for the driver to cancel a statement a frozen server
  // will not answer (that ends within the store's own timeout).
  let timer: ReturnType<typeof setTimeout> | undefined
  const ok = await Promise.race([
    canopy.runExit(Effect.flatMap(Accounts, (a) => a.ping)).then(Exit.isSuccess),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS)
    })
  ]).finally(() => clearTimeout(timer))
  if (ok) return { status: 200, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" }, body: "{\"status\":\"ready\"}" }
  return unavailable(requestId, { "cache-control": "no-store" })
}

/** A short, secret-free description of an unexpected failure, for the log. */
const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const reason = cause.reasons[0]
  if (!reason) return "interrupted"
  const value = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : "interrupted"
  const tag = (value as { _tag?: unknown })?._tag
  return typeof tag === "string" ? tag : value instanceof Error ? value.name : reason._tag
}
