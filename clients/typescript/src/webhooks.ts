/**
 * Verifying webhook deliveries exactly as Canopy signs them, with WebCrypto only
 * (`globalThis.crypto.subtle`), so it runs in Node ≥ 20, Deno, Bun, edge runtimes and browsers.
 *
 * Each delivery carries two signature sets over the raw request body:
 * - `X-Service-Signature: sha256=<lowercase hex>`: HMAC-SHA256 of the body keyed by the secret's
 *   UTF-8 bytes (the spec's header). `X-Service-Timestamp` is sent alongside but is not signed.
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`, an
 *   HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed by the base64-decoded part of a `whsec_…`
 *   secret (the secret's UTF-8 bytes when it has no `whsec_` prefix). It authenticates the
 *   timestamp too, so the tolerance check means something.
 */
import { WebhookVerificationError } from "./errors.ts"
import type { WebhookEvent } from "./types.ts"

/** The raw body as received: a string, bytes, or an ArrayBuffer. */
export type RawBody = string | Uint8Array | ArrayBuffer

/**
 * Request headers: a `Headers`, Node's `IncomingHttpHeaders` (`req.headers`), a plain record or
 * name/value pairs. Names are case-insensitive.
 */
export type HeadersLike =
  | Headers
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  | Iterable<readonly [string, string]>

export interface VerifyOptions {
  /** Seconds the delivery's timestamp may be from now (default 300); `null` skips the check. */
  readonly tolerance?: number | null | undefined
  /** "Now" in seconds since the epoch (default: the clock). */
  readonly now?: number | undefined
}

const encoder = new TextEncoder()

const toBytes = (x: RawBody): Uint8Array => typeof x === "string" ? encoder.encode(x) : x instanceof Uint8Array ? x : new Uint8Array(x)

const subtle = (): typeof globalThis.crypto.subtle => {
  const s = globalThis.crypto?.subtle
  if (!s) throw new WebhookVerificationError("WebCrypto (globalThis.crypto.subtle) is not available in this runtime")
  return s
}

const hmac = async (key: Uint8Array, ...parts: ReadonlyArray<Uint8Array>): Promise<Uint8Array> => {
  // WebCrypto refuses an empty HMAC key; HMAC zero-pads keys to the block size, so one zero byte is the same key.
  const k = await subtle().importKey("raw", (key.length === 0 ? new Uint8Array(1) : key) as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign"
  ])
  const total = parts.reduce((n, p) => n + p.length, 0)
  const message = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    message.set(p, at)
    at += p.length
  }
  return new Uint8Array(await subtle().sign("HMAC", k, message))
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

const base64 = (bytes: Uint8Array): string => {
  let s = ""
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s)
}

/** Base64 decoded leniently, as the server does (either alphabet, padding optional, other characters skipped). */
const fromBase64 = (text: string): Uint8Array => {
  let t = text.replace(/-/g, "+").replace(/_/g, "/").split("=")[0]!.replace(/[^A-Za-z0-9+/]/g, "")
  if (t.length % 4 === 1) t = t.slice(0, -1)
  const bin = atob(t + "=".repeat((4 - (t.length % 4)) % 4))
  return Uint8Array.from(bin, (c) => c.charCodeAt(0))
}

const standardKey = (secret: string): Uint8Array => secret.startsWith("whsec_") ? fromBase64(secret.slice("whsec_".length)) : encoder.encode(secret)

/** Equality of two strings in time independent of where they differ (false when lengths differ). */
export const constantTimeEqual = (a: string, b: string): boolean => {
  const x = encoder.encode(a)
  const y = encoder.encode(b)
  if (x.length !== y.length) return false
  let diff = 0
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!
  return diff === 0
}

/** The `X-Service-Signature` value of a raw body: `sha256=<lowercase hex>`. */
export const signPayload = async (secret: string, rawBody: RawBody): Promise<string> => `sha256=${hex(await hmac(encoder.encode(secret), toBytes(rawBody)))}`

