/**
 * Webhook endpoints: create (a `whsec_` secret is generated unless given, and returned only
 * then), list, get, update, delete, and the delivery log. Disabling or deleting a webhook cancels
 * its pending deliveries; changing its events affects only events written afterwards.
 */
import { Context, Effect, Layer } from "effect"
import { LimitExceeded, NotFound, ValidationError } from "../Errors.ts"
import * as Ids from "../Ids.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { Settings } from "../Settings.ts"
import * as Signature from "../Signature.ts"
import { type DeliveryLogRow, type DeliveryRow, Storage, type StorageShape, type WebhookRow } from "../Storage.ts"
import * as WebhookTarget from "../WebhookTarget.ts"
import { decode, type ListResult, listMeta, window, type Fx } from "./common.ts"
import { nowIso } from "./Outbox.ts"

/** The API view of a webhook row (never the secret). */
const toResource = (w: WebhookRow): Schemas.Webhook => ({
  id: w.id,
  url: w.url,
  events: [...w.events],
  description: w.description,
  enabled: w.enabled,
  disabled_reason: w.disabled_reason,
  disabled_at: w.disabled_at,
  created_at: w.created_at,
  updated_at: w.updated_at
})

/** The API view of a delivery log row. */
export const logResource = (l: DeliveryLogRow): Schemas.DeliveryLog => ({
  id: l.id,
  event_id: l.event_id,
  event_type: l.event_type,
  status: l.status,
  attempt: l.attempt,
  response_code: l.response_code,
  response_time_ms: l.response_time_ms,
  error: l.error,
  error_class: l.error_class,
  delivered_at: l.delivered_at,
  next_retry_at: l.next_retry_at
})

/** Log entries for deliveries canceled because their webhook was disabled or deleted. */
const cancellationLogs = (canceled: ReadonlyArray<DeliveryRow>, eventTypes: ReadonlyMap<string, string>, reason: string, now: string): Array<DeliveryLogRow> =>
  canceled.map((d) => ({
    id: Ids.make("log"),
    account_id: d.account_id,
    webhook_id: d.webhook_id,
    delivery_id: d.id,
    event_id: d.event_id,
    event_type: eventTypes.get(d.event_id) ?? "",
    attempt: d.attempts,
    status: "canceled",
    response_code: null,
    response_time_ms: null,
    error: reason,
    error_class: null,
    delivered_at: null,
    next_retry_at: null,
    created_at: now
  }))

/** The Webhooks service. */
export class Webhooks extends Context.Service<Webhooks, {
  readonly create: (principal: Principal, input: unknown) => Fx<Schemas.Webhook>
  readonly list: (principal: Principal) => Fx<{ readonly data: ReadonlyArray<Schemas.Webhook>; readonly meta: { readonly total: number } }>
  readonly get: (principal: Principal, id: string) => Fx<Schemas.Webhook>
  readonly update: (principal: Principal, id: string, input: unknown) => Fx<Schemas.Webhook>
  readonly delete: (principal: Principal, id: string) => Fx<void>
  readonly logs: (principal: Principal, id: string, query?: unknown) => Fx<ListResult<Schemas.DeliveryLog>>
}>()("canopy/Webhooks") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

const decodeCreate = decode(Schemas.CreateWebhook)
const decodeUpdate = decode(Schemas.UpdateWebhook)
const decodeLogs = decode(Schemas.ListDeliveryLogs, "query")

const checkUrl = (url: string) =>
  Effect.gen(function*() {
    const problems = WebhookTarget.problems(url, { allowInsecure: (yield* Settings).allowInsecureWebhooks })
    if (problems.length > 0) {
      return yield* new ValidationError({ message: "The request body is invalid", details: problems.map((message) => ({ field: "url", message })) })
    }
  })

/** Cancels a webhook's pending deliveries, with one log entry each saying why. */
export const cancelAndLog = (storage: StorageShape) => (accountId: string, webhookId: string, reason: string, now: string) =>
  Effect.gen(function*() {
    const canceled = yield* storage.outbox.cancelPending(accountId, webhookId, now)
    const types = new Map<string, string>()
    for (const d of canceled) {
      if (!types.has(d.event_id)) types.set(d.event_id, (yield* storage.outbox.getEvent(accountId, d.event_id))?.type ?? "")
    }
    for (const log of cancellationLogs(canceled, types, reason, now)) yield* storage.outbox.insertLog(log)
  })

