import { createCanopy } from "@canopy/core"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { nodeHandler } from "@canopy/server"
import { createServer } from "node:http"

/** An existing application with routes of its own, and Canopy's API mounted under /canopy. */
export const startApp = async (options: { port: number; db: string }) => {
  const canopy = await createCanopy({ storage: sqliteStorage({ filename: options.db }) })
  const canopyApi = nodeHandler(canopy, { basePath: "/canopy" })

  const server = createServer((req, res) => {
    if (req.url === "/" || req.url === "/status") {
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("the host application\n")
      return
    }
    if (req.url?.startsWith("/canopy/")) {
      void canopyApi(req, res)
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
