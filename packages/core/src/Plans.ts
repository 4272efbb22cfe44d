/**
 * Plans and their limits (spec and DECISIONS): request rates, and the usage limits reported by
 * `GET /account/usage`. These are the defaults; an embedding application may pass its own.
 */

/** The plans. */
export const plans = ["free", "pro", "enterprise"] as const
/** A plan name. */
export type Plan = (typeof plans)[number]

/** What a plan allows. `perDay: null` means unlimited. */
export interface Limits {
  readonly requestsPerMinute: number
  readonly requestsPerDay: number | null
  readonly hectares: number
  readonly members: number
  readonly apiRequestsPerPeriod: number
}

/** The default limits of each plan. */
export const defaults: Readonly<Record<Plan, Limits>> = {
  free: { requestsPerMinute: 60, requestsPerDay: 1_000, hectares: 1_000, members: 3, apiRequestsPerPeriod: 30_000 },
  pro: { requestsPerMinute: 300, requestsPerDay: 10_000, hectares: 100_000, members: 25, apiRequestsPerPeriod: 300_000 },
  enterprise: { requestsPerMinute: 1_000, requestsPerDay: null, hectares: 10_000_000, members: 1_000, apiRequestsPerPeriod: 10_000_000 }
}
