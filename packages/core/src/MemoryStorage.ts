/**
 * The in-memory reference implementation of the storage contract: plain maps, one lock, and
 * snapshot-and-restore transactions. It is the executable reading of `Storage.ts` — fast for tests
 * and for trying Canopy without a database; nothing survives the process.
 */
import { Context, Effect, Layer, Semaphore } from "effect"
import * as S from "./Storage.ts"
import { Duplicate, Storage, type StorageShape } from "./Storage.ts"

interface Tables {
  accounts: Map<string, S.AccountRow>
  members: Map<string, S.MemberRow>
  invitations: Map<string, S.InvitationRow>
  projects: Map<string, S.ProjectRow>
  assets: Map<string, S.AssetRow>
  webhooks: Map<string, S.WebhookRow>
  events: Map<string, S.EventRow>
  deliveries: Map<string, S.DeliveryRow>
  logs: Map<string, S.DeliveryLogRow>
  credentials: Map<string, S.CredentialRow>
  usage: Map<string, number>
  alerts: Set<string>
  rateLimits: Map<string, unknown>
  /** When `rateLimits.update` last stored each bucket (its state's refilledAt). */
  rateLimitUses: Map<string, number>
  oauthClients: Map<string, S.OAuthClientRow>
  oauthCodes: Map<string, S.OAuthCodeRow>
  oauthTokens: Map<string, S.OAuthTokenRow>
  sessions: Map<string, S.SessionRow>
  /** Idempotency keys by `account|key`. */
  idempotency: Map<string, IdempotencyRow>
}

interface IdempotencyRow {
  readonly fingerprint: string
  readonly token: string
  /** When the key was claimed (epoch ms). */
  readonly created_at: number
  /** Null until completed. */
  readonly response: S.StoredResponse | null
}

const emptyTables = (): Tables => ({
  accounts: new Map(), members: new Map(), invitations: new Map(), projects: new Map(), assets: new Map(),
  webhooks: new Map(), events: new Map(), deliveries: new Map(), logs: new Map(), credentials: new Map(),
  usage: new Map(), alerts: new Set(), rateLimits: new Map(), rateLimitUses: new Map(),
  oauthClients: new Map(), oauthCodes: new Map(), oauthTokens: new Map(), sessions: new Map(), idempotency: new Map()
})

const snapshot = (t: Tables): Tables => ({
  accounts: new Map(t.accounts), members: new Map(t.members), invitations: new Map(t.invitations),
  projects: new Map(t.projects), assets: new Map(t.assets), webhooks: new Map(t.webhooks), events: new Map(t.events),
  deliveries: new Map(t.deliveries), logs: new Map(t.logs), credentials: new Map(t.credentials),
  usage: new Map(t.usage), alerts: new Set(t.alerts), rateLimits: new Map(t.rateLimits), rateLimitUses: new Map(t.rateLimitUses),
  oauthClients: new Map(t.oauthClients), oauthCodes: new Map(t.oauthCodes), oauthTokens: new Map(t.oauthTokens),
  sessions: new Map(t.sessions), idempotency: new Map(t.idempotency)
})

/** Whether the current fiber is inside a transaction of this store. */
const InTransaction = Context.Reference<boolean>("canopy/MemoryStorage/InTransaction", { defaultValue: () => false })

const clone = <A>(a: A): A => structuredClone(a)

/** Compares by a key, then by id, both in the same direction. */
const byKeyThenId = <R extends { readonly id: string }>(key: (r: R) => string | number, desc: boolean) => (a: R, b: R) =>
  compareAt(key(a), a.id, key(b), b.id) * (desc ? -1 : 1)

const compareAt = (ka: string | number, ia: string, kb: string | number, ib: string) =>
  ka < kb ? -1 : ka > kb ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0

/**
 * One window of rows sorted by `key` then id (descending when `desc`): after `q.after` when given,
 * else from `q.offset`. The total is exact when `exact`, else counted up to `COUNT_LIMIT`.
 */