/** The Standard Webhooks `webhook-signature` value: `v1,<base64>`. */
export const signStandard = async (secret: string, id: string, timestamp: number, rawBody: RawBody): Promise<string> =>
  `v1,${base64(await hmac(standardKey(secret), encoder.encode(`${id}.${timestamp}.`), toBytes(rawBody)))}`

const headerMap = (headers: HeadersLike): Map<string, string> => {
  const out = new Map<string, string>()
  const put = (name: string, value: unknown) => {
    if (value === undefined || value === null) return
    out.set(name.toLowerCase(), Array.isArray(value) ? value.join(", ") : String(value))
  }
  if (typeof Headers !== "undefined" && headers instanceof Headers) headers.forEach((v, k) => put(k, v))
  else if (Symbol.iterator in Object(headers) && typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function") {
    for (const [k, v] of headers as Iterable<readonly [string, string]>) put(k, v)
  } else for (const [k, v] of Object.entries(headers)) put(k, v)
  return out
}

const integer = (text: string, what: string): number => {
  if (!/^\s*\d+\s*$/.test(text)) throw new WebhookVerificationError(`${what} is not an integer`)
  return Number(text.trim())
}

/**
 * Verifies a delivery and answers its event. `rawBody` must be the body exactly as received
 * (not re-serialised JSON). Every signature header present must be valid (and at least one
 * present), compared in constant time; the timestamp (`webhook-timestamp`, else
 * `X-Service-Timestamp`) must be within `tolerance` seconds of now. Throws
 * `WebhookVerificationError` otherwise.
 */
export const verifyWebhook = async (rawBody: RawBody, headers: HeadersLike, secret: string, options: VerifyOptions = {}): Promise<WebhookEvent> => {
  if (!secret) throw new WebhookVerificationError("no webhook secret given")
  const body = toBytes(rawBody)
  const h = headerMap(headers)
  const serviceSig = h.get("x-service-signature")
  const standardSig = h.get("webhook-signature")
  if (serviceSig === undefined && standardSig === undefined) {
    throw new WebhookVerificationError("no X-Service-Signature or webhook-signature header")
  }
  if (serviceSig !== undefined && !constantTimeEqual(await signPayload(secret, body), serviceSig.trim())) {
    throw new WebhookVerificationError("X-Service-Signature does not match the body")
  }
  let timestamp = h.get("webhook-timestamp")
  if (standardSig !== undefined) {
    const id = h.get("webhook-id")
    if (id === undefined || timestamp === undefined) throw new WebhookVerificationError("webhook-signature without webhook-id and webhook-timestamp")
    const expected = await signStandard(secret, id, integer(timestamp, "webhook-timestamp"), body)
    // Several space-separated signatures may be listed (secret rotation): one must match. All are compared.
    const matches = standardSig.split(" ").filter(Boolean).map((part) => constantTimeEqual(part, expected))
    if (!matches.includes(true)) throw new WebhookVerificationError("webhook-signature does not match the body")
  }
  timestamp ??= h.get("x-service-timestamp")
  const tolerance = options.tolerance === undefined ? 300 : options.tolerance
  if (tolerance !== null) {
    if (timestamp === undefined) throw new WebhookVerificationError("no timestamp header to check the tolerance against")
    const now = options.now ?? Date.now() / 1000
    if (Math.abs(now - integer(timestamp, "the timestamp header")) > tolerance) {
      throw new WebhookVerificationError(`the timestamp is more than ${tolerance} s from now`)
    }
  }
  let event: unknown
  try {
    event = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body))
  } catch {
    throw new WebhookVerificationError("the body is not JSON")
  }
  if (typeof event !== "object" || event === null || Array.isArray(event)) throw new WebhookVerificationError("the body is not an event object")
  const e = event as Record<string, unknown>
  if (typeof e.id !== "string" || typeof e.type !== "string") throw new WebhookVerificationError("the body is not an event (no id or type)")
  return e as unknown as WebhookEvent
}
