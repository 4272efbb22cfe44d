import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { Accounts, Canopy, Credentials, Deliveries, Members, MemoryStorage, OAuth, OAuthServer, Projects, Sessions, Time } from "../src/index.ts"

const clock = Time.manual(Date.UTC(2026, 3, 1))
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const CHALLENGE = OAuth.challengeOf(VERIFIER)

const world = Canopy.layer.pipe(Layer.provideMerge(MemoryStorage.layer), Layer.provideMerge(Layer.succeed(Time.Time, clock.service)))

/** An account, an editor who will authorize apps, and an admin principal. */
const setup = Effect.gen(function*() {
  const b = yield* (yield* Accounts).bootstrap({ account_name: "OAuth Co", email: `o-${clock.get()}-${Math.random()}@example.com`, plan: "pro" })
  const admin = yield* (yield* Credentials).authenticate(b.api_key.token)
  const invited = yield* (yield* Members).invite(admin, { email: `e-${Math.random()}@example.com`, role: "editor" })
  yield* (yield* Members).accept(invited.invitation.token, { name: "Eddie", password: "correct horse battery" })
  return { admin, editorId: invited.member.id }
})

const codeFor = (clientId: string, userId: string, scope: string, pkce = true) =>
  Effect.gen(function*() {
    const oauth = yield* OAuthServer
    const check = yield* oauth.check({
      client_id: clientId,
      redirect_uri: "https://app.example.com/cb",
      response_type: "code",
      scope,
      state: "st-1",
      ...(pkce ? { code_challenge: CHALLENGE, code_challenge_method: "S256" } : {})
    })
    assert.strictEqual(check.kind, "ok", JSON.stringify(check))
    const url = new URL(yield* oauth.approve(userId, check as Extract<typeof check, { kind: "ok" }>))
    assert.strictEqual(url.searchParams.get("state"), "st-1")
    return url.searchParams.get("code")!
  })

