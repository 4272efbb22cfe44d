/**
 * Typed errors. Every error the client throws is a `CanopyError`: an answer of the API (with the
 * spec's `code`, `message`, `details` and `request_id`), a failure to get one (network, timeout),
 * a refused webhook delivery, or an OAuth token endpoint error.
 */
import type { ErrorDetail } from "./types.ts"

export interface CanopyErrorInit {
  readonly status: number | null
  readonly code: string
  readonly message: string
  readonly details?: ReadonlyArray<ErrorDetail> | undefined
  readonly requestId?: string | null | undefined
  readonly headers?: Headers | undefined
  readonly cause?: unknown
}

export class CanopyError extends Error {
  override readonly name: string = "CanopyError"
  /** HTTP status; null when no response was received. */
  readonly status: number | null
  /** The spec's error code (`VALIDATION_ERROR`, `NOT_FOUND`, …), or `CONNECTION_ERROR`, `TIMEOUT`, an OAuth error code. */
  readonly code: string
  /** `{ field, message }` validation problems (field may be a dotted path such as `geometry.coordinates`). */
  readonly details: ReadonlyArray<ErrorDetail>
  /** `req_…` of the failed request (from the body's meta or the X-Request-Id header), for support. */
  readonly requestId: string | null
  /** The response headers, when there was a response. */
  readonly headers: Headers | undefined

  constructor(init: CanopyErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.status = init.status
    this.code = init.code
    this.details = init.details ?? []
    this.requestId = init.requestId ?? null
    this.headers = init.headers
  }
}

/** 400 other than a validation error. */
export class BadRequestError extends CanopyError {
  override readonly name: string = "BadRequestError"
}
/** `VALIDATION_ERROR` (422, or 400): `details` lists the problems. */
export class ValidationError extends CanopyError {
  override readonly name: string = "ValidationError"
}
/** `UNAUTHORIZED` (401): missing, invalid, revoked or expired token. */
export class AuthenticationError extends CanopyError {
  override readonly name: string = "AuthenticationError"
}
/** `FORBIDDEN` (403): the token lacks the permission. */
export class PermissionDeniedError extends CanopyError {
  override readonly name: string = "PermissionDeniedError"
}
/** `NOT_FOUND` (404). */
export class NotFoundError extends CanopyError {
  override readonly name: string = "NotFoundError"
}
/** `CONFLICT` (409): duplicate slug, deleting an active project, an idempotency key still at work. */
export class ConflictError extends CanopyError {
  override readonly name: string = "ConflictError"
}
/** `RATE_LIMITED` (429), after the retries (if any) were spent. */
export class RateLimitError extends CanopyError {
  override readonly name: string = "RateLimitError"
  /** Seconds to wait before trying again (the `Retry-After` header), when given. */
  readonly retryAfter: number | null
  constructor(init: CanopyErrorInit & { readonly retryAfter: number | null }) {
    super(init)
    this.retryAfter = init.retryAfter
  }
}
/** `INTERNAL_ERROR`, or any 5xx. */
export class InternalServerError extends CanopyError {
  override readonly name: string = "InternalServerError"
}
/** No response: connection refused or broken, DNS, TLS… (`cause` holds the underlying error). */
export class APIConnectionError extends CanopyError {
  override readonly name: string = "APIConnectionError"
}
/** No response within the client's `timeoutMs`. */
export class APITimeoutError extends APIConnectionError {
  override readonly name: string = "APITimeoutError"
}
/** `verifyWebhook` refused a delivery. */
export class WebhookVerificationError extends CanopyError {
  override readonly name: string = "WebhookVerificationError"
  constructor(message: string) {
    super({ status: null, code: "WEBHOOK_VERIFICATION_FAILED", message })
  }
}
/** The OAuth token endpoint refused a request (RFC 6749 §5.2): `code` is e.g. `invalid_grant`. */
export class OAuthError extends CanopyError {
  override readonly name: string = "OAuthError"
}

/** `Retry-After` in seconds (delay-seconds or an HTTP date); null when absent or unreadable. */
export const parseRetryAfter = (value: string | null, now = Date.now()): number | null => {
  if (value === null) return null
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text)
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000)
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The error for an API response that is not 2xx, from its body (the spec's error body) and headers. */
export const errorFromResponse = (response: Response, body: unknown): CanopyError => {
  const status = response.status
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined
  const meta = isRecord(body) && isRecord(body.meta) ? body.meta : undefined
  const code = typeof error?.code === "string" ? error.code : defaultCode(status)
  const message = typeof error?.message === "string"
    ? error.message
    : `HTTP ${status}${typeof body === "string" && body ? `: ${body.slice(0, 200)}` : ""}`
  const details = Array.isArray(error?.details)
    ? (error.details as Array<unknown>).filter(isRecord).map((d) => ({ ...d, field: String(d.field ?? ""), message: String(d.message ?? "") }))
    : []
  const requestId = typeof meta?.request_id === "string" ? meta.request_id : response.headers.get("x-request-id")
  const init: CanopyErrorInit = { status, code, message, details, requestId, headers: response.headers }
  if (code === "VALIDATION_ERROR") return new ValidationError(init)
  if (code === "RATE_LIMITED" || status === 429) return new RateLimitError({ ...init, retryAfter: parseRetryAfter(response.headers.get("retry-after")) })
  if (code === "UNAUTHORIZED" || status === 401) return new AuthenticationError(init)
  if (code === "FORBIDDEN" || status === 403) return new PermissionDeniedError(init)
  if (code === "NOT_FOUND" || status === 404) return new NotFoundError(init)
  if (code === "CONFLICT" || status === 409) return new ConflictError(init)
  if (code === "INTERNAL_ERROR" || status >= 500) return new InternalServerError(init)
  if (status === 400) return new BadRequestError(init)
  return new CanopyError(init)
}

const defaultCode = (status: number): string =>
  status === 400 ? "BAD_REQUEST" : status === 401 ? "UNAUTHORIZED" : status === 403 ? "FORBIDDEN" : status === 404 ? "NOT_FOUND"
    : status === 409 ? "CONFLICT" : status === 422 ? "VALIDATION_ERROR" : status === 429 ? "RATE_LIMITED" : status >= 500 ? "INTERNAL_ERROR" : "HTTP_ERROR"
