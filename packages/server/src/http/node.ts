/**
 * The pipeline as a Node `(req, res)` handler: mount it on `http.createServer`, or under a path of
 * an existing Express/Connect app. Reads the body up to the limit, works out the client address
 * (`X-Forwarded-For` only from configured trusted proxies) and writes the response.
 */
import { Errors, Ids, IpAllowlist } from "@canopy/core"
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { movableBodies } from "../geometry/transfer.ts"
import { type AccessLogLine, type ApiRequest, type ApiResponse, MAX_BODY_BYTES, refusal, withSecurityHeaders } from "./handler.ts"

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

/**
 * The most bytes of request line and headers a server started by `serve` takes (Node's default is
 * 16 KiB): enough for an `intersects=` filter of 1,000 positions at full double precision (about
 * 48 KB URL-encoded) beside the usual headers. Past it: 431 with the spec's body.
 */
export const MAX_HEADER_BYTES = 96 * 1024

/**
 * An oversize body is read and thrown away, up to this many bytes past the limit or for this long,
 * while its 413 is answered: a client still sending when the server closed the connection would
 * get a reset instead of the answer. Past them the server stops reading (the client's sending
 * stalls on TCP's flow control, nothing more is read), gives the client `graceMs` to read the 413,
 * then closes the connection.
 */
const DRAIN_LIMITS = { bytes: 2 * MAX_BODY_BYTES, ms: 5_000, graceMs: 1_000 } as const

/** A body as read: its bytes, or that it was too large and when the rest of it has been drained. */
interface ReadBody {
  readonly body: Uint8Array | undefined
  readonly tooLarge: boolean
  /** Resolves once an oversize body ended (`ended`), or its drain reached `DRAIN_LIMITS` (`cut`: reading stopped). */
  readonly drained?: Promise<"ended" | "cut">
}

const noBody: Promise<ReadBody> = Promise.resolve({ body: undefined, tooLarge: false })

/**
 * Reads and discards what is left of a request, up to `DRAIN_LIMITS`; resolves `ended` when the
 * body ended (or the connection went), `cut` when a limit was reached: then reading has stopped.
 */
const drain = (req: IncomingMessage, alreadyRead: number): Promise<"ended" | "cut"> =>
  new Promise((resolve) => {
    let read = alreadyRead
    const done = (how: "ended" | "cut") => {
      clearTimeout(timer)
      req.off("data", count)
      req.off("end", ended)
      req.off("close", ended)
      req.off("error", ended)
      if (how === "cut") {
        req.pause()
        req.socket?.pause()
      }
      resolve(how)
    }
    const ended = () => done("ended")
    const count = (chunk: Buffer) => {
      read += chunk.length
      if (read > DRAIN_LIMITS.bytes) done("cut")
    }
    const timer = setTimeout(() => done("cut"), DRAIN_LIMITS.ms).unref()
    if (req.complete) return done("ended")
    req.on("data", count)
    req.on("end", ended)
    req.on("close", ended)
    req.on("error", ended)
    req.resume()
  })

const readBody = (req: IncomingMessage, limit: number): Promise<ReadBody> => {
  // HTTP/1.1: a request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3).
  if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return noBody
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? NaN)
    if (declared > limit) {
      resolve({ body: undefined, tooLarge: true, drained: drain(req, 0) })
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) {
        chunks.push(chunk)
        return
      }
      // Over the limit while arriving (chunked, or more than declared): answered now, the rest drained.
      chunks.length = 0
      req.off("data", onData)
      req.off("end", onEnd)
      resolve({ body: undefined, tooLarge: true, drained: drain(req, size) })
    }
    const onEnd = () => {
      const body = size === 0 ? undefined : Buffer.concat(chunks)
      // Made for this request alone: a geometry worker may take its memory rather than a copy.
      if (body) movableBodies.add(body)
      resolve({ body, tooLarge: false })
    }
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", reject)
  })
}

/** Writes an ApiResponse to a Node response; a streamed body is pulled as the socket drains. */
const writeResponse = async (res: ServerResponse, r: ApiResponse): Promise<void> => {
  const headers: Record<string, string | number> = { ...r.headers }
  if (r.chunks !== undefined && r.stream === undefined) {
    let length = 0
    for (const c of r.chunks) length += typeof c === "string" ? Buffer.byteLength(c) : c.byteLength
    headers["content-length"] = length
    res.writeHead(r.status, headers)
    for (const c of r.chunks) res.write(c)
    res.end()
    return
  }
  if (r.stream === undefined) {
    if (r.body !== undefined) headers["content-length"] = Buffer.byteLength(r.body)
    res.writeHead(r.status, headers)
    res.end(r.body)
    return
  }
  res.writeHead(r.status, headers)
  await writeStream(res, r.stream)
}

/**
 * Writes chunks one after another, waiting for the socket to drain before pulling the next; ends
 * the response, or destroys it when the source fails (the client sees a cut body, not a false end).
 */
const writeStream = async (res: ServerResponse, source: AsyncIterable<string | Uint8Array>): Promise<void> => {
  const iterator = source[Symbol.asyncIterator]()
  let gone = false
  const onClose = () => {
    gone = true
  }
  res.once("close", onClose)
  try {
    for (;;) {
      if (gone || res.destroyed) break
      const next = await iterator.next()
      if (next.done) {
        res.end()
        return
      }
      // The client may have gone while the chunk was being made: a write would wait for a drain
      // (or a close) that never comes.
      if (gone || res.destroyed) break
      if (!res.write(next.value)) {
        await new Promise<void>((resolve) => {
          if (gone || res.destroyed) return resolve()
          const done = () => {
            res.off("drain", done)
            res.off("close", done)
            resolve()
          }
          res.on("drain", done)
          res.on("close", done)
        })
      }
    }
    await iterator.return?.()
  } catch {
    res.destroy()
  } finally {
    res.off("close", onClose)
  }
}

