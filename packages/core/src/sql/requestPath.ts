/**
 * The SQL of every API request's path — finding the bearer token's credential and metering the
 * request — written once, as text with `?` placeholders. `SqlStorage` runs it through the
 * `SqlClient` (numbering the placeholders for PostgreSQL); the SQLite adapter's `RequestPath`
 * prepares the same text on its connection and runs it synchronously.
 */
import type { Plan } from "../Plans.ts"
import type { State as RateLimitState } from "../RateLimit.ts"
import type { MeterStep } from "../Storage.ts"

/** `credentials.getByHash`: one row by token hash. Params: hash. */
export const CREDENTIAL_BY_HASH = "select * from credentials where token_hash = ?"

/**
 * The account's plan and its bucket's state (null without a bucket row). A correlated subquery:
 * SQLite answers it several times faster than the equivalent LEFT JOIN. Params: account id.
 */
export const PLAN_AND_BUCKET = "select plan, (select state from rate_limits where account_id = accounts.id) as state from accounts where id = ?"

/**
 * PostgreSQL's read of plan and bucket, with the bucket row locked (`for update` cannot lock the
 * nullable side of an outer join, so the row is made first by `ENSURE_BUCKET`). Params: account id.
 */
export const PLAN_AND_BUCKET_LOCKED = "select a.plan, r.state from accounts a join rate_limits r on r.account_id = a.id where a.id = ? for update of r"

/** Creates an existing account's bucket row when it has none. Params: account id. */
export const ENSURE_BUCKET = "insert into rate_limits (account_id, state) select id, null from accounts where id = ? on conflict (account_id) do nothing"

/** Stores the bucket's state (JSON text). Params: account id, state. */
export const SAVE_BUCKET = "insert into rate_limits (account_id, state) values (?, ?) on conflict (account_id) do update set state = excluded.state"

/** Counts one request and answers the new value. Params: account id, period. */
export const COUNT_REQUEST = `insert into usage_counters (account_id, period, metric, value) values (?, ?, 'api_requests', 1)
  on conflict (account_id, period, metric) do update set value = usage_counters.value + 1 returning value`

/** The request counter's current value (no row: none counted). Params: account id, period. */
export const CURRENT_REQUESTS = "select value from usage_counters where account_id = ? and period = ? and metric = 'api_requests'"

/** `?` placeholders numbered `$1…` from `from` (PostgreSQL). */
export const numbered = (text: string, from = 1): string => {
  let n = from - 1
  return text.replace(/\?/g, () => `$${++n}`)
}

/** What one metered request does once its plan and bucket are read: the statements and their params. */
export interface MeterPlan<A> {
  readonly result: A
  readonly save: readonly [string, ReadonlyArray<unknown>]
  readonly counter: readonly [string, ReadonlyArray<unknown>]
}

/** Applies `decide` to the row read by `PLAN_AND_BUCKET` and says what to write next. */
export const meterPlan = <A>(
  accountId: string,
  period: string,
  row: { readonly plan: Plan; readonly state: unknown },
  decide: (plan: Plan, state: RateLimitState | undefined) => MeterStep<A>
): MeterPlan<A> => {
  const state = row.state === null || row.state === undefined ? undefined : JSON.parse(String(row.state)) as RateLimitState
  const step = decide(row.plan, state)
  return {
    result: step.result,
    save: [SAVE_BUCKET, [accountId, JSON.stringify(step.state)]],
    counter: [step.count ? COUNT_REQUEST : CURRENT_REQUESTS, [accountId, period]]
  }
}

/** The counter's value from the row the counter statement answered (none: zero). */
export const counted = (row: unknown): number => Number((row as { value?: unknown } | undefined)?.value ?? 0)
