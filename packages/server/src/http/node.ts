/**
 * The pipeline as a Node `(req, res)` handler: mount it on `http.createServer`, or under a path of
 * an existing Express/Connect app. Reads the body up to the limit, works out the client address
 * (`X-Forwarded-For` only from configured trusted proxies) and writes the response.
 */
import { IpAllowlist } from "@canopy/core"
import type { IncomingMessage, ServerResponse } from "node:http"
import { type ApiRequest, type ApiResponse, MAX_BODY_BYTES } from "./handler.ts"

/** Options of the Node adapter. */
export interface NodeAdapterOptions {
  /** A path prefix to strip (e.g. `/api` when mounted there). Express's `req.url` is already relative. */
  readonly basePath?: string
  /** Addresses or CIDR ranges of proxies whose `X-Forwarded-For` is believed. Default: none. */
  readonly trustedProxies?: ReadonlyArray<string>
}

/** The client address: the socket's, or the nearest untrusted hop of `X-Forwarded-For` behind trusted proxies. */
export const clientAddress = (socketAddress: string, forwardedFor: string | undefined, trusted: ReadonlyArray<string>): string => {
  const socket = IpAllowlist.normalizeAddress(socketAddress)
  if (!forwardedFor || trusted.length === 0 || !IpAllowlist.allows(trusted, socket)) return socket
  const hops = forwardedFor.split(",").map((h) => IpAllowlist.normalizeAddress(h.trim())).filter((h) => h !== "")
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!IpAllowlist.allows(trusted, hops[i]!)) return hops[i]!
  }
  return hops[0] ?? socket
}

const noBody = Promise.resolve({ body: undefined, tooLarge: false })

const readBody = (req: IncomingMessage, limit: number): Promise<{ body: Uint8Array | undefined; tooLarge: boolean }> => {
  // HTTP/1.1: a request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3).
  if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return noBody
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? NaN)
    if (declared > limit) {
      req.resume()
      resolve({ body: undefined, tooLarge: true })
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    let tooLarge = false
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return
      size += chunk.length
      if (size > limit) {
        tooLarge = true
        chunks.length = 0
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve({ body: size === 0 || tooLarge ? undefined : Buffer.concat(chunks), tooLarge }))
    req.on("error", reject)
  })
}

/** Writes an ApiResponse to a Node response. */
export const writeResponse = (res: ServerResponse, r: ApiResponse) => {
  const headers: Record<string, string | number> = { ...r.headers }
  if (r.body !== undefined) headers["content-length"] = Buffer.byteLength(r.body)
  res.writeHead(r.status, headers)
  res.end(r.body)
}

/** A Node `(req, res)` handler running the pipeline. */
export const toNodeHandler = (handle: (req: ApiRequest) => Promise<ApiResponse>, options: NodeAdapterOptions = {}) => {
  const base = (options.basePath ?? "").replace(/\/+$/, "")
  const trusted = options.trustedProxies ?? []
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost")
    let path = url.pathname
    if (base && (path === base || path.startsWith(`${base}/`))) path = path.slice(base.length) || "/"
    const { body, tooLarge } = await readBody(req, MAX_BODY_BYTES)
    const headers: Record<string, string | undefined> = {}
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v
    const response = await handle({
      method: (req.method ?? "GET").toUpperCase(),
      path,
      query: url.searchParams,
      headers,
      body,
      bodyTooLarge: tooLarge,
      ip: clientAddress(req.socket.remoteAddress ?? "", headers["x-forwarded-for"], trusted)
    })
    if (tooLarge) res.setHeader("connection", "close")
    writeResponse(res, response)
  }
}