const page = <R extends { readonly id: string }>(
  rows: Array<R>, key: (r: R) => string | number, desc: boolean,
  q: { readonly limit: number; readonly offset: number; readonly after?: S.After | undefined }, exact: boolean,
  countLimit = S.COUNT_LIMIT
): S.Page<R> => {
  const sorted = rows.sort(byKeyThenId(key, desc))
  const after = q.after
  const start = after === undefined
    ? q.offset
    : sorted.filter((r) => compareAt(key(r), r.id, after.value, after.id) * (desc ? -1 : 1) <= 0).length
  return {
    rows: sorted.slice(start, start + q.limit).map(clone),
    hasMore: start + q.limit < sorted.length,
    total: exact ? sorted.length : Math.min(sorted.length, countLimit),
    totalExact: exact || sorted.length <= countLimit
  }
}

/** A fresh, empty in-memory store. */
export const make = Effect.gen(function*() {
  let t = emptyTables()
  const lock = yield* Semaphore.make(1)

  /** Runs a body under the store's lock, unless the fiber already holds it in a transaction. */
  const locked = <A, E = never>(body: () => A | Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.gen(function*() {
      const run = Effect.suspend(() => {
        const out = body()
        return Effect.isEffect(out) ? out : Effect.succeed(out)
      })
      return (yield* InTransaction) ? yield* run : yield* lock.withPermit(run)
    })

  const mutable = <K extends keyof Tables>(k: K) => t[k]
  const update = <R extends { readonly id: string }>(map: Map<string, R>, row: R | undefined, patch: object): R | undefined => {
    if (!row) return undefined
    const next = { ...row, ...clone(patch) } as R
    map.set(row.id, next)
    return clone(next)
  }
  /** Leases a delivery and joins what sending it needs. */
  const claimed = (d: S.DeliveryRow, owner: string, leaseUntil: number): S.ClaimedDelivery => {
    const leased = { ...d, lease_owner: owner, lease_expires_at: leaseUntil }
    t.deliveries.set(d.id, leased)
    const e = t.events.get(d.event_id)!
    const w = t.webhooks.get(d.webhook_id)
    return clone({
      ...leased, payload: e.payload, event_type: e.type, event_created_at: e.created_at,
      url: w?.url ?? null, secret: w?.secret ?? null, webhook_enabled: w?.enabled ?? false,
      webhook_consecutive_failures: w?.consecutive_failures ?? 0, webhook_failing_since: w?.failing_since ?? null
    })
  }
  const owned = <R extends { readonly account_id: string }>(row: R | undefined, accountId: string) =>
    row && row.account_id === accountId ? row : undefined

  const store: StorageShape = {
    transaction: (effect) =>
      Effect.gen(function*() {
        if (yield* InTransaction) return yield* effect
        return yield* lock.withPermit(Effect.suspend(() => {
          const before = snapshot(t)
          return effect.pipe(
            Effect.provideService(InTransaction, true),
            Effect.onExit((exit) => Effect.sync(() => {
              if (exit._tag === "Failure") t = before
            }))
          )
        }))
      }),
    lockAccount: () => Effect.void,
    ping: Effect.void,

    accounts: {
      insert: (row) => locked(() => {
        if (mutable("accounts").has(row.id)) return Effect.fail(new Duplicate({ entity: "account", field: "id" }))
        mutable("accounts").set(row.id, clone(row))
        return Effect.void
      }),
      get: (id) => locked(() => clone(t.accounts.get(id))),
      update: (id, patch) => locked(() => update(t.accounts, t.accounts.get(id), patch)),
      count: locked(() => t.accounts.size),
      list: locked(() => [...t.accounts.values()].sort(byKeyThenId((a) => a.created_at, false)).map(clone))
    },

    members: {
      insert: (row) => locked(() => {
        for (const m of t.members.values()) {
          if (m.account_id === row.account_id && m.email === row.email) return Effect.fail(new Duplicate({ entity: "member", field: "email" }))
        }
        t.members.set(row.id, clone(row))
        return Effect.void
      }),
      get: (accountId, id) => locked(() => clone(owned(t.members.get(id), accountId))),
      getByEmail: (accountId, email) =>
        locked(() => clone([...t.members.values()].find((m) => m.account_id === accountId && m.email === email))),
      findByEmail: (email) => locked(() =>
        [...t.members.values()].filter((m) => m.email === email).sort(byKeyThenId((m) => m.created_at, false)).map(clone)),
      list: (accountId) => locked(() =>
        [...t.members.values()].filter((m) => m.account_id === accountId)
          .sort(byKeyThenId((m) => m.created_at, false)).map(clone)),
      update: (accountId, id, patch) => locked(() => {
        const row = owned(t.members.get(id), accountId)
        if (row && patch.email !== undefined && patch.email !== row.email) {
          for (const m of t.members.values()) {
            if (m.account_id === accountId && m.email === patch.email) return Effect.fail(new Duplicate({ entity: "member", field: "email" }))
          }
        }
        return Effect.succeed(update(t.members, row, patch))
      }),
      delete: (accountId, id) => locked(() => !!owned(t.members.get(id), accountId) && t.members.delete(id)),
      countActiveWithRole: (accountId, role) => locked(() =>
        [...t.members.values()].filter((m) => m.account_id === accountId && m.role === role && m.status === "active").length),
      count: (accountId) => locked(() => [...t.members.values()].filter((m) => m.account_id === accountId).length)
    },

    invitations: {
      insert: (row) => locked(() => {
        for (const i of t.invitations.values()) {
          if (i.token_hash === row.token_hash) return Effect.fail(new Duplicate({ entity: "invitation", field: "token_hash" }))
        }
        t.invitations.set(row.id, clone(row))
        return Effect.void
      }),
      getByTokenHash: (hash) => locked(() => clone([...t.invitations.values()].find((i) => i.token_hash === hash))),
      markAccepted: (id, at) => locked(() => {
        const row = t.invitations.get(id)
        if (!row || row.accepted_at !== null) return false
        t.invitations.set(id, { ...row, accepted_at: at })
        return true
      }),
      deleteForMember: (accountId, userId) => locked(() => {
        for (const [id, i] of t.invitations) if (i.account_id === accountId && i.user_id === userId) t.invitations.delete(id)
      })
    },

    projects: {
      insert: (row) => locked(() => {
        for (const p of t.projects.values()) {
          if (p.account_id === row.account_id && p.slug === row.slug) return Effect.fail(new Duplicate({ entity: "project", field: "slug" }))
        }
        t.projects.set(row.id, clone(row))
        return Effect.void
      }),
      get: (accountId, id) => locked(() => clone(owned(t.projects.get(id), accountId))),
      update: (accountId, id, patch) => locked(() => {
        const row = owned(t.projects.get(id), accountId)
        if (row && patch.slug !== undefined && patch.slug !== row.slug) {
          for (const p of t.projects.values()) {
            if (p.account_id === accountId && p.slug === patch.slug) return Effect.fail(new Duplicate({ entity: "project", field: "slug" }))
          }
        }
        return Effect.succeed(update(t.projects, row, patch))
      }),
      delete: (accountId, id) => locked(() => {
        if (!owned(t.projects.get(id), accountId)) return false
        for (const [aid, a] of t.assets) if (a.project_id === id) t.assets.delete(aid)
        return t.projects.delete(id)
      }),
      list: (accountId, q) => locked(() => {
        const rows = [...t.projects.values()].filter((p) =>
          p.account_id === accountId &&
          (q.status === undefined || p.status === q.status) &&
          (q.search === undefined || p.search_text.includes(q.search)))
        const key = q.sort === "name" ? (p: S.ProjectRow) => p.sort_name : q.sort === "area_hectares" ? (p: S.ProjectRow) => p.area_hectares : (p: S.ProjectRow) => p.created_at
        return page(rows, key, q.order === "desc", q, q.search === undefined, q.search === undefined ? S.COUNT_LIMIT : S.SEARCH_COUNT_LIMIT)
      }),
      stats: (accountId) => locked(() => {
        const s = { active: 0, archived: 0, draft: 0 }
        let units = 0 // 1/10,000 ha, summed exactly as the SQL stores' running totals do
        for (const p of t.projects.values()) {
          if (p.account_id !== accountId) continue
          s[p.status]++
          if (p.status !== "archived") units += Math.round(p.area_hectares * 10_000)
        }
        return { ...s, hectares: units / 10_000 }
      })
    },

    assets: {
      insert: (row) => locked(() => void t.assets.set(row.id, clone(row))),
      get: (accountId, projectId, id) => locked(() => {
        const a = owned(t.assets.get(id), accountId)
        return clone(a && a.project_id === projectId ? a : undefined)
      }),
      update: (accountId, projectId, id, patch) => locked(() => {
        const a = owned(t.assets.get(id), accountId)
        return update(t.assets, a && a.project_id === projectId ? a : undefined, patch)
      }),
      delete: (accountId, projectId, id) => locked(() => {
        const a = owned(t.assets.get(id), accountId)
        return !!a && a.project_id === projectId && t.assets.delete(id)
      }),
      list: (accountId, projectId, q) => locked(() => {
        const rows = [...t.assets.values()].filter((a) =>
          a.account_id === accountId && a.project_id === projectId &&
          (q.type === undefined || a.type === q.type) &&
          (q.status === undefined || a.status === q.status) &&
          (q.search === undefined || a.search_text.includes(q.search)))
        return page(rows, (a) => a.created_at, true, q, false, q.search === undefined ? S.COUNT_LIMIT : S.SEARCH_COUNT_LIMIT)
      })
    },

    webhooks: {
      insert: (row) => locked(() => void t.webhooks.set(row.id, clone(row))),
      get: (accountId, id) => locked(() => clone(owned(t.webhooks.get(id), accountId))),
      update: (accountId, id, patch) => locked(() => update(t.webhooks, owned(t.webhooks.get(id), accountId), patch)),
      delete: (accountId, id) => locked(() => !!owned(t.webhooks.get(id), accountId) && t.webhooks.delete(id)),
      list: (accountId) => locked(() =>
        [...t.webhooks.values()].filter((w) => w.account_id === accountId).sort(byKeyThenId((w) => w.created_at, false)).map(clone)),
      count: (accountId) => locked(() => [...t.webhooks.values()].filter((w) => w.account_id === accountId).length)
    },

    outbox: {
      append: (event, deliveries) => locked(() => {
        t.events.set(event.id, clone(event))
        for (const d of deliveries) t.deliveries.set(d.id, clone(d))
      }),
      getEvent: (accountId, id) => locked(() => clone(owned(t.events.get(id), accountId))),
      listEvents: (accountId, q) => locked(() => {
        const rows = [...t.events.values()].filter((e) => e.account_id === accountId && (q.type === undefined || e.type === q.type) &&
          (q.created_after === undefined || e.created_at >= q.created_after) && (q.created_before === undefined || e.created_at < q.created_before))
        return page(rows, (e) => e.created_at, true, q, false)
      }),
      listDeliveries: (accountId, eventId) => locked(() =>
        [...t.deliveries.values()].filter((d) => d.account_id === accountId && d.event_id === eventId)
          .sort(byKeyThenId((d) => d.created_at, false)).map(clone)),
      cancelPending: (accountId, webhookId, at) => locked(() => {
        const canceled: Array<S.DeliveryRow> = []
        for (const d of t.deliveries.values()) {
          if (d.account_id === accountId && d.webhook_id === webhookId && d.status === "pending") {
            const row: S.DeliveryRow = { ...d, status: "canceled", next_attempt_at: null, lease_owner: null, lease_expires_at: null, updated_at: at }
            t.deliveries.set(d.id, row)
            canceled.push(clone(row))
          }
        }
        return canceled
      }),
      claimDue: (now, limit, owner, leaseUntil, exclude = []) => locked(() => {
        const due = [...t.deliveries.values()]
          .filter((d) => d.status === "pending" && d.next_attempt_at !== null && d.next_attempt_at <= now &&
            (d.lease_expires_at === null || d.lease_expires_at < now) && !exclude.includes(d.webhook_id))
          .sort((a, b) => (a.next_attempt_at! - b.next_attempt_at!) || (a.id < b.id ? -1 : 1))
          .slice(0, limit)
        return due.map((d) => claimed(d, owner, leaseUntil))
      }),
      release: (ids, owner) => locked(() => {
        for (const id of ids) {
          const d = t.deliveries.get(id)
          if (d && d.lease_owner === owner) t.deliveries.set(id, { ...d, lease_owner: null, lease_expires_at: null })
        }
      }),
      claimOne: (id, now, owner, leaseUntil) => locked(() => {
        const d = t.deliveries.get(id)
        if (!d || d.status !== "pending" || (d.lease_expires_at !== null && d.lease_expires_at >= now && d.lease_owner !== owner)) return undefined
        return claimed(d, owner, leaseUntil)
      }),
      recordAttempt: (r) => locked(() => {
        t.logs.set(r.log.id, clone(r.log))
        const d = t.deliveries.get(r.delivery_id)
        if (!d || d.status !== "pending" || d.lease_owner !== r.owner) return false
        t.deliveries.set(d.id, { ...d, attempts: r.attempts, status: r.status, next_attempt_at: r.next_attempt_at, lease_owner: null, lease_expires_at: null, updated_at: r.updated_at })
        return true
      }),
      nextDue: locked(() => {
        let min: number | null = null
        for (const d of t.deliveries.values()) {
          if (d.status === "pending" && d.next_attempt_at !== null && (min === null || d.next_attempt_at < min)) min = d.next_attempt_at
        }
        return min
      }),
      getDelivery: (accountId, id) => locked(() => clone(owned(t.deliveries.get(id), accountId))),
      getLog: (accountId, webhookId, id) => locked(() => {
        const l = owned(t.logs.get(id), accountId)
        return clone(l && l.webhook_id === webhookId ? l : undefined)
      }),
      purgeLogs: (before, limit) => locked(() => {
        const old = [...t.logs.values()].filter((l) => l.created_at < before)
          .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)).slice(0, limit)
        for (const l of old) t.logs.delete(l.id)
        return old.length
      }),
      addDeliveries: (deliveries) => locked(() => {
        for (const d of deliveries) t.deliveries.set(d.id, clone(d))
      }),
      insertLog: (row) => locked(() => void t.logs.set(row.id, clone(row))),
      listLogs: (accountId, webhookId, q) => locked(() => {
        const rows = [...t.logs.values()].filter((l) =>
          l.account_id === accountId && l.webhook_id === webhookId &&
          (q.status === undefined || l.status === q.status) &&
          (q.event_type === undefined || l.event_type === q.event_type))
        return page(rows, (l) => l.created_at, true, q, false)
      })
    },

    credentials: {
      insert: (row) => locked(() => {
        for (const c of t.credentials.values()) {
          if (c.token_hash === row.token_hash) return Effect.fail(new Duplicate({ entity: "credential", field: "token_hash" }))
        }
        t.credentials.set(row.id, clone(row))
        return Effect.void
      }),
      getByHash: (hash) => locked(() => clone([...t.credentials.values()].find((c) => c.token_hash === hash))),
      list: (accountId, kind) => locked(() =>
        [...t.credentials.values()].filter((c) => c.account_id === accountId && c.kind === kind)
          .sort(byKeyThenId((c) => c.created_at, false)).map(clone)),
      get: (accountId, id) => locked(() => clone(owned(t.credentials.get(id), accountId))),
      revoke: (accountId, id, at) => locked(() => {
        const c = owned(t.credentials.get(id), accountId)
        if (!c || c.revoked_at !== null) return false
        t.credentials.set(id, { ...c, revoked_at: at })
        return true
      }),
      touch: (id, at) => locked(() => {
        const c = t.credentials.get(id)
        if (c) t.credentials.set(id, { ...c, last_used_at: at })
      })
    },

    usage: {
      increment: (accountId, period, metric, by) => locked(() => {
        const key = `${accountId}|${period}|${metric}`
        const next = (t.usage.get(key) ?? 0) + by
        t.usage.set(key, next)
        return next
      }),
      get: (accountId, period, metric) => locked(() => t.usage.get(`${accountId}|${period}|${metric}`) ?? 0),
      markAlert: (accountId, period, metric, threshold) => locked(() => {
        const key = `${accountId}|${period}|${metric}|${threshold}`
        if (t.alerts.has(key)) return false
        t.alerts.add(key)
        return true
      }),
      alerts: (accountId, period, metric) => locked(() => {
        const prefix = `${accountId}|${period}|${metric}|`
        return [...t.alerts].filter((k) => k.startsWith(prefix)).map((k) => Number(k.slice(prefix.length))).sort((a, b) => a - b)
      })
    },

    oauth: {
      insertClient: (row) => locked(() => {
        if (t.oauthClients.has(row.id)) return Effect.fail(new Duplicate({ entity: "oauth client", field: "id" }))
        t.oauthClients.set(row.id, clone(row))
        return Effect.void
      }),
      getClient: (id) => locked(() => clone(t.oauthClients.get(id))),
      listClients: (accountId) => locked(() =>
        [...t.oauthClients.values()].filter((c) => c.account_id === accountId).sort(byKeyThenId((c) => c.created_at, false)).map(clone)),
      updateClient: (accountId, id, patch) => locked(() => update(t.oauthClients, owned(t.oauthClients.get(id), accountId), patch)),
      deleteClient: (accountId, id) => locked(() => !!owned(t.oauthClients.get(id), accountId) && t.oauthClients.delete(id)),
      insertCode: (row) => locked(() => {
        if (t.oauthCodes.has(row.code_hash)) return Effect.fail(new Duplicate({ entity: "oauth code", field: "code_hash" }))
        t.oauthCodes.set(row.code_hash, clone(row))
        return Effect.void
      }),
      getCode: (hash) => locked(() => clone(t.oauthCodes.get(hash))),
      useCode: (hash, now) => locked(() => {
        const c = t.oauthCodes.get(hash)
        if (!c) return undefined
        if (c.used_at === null) t.oauthCodes.set(hash, { ...c, used_at: now })
        return clone(c)
      }),
      insertToken: (row) => locked(() => {
        for (const x of t.oauthTokens.values()) if (x.token_hash === row.token_hash) return Effect.fail(new Duplicate({ entity: "oauth token", field: "token_hash" }))
        t.oauthTokens.set(row.id, clone(row))
        return Effect.void
      }),
      getToken: (hash) => locked(() => clone([...t.oauthTokens.values()].find((x) => x.token_hash === hash))),
      getTokenById: (id) => locked(() => clone(t.oauthTokens.get(id))),
      originAllowed: (origin) => locked(() => [...t.oauthClients.values()].some((c) => c.allowed_origins.includes(origin))),
      rotate: (hash, now) => locked(() => {
        const x = [...t.oauthTokens.values()].find((y) => y.token_hash === hash)
        if (!x || x.rotated_at !== null) return false
        t.oauthTokens.set(x.id, { ...x, rotated_at: now })
        return true
      }),
      revokeFamily: (familyId, now) => locked(() => {
        let n = 0
        for (const x of t.oauthTokens.values()) {
          if (x.family_id === familyId && x.revoked_at === null) {
            t.oauthTokens.set(x.id, { ...x, revoked_at: now })
            n++
          }
        }
        return n
      }),
      touchToken: (hash, now) => locked(() => {
        const x = [...t.oauthTokens.values()].find((y) => y.token_hash === hash)
        if (x) t.oauthTokens.set(x.id, { ...x, last_used_at: now })
      })
    },

    sessions: {
      insert: (row) => locked(() => {
        if (t.sessions.has(row.token_hash)) return Effect.fail(new Duplicate({ entity: "session", field: "token_hash" }))
        t.sessions.set(row.token_hash, clone(row))
        return Effect.void
      }),
      get: (hash) => locked(() => clone(t.sessions.get(hash))),
      delete: (hash) => locked(() => void t.sessions.delete(hash)),
      purgeExpired: (now, limit) => locked(() => {
        const expired = [...t.sessions.values()].filter((x) => x.expires_at <= now)
          .sort((a, b) => a.expires_at - b.expires_at).slice(0, limit)
        for (const x of expired) t.sessions.delete(x.token_hash)
        return expired.length
      })
    },

    rateLimits: {
      update: (accountId, step) => locked(() => {
        const [result, state] = step(t.rateLimits.get(accountId) as never)
        t.rateLimits.set(accountId, clone(state))
        t.rateLimitUses.set(accountId, state.refilledAt)
        return result
      }),
      purge: (before, limit) => locked(() => {
        const idle = [...t.rateLimitUses].filter(([, at]) => at < before).sort((a, b) => a[1] - b[1]).slice(0, limit)
        for (const [key] of idle) {
          t.rateLimits.delete(key)
          t.rateLimitUses.delete(key)
        }
        return idle.length
      })
    },

    idempotency: {
      begin: (accountId, key, fingerprint, token, now, limits) => locked((): S.IdempotencyBegin => {
        const id = `${accountId}|${key}`
        const row = t.idempotency.get(id)
        const free = !row || row.created_at < limits.expiredBefore ||
          (row.response === null && row.created_at < limits.abandonedBefore)
        if (free) {
          t.idempotency.set(id, { fingerprint, token, created_at: now, response: null })
          return { kind: "new" }
        }
        if (row.fingerprint !== fingerprint) return { kind: "mismatch" }
        return row.response === null ? { kind: "in_progress" } : { kind: "replay", response: clone(row.response) }
      }),
      complete: (accountId, key, token, response) => locked(() => {
        const id = `${accountId}|${key}`
        const row = t.idempotency.get(id)
        if (!row || row.token !== token || row.response !== null) return false
        t.idempotency.set(id, { ...row, response: clone(response) })
        return true
      }),
      release: (accountId, key, token) => locked(() => {
        const id = `${accountId}|${key}`
        const row = t.idempotency.get(id)
        if (!row || row.token !== token || row.response !== null) return false
        t.idempotency.delete(id)
        return true
      }),
      purge: (before, limit) => locked(() => {
        const old = [...t.idempotency].filter(([, r]) => r.created_at < before).sort((a, b) => a[1].created_at - b[1].created_at).slice(0, limit)
        for (const [id] of old) t.idempotency.delete(id)
        return old.length
      })
    },

    requests: {
      meter: (accountId, period, decide) => locked(() => {
        const account = t.accounts.get(accountId)
        if (!account) return undefined
        const step = decide(account.plan, t.rateLimits.get(accountId) as never)
        t.rateLimits.set(accountId, clone(step.state))
        const key = `${accountId}|${period}|api_requests`
        const count = (t.usage.get(key) ?? 0) + (step.count ? 1 : 0)
        if (step.count) t.usage.set(key, count)
        return { result: step.result, count }
      })
    }
  }
  return store
})

/** A layer with a fresh, empty in-memory store. */
export const layer: Layer.Layer<Storage> = Layer.effect(Storage, make)