const make = (storage: StorageShape) => {
  const cancel = cancelAndLog(storage)

  const load = (accountId: string, id: string) =>
    Effect.flatMap(storage.webhooks.get(accountId, id), (w) => w ? Effect.succeed(w) : Effect.fail(new NotFound({ resource: "webhook", id })))

  return Webhooks.of({
    create: Effect.fn("Webhooks.create")(function*(principal, input) {
      yield* authorize(principal, "webhooks.create")
      const body = yield* decodeCreate(input)
      yield* checkUrl(body.url)
      return yield* storage.transaction(Effect.gen(function*() {
        yield* storage.lockAccount(principal.account_id)
        const count = yield* storage.webhooks.count(principal.account_id)
        if (count >= Schemas.limits.webhooksPerAccount) {
          return yield* new LimitExceeded({ metric: "webhooks", limit: Schemas.limits.webhooksPerAccount, current: count, requested: count + 1 })
        }
        const now = yield* nowIso
        const enabled = body.enabled ?? true
        const row: WebhookRow = {
          id: Ids.make("webhook"),
          account_id: principal.account_id,
          url: body.url,
          events: [...new Set(body.events)],
          description: body.description ?? null,
          secret: body.secret ?? Signature.generateSecret(),
          enabled,
          disabled_reason: enabled ? null : "disabled by a user",
          disabled_at: enabled ? null : now,
          consecutive_failures: 0,
          failing_since: null,
          created_at: now,
          updated_at: now
        }
        yield* storage.webhooks.insert(row)
        return { ...toResource(row), secret: row.secret }
      }))
    }),

    list: Effect.fn("Webhooks.list")(function*(principal) {
      yield* authorize(principal, "webhooks.list")
      const rows = yield* storage.webhooks.list(principal.account_id)
      return { data: rows.map(toResource), meta: { total: rows.length } }
    }),

    get: Effect.fn("Webhooks.get")(function*(principal, id) {
      yield* authorize(principal, "webhooks.list")
      return toResource(yield* load(principal.account_id, id))
    }),

    update: Effect.fn("Webhooks.update")(function*(principal, id, input) {
      yield* authorize(principal, "webhooks.update")
      const body = yield* decodeUpdate(input)
      if (body.url !== undefined) yield* checkUrl(body.url)
      return yield* storage.transaction(Effect.gen(function*() {
        const before = yield* load(principal.account_id, id)
        const now = yield* nowIso
        const disabling = body.enabled === false && before.enabled
        const enabling = body.enabled === true && !before.enabled
        const saved = yield* storage.webhooks.update(principal.account_id, id, {
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.events !== undefined ? { events: [...new Set(body.events)] } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
          ...(disabling ? { disabled_reason: "disabled by a user", disabled_at: now } : {}),
          ...(enabling ? { disabled_reason: null, disabled_at: null } : {}),
          updated_at: now
        })
        if (!saved) return yield* new NotFound({ resource: "webhook", id })
        if (disabling) yield* cancel(principal.account_id, id, "canceled: the webhook was disabled", now)
        return toResource(saved)
      }))
    }),

    delete: Effect.fn("Webhooks.delete")(function*(principal, id) {
      yield* authorize(principal, "webhooks.delete")
      yield* storage.transaction(Effect.gen(function*() {
        yield* load(principal.account_id, id)
        yield* cancel(principal.account_id, id, "canceled: the webhook was deleted", yield* nowIso)
        yield* storage.webhooks.delete(principal.account_id, id)
      }))
    }),

    logs: Effect.fn("Webhooks.logs")(function*(principal, id, query) {
      yield* authorize(principal, "webhooks.logs")
      const q = yield* decodeLogs(query ?? {})
      yield* load(principal.account_id, id)
      const w = window(q, Schemas.newestFirst())
      const page = yield* storage.outbox.listLogs(principal.account_id, id, {
        status: q.status,
        event_type: q.event_type,
        limit: w.limit,
        offset: w.offset,
        after: w.after
      })
      return { data: page.rows.map(logResource), meta: listMeta(page, w, (l) => l.created_at) }
    })
  })
}
