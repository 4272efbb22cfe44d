/**
 * `Idempotency-Key` on POSTs: the key and fingerprint a request brings, its claim (once the request
 * is known to be well formed), the answer to a key already used, and keeping or freeing the key
 * once the request is answered.
 */
import { type CanopyClient, Errors, Idempotency, IdempotencyKeys, type Storage } from "@canopy/core"
import { Context, Effect, Exit } from "effect"
import type { Route } from "../api/routes.ts"
import { refusal } from "./responses.ts"
import { type ApiRequest, type ApiResponse, responseText } from "./types.ts"

/** A POST's `Idempotency-Key`, its request's fingerprint and, once claimed, the claim's token. */
export interface KeyClaim {
  readonly key: string
  readonly fingerprint: string
  token?: string
  /** Set when the answer depends on the server's load (a budget ran out): the key is freed, as after a 429. */
  loadDependent?: boolean
}

/** The current request's claimed key (the pipeline provides it once claimed). */
export const ClaimedKey = Context.Reference<KeyClaim | undefined>("canopy/http/ClaimedKey", { defaultValue: () => undefined })

/**
 * Says that the current request's answer depends on the load, not on the request (a file whose
 * reading ran out of time): its key is freed once answered, so that a retry does the work.
 */
export const answerDependsOnLoad: Effect.Effect<void> = Effect.gen(function*() {
  const claim = yield* ClaimedKey
  if (claim) claim.loadDependent = true
})

/**
 * A POST's idempotency key was already used: its stored response to replay, or why the request is
 * refused (another request with it, or one still at work). Already an HTTP answer.
 */
export class KeyUsed {
  readonly _tag = "KeyUsed"
  readonly claim: Exclude<Storage.IdempotencyBegin, { readonly kind: "new" }>
  constructor(claim: Exclude<Storage.IdempotencyBegin, { readonly kind: "new" }>) {
    this.claim = claim
  }
}

/** The key a POST brings, with its request's fingerprint; undefined for other methods or without the header. */
export const keyOf = (route: Route, req: ApiRequest): KeyClaim | undefined => {
  const key = route.method === "POST" ? req.headers[Idempotency.HEADER] : undefined
  if (key === undefined) return undefined
  const target = req.query.size > 0 ? `${req.path}?${req.query.toString()}` : req.path
  return { key, fingerprint: Idempotency.fingerprint(req.method, target, req.body) }
}

/**
 * Claims the key for this request (from here on, what the request answers, below 500 but 429, is
 * its key's response); fails with `KeyUsed` when it was used already.
 */
export const claimKey = Effect.fnUntraced(function*(accountId: string, idem: KeyClaim) {
  const claim = yield* (yield* IdempotencyKeys).begin(accountId, idem.key, idem.fingerprint)
  if (claim.kind !== "new") return yield* Effect.fail(new KeyUsed(claim))
  idem.token = claim.token
})

/** The answer to a key already used: the first response replayed, or a 422 or 409. */
export const keyUsedResponse = (e: KeyUsed, requestId: string, limitHeaders: Record<string, string>): ApiResponse => {
  const claim = e.claim
  switch (claim.kind) {
    case "replay":
      // The first response as it was (its body names the request that did the work); the
      // headers of this request are its own.
      return {
        status: claim.response.status,
        headers: { ...claim.response.headers, "x-request-id": requestId, ...limitHeaders, [Idempotency.REPLAYED_HEADER]: "true" },
        body: claim.response.body ?? undefined
      }
    case "mismatch":
      return refusal(requestId, new Errors.IdempotencyKeyReused({
        message: "This Idempotency-Key was used with another request (method, path or body); use a new key for a new request",
        details: [{ field: "idempotency-key", message: "was already used with another request within 24 hours" }]
      }), limitHeaders)
    case "in_progress":
      return refusal(requestId, new Errors.IdempotencyKeyInProgress({
        message: "A request with this Idempotency-Key is in progress; retry after it completes",
        details: [{ field: "idempotency-key", message: "a request with this key is in progress" }]
      }), limitHeaders)
  }
}

/**
 * Once a claimed key's request is answered: keeps the answer for replays, or frees the key (a 5xx,
 * a 429 or an answer that depends on the load says "try again", so the key is left for the retry
 * to do the work). Resolves to the failure to log when the key could not be updated, else undefined.
 */
export const settleKey = async (canopy: CanopyClient, accountId: string, claim: KeyClaim, token: string, res: ApiResponse): Promise<string | undefined> => {
  const keep = res.status < 500 && res.status !== 429 && !claim.loadDependent
  const stored = await canopy.runExit(Effect.flatMap(IdempotencyKeys, (k) =>
    keep
      ? k.complete(accountId, claim.key, token, { status: res.status, headers: Idempotency.storedHeaders(res.headers), body: responseText(res) ?? null })
      : k.release(accountId, claim.key, token)))
  // The work is done either way; a key that could not be updated stays claimed until it is
  // abandoned (Idempotency.ABANDONED_AFTER_MS), then a retry may do the work again.
  return Exit.isFailure(stored) ? `IdempotencyKey${keep ? "NotStored" : "NotReleased"}` : undefined
}
