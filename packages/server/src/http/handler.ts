/**
 * The request pipeline, independent of any HTTP server: route → authenticate → rate limit and
 * count → authorise → decode query and body → the domain call → envelope. Every outcome, errors
 * included, is a response with the spec's body, an `X-Request-Id` and the security headers;
 * every error answers as its row of `Errors.table` says (`refusal`, responses.ts). The parts: `router.ts` (matching),
 * `pipeline.ts` (the work), `input.ts` (query and body), `idempotency.ts` (`Idempotency-Key`),
 * `responses.ts` (bodies and headers), `readiness.ts` (`/ready`).
 */
import { type CanopyClient, Errors, Ids } from "@canopy/core"
import { Cause, Effect, Exit } from "effect"
import type { RequestTrace } from "../observability/tracing.ts"
import * as Docs from "./docs.ts"
import { type FileAnswer, fileResponse, type RunEffect } from "./files.ts"
import { keyOf, KeyUsed, keyUsedResponse, settleKey } from "./idempotency.ts"
import { pipeline, type Seen } from "./pipeline.ts"
import { describeFailure, isStorageError, json, rateLimitHeaders, refusal, unavailable, withSecurityHeaders } from "./responses.ts"
import { match } from "./router.ts"
import { type AccessLogLine, type ApiRequest, type ApiResponse, MAX_BODY_BYTES } from "./types.ts"

export { type AccessLogLine, type ApiRequest, type ApiResponse, MAX_BODY_BYTES } from "./types.ts"
export { refusal, withSecurityHeaders } from "./responses.ts"
export { readinessRoute } from "./readiness.ts"

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

/** Builds the request pipeline over a running Canopy. */
export const makeHandler = (canopy: CanopyClient, options: HandlerOptions = {}) => {
  const log = options.log

  /**
   * Runs a route's later work after it answered (a streamed export's next pages), with the same
   * runtime; a failure rejects (the adapter then cuts the response) with a secret-free name.
   */
  const runLater: RunEffect = async (effect) => {
    const exit = await canopy.runExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    throw new Error(`stream failed: ${describeFailure(exit.cause)}`)
  }

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
      // HEAD: no body; a streamed one is never started
      const out = req.method === "HEAD" ? { ...secured, body: undefined, stream: undefined } : secured
      trace?.end(routeName, res.status, requestId)
      log?.({
        time: new Date().toISOString(),
        request_id: requestId,
        method: req.method,
        path: req.path,
        route: routeName,
        status: res.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        ...(accountId ? { account_id: accountId } : {}),
        ...(failure ? { error: failure } : {})
      })
      return out
    }

    const protocol = protocolRoutes[`${req.method === "HEAD" ? "GET" : req.method} ${req.path}`]
    if (protocol) {
      routeName = req.path
      if (req.bodyTooLarge)
        return finish(refusal(requestId, new Errors.BodyTooLarge({ message: `The request body exceeds ${MAX_BODY_BYTES} bytes`, details: [] })))
      const r = await protocol(req, requestId).catch(() => refusal(requestId, new Errors.Unexpected({ message: "An unexpected error occurred" })))
      return finish({ ...r, headers: { ...r.headers, "x-request-id": requestId } })
    }

    const found = match(req.method, req.path)
    if (!("route" in found)) {
      return finish(refusal(requestId, found.allowed.length === 0
        ? new Errors.RouteNotFound({ message: `No route for ${req.method} ${req.path}` })
        : new Errors.MethodNotAllowed({ message: `${req.method} is not allowed on ${req.path}; allowed: ${found.allowed.join(", ")}`,
          allowed: found.allowed })))
    }
    if (req.bodyTooLarge) {
      return finish(refusal(requestId, new Errors.BodyTooLarge({
        message: `The request body exceeds ${MAX_BODY_BYTES} bytes`,
        details: [{ field: "body", message: `must be at most ${MAX_BODY_BYTES} bytes` }]
      })))
    }
    const { params, route } = found
    routeName = `/v1${route.path}`

    const auth = req.headers.authorization
    const bearer = auth && /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1]
    if (!bearer) {
      return finish(refusal(requestId, new Errors.CredentialsMissing({
        message: auth ? "The Authorization header must be \"Bearer <token>\"" : "Authentication required: send Authorization: Bearer <token>",
        malformed: !!auth
      })))
    }

    const seen: Seen = {}
    const idempotency = keyOf(route, req)
    if (idempotency) seen.idempotency = idempotency
    const work = pipeline(route, params, bearer, req, seen, options.onMeteringRefused)
    // Without an exporter no span is made: a span per service call and statement, kept by no one,
    // cost a PostgreSQL create ~8% of its throughput.
    const exit = await canopy.runExit(trace ? trace.wrap(routeName, work) : Effect.withTracerEnabled(work, false))
    accountId = seen.accountId
    const decision = seen.decision
    const limitHeaders = decision ? rateLimitHeaders(decision) : {}

    /** The answer, after its key (when the request claimed one) keeps it for replays or is freed. */
    const settle = async (res: ApiResponse): Promise<ApiResponse> => {
      const claim = seen.idempotency
      if (claim?.token && accountId) {
        const unsettled = await settleKey(canopy, accountId, claim, claim.token, res)
        if (unsettled) failure = unsettled
      }
      return finish(res)
    }

    if (Exit.isSuccess(exit)) {
      if (route.method !== "GET") options.onWrite?.()
      if (route.envelope === "empty") return settle({ status: route.status, headers: { "x-request-id": requestId, ...limitHeaders }, body: undefined })
      if (route.envelope === "file") {
        const file = fileResponse(route.status, requestId, exit.value as FileAnswer, limitHeaders, runLater)
        // A file with an ETag the client already holds: 304, and a streamed body is never started.
        const headers: Readonly<Record<string, string | undefined>> = file.headers
        const etag = headers.etag
        if (etag !== undefined && req.headers["if-none-match"]?.split(",").some((t) => t.trim() === etag)) {
          return settle({ status: 304, headers: { etag, "cache-control": headers["cache-control"] ?? "no-cache", "x-request-id": requestId, ...limitHeaders },
            body: undefined })
        }
        return settle(file)
      }
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
      if (e instanceof KeyUsed) return finish(keyUsedResponse(e, requestId, limitHeaders))
      if (Errors.isError(e)) return settle(refusal(requestId, e, limitHeaders))
    }
    failure = describeFailure(exit.cause)
    if (error._tag === "Some" && isStorageError(error.value)) return settle(unavailable(requestId, limitHeaders))
    return settle(refusal(requestId, new Errors.Unexpected({ message: "An unexpected error occurred; quote the request id when reporting it" }), limitHeaders))
  }
}
