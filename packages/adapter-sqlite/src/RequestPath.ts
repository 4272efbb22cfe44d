/**
 * The two storage operations every API request makes — finding the bearer token's credential and
 * metering the request — run synchronously on the SQLite connection. Through the SQL layer each
 * statement costs several times what SQLite itself spends on it; here the credential is one
 * prepared read and the meter one `BEGIN IMMEDIATE` transaction of three statements. Same SQL and
 * same behaviour as core's `SqlStorage` (the conformance suite runs against this store).
 */
import { type Plans, type RateLimit, SqlStorage, Storage } from "@canopy/core"
import type Database from "better-sqlite3"
import { Effect } from "effect"
import type { SqliteDatabase } from "./SqliteClient.ts"

type Shape = Storage.StorageShape
type Plan = Plans.Plan

const CREDENTIAL = "select * from credentials where token_hash = ?"
// A correlated subquery: SQLite answers it several times faster than the equivalent LEFT JOIN.
const PLAN_AND_BUCKET = "select plan, (select state from rate_limits where account_id = accounts.id) as state from accounts where id = ?"
const SAVE_BUCKET = "insert into rate_limits (account_id, state) values (?, ?) on conflict (account_id) do update set state = excluded.state"
const COUNT = `insert into usage_counters (account_id, period, metric, value) values (?, ?, 'api_requests', 1)
  on conflict (account_id, period, metric) do update set value = usage_counters.value + 1 returning value`
const CURRENT = "select value from usage_counters where account_id = ? and period = ? and metric = 'api_requests'"

/** `credentials.getByHash` and `requests.meter` over the adapter's connection. */
export const make = (database: SqliteDatabase["Service"]) => {
  // better-sqlite3's transaction function: BEGIN IMMEDIATE, or a savepoint inside a transaction.
  let immediate: ((body: () => unknown) => unknown) | undefined
  const transaction = (db: Database.Database) => (immediate ??= db.transaction((body: () => unknown) => body()).immediate)

  const getByHash: Shape["credentials"]["getByHash"] = (hash) =>
    database.use("credential", (prepare) =>
      SqlStorage.fromRow<Storage.CredentialRow>("credentials", prepare(CREDENTIAL).get(hash) as SqlStorage.Row | undefined)
    ).pipe(Effect.mapError(SqlStorage.storageError))

  const meter = <A>(accountId: string, period: string, decide: (plan: Plan, state: RateLimit.State | undefined) => Storage.MeterStep<A>) =>
    database.use("meter", (prepare, db) => transaction(db)(() => {
      const row = prepare(PLAN_AND_BUCKET).get(accountId) as { plan: Plan; state: string | null } | undefined
      if (!row) return undefined
      const step = decide(row.plan, row.state === null ? undefined : JSON.parse(row.state) as RateLimit.State)
      prepare(SAVE_BUCKET).run(accountId, JSON.stringify(step.state))
      const counted = (step.count ? prepare(COUNT) : prepare(CURRENT)).get(accountId, period) as { value: number } | undefined
      return { result: step.result, count: counted?.value ?? 0 }
    }) as { readonly result: A; readonly count: number } | undefined).pipe(Effect.mapError(SqlStorage.storageError))

  return { getByHash, meter }
}
