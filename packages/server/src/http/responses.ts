/**
 * Responses every part of the HTTP layer writes: JSON with the request id, the answer to an error
 * of the table (`Errors.table`: its status, the spec's body, its headers), the security headers,
 * the rate-limit headers and the 503 of an unavailable database.
 */
import { Errors, type FieldError, RateLimit, RawJson } from "@canopy/core"
import type { Cause } from "effect"
import type { ApiResponse } from "./types.ts"

/** A JSON response carrying the request id. */
export const json = (status: number, requestId: string, payload: unknown, headers: Record<string, string> = {}): ApiResponse => {
  // A project's boundary is held as its JSON text (RawJson): spliced in, never parsed here; one
  // that came from a geometry worker as UTF-8 bytes is written as those bytes (RawJson.chunks).
  const body = RawJson.chunks(payload)
  return typeof body === "string"
    ? { status, headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId, ...headers }, body }
    : { status, headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId, ...headers }, body: undefined, chunks: body }
}

/**
 * The policy of an HTML page that sets none of its own (the API reference): nothing loads but its
 * inline styles, it submits no form, and no page may frame it.
 */
const HTML_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * A response with the headers every response carries: `X-Content-Type-Options: nosniff`, and on
 * an HTML page a Content-Security-Policy and `X-Frame-Options: DENY` unless it set its own.
 */
export const withSecurityHeaders = (res: ApiResponse): ApiResponse => {
  const headers: Record<string, string> = { ...res.headers, "x-content-type-options": "nosniff" }
  if (/^text\/html\b/i.test(headers["content-type"] ?? "")) {
    headers["content-security-policy"] ??= HTML_CONTENT_SECURITY_POLICY
    headers["x-frame-options"] ??= "DENY"
  }
  return { ...res, headers }
}

/**
 * The answer to an error of the table: its row's status and headers (after `headers`, the
 * request's own), the spec's body with its code, message and details.
 */
export const refusal = (requestId: string, error: Errors.AnyError, headers: Record<string, string> = {}): ApiResponse =>
  errorResponse(Errors.statusOf(error), requestId, Errors.codeOf(error), error.message, Errors.detailsOf(error), { ...headers, ...Errors.headersOf(error) })

/** The spec's error body with a status and code (`refusal` takes them from the error's row). */
const errorResponse = (
  status: number,
  requestId: string,
  code: Errors.Code,
  message: string,
  details: ReadonlyArray<FieldError.FieldError> = [],
  headers: Record<string, string> = {}
): ApiResponse => json(status, requestId, { error: { code, message, details }, meta: { request_id: requestId } }, headers)

// (lower case, as every header this handler writes)
const LIMIT = RateLimit.HEADERS.limit.toLowerCase()
const REMAINING = RateLimit.HEADERS.remaining.toLowerCase()
const RESET = RateLimit.HEADERS.reset.toLowerCase()
const RETRY_AFTER = RateLimit.HEADERS.retryAfter.toLowerCase()

/** The `X-RateLimit-*` headers of a decision, and `Retry-After` when it refused. */
export const rateLimitHeaders = (d: RateLimit.Decision): Record<string, string> => ({
  [LIMIT]: String(d.limit),
  [REMAINING]: String(d.remaining),
  [RESET]: String(d.reset),
  ...(d.allowed ? {} : { [RETRY_AFTER]: Errors.retryAfter(d.retryAfter) })
})

/** Whether a failure is the store's (the database down, frozen or refusing writes). */
export const isStorageError = (e: unknown): boolean => (e as { _tag?: unknown } | null)?._tag === "StorageError"

/**
 * The answer when the database is down, frozen (an operation timed out) or refuses writes: `503`
 * with the spec's body, code `INTERNAL_ERROR` (the spec's code for server errors; DECISIONS) and
 * `Retry-After`.
 */
export const unavailable = (requestId: string, headers: Record<string, string> = {}): ApiResponse =>
  refusal(requestId, new Errors.Unavailable({ message: "The database is unavailable; retry later" }), headers)

/** A short, secret-free description of an unexpected failure, for the log. */
export const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const reason = cause.reasons[0]
  if (!reason) return "interrupted"
  const value = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : "interrupted"
  const tag = (value as { _tag?: unknown })?._tag
  return typeof tag === "string" ? tag : value instanceof Error ? value.name : reason._tag
}
