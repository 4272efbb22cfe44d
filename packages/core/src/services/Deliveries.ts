/**
 * Webhook deliveries: claiming due deliveries under a lease, attempting one (sign, send through
 * the `Sender`, record the outcome and the endpoint's health atomically), the test event, and
 * redelivery; plus the event list for consumers catching up. The loop that drives claims lives
 * with the server; everything a delivery *is* lives here and in `Delivery`.
 */
import { Context, Effect, Layer } from "effect"
import * as Delivery from "../Delivery.ts"
import { NotFound } from "../Errors.ts"
import * as Events from "../Events.ts"
import * as Ids from "../Ids.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { Settings } from "../Settings.ts"
import { type ClaimedDelivery, type DeliveryLogRow, Storage, type StorageError, type StorageShape } from "../Storage.ts"
import * as Time from "../Time.ts"
import { decode, inBatches, type ListResult, listMeta, window, type Fx } from "./common.ts"
import { emit } from "./Outbox.ts"
import { cancelAndLog, logResource } from "./Webhooks.ts"

/**
 * Sends one HTTP request for a delivery. By default `WebhookSender`, which checks every address a
 * webhook's host name resolves to; the server passes its own, on undici.
 */
export class Sender extends Context.Service<Sender, {
  readonly send: (request: Delivery.OutgoingRequest) => Effect.Effect<Delivery.AttemptResult>
}>()("canopy/Sender") {}

/** The Deliveries service. */
export class Deliveries extends Context.Service<Deliveries, {
  /** Leases up to `limit` due deliveries to `owner`, skipping `excludeWebhooks`. */
  readonly claim: (owner: string, limit: number, excludeWebhooks?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, StorageError>
  /** Gives claimed deliveries back unattempted. */
  readonly release: (ids: ReadonlyArray<string>, owner: string) => Effect.Effect<void, StorageError>
  /** Makes one attempt of a claimed delivery and records it; answers the log entry. */
  readonly attempt: (delivery: ClaimedDelivery, owner: string) => Effect.Effect<DeliveryLogRow, StorageError>
  /** When the next delivery is due (epoch ms), or null. */
  readonly nextDue: Effect.Effect<number | null, StorageError>
  /** Pending deliveries, counted up to `cap` (a bounded count: the outbox backlog gauge). */
  readonly pendingCount: (cap: number) => Effect.Effect<number, StorageError>
  /** Sends a signed `webhook.test` event to the webhook now; answers its log entry. */
  readonly test: (principal: Principal, webhookId: string) => Fx<Schemas.DeliveryLog>
  /** Delivers a logged event again to the same webhook now (same event id, a new attempt). */
  readonly redeliver: (principal: Principal, webhookId: string, logId: string) => Fx<Schemas.DeliveryLog>
  /** The account's events, newest first, for consumers catching up. */
  readonly listEvents: (principal: Principal, query?: unknown) => Fx<ListResult<Events.Envelope>>
  /** Removes log entries past `Settings.deliveryLogRetentionMs`; answers how many. */
  readonly purgeLogs: Effect.Effect<number, StorageError>
  /** Removes events past `Settings.eventRetentionMs` (none of their deliveries pending), with their deliveries; answers how many. */
  readonly purgeEvents: Effect.Effect<number, StorageError>
}>()("canopy/Deliveries") {
  static readonly layer = Layer.effect(this, Effect.gen(function*() {
    return make(yield* Storage, yield* Sender)
  }))
}

const decodeEvents = decode(Schemas.ListEvents, "query")

const make = (storage: StorageShape, sender: Sender["Service"]) => {
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Storage, storage)

  const cancel = cancelAndLog(storage)

  /** Disables a webhook for a reason, cancelling (and logging) its pending deliveries. */
  const disable = (accountId: string, webhookId: string, reason: string, now: string) =>
    Effect.andThen(
      storage.webhooks.update(accountId, webhookId, { enabled: false, disabled_reason: reason, disabled_at: now, updated_at: now }),
      cancel(accountId, webhookId, `canceled: ${reason}`, now)
    )

