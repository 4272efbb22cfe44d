/**
 * The Canopy HTTP application over a running Canopy: the v1 pipeline plus the public pages
 * (`/v1/openapi.json`, `/docs`, `/health` (liveness), `/ready` (readiness: the database answers), and `/`, which redirects to the dashboard), as a Node
 * `(req, res)` handler.
 */
import type { CanopyClient } from "@canopy/core"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as OpenApi from "./api/openapi.ts"
import * as Docs from "./http/docs.ts"
import { type AccessLogLine, type ApiResponse, makeHandler, readinessRoute } from "./http/handler.ts"
import { clientErrorHandler, type NodeAdapterOptions, toNodeHandler } from "./http/node.ts"
import { makeMetrics, type Metrics, type MetricsAccess } from "./http/metrics.ts"
import { meteringReporter } from "./observability/metering.ts"
import type { Tracing } from "./observability/tracing.ts"
import { oauthRoutes } from "./http/oauth.ts"
import { dashboardPages } from "./pages/dashboard.ts"
import { redirect } from "./pages/html.ts"
import { invitationPages } from "./pages/invitations.ts"
import { authorizePages } from "./pages/oauth.ts"
import { makeSite, nodeTransport, parseBasePath, pathOfPublicUrl, withTransport } from "./pages/site.ts"
import { parseCorsOrigins, withCors } from "./http/cors.ts"

/** Options of the application. */
export interface AppOptions extends NodeAdapterOptions {
  /**
   * The URL clients reach Canopy at (`https://canopy.example.com`, or with a path when mounted
   * under one): the OAuth issuer and endpoints, absolute links in pages and the cookies' `Secure`
   * flag derive from it. Without it, only requests to a loopback host get an issuer and absolute
   * links (development), and cookies are `Secure` when the request came over HTTPS (the socket's
   * TLS, or `X-Forwarded-Proto` from a trusted proxy). See `pages/site.ts`.
   */
  readonly publicUrl?: string | undefined
  /** Access-log sink; default none. */
  readonly log?: (line: AccessLogLine) => void
  /** Called after each successful write (the server wakes its delivery loop). */
  readonly onWrite?: () => void
  /**
   * Serve Prometheus metrics at `/metrics`: to a bearer of `token`, or to anyone (`"public"`);
   * or metrics already made (`makeMetrics`, which the server also feeds with storage and
   * delivery figures); default off.
   */
  readonly metrics?: MetricsAccess | Metrics | undefined
  /** Trace each request (OpenTelemetry): `startTracing(…)`; default off. */
  readonly tracing?: Tracing | undefined
  /**
   * Told when the database refuses a bookkeeping write (metering); default: counted in the
   * metrics and logged on stderr at most once a minute (`observability/metering.ts`).
   */
  readonly onMeteringRefused?: ((operation: string, reason: string) => void) | undefined
  /**
   * Origins whose browser pages may call the API and the OAuth token endpoint (CORS): a list or
   * a comma-separated string of exact origins, or `*`; default none. Public OAuth applications'
   * `allowed_origins` are allowed too. See `http/cors.ts`.
   */
  readonly corsOrigins?: string | ReadonlyArray<string> | undefined
  /**
   * The dashboard maps' basemap: a raster tile URL template (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`),
   * and the attribution its terms require. Default: `CANOPY_BASEMAP_URL` and `CANOPY_BASEMAP_ATTRIBUTION`,
   * else none: boundaries and assets over a plain background with a graticule (works offline).
   */
  readonly basemapUrl?: string | undefined
  readonly basemapAttribution?: string | undefined
}

/** The request pipeline with the public pages, independent of the server. */
export const makeApiHandler = (
  canopy: CanopyClient,
  options: Pick<AppOptions,
    "log" | "onWrite" | "publicUrl" | "metrics" | "tracing" | "onMeteringRefused" | "basePath" | "corsOrigins" | "basemapUrl" | "basemapAttribution"> = {}
) => {
  // Throws on a malformed public URL, base path or CORS origin: better at start than in every answer.
  const site = makeSite(options.publicUrl, options.basePath)
  const corsOrigins = parseCorsOrigins(options.corsOrigins)
  const doc = OpenApi.document({ server: site.publicUrl ?? site.basePath })
  const openapi: ApiResponse = { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: JSON.stringify(doc) }
  const docs: ApiResponse = { status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: Docs.page(doc, site.basePath) }
  const health: ApiResponse = { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: "{\"status\":\"ok\"}" }
  // A browser pointed at the server lands on the dashboard (which signs in first), not on a JSON 404.
  const home = redirect(`${site.publicUrl ?? site.basePath}/dashboard`, 302)
  const metrics = options.metrics === undefined ? undefined
    : typeof options.metrics === "object" && "route" in options.metrics ? options.metrics : makeMetrics(options.metrics)
  const onMeteringRefused = options.onMeteringRefused ?? meteringReporter({ count: metrics?.meteringFailure })
  const log = metrics
    ? (line: AccessLogLine) => {
      metrics.observe(line)
      options.log?.(line)
    }
    : options.log
  const handler = makeHandler(canopy, {
    ...(log ? { log } : {}),
    ...(options.onWrite ? { onWrite: options.onWrite } : {}),
    onMeteringRefused,
    ...(options.tracing ? { trace: options.tracing.request } : {}),
    protocolRoutes: {
      "GET /v1/openapi.json": async () => openapi,
      "GET /docs": async () => docs,
      "GET /health": async () => health,
      "GET /ready": readinessRoute(canopy),
      ...(metrics ? { "GET /metrics": metrics.route } : {}),
      "GET /": async () => home,
      ...oauthRoutes(canopy, site.origin),
      ...authorizePages(canopy, site),
      ...invitationPages(canopy, site),
      ...dashboardPages(canopy, site, {
        basemapUrl: options.basemapUrl ?? (process.env.CANOPY_BASEMAP_URL || undefined),
        basemapAttribution: options.basemapAttribution ?? (process.env.CANOPY_BASEMAP_ATTRIBUTION || undefined)
      })
    }
  })
  return withCors(canopy, handler, { origins: corsOrigins, log })
}

/**
 * A Node `(req, res)` handler serving Canopy's API: mount it on `http.createServer(handler)` or in
 * an existing app (`app.use("/canopy", handler)` in Express). Pass the mount's `basePath`
 * (`/canopy`): it is stripped from requests that still carry it, and every URL Canopy names (pages'
 * forms, links, redirects, cookie paths, `/docs`, OpenAPI `servers`, the OAuth issuer) starts
 * with it; without it, the path of `publicUrl` is used. Its `clientError` answers the requests Node's parser refuses
 * (oversized headers, malformed request lines) with the spec's error body and logs them:
 * `server.on("clientError", handler.clientError)` on a server of your own.
 */
export const nodeHandler = (canopy: CanopyClient, options: AppOptions = {}) => {
  const api = makeApiHandler(canopy, options)
  const trusted = options.trustedProxies ?? []
  // Requests arrive below the base path, or below the public URL's path behind a proxy that keeps it.
  const basePath = parseBasePath(options.basePath ?? pathOfPublicUrl(options.publicUrl))
  // Each request carries how it came (TLS, forwarded headers from trusted proxies only).
  const handler = (req: IncomingMessage, res: ServerResponse) =>
    toNodeHandler((r) => api(withTransport(r, () => nodeTransport(req, trusted))), { ...options, basePath })(req, res)
  return Object.assign(handler, { clientError: clientErrorHandler({ log: options.log }) })
}
