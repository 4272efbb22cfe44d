/** The domain cases for credentials, OAuth and rate limits. */
import { assert } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Ids from "../../Ids.ts"
import * as OAuth from "../../OAuth.ts"
import { Accounts } from "../../services/Accounts.ts"
import { Credentials } from "../../services/Credentials.ts"
import { OAuthServer } from "../../services/OAuthServer.ts"
import { Projects } from "../../services/Projects.ts"
import { Storage } from "../../Storage.ts"
import * as Usage from "../../Usage.ts"
import { newAccount } from "../fixtures.ts"
import { type DomainIt, failure, JAN_1, type SuiteClock } from "./helpers.ts"

export const credentialsCases = (it: DomainIt, { clock }: SuiteClock): void => {
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
          client_id: app.client_id,
          redirect_uri,
          response_type: "code",
          scope: "projects:read offline_access",
          state: "s",
          code_challenge: OAuth.challengeOf(verifier),
          code_challenge_method: "S256"
        })
        assert.strictEqual(check.kind, "ok")
        return new URL(yield* oauth.approve(user.id, check as Extract<typeof check, { kind: "ok" }>)).searchParams.get("code")!
      })
      const exchange = (code: string) =>
        oauth.token({ grant_type: "authorization_code", client_id: app.client_id, code, redirect_uri, code_verifier: verifier }, undefined)
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
        const racers = yield* Effect.all(
          Array.from({ length: 12 }, () =>
            oauth.token({ grant_type: "refresh_token", client_id: app.client_id, refresh_token: first.body.refresh_token! }, undefined)),
          { concurrency: "unbounded" }
        )
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
        client_id: app.client_id,
        redirect_uri,
        response_type: "code",
        scope: "projects:read",
        state: "s",
        code_challenge: OAuth.challengeOf(verifier),
        code_challenge_method: "S256"
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
      assert.isTrue(Exit.isFailure(yield* Effect.exit(credentials.authenticate(real.body.access_token))),
        "a replay by the code's own client revokes its tokens")
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
      assert.strictEqual(
        (yield* failure(credentials.create(admin, "service_token", { name: "bad", permissions: ["admin"], ip_allowlist: ["10.0.0.0/33"] }))).tag,
        "ValidationError"
      )
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
}
