/**
 * What every area of the in-memory store shares: its tables (plain maps), the lock, and the list
 * machinery (keyset or offset windows, capped counts).
 */
import { Context, Effect, type Semaphore } from "effect"
import { RawJson } from "../RawJson.ts"
import * as S from "../Storage.ts"

export interface Tables {
  accounts: Map<string, S.AccountRow>
  members: Map<string, S.MemberRow>
  invitations: Map<string, S.InvitationRow>
  projects: Map<string, S.ProjectRow>
  assets: Map<string, S.AssetRow>
  /** Boundary versions by `project|version` (the version zero-padded, so keys sort by it). */
  boundaryVersions: Map<string, S.BoundaryVersionRow>
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
  imports: Map<string, S.ImportRow>
  /** Import results by `import|position`. */
  importResults: Map<string, S.ImportResultRow>
}

export interface IdempotencyRow {
  readonly fingerprint: string
  readonly token: string
  /** When the key was claimed (epoch ms). */
  readonly created_at: number
  /** Null until completed. */
  readonly response: S.StoredResponse | null
}

const emptyTables = (): Tables => ({
  accounts: new Map(),
  members: new Map(),
  invitations: new Map(),
  projects: new Map(),
  assets: new Map(),
  boundaryVersions: new Map(),
  webhooks: new Map(),
  events: new Map(),
  deliveries: new Map(),
  logs: new Map(),
  credentials: new Map(),
  usage: new Map(),
  alerts: new Set(),
  rateLimits: new Map(),
  rateLimitUses: new Map(),
  oauthClients: new Map(),
  oauthCodes: new Map(),
  oauthTokens: new Map(),
  sessions: new Map(),
  idempotency: new Map(),
  imports: new Map(),
  importResults: new Map()
})

/** A copy of every table (the maps, not the rows: rows are replaced, never changed in place). */
export const snapshot = (t: Tables): Tables =>
  Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v instanceof Set ? new Set(v) : new Map(v as Map<unknown, unknown>)])) as never

/** Whether the current fiber is inside a transaction of this store. */
export const InTransaction = Context.Reference<boolean>("canopy/MemoryStorage/InTransaction", { defaultValue: () => false })

/** A deep copy of a row; boundaries (`RawJson`, immutable) are shared, so they stay `RawJson`. */
export const clone = <A>(a: A): A => {
  if (a === null || typeof a !== "object" || a instanceof RawJson) return a
  if (Array.isArray(a)) return a.map(clone) as A
  if (Object.getPrototypeOf(a) !== Object.prototype) return structuredClone(a)
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, clone(v)])) as A
}

const compareAt = (ka: string | number, ia: string, kb: string | number, ib: string) => ka < kb ? -1 : ka > kb ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0

/** Compares by a key, then by id, both in the same direction. */
export const byKeyThenId = <R extends { readonly id: string }>(key: (r: R) => string | number, desc: boolean) => (a: R, b: R) =>
  compareAt(key(a), a.id, key(b), b.id) * (desc ? -1 : 1)

/**
 * One window of rows sorted by `key` then id (descending when `desc`): after `q.after` when given,
 * else from `q.offset`. The total is exact when `exact`, else counted up to `countLimit`.
 */
export const page = <R extends { readonly id: string }>(
  rows: Array<R>,
  key: (r: R) => string | number,
  desc: boolean,
  q: S.Window,
  exact: boolean,
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

/** A row of the account, or undefined for another account's. */
export const owned = <R extends { readonly account_id: string }>(row: R | undefined, accountId: string) => row && row.account_id === accountId ? row : undefined

/** The store's state and lock, as the areas see them. */
export const makeContext = (lock: Semaphore.Semaphore) => {
  let t = emptyTables()

  /** Runs a body under the store's lock, unless the fiber already holds it in a transaction. */
  const locked = <A, E = never>(body: () => A | Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.gen(function*() {
      const run = Effect.suspend(() => {
        const out = body()
        return Effect.isEffect(out) ? out : Effect.succeed(out)
      })
      return (yield* InTransaction) ? yield* run : yield* lock.withPermit(run)
    })

  /** Applies a patch to a row (when there is one) and answers a copy of the result. */
  const update = <R extends { readonly id: string }>(map: Map<string, R>, row: R | undefined, patch: object): R | undefined => {
    if (!row) return undefined
    const next = { ...row, ...clone(patch) } as R
    map.set(row.id, next)
    return clone(next)
  }

  return {
    /** The current tables (replaced wholesale when a transaction rolls back). */
    get t() {
      return t
    },
    set t(tables: Tables) {
      t = tables
    },
    locked,
    update
  }
}

/** The store's state and helpers. */
export type Ctx = ReturnType<typeof makeContext>
