/** The domain cases for identity: bootstrap, sign-in, members, the account and its plan limits, tenant isolation. */
import { assert } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Ids from "../../Ids.ts"
import { Accounts } from "../../services/Accounts.ts"
import { Assets } from "../../services/Assets.ts"
import { Credentials } from "../../services/Credentials.ts"
import { Members } from "../../services/Members.ts"
import { Projects } from "../../services/Projects.ts"
import { Sessions } from "../../services/Sessions.ts"
import { Webhooks } from "../../services/Webhooks.ts"
import { Storage } from "../../Storage.ts"
import * as Tokens from "../../Tokens.ts"
import { newAccount, squareHa } from "../fixtures.ts"
import { type DomainIt, eventsOf, eventTypes, failure, JAN_1, type SuiteClock, withPermissions } from "./helpers.ts"

export const identityCases = (it: DomainIt, { clock, tick }: SuiteClock): void => {
  it.effect("bootstrap: account, active owner, admin key that authenticates; the value is never stored", () =>
    Effect.gen(function*() {
      yield* clock.set(JAN_1)
      const { account, admin, api_key, user } = yield* newAccount()
      assert.match(account.id, /^acc_/)
      assert.strictEqual(account.plan, "free")
      assert.strictEqual(user.role, "owner")
      assert.strictEqual(user.status, "active")
      assert.match(api_key.token, /^cnp_key_/)
      assert.strictEqual(Tokens.kindOf(api_key.token), "api_key")
      assert.deepStrictEqual(admin.permissions, ["admin"])
      assert.strictEqual(admin.account_id, account.id)
      const s = yield* Storage
      const row = yield* s.credentials.get(account.id, api_key.id)
      assert.strictEqual(row?.token_hash, Tokens.hash(api_key.token))
      assert.notInclude(JSON.stringify(row), api_key.token)
      const accounts = yield* Accounts
      assert.isAtLeast(yield* accounts.count, 1)
    }))

  it.effect("sign-in: limited per email and per address before any password is hashed, on both sign-in paths, under concurrency; purge", () =>
    Effect.gen(function*() {
      yield* clock.set(JAN_1)
      const email = `target-${Ids.randomBase32(8)}@example.com`
      const b = yield* (yield* Accounts).bootstrap({ account_name: "Targeted", email })
      yield* (yield* Members).accept(b.password_token, { name: "Tara", password: "the right password" })
      const sessions = yield* Sessions
      const tagOf = (e: Effect.Effect<unknown, { readonly _tag: string }>) =>
        Effect.map(Effect.exit(e), (x) => (Exit.isSuccess(x) ? "signed in" : (x.cause.reasons[0] as { error?: { _tag?: string } })?.error?._tag ?? "defect"))

      // 30 wrong passwords for one email, at once, from 30 addresses (half through the OAuth page, half the dashboard)
      const tags = yield* Effect.all(Array.from({ length: 30 }, (_, i) =>
        tagOf(i % 2 === 0
          ? sessions.signInAnywhere(i % 4 === 0 ? email.toUpperCase() : email, "a wrong password", `203.0.113.${i}`)
          : sessions.signIn(b.account.id, ` ${email}`, "a wrong password", `203.0.113.${i}`))), { concurrency: "unbounded" })
      assert.deepStrictEqual([tags.filter((t) => t === "Unauthorized").length, tags.filter((t) => t === "RateLimited").length], [10, 20], tags.join(","))
      // the limit comes before the password: the right one is refused too until the bucket refills
      assert.strictEqual(yield* tagOf(sessions.signInAnywhere(email, "the right password", "203.0.113.100")), "RateLimited")
      assert.strictEqual(yield* tagOf(sessions.signIn(b.account.id, email, "the right password", "203.0.113.101")), "RateLimited")
      yield* clock.adjust(60_000)
      const session = yield* sessions.signInAnywhere(email, "the right password", "203.0.113.102")
      assert.strictEqual(session.member.id, b.user.id)

      // one address, 25 unknown emails: 20 answered, then refused
      const spray = yield* Effect.all(
        Array.from({ length: 25 }, (_, i) =>
          tagOf(sessions.signInAnywhere(`nobody-${i}-${Ids.randomBase32(6)}@example.com`, "a wrong password", "198.51.100.77"))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual([spray.filter((t) => t === "Unauthorized").length, spray.filter((t) => t === "RateLimited").length], [20, 5], spray.join(","))

      // maintenance: expired sessions go, and sign-in buckets idle for a day
      const storage = yield* Storage
      yield* clock.adjust(13 * 3_600_000)
      const first = yield* sessions.purge
      assert.isAtLeast(first.sessions, 1)
      assert.isUndefined(yield* storage.sessions.get(Tokens.hash(session.token)))
      yield* clock.adjust(12 * 3_600_000)
      const second = yield* sessions.purge
      assert.isAtLeast(second.buckets, 30, "the email's and the addresses' buckets")
      assert.strictEqual((yield* sessions.signInAnywhere(email, "the right password", "203.0.113.102")).member.id, b.user.id)
    }))

  it.effect("members: invite, accept once, roles, last-owner guard", () =>
    Effect.gen(function*() {
      yield* clock.set(JAN_1)
      const { account, admin, user } = yield* newAccount("pro")
      const members = yield* Members
      const { invitation, member } = yield* members.invite(admin, { email: "New.Person@Example.com", role: "editor" })
      yield* tick
      assert.strictEqual(member.email, "new.person@example.com")
      assert.deepStrictEqual([member.status, member.joined_at, member.name], ["invited", null, null])
      assert.strictEqual(Tokens.kindOf(invitation.token), "invitation")
      assert.strictEqual((yield* failure(members.invite(admin, { email: "new.person@example.com", role: "viewer" }))).tag, "Conflict")
      assert.strictEqual((yield* failure(members.invite(admin, { email: "x@example.com", role: "owner" }))).tag, "ValidationError")
      assert.strictEqual((yield* failure(members.accept(invitation.token, { name: "New Person", password: "short" }))).tag, "ValidationError")
      const acceptedAt = new Date(clock.get()).toISOString()
      const joined = yield* members.accept(invitation.token, { name: "New Person", password: "correct horse battery" })
      yield* tick
      assert.deepStrictEqual([joined.status, joined.name, joined.role], ["active", "New Person", "editor"])
      assert.strictEqual(joined.joined_at, acceptedAt)
      assert.strictEqual((yield* failure(members.accept(invitation.token, { name: "Again", password: "correct horse battery" }))).tag, "Conflict")
      assert.strictEqual((yield* failure(members.accept("cnp_inv_garbage", { name: "A", password: "correct horse battery" }))).tag, "NotFound")
      const [joinedEvent] = yield* eventsOf(account.id, "member.joined")
      assert.deepStrictEqual(Object.keys(joinedEvent!.data).sort(), ["email", "id", "joined_at", "name", "role"])

      const late = yield* members.invite(admin, { email: "late@example.com", role: "viewer" })
      yield* tick
      yield* clock.adjust(8 * 86_400_000)
      assert.strictEqual((yield* failure(members.accept(late.invitation.token, { name: "Late", password: "correct horse battery" }))).tag, "Conflict")

      assert.strictEqual((yield* failure(members.update(admin, user.id, { role: "admin" }))).tag, "Conflict")
      assert.strictEqual((yield* failure(members.remove(admin, user.id))).tag, "Conflict")
      const editor = yield* members.principalFor(account.id, joined.id)
      assert.deepStrictEqual(editor.permissions, ["projects:read", "projects:write", "assets:read", "assets:write", "members:read"])
      assert.strictEqual((yield* failure(members.invite(editor, { email: "z@example.com", role: "viewer" }))).tag, "Forbidden")
      const adminRole = withPermissions(admin, ["projects:read", "members:read", "members:write"])
      assert.strictEqual((yield* failure(members.update(adminRole, joined.id, { role: "owner" }))).tag, "Forbidden")
      assert.strictEqual((yield* members.update(admin, joined.id, { role: "owner" })).role, "owner")
      yield* tick
      assert.strictEqual((yield* members.update(admin, user.id, { role: "admin" })).role, "admin", "with a second owner, the first may step down")
      yield* tick
      yield* members.remove(admin, late.member.id)
      yield* tick
      const list = yield* members.list(admin)
      assert.strictEqual(list.meta.total, 2)
      assert.deepStrictEqual((yield* eventTypes(account.id)).filter((t) => t.startsWith("member.")), ["member.invited", "member.joined", "member.invited",
        "member.updated", "member.updated", "member.removed"])
    }))

  it.effect("account: get with usage, rename, usage statistics, plan change", () =>
    Effect.gen(function*() {
      yield* clock.set(Date.UTC(2026, 4, 17))
      const { account, admin } = yield* newAccount()
      const accounts = yield* Accounts
      const projects = yield* Projects
      yield* projects.create(admin, { name: "A", geometry: squareHa(100) })
      const archived = yield* projects.create(admin, { name: "B", geometry: squareHa(50, 20) })
      yield* projects.archive(admin, archived.id)
      yield* projects.create(admin, { name: "C", status: "draft", geometry: squareHa(10, 30) })
      const got = yield* accounts.get(admin)
      assert.deepStrictEqual([got.type, got.usage.projects, got.usage.members], ["team", 3, 1])
      assert.closeTo(got.usage.hectares, 110, 0.5)
      assert.strictEqual((yield* accounts.update(admin, { name: "Renamed Co" })).name, "Renamed Co")
      assert.strictEqual((yield* failure(accounts.update(withPermissions(admin, ["projects:read"]), { name: "x" }))).tag, "Forbidden")
      yield* accounts.meterRequest(account.id)
      yield* accounts.meterRequest(account.id)
      const usage = yield* accounts.usage(admin)
      assert.deepStrictEqual(usage.period, { start: "2026-05-01T00:00:00.000Z", end: "2026-06-01T00:00:00.000Z" })
      assert.deepStrictEqual(usage.projects, { active: 1, archived: 1, total: 3 })
      assert.deepStrictEqual(usage.members, { current: 1, limit: 3 })
      assert.deepStrictEqual(usage.api_requests, { current: 2, limit: 30_000 })
      assert.strictEqual(usage.hectares.limit, 1000)
      assert.closeTo(usage.hectares.percentage, 11, 0.1)
      const upgraded = yield* accounts.setPlan(account.id, "pro")
      assert.strictEqual(upgraded.plan, "pro")
      const [sub] = yield* eventsOf(account.id, "subscription.updated")
      assert.deepStrictEqual([sub?.data.plan, sub?.data.previous_plan], ["pro", "free"])
      yield* accounts.billingEvent(account.id, "invoice.paid", { amount: 4900, currency: "eur" })
      assert.lengthOf(yield* eventsOf(account.id, "invoice.paid"), 1)
    }))

  it.effect("plan limits: over the hectare limit is refused with usage.limit_exceeded; thresholds fire once", () =>
    Effect.gen(function*() {
      yield* clock.set(JAN_1)
      const { account, admin } = yield* newAccount()
      const projects = yield* Projects
      const r = yield* failure(projects.create(admin, { name: "Too big", geometry: squareHa(1200) }))
      assert.strictEqual(r.tag, "LimitExceeded")
      assert.strictEqual((yield* projects.list(admin)).meta.total, 0)
      assert.deepStrictEqual(yield* eventTypes(account.id), ["usage.limit_exceeded"])
      yield* projects.create(admin, { name: "Eighty", geometry: squareHa(800) })
      const big = yield* projects.create(admin, { name: "Fifteen", geometry: squareHa(150, 20) })
      yield* projects.archive(admin, big.id)
      yield* projects.restore(admin, big.id)
      const reached = (yield* eventsOf(account.id, "usage.threshold_reached")).map((e) => e.data.threshold)
      assert.deepStrictEqual(reached.sort(), [75, 90])
      assert.strictEqual((yield* failure(projects.update(admin, big.id, { geometry: squareHa(300, 20) }))).tag, "LimitExceeded")
      assert.closeTo((yield* projects.get(admin, big.id)).area_hectares, 150, 1)
      const shrunk = yield* projects.update(admin, big.id, { geometry: squareHa(100, 20) })
      assert.closeTo(shrunk.area_hectares, 100, 1)
    }))

  it.effect("plan limits: members (free plan: 3, invitations count)", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const members = yield* Members
      yield* members.invite(admin, { email: "one@example.com", role: "viewer" })
      yield* members.invite(admin, { email: "two@example.com", role: "viewer" })
      assert.strictEqual((yield* failure(members.invite(admin, { email: "three@example.com", role: "viewer" }))).tag, "LimitExceeded")
      assert.strictEqual((yield* members.list(admin)).meta.total, 3)
    }))

  it.effect("tenant isolation: account B can neither read nor change account A's resources", () =>
    Effect.gen(function*() {
      const a = yield* newAccount()
      const b = yield* newAccount()
      const projects = yield* Projects
      const assets = yield* Assets
      const webhooks = yield* Webhooks
      const members = yield* Members
      const credentials = yield* Credentials
      const p = yield* projects.create(a.admin, { name: "Secret plot" })
      const asset = yield* assets.create(a.admin, p.id, { name: "Sensor", type: "sensor" })
      const w = yield* webhooks.create(a.admin, { url: "https://a.example.com/h", events: ["*"] })
      const key = yield* credentials.create(a.admin, "api_key", { name: "k", permissions: ["projects:read"] })
      for (const attempt of [
        projects.get(b.admin, p.id),
        projects.update(b.admin, p.id, { name: "x" }),
        projects.archive(b.admin, p.id),
        projects.delete(b.admin, p.id),
        assets.get(b.admin, p.id, asset.id),
        assets.list(b.admin, p.id),
        assets.update(b.admin, p.id, asset.id, { name: "x" }),
        webhooks.get(b.admin, w.id),
        webhooks.update(b.admin, w.id, { enabled: false }),
        webhooks.delete(b.admin, w.id),
        webhooks.logs(b.admin, w.id),
        members.update(b.admin, a.user.id, { role: "viewer" }),
        members.remove(b.admin, a.user.id),
        credentials.revoke(b.admin, key.id)
      ] as const) {
        assert.strictEqual((yield* failure(attempt as Effect.Effect<unknown, unknown>)).tag, "NotFound")
      }
      assert.strictEqual((yield* projects.list(b.admin)).meta.total, 0)
      assert.strictEqual((yield* webhooks.list(b.admin)).meta.total, 0)
      assert.deepStrictEqual((yield* members.list(b.admin)).data.map((m) => m.id), [b.user.id])
      assert.strictEqual((yield* projects.get(a.admin, p.id)).name, "Secret plot")
      assert.isTrue((yield* webhooks.get(a.admin, w.id)).enabled)
      assert.strictEqual((yield* credentials.authenticate(key.token)).account_id, a.account.id)
    }))
}
