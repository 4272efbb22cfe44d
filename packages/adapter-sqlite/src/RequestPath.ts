/**
 * The two storage operations every API request makes — finding the bearer token's credential and
 * metering the request — run synchronously on the SQLite connection. Through the SQL layer each
 * statement costs several times what SQLite itself spends on it; here the credential is one
 * prepared read and the meter one `BEGIN IMMEDIATE` transaction of three statements. The
 * statements and the step between them are core's (`SqlStorage.RequestPath`), which `SqlStorage`
 * runs too: one text, two routes (the conformance suite runs against this store).
 */
import { type Plans, type RateLimit, SqlStorage, type Storage } from "@canopy/core"
import type Database from "better-sqlite3"
import { Effect } from "effect"
import type { SqliteDatabase } from "./SqliteClient.ts"

type Shape = Storage.StorageShape
type Plan = Plans.Plan
const { CREDENTIAL_BY_HASH, PLAN_AND_BUCKET, counted, meterPlan } = SqlStorage.RequestPath

/** `credentials.getByHash` and `requests.meter` over the adapter's connection. */
export const make = (database: SqliteDatabase["Service"]) => {
  // better-sqlite3's transaction function: BEGIN IMMEDIATE, or a savepoint inside a transaction.
  let immediate: ((body: () => unknown) => unknown) | undefined
  const transaction = (db: Database.Database) => (immediate ??= db.transaction((body: () => unknown) => body()).immediate)

  const getByHash: Shape["credentials"]["getByHash"] = (hash) =>
    database.use("credential", (prepare) =>
      SqlStorage.fromRow<Storage.CredentialRow>("credentials", prepare(CREDENTIAL_BY_HASH).get(hash) as SqlStorage.Row | undefined)).pipe(
        Effect.mapError(SqlStorage.storageError)
      )

  const meter = <A>(accountId: string, period: string, decide: (plan: Plan, state: RateLimit.State | undefined) => Storage.MeterStep<A>) =>
    database.use("meter", (prepare, db) => {
      const metered = transaction(db)(() => {
        const row = prepare(PLAN_AND_BUCKET).get(accountId) as { plan: Plan; state: string | null } | undefined
        if (!row) return undefined
        const plan = meterPlan(accountId, period, row, decide)
        prepare(plan.save[0]).run(...plan.save[1])
        return { result: plan.result, count: counted(prepare(plan.counter[0]).get(...plan.counter[1])) }
      }) as { readonly result: A; readonly count: number } | undefined
      database.afterCommit() // the log's bound (nothing inside an enclosing transaction)
      return metered
    }).pipe(Effect.mapError(SqlStorage.storageError))

  return { getByHash, meter }
}
