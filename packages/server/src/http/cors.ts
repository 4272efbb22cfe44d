/**
 * CORS for browser clients (docs/decisions.md, "CORS"). Only what a browser application needs
 * answers cross-origin: the v1 API, the OAuth token and revocation endpoints and the OAuth
 * metadata. An origin is allowed when the deployment lists it (`--cors-origins` /
 * `CANOPY_CORS_ORIGINS`; `*` for any) or when a public OAuth application lists it in its
 * `allowed_origins`. Nothing is ever allowed with credentials: the API is called with bearer
 * tokens, never cookies, so `Access-Control-Allow-Credentials` is never sent and `*` stays safe.
 *
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed
 *   origin: 204 with the allowed methods and headers; from any other: 403 with the spec's error
 *   body and no CORS headers, so the browser refuses.
 * - Any other request with an `Origin`: the pipeline's answer, with `Access-Control-Allow-Origin`
 *   when the origin is allowed. Every answer on these paths carries `Vary: Origin`.
 */
import { type CanopyClient, Errors, Ids, OAuthServer, RateLimit } from "@canopy/core"
import { Effect, Exit } from "effect"
import { refusal, withSecurityHeaders } from "./responses.ts"
import type { AccessLogLine, ApiRequest, ApiResponse } from "./types.ts"

/** Methods a cross-origin page may use. */
const ALLOWED_METHODS = "GET, HEAD, POST, PUT, DELETE"
/** Request headers a cross-origin page may send. */
const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key"
/** Response headers a cross-origin page may read (besides the safelisted ones). */
const EXPOSED_HEADERS = ["X-Request-Id", ...Object.values(RateLimit.HEADERS), "Idempotent-Replayed", "WWW-Authenticate", "Location"].join(", ")
/** How long a browser may cache a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE_S = 600

/**
 * The deployment's allowed origins as configured: a list, or one string separated by commas or
 * spaces. Each is `*` or exactly an origin (`https://app.example.com`, `http://localhost:5173`:
 * scheme, host and port, no path). Throws a readable Error otherwise.
 */
export const parseCorsOrigins = (raw: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  const items = (typeof raw === "string" ? raw.split(/[\s,]+/) : [...(raw ?? [])]).map((s) => s.trim()).filter((s) => s !== "")
  for (const item of items) {
    if (item === "*") continue
    let origin: string | undefined
    try {
      origin = new URL(item).origin
    } catch {
      origin = undefined
    }
    if (origin !== item || !/^https?:$/.test(new URL(item).protocol)) {
      throw new Error(
        `CORS origin ${JSON.stringify(item)} must be * or exactly an origin such as https://app.example.com (scheme, host, port; no path or trailing slash)`
      )
    }
  }
  return [...new Set(items)]
}

/** Whether a path (below the mount) answers cross-origin requests. */
const isCorsPath = (path: string): boolean =>
  path.startsWith("/v1/") || path === "/oauth/token" || path === "/oauth/revoke" || path === "/.well-known/oauth-authorization-server"

const withVary = (headers: Readonly<Record<string, string>>, vary: string): Record<string, string> => {
  const existing = headers.vary
  return { ...headers, vary: existing ? `${existing}, ${vary}` : vary }
}

/**
 * Wraps the pipeline with CORS: `origins` is the deployment's list (`parseCorsOrigins`); a public
 * OAuth application's `allowed_origins` are asked of the core per request.
 */
export const withCors = (
  canopy: CanopyClient,
  handler: (req: ApiRequest) => Promise<ApiResponse>,
  options: { readonly origins?: ReadonlyArray<string> | undefined; readonly log?: ((line: AccessLogLine) => void) | undefined } = {}
) => {
  const listed = new Set(options.origins ?? [])
  const any = listed.has("*")
  /** The `Access-Control-Allow-Origin` value for `origin`, or undefined when it is not allowed. */
  const allowOrigin = async (origin: string): Promise<string | undefined> => {
    if (listed.has(origin)) return origin
    const registered = await canopy.runExit(Effect.flatMap(OAuthServer, (s) => s.allowsOrigin(origin)))
    if (Exit.isSuccess(registered) && registered.value) return origin
    return any ? "*" : undefined
  }

  return async (req: ApiRequest): Promise<ApiResponse> => {
    const origin = req.headers.origin
    if (!isCorsPath(req.path)) return handler(req)
    if (origin === undefined) {
      const res = await handler(req)
      return { ...res, headers: withVary(res.headers, "Origin") }
    }
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      const started = performance.now()
      const requestId = Ids.make("request")
      const allowed = await allowOrigin(origin)
      const vary = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"
      const res = allowed === undefined
        ? refusal(requestId, new Errors.OriginNotAllowed({ message: `Cross-origin requests from ${origin} are not allowed` }), { vary })
        : {
          status: 204,
          headers: {
            "access-control-allow-origin": allowed,
            "access-control-allow-methods": ALLOWED_METHODS,
            "access-control-allow-headers": ALLOWED_HEADERS,
            "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
            "x-request-id": requestId,
            vary
          },
          body: undefined
        }
      options.log?.({
        time: new Date().toISOString(),
        request_id: requestId,
        method: req.method,
        path: req.path,
        route: "preflight",
        status: res.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        ...(allowed === undefined ? { error: "OriginNotAllowed" } : {})
      })
      return withSecurityHeaders(res)
    }
    const [res, allowed] = await Promise.all([handler(req), allowOrigin(origin)])
    const headers = withVary(res.headers, "Origin")
    return allowed === undefined
      ? { ...res, headers }
      : { ...res, headers: { ...headers, "access-control-allow-origin": allowed, "access-control-expose-headers": EXPOSED_HEADERS } }
  }
}
