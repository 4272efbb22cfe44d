/**
 * Rate limiting as pure functions of (state, now): a per-minute token bucket (capacity = the
 * plan's per-minute limit, refilled at that many per 60 s) and a per-UTC-day counter. Counted per
 * account. A request refused by one limit consumes nothing from the other.
 *
 * Tokens are kept in integer units (1 token = 60,000 units, refilled at `capacity` units per ms),
 * so the bucket never drifts through rounding.
 */

const UNITS_PER_TOKEN = 60_000
const DAY_MS = 86_400_000

/** The limits being enforced. `perDay: null` means unlimited. */
export interface Limits {
  readonly perMinute: number
  readonly perDay: number | null
}

/** Stored per account. */
export interface State {
  /** Bucket content in units (1 token = 60,000 units). */
  readonly units: number
  /** When the bucket was last refilled (ms since epoch). */
  readonly refilledAt: number
  /** UTC day number (days since epoch) that `dayCount` counts. */
  readonly day: number
  readonly dayCount: number
}

/** The names of the headers a rate-limited answer carries (HTTP header names are case-insensitive). */
export const HEADERS = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset",
  retryAfter: "Retry-After"
} as const

/** The outcome of one request: the figures for the `X-RateLimit-*` headers and the next state. */
export interface Decision {
  readonly allowed: boolean
  /** `X-RateLimit-Limit`: the per-minute limit. */
  readonly limit: number
  /** `X-RateLimit-Remaining`: requests left now, by both limits. */
  readonly remaining: number
  /** `X-RateLimit-Reset`: Unix seconds when the binding limit is back to full. */
  readonly reset: number
  /** `Retry-After` seconds when refused; 0 when allowed. */
  readonly retryAfter: number
  /** Which limit refused the request. */
  readonly refusedBy: "minute" | "day" | null
  readonly state: State
}

/** A full bucket and an empty day counter. */
export const initial = (limits: Limits, now: number): State => ({
  units: limits.perMinute * UNITS_PER_TOKEN,
  refilledAt: now,
  day: Math.floor(now / DAY_MS),
  dayCount: 0
})

/** Decides one request at `now` (ms) against `state` (undefined: the account's first request). */
export const consume = (state: State | undefined, limits: Limits, now: number): Decision => {
  const s = state ?? initial(limits, now)
  const capacity = limits.perMinute * UNITS_PER_TOKEN
  const elapsed = Math.max(0, now - s.refilledAt)
  const units = Math.min(capacity, s.units + elapsed * limits.perMinute)
  const refilledAt = Math.max(now, s.refilledAt)
  const today = Math.floor(now / DAY_MS)
  const dayCount = today > s.day ? 0 : s.dayCount
  const day = Math.max(today, s.day)

  const minuteOk = units >= UNITS_PER_TOKEN
  const dayOk = limits.perDay === null || dayCount < limits.perDay
  const allowed = minuteOk && dayOk
  const next: State = allowed
    ? { units: units - UNITS_PER_TOKEN, refilledAt, day, dayCount: dayCount + 1 }
    : { units, refilledAt, day, dayCount }

  const dayLeft = limits.perDay === null ? Infinity : limits.perDay - next.dayCount
  const minuteLeft = Math.floor(next.units / UNITS_PER_TOKEN)
  const nextMidnight = (day + 1) * DAY_MS
  const bucketFullAt = refilledAt + Math.ceil((capacity - next.units) / limits.perMinute)
  const dayBinding = dayLeft <= 0
  const reset = Math.ceil((dayBinding ? nextMidnight : bucketFullAt) / 1000)
  let retryAfter = 0
  if (!allowed) {
    const tokenAt = refilledAt + Math.ceil((UNITS_PER_TOKEN - units) / limits.perMinute)
    retryAfter = Math.max(1, Math.ceil(((dayOk ? tokenAt : nextMidnight) - now) / 1000))
  }
  return {
    allowed,
    limit: limits.perMinute,
    remaining: Math.max(0, Math.min(minuteLeft, dayLeft)),
    reset,
    retryAfter,
    refusedBy: allowed ? null : dayOk ? "minute" : "day",
    state: next
  }
}
