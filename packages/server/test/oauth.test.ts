import { OAuth, OAuthServer, Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { client, request, startTestServer, type TestServer } from "@canopy/server/testing"

const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const form = (url: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  request(url, "POST", path, { body: new URLSearchParams(fields).toString(), headers: { "content-type": "application/x-www-form-urlencoded", ...headers } })

describe("OAuth endpoints over HTTP", () => {
  it("token exchange, /v1 with the access token, refresh rotation, reuse detection, revocation, RFC 6749 errors", async () => {
    const { accountId } = await server.newAccount("pro")
    const system = Principal.system(accountId)
    const app = await server.canopy.oauth.register(system, { name: "Field app", redirect_uris: ["https://app.example.com/cb"],
      scopes: ["projects:read", "projects:write", "offline_access"], type: "public" })
    const invited = await server.canopy.members.invite(system, { email: "viewer@example.com", role: "viewer" })
    await server.canopy.members.accept(invited.invitation.token, { name: "Vera", password: "correct horse battery" })
    const code = await server.canopy.run(Effect.gen(function*() {
      const oauth = yield* OAuthServer
      const check = yield* oauth.check({ client_id: app.client_id, redirect_uri: "https://app.example.com/cb", response_type: "code",
        scope: "projects:read projects:write offline_access", state: "s", code_challenge: OAuth.challengeOf(VERIFIER), code_challenge_method: "S256" })
      return new URL(yield* oauth.approve(invited.member.id, check as Extract<typeof check, { kind: "ok" }>)).searchParams.get("code")!
    }))

    const token = await form(server.url, "/oauth/token", { grant_type: "authorization_code", client_id: app.client_id, code,
      redirect_uri: "https://app.example.com/cb", code_verifier: VERIFIER })
    assert.strictEqual(token.status, 200, token.text)
    assert.strictEqual(token.headers.get("cache-control"), "no-store")
    assert.deepStrictEqual([token.body.token_type, token.body.expires_in], ["Bearer", 3600])
    assert.match(token.body.access_token, /^cnp_oat_/)
    assert.match(token.body.refresh_token, /^cnp_ort_/)

    const api = client(server.url, token.body.access_token)
    assert.strictEqual((await api.get("/v1/projects")).status, 200)
    const verify = await api.get("/v1/auth/verify")
    assert.deepStrictEqual([verify.body.data.type, verify.body.data.permissions], ["oauth", ["projects:read"]], "a viewer's role caps projects:write away")
    assert.isString(verify.body.data.expires_at)
    assert.strictEqual((await api.post("/v1/projects", { name: "nope" })).status, 403)

    const replay = await form(server.url, "/oauth/token", { grant_type: "authorization_code", client_id: app.client_id, code,
      redirect_uri: "https://app.example.com/cb", code_verifier: VERIFIER })
    assert.deepStrictEqual([replay.status, replay.body.error], [400, "invalid_grant"])
    assert.strictEqual((await api.get("/v1/projects")).status, 401, "a replayed code revokes the tokens issued from it")
  })

  it("refresh rotation and reuse over HTTP; revocation; client errors; metadata", async () => {
    const { accountId } = await server.newAccount("pro")
    const system = Principal.system(accountId)
    const app = await server.canopy.oauth.register(system, { name: "Back office", redirect_uris: ["https://app.example.com/cb"],
      scopes: ["projects:read", "offline_access"], type: "confidential" })
    const owner = (await server.canopy.members.list(system)).data[0]!
    const code = await server.canopy.run(Effect.gen(function*() {
      const oauth = yield* OAuthServer
      const check = yield* oauth.check({ client_id: app.client_id, redirect_uri: "https://app.example.com/cb", response_type: "code",
        scope: "projects:read offline_access" })
      return new URL(yield* oauth.approve(owner.id, check as Extract<typeof check, { kind: "ok" }>)).searchParams.get("code")!
    }))
    const basic = { authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString("base64")}` }
    const wrongSecret = await form(server.url, "/oauth/token", { grant_type: "authorization_code", code, redirect_uri: "https://app.example.com/cb" }, {
      authorization: `Basic ${Buffer.from(`${app.client_id}:cnp_sec_wrong`).toString("base64")}`
    })
    assert.deepStrictEqual([wrongSecret.status, wrongSecret.body.error, wrongSecret.headers.get("www-authenticate")], [401, "invalid_client",
      "Basic realm=\"canopy\""])
    const t = await form(server.url, "/oauth/token", { grant_type: "authorization_code", code, redirect_uri: "https://app.example.com/cb" }, basic)
    assert.strictEqual(t.status, 200, t.text)
    const r = await form(server.url, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.body.refresh_token }, basic)
    assert.strictEqual(r.status, 200)
    assert.deepStrictEqual(Object.keys(r.body).sort(), Object.keys(t.body).sort(), "the refresh response has the code exchange's shape")
    assert.strictEqual((await client(server.url, r.body.access_token).get("/v1/projects")).status, 200, "the rotated token works")
    const reuse = await form(server.url, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.body.refresh_token }, basic)
    assert.deepStrictEqual([reuse.status, reuse.body.error], [400, "invalid_grant"])
    assert.strictEqual((await client(server.url, r.body.access_token).get("/v1/projects")).status, 401, "reuse revoked the whole grant")

    assert.strictEqual((await form(server.url, "/oauth/revoke", { token: "whatever" }, basic)).status, 200)
    const notForm = await request(server.url, "POST", "/oauth/token", { json: { grant_type: "refresh_token" } })
    assert.deepStrictEqual([notForm.status, notForm.body.error], [400, "invalid_request"])
    const unsupported = await form(server.url, "/oauth/token", { grant_type: "client_credentials" }, basic)
    assert.deepStrictEqual([unsupported.status, unsupported.body.error], [400, "unsupported_grant_type"])

    const meta = await request(server.url, "GET", "/.well-known/oauth-authorization-server")
    assert.strictEqual(meta.status, 200)
    assert.deepStrictEqual([meta.body.code_challenge_methods_supported, meta.body.grant_types_supported], [["S256"], ["authorization_code", "refresh_token"]])
    assert.strictEqual(meta.body.token_endpoint, `${meta.body.issuer}/oauth/token`)
  })

  it("another client cannot burn a code: presented by it (or with another redirect_uri) the code is refused and stays good", async () => {
    const { accountId } = await server.newAccount("pro")
    const system = Principal.system(accountId)
    const app = await server.canopy.oauth.register(system, { name: "Real app", redirect_uris: ["https://app.example.com/cb"], scopes: ["projects:read"],
      type: "public" })
    const rival = await server.canopy.oauth.register(system, { name: "Rival app", redirect_uris: ["https://app.example.com/cb"], scopes: ["projects:read"],
      type: "public" })
    const owner = (await server.canopy.members.list(system)).data[0]!
    const code = await server.canopy.run(Effect.gen(function*() {
      const oauth = yield* OAuthServer
      const check = yield* oauth.check({ client_id: app.client_id, redirect_uri: "https://app.example.com/cb", response_type: "code", scope: "projects:read",
        state: "s", code_challenge: OAuth.challengeOf(VERIFIER), code_challenge_method: "S256" })
      return new URL(yield* oauth.approve(owner.id, check as Extract<typeof check, { kind: "ok" }>)).searchParams.get("code")!
    }))
    const exchange = (fields: Record<string, string>) => form(server.url, "/oauth/token", { grant_type: "authorization_code", code, ...fields })
    for (const fields of [
      { client_id: rival.client_id, redirect_uri: "https://app.example.com/cb", code_verifier: VERIFIER },
      { client_id: app.client_id, redirect_uri: "https://app.example.com/other", code_verifier: VERIFIER }
    ]) {
      const r = await exchange(fields)
      assert.deepStrictEqual([r.status, r.body.error], [400, "invalid_grant"], JSON.stringify(fields))
    }
    const real = await exchange({ client_id: app.client_id, redirect_uri: "https://app.example.com/cb", code_verifier: VERIFIER })
    assert.strictEqual(real.status, 200, real.text)
    const late = await exchange({ client_id: rival.client_id, redirect_uri: "https://app.example.com/cb", code_verifier: VERIFIER })
    assert.strictEqual(late.status, 400)
    assert.strictEqual((await client(server.url, real.body.access_token).get("/v1/projects")).status, 200, "another client's attempt revokes nothing")
  })
})