layer(world, { excludeTestServices: true })("OAuth authorization server (library level)", (it) => {
  it.effect("public client: code + PKCE → tokens; the access token acts with scopes ∩ role; refresh rotates; reuse revokes the grant", () =>
    Effect.gen(function*() {
      const { admin, editorId } = yield* setup
      const oauth = yield* OAuthServer
      const app = yield* oauth.register(admin, { name: "Field app", redirect_uris: ["https://app.example.com/cb"],
        scopes: ["projects:read", "projects:write", "members:read", "offline_access"], type: "public" })
      assert.isUndefined(app.client_secret)
      const code = yield* codeFor(app.client_id, editorId, "projects:read projects:write offline_access")
      const bad = yield* oauth.token({ grant_type: "authorization_code", client_id: app.client_id, code, redirect_uri: "https://app.example.com/cb",
        code_verifier: "x".repeat(43) }, undefined)
      assert.isFalse(bad.ok, "a wrong verifier fails…")
      const again = yield* oauth.token({ grant_type: "authorization_code", client_id: app.client_id, code, redirect_uri: "https://app.example.com/cb",
        code_verifier: VERIFIER }, undefined)
      assert.isTrue(!again.ok && again.error.body.error === "invalid_grant", "…and the code is spent: single use")

      const code2 = yield* codeFor(app.client_id, editorId, "projects:read projects:write offline_access")
      const t = yield* oauth.token({ grant_type: "authorization_code", client_id: app.client_id, code: code2, redirect_uri: "https://app.example.com/cb",
        code_verifier: VERIFIER }, undefined)
      assert.isTrue(t.ok)
      if (!t.ok) return
      assert.deepStrictEqual([t.body.token_type, t.body.expires_in, t.body.scope], ["Bearer", 3600, "projects:read projects:write offline_access"])
      const principal = yield* (yield* Credentials).authenticate(t.body.access_token)
      assert.deepStrictEqual([principal.kind, principal.user_id, principal.permissions], ["oauth", editorId, ["projects:read", "projects:write"]])
      assert.isString(principal.expires_at)
      yield* (yield* Projects).create(principal, { name: "Made through OAuth" })

      const r1 = yield* oauth.token({ grant_type: "refresh_token", client_id: app.client_id, refresh_token: t.body.refresh_token! }, undefined)
      assert.isTrue(r1.ok)
      if (!r1.ok) return
      assert.notStrictEqual(r1.body.refresh_token, t.body.refresh_token)
      assert.strictEqual((yield* (yield* Credentials).authenticate(r1.body.access_token)).kind, "oauth")
      const widened = yield* oauth.token({ grant_type: "refresh_token", client_id: app.client_id, refresh_token: r1.body.refresh_token!,
        scope: "projects:read members:read" }, undefined)
      assert.isTrue(!widened.ok && widened.error.body.error === "invalid_scope")
      const reuse = yield* oauth.token({ grant_type: "refresh_token", client_id: app.client_id, refresh_token: t.body.refresh_token! }, undefined)
      assert.isTrue(!reuse.ok && reuse.error.body.error === "invalid_grant")
      const after = yield* Effect.exit((yield* Credentials).authenticate(r1.body.access_token))
      assert.isTrue(Exit.isFailure(after), "reuse of a rotated refresh token revoked the whole grant")
    }))

  it.effect("confidential client: secret in the body or HTTP Basic; wrong secret is invalid_client; a replayed code revokes its tokens", () =>
    Effect.gen(function*() {
      const { admin, editorId } = yield* setup
      const oauth = yield* OAuthServer
      const app = yield* oauth.register(admin, { name: "Back office", redirect_uris: ["https://app.example.com/cb"], scopes: ["projects:read"],
        type: "confidential" })
      assert.match(app.client_secret ?? "", /^cnp_sec_/)
      const code = yield* codeFor(app.client_id, editorId, "projects:read", false)
      const wrong = yield* oauth.token({ grant_type: "authorization_code", client_id: app.client_id, client_secret: "cnp_sec_nope", code,
        redirect_uri: "https://app.example.com/cb" }, undefined)
      assert.isTrue(!wrong.ok && wrong.error.status === 401 && wrong.error.body.error === "invalid_client")
      const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString("base64")}`
      const t = yield* oauth.token({ grant_type: "authorization_code", code, redirect_uri: "https://app.example.com/cb" }, basic)
      assert.isTrue(t.ok)
      if (!t.ok) return
      assert.isUndefined(t.body.refresh_token, "no offline_access, no refresh token")
      const replay = yield* oauth.token({ grant_type: "authorization_code", code, redirect_uri: "https://app.example.com/cb" }, basic)
      assert.isTrue(!replay.ok && replay.error.body.error === "invalid_grant")
      assert.isTrue(Exit.isFailure(yield* Effect.exit((yield* Credentials).authenticate(t.body.access_token))),
        "the replay revoked the tokens issued from the code")
      const rotated = yield* oauth.rotateSecret(admin, app.client_id)
      const old = yield* oauth.token({ grant_type: "refresh_token", refresh_token: "x" }, basic)
      assert.isTrue(!old.ok && old.error.body.error === "invalid_client", "the old secret stops working")
      assert.notStrictEqual(rotated.client_secret, app.client_secret)
    }))

  it.effect("codes expire after 10 minutes; access tokens after an hour; revocation (RFC 7009)", () =>
    Effect.gen(function*() {
      const { admin, editorId } = yield* setup
      const oauth = yield* OAuthServer
      const app = yield* oauth.register(admin, { name: "Timer", redirect_uris: ["https://app.example.com/cb"], scopes: ["projects:read", "offline_access"],
        type: "public" })
      const code = yield* codeFor(app.client_id, editorId, "projects:read offline_access")
      yield* clock.adjust(OAuth.CODE_TTL_MS)
      const late = yield* oauth.token({ grant_type: "authorization_code", client_id: app.client_id, code, redirect_uri: "https://app.example.com/cb",
        code_verifier: VERIFIER }, undefined)
      assert.isTrue(!late.ok && /expired/.test(late.error.body.error_description))
      const t = yield* oauth.token({ grant_type: "authorization_code", client_id: app.client_id,
        code: yield* codeFor(app.client_id, editorId, "projects:read offline_access"), redirect_uri: "https://app.example.com/cb", code_verifier: VERIFIER },
        undefined)
      assert.isTrue(t.ok)
      if (!t.ok) return
      yield* clock.adjust(3_600_000)
      assert.isTrue(Exit.isFailure(yield* Effect.exit((yield* Credentials).authenticate(t.body.access_token))), "expired after an hour")
      const r = yield* oauth.token({ grant_type: "refresh_token", client_id: app.client_id, refresh_token: t.body.refresh_token! }, undefined)
      assert.isTrue(r.ok)
      if (!r.ok) return
      const revoked = yield* oauth.revoke({ client_id: app.client_id, token: r.body.refresh_token! }, undefined)
      assert.isTrue(revoked.ok)
      assert.isTrue(Exit.isFailure(yield* Effect.exit((yield* Credentials).authenticate(r.body.access_token))), "revoking the refresh token ends the grant")
      assert.isTrue((yield* oauth.revoke({ client_id: app.client_id, token: "unknown" }, undefined)).ok, "unknown tokens are answered 200 too")
      const unsupported = yield* oauth.token({ grant_type: "password", client_id: app.client_id }, undefined)
      assert.isTrue(!unsupported.ok && unsupported.error.body.error === "unsupported_grant_type")
    }))

  it.effect("applications: listed without secrets, removable; only admins manage them; only members can approve", () =>
    Effect.gen(function*() {
      const { admin, editorId } = yield* setup
      const oauth = yield* OAuthServer
      const app = yield* oauth.register(admin, { name: "Listed", redirect_uris: ["https://app.example.com/cb"], scopes: ["profile"], type: "confidential" })
      const listed = yield* oauth.list(admin)
      assert.isTrue(listed.some((a) => a.client_id === app.client_id))
      assert.notInclude(JSON.stringify(listed), app.client_secret!)
      const editor = yield* (yield* Members).principalFor(admin.account_id, editorId)
      assert.isTrue(
        Exit.isFailure(
          yield* Effect.exit(oauth.register(editor, { name: "x", redirect_uris: ["https://a.example.com/cb"], scopes: ["profile"], type: "public" }))
        )
      )
      const badUri = yield* Effect.exit(
        oauth.register(admin, { name: "x", redirect_uris: ["http://evil.example.com/cb"], scopes: ["profile"], type: "public" })
      )
      assert.isTrue(Exit.isFailure(badUri), "http:// is only for localhost")
      const other = yield* setup
      const check = yield* oauth.check({ client_id: app.client_id, redirect_uri: "https://app.example.com/cb", response_type: "code", scope: "profile" })
      assert.strictEqual(check.kind, "ok")
      const foreign = yield* Effect.exit(oauth.approve(other.editorId, check as Extract<typeof check, { kind: "ok" }>))
      assert.isTrue(Exit.isFailure(foreign), "a member of another account cannot authorize this application")
      yield* oauth.remove(admin, app.client_id)
      assert.strictEqual(
        (yield* oauth.check({ client_id: app.client_id, redirect_uri: "https://app.example.com/cb", response_type: "code", scope: "profile" })).kind,
        "error_page"
      )
    }))

  it.effect("sign-in: right password opens a session; wrong ones say nothing about the email; attempts are rate limited per account", () =>
    Effect.gen(function*() {
      const { admin, editorId } = yield* setup
      const sessions = yield* Sessions
      const member = (yield* (yield* Members).list(admin)).data.find((m) => m.id === editorId)!
      const ok = yield* sessions.signIn(admin.account_id, member.email.toUpperCase(), "correct horse battery", "203.0.113.5")
      assert.strictEqual(ok.member.id, editorId)
      assert.strictEqual((yield* sessions.get(ok.token))?.csrf, ok.csrf)
      const wrong = yield* Effect.flip(sessions.signIn(admin.account_id, member.email, "nope nope nope", "203.0.113.5"))
      const unknown = yield* Effect.flip(sessions.signIn(admin.account_id, "nobody@example.com", "nope nope nope", "203.0.113.5"))
      assert.deepStrictEqual([wrong._tag, wrong.message], [unknown._tag, unknown.message])
      yield* sessions.signOut(ok.token)
      assert.isUndefined(yield* sessions.get(ok.token))
      const tags: Array<string> = []
      for (let i = 0; i < 12; i++) tags.push((yield* Effect.flip(sessions.signIn(admin.account_id, member.email, "bad", `198.51.100.${i}`)))._tag)
      assert.strictEqual(tags.at(-1), "RateLimited", tags.join(","))
      yield* clock.adjust(86_400_000)
      assert.isUndefined(yield* sessions.get("cnp_ses_bogus"))
    }))

  it.effect("the first owner's set-password link sets a password once, without a second member.joined", () =>
    Effect.gen(function*() {
      const b = yield* (yield* Accounts).bootstrap({ account_name: "Linked", email: `link-${Math.random()}@example.com` })
      assert.match(b.password_token, /^cnp_inv_/)
      const owner = yield* (yield* Members).accept(b.password_token, { name: "Olive Owner", password: "a strong password" })
      assert.deepStrictEqual([owner.role, owner.status, owner.joined_at], ["owner", "active", b.user.joined_at])
      const session = yield* (yield* Sessions).signIn(b.account.id, b.user.email, "a strong password", "203.0.113.9")
      assert.strictEqual(session.member.id, b.user.id)
      assert.strictEqual((yield* Effect.flip((yield* Members).accept(b.password_token, { name: "Again", password: "another password" })))._tag, "Conflict")
      const admin = yield* (yield* Credentials).authenticate(b.api_key.token)
      const joined = yield* (yield* Deliveries).listEvents(admin, { type: "member.joined" })
      assert.strictEqual(joined.meta.total, 0)
    }))
})
