/**
 * The storage contract: what every Canopy store (in-memory, SQLite, PostgreSQL) promises,
 * described as behaviour. The domain services hold every rule; a store only keeps rows, enforces
 * uniqueness, scopes every read and write to an account, and makes transactions atomic.
 *
 * Behaviour every implementation must show (the conformance suite in `@canopy/core/testing`
 * checks each point):
 *
 * - **Tenancy.** Every operation on account-owned rows takes the account id and touches only that
 *   account's rows: another account's id reads as absent, and updates or deletes of it change
 *   nothing and report `false`/`undefined`.
 * - **Uniqueness.** Project slugs are unique per account, member emails are unique per account,
 *   credential hashes are unique. A write that would break this fails with `Duplicate` and changes
 *   nothing. Under concurrency exactly one caller wins: of N parallel inserts of the same slug,
 *   one succeeds and N−1 fail with `Duplicate`.
 * - **Atomicity.** Inside `transaction`, every write commits together or not at all: when the
 *   effect fails (or dies, or is interrupted) no row it wrote remains, including events and
 *   deliveries appended to the outbox. Nested `transaction` calls join the outer one.
 * - **Serialisation.** `lockAccount` inside a transaction makes concurrent transactions on the same
 *   account run one after another from that point, so read-check-write sequences (usage limits,
 *   last-owner guard, rate limits) see each other's effects.
 * - **Lists.** `rows` is the window `[offset, offset + limit)` of the ordering asked for, ties
 *   broken by id in the sort's direction — or, with `after`, the first `limit` rows strictly after
 *   that position (keyset pagination; `offset` is then ignored). `hasMore` says whether a row
 *   follows the window. `total` counts the matching rows exactly when no search or other filter
 *   beyond `status` is given (from running totals, O(1)); otherwise it counts up to `COUNT_LIMIT`
 *   (`SEARCH_COUNT_LIMIT` with a search), and `totalExact` is false when it stopped there. An offset past the end gives no rows and the
 *   same total. Search is a case-insensitive substring match on the row's `search_text`, by index;
 *   terms shorter than `MIN_SEARCH` characters are the caller's to refuse.
 * - **Running totals.** Project counts and hectares by status, members and webhooks of an account
 *   are kept in the same transaction as every write that moves them, and always equal a recount.
 * - **Idempotency keys.** `idempotency.begin` claims a key of an account atomically: of N
 *   concurrent begins with one key, exactly one answers `new`; the others see the claim
 *   (`in_progress`, or `mismatch` when their fingerprint differs) and, once it is completed, its
 *   stored response (`replay`). Keys of different accounts are independent.
 * - **Reachability.** `ping` succeeds while the store answers and fails with `StorageError` when
 *   it does not; it reads and writes nothing.
 * - **Rows out equal rows in.** JSON values (geometry, metadata, lists) and nulls come back as
 *   they were written.
 */
import { Context, type Effect, Schema } from "effect"
import type { BBox, Point } from "./Geometry.ts"
import type { RawJson } from "./RawJson.ts"
import type { Permission, Role } from "./Permissions.ts"
import type { Plan } from "./Plans.ts"
import type { State as RateLimitState } from "./RateLimit.ts"

/** An unexpected storage failure (connection lost, disk full…). Never a business outcome. */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/** A write broke a uniqueness rule; nothing was changed. */
export class Duplicate extends Schema.TaggedError<Duplicate>()("Duplicate", {
  entity: Schema.String,
  field: Schema.String
}) {}

// ---------------------------------------------------------------------------------------------
// Rows. Timestamps are ISO 8601 UTC strings with milliseconds; scheduling times are epoch ms.

export interface AccountRow {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly plan: Plan
  readonly created_at: string
  readonly updated_at: string
}

