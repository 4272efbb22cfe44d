/**
 * `requests.meter` on PostgreSQL. Every request of an account reads and writes the same bucket
 * row, so the row decides throughput: held under a row lock across round trips and the event
 * loop's turns, it serialised every request of the account, one server or several. Here:
 *
 * - One process meters an account's concurrent requests in batches: while one batch is in
 *   flight the next requests queue; the next batch applies `decide` to each in arrival order, as
 *   if they ran one after another, and stores the last state and the batch's count at once.
 * - A batch holds no lock. It decides from the bucket as this process last wrote it (read once
 *   when unknown: plan, state and the row's version, `xmin`), and writes in one statement: the
 *   state only if the account still has that plan and the row is still that version (compare and
 *   swap, an `on conflict … do update … where`), the counter only if the state was written. When
 *   another process wrote first, the same statement answers the current row and the batch
 *   decides again from it (`decide` must be pure); after a few such losses it takes the row lock
 *   instead, so it always finishes.
 * - Inside a caller's transaction, a call is its own batch of one under the row lock.
 */
import { Deferred, Effect, Exit } from "effect"
import type { Plan } from "../Plans.ts"
import type { State as RateLimitState } from "../RateLimit.ts"
import type * as S from "../Storage.ts"
import { type Context, orStorage } from "./common.ts"
import { ENSURE_BUCKET, numbered } from "./requestPath.ts"

type Decide = (plan: Plan, state: RateLimitState | undefined) => S.MeterStep<unknown>
type Metered = { readonly result: unknown; readonly count: number } | undefined
interface Waiting {
  readonly period: string
  readonly decide: Decide
  readonly done: Deferred.Deferred<Metered, S.StorageError>
}

/** Plan, bucket state and the bucket row's version (null without a row). Params: account id. */
const PLAN_STATE_VERSION = "select a.plan, r.state, r.xmin::text as version from accounts a left join rate_limits r on r.account_id = a.id where a.id = $1"

/** The same, the bucket row locked (it exists: `ENSURE_BUCKET` ran first). Params: account id. */
const PLAN_STATE_VERSION_LOCKED =
  "select a.plan, r.state, r.xmin::text as version from accounts a join rate_limits r on r.account_id = a.id where a.id = $1 for update of r"

/**
 * Stores the state if the account still has the plan decided on and the bucket row is still the
 * version read (or still absent), and then adds `n` to the period's request counter. Answers the
 * row's new version (null: nothing stored), the counter's value, and the plan, state and version
 * as they stood when nothing was stored: the row is read `for share`, which in READ COMMITTED
 * answers its latest committed version (the write that won), not the statement's older snapshot.
 * Params: account id, state, version, period, n, plan.
 */
const SAVE_IF_UNCHANGED = `with saved as (
    insert into rate_limits (account_id, state) select $1::text, $2::text from accounts where id = $1 and plan = $6::text
    on conflict (account_id) do update set state = excluded.state where rate_limits.xmin::text = $3::text
    returning xmin::text as version),
  counted as (
    insert into usage_counters (account_id, period, metric, value)
    select $1, $4::text, 'api_requests', $5::bigint where $5::bigint > 0 and exists (select 1 from saved)
    on conflict (account_id, period, metric) do update set value = usage_counters.value + excluded.value returning value),
  current as (
    select state, xmin::text as version from rate_limits where account_id = $1 and not exists (select 1 from saved) for share)
  select s.version, coalesce((select value from counted),
      (select value from usage_counters where account_id = $1 and period = $4 and metric = 'api_requests'), 0) as value,
    a.plan, r.state as state_now, r.version as version_now
  from (select 1) one left join saved s on true left join accounts a on s.version is null and a.id = $1
    left join current r on s.version is null`

/** Requests that may share one batch; more wait for the next. */
const MAX_BATCH = 500
/** Lost compare-and-swaps before a batch takes the row lock. */
const OPTIMISTIC_ATTEMPTS = 8
/** Accounts whose last written bucket a process remembers (their next batch needs no read). */
const REMEMBERED = 10_000

type Row = { readonly plan: Plan; readonly state: unknown; readonly version: string | null }

