/**
 * Emitting events through the outbox: the event (its exact JSON envelope) and one pending
 * delivery per enabled, subscribed webhook are written with the caller's storage calls, so inside
 * a transaction they commit, or vanish, together with the change that caused them.
 */
import { Effect } from "effect"
import * as Time from "../Time.ts"
import * as Events from "../Events.ts"
import * as Ids from "../Ids.ts"
import { Storage, type DeliveryRow } from "../Storage.ts"
import * as RawJson from "../RawJson.ts"

/** The current time as an ISO 8601 UTC string, from Effect's clock (controllable in tests). */
export const nowIso = Time.nowIso

/** Writes one event and its deliveries; returns the envelope. */
export const emit = Effect.fn("Outbox.emit")(function*(
  accountId: string,
  type: Events.EventType | typeof Events.TEST_EVENT,
  data: Readonly<Record<string, unknown>>,
  only?: { readonly webhookId: string }
) {
  const storage = yield* Storage
  const ms = yield* Time.nowMillis
  const now = new Date(ms).toISOString()
  const account = yield* storage.accounts.get(accountId)
  const envelope: Events.Envelope = {
    id: Ids.make("event"),
    type,
    created_at: now,
    data,
    account: { id: accountId, name: account?.name ?? "" }
  }
  const hooks = yield* storage.webhooks.list(accountId)
  const targets = only
    ? hooks.filter((w) => w.id === only.webhookId)
    : Events.recipients(hooks, type)
  const deliveries: Array<DeliveryRow> = targets.map((w) => ({
    id: Ids.make("delivery"),
    account_id: accountId,
    event_id: envelope.id,
    webhook_id: w.id,
    status: "pending",
    attempts: 0,
    next_attempt_at: ms,
    lease_owner: null,
    lease_expires_at: null,
    created_at: now,
    updated_at: now
  }))
  yield* storage.outbox.append(
    { id: envelope.id, account_id: accountId, type, payload: RawJson.stringify(envelope), created_at: now },
    deliveries
  )
  return envelope
})
