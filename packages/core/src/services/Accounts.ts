/**
 * Accounts: bootstrap (an account, its owner and an admin API key, for `canopy init`), get, rename,
 * usage statistics, plan changes (`subscription.updated`), the billing port for events an
 * embedding application reports, API-request counting and the per-account rate limit.
 */
import { Context, Effect, Layer, Schema } from "effect"
import * as Time from "../Time.ts"
import { NotFound } from "../Errors.ts"
import type * as Events from "../Events.ts"
import * as Ids from "../Ids.ts"
import type * as Plans from "../Plans.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as RateLimit from "../RateLimit.ts"
import * as Schemas from "../Schemas.ts"
import { Settings } from "../Settings.ts"
import * as Slug from "../Slug.ts"
import { type AccountRow, Storage, type StorageError, type StorageShape } from "../Storage.ts"
import * as Usage from "../Usage.ts"
import { conflictOnDuplicate, decode, type Fx } from "./common.ts"
import { Credentials, type CreatedCredential } from "./Credentials.ts"
import { Members, toResource as memberResource } from "./Members.ts"
import { emit, nowIso } from "./Outbox.ts"
import * as UsageGuard from "./UsageGuard.ts"

/** Body of bootstrapping an account. */
const Bootstrap = Schema.Struct({
  account_name: Schemas.Name,
  email: Schemas.Email,
  name: Schema.optionalKey(Schema.NullOr(Schemas.Name)),
  plan: Schema.optionalKey(Schemas.Plan)
})

/** What bootstrapping returns; `api_key.token` and the owner's password link are shown once. */
export interface Bootstrapped {
  readonly account: Schemas.Account
  readonly user: Schemas.Member
  readonly api_key: CreatedCredential
  /** Token of the owner's one-time set-password link (`/invitations/accept?token=…`). */
  readonly password_token: string
}

/** Billing events an embedding application may report through the billing port. */
export type BillingEvent = "subscription.created" | "subscription.canceled" | "invoice.paid" | "invoice.failed"

/** The Accounts service. */
export class Accounts extends Context.Service<Accounts, {
  readonly bootstrap: (input: unknown) => Fx<Bootstrapped>
  readonly get: (principal: Principal) => Fx<Schemas.Account>
  readonly update: (principal: Principal, input: unknown) => Fx<Schemas.Account>
  readonly usage: (principal: Principal) => Fx<Schemas.UsageStatistics>
  /** Changes the plan (operator action) and emits `subscription.updated`. */
  readonly setPlan: (accountId: string, plan: Plans.Plan) => Fx<Schemas.Account>
  /** The billing port: records a billing event reported by the embedding application. */
  readonly billingEvent: (accountId: string, type: BillingEvent, data: Readonly<Record<string, unknown>>) => Fx<void>
  /**
   * One API request, in one transaction: takes it from the account's rate limits and, when
   * allowed, counts it in the billing period (firing usage thresholds). The decision carries the
   * rate-limit figures for the response headers.
   */
  readonly meterRequest: (accountId: string) => Fx<RateLimit.Decision>
  /** How many accounts exist. */
  readonly count: Fx<number>
  /** Every account's id, oldest first (operator tools: the account to act on). */
  readonly ids: Effect.Effect<ReadonlyArray<string>, StorageError>
  /**
   * A trivial round trip to the store: succeeds while it answers, fails with `StorageError` when
   * it does not (the readiness probe).
   */
  readonly ping: Effect.Effect<void, StorageError>
}>()("canopy/Accounts") {
  static readonly layer = Layer.effect(this, Effect.gen(function*() {
    return make(yield* Storage, yield* Credentials, yield* Members)
  }))
}

const decodeBootstrap = decode(Bootstrap)
const decodeUpdate = decode(Schemas.UpdateAccount)

