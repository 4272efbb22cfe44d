/**
 * The Canopy HTTP application over a running Canopy: the v1 pipeline plus the public pages
 * (`/v1/openapi.json`, `/docs`, `/health`), as a Node `(req, res)` handler.
 */
import type { CanopyClient } from "@canopy/core"
import * as OpenApi from "./api/openapi.ts"
import * as Docs from "./http/docs.ts"
import { type AccessLogLine, type ApiResponse, makeHandler } from "./http/handler.ts"
import { clientErrorHandler, type NodeAdapterOptions, toNodeHandler } from "./http/node.ts"
import { oauthRoutes } from "./http/oauth.ts"
import { dashboardPages } from "./pages/dashboard.ts"
import { invitationPages } from "./pages/invitations.ts"
import { authorizePages } from "./pages/oauth.ts"

/** Options of the application. */
export interface AppOptions extends NodeAdapterOptions {
  /** The public base URL (issuer) for the OAuth metadata; default: from the request's Host. */
  readonly publicUrl?: string
  /** Access-log sink; default none. */
  readonly log?: (line: AccessLogLine) => void
  /** Called after each successful write (the server wakes its delivery loop). */
  readonly onWrite?: () => void
}

/** The request pipeline with the public pages, independent of the server. */
export const makeApiHandler = (canopy: CanopyClient, options: Pick<AppOptions, "log" | "onWrite" | "publicUrl"> = {}) => {
  // Cookies are Secure unless the site is served over plain HTTP (development).
  const secure = options.publicUrl?.startsWith("https://") ?? false
  const doc = OpenApi.document()
  const openapi: ApiResponse = { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: JSON.stringify(doc) }
  const docs: ApiResponse = { status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: Docs.page(doc) }
  const health: ApiResponse = { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: "{\"status\":\"ok\"}" }
  const handler = makeHandler(canopy, {
    ...(options.log ? { log: options.log } : {}),
    ...(options.onWrite ? { onWrite: options.onWrite } : {}),
    protocolRoutes: {
      "GET /v1/openapi.json": async () => openapi,
      "GET /docs": async () => docs,
      "GET /health": async () => health,
      ...oauthRoutes(canopy, (req) => options.publicUrl ?? `http://${req.headers.host ?? "localhost"}`),
      ...authorizePages(canopy, { secure }),
      ...invitationPages(canopy, { secure }),
      ...dashboardPages(canopy, { secure })
    }
  })
  return handler
}

/**
 * A Node `(req, res)` handler serving Canopy's API: mount it on `http.createServer(handler)` or in
 * an existing app (`app.use("/canopy", handler)` in Express; pass `basePath` when the framework
 * does not strip the prefix itself). Its `clientError` answers the requests Node's parser refuses
 * (oversized headers, malformed request lines) with the spec's error body and logs them:
 * `server.on("clientError", handler.clientError)` on a server of your own.
 */
export const nodeHandler = (canopy: CanopyClient, options: AppOptions = {}) =>
  Object.assign(toNodeHandler(makeApiHandler(canopy, options), options), { clientError: clientErrorHandler({ log: options.log }) })
