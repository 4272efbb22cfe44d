/**
 * Web sessions of members (account pages, OAuth consent): sign-in with email and password
 * (scrypt), rate limited per account and per address, a server-side session with its own CSRF
 * token, and sign-out. Failures never say whether the email exists.
 */
import { Context, Effect, Layer } from "effect"
import { type DomainError, RateLimited, Unauthorized } from "../Errors.ts"
import * as Passwords from "../Passwords.ts"
import * as RateLimit from "../RateLimit.ts"
import { type MemberRow, Storage, type StorageError, type StorageShape } from "../Storage.ts"
import * as Time from "../Time.ts"
import * as Tokens from "../Tokens.ts"
import { conflictOnDuplicate } from "./common.ts"

/** Sessions last 12 hours. */
export const SESSION_TTL_MS = 12 * 3_600_000
/** Sign-in attempts allowed per account and per address. */
export const SIGN_IN_LIMITS = {
  account: { perMinute: 10, perDay: 200 },
  address: { perMinute: 20, perDay: 1_000 }
} as const

/** A live session. */
export interface Session {
  readonly token: string
  readonly csrf: string
  readonly account_id: string
  readonly member: MemberRow
  readonly expires_at: number
}

// A hash to verify against when the email is unknown, so that timing does not tell.
const DUMMY = Passwords.hash("not-a-real-password-only-for-timing")

/** The Sessions service. */
export class Sessions extends Context.Service<Sessions, {
  readonly signIn: (accountId: string, email: string, password: string, address: string) => Effect.Effect<Session, DomainError | StorageError>
  /** Signs in to whichever account the email and password open (the oldest, when several do). */
  readonly signInAnywhere: (email: string, password: string, address: string) => Effect.Effect<Session, DomainError | StorageError>
  /** The live session behind a cookie value, or undefined (unknown, expired, member gone). */
  readonly get: (token: string | undefined) => Effect.Effect<Session | undefined, StorageError>
  readonly signOut: (token: string) => Effect.Effect<void, StorageError>
}>()("canopy/Sessions") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

const make = (storage: StorageShape) => {
  const limited = (key: string, limits: { readonly perMinute: number; readonly perDay: number }, now: number) =>
    storage.rateLimits.update(key, (state) => {
      const d = RateLimit.consume(state, limits, now)
      return [d, d.state] as const
    })

  const service = Sessions.of({
    signInAnywhere: Effect.fn("Sessions.signInAnywhere")(function*(email, password, address) {
      const candidates = yield* storage.members.findByEmail(email.trim().toLowerCase())
      for (const m of candidates) {
        if (m.status === "active" && m.password_hash !== null && (yield* Passwords.verify(password, m.password_hash))) {
          return yield* service.signIn(m.account_id, email, password, address)
        }
      }
      const now = yield* Time.nowMillis
      const d = yield* limited(`signin-ip:${address}`, SIGN_IN_LIMITS.address, now)
      if (!d.allowed) return yield* new RateLimited({ message: `Too many sign-in attempts; try again in ${d.retryAfter} s`, retryAfter: d.retryAfter })
      if (candidates.length === 0) yield* DUMMY
      return yield* new Unauthorized({ message: "The email or the password is wrong" })
    }),

    signIn: Effect.fn("Sessions.signIn")(function*(accountId, email, password, address) {
      const now = yield* Time.nowMillis
      for (const d of [yield* limited(`signin:${accountId}`, SIGN_IN_LIMITS.account, now), yield* limited(`signin-ip:${address}`, SIGN_IN_LIMITS.address, now)]) {
        if (!d.allowed) return yield* new RateLimited({ message: `Too many sign-in attempts; try again in ${d.retryAfter} s`, retryAfter: d.retryAfter })
      }
      const member = yield* storage.members.getByEmail(accountId, email.trim().toLowerCase())
      const ok = yield* Passwords.verify(password, member?.password_hash ?? (yield* DUMMY))
      if (!member || !ok || member.status !== "active" || member.password_hash === null) {
        return yield* new Unauthorized({ message: "The email or the password is wrong" })
      }
      const token = Tokens.generate("session")
      const csrf = Tokens.generate("session")
      const expires = now + SESSION_TTL_MS
      yield* storage.sessions.insert({
        token_hash: Tokens.hash(token), account_id: accountId, user_id: member.id, csrf, expires_at: expires,
        created_at: new Date(now).toISOString()
      }).pipe(conflictOnDuplicate(() => "session collision; try again"))
      yield* storage.members.update(accountId, member.id, { last_active_at: new Date(now).toISOString() }).pipe(Effect.ignore)
      return { token, csrf, account_id: accountId, member, expires_at: expires }
    }),

    get: (token) =>
      Effect.gen(function*() {
        if (!token || Tokens.kindOf(token) !== "session") return undefined
        const row = yield* storage.sessions.get(Tokens.hash(token))
        if (!row || (yield* Time.nowMillis) >= row.expires_at) return undefined
        const member = yield* storage.members.get(row.account_id, row.user_id)
        if (!member || member.status !== "active") return undefined
        return { token, csrf: row.csrf, account_id: row.account_id, member, expires_at: row.expires_at }
      }),

    signOut: (token) => storage.sessions.delete(Tokens.hash(token))
  })
  return service
}
