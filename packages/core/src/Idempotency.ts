/**
 * Idempotency keys (pure rules): what a key may be, how long it lives, what identifies the request
 * it was first used with, and which response headers are kept for a replay. `IdempotencyKeys`
 * (services) stores them; the server applies them to every `POST` of the API.
 */
import { createHash } from "node:crypto"

/** The request header carrying the key. */
export const HEADER = "idempotency-key"
/** The response header saying a response is a replay. */
export const REPLAYED_HEADER = "idempotent-replayed"
/** Longest key, in characters. */
export const MAX_KEY_LENGTH = 255
/** A key replays its first response for this long after it was first used, then is free again (and purged). */
export const TTL_MS = 24 * 3_600_000
/**
 * A key claimed this long ago by a request that never completed nor released it (its process
 * died) may be claimed again. Longer than any request takes.
 */
export const ABANDONED_AFTER_MS = 5 * 60_000

/** Why a key is refused, or undefined when it is acceptable: 1–255 printable ASCII characters. */
export const checkKey = (key: string): string | undefined => {
  if (key.length === 0) return "must not be empty"
  if (key.length > MAX_KEY_LENGTH) return `must be at most ${MAX_KEY_LENGTH} characters`
  if (!/^[\x20-\x7e]+$/.test(key)) return "must be printable ASCII characters"
  return undefined
}

/**
 * What identifies a request for its key: SHA-256 (hex) of the method, the path with its query
 * string, and the raw body bytes, each part length-prefixed so that no two requests collide by
 * moving bytes between parts.
 */
export const fingerprint = (method: string, target: string, body: Uint8Array | undefined): string => {
  const h = createHash("sha256")
  for (const part of [Buffer.from(method.toUpperCase()), Buffer.from(target), body ?? new Uint8Array()]) {
    h.update(`${part.length}:`)
    h.update(part)
  }
  return h.digest("hex")
}

/**
 * Response headers that belong to the request that carried them, not to the result: a replay gets
 * its own (a new request id, the rate limit as it is now, the security headers every response
 * carries) rather than the first request's.
 */
const PER_REQUEST = /^(x-request-id|x-ratelimit-.*|retry-after|x-content-type-options|content-security-policy|x-frame-options|idempotent-replayed)$/i

/** The headers of a response worth storing for a replay. */
export const storedHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) if (!PER_REQUEST.test(k)) out[k.toLowerCase()] = v
  return out
}