export interface MemberRow {
  readonly id: string
  readonly account_id: string
  /** Lowercase. */
  readonly email: string
  readonly name: string | null
  readonly role: Role
  readonly status: "active" | "invited"
  readonly password_hash: string | null
  readonly joined_at: string | null
  readonly last_active_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface InvitationRow {
  readonly id: string
  readonly account_id: string
  readonly user_id: string
  readonly token_hash: string
  readonly expires_at: string
  readonly accepted_at: string | null
  readonly created_at: string
}

export interface ProjectRow {
  readonly id: string
  readonly account_id: string
  readonly name: string
  readonly slug: string
  readonly description: string | null
  /** The boundary (a `Geometry.Boundary`) as its JSON text: stored and answered without parsing. */
  readonly geometry: RawJson | null
  readonly area_hectares: number
  readonly bbox: BBox | null
  readonly status: "active" | "archived" | "draft"
  readonly created_by: string | null
  /** Lowercase name, for sorting. */
  readonly sort_name: string
  /** Lowercase name and description, for search. */
  readonly search_text: string
  readonly created_at: string
  readonly updated_at: string
}

export interface AssetRow {
  readonly id: string
  readonly account_id: string
  readonly project_id: string
  readonly name: string
  readonly type: string
  readonly location: Point | null
  readonly status: string
  readonly metadata: Readonly<Record<string, unknown>>
  /** Lowercase name, for search. */
  readonly search_text: string
  readonly created_at: string
  readonly updated_at: string
}

export interface WebhookRow {
  readonly id: string
  readonly account_id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly description: string | null
  readonly secret: string
  readonly enabled: boolean
  readonly disabled_reason: string | null
  readonly disabled_at: string | null
  /** Failed attempts in a row since the last success. */
  readonly consecutive_failures: number
  /** When the current run of failures began; null after a success. */
  readonly failing_since: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface EventRow {
  readonly id: string
  readonly account_id: string
  readonly type: string
  /** The exact JSON body sent to webhooks (the envelope), so every attempt signs the same bytes. */
  readonly payload: string
  readonly created_at: string
}

export interface DeliveryRow {
  readonly id: string
  readonly account_id: string
  readonly event_id: string
  readonly webhook_id: string
  readonly status: "pending" | "success" | "failed" | "canceled"
  /** Attempts made so far. */
  readonly attempts: number
  /** When the next attempt is due (epoch ms); null when none is. */
  readonly next_attempt_at: number | null
  readonly lease_owner: string | null
  readonly lease_expires_at: number | null
  readonly created_at: string
  readonly updated_at: string
}

export interface DeliveryLogRow {
  readonly id: string
  readonly account_id: string
  readonly webhook_id: string
  readonly delivery_id: string
  readonly event_id: string
  readonly event_type: string
  readonly attempt: number
  readonly status: "success" | "failed" | "pending" | "canceled"
  readonly response_code: number | null
  readonly response_time_ms: number | null
  readonly error: string | null
  readonly error_class: string | null
  readonly delivered_at: string | null
  readonly next_retry_at: string | null
  readonly created_at: string
}

/** A delivery handed to a dispatcher, with what it needs to send it. */
export interface ClaimedDelivery extends DeliveryRow {
  readonly payload: string
  readonly event_type: string
  readonly event_created_at: string
  /** The webhook; null when it was deleted meanwhile. */
  readonly url: string | null
  readonly secret: string | null
  readonly webhook_enabled: boolean
  /** The webhook's health when claimed (0 and null when it was deleted). */
  readonly webhook_consecutive_failures: number
  readonly webhook_failing_since: string | null
}

/** What one attempt changes, recorded atomically by `outbox.recordAttempt`. */
export interface AttemptRecord {
  readonly delivery_id: string
  readonly owner: string
  readonly attempts: number
  readonly status: DeliveryRow["status"]
  readonly next_attempt_at: number | null
  readonly updated_at: string
  readonly log: DeliveryLogRow
}

export interface CredentialRow {
  readonly id: string
  readonly account_id: string
  readonly kind: "api_key" | "service_token"
  readonly name: string
  readonly permissions: ReadonlyArray<Permission>
  /** SHA-256 of the token value, hex. The value itself is never stored. */
  readonly token_hash: string
  /** Prefix and last characters of the value, for recognising it in a list. */
  readonly token_hint: string
  readonly ip_allowlist: ReadonlyArray<string> | null
  readonly created_by: string | null
  readonly created_at: string
  readonly last_used_at: string | null
  readonly revoked_at: string | null
}

/** A registered OAuth application. */
export interface OAuthClientRow {
  /** The client id (`app_…`), public. */
  readonly id: string
  readonly account_id: string
  readonly name: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly scopes: ReadonlyArray<string>
  readonly confidential: boolean
  /**
   * Origins (`https://app.example.com`) whose browser pages may call the token endpoint and the
   * API (CORS); public clients only, else empty.
   */
  readonly allowed_origins: ReadonlyArray<string>
  /** SHA-256 of the client secret; null for public clients. */
  readonly secret_hash: string | null
  readonly created_at: string
  readonly updated_at: string
}

/** An authorization code (stored by hash). */
export interface OAuthCodeRow {
  readonly code_hash: string
  readonly client_id: string
  readonly account_id: string
  readonly user_id: string
  readonly redirect_uri: string
  readonly scopes: ReadonlyArray<string>
  readonly code_challenge: string | null
  readonly expires_at: number
  readonly used_at: number | null
  readonly created_at: string
}

/** An OAuth access or refresh token (stored by hash); `family_id` ties a grant's tokens together. */
export interface OAuthTokenRow {
  readonly id: string
  readonly token_hash: string
  readonly kind: "access" | "refresh"
  readonly client_id: string
  readonly account_id: string
  readonly user_id: string
  readonly scopes: ReadonlyArray<string>
  readonly family_id: string
  readonly expires_at: number | null
  readonly rotated_at: number | null
  readonly revoked_at: number | null
  readonly last_used_at: number
  readonly created_at: string
}

/** A signed-in member's web session (stored by the hash of its cookie value). */
export interface SessionRow {
  readonly token_hash: string
  readonly account_id: string
  readonly user_id: string
  /** The session's CSRF token, echoed in every form. */
  readonly csrf: string
  readonly expires_at: number
  readonly created_at: string
}

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

/** Most rows a filtered list counts; beyond, `Page.totalExact` is false. */
export const COUNT_LIMIT = 10_000
/** Most matches a searched list counts; beyond, `Page.totalExact` is false. */
export const SEARCH_COUNT_LIMIT = 1_000
/** Fewest characters a search term needs: substring search runs on a trigram index. */
export const MIN_SEARCH = 3

/** A page of rows, whether more follow, and the count of matching rows. */
export interface Page<A> {
  readonly rows: ReadonlyArray<A>
  /** Matching rows: exact when `totalExact`, else `COUNT_LIMIT` (there are at least that many). */
  readonly total: number
  readonly totalExact: boolean
  /** Whether a row follows the last one of `rows`. */
  readonly hasMore: boolean
}

/** A position in a list's order: the sort value and id of the last row seen. */
export interface After {
  readonly value: string | number
  readonly id: string
}

export interface ProjectQuery {
  readonly status?: ProjectRow["status"] | undefined
  /** Already lowercased. */
  readonly search?: string | undefined
  readonly sort: "name" | "created_at" | "area_hectares"
  readonly order: "asc" | "desc"
  readonly limit: number
  readonly offset: number
  /** Keyset position: rows strictly after it (then `offset` is ignored). */
  readonly after?: After | undefined
}

export interface AssetQuery {
  readonly type?: string | undefined
  readonly status?: string | undefined
  /** Already lowercased. */
  readonly search?: string | undefined
  readonly limit: number
  readonly offset: number
  /** Keyset position: rows strictly after it (then `offset` is ignored). */
  readonly after?: After | undefined
}

export interface DeliveryLogQuery {
  readonly status?: DeliveryLogRow["status"] | undefined
  readonly event_type?: string | undefined
  readonly limit: number
  readonly offset: number
  /** Keyset position: rows strictly after it (then `offset` is ignored). */
  readonly after?: After | undefined
}

export interface EventQuery {
  readonly type?: string | undefined
  /** Only events created at or after this ISO timestamp. */
  readonly created_after?: string | undefined
  /** Only events created before this ISO timestamp. */
  readonly created_before?: string | undefined
  readonly limit: number
  readonly offset: number
  /** Keyset position: rows strictly after it (then `offset` is ignored). */
  readonly after?: After | undefined
}

/** Project counts and hectares of one account. */
export interface ProjectStats {
  readonly active: number
  readonly archived: number
  readonly draft: number
  /** Hectares of active and draft projects (DECISIONS: usage counts those). */
  readonly hectares: number
}

type Fx<A, E = never> = Effect.Effect<A, E | StorageError>

/** A patch of a row: any subset of its mutable fields. */
export type Patch<Row, Immutable extends keyof Row = never> = Partial<Omit<Row, "id" | "account_id" | "created_at" | Immutable>>

/** The storage contract. See the module documentation for the behaviour each operation promises. */
export interface StorageShape {
  /** Runs `effect` atomically; nested calls join the outer transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
  /** Inside a transaction: waits for, then holds, the account's write lock until commit. */
  readonly lockAccount: (accountId: string) => Fx<void>
  /**
   * A trivial round trip to the database (`SELECT 1`): succeeds when the store answers, fails with
   * `StorageError` when it does not. The readiness probe (`GET /ready`) runs it.
   */
  readonly ping: Fx<void>

