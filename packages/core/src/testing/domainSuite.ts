/**
 * Every operation of the spec as a library call, on a real store: the domain services over the
 * store under test. Together with the storage cases this is the conformance suite.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as Canopy from "../Canopy.ts"
import * as Ids from "../Ids.ts"
import * as OAuth from "../OAuth.ts"
import type { Principal } from "../Principal.ts"
import * as RawJson from "../RawJson.ts"
import { Accounts } from "../services/Accounts.ts"
import { Assets } from "../services/Assets.ts"
import { Credentials } from "../services/Credentials.ts"
import { Members } from "../services/Members.ts"
import { OAuthServer } from "../services/OAuthServer.ts"
import { Projects } from "../services/Projects.ts"
import { Sessions } from "../services/Sessions.ts"
import { Webhooks } from "../services/Webhooks.ts"
import { Settings, defaults as defaultSettings } from "../Settings.ts"
import { Storage } from "../Storage.ts"
import * as Time from "../Time.ts"
import * as Tokens from "../Tokens.ts"
import * as Usage from "../Usage.ts"
import { newAccount, squareHa } from "./fixtures.ts"

const JAN_1 = Date.UTC(2026, 0, 1)

/** The tag of an expected failure (and the error, for further checks). */
const failure = <A, E>(effect: Effect.Effect<A, E, never>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) return { tag: "(success)", error: undefined as unknown as E }
    const reason = exit.cause.reasons[0]
    return reason?._tag === "Fail"
      ? { tag: (reason.error as { _tag: string })._tag, error: reason.error }
      : { tag: `(${reason?._tag})`, error: undefined as unknown as E }
  })

/** Types of the events the account's outbox holds, oldest first. */
const eventTypes = (accountId: string) =>
  Effect.gen(function*() {
    const s = yield* Storage
    const page = yield* s.outbox.listEvents(accountId, { limit: 100, offset: 0 })
    return page.rows.map((e) => e.type).reverse()
  })

const eventsOf = (accountId: string, type: string) =>
  Effect.gen(function*() {
    const s = yield* Storage
    const page = yield* s.outbox.listEvents(accountId, { type, limit: 100, offset: 0 })
    return page.rows.map((e) => JSON.parse(e.payload) as { id: string; type: string; data: Record<string, unknown>; account: { id: string; name: string } })
  })


const withPermissions = (p: Principal, permissions: Principal["permissions"]): Principal => ({ ...p, permissions })