/** A Node `(req, res)` handler running the pipeline. */
export const toNodeHandler = (handle: (req: ApiRequest) => Promise<ApiResponse>, options: NodeAdapterOptions = {}) => {
  const base = (options.basePath ?? "").replace(/\/+$/, "")
  const trusted = options.trustedProxies ?? []
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost")
    let path = url.pathname
    if (base && (path === base || path.startsWith(`${base}/`))) path = path.slice(base.length) || "/"
    const { body, drained, tooLarge } = await readBody(req, MAX_BODY_BYTES)
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
    if (drained) return answerOversize(res, response, drained)
    await writeResponse(res, response)
  }
}

/**
 * The answer to an oversize body (its 413), with `Connection: close`: written at once, ended (and
 * the connection closed) only once the rest of the body was drained, so that a client still
 * sending reads the answer rather than a reset.
 */
const answerOversize = async (res: ServerResponse, r: ApiResponse, drained: Promise<"ended" | "cut">): Promise<void> => {
  if (r.body === undefined && (r.chunks !== undefined || r.stream !== undefined)) {
    await drained
    return writeResponse(res, { ...r, headers: { ...r.headers, connection: "close" } })
  }
  const body = r.body ?? ""
  res.writeHead(r.status, { ...r.headers, "content-length": Buffer.byteLength(body), connection: "close" })
  res.write(body)
  // Cut: reading has stopped; closing at once would reset the connection and could take the
  // unread 413 with it, so the client gets `graceMs` to read it first.
  if ((await drained) === "cut") await new Promise((resolve) => setTimeout(resolve, DRAIN_LIMITS.graceMs).unref())
  res.end()
}

/** What a refusal by Node's HTTP parser answers, by the error's code (as Node's own default does). */
/** The error of the table a request Node's parser refused answers with, by the parser's code. */
const parserRefusal = (code: string | undefined): Errors.AnyError => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new Errors.HeadersTooLarge({ message: "The request line and headers are too large" })
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new Errors.BodyTooLarge({ message: "The request's chunk extensions are too large", details: [] })
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new Errors.RequestTimeout({ message: "The request was not received in time" })
    default:
      return new Errors.BadRequest({ message: "The request is not valid HTTP/1.1", details: [] })
  }
}

const unknownLine = { method: "-", path: "-" }

/**
 * The method and path of the request that failed to parse, when its whole request line was read
 * from the packet at hand (it may have come in an earlier one); never the query string.
 */
const requestLine = (err: { readonly rawPacket?: unknown; readonly bytesParsed?: unknown }) => {
  const raw = err.rawPacket
  if (!(raw instanceof Uint8Array)) return unknownLine
  const parsed = typeof err.bytesParsed === "number" ? Math.min(Math.max(err.bytesParsed, 0), raw.length) : raw.length
  const text = Buffer.from(raw.buffer, raw.byteOffset, parsed).toString("latin1")
  // the refused request starts after the last complete head in this packet
  const previous = text.lastIndexOf("\r\n\r\n")
  const line = /^([A-Z]{1,20}) ([^\s?#]{1,2048})\S* HTTP\/1\.[01]\r\n/.exec(previous < 0 ? text : text.slice(previous + 4))
  return line ? { method: line[1]!, path: line[2]! } : unknownLine
}

/**
 * A `clientError` listener for a Node HTTP server: a request Node's parser refuses (headers over
 * `maxHeaderSize` → 431, a malformed request line or header → 400, too slow → 408) gets the
 * spec's error body with a request id and the security headers, and an access-log line, instead
 * of Node's bare status line. `server.on("clientError", clientErrorHandler({ log }))`;
 * `nodeHandler(…).clientError` is one bound to the handler's log.
 */
export const clientErrorHandler =
  (options: { readonly log?: ((line: AccessLogLine) => void) | undefined } = {}) =>
  (err: Error & { readonly code?: string; readonly rawPacket?: unknown; readonly bytesParsed?: unknown }, socket: Duplex): void => {
    // A response of this connection has started: another one would corrupt the stream.
    const current = (socket as { readonly _httpMessage?: { readonly headersSent?: boolean } | null })._httpMessage
    if (err.code === "ECONNRESET" || !socket.writable || current?.headersSent) {
      socket.destroy()
      return
    }
    const requestId = Ids.make("request")
    const res = withSecurityHeaders(refusal(requestId, parserRefusal(err.code)))
    const status = res.status
    const body = res.body ?? ""
    const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`]
    for (const [k, v] of Object.entries(res.headers)) head.push(`${k}: ${v}`)
    head.push(`content-length: ${Buffer.byteLength(body)}`, "connection: close", "", "")
    options.log?.({
      time: new Date().toISOString(),
      request_id: requestId,
      ...requestLine(err),
      route: "unparsed",
      status,
      duration_ms: 0,
      error: err.code ?? err.name
    })
    socket.end(`${head.join("\r\n")}${body}`, () => socket.destroy())
  }
