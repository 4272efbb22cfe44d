/** The storage contract's cases for identity: members, invitations, sessions and the purges of maintenance. */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import * as Ids from "../../Ids.ts"
import type { State as RateLimitState } from "../../RateLimit.ts"
import { Storage } from "../../Storage.ts"
import { memberRow } from "../fixtures.ts"
import { failureTag, iso, newAccountRow } from "./helpers.ts"

export const identityCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("members: list oldest first, counts, role counts", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const first = memberRow(a.id, { role: "owner", created_at: iso(1) })
      const second = memberRow(a.id, { role: "owner", status: "invited", created_at: iso(2) })
      const third = memberRow(a.id, { role: "viewer", created_at: iso(3) })
      for (const m of [third, first, second]) yield* s.members.insert(m)
      assert.deepStrictEqual((yield* s.members.list(a.id)).map((m) => m.id), [first.id, second.id, third.id])
      assert.strictEqual(yield* s.members.count(a.id), 3)
      assert.strictEqual(yield* s.members.countActiveWithRole(a.id, "owner"), 1)
      assert.deepStrictEqual(yield* s.members.getByEmail(a.id, third.email), third)
      const b = yield* newAccountRow(s)
      const elsewhere = memberRow(b.id, { email: third.email, created_at: iso(9) })
      yield* s.members.insert(elsewhere)
      assert.deepStrictEqual((yield* s.members.findByEmail(third.email)).map((m) => m.id), [third.id, elsewhere.id])
    }))

  it.effect("invitations: by token hash, accepted exactly once, removed with the member", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const m = memberRow(a.id, { status: "invited" })
      yield* s.members.insert(m)
      const inv = { id: Ids.make("invitation"), account_id: a.id, user_id: m.id, token_hash: Ids.randomBase32(40), expires_at: iso(60), accepted_at: null,
        created_at: iso(0) }
      yield* s.invitations.insert(inv)
      assert.deepStrictEqual(yield* s.invitations.getByTokenHash(inv.token_hash), inv)
      const results = yield* Effect.all(Array.from({ length: 5 }, () => s.transaction(s.invitations.markAccepted(inv.id, iso(5)))), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(results.filter(Boolean).length, 1)
      assert.strictEqual((yield* s.invitations.getByTokenHash(inv.token_hash))?.accepted_at, iso(5))
      yield* s.invitations.deleteForMember(a.id, m.id)
      assert.isUndefined(yield* s.invitations.getByTokenHash(inv.token_hash))
    }))

  it.effect("maintenance: expired sessions and idle rate-limit buckets are purged in bounded batches; live ones stay", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const T = 1_900_000_000_000
      const session = (expires_at: number) => ({
        token_hash: Ids.randomBase32(52),
        account_id: a.id,
        user_id: Ids.make("user"),
        csrf: "c",
        expires_at,
        created_at: iso(1)
      })
      const expired = [session(T - 3), session(T - 2), session(T)]
      const live = session(T + 1)
      for (const x of [...expired, live]) yield* s.sessions.insert(x)
      assert.strictEqual(yield* s.sessions.purgeExpired(T, 2), 2, "at most `limit` rows per call")
      let more = 0
      for (let n = -1; n !== 0;) more += n = yield* s.sessions.purgeExpired(T, 2)
      assert.isAtLeast(more, 1)
      for (const x of expired) assert.isUndefined(yield* s.sessions.get(x.token_hash))
      assert.deepStrictEqual(yield* s.sessions.get(live.token_hash), live)

      // A bucket's age is when `update` last stored it (its state's refilledAt).
      const bucket = (refilledAt: number): RateLimitState => ({ units: 0, refilledAt, day: Math.floor(refilledAt / 86_400_000), dayCount: 1 })
      const keys = Array.from({ length: 4 }, () => `purge-test:${Ids.randomBase32(12)}`)
      const ages = [T - 300, T - 200, T - 100, T]
      for (let i = 0; i < keys.length; i++) yield* s.rateLimits.update(keys[i]!, () => [undefined, bucket(ages[i]!)] as const)
      assert.strictEqual(yield* s.rateLimits.purge(T - 50, 2), 2, "at most `limit` buckets per call")
      for (let n = -1; n !== 0;) n = yield* s.rateLimits.purge(T - 50, 2)
      const current = (key: string) => s.rateLimits.update(key, (state) => [state, state ?? bucket(0)] as const)
      for (const k of keys.slice(0, 3)) assert.isUndefined(yield* current(k), "an idle bucket is gone")
      assert.strictEqual((yield* current(keys[3]!))?.refilledAt, T, "a recent bucket stays")
      // the account's own bucket, kept by metering, is not the purge's business
      yield* s.requests.meter(a.id, "2026-01", (_plan, state) => ({ result: undefined, state: state ?? bucket(1), count: false }))
      for (let n = -1; n !== 0;) n = yield* s.rateLimits.purge(T, 100)
      const kept = yield* s.requests.meter(a.id, "2026-01", (_plan, state) => ({ result: state, state: state ?? bucket(2), count: false }))
      assert.strictEqual(kept?.result?.refilledAt, 1)
    }))

  it.effect("sessions: by token hash, deleted on sign-out", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const row = { token_hash: Ids.randomBase32(52), account_id: a.id, user_id: Ids.make("user"), csrf: "csrf-value", expires_at: 2_000_000_000_000,
        created_at: iso(1) }
      yield* s.sessions.insert(row)
      assert.deepStrictEqual(yield* s.sessions.get(row.token_hash), row)
      assert.strictEqual(failureTag(yield* Effect.exit(s.sessions.insert(row))), "Duplicate")
      yield* s.sessions.delete(row.token_hash)
      assert.isUndefined(yield* s.sessions.get(row.token_hash))
    }))
}
