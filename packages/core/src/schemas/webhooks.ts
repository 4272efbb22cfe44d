/**
 * Webhooks, their delivery logs and the event feed: the request bodies and list queries, and the
 * resources as returned (the fields kept as the store keeps them are the rows' own schemas).
 */
import { Schema, Struct } from "effect"
import * as Events from "../Events.ts"
import { DeliveryLogRow, EventRow, WebhookRow } from "../storage/outbox.ts"
import { AnyObject, Count, Description, limits, literal, Measure, newestFirst, NullableTimestamp, pageFields, paginated, Timestamp,
  Timestamp8601 } from "./common.ts"

/** A webhook subscription: an event type of the catalogue, or `*`. */
export const WebhookEvent = literal([...Events.types, "*"])
/** Delivery log statuses. */
export const DeliveryStatus = literal(["success", "failed", "pending", "canceled"])

const WebhookUrl = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => {
    if (s.length > limits.url) return `must be at most ${limits.url} characters`
    try {
      const u = new URL(s)
      return u.protocol === "https:" || u.protocol === "http:" || "must be an https:// URL"
    } catch {
      return "must be an absolute URL"
    }
  }))
)
const WebhookEvents = Schema.Array(WebhookEvent).pipe(
  Schema.check(Schema.makeFilter((a: ReadonlyArray<string>) => a.length > 0 || "must list at least one event type, or \"*\""))
)
const WebhookSecret = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) =>
    (s.length >= limits.webhookSecretMin && s.length <= limits.webhookSecretMax) ||
    `must be ${limits.webhookSecretMin} to ${limits.webhookSecretMax} characters`
  ))
)
/** An event type filter (any string: types come and go). */
const EventTypeFilter = Schema.String.pipe(Schema.check(Schema.isMaxLength(100)))

/** POST /webhooks */
export const CreateWebhook = Schema.Struct({
  url: WebhookUrl,
  events: WebhookEvents,
  secret: Schema.optionalKey(WebhookSecret),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  enabled: Schema.optionalKey(Schema.Boolean)
})
export type CreateWebhook = typeof CreateWebhook.Type

/** PUT /webhooks/{id} */
export const UpdateWebhook = Schema.Struct({
  url: Schema.optionalKey(WebhookUrl),
  events: Schema.optionalKey(WebhookEvents),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  enabled: Schema.optionalKey(Schema.Boolean)
})
export type UpdateWebhook = typeof UpdateWebhook.Type

/** GET /webhooks/{id}/logs */
export const ListDeliveryLogs = paginated(Schema.Struct({
  ...pageFields,
  status: Schema.optionalKey(DeliveryStatus),
  event_type: Schema.optionalKey(EventTypeFilter)
}), newestFirst)
export type ListDeliveryLogs = typeof ListDeliveryLogs.Type

/** GET /events (beyond the spec: catching up after an outage) */
export const ListEvents = paginated(Schema.Struct({
  ...pageFields,
  type: Schema.optionalKey(EventTypeFilter),
  created_after: Schema.optionalKey(Timestamp8601),
  created_before: Schema.optionalKey(Timestamp8601)
}), newestFirst)
export type ListEvents = typeof ListEvents.Type

// ---------------------------------------------------------------------------------------------
// Resources

/** Webhook record (DECISIONS); `secret` only in the create response. */
export const Webhook = Schema.Struct({
  ...Struct.pick(WebhookRow.fields, ["id", "url", "events", "description", "enabled", "disabled_reason"]),
  disabled_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  secret: Schema.optionalKey(Schema.String.annotate({ description: "The signing secret: only in the create response" }))
}).annotate({ identifier: "Webhook" })
export type Webhook = typeof Webhook.Type

/** Delivery log entry (spec, plus `attempt` and `error_class`). */
export const DeliveryLog = Schema.Struct({
  ...Struct.pick(DeliveryLogRow.fields, ["id", "event_id", "event_type"]),
  status: DeliveryStatus,
  attempt: Count,
  response_code: Schema.NullOr(Count),
  response_time_ms: Schema.NullOr(Measure),
  ...Struct.pick(DeliveryLogRow.fields, ["error", "error_class"]),
  delivered_at: NullableTimestamp,
  next_retry_at: NullableTimestamp
}).annotate({ identifier: "DeliveryLog" })
export type DeliveryLog = typeof DeliveryLog.Type

/** An event as webhooks receive it and `GET /events` lists it (`Events.Envelope`). */
export const Event = Schema.Struct({
  ...Struct.pick(EventRow.fields, ["id"]),
  type: literal([...Events.types, Events.TEST_EVENT]),
  created_at: Timestamp,
  data: AnyObject("The event's subject (project, asset, member, …) as of the event"),
  account: Schema.Struct({ id: Schema.String, name: Schema.String })
}).annotate({ identifier: "Event" })
export type Event = typeof Event.Type