  const attempt = Effect.fn("Deliveries.attempt")(function*(d: ClaimedDelivery, owner: string) {
    const settings = yield* Settings
    const number = d.attempts + 1
    const started = yield* Time.nowMillis
    const result: Delivery.AttemptResult = d.url === null || d.secret === null
      ? { kind: "error", errorClass: "blocked", message: "the webhook no longer exists", durationMs: 0 }
      : yield* sender.send({
        url: d.url,
        headers: Delivery.headers({ id: d.event_id, type: d.event_type }, d.secret, d.payload, Math.floor(started / 1000)),
        body: d.payload,
        timeoutMs: settings.deliveryTimeoutMs
      })
    const now = yield* Time.nowMillis
    const iso = new Date(now).toISOString()
    const o = Delivery.outcome(number, result, now)
    const log: DeliveryLogRow = {
      id: Ids.make("log"),
      account_id: d.account_id,
      webhook_id: d.webhook_id,
      delivery_id: d.id,
      event_id: d.event_id,
      event_type: d.event_type,
      attempt: number,
      status: o.success ? "success" : "failed",
      response_code: o.responseCode,
      response_time_ms: result.durationMs,
      error: o.error,
      error_class: o.errorClass,
      delivered_at: iso,
      next_retry_at: o.nextAttemptAt === null ? null : new Date(o.nextAttemptAt).toISOString(),
      created_at: iso
    }
    yield* storage.transaction(Effect.gen(function*() {
      yield* storage.outbox.recordAttempt({
        delivery_id: d.id,
        owner,
        attempts: number,
        status: o.status,
        next_attempt_at: o.nextAttemptAt,
        updated_at: iso,
        log
      })
      // A success at a healthy endpoint changes nothing about the webhook: skip reading it.
      if (o.success && d.webhook_consecutive_failures === 0 && d.webhook_failing_since === null) return
      const webhook = yield* storage.webhooks.get(d.account_id, d.webhook_id)
      if (!webhook) return
      const h = Delivery.health(webhook, o.success, now)
      if (h.consecutive_failures !== webhook.consecutive_failures || h.failing_since !== webhook.failing_since) {
        yield* storage.webhooks.update(d.account_id, d.webhook_id, { consecutive_failures: h.consecutive_failures, failing_since: h.failing_since })
      }
      const reason = o.disable ?? h.disable
      if (reason && webhook.enabled) yield* disable(d.account_id, d.webhook_id, reason, iso)
    }))
    return log
  })

  /** Claims one specific delivery and attempts it now. */
  const attemptNow = (deliveryId: string) =>
    Effect.gen(function*() {
      const owner = `direct-${Ids.randomBase32(10)}`
      const now = yield* Time.nowMillis
      const claimed = yield* storage.outbox.claimOne(deliveryId, now, owner, now + (yield* Settings).deliveryLeaseMs)
      if (!claimed) return yield* new NotFound({ resource: "delivery", id: deliveryId })
      return logResource(yield* attempt(claimed, owner))
    })

  return Deliveries.of({
    claim: (owner, limit, exclude) =>
      Effect.gen(function*() {
        const now = yield* Time.nowMillis
        return yield* storage.outbox.claimDue(now, limit, owner, now + (yield* Settings).deliveryLeaseMs, exclude)
      }),

    release: storage.outbox.release,

    attempt,

    nextDue: storage.outbox.nextDue,
    pendingCount: (cap) => storage.outbox.pendingCount(cap),

    test: Effect.fn("Deliveries.test")(function*(principal, webhookId) {
      yield* authorize(principal, "webhooks.test")
      const webhook = yield* storage.webhooks.get(principal.account_id, webhookId)
      if (!webhook) return yield* new NotFound({ resource: "webhook", id: webhookId })
      const envelope = yield* provide(storage.transaction(emit(principal.account_id, Events.TEST_EVENT, Events.testData(webhookId), { webhookId })))
      const [delivery] = yield* storage.outbox.listDeliveries(principal.account_id, envelope.id)
      return yield* attemptNow(delivery!.id)
    }),

    redeliver: Effect.fn("Deliveries.redeliver")(function*(principal, webhookId, logId) {
      yield* authorize(principal, "webhooks.redeliver")
      const log = yield* storage.outbox.getLog(principal.account_id, webhookId, logId)
      if (!log) return yield* new NotFound({ resource: "delivery log entry", id: logId })
      const webhook = yield* storage.webhooks.get(principal.account_id, webhookId)
      if (!webhook) return yield* new NotFound({ resource: "webhook", id: webhookId })
      // The log outlives its event by a little (both kept 30 days, the log written later).
      if (!(yield* storage.outbox.getEvent(principal.account_id, log.event_id))) {
        return yield* new NotFound({ resource: "event", id: log.event_id })
      }
      const now = yield* Time.nowMillis
      const iso = new Date(now).toISOString()
      const id = Ids.make("delivery")
      yield* storage.outbox.addDeliveries([{
        id,
        account_id: principal.account_id,
        event_id: log.event_id,
        webhook_id: webhookId,
        status: "pending",
        attempts: 0,
        next_attempt_at: now,
        lease_owner: null,
        lease_expires_at: null,
        created_at: iso,
        updated_at: iso
      }])
      return yield* attemptNow(id)
    }),

    listEvents: Effect.fn("Deliveries.listEvents")(function*(principal, query) {
      yield* authorize(principal, "events.list")
      const q = yield* decodeEvents(query ?? {})
      const w = window(q, Schemas.newestFirst())
      const page = yield* storage.outbox.listEvents(principal.account_id, {
        type: q.type,
        created_after: q.created_after,
        created_before: q.created_before,
        limit: w.limit,
        offset: w.offset,
        after: w.after
      })
      return { data: page.rows.map((e) => JSON.parse(e.payload) as Events.Envelope), meta: listMeta(page, w, (e) => e.created_at) }
    }),

    purgeLogs: Effect.gen(function*() {
      const before = new Date((yield* Time.nowMillis) - (yield* Settings).deliveryLogRetentionMs).toISOString()
      return yield* inBatches((limit) => storage.outbox.purgeLogs(before, limit))
    }),
    purgeEvents: Effect.gen(function*() {
      const before = new Date((yield* Time.nowMillis) - (yield* Settings).eventRetentionMs).toISOString()
      return yield* inBatches((limit) => storage.outbox.purgeEvents(before, limit))
    })
  })
}
