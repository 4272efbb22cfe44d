/**
 * @canopy/server: Canopy's HTTP API (v1) — as a server (`serve`), as a Node `(req, res)` handler
 * to mount in an existing app (`nodeHandler`), or as a framework-free pipeline (`makeApiHandler`).
 */
export { type AppOptions, makeApiHandler, nodeHandler } from "./app.ts"
export { type AccessLogLine, type ApiRequest, type ApiResponse, MAX_BODY_BYTES } from "./http/handler.ts"
export { clientAddress } from "./http/node.ts"
export { routes } from "./api/routes.ts"
export { document as openApiDocument } from "./api/openapi.ts"
export { openCanopy, ownProcessDefaults, type RunningServer, serve, type ServeOptions, storageFor } from "./server.ts"
export { type Dispatcher, type DispatcherOptions, startDispatcher } from "@canopy/core"
export { type GeometryPool, type GeometryPoolOptions, makeGeometryPool } from "./geometry/pool.ts"
export { guardedLookup, makeSender } from "./dispatcher/sender.ts"
export { main as cli } from "./cli/main.ts"
