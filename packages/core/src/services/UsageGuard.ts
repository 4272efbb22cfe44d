/**
 * Plan limits and usage alerts around a change (DECISIONS): a change that would grow hectares or
 * members past the plan's limit is refused with LimitExceeded (and `usage.limit_exceeded` is
 * emitted on its own, since the refused change rolls back); a change that reaches 75/90/100% emits
 * `usage.threshold_reached` once per metric, threshold and period.
 */
import { Effect } from "effect"
import * as Time from "../Time.ts"
import { LimitExceeded } from "../Errors.ts"
import * as Events from "../Events.ts"
import { Settings } from "../Settings.ts"
import { Storage, type StorageError } from "../Storage.ts"
import * as Usage from "../Usage.ts"
import { emit } from "./Outbox.ts"

/** The metrics a plan limits. */
export type LimitedMetric = "hectares" | "members" | "api_requests"

const limitOf = Effect.fn("UsageGuard.limitOf")(function*(accountId: string, metric: LimitedMetric) {
  const storage = yield* Storage
  const settings = yield* Settings
  const account = yield* storage.accounts.get(accountId)
  const plan = settings.plans[account?.plan ?? "free"]
  return metric === "hectares" ? plan.hectares : metric === "members" ? plan.members : plan.apiRequestsPerPeriod
})

/** Fails with LimitExceeded when going from `before` to `after` grows the metric past its limit. */
export const check = Effect.fn("UsageGuard.check")(function*(accountId: string, metric: LimitedMetric, before: number, after: number) {
  const limit = yield* limitOf(accountId, metric)
  if (Usage.exceeds(before, after, limit)) {
    return yield* new LimitExceeded({ metric, limit, current: round(before), requested: round(after) })
  }
})

/** Emits the threshold events that `value` has newly reached this period. */
export const alert = Effect.fn("UsageGuard.alert")(function*(accountId: string, metric: LimitedMetric, value: number) {
  const storage = yield* Storage
  const limit = yield* limitOf(accountId, metric)
  // Below the first threshold there is nothing to fire: the alerts already sent are not read.
  if (Usage.reached(value, limit, []).length === 0) return
  const period = Usage.periodOf(new Date(yield* Time.nowMillis))
  const fired = yield* storage.usage.alerts(accountId, period.key, metric)
  for (const threshold of Usage.reached(value, limit, fired)) {
    if (yield* storage.usage.markAlert(accountId, period.key, metric, threshold)) {
      yield* emit(accountId, "usage.threshold_reached", Events.thresholdReached(
        metric,
        threshold,
        round(value),
        limit,
        { start: period.start.toISOString(), end: period.end.toISOString() }
      ))
    }
  }
})

/** After a refused change has rolled back: records `usage.limit_exceeded` in its own transaction. */
export const reportExceeded = (accountId: string) => (error: LimitExceeded) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    yield* storage.transaction(emit(accountId, "usage.limit_exceeded", Events.limitExceeded(error.metric, error.current, error.requested, error.limit)))
  })

/**
 * Runs a change in a transaction on the account; when it is refused for a plan limit, records
 * `usage.limit_exceeded` afterwards and fails with the same error.
 */
export const guarded = <A, E, R>(accountId: string, change: Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageError, R | Storage> =>
  Effect.gen(function*() {
    const storage = yield* Storage
    return yield* storage.transaction(Effect.andThen(storage.lockAccount(accountId), change)).pipe(
      Effect.tapError((e): Effect.Effect<void, StorageError, Storage> => e instanceof LimitExceeded ? reportExceeded(accountId)(e) : Effect.void)
    )
  })

const round = (n: number) => Math.round(n * 10_000) / 10_000
