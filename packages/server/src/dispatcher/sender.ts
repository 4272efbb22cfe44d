/**
 * The webhook sender: undici, one pooled agent, 5 s timeout, no redirects, at most 1 KiB of a
 * response read and none kept. SSRF guard: a URL naming a blocked address is refused before any
 * connection; a host name is resolved by our own lookup, every address it yields is checked, and
 * the socket connects to the checked address (no second resolution for a rebinding to slip
 * through). `allowLocal` (development, tests) lifts the address checks.
 */
import { Delivery, WebhookTarget } from "@canopy/core"
import { Effect } from "effect"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { isIP } from "node:net"
import { Agent, request } from "undici"

class Blocked extends Error {
  readonly code = "CANOPY_BLOCKED_ADDRESS"
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void

/** Why a resolved address may not be connected to: anything that is not an IP literal is refused too. */
const blockedResolved = (address: string) => (isIP(address) === 0 ? "a non-IP address" : WebhookTarget.blockedAddress(address))

/** A `lookup` for sockets that refuses blocked addresses. */
export const guardedLookup = (allowLocal: boolean) => (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
  dnsLookup(hostname, { all: true }, (err, addresses) => {
    if (err) return callback(err, "")
    const allowed = allowLocal ? addresses : addresses.filter((a) => blockedResolved(a.address) === undefined)
    if (allowed.length === 0) {
      const why = blockedResolved(addresses[0]?.address ?? "") ?? "a blocked address"
      return callback(new Blocked(`${hostname} resolves to ${why}`), "")
    }
    if (options.all) return callback(null, allowed)
    callback(null, allowed[0]!.address, allowed[0]!.family)
  })
}

const classify = (e: unknown, timeoutMs: number): Pick<Extract<Delivery.AttemptResult, { kind: "error" }>, "errorClass" | "message"> => {
  const err = e as { code?: string; name?: string; message?: string; cause?: { code?: string; name?: string; message?: string } }
  const code = err.code ?? err.cause?.code ?? ""
  const name = err.name ?? ""
  if (code === "CANOPY_BLOCKED_ADDRESS" || err.cause?.code === "CANOPY_BLOCKED_ADDRESS")
    return { errorClass: "blocked", message: err.cause?.message ?? err.message ?? "blocked address" }
  if (name === "TimeoutError" || name === "AbortError" || /TIMEOUT/.test(code)) return { errorClass: "timeout", message: `no answer within ${timeoutMs} ms` }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return { errorClass: "dns", message: `the host name did not resolve (${code})` }
  if (/^(ERR_TLS|CERT_|DEPTH_ZERO|UNABLE_TO_|SELF_SIGNED|ERR_SSL)/.test(code)) return { errorClass: "tls", message: `TLS failed (${code})` }
  if (/^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)/.test(code))
    return { errorClass: "connect", message: `connection failed (${code})` }
  return { errorClass: "network", message: code ? `network error (${code})` : "network error" }
}

/** A Sender for `createCanopy`. */
export const makeSender = (options: { readonly allowLocal: boolean }) => {
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.allowLocal) as never },
    connections: 256,
    keepAliveTimeout: 10_000,
    pipelining: 1
  })
  const send = (req: Delivery.OutgoingRequest) =>
    Effect.promise(async (): Promise<Delivery.AttemptResult> => {
      const started = performance.now()
      const literal = WebhookTarget.problems(req.url, { allowInsecure: options.allowLocal })
      if (literal.length > 0) return { kind: "error", errorClass: "blocked", message: `URL ${literal[0]}`, durationMs: 0 }
      try {
        const res = await request(req.url, {
          method: "POST",
          headers: req.headers,
          body: req.body,
          dispatcher: agent,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
          signal: AbortSignal.timeout(req.timeoutMs)
        })
        await res.body.dump({ limit: Delivery.MAX_RESPONSE_BYTES }).catch(() => undefined)
        const retryAfter = res.headers["retry-after"]
        return {
          kind: "response",
          status: res.statusCode,
          durationMs: Math.round(performance.now() - started),
          retryAfterSeconds: Delivery.parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, Date.now())
        }
      } catch (e) {
        return { kind: "error", ...classify(e, req.timeoutMs), durationMs: Math.round(performance.now() - started) }
      }
    })
  return { send, close: () => agent.close() }
}
