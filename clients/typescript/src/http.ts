/**
 * The transport under openapi-fetch: one logical request, sent up to `1 + maxRetries` times.
 *
 * - Retried: 429 (after `Retry-After`, plus jitter), 5xx and network errors (exponential backoff
 *   with jitter, or `Retry-After` when longer), and a 409 carrying `Retry-After` on a POST (its
 *   idempotency key still at work on the server). Every method is retried, POSTs included:
 *   each POST carries an `Idempotency-Key` (generated here with `crypto.randomUUID()` unless the
 *   caller set one) that all its attempts reuse, so the server does the work at most once.
 * - A `Retry-After` longer than `maxRetryAfterMs` (e.g. the daily limit) is not waited for.
 * - Failures without a response become `APIConnectionError` / `APITimeoutError`.
 */
import { APIConnectionError, APITimeoutError, type CanopyError, parseRetryAfter } from "./errors.ts"

/** What `onRetry` is told before each retry. */
export interface RetryInfo {
  readonly method: string
  readonly url: string
  /** 1 for the first retry. */
  readonly retry: number
  /** The status that caused the retry; null for a network error. */
  readonly status: number | null
  /** The network error that caused the retry. */
  readonly error?: CanopyError | undefined
  /** The server's `Retry-After`, in seconds, when it sent one. */
  readonly retryAfter: number | null
  /** How long the client waits now, in milliseconds. */
  readonly delayMs: number
  /** The POST's idempotency key (the same on every attempt); null for other methods. */
  readonly idempotencyKey: string | null
}

export interface TransportOptions {
  readonly fetch: typeof globalThis.fetch
  readonly maxRetries: number
  readonly timeoutMs: number
  readonly backoffBaseMs: number
  readonly backoffMaxMs: number
  readonly maxRetryAfterMs: number
  readonly onRetry?: ((info: RetryInfo) => void) | undefined
  /** For tests: how to wait. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener("abort", onAbort, { once: true })
  })

const jitter = (ms: number) => ms * (0.5 + Math.random() * 0.5)

/** A fetch that retries as described above; give it to openapi-fetch. */
export const retryingFetch = (options: TransportOptions) => async (input: Request): Promise<Response> => {
  const method = input.method.toUpperCase()
  const headers = new Headers(input.headers)
  let idempotencyKey: string | null = null
  if (method === "POST") {
    idempotencyKey = headers.get("idempotency-key")
    if (!idempotencyKey) {
      idempotencyKey = globalThis.crypto.randomUUID()
      headers.set("idempotency-key", idempotencyKey)
    }
  }
  // The body is read once and sent again as is on each attempt.
  const body = input.body === null ? undefined : await input.arrayBuffer()
  const wait = options.sleep ?? sleep
  const userSignal = input.signal

  for (let attempt = 0;; attempt++) {
    const timeout = AbortSignal.timeout(options.timeoutMs)
    const signal = AbortSignal.any([userSignal, timeout])
    let response: Response | undefined
    let failure: CanopyError | undefined
    try {
      response = await options.fetch(new Request(input.url, { method, headers, signal, redirect: input.redirect, ...(body !== undefined ? { body } : {}) }))
    } catch (e) {
      if (userSignal.aborted) throw e
      failure = timeout.aborted
        ? new APITimeoutError({ status: null, code: "TIMEOUT", message: `${method} ${input.url}: no response within ${options.timeoutMs} ms`, cause: e })
        : new APIConnectionError({ status: null, code: "CONNECTION_ERROR", message: `${method} ${input.url}: ${e instanceof Error ? e.message : String(e)}`,
          cause: e })
    }

    let retryAfter: number | null = null
    let delayMs: number
    if (response) {
      const status = response.status
      retryAfter = parseRetryAfter(response.headers.get("retry-after"))
      const retryable = status === 429 || status >= 500 || (status === 409 && method === "POST" && retryAfter !== null)
      if (!retryable || attempt >= options.maxRetries) return response
      const backoff = jitter(Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** attempt))
      if (retryAfter !== null) {
        if (retryAfter * 1000 > options.maxRetryAfterMs) return response
        // Honour the server's wait, with a little jitter after it so retries spread out.
        delayMs = Math.max(retryAfter * 1000 + Math.random() * 250, status >= 500 ? backoff : 0)
      } else delayMs = backoff
      await response.body?.cancel().catch(() => undefined)
    } else {
      if (attempt >= options.maxRetries) throw failure!
      delayMs = jitter(Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** attempt))
    }
    options.onRetry?.({
      method,
      url: input.url,
      retry: attempt + 1,
      status: response?.status ?? null,
      error: failure,
      retryAfter,
      delayMs,
      idempotencyKey
    })
    await wait(delayMs, userSignal)
  }
}