  readonly accounts: {
    readonly insert: (row: AccountRow) => Fx<void, Duplicate>
    readonly get: (id: string) => Fx<AccountRow | undefined>
    readonly update: (id: string, patch: Patch<AccountRow>) => Fx<AccountRow | undefined>
    /** How many accounts exist (first-start detection). */
    readonly count: Fx<number>
    /** Every account, oldest first, ties by id (operator tools). */
    readonly list: Fx<ReadonlyArray<AccountRow>>
  }

  readonly members: {
    readonly insert: (row: MemberRow) => Fx<void, Duplicate>
    readonly get: (accountId: string, id: string) => Fx<MemberRow | undefined>
    readonly getByEmail: (accountId: string, email: string) => Fx<MemberRow | undefined>
    /** Members with this email in any account, oldest first (signing in to the dashboard). */
    readonly findByEmail: (email: string) => Fx<ReadonlyArray<MemberRow>>
    /** Oldest first, ties by id. */
    readonly list: (accountId: string) => Fx<ReadonlyArray<MemberRow>>
    readonly update: (accountId: string, id: string, patch: Patch<MemberRow>) => Fx<MemberRow | undefined, Duplicate>
    readonly delete: (accountId: string, id: string) => Fx<boolean>
    /** Members holding `role` with status active. */
    readonly countActiveWithRole: (accountId: string, role: Role) => Fx<number>
    /** Every member, active or invited (from the running totals). */
    readonly count: (accountId: string) => Fx<number>
  }

