/**
 * The delivery loop: claims due deliveries under a lease and attempts them, at most `concurrency`
 * at once and at most `perEndpoint` per webhook, so one slow or dead endpoint cannot hold up the
 * others. It wakes at once when told that events were written, else when the next delivery falls
 * due, and at least every `pollMs` (for events written by other processes). Stopping lets
 * in-flight attempts finish; a crashed dispatcher's leases expire and are reclaimed. On start and
 * then hourly it also runs the store's maintenance: delivery logs and settled events past
 * retention, expired sessions, idle sign-in buckets and expired idempotency keys.
 *
 * A library user runs it next to `createCanopy` (`startDispatcher(canopy)`); the server runs it
 * beside its HTTP listener and wakes it when a request wrote events.
 */
import { Effect } from "effect"
import type { Canopy } from "./Canopy.ts"
import * as Ids from "./Ids.ts"
import { Deliveries } from "./services/Deliveries.ts"
import { IdempotencyKeys } from "./services/IdempotencyKeys.ts"
import { Sessions } from "./services/Sessions.ts"
import type * as Storage from "./Storage.ts"

/** Options of the loop. */
export interface DispatcherOptions {
  /** Names this dispatcher's leases (with a random suffix); default "dispatcher". */
  readonly name?: string
  readonly concurrency?: number
  readonly perEndpoint?: number
  readonly pollMs?: number
  /** How often the store's maintenance runs (ms); default hourly. */
  readonly maintenanceEveryMs?: number
  /** Called when a claim or an attempt fails unexpectedly (storage down…); the loop goes on. */
  readonly onError?: (error: unknown) => void
  /** Called with each attempt's log entry once it is recorded, or `undefined` when it could not be (metrics). */
  readonly onAttempt?: (log: DeliveryLogRow | undefined) => void
  /** Wraps each attempt's effect (tracing runs it under the exporting tracer). */
  readonly traceAttempt?: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** A running dispatcher. */
export interface Dispatcher {
  readonly owner: string
  /** Look for due deliveries now. */
  readonly wake: () => void
  /** Stop claiming; resolves when in-flight attempts are done. */
  readonly stop: () => Promise<void>
  /** Attempts in flight now. */
  readonly inFlight: () => number
}

type DeliveryLogRow = Storage.DeliveryLogRow

/** The shortest pause between two claims that found nothing to start. */
const MIN_WAIT_MS = 20

/**
 * The store's maintenance, each step bounded: delivery logs and settled events past retention,
 * expired sessions, sign-in buckets idle for a day and idempotency keys past their 24 hours.
 */
export const maintenance: Effect.Effect<void, Storage.StorageError, Deliveries | Sessions | IdempotencyKeys> = Effect.gen(function*() {
  yield* (yield* Deliveries).purgeLogs
  yield* (yield* Deliveries).purgeEvents
  yield* (yield* Sessions).purge
  yield* (yield* IdempotencyKeys).purge
})

/** Starts the loop over a running Canopy. */
export const startDispatcher = (canopy: Canopy, options: DispatcherOptions = {}): Dispatcher => {
  const concurrency = options.concurrency ?? 64
  const perEndpoint = options.perEndpoint ?? 4
  const pollMs = options.pollMs ?? 250
  const maintenanceEveryMs = options.maintenanceEveryMs ?? 3_600_000
  const owner = `${options.name ?? "dispatcher"}-${Ids.randomBase32(8)}`
  const perWebhook = new Map<string, number>()
  const attempts = new Set<Promise<void>>()
  let running = true
  let wakeUp: (() => void) | undefined
  let woken = false
  let lastPurge = 0

  const wake = () => {
    woken = true
    wakeUp?.()
  }
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) return resolve()
      const timer = setTimeout(resolve, ms)
      wakeUp = () => {
        clearTimeout(timer)
        resolve()
      }
    }).finally(() => {
      wakeUp = undefined
    })

  const start = (d: Parameters<Deliveries["Service"]["attempt"]>[0]) => {
    perWebhook.set(d.webhook_id, (perWebhook.get(d.webhook_id) ?? 0) + 1)
    const attempt = Effect.flatMap(Deliveries, (s) => s.attempt(d, owner))
    const p: Promise<void> = canopy.run(options.traceAttempt ? options.traceAttempt(attempt) : attempt)
      .then((log) => options.onAttempt?.(log), (e: unknown) => {
        options.onAttempt?.(undefined)
        options.onError?.(e)
      })
      .finally(() => {
        const n = (perWebhook.get(d.webhook_id) ?? 1) - 1
        if (n <= 0) perWebhook.delete(d.webhook_id)
        else perWebhook.set(d.webhook_id, n)
        attempts.delete(p)
        wake()
      })
    attempts.add(p)
  }

  const loop = async () => {
    while (running) {
      woken = false
      let claimed = 0
      const free = concurrency - attempts.size
      try {
        if (free > 0) {
          const saturated = [...perWebhook].filter(([, n]) => n >= perEndpoint).map(([w]) => w)
          const batch = await canopy.run(Effect.flatMap(Deliveries, (s) => s.claim(owner, free, saturated)))
          const giveBack: Array<string> = []
          for (const d of batch) {
            if ((perWebhook.get(d.webhook_id) ?? 0) >= perEndpoint) giveBack.push(d.id)
            else start(d)
          }
          if (giveBack.length > 0) await canopy.run(Effect.flatMap(Deliveries, (s) => s.release(giveBack, owner)))
          claimed = batch.length - giveBack.length
        }
        if (Date.now() - lastPurge > maintenanceEveryMs) {
          lastPurge = Date.now()
          await canopy.run(maintenance)
        }
      } catch (e) {
        options.onError?.(e)
      }
      if (claimed > 0 && attempts.size < concurrency) {
        // more may be due: look again, after letting I/O (HTTP requests, responses) run
        await new Promise((resolve) => setImmediate(resolve))
        continue
      }
      let wait = pollMs
      if (attempts.size < concurrency) {
        try {
          const due = await canopy.run(Effect.flatMap(Deliveries, (s) => s.nextDue))
          // a due delivery that was not claimed is leased or held back: do not spin on it
          if (due !== null) wait = Math.min(pollMs, Math.max(MIN_WAIT_MS, due - Date.now()))
        } catch {
          // keep the poll interval
        }
      }
      await sleep(wait)
    }
  }
  const done = loop()

  return {
    owner,
    wake,
    inFlight: () => attempts.size,
    stop: async () => {
      running = false
      wake()
      await done
      await Promise.all(attempts)
    }
  }
}