const make = (storage: StorageShape, credentials: Credentials["Service"], members: Members["Service"]) => {
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Storage, storage)

  const load = (id: string) => Effect.flatMap(storage.accounts.get(id), (a) => a ? Effect.succeed(a) : Effect.fail(new NotFound({ resource: "account", id })))

  const toResource = (a: AccountRow) =>
    Effect.gen(function*() {
      const stats = yield* storage.projects.stats(a.id)
      const members = yield* storage.members.count(a.id)
      return {
        id: a.id,
        name: a.name,
        slug: a.slug,
        type: "team" as const,
        plan: a.plan,
        overlap_policy: a.overlap_policy,
        usage: {
          hectares: Math.round(stats.hectares * 10_000) / 10_000,
          projects: stats.active + stats.archived + stats.draft,
          members
        },
        created_at: a.created_at
      }
    })

  const period = Effect.map(Time.nowMillis, (ms) => Usage.periodOf(new Date(ms)))

  return Accounts.of({
    bootstrap: Effect.fn("Accounts.bootstrap")(function*(input) {
      const body = yield* decodeBootstrap(input)
      return yield* storage.transaction(Effect.gen(function*() {
        const now = yield* nowIso
        const account: AccountRow = {
          id: Ids.make("account"),
          name: body.account_name,
          slug: Slug.fromName(body.account_name),
          plan: body.plan ?? "free",
          overlap_policy: "warn",
          created_at: now,
          updated_at: now
        }
        yield* storage.accounts.insert(account).pipe(conflictOnDuplicate(() => "account id collision; try again"))
        const owner = {
          id: Ids.make("user"),
          account_id: account.id,
          email: body.email.toLowerCase(),
          name: body.name ?? null,
          role: "owner" as const,
          status: "active" as const,
          password_hash: null,
          joined_at: now,
          last_active_at: null,
          created_at: now,
          updated_at: now
        }
        yield* storage.members.insert(owner).pipe(conflictOnDuplicate(() => "member collision"))
        const key = yield* credentials.issue(account.id, "api_key", { name: "Admin key (bootstrap)", permissions: ["admin"] }, owner.id)
        const link = yield* members.passwordLink(account.id, owner.id)
        return { account: yield* toResource(account), user: memberResource(owner), api_key: key, password_token: link.token }
      }))
    }),

    get: Effect.fn("Accounts.get")(function*(principal) {
      yield* authorize(principal, "account.get")
      return yield* toResource(yield* load(principal.account_id))
    }),

    update: Effect.fn("Accounts.update")(function*(principal, input) {
      yield* authorize(principal, "account.update")
      const body = yield* decodeUpdate(input)
      const saved = yield* storage.accounts.update(principal.account_id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.overlap_policy !== undefined ? { overlap_policy: body.overlap_policy } : {}),
        updated_at: yield* nowIso
      })
      if (!saved) return yield* new NotFound({ resource: "account", id: principal.account_id })
      return yield* toResource(saved)
    }),

    usage: Effect.fn("Accounts.usage")(function*(principal) {
      yield* authorize(principal, "account.usage")
      const account = yield* load(principal.account_id)
      const limits = (yield* Settings).plans[account.plan]
      const p = yield* period
      const stats = yield* storage.projects.stats(account.id)
      const members = yield* storage.members.count(account.id)
      const requests = yield* storage.usage.get(account.id, p.key, "api_requests")
      const hectares = Math.round(stats.hectares * 10_000) / 10_000
      return {
        period: { start: p.start.toISOString(), end: p.end.toISOString() },
        hectares: { current: hectares, limit: limits.hectares, percentage: Usage.percentage(hectares, limits.hectares) },
        projects: { active: stats.active, archived: stats.archived, total: stats.active + stats.archived + stats.draft },
        members: { current: members, limit: limits.members },
        api_requests: { current: requests, limit: limits.apiRequestsPerPeriod }
      }
    }),

    setPlan: Effect.fn("Accounts.setPlan")(function*(accountId, plan) {
      return yield* provide(storage.transaction(Effect.gen(function*() {
        yield* storage.lockAccount(accountId)
        const before = yield* load(accountId)
        const saved = yield* storage.accounts.update(accountId, { plan, updated_at: yield* nowIso })
        if (!saved) return yield* new NotFound({ resource: "account", id: accountId })
        yield* emit(accountId, "subscription.updated", { account_id: accountId, plan, previous_plan: before.plan })
        return yield* toResource(saved)
      })))
    }),

    billingEvent: Effect.fn("Accounts.billingEvent")(function*(accountId, type, data) {
      yield* load(accountId)
      yield* provide(storage.transaction(emit(accountId, type satisfies Events.EventType, data)))
    }),

    // On every request's path: traced with a span, without Effect.fn's call-site stack capture
    // (measured: 5.5 µs a call with it, 2.6 µs without).
    meterRequest: Effect.fnUntraced(function*(accountId) {
      const settings = yield* Settings
      const now = yield* Time.nowMillis
      const metered = yield* storage.requests.meter(accountId, Usage.periodKey(now), (plan, state) => {
        const limits = settings.plans[plan]
        const decision = RateLimit.consume(state, { perMinute: limits.requestsPerMinute, perDay: limits.requestsPerDay }, now)
        return { result: { decision, plan }, state: decision.state, count: decision.allowed }
      })
      if (!metered) return yield* new NotFound({ resource: "account", id: accountId })
      const { count, result: { decision, plan } } = metered
      // Threshold alerts (75/90/100% of the period's requests): marked and emitted atomically.
      if (decision.allowed && count * 100 >= Usage.thresholds[0] * settings.plans[plan].apiRequestsPerPeriod) {
        yield* provide(storage.transaction(UsageGuard.alert(accountId, "api_requests", count)))
      }
      return decision
    }, Effect.withSpan("Accounts.meterRequest", undefined, { captureStackTrace: false })),

    count: storage.accounts.count,
    ids: Effect.map(storage.accounts.list, (rows) => rows.map((a) => a.id)),
    ping: storage.ping
  })
}