  readonly invitations: {
    readonly insert: (row: InvitationRow) => Fx<void, Duplicate>
    /** By token hash, across accounts (the hash is the secret). */
    readonly getByTokenHash: (tokenHash: string) => Fx<InvitationRow | undefined>
    readonly markAccepted: (id: string, at: string) => Fx<boolean>
    /** Removes the invitations of a member (when the member is removed). */
    readonly deleteForMember: (accountId: string, userId: string) => Fx<void>
  }

  readonly projects: {
    readonly insert: (row: ProjectRow) => Fx<void, Duplicate>
    readonly get: (accountId: string, id: string) => Fx<ProjectRow | undefined>
    readonly update: (accountId: string, id: string, patch: Patch<ProjectRow, "created_by">) => Fx<ProjectRow | undefined, Duplicate>
    /** Deletes the project and its assets. */
    readonly delete: (accountId: string, id: string) => Fx<boolean>
    readonly list: (accountId: string, query: ProjectQuery) => Fx<Page<ProjectRow>>
    /** From the running totals: O(1). */
    readonly stats: (accountId: string) => Fx<ProjectStats>
  }

  readonly assets: {
    readonly insert: (row: AssetRow) => Fx<void>
    readonly get: (accountId: string, projectId: string, id: string) => Fx<AssetRow | undefined>
    readonly update: (accountId: string, projectId: string, id: string, patch: Patch<AssetRow, "project_id">) => Fx<AssetRow | undefined>
    readonly delete: (accountId: string, projectId: string, id: string) => Fx<boolean>
    /** Newest first, ties by id descending. */
    readonly list: (accountId: string, projectId: string, query: AssetQuery) => Fx<Page<AssetRow>>
  }

