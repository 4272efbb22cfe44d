import { createCanopy, startDispatcher } from "@canopy/core"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { makeGeometryPool, nodeHandler } from "@canopy/server"
import { createServer } from "node:http"

/** Where Canopy is mounted in the host application. */
export const BASE_PATH = "/canopy"

/** Options of the example application. */
export interface AppOptions {
  readonly port: number
  readonly db: string
  readonly corsOrigins?: ReadonlyArray<string>
  /**
   * Let webhooks target `http://` and local addresses (127.0.0.1, private networks): for
   * development and tests only. Off, the default sender refuses them, after resolving host names.
   */
  readonly allowInsecureWebhooks?: boolean
}

/**
 * An existing application with routes of its own, and Canopy mounted under /canopy: the API
 * (`/canopy/v1/…`), its reference (`/canopy/docs`), the dashboard, invitation and OAuth pages, the
 * OAuth endpoints and metadata. `basePath` makes every link, form, redirect, cookie `Path`, the
 * OpenAPI `servers` and the OAuth issuer carry the prefix; `corsOrigins` lets browser pages on
 * those origins call the API.
 *
 * Besides the handler, what `canopy serve` runs and an embedding application must run itself:
 * - the geometry pool: large boundaries are validated and measured in worker threads, with a
 *   time budget, instead of on the host's event loop;
 * - the dispatcher: it sends webhooks (woken by every write) and purges expired idempotency
 *   keys, sessions and delivery logs;
 * - a clean shutdown, in this order: stop accepting requests and let in-flight ones finish, stop
 *   the dispatcher (in-flight deliveries finish), close Canopy (the database), close the pool.
 */
export const startApp = async (options: AppOptions) => {
  const geometry = makeGeometryPool()
  const canopy = await createCanopy({
    storage: sqliteStorage({ filename: options.db }),
    geometryCheck: geometry,
    ...(options.allowInsecureWebhooks ? { settings: { allowInsecureWebhooks: true } } : {})
  }).catch(async (e: unknown) => {
    await geometry.close()
    throw e
  })
  const dispatcher = startDispatcher(canopy, { name: "embedded" })
  const canopyHandler = nodeHandler(canopy, {
    basePath: BASE_PATH,
    onWrite: dispatcher.wake,
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {})
  })

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    if (path === "/" || path === "/status") {
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("the host application\n")
      return
    }
    if (path === BASE_PATH || path.startsWith(`${BASE_PATH}/`)) {
      void canopyHandler(req, res)
      return
    }
    res.writeHead(404, { "content-type": "text/plain" })
    res.end("not found in the host application\n")
  })
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    canopy,
    dispatcher,
    geometry,
    /** Stops in order: requests, deliveries, the database, the geometry workers. */
    close: async () => {
      await new Promise((resolve) => {
        server.close(resolve)
        server.closeIdleConnections()
      })
      await dispatcher.stop()
      await canopy.close()
      await geometry.close()
    }
  }
}
