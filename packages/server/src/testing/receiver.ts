/**
 * A real webhook receiver on loopback for the tests: records every request (headers and raw
 * body) by path, and answers as each path is told to.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"

/** One received request. */
export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly raw: Buffer
  readonly at: number
  readonly json: any
}

/** How a path answers: a status (and headers), or never. */
export type Behaviour = { readonly status: number; readonly headers?: Record<string, string>; readonly delayMs?: number } | "hang"

export const startReceiver = async () => {
  const received: Array<Received> = []
  const behaviour = new Map<string, (n: number) => Behaviour>()
  const open = new Map<string, number>()
  const maxOpen = new Map<string, number>()
  const hanging = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = req.url ?? "/"
      const raw = Buffer.concat(chunks)
      let json: unknown
      try {
        json = JSON.parse(raw.toString("utf8"))
      } catch {
        json = undefined
      }
      received.push({ path, headers: req.headers, raw, at: Date.now(), json })
      const n = received.filter((r) => r.path === path).length
      const b = behaviour.get(path)?.(n) ?? { status: 200 }
      open.set(path, (open.get(path) ?? 0) + 1)
      maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!))
      const done = () => open.set(path, open.get(path)! - 1)
      if (b === "hang") {
        hanging.add(res)
        res.on("close", () => {
          hanging.delete(res)
          done()
        })
        return
      }
      const answer = () => {
        if (res.destroyed) return done()
        res.writeHead(b.status, { "content-type": "text/plain", ...b.headers })
        res.end("ok")
        done()
      }
      if (b.delayMs) setTimeout(answer, b.delayMs)
      else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    /** How `path` answers its n-th request (1-based). */
    on: (path: string, f: (n: number) => Behaviour) => void behaviour.set(path, f),
    maxConcurrent: (path: string) => maxOpen.get(path) ?? 0,
    /** Resolves once `path` has `count` requests, or rejects after `timeoutMs`. */
    waitFor: async (path: string, count: number, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs
      while (received.filter((r) => r.path === path).length < count) {
        if (Date.now() > deadline) throw new Error(`${path}: ${received.filter((r) => r.path === path).length} of ${count} requests after ${timeoutMs} ms`)
        await new Promise((r) => setTimeout(r, 20))
      }
      return received.filter((r) => r.path === path)
    },
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
