/**
 * Webhook retry schedule (spec): attempt 1 immediately, then 1 min, 5 min, 30 min, 2 h and 24 h
 * after each failure; after the 6th failed attempt the delivery is failed for good.
 */
import { Duration } from "effect"

/** Delay before each attempt, counted from the previous failure (attempt 1: from enqueue). */
export const delays: ReadonlyArray<Duration.Duration> = [
  Duration.zero,
  Duration.minutes(1),
  Duration.minutes(5),
  Duration.minutes(30),
  Duration.hours(2),
  Duration.hours(24)
]

/** Attempts in all. */
export const MAX_ATTEMPTS = delays.length

/**
 * When the next attempt is due after attempt `attempt` (1-based) failed at `failedAt`, or `null`
 * when that was the last one. A receiver's `Retry-After` (seconds) may push the attempt later, but
 * never past the longest delay of the schedule.
 */
export const next = (attempt: number, failedAt: Date, retryAfterSeconds?: number): Date | null => {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`)
  if (attempt >= MAX_ATTEMPTS) return null
  const scheduled = Duration.toMillis(delays[attempt]!)
  const ceiling = Duration.toMillis(delays[MAX_ATTEMPTS - 1]!)
  const asked = retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) ? retryAfterSeconds * 1000 : 0
  return new Date(failedAt.getTime() + Math.min(Math.max(scheduled, asked), ceiling))
}
