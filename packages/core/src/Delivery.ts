/**
 * What one webhook delivery attempt is, as pure functions: the request to send (body and both
 * signature header sets), how to read its outcome (2xx success; anything else, a timeout or a
 * network error is a failure, retried on the spec's schedule; 410 Gone disables the endpoint),
 * and when an endpoint that only fails is disabled (failures only for 5 days and at least 10
 * attempts).
 */
import * as RetrySchedule from "./RetrySchedule.ts"
import * as Signature from "./Signature.ts"

/** How long a receiver has to answer (spec): the default of `Settings.deliveryTimeoutMs`. */
export const TIMEOUT_MS = 5_000
/** An endpoint failing for this long, with at least `DISABLE_AFTER_ATTEMPTS` attempts, is disabled. */
export const DISABLE_AFTER_MS = 5 * 86_400_000
export const DISABLE_AFTER_ATTEMPTS = 10
/** Log entries older than this are purged. */
export const LOG_RETENTION_MS = 30 * 86_400_000
/**
 * Events older than this are purged with their deliveries (`GET /v1/events` reaches back this
 * far), each once none of its deliveries is still pending: so the outbox holds a bounded window
 * of an account's history, not all of it.
 */
export const EVENT_RETENTION_MS = 30 * 86_400_000
/** At most this much of a response body is read (and none of it stored). */
export const MAX_RESPONSE_BYTES = 1024

/** Classes of failure recorded in the log. */
export type ErrorClass = "timeout" | "dns" | "connect" | "tls" | "http" | "blocked" | "network"

/** A request to send. */
export interface OutgoingRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeoutMs: number
}

/** What happened to a request: a response, or an error before one. */
export type AttemptResult =
  | { readonly kind: "response"; readonly status: number; readonly retryAfterSeconds?: number | undefined; readonly durationMs: number }
  | { readonly kind: "error"; readonly errorClass: Exclude<ErrorClass, "http">; readonly message: string; readonly durationMs: number }

/** The headers of a delivery: the spec's and the Standard Webhooks set. */
export const headers = (event: { readonly id: string; readonly type: string }, secret: string, body: string,
  timestampSeconds: number): Record<string, string> => ({
    "content-type": "application/json",
    "user-agent": "Canopy-Webhooks/1.0",
    "x-service-signature": Signature.sign(secret, body),
    "x-service-event-id": event.id,
    "x-service-event-type": event.type,
    "x-service-timestamp": String(timestampSeconds),
    "webhook-id": event.id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": Signature.standard(secret, event.id, timestampSeconds, body)
  })

/** The outcome of attempt number `attempt` (1-based) that ended at `now`. */
export interface Outcome {
  readonly success: boolean
  /** The delivery's status after this attempt. */
  readonly status: "success" | "pending" | "failed"
  readonly nextAttemptAt: number | null
  readonly responseCode: number | null
  readonly error: string | null
  readonly errorClass: ErrorClass | null
  /** Disable the endpoint now, with this reason (410 Gone). */
  readonly disable: string | null
}

/** Reads an attempt's result. */
export const outcome = (attempt: number, result: AttemptResult, now: number): Outcome => {
  if (result.kind === "response" && result.status >= 200 && result.status < 300) {
    return { success: true, status: "success", nextAttemptAt: null, responseCode: result.status, error: null, errorClass: null, disable: null }
  }
  const next = RetrySchedule.next(attempt, new Date(now), result.kind === "response" ? result.retryAfterSeconds : undefined)
  const gone = result.kind === "response" && result.status === 410
  const nextAttemptAt = gone ? null : next?.getTime() ?? null
  return {
    success: false,
    status: nextAttemptAt === null ? "failed" : "pending",
    nextAttemptAt,
    responseCode: result.kind === "response" ? result.status : null,
    error: result.kind === "response" ? `HTTP ${result.status}` : result.message,
    errorClass: result.kind === "response" ? "http" : result.errorClass,
    disable: gone ? "the endpoint answered 410 Gone" : null
  }
}

/** Webhook health after an attempt: failures in a row and since when; and whether to disable it. */
export const health = (
  before: { readonly consecutive_failures: number; readonly failing_since: string | null },
  success: boolean,
  now: number
): { readonly consecutive_failures: number; readonly failing_since: string | null; readonly disable: string | null } => {
  if (success) return { consecutive_failures: 0, failing_since: null, disable: null }
  const failures = before.consecutive_failures + 1
  const since = before.failing_since ?? new Date(now).toISOString()
  const disable = failures >= DISABLE_AFTER_ATTEMPTS && now - Date.parse(since) >= DISABLE_AFTER_MS
    ? `every delivery failed for ${Math.floor((now - Date.parse(since)) / 86_400_000)} days (${failures} attempts in a row)`
    : null
  return { consecutive_failures: failures, failing_since: since, disable }
}

/** Parses a Retry-After header: delay-seconds or an HTTP date. */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}
