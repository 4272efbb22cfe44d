/**
 * The webhook sender `createCanopy` and `Canopy.layer` use unless given another: node:http and
 * node:https, pooled keep-alive connections, no redirects, a timeout, at most
 * `Delivery.MAX_RESPONSE_BYTES` of a response read. SSRF guard (the server's sender has the same):
 * the URL as written is checked (`WebhookTarget`); a host name is resolved by a guarded lookup
 * that checks every address it yields, and the socket connects to an address it checked, so a
 * name that resolves (or rebinds) to a loopback, private or metadata address is refused. The
 * `allowInsecureWebhooks` setting (development, tests) lifts the checks.
 */
import { Effect, Layer } from "effect"
import { lookup as systemLookup, type LookupAddress } from "node:dns"
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import { isIP } from "node:net"
import * as Delivery from "./Delivery.ts"
import { Sender } from "./services/Deliveries.ts"
import { Settings } from "./Settings.ts"
import * as WebhookTarget from "./WebhookTarget.ts"

/** Resolves a host name to every address it has (the shape of `dns.lookup` with `all: true`). */
export type Lookup = (
  hostname: string,
  options: { readonly all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: ReadonlyArray<LookupAddress>) => void
) => void

const BLOCKED = "CANOPY_BLOCKED_ADDRESS"

type SocketLookupCallback = (err: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void

/** Why a resolved address may not be connected to: anything that is not an IP literal is refused too. */
const blockedResolved = (address: string) => (isIP(address) === 0 ? "a non-IP address" : WebhookTarget.blockedAddress(address))

/** A socket `lookup` that resolves with `resolve` and answers only addresses that pass the checks. */
export const guardedLookup = (resolve: Lookup, allowLocal: boolean) => (hostname: string, options: { all?: boolean }, callback: SocketLookupCallback) => {
  resolve(hostname, { all: true }, (err, addresses) => {
    if (err) return callback(err, "")
    const allowed = allowLocal ? [...addresses] : addresses.filter((a) => blockedResolved(a.address) === undefined)
    if (allowed.length === 0) {
      const why = addresses.length === 0 ? "no address" : blockedResolved(addresses[0]!.address) ?? "a blocked address"
      return callback(Object.assign(new Error(`${hostname} resolves to ${why}`), { code: BLOCKED }), "")
    }
    if (options.all) return callback(null, allowed)
    callback(null, allowed[0]!.address, allowed[0]!.family)
  })
}

type Failure = Pick<Extract<Delivery.AttemptResult, { kind: "error" }>, "errorClass" | "message">

const classify = (e: unknown, timeoutMs: number): Failure => {
  const err = e as { code?: string; name?: string; message?: string }
  const code = err.code ?? ""
  if (code === BLOCKED) return { errorClass: "blocked", message: err.message ?? "blocked address" }
  if (err.name === "AbortError" || code === "ABORT_ERR" || /TIMEOUT/.test(code)) return { errorClass: "timeout", message: `no answer within ${timeoutMs} ms` }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return { errorClass: "dns", message: `the host name did not resolve (${code})` }
  if (/^(ERR_TLS|CERT_|DEPTH_ZERO|UNABLE_TO_|SELF_SIGNED|ERR_SSL)/.test(code)) return { errorClass: "tls", message: `TLS failed (${code})` }
  if (/^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE)/.test(code)) return { errorClass: "connect", message: `connection failed (${code})` }
  return { errorClass: "network", message: code ? `network error (${code})` : "network error" }
}

/** Reads at most `MAX_RESPONSE_BYTES` of a response and keeps none; a longer one closes its connection. */
const discard = (res: IncomingMessage) => {
  let read = 0
  res.on("data", (chunk: Buffer) => {
    read += chunk.length
    if (read > Delivery.MAX_RESPONSE_BYTES) res.destroy()
  })
  res.on("error", () => undefined)
}

/** Keep-alive connection pools, one pair per setting: a socket opened unchecked is never reused checked. */
const makePools = (resolve: Lookup) => {
  const pair = (allowLocal: boolean) => {
    const lookup = guardedLookup(resolve, allowLocal)
    return { lookup, http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) }
  }
  const pools = { checked: pair(false), unchecked: pair(true) }
  return { of: (allowLocal: boolean) => allowLocal ? pools.unchecked : pools.checked, close: () =>
    Object.values(pools).forEach((p) => {
      p.http.destroy()
      p.https.destroy()
    }) }
}

/**
 * The guarded sender as a layer: host names resolved with `lookup` (default: the system's,
 * `dns.lookup`), every address checked. Its connection pools close with the layer.
 */
export const layer = (options: { readonly lookup?: Lookup } = {}): Layer.Layer<Sender> =>
  Layer.effect(Sender, Effect.gen(function*() {
    const pools = yield* Effect.acquireRelease(
      Effect.sync(() => makePools(options.lookup ?? (systemLookup as unknown as Lookup))),
      (p) => Effect.sync(() => p.close())
    )
    const send = (req: Delivery.OutgoingRequest) =>
      Effect.flatMap(Settings, (settings) =>
        Effect.callback<Delivery.AttemptResult>((resume) => {
          const started = performance.now()
          const elapsed = () => Math.round(performance.now() - started)
          const allowLocal = settings.allowInsecureWebhooks
          const literal = WebhookTarget.problems(req.url, { allowInsecure: allowLocal })
          if (literal.length > 0) return resume(Effect.succeed({ kind: "error", errorClass: "blocked", message: `URL ${literal[0]}`, durationMs: 0 }))
          const url = new URL(req.url)
          const secure = url.protocol === "https:"
          const pool = pools.of(allowLocal)
          let settled = false
          const settle = (result: Delivery.AttemptResult) => {
            if (settled) return
            settled = true
            resume(Effect.succeed(result))
          }
          const outgoing = (secure ? httpsRequest : httpRequest)(url, {
            method: "POST",
            headers: { ...req.headers, "content-length": String(Buffer.byteLength(req.body)) },
            agent: secure ? pool.https : pool.http,
            lookup: pool.lookup as never,
            signal: AbortSignal.timeout(req.timeoutMs)
          }, (res) => {
            const retryAfter = res.headers["retry-after"]
            settle({
              kind: "response",
              status: res.statusCode ?? 0,
              durationMs: elapsed(),
              retryAfterSeconds: Delivery.parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, Date.now())
            })
            discard(res)
          })
          outgoing.on("error", (e) => settle({ kind: "error", ...classify(e, req.timeoutMs), durationMs: elapsed() }))
          outgoing.end(req.body)
          return Effect.sync(() => outgoing.destroy())
        }))
    return Sender.of({ send })
  }))
