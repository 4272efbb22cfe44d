/**
 * Metering: usage counters and alerts, rate-limit buckets, request metering and idempotency keys.
 */
import type { Plan } from "../Plans.ts"
import type { State as RateLimitState } from "../RateLimit.ts"
import type { Fx } from "./common.ts"

/** A response kept for an idempotency key, replayed as it was. */
export interface StoredResponse {
  readonly status: number
  /** Header values by lowercase name (the per-request ones left out by the caller). */
  readonly headers: Readonly<Record<string, string>>
  /** The body's exact text; null when there was none. */
  readonly body: string | null
}

/** What `idempotency.begin` answers. */
export type IdempotencyBegin =
  /** The key is now claimed by the caller (under its `token`): do the work, then complete or release. */
  | { readonly kind: "new" }
  /** The key was completed with the same fingerprint: this is its response. */
  | { readonly kind: "replay"; readonly response: StoredResponse }
  /** The key is held, claimed or completed, for another fingerprint (another body, method or path). */
  | { readonly kind: "mismatch" }
  /** The key is claimed with the same fingerprint by a request still at work. */
  | { readonly kind: "in_progress" }

/** What `requests.meter`'s decision answers: a result, the next rate-limit state, whether to count. */
export interface MeterStep<A> {
  readonly result: A
  readonly state: RateLimitState
  readonly count: boolean
}

/** The metering area of the storage contract. */
export interface MeteringShape {
  readonly usage: {
    readonly get: (accountId: string, period: string, metric: string) => Fx<number>
    /** Records that a threshold fired; true only for the first caller of a (metric, threshold, period). */
    readonly markAlert: (accountId: string, period: string, metric: string, threshold: number) => Fx<boolean>
    readonly alerts: (accountId: string, period: string, metric: string) => Fx<ReadonlyArray<number>>
  }

  readonly rateLimits: {
    /**
     * Atomically reads the state of a bucket (by key: an account id, or another key such as a
     * sign-in bucket's), applies `step`, stores the state it returns and answers its result:
     * concurrent calls never lose an update. The bucket is recorded as last used at the returned
     * state's `refilledAt`.
     */
    readonly update: <A>(accountId: string, step: (state: RateLimitState | undefined) => readonly [A, RateLimitState]) => Fx<A>
    /**
     * Deletes at most `limit` buckets stored by `update` whose last use was before `before`
     * (epoch ms); answers how many went. Buckets kept by `requests.meter` are not touched. The
     * cost is bounded by `limit` (an index on the last use). A bucket updated concurrently is
     * either kept or recreated from scratch by that update, never half-deleted.
     */
    readonly purge: (before: number, limit: number) => Fx<number>
  }

  readonly idempotency: {
    /**
     * Claims `key` of an account for a request whose content hashes to `fingerprint`, at `now`
     * (epoch ms), in one atomic step. A key that is free — never used, or last claimed before
     * `expiredBefore` (whatever its state), or claimed and not completed before `abandonedBefore`
     * (its request's process died) — is claimed under `token` and the answer is `new`. Otherwise
     * the answer is `mismatch` when the fingerprints differ, else `in_progress` or `replay` with the
     * stored response. Under concurrency exactly one of N begins with one free key is `new`.
     */
    readonly begin: (accountId: string, key: string, fingerprint: string, token: string, now: number,
      limits: { readonly expiredBefore: number; readonly abandonedBefore: number }) => Fx<IdempotencyBegin>
    /**
     * Stores the response of a claimed key, when `token` still holds the claim; answers whether it
     * did (false: the claim was taken over or purged meanwhile).
     */
    readonly complete: (accountId: string, key: string, token: string, response: StoredResponse) => Fx<boolean>
    /** Frees a claimed, uncompleted key, when `token` still holds it (the work failed: a retry may redo it). */
    readonly release: (accountId: string, key: string, token: string) => Fx<boolean>
    /**
     * Deletes at most `limit` keys, completed or not, claimed before `before` (epoch ms), oldest
     * first; answers how many went. The cost is bounded by `limit` (an index on the claim time).
     */
    readonly purge: (before: number, limit: number) => Fx<number>
  }

  readonly requests: {
    /**
     * Meters one API request in one atomic step: reads the account's plan and rate-limit state,
     * applies `decide`, stores the state it returns and, when it counts the request, adds one to
     * the account's `api_requests` counter of `period`. Answers `decide`'s result and the counter
     * (its new value, or its current value when not counted); undefined for an unknown account.
     * Concurrent calls never lose an update: N counted calls add exactly N. This is on every
     * request's path: an adapter may run it by a faster route than its other operations.
     */
    readonly meter: <A>(accountId: string, period: string,
      decide: (plan: Plan, state: RateLimitState | undefined) => MeterStep<A>) => Fx<{ readonly result: A; readonly count: number } | undefined>
  }
}