  readonly webhooks: {
    readonly insert: (row: WebhookRow) => Fx<void>
    readonly get: (accountId: string, id: string) => Fx<WebhookRow | undefined>
    readonly update: (accountId: string, id: string, patch: Patch<WebhookRow>) => Fx<WebhookRow | undefined>
    readonly delete: (accountId: string, id: string) => Fx<boolean>
    /** Oldest first, ties by id. */
    readonly list: (accountId: string) => Fx<ReadonlyArray<WebhookRow>>
    /** How many webhooks the account has (from the running totals). */
    readonly count: (accountId: string) => Fx<number>
  }

  readonly outbox: {
    /** Appends an event and its deliveries (one per recipient webhook). */
    readonly append: (event: EventRow, deliveries: ReadonlyArray<DeliveryRow>) => Fx<void>
    readonly getEvent: (accountId: string, id: string) => Fx<EventRow | undefined>
    /** Newest first, ties by id descending. */
    readonly listEvents: (accountId: string, query: EventQuery) => Fx<Page<EventRow>>
    readonly listDeliveries: (accountId: string, eventId: string) => Fx<ReadonlyArray<DeliveryRow>>
    /** Cancels the pending deliveries of a webhook; returns the canceled deliveries. */
    readonly cancelPending: (accountId: string, webhookId: string, at: string) => Fx<ReadonlyArray<DeliveryRow>>
    readonly insertLog: (row: DeliveryLogRow) => Fx<void>
    /**
     * Leases up to `limit` due deliveries to `owner` until `leaseUntil` (epoch ms): status pending,
     * `next_attempt_at <= now`, and no live lease; oldest due first; deliveries of the webhooks in
     * `excludeWebhooks` are left alone. Concurrent claimers never receive the same delivery; an
     * expired lease is claimable again (its holder crashed or stalled).
     */
    readonly claimDue: (now: number, limit: number, owner: string, leaseUntil: number, excludeWebhooks?: ReadonlyArray<string>) => Fx<ReadonlyArray<ClaimedDelivery>>
    /** Gives back leases `owner` holds on these deliveries, unattempted (they stay due). */
    readonly release: (ids: ReadonlyArray<string>, owner: string) => Fx<void>
    /** Leases one delivery by id, when it is pending and not leased by another live owner. */
    readonly claimOne: (deliveryId: string, now: number, owner: string, leaseUntil: number) => Fx<ClaimedDelivery | undefined>
    /**
     * Records an attempt: writes its log entry and, when `owner` still holds the lease and the
     * delivery is still pending, updates the delivery and clears the lease. Answers whether the
     * delivery was updated (false: the lease was lost, or the delivery was canceled meanwhile).
     */
    readonly recordAttempt: (record: AttemptRecord) => Fx<boolean>
    /** The earliest `next_attempt_at` of a pending delivery, or null when none is pending. */
    readonly nextDue: Fx<number | null>
    readonly getDelivery: (accountId: string, id: string) => Fx<DeliveryRow | undefined>
    readonly getLog: (accountId: string, webhookId: string, id: string) => Fx<DeliveryLogRow | undefined>
    /** Deletes at most `limit` log entries created before `before` (oldest first); returns how many. */
    readonly purgeLogs: (before: string, limit: number) => Fx<number>
    /** Adds deliveries for an existing event (redelivery). */
    readonly addDeliveries: (deliveries: ReadonlyArray<DeliveryRow>) => Fx<void>
    /** Newest first, ties by id descending. */
    readonly listLogs: (accountId: string, webhookId: string, query: DeliveryLogQuery) => Fx<Page<DeliveryLogRow>>
  }