/** `requests.meter` for PostgreSQL, over the helpers of `makeContext`. */
export const batchedMeter = (c: Context) => {
  const { sql, transaction } = c
  const ensure = numbered(ENSURE_BUCKET)
  const queues = new Map<string, Array<Waiting>>()

  /**
   * The bucket as this process last wrote or saw it, per account: the next batch decides from it
   * and the write checks it is still current (when not, the write answers the current one).
   */
  const known = new Map<string, Row>()
  const remember = (accountId: string, row: Row | undefined) => {
    known.delete(accountId)
    if (!row) return
    if (known.size >= REMEMBERED) known.delete(known.keys().next().value!)
    known.set(accountId, row)
  }

  /** One attempt at a batch from `row`: the answers, or the current row when another writer won. */
  const attempt = (accountId: string, period: string, batch: ReadonlyArray<Waiting>, row: Row) =>
    Effect.gen(function*() {
      let state = row.state === null || row.state === undefined ? undefined : JSON.parse(String(row.state)) as RateLimitState
      const steps = batch.map((w) => {
        const step = w.decide(row.plan, state)
        state = step.state
        return step
      })
      const n = steps.filter((s) => s.count).length
      const saved = JSON.stringify(state)
      const [written] = yield* sql.unsafe(SAVE_IF_UNCHANGED, [accountId, saved, row.version, period, n, row.plan])
      const w = written as { version: string | null; value: unknown; plan: Plan | null; state_now: unknown; version_now: string | null }
      if (w.version === null) {
        const now = w.plan === null ? undefined : { plan: w.plan, state: w.state_now, version: w.version_now }
        remember(accountId, now)
        return { lost: now ?? "no account" } as const
      }
      remember(accountId, { plan: row.plan, state: saved, version: w.version })
      // Each request answers the counter as it stood after it, in arrival order.
      let k = 0
      return {
        answers: steps.map((s): Metered => {
          if (s.count) k++
          return { result: s.result, count: Number(w.value) - (n - k) }
        })
      } as const
    })

  const read = (accountId: string, locked: boolean) =>
    Effect.gen(function*() {
      if (locked) yield* sql.unsafe(ensure, [accountId])
      return (yield* sql.unsafe(locked ? PLAN_STATE_VERSION_LOCKED : PLAN_STATE_VERSION, [accountId]))[0] as Row | undefined
    })

  /** A batch under the bucket row's lock (inside the caller's transaction when there is one). */
  const underLock = (accountId: string, period: string, batch: ReadonlyArray<Waiting>) =>
    transaction(orStorage(Effect.gen(function*() {
      const row = yield* read(accountId, true)
      if (!row) return batch.map((): Metered => undefined)
      const out = yield* attempt(accountId, period, batch, row)
      return "answers" in out ? out.answers : batch.map((): Metered => undefined)
    })))

  /** Moves the queued requests of `period` that fit into `batch` (up to `MAX_BATCH`). */
  const takeInto = (batch: Array<Waiting>, queue: Array<Waiting>, period: string) => {
    let size = 0
    while (size < queue.length && batch.length + size < MAX_BATCH && queue[size]!.period === period) size++
    batch.push(...queue.splice(0, size))
  }

  /**
   * Meters `batch`; before each retry the requests queued meanwhile join it (under contention
   * batches grow, and fewer writes compete). Answers one result per entry of `batch` as it ends.
   */
  const runBatch = (accountId: string, period: string, batch: Array<Waiting>) =>
    Effect.gen(function*() {
      let row = known.get(accountId) ?? (yield* orStorage(read(accountId, false)))
      for (let i = 0; i < OPTIMISTIC_ATTEMPTS && row; i++) {
        if (i > 0) takeInto(batch, queues.get(accountId)!, period)
        const out = yield* orStorage(attempt(accountId, period, batch, row))
        if ("answers" in out) return out.answers
        row = out.lost === "no account" ? undefined : out.lost
      }
      return row ? yield* underLock(accountId, period, batch) : batch.map((): Metered => undefined)
    })

  /** Runs the account's queued requests, batch after batch, until none is left. */
  const drain = (accountId: string): Effect.Effect<void> =>
    Effect.gen(function*() {
      for (;;) {
        const queue = queues.get(accountId)!
        if (queue.length === 0) return void queues.delete(accountId)
        const batch: Array<Waiting> = []
        takeInto(batch, queue, queue[0]!.period)
        const period = batch[0]!.period
        const exit = yield* Effect.exit(runBatch(accountId, period, batch))
        batch.forEach((w, i) => Deferred.doneUnsafe(w.done, Exit.isSuccess(exit) ? Effect.succeed(exit.value[i]) : Effect.failCause(exit.cause)))
      }
    })

  const meter = (accountId: string, period: string, decide: Decide): Effect.Effect<Metered, S.StorageError> =>
    Effect.flatMap(Effect.serviceOption(sql.transactionService), (current) => {
      if (current._tag === "Some") {
        return Effect.map(underLock(accountId, period, [{ period, decide, done: Deferred.makeUnsafe() }]), (out) => out[0])
      }
      return Effect.suspend(() => {
        const done = Deferred.makeUnsafe<Metered, S.StorageError>()
        const queue = queues.get(accountId)
        queue?.push({ period, decide, done })
        if (!queue) queues.set(accountId, [{ period, decide, done }])
        const waited = Deferred.await(done)
        return queue ? waited : Effect.andThen(Effect.forkDetach(drain(accountId)), waited)
      })
    })

  return meter as S.MeteringShape["requests"]["meter"]
}
