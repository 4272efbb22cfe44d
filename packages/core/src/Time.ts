/**
 * The domain's clock: what Canopy stamps on rows and events, and what rate limits, invitations and
 * billing periods are measured against. It is separate from Effect's `Clock` so that tests can
 * move domain time (`manual`) while database drivers keep real time for their own timeouts.
 */
import { Context, Effect } from "effect"

/** A source of the current time in epoch milliseconds. */
export interface TimeShape {
  readonly now: () => number
}

/** The domain clock; the system clock unless a layer provides another. */
export const Time = Context.Reference<TimeShape>("canopy/Time", { defaultValue: () => ({ now: () => Date.now() }) })

/** The current domain time in epoch milliseconds. */
export const nowMillis: Effect.Effect<number> = Effect.map(Time, (t) => t.now())

/** The current domain time as an ISO 8601 UTC string. */
export const nowIso: Effect.Effect<string> = Effect.map(Time, (t) => new Date(t.now()).toISOString())

/** A clock that moves only when told to, for tests. */
export const manual = (start: number) => {
  let t = start
  return {
    service: { now: () => t } satisfies TimeShape,
    set: (ms: number) => Effect.sync(() => void (t = ms)),
    adjust: (ms: number) => Effect.sync(() => void (t += ms)),
    get: () => t
  }
}
