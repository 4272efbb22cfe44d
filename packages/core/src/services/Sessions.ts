/**
 * Web sessions of members (account pages, OAuth consent): sign-in with email and password
 * (scrypt), rate limited per email and per address before any hashing, a server-side session with
 * its own CSRF token, sign-out, and the purge of expired sessions and idle sign-in buckets.
 * Failures never say whether the email exists, by their answer or by their cost: every attempt
 * past the limits runs exactly one scrypt.
 */
import { Context, Effect, Layer } from "effect"
import { type DomainError, RateLimited, Unauthorized } from "../Errors.ts"
import * as Passwords from "../Passwords.ts"
import * as RateLimit from "../RateLimit.ts"
import { type MemberRow, Storage, type StorageError, type StorageShape } from "../Storage.ts"
import * as Time from "../Time.ts"
import * as Tokens from "../Tokens.ts"
import { conflictOnDuplicate, inBatches } from "./common.ts"

/** Sessions last 12 hours. */
const SESSION_TTL_MS = 12 * 3_600_000
/**
 * Sign-in attempts allowed per email (whichever page, whichever account) and per client address.
 * Both are spent before any password is hashed, so refused attempts cost no scrypt.
 */
const SIGN_IN_LIMITS = {
  email: { perMinute: 10, perDay: 200 },
  address: { perMinute: 20, perDay: 1_000 }
} as const
/**
 * A sign-in bucket unused this long is deleted by `purge`: by then its minute bucket is full again
 * and its day is over, so a fresh bucket behaves exactly like it.
 */
const SIGN_IN_BUCKET_IDLE_MS = 86_400_000

/** A live session. */
export interface Session {
  readonly token: string
  readonly csrf: string
  readonly account_id: string
  readonly member: MemberRow
  readonly expires_at: number
}

/**
 * What a password is checked against when there is no member to check it against (unknown email,
 * invited member without a password): a well-formed hash with the parameters of
 * `Passwords.hash`, so that the check costs exactly what a real one does (one scrypt run).
 */
const STAND_IN_HASH = "scrypt$16384$8$1$WlpaWlpaWlpaWlpaWlpaWg==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

/** The normalised form of an email (as members store it). */
const normalise = (email: string) => email.trim().toLowerCase()

/** The Sessions service. */
export class Sessions extends Context.Service<Sessions, {
  readonly signIn: (accountId: string, email: string, password: string, address: string) => Effect.Effect<Session, DomainError | StorageError>
  /** Signs in to the oldest account in which the email is an active member with a password, when the password is theirs. */
  readonly signInAnywhere: (email: string, password: string, address: string) => Effect.Effect<Session, DomainError | StorageError>
  /** The live session behind a cookie value, or undefined (unknown, expired, member gone). */
  readonly get: (token: string | undefined) => Effect.Effect<Session | undefined, StorageError>
  readonly signOut: (token: string) => Effect.Effect<void, StorageError>
  /**
   * Maintenance: deletes expired sessions and sign-in buckets idle for a day, in batches of
   * `PURGE_BATCH`, at most `PURGE_BATCHES` of each per call (what is left waits for the next call).
   */
  readonly purge: Effect.Effect<{ readonly sessions: number; readonly buckets: number }, StorageError>
}>()("canopy/Sessions") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

const make = (storage: StorageShape) => {
  const spend = (key: string, limits: RateLimit.Limits, now: number) =>
    storage.rateLimits.update(key, (state) => {
      const d = RateLimit.consume(state, limits, now)
      return [d, d.state] as const
    })

  /**
   * Spends one attempt from the address's bucket, then (when it allows) from the email's: an
   * attempt refused by its address costs the email nothing, so one client cannot drain another
   * member's allowance faster than the address limit lets it. Fails with RateLimited.
   */
  const admit = (email: string, address: string, now: number) =>
    Effect.gen(function*() {
      const byAddress = yield* spend(`signin-ip:${address}`, SIGN_IN_LIMITS.address, now)
      // The email's key is its hash: bounded in size whatever is typed, and no address book in the table.
      const d = byAddress.allowed ? yield* spend(`signin-email:${Tokens.hash(email)}`, SIGN_IN_LIMITS.email, now) : byAddress
      if (!d.allowed) return yield* new RateLimited({ message: `Too many sign-in attempts; try again in ${d.retryAfter} s`, retryAfter: d.retryAfter })
    })

  /**
   * The one password check of an attempt: against the member's hash when they can sign in, else
   * against the stand-in, so that every attempt past the limits costs one scrypt run.
   */
  const check = (member: MemberRow | undefined, password: string) =>
    Effect.gen(function*() {
      const usable = member !== undefined && member.status === "active" && member.password_hash !== null
      const ok = yield* Passwords.verify(password, usable ? member.password_hash! : STAND_IN_HASH)
      if (!usable || !ok) return yield* new Unauthorized({ message: "The email or the password is wrong" })
      return member
    })

  const open = (member: MemberRow, now: number) =>
    Effect.gen(function*() {
      const token = Tokens.generate("session")
      const csrf = Tokens.generate("session")
      const expires = now + SESSION_TTL_MS
      yield* storage.sessions.insert({
        token_hash: Tokens.hash(token),
        account_id: member.account_id,
        user_id: member.id,
        csrf,
        expires_at: expires,
        created_at: new Date(now).toISOString()
      }).pipe(conflictOnDuplicate(() => "session collision; try again"))
      yield* storage.members.update(member.account_id, member.id, { last_active_at: new Date(now).toISOString() }).pipe(Effect.ignore)
      return { token, csrf, account_id: member.account_id, member, expires_at: expires }
    })

  const service = Sessions.of({
    signInAnywhere: Effect.fn("Sessions.signInAnywhere")(function*(email, password, address) {
      const now = yield* Time.nowMillis
      const normalised = normalise(email)
      yield* admit(normalised, address, now)
      const candidates = yield* storage.members.findByEmail(normalised)
      const member = candidates.find((m) => m.status === "active" && m.password_hash !== null)
      return yield* open(yield* check(member, password), now)
    }),

    signIn: Effect.fn("Sessions.signIn")(function*(accountId, email, password, address) {
      const now = yield* Time.nowMillis
      const normalised = normalise(email)
      yield* admit(normalised, address, now)
      const member = yield* storage.members.getByEmail(accountId, normalised)
      return yield* open(yield* check(member, password), now)
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

    signOut: (token) => storage.sessions.delete(Tokens.hash(token)),

    purge: Effect.gen(function*() {
      const now = yield* Time.nowMillis
      return {
        sessions: yield* inBatches((limit) => storage.sessions.purgeExpired(now, limit)),
        buckets: yield* inBatches((limit) => storage.rateLimits.purge(now - SIGN_IN_BUCKET_IDLE_MS, limit))
      }
    })
  })
  return service
}
