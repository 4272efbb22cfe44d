import { createCanopy } from "@canopy/core"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { nodeHandler } from "@canopy/server"
import { createServer } from "node:http"

/** Where Canopy is mounted in the host application. */
export const BASE_PATH = "/canopy"

/**
 * An existing application with routes of its own, and Canopy mounted under /canopy: the API
 * (`/canopy/v1/…`), its reference (`/canopy/docs`), the dashboard, invitation and OAuth pages, the
 * OAuth endpoints and metadata. `basePath` makes every link, form, redirect, cookie `Path`, the
 * OpenAPI `servers` and the OAuth issuer carry the prefix; `corsOrigins` lets browser pages on
 * those origins call the API.
 */
export const startApp = async (options: { port: number; db: string; corsOrigins?: ReadonlyArray<string> }) => {
  const canopy = await createCanopy({ storage: sqliteStorage({ filename: options.db }) })
  const canopyHandler = nodeHandler(canopy, { basePath: BASE_PATH, ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}) })

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
    close: async () => {
      await new Promise((resolve) => server.close(resolve))
      await canopy.close()
    }
  }
}