/** Runs the domain cases against a store layer. */
export const domainSuite = (name: string, storageLayer: Layer.Layer<Storage, unknown>) => {
  // Domain time is a manual clock; the store keeps real time for its own timeouts.
  const clock = Time.manual(JAN_1)
  /** Moves domain time on, so that events written next sort after those written before. */
  const tick = clock.adjust(1000)
  const suiteLayer = Canopy.layer.pipe(Layer.provideMerge(storageLayer), Layer.provideMerge(Layer.succeed(Time.Time, clock.service)))
  layer(suiteLayer, { timeout: "120 seconds", excludeTestServices: true })(`${name}: domain operations`, (it) => {
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

    it.effect("projects: create measures the boundary, derives the slug, emits project.created with created_by", () =>
      Effect.gen(function*() {
        yield* clock.set(JAN_1)
        const { account, admin, user } = yield* newAccount()
        const projects = yield* Projects
        const cw = squareHa(10)
        const reversed = { type: "Polygon" as const, coordinates: [[...cw.coordinates[0]!].reverse()] }
        const p = yield* projects.create({ ...admin, user_id: user.id }, { name: "Forêt de Bercé", description: "oak", geometry: reversed })
        assert.strictEqual(p.slug, "foret-de-berce")
        assert.strictEqual(p.status, "active")
        assert.closeTo(p.area_hectares, 10, 0.1)
        assert.strictEqual(p.area_hectares, Math.round(p.area_hectares * 10_000) / 10_000)
        assert.deepStrictEqual(p.bbox?.map((x) => Math.round(x * 1e6) / 1e6), [10, 0, 10.002841, 0.00286])
        const ring = (RawJson.materialize(p.geometry) as { coordinates: Array<Array<[number, number]>> }).coordinates[0]!
        const signed = ring.slice(0, -1).reduce((acc, q, i) => acc + q[0] * ring[i + 1]![1] - ring[i + 1]![0] * q[1], 0)
        assert.isAbove(signed, 0, "the stored shell is counter-clockwise (RFC 7946)")
        assert.strictEqual(p.created_at, new Date(JAN_1).toISOString())
        const [created] = yield* eventsOf(account.id, "project.created")
        assert.strictEqual(created?.data.id, p.id)
        assert.deepStrictEqual(created?.data.created_by, { id: user.id, email: user.email })
        assert.deepStrictEqual(created?.account, { id: account.id, name: account.name })
        assert.strictEqual((yield* projects.create(admin, { name: "No boundary" })).area_hectares, 0)
        assert.strictEqual((yield* projects.create(admin, { name: "Drafty", status: "draft", slug: "my-draft" })).slug, "my-draft")
      }))

    it.effect("projects: validation reports every problem with its path and stores nothing", () =>
      Effect.gen(function*() {
        const { account, admin } = yield* newAccount()
        const projects = yield* Projects
        const r = yield* failure(projects.create(admin, {
          name: "", status: "archived",
          geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0.5]]] }
        }))
        assert.strictEqual(r.tag, "ValidationError")
        const fields = (r.error as unknown as { details: Array<{ field: string }> }).details.map((d) => d.field).sort()
        assert.deepStrictEqual(fields, ["geometry.coordinates[0]", "name", "status"])
        assert.strictEqual((yield* projects.list(admin)).meta.total, 0)
        assert.deepStrictEqual(yield* eventTypes(account.id), [])
      }))

    it.effect("projects: list filters, searches, sorts and paginates with the spec's meta", () =>
      Effect.gen(function*() {
        yield* clock.set(JAN_1)
        const { admin } = yield* newAccount("pro")
        const projects = yield* Projects
        for (const [i, name] of ["Cedar", "alder", "Birch", "Douglas fir", "Elm"].entries()) {
          yield* projects.create(admin, { name, geometry: squareHa(i + 1, 10 + i), description: i === 3 ? "Coastal CONIFER" : null })
          yield* clock.adjust(60_000)
        }
        const names = (q: unknown) => Effect.map(projects.list(admin, q), (r) => r.data.map((p) => p.name))
        assert.deepStrictEqual(yield* names({}), ["Elm", "Douglas fir", "Birch", "alder", "Cedar"])
        assert.deepStrictEqual(yield* names({ sort: "name" }), ["alder", "Birch", "Cedar", "Douglas fir", "Elm"])
        assert.deepStrictEqual(yield* names({ sort: "area_hectares", order: "asc" }), ["Cedar", "alder", "Birch", "Douglas fir", "Elm"])
        assert.deepStrictEqual(yield* names({ search: "conifer" }), ["Douglas fir"])
        assert.deepStrictEqual(yield* names({ search: "EDA" }), ["Cedar"])
        assert.strictEqual((yield* failure(projects.list(admin, { search: "ED" }))).tag, "ValidationError")
        const page = yield* projects.list(admin, { page: "2", per_page: "2", sort: "name" })
        assert.deepStrictEqual(page.data.map((p) => p.name), ["Cedar", "Douglas fir"])
        const { next_cursor, ...meta } = page.meta
        assert.deepStrictEqual(meta, { total: 5, total_exact: true, page: 2, per_page: 2, total_pages: 3, has_more: true })
        // The cursor of page 2 leads to page 3, by keyset; it only works with the sort it was made for.
        const third = yield* projects.list(admin, { cursor: next_cursor, per_page: "2", sort: "name" })
        assert.deepStrictEqual(third.data.map((p) => p.name), ["Elm"])
        assert.deepStrictEqual([third.meta.page, third.meta.has_more, third.meta.next_cursor], [null, false, null])
        assert.strictEqual((yield* failure(projects.list(admin, { cursor: next_cursor }))).tag, "ValidationError")
        assert.strictEqual((yield* failure(projects.list(admin, { cursor: "bm90LWEtY3Vyc29y" }))).tag, "ValidationError")
        assert.strictEqual((yield* failure(projects.list(admin, { cursor: next_cursor, page: 2, sort: "name" }))).tag, "ValidationError")
        // Page numbers reach 10,000 rows deep; beyond, cursors.
        assert.strictEqual((yield* projects.list(admin, { page: 100, per_page: 100 })).data.length, 0)
        assert.strictEqual((yield* failure(projects.list(admin, { page: 101, per_page: 100 }))).tag, "ValidationError")
        const beyond = yield* projects.list(admin, { page: 9 })
        assert.deepStrictEqual([beyond.data.length, beyond.meta.total], [0, 5])
        assert.strictEqual((yield* failure(projects.list(admin, { per_page: 500 }))).tag, "ValidationError")
        assert.strictEqual((yield* failure(projects.list(admin, { sort: "bogus" }))).tag, "ValidationError")
        assert.strictEqual((yield* projects.list(admin, { status: "draft" })).meta.total, 0)
      }))

    it.effect("oauth: concurrent reuse of one refresh token (or one code) leaves the whole grant revoked, whatever the interleaving", () =>
      Effect.gen(function*() {
        yield* clock.set(JAN_1)
        const { admin, user } = yield* newAccount("pro")
        const oauth = yield* OAuthServer
        const credentials = yield* Credentials
        const redirect_uri = "https://app.example.com/cb"
        const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        const app = yield* oauth.register(admin, { name: "Racer", redirect_uris: [redirect_uri], scopes: ["projects:read", "offline_access"], type: "public" })
        const newCode = Effect.gen(function*() {
          const check = yield* oauth.check({
            client_id: app.client_id, redirect_uri, response_type: "code", scope: "projects:read offline_access", state: "s",
            code_challenge: OAuth.challengeOf(verifier), code_challenge_method: "S256"
          })
          assert.strictEqual(check.kind, "ok")
          return new URL(yield* oauth.approve(user.id, check as Extract<typeof check, { kind: "ok" }>)).searchParams.get("code")!
        })
        const exchange = (code: string) => oauth.token({ grant_type: "authorization_code", client_id: app.client_id, code, redirect_uri, code_verifier: verifier }, undefined)
        /** Whether a grant's tokens are all dead: its access tokens authenticate no more, its refresh tokens refresh no more. */
        const dead = (bodies: ReadonlyArray<{ readonly access_token: string; readonly refresh_token?: string }>) =>
          Effect.gen(function*() {
            for (const b of bodies) {
              assert.isTrue(Exit.isFailure(yield* Effect.exit(credentials.authenticate(b.access_token))), "an access token of the grant still works")
              const again = yield* oauth.token({ grant_type: "refresh_token", client_id: app.client_id, refresh_token: b.refresh_token! }, undefined)
              assert.isFalse(again.ok, "a refresh token of the grant still works")
            }
          })
        for (let round = 0; round < 8; round++) {
          const first = yield* exchange(yield* newCode)
          assert.isTrue(first.ok)
          if (!first.ok) return
          const racers = yield* Effect.all(Array.from({ length: 12 }, () =>
            oauth.token({ grant_type: "refresh_token", client_id: app.client_id, refresh_token: first.body.refresh_token! }, undefined)), { concurrency: "unbounded" })
          const won = racers.flatMap((r) => (r.ok ? [r.body] : []))
          assert.strictEqual(won.length, 1, "exactly one rotation wins")
          yield* dead([first.body, ...won])

          const code = yield* newCode
          const replays = yield* Effect.all(Array.from({ length: 8 }, () => exchange(code)), { concurrency: "unbounded" })
          const issued = replays.flatMap((r) => (r.ok ? [r.body] : []))
          assert.strictEqual(issued.length, 1, "a code is exchanged once")
          yield* dead(issued)
        }
      }))

    it.effect("oauth: a code presented by another client, or with another redirect_uri, is refused without being spent", () =>
      Effect.gen(function*() {
        yield* clock.set(JAN_1)
        const { admin, user } = yield* newAccount("pro")
        const stranger = yield* newAccount("pro")
        const oauth = yield* OAuthServer
        const credentials = yield* Credentials
        const redirect_uri = "https://app.example.com/cb"
        const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        const app = yield* oauth.register(admin, { name: "Real", redirect_uris: [redirect_uri], scopes: ["projects:read"], type: "public" })
        const thief = yield* oauth.register(stranger.admin, { name: "Thief", redirect_uris: [redirect_uri], scopes: ["projects:read"], type: "public" })
        const sibling = yield* oauth.register(admin, { name: "Sibling", redirect_uris: [redirect_uri], scopes: ["projects:read"], type: "confidential" })
        const check = yield* oauth.check({
          client_id: app.client_id, redirect_uri, response_type: "code", scope: "projects:read", state: "s",
          code_challenge: OAuth.challengeOf(verifier), code_challenge_method: "S256"
        })
        const code = new URL(yield* oauth.approve(user.id, check as Extract<typeof check, { kind: "ok" }>)).searchParams.get("code")!
        const exchange = (fields: Record<string, string>) => oauth.token({ grant_type: "authorization_code", code, ...fields }, undefined)
        const refused = [
          yield* exchange({ client_id: thief.client_id, redirect_uri, code_verifier: verifier }),
          yield* exchange({ client_id: sibling.client_id, client_secret: sibling.client_secret!, redirect_uri, code_verifier: verifier }),
          yield* exchange({ client_id: app.client_id, redirect_uri: "https://app.example.com/elsewhere", code_verifier: verifier }),
          yield* exchange({ client_id: app.client_id, code_verifier: verifier })
        ]
        assert.deepStrictEqual(refused.map((r) => (r.ok ? "issued" : r.error.body.error)), Array(4).fill("invalid_grant"))
        const real = yield* exchange({ client_id: app.client_id, redirect_uri, code_verifier: verifier })
        assert.isTrue(real.ok, JSON.stringify(real))
        if (!real.ok) return
        // Once spent, another client presenting the code still changes nothing; the real client replaying it revokes the grant.
        assert.isFalse((yield* exchange({ client_id: thief.client_id, redirect_uri, code_verifier: verifier })).ok)
        assert.strictEqual((yield* credentials.authenticate(real.body.access_token)).account_id, admin.account_id)
        assert.isFalse((yield* exchange({ client_id: app.client_id, redirect_uri, code_verifier: verifier })).ok)
        assert.isTrue(Exit.isFailure(yield* Effect.exit(credentials.authenticate(real.body.access_token))), "a replay by the code's own client revokes its tokens")
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
        const spray = yield* Effect.all(Array.from({ length: 25 }, (_, i) =>
          tagOf(sessions.signInAnywhere(`nobody-${i}-${Ids.randomBase32(6)}@example.com`, "a wrong password", "198.51.100.77"))), { concurrency: "unbounded" })
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

    it.effect("hostile text: NUL, lone surrogates, deep nesting and markup emails are refused as validation errors, and nothing is stored", () =>
      Effect.gen(function*() {
        const { account, admin } = yield* newAccount("pro")
        const projects = yield* Projects
        const s = yield* Storage
        const refused = <A, E>(effect: Effect.Effect<A, E, never>, field: string) =>
          Effect.gen(function*() {
            const f = yield* failure(effect)
            assert.strictEqual(f.tag, "ValidationError")
            assert.include((f.error as { details: ReadonlyArray<{ field: string }> }).details.map((d) => d.field), field)
          })
        yield* refused(projects.create(admin, { name: "Nul\u0000name" }), "name")
        yield* refused(projects.create(admin, { name: "Fine", description: "half a pair \ud800 here" }), "description")
        yield* refused(projects.list(admin, { search: "abc\u0000" }), "search")
        const p = yield* projects.create(admin, { name: "Holder" })
        let deep: unknown = "bottom"
        for (let i = 0; i < 8_000; i++) deep = { d: deep }
        const assets = yield* Assets
        const asset = yield* assets.create(admin, p.id, { name: "Gauge", type: "sensor" })
        yield* refused(assets.update(admin, p.id, asset.id, { metadata: deep }), "metadata.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d.d")
        yield* refused(assets.create(admin, p.id, { name: "Key", type: "sensor", metadata: { ["k\u0000"]: 1 } }), "metadata")
        yield* refused((yield* Members).invite(admin, { email: "\"><img/src=x/onerror=alert(4)>@x.io", role: "viewer" }), "email")
        assert.deepStrictEqual((yield* s.projects.stats(account.id)), { active: 1, archived: 0, draft: 0, hectares: 0 })
        assert.strictEqual((yield* assets.get(admin, p.id, asset.id)).name, "Gauge")
        assert.strictEqual(yield* s.members.count(account.id), 1)
        // Astral characters (a well-formed surrogate pair) are fine.
        assert.strictEqual((yield* projects.create(admin, { name: "Forest 🌲" })).name, "Forest 🌲")
      }))

    it.effect("projects: update, archive, restore, delete follow the lifecycle and emit one event each", () =>
      Effect.gen(function*() {
        const { account, admin } = yield* newAccount()
        const projects = yield* Projects
        const p = yield* projects.create(admin, { name: "Lifecycle", geometry: squareHa(2) })
        yield* tick
        const u = yield* projects.update(admin, p.id, { description: "now described", geometry: squareHa(5) })
        yield* tick
        assert.strictEqual(u.description, "now described")
        assert.strictEqual(u.name, "Lifecycle")
        assert.strictEqual(u.slug, "lifecycle")
        assert.closeTo(u.area_hectares, 5, 0.05)
        assert.strictEqual((yield* failure(projects.delete(admin, p.id))).tag, "Conflict")
        assert.strictEqual((yield* failure(projects.restore(admin, p.id))).tag, "Conflict")
        assert.strictEqual((yield* projects.archive(admin, p.id)).status, "archived")
        yield* tick
        assert.strictEqual((yield* failure(projects.archive(admin, p.id))).tag, "Conflict")
        assert.strictEqual((yield* projects.restore(admin, p.id)).status, "active")
        yield* tick
        assert.strictEqual((yield* projects.update(admin, p.id, { status: "draft" })).status, "draft")
        yield* tick
        yield* projects.archive(admin, p.id)
        yield* tick
        yield* projects.delete(admin, p.id)
        assert.strictEqual((yield* failure(projects.get(admin, p.id))).tag, "NotFound")
        assert.deepStrictEqual(yield* eventTypes(account.id), [
          "project.created", "project.updated", "project.archived", "project.restored", "project.updated", "project.archived", "project.deleted"
        ])
        const cleared = yield* projects.create(admin, { name: "Clear me", geometry: squareHa(1) })
        yield* tick
        const c2 = yield* projects.update(admin, cleared.id, { geometry: null, description: null })
        yield* tick
        assert.deepStrictEqual([c2.geometry, c2.area_hectares, c2.bbox], [null, 0, null])
      }))

    it.effect("projects: a duplicate slug is a conflict, also under 10 parallel creates", () =>
      Effect.gen(function*() {
        const { admin } = yield* newAccount()
        const projects = yield* Projects
        yield* projects.create(admin, { name: "Same Name" })
        assert.strictEqual((yield* failure(projects.create(admin, { name: "same name!" }))).tag, "Conflict")
        const other = yield* projects.create(admin, { name: "Other" })
        assert.strictEqual((yield* failure(projects.update(admin, other.id, { slug: "same-name" }))).tag, "Conflict")
        const results = yield* Effect.all(
          Array.from({ length: 10 }, () => failure(projects.create(admin, { name: "Race" }))), { concurrency: "unbounded" })
        assert.strictEqual(results.filter((r) => r.tag === "(success)").length, 1)
        assert.strictEqual(results.filter((r) => r.tag === "Conflict").length, 9)
        assert.strictEqual((yield* projects.list(admin)).meta.total, 3)
      }))

    it.effect("assets: CRUD with scoping, status_changed, and archived projects read-only", () =>
      Effect.gen(function*() {
        const { account, admin } = yield* newAccount()
        const projects = yield* Projects
        const assets = yield* Assets
        const p = yield* projects.create(admin, { name: "Assets home" })
        yield* tick
        const other = yield* projects.create(admin, { name: "Elsewhere" })
        yield* tick
        const a = yield* assets.create(admin, p.id, {
          name: "Weather station 1", type: "monitoring_station", location: { type: "Point", coordinates: [10.5, 45.1] }, metadata: { model: "WS-9" }
        })
        assert.strictEqual(a.status, "active")
        assert.deepStrictEqual(a.metadata, { model: "WS-9" })
        assert.deepStrictEqual(yield* assets.get(admin, p.id, a.id), a)
        assert.strictEqual((yield* failure(assets.get(admin, other.id, a.id))).tag, "NotFound")
        assert.strictEqual((yield* failure(assets.create(admin, p.id, { name: "x", type: "tractor" }))).tag, "ValidationError")
        yield* assets.create(admin, p.id, { name: "Chainsaw", type: "equipment" })
        yield* tick
        assert.deepStrictEqual((yield* assets.list(admin, p.id, { type: "equipment" })).data.map((x) => x.name), ["Chainsaw"])
        assert.deepStrictEqual((yield* assets.list(admin, p.id, { search: "STATION" })).data.map((x) => x.name), ["Weather station 1"])
        const u = yield* assets.update(admin, p.id, a.id, { status: "maintenance", location: null, metadata: { replaced: true } })
        yield* tick
        assert.deepStrictEqual([u.status, u.location, u.metadata], ["maintenance", null, { replaced: true }])
        const [changed] = yield* eventsOf(account.id, "asset.status_changed")
        assert.strictEqual(changed?.data.previous_status, "active")
        assert.strictEqual(changed?.data.status, "maintenance")
        yield* projects.archive(admin, p.id)
        yield* tick
        assert.strictEqual((yield* assets.list(admin, p.id)).meta.total, 2)
        assert.strictEqual((yield* failure(assets.create(admin, p.id, { name: "y", type: "other" }))).tag, "Conflict")
        assert.strictEqual((yield* failure(assets.update(admin, p.id, a.id, { name: "z" }))).tag, "Conflict")
        assert.strictEqual((yield* failure(assets.delete(admin, p.id, a.id))).tag, "Conflict")
        yield* projects.restore(admin, p.id)
        yield* tick
        yield* assets.delete(admin, p.id, a.id)
        yield* tick
        assert.strictEqual((yield* failure(assets.get(admin, p.id, a.id))).tag, "NotFound")
        // asset.updated and asset.status_changed come from one call, in the same instant: compare as a multiset
        assert.deepStrictEqual((yield* eventTypes(account.id)).filter((t) => t.startsWith("asset.")).sort(),
          ["asset.created", "asset.created", "asset.deleted", "asset.status_changed", "asset.updated"])
        assert.strictEqual((yield* failure(assets.list(admin, Ids.make("project")))).tag, "NotFound")
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
        assert.deepStrictEqual((yield* eventTypes(account.id)).filter((t) => t.startsWith("member.")),
          ["member.invited", "member.joined", "member.invited", "member.updated", "member.updated", "member.removed"])
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

    it.effect("webhooks: create with a generated secret shown once, list, update, delete, 25 at most, URL rules", () =>
      Effect.gen(function*() {
        const { admin } = yield* newAccount()
        const webhooks = yield* Webhooks
        const w = yield* webhooks.create(admin, { url: "https://hooks.example.com/a", events: ["project.created", "project.created"], description: "main" })
        assert.match(w.secret ?? "", /^whsec_/)
        assert.deepStrictEqual(w.events, ["project.created"])
        const listed = yield* webhooks.list(admin)
        assert.strictEqual(listed.meta.total, 1)
        assert.notProperty(listed.data[0], "secret")
        const given = yield* webhooks.create(admin, { url: "https://hooks.example.com/b", events: ["*"], secret: "my-own-secret-value" })
        assert.strictEqual(given.secret, "my-own-secret-value")
        const u = yield* webhooks.update(admin, w.id, { enabled: false })
        assert.deepStrictEqual([u.enabled, u.disabled_reason], [false, "disabled by a user"])
        const again = yield* webhooks.update(admin, w.id, { enabled: true, events: ["*"] })
        assert.deepStrictEqual([again.enabled, again.disabled_reason, again.events], [true, null, ["*"]])
        for (const url of ["http://hooks.example.com/x", "https://localhost/x", "https://127.0.0.1/x", "https://10.1.2.3/x", "https://169.254.169.254/latest", "https://[::1]/x", "notaurl"]) {
          assert.strictEqual((yield* failure(webhooks.create(admin, { url, events: ["*"] }))).tag, "ValidationError", url)
        }
        const local = yield* webhooks.create(admin, { url: "http://127.0.0.1:9/x", events: ["*"] }).pipe(
          Effect.provideService(Settings, { ...defaultSettings, allowInsecureWebhooks: true }))
        assert.strictEqual(local.url, "http://127.0.0.1:9/x")
        yield* webhooks.delete(admin, local.id)
        assert.strictEqual((yield* failure(webhooks.get(admin, local.id))).tag, "NotFound")
        for (let i = 0; i < 23; i++) yield* webhooks.create(admin, { url: `https://hooks.example.com/${i}`, events: ["*"] })
        assert.strictEqual((yield* failure(webhooks.create(admin, { url: "https://hooks.example.com/26", events: ["*"] }))).tag, "LimitExceeded")
        assert.strictEqual((yield* webhooks.logs(admin, w.id)).meta.total, 0)
        assert.strictEqual((yield* failure(webhooks.create(withPermissions(admin, ["projects:write"]), { url: "https://e.com", events: ["*"] }))).tag, "Forbidden")
      }))

    it.effect("outbox: an event gets one pending delivery per enabled, subscribed webhook; disabling cancels them", () =>
      Effect.gen(function*() {
        const { account, admin } = yield* newAccount()
        const webhooks = yield* Webhooks
        const projects = yield* Projects
        const s = yield* Storage
        const onProjects = yield* webhooks.create(admin, { url: "https://a.example.com/h", events: ["project.created"] })
        const onAll = yield* webhooks.create(admin, { url: "https://b.example.com/h", events: ["*"] })
        yield* webhooks.create(admin, { url: "https://c.example.com/h", events: ["*"], enabled: false })
        yield* projects.create(admin, { name: "Routed" })
        const [event] = yield* eventsOf(account.id, "project.created")
        const deliveries = yield* s.outbox.listDeliveries(account.id, event!.id)
        assert.deepStrictEqual(deliveries.map((d) => d.webhook_id).sort(), [onProjects.id, onAll.id].sort())
        assert.isTrue(deliveries.every((d) => d.status === "pending" && d.attempts === 0))
        yield* webhooks.update(admin, onAll.id, { enabled: false })
        const after = yield* s.outbox.listDeliveries(account.id, event!.id)
        assert.strictEqual(after.find((d) => d.webhook_id === onAll.id)?.status, "canceled")
        assert.strictEqual(after.find((d) => d.webhook_id === onProjects.id)?.status, "pending")
        const assetsSvc = yield* Assets
        const p = yield* projects.list(admin)
        yield* assetsSvc.create(admin, p.data[0]!.id, { name: "Unrouted", type: "other" })
        const [assetEvent] = yield* eventsOf(account.id, "asset.created")
        assert.lengthOf(yield* s.outbox.listDeliveries(account.id, assetEvent!.id), 0)
      }))

    it.effect("credentials: value once, list without values, permissions enforced, revocation immediate, IP allowlist", () =>
      Effect.gen(function*() {
        const { admin } = yield* newAccount()
        const credentials = yield* Credentials
        const projects = yield* Projects
        const key = yield* credentials.create(admin, "api_key", { name: "Reader", permissions: ["projects.read", "assets:manage"] })
        assert.deepStrictEqual(key.permissions, ["projects:read", "assets:read", "assets:write"])
        const listed = yield* credentials.list(admin, "api_key")
        assert.notInclude(JSON.stringify(listed), key.token)
        assert.isTrue(listed.some((c) => c.id === key.id && c.token_hint.endsWith(key.token.slice(-4))))
        const reader = yield* credentials.authenticate(key.token)
        assert.deepStrictEqual(reader.permissions, ["projects:read", "assets:read", "assets:write"])
        yield* projects.list(reader)
        assert.strictEqual((yield* failure(projects.create(reader, { name: "Nope" }))).tag, "Forbidden")
        assert.strictEqual((yield* failure(credentials.create(reader, "api_key", { name: "x", permissions: ["projects:read"] }))).tag, "Forbidden")
        assert.strictEqual((yield* failure(credentials.create(admin, "api_key", { name: "x", permissions: ["projects:delete"] }))).tag, "ValidationError")
        yield* credentials.revoke(admin, key.id)
        assert.strictEqual((yield* failure(credentials.authenticate(key.token))).tag, "Unauthorized")
        assert.strictEqual((yield* failure(credentials.authenticate("cnp_key_notarealtoken"))).tag, "Unauthorized")
        assert.strictEqual((yield* failure(credentials.authenticate(key.token.slice(0, -1) + (key.token.endsWith("A") ? "B" : "A")))).tag, "Unauthorized")

        const svc = yield* credentials.create(admin, "service_token", { name: "CI", permissions: ["projects:read"], ip_allowlist: ["10.0.0.0/8", "203.0.113.7"] })
        assert.match(svc.token, /^cnp_svc_/)
        assert.strictEqual((yield* credentials.authenticate(svc.token, { ip: "10.20.30.40" })).kind, "service_token")
        assert.strictEqual((yield* credentials.authenticate(svc.token, { ip: "::ffff:203.0.113.7" })).kind, "service_token")
        assert.strictEqual((yield* failure(credentials.authenticate(svc.token, { ip: "192.0.2.1" }))).tag, "Forbidden")
        assert.strictEqual((yield* failure(credentials.authenticate(svc.token))).tag, "Forbidden")
        assert.strictEqual((yield* failure(credentials.create(admin, "service_token", { name: "bad", permissions: ["admin"], ip_allowlist: ["10.0.0.0/33"] }))).tag, "ValidationError")
        assert.strictEqual((yield* failure(credentials.revoke(admin, Ids.make("apiKey")))).tag, "NotFound")
      }))

    it.effect("rate limits: shared per account, refused past the plan's minute limit", () =>
      Effect.gen(function*() {
        yield* clock.set(JAN_1)
        const { account } = yield* newAccount()
        const accounts = yield* Accounts
        const decisions = yield* Effect.all(Array.from({ length: 61 }, () => accounts.meterRequest(account.id)))
        assert.strictEqual(decisions.filter((d) => d.allowed).length, 60)
        assert.deepStrictEqual([decisions[60]!.allowed, decisions[60]!.retryAfter, decisions[60]!.limit], [false, 1, 60])
        yield* clock.adjust(1000)
        assert.isTrue((yield* accounts.meterRequest(account.id)).allowed)
        const s = yield* Storage
        const counted = yield* s.usage.get(account.id, Usage.periodOf(new Date(clock.get())).key, "api_requests")
        assert.strictEqual(counted, 61, "refused requests are not counted as usage")
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
          projects.get(b.admin, p.id), projects.update(b.admin, p.id, { name: "x" }), projects.archive(b.admin, p.id),
          projects.delete(b.admin, p.id), assets.get(b.admin, p.id, asset.id), assets.list(b.admin, p.id),
          assets.update(b.admin, p.id, asset.id, { name: "x" }), webhooks.get(b.admin, w.id), webhooks.update(b.admin, w.id, { enabled: false }),
          webhooks.delete(b.admin, w.id), webhooks.logs(b.admin, w.id), members.update(b.admin, a.user.id, { role: "viewer" }),
          members.remove(b.admin, a.user.id), credentials.revoke(b.admin, key.id)
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

    it.effect("atomicity: a failure injected after the row write, before commit, leaves neither the row nor its event", () =>
      Effect.gen(function*() {
        const { account, admin } = yield* newAccount()
        const real = yield* Storage
        const failingOutbox = Layer.succeed(Storage, {
          ...real,
          outbox: { ...real.outbox, append: () => Effect.die(new Error("injected: process killed before commit")) }
        })
        const attempt = Effect.gen(function*() {
          const projects = yield* Projects
          return yield* projects.create(admin, { name: "Half-written", geometry: squareHa(3) })
        }).pipe(Effect.provide(Layer.fresh(Canopy.layer).pipe(Layer.provide(failingOutbox))))
        const exit = yield* Effect.exit(attempt)
        assert.isTrue(Exit.isFailure(exit))
        const projects = yield* Projects
        assert.strictEqual((yield* projects.list(admin)).meta.total, 0)
        assert.deepStrictEqual(yield* eventTypes(account.id), [])
        assert.deepStrictEqual((yield* real.projects.stats(account.id)), { active: 0, archived: 0, draft: 0, hectares: 0 })
        yield* projects.create(admin, { name: "Half-written", geometry: squareHa(3) })
        assert.deepStrictEqual(yield* eventTypes(account.id), ["project.created"])
      }))
  })
}
