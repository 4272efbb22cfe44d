/**
 * Webhooks and the outbox: events, their deliveries (leased to dispatchers) and delivery logs.
 */
import { Schema } from "effect"
import { EpochMs, type Fx, type Page, type Patch, Strings, Timestamp, type Window } from "./common.ts"

export const WebhookRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  url: Schema.String,
  events: Strings,
  description: Schema.NullOr(Schema.String),
  secret: Schema.String,
  enabled: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String),
  disabled_at: Schema.NullOr(Timestamp),
  /** Failed attempts in a row since the last success. */
  consecutive_failures: Schema.Number,
  /** When the current run of failures began; null after a success. */
  failing_since: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type WebhookRow = typeof WebhookRow.Type

export const EventRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  type: Schema.String,
  /** The exact JSON body sent to webhooks (the envelope), so every attempt signs the same bytes. */
  payload: Schema.String,
  created_at: Timestamp
})
export type EventRow = typeof EventRow.Type

export const DeliveryRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  event_id: Schema.String,
  webhook_id: Schema.String,
  status: Schema.Literals(["pending", "success", "failed", "canceled"]),
  /** Attempts made so far. */
  attempts: Schema.Number,
  /** When the next attempt is due (epoch ms); null when none is. */
  next_attempt_at: Schema.NullOr(EpochMs),
  lease_owner: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(EpochMs),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type DeliveryRow = typeof DeliveryRow.Type

export const DeliveryLogRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  webhook_id: Schema.String,
  delivery_id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  attempt: Schema.Number,
  status: Schema.Literals(["success", "failed", "pending", "canceled"]),
  response_code: Schema.NullOr(Schema.Number),
  response_time_ms: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String),
  error_class: Schema.NullOr(Schema.String),
  delivered_at: Schema.NullOr(Timestamp),
  next_retry_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
})
export type DeliveryLogRow = typeof DeliveryLogRow.Type

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

export interface DeliveryLogQuery extends Window {
  readonly status?: DeliveryLogRow["status"] | undefined
  readonly event_type?: string | undefined
}

export interface EventQuery extends Window {
  readonly type?: string | undefined
  /** Only events created at or after this ISO timestamp. */
  readonly created_after?: string | undefined
  /** Only events created before this ISO timestamp. */
  readonly created_before?: string | undefined
}

/** The webhooks-and-outbox area of the storage contract. */
export interface OutboxShape {
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
    readonly claimDue: (now: number, limit: number, owner: string, leaseUntil: number,
      excludeWebhooks?: ReadonlyArray<string>) => Fx<ReadonlyArray<ClaimedDelivery>>
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
    /**
     * Pending deliveries, counted up to `cap` (the answer is at most `cap`): the cost is bounded
     * by `cap` (an index on the status), however long the backlog.
     */
    readonly pendingCount: (cap: number) => Fx<number>
    readonly getLog: (accountId: string, webhookId: string, id: string) => Fx<DeliveryLogRow | undefined>
    /** Deletes at most `limit` log entries created before `before` (oldest first); returns how many. */
    readonly purgeLogs: (before: string, limit: number) => Fx<number>
    /**
     * Deletes at most `limit` events created before `before` (oldest first) none of whose
     * deliveries is pending, together with their deliveries; returns how many events. An event
     * with a delivery still pending stays, however old, until that delivery is settled.
     */
    readonly purgeEvents: (before: string, limit: number) => Fx<number>
    /** Adds deliveries for an existing event (redelivery). */
    readonly addDeliveries: (deliveries: ReadonlyArray<DeliveryRow>) => Fx<void>
    /** Newest first, ties by id descending. */
    readonly listLogs: (accountId: string, webhookId: string, query: DeliveryLogQuery) => Fx<Page<DeliveryLogRow>>
  }
}