  readonly credentials: {
    readonly insert: (row: CredentialRow) => Fx<void, Duplicate>
    /** By token hash, across accounts; revoked rows included (the caller decides). */
    readonly getByHash: (tokenHash: string) => Fx<CredentialRow | undefined>
    /** Oldest first, ties by id. */
    readonly list: (accountId: string, kind: CredentialRow["kind"]) => Fx<ReadonlyArray<CredentialRow>>
    readonly get: (accountId: string, id: string) => Fx<CredentialRow | undefined>
    /** Sets `revoked_at` once; false when absent or already revoked. */
    readonly revoke: (accountId: string, id: string, at: string) => Fx<boolean>
    readonly touch: (id: string, at: string) => Fx<void>
  }

  readonly usage: {
    /** Adds `by` to a counter and returns the new value; atomic under concurrency. */
    readonly increment: (accountId: string, period: string, metric: string, by: number) => Fx<number>
    readonly get: (accountId: string, period: string, metric: string) => Fx<number>
    /** Records that a threshold fired; true only for the first caller of a (metric, threshold, period). */
    readonly markAlert: (accountId: string, period: string, metric: string, threshold: number) => Fx<boolean>
    readonly alerts: (accountId: string, period: string, metric: string) => Fx<ReadonlyArray<number>>
  }

  readonly oauth: {
    readonly insertClient: (row: OAuthClientRow) => Fx<void, Duplicate>
    /** By client id, across accounts (client ids are public). */
    readonly getClient: (id: string) => Fx<OAuthClientRow | undefined>
    /** Oldest first, ties by id. */
    readonly listClients: (accountId: string) => Fx<ReadonlyArray<OAuthClientRow>>
    readonly updateClient: (accountId: string, id: string, patch: Patch<OAuthClientRow>) => Fx<OAuthClientRow | undefined>
    readonly deleteClient: (accountId: string, id: string) => Fx<boolean>
    readonly insertCode: (row: OAuthCodeRow) => Fx<void, Duplicate>
    /** A code as it is, without using it (checking who presents it before spending it). */
    readonly getCode: (codeHash: string) => Fx<OAuthCodeRow | undefined>
    /**
     * Marks a code used at `now` and answers it as it was before: exactly one caller sees
     * `used_at: null`; every later caller sees when it was first used (a replay).
     */
    readonly useCode: (codeHash: string, now: number) => Fx<OAuthCodeRow | undefined>
    readonly insertToken: (row: OAuthTokenRow) => Fx<void, Duplicate>
    readonly getToken: (tokenHash: string) => Fx<OAuthTokenRow | undefined>
    /** A token by its id (a principal's `credential_id`). */
    readonly getTokenById: (id: string) => Fx<OAuthTokenRow | undefined>
    /** Whether any application lists `origin` (exactly) in its `allowed_origins`. */
    readonly originAllowed: (origin: string) => Fx<boolean>
    /** Marks a refresh token rotated; true for exactly one caller. */
    readonly rotate: (tokenHash: string, now: number) => Fx<boolean>
    /** Revokes every token of a grant; answers how many were live. */
    readonly revokeFamily: (familyId: string, now: number) => Fx<number>
    readonly touchToken: (tokenHash: string, now: number) => Fx<void>
  }

  readonly sessions: {
    readonly insert: (row: SessionRow) => Fx<void, Duplicate>
    readonly get: (tokenHash: string) => Fx<SessionRow | undefined>
    readonly delete: (tokenHash: string) => Fx<void>
    /**
     * Deletes at most `limit` sessions that expired at or before `now` (epoch ms), oldest first;
     * answers how many went. The cost is bounded by `limit` (an index on the expiry), however
     * many sessions there are.
     */
    readonly purgeExpired: (now: number, limit: number) => Fx<number>
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
    readonly meter: <A>(accountId: string, period: string, decide: (plan: Plan, state: RateLimitState | undefined) => MeterStep<A>) =>
      Fx<{ readonly result: A; readonly count: number } | undefined>
  }
}

/** What `requests.meter`'s decision answers: a result, the next rate-limit state, whether to count. */
export interface MeterStep<A> {
  readonly result: A
  readonly state: RateLimitState
  readonly count: boolean
}

/** The storage service. */
export class Storage extends Context.Service<Storage, StorageShape>()("canopy/Storage") {}
