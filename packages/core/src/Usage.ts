/**
 * Usage thresholds and limits (DECISIONS): crossing 75%, 90% and 100% of a limit fires
 * `usage.threshold_reached` once per metric, threshold and billing period; a change that would go
 * over a limit is refused (`usage.limit_exceeded`). Billing periods are UTC calendar months.
 */

/** Alert thresholds, in percent. */
export const thresholds = [75, 90, 100] as const
/** An alert threshold. */
export type Threshold = (typeof thresholds)[number]

/** The thresholds that `value` has reached against `limit` and that have not fired yet this period. */
export const reached = (value: number, limit: number, fired: ReadonlyArray<number>): ReadonlyArray<Threshold> =>
  limit <= 0 ? [] : thresholds.filter((t) => value * 100 >= t * limit && !fired.includes(t))

/** Whether a change taking a metric from `before` to `after` must be refused: it grows past the limit. */
export const exceeds = (before: number, after: number, limit: number): boolean => after > before && after > limit

/** Percentage of a limit used, rounded to 2 decimals. */
export const percentage = (value: number, limit: number): number => limit <= 0 ? 0 : Math.round((value / limit) * 10_000) / 100

/** The key (`YYYY-MM`) of the billing period containing `at` (epoch ms); on every request's path. */
export const periodKey = (at: number): string => {
  const d = new Date(at)
  const month = d.getUTCMonth() + 1
  return `${d.getUTCFullYear()}-${month < 10 ? "0" : ""}${month}`
}

/** The billing period (UTC calendar month) containing `at`. */
export const periodOf = (at: Date): { readonly start: Date; readonly end: Date; readonly key: string } => {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1))
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))
  return { start, end, key: start.toISOString().slice(0, 7) }
}
