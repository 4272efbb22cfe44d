/**
 * `GET /v1/me` over a real socket: the member a credential acts for — an OAuth
 * token granted `profile`, an API key (its creator); 403 with the spec's error body for an OAuth
 * token without `profile`, 404 for a service token (no member); listed in the OpenAPI document.
 */
import { OAuth, OAuthServer, Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { client, isErrorBody, request, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const REDIRECT = "https://app.example.com/cb"

/** An access token for `userId` from a public application, through the real token endpoint. */
const accessToken = async (accountId: string, userId: string, scope: string) => {
  const app = await server.canopy.oauth.register(Principal.system(accountId), {
    name: "Profile reader",
    redirect_uris: [REDIRECT],
    scopes: ["profile", "projects:read"],
    type: "public"
  })
  const verifier = "cHJvZmlsZS1yZWFkZXItdmVyaWZpZXItMDEyMzQ1Njc4OWFiY2RlZmdoaWprbG1u"
  const url = await server.canopy.run(Effect.gen(function*() {
    const oauth = yield* OAuthServer
    const check = yield* oauth.check({
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope,
      state: "s",
      code_challenge: OAuth.challengeOf(verifier),
      code_challenge_method: "S256"
    })
    if (check.kind !== "ok") return yield* Effect.die(new Error(JSON.stringify(check)))
    return yield* oauth.approve(userId, check)
  }))
  const r = await fetch(`${server.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", client_id: app.client_id, code: new URL(url).searchParams.get("code")!,
      redirect_uri: REDIRECT, code_verifier: verifier })
  })
  assert.strictEqual(r.status, 200)
  return ((await r.json()) as { access_token: string }).access_token
}

describe("GET /v1/me", () => {
  it("an OAuth token with the profile scope: the member's id, name, email, role and account", async () => {
    const b = await server.canopy.bootstrap({ account_name: "Me Co", email: "me-owner@example.com", plan: "pro" })
    const system = Principal.system(b.account.id)
    const invited = await server.canopy.members.invite(system, { email: "Mia.Editor@example.com", role: "editor" })
    const mia = await server.canopy.members.accept(invited.invitation.token, { name: "Mia Editor", password: "mia's long password" })
    const token = await accessToken(b.account.id, mia.id, "profile projects:read")
    const r = await client(server.url, token).get("/v1/me")
    assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    assert.deepStrictEqual(r.body.data, { id: mia.id, name: "Mia Editor", email: "mia.editor@example.com", role: "editor", account_id: b.account.id })
    assert.match(r.body.meta.request_id, /^req_/)
    assert.isNotNull(r.headers.get("x-ratelimit-remaining"), "metered like any API call")

    // the role follows the member
    await server.canopy.members.update(system, mia.id, { role: "viewer" })
    assert.strictEqual((await client(server.url, token).get("/v1/me")).body.data.role, "viewer")

    const withoutProfile = await accessToken(b.account.id, mia.id, "projects:read")
    const refused = await client(server.url, withoutProfile).get("/v1/me")
    assert.strictEqual(refused.status, 403)
    assert.isTrue(isErrorBody(refused, "FORBIDDEN"), JSON.stringify(refused.body))
    assert.include(refused.body.error.message, "profile")
    assert.strictEqual((await client(server.url, withoutProfile).get("/v1/projects")).status, 200, "the token itself works")
  })

  it("an API key answers for the member who created it; a service token or a key made by no member gets 404 with the spec's error body; no token is 401", async () => {
    const b = await server.canopy.bootstrap({ account_name: "Key Co", email: "key-owner@example.com", plan: "pro" })
    const owner = await client(server.url, b.api_key.token).get("/v1/me")
    assert.strictEqual(owner.status, 200)
    assert.deepStrictEqual(owner.body.data, { id: b.user.id, name: null, email: "key-owner@example.com", role: "owner", account_id: b.account.id })

    const named = await server.canopy.members.accept(b.password_token, { name: "Kim Owner", password: "kim's long password" })
    assert.strictEqual((await client(server.url, b.api_key.token).get("/v1/me")).body.data.name, named.name)

    const svcToken =
      (await server.canopy.credentials.create(Principal.system(b.account.id), "service_token", { name: "CI", permissions: ["projects:read"] })).token
    assert.strictEqual((await client(server.url, svcToken).get("/v1/projects")).status, 200, "the service token itself works")
    const refused = await client(server.url, svcToken).get("/v1/me")
    assert.strictEqual(refused.status, 404)
    assert.isTrue(isErrorBody(refused, "NOT_FOUND"), JSON.stringify(refused.body))
    assert.include(refused.body.error.message, "service token")
    const systemKey =
      (await server.canopy.credentials.create(Principal.system(b.account.id), "api_key", { name: "Made by the operator", permissions: ["projects:read"] }))
        .token
    const noMember = await client(server.url, systemKey).get("/v1/me")
    assert.strictEqual(noMember.status, 404)
    assert.isTrue(isErrorBody(noMember, "NOT_FOUND"), JSON.stringify(noMember.body))

    const anonymous = await request(server.url, "GET", "/v1/me")
    assert.strictEqual(anonymous.status, 401)
    assert.isTrue(isErrorBody(anonymous, "UNAUTHORIZED"))
  })

  it("is in the OpenAPI document, with the resource it answers", async () => {
    const doc = (await request(server.url, "GET", "/v1/openapi.json")).body
    const op = doc.paths["/v1/me"].get
    assert.deepStrictEqual(op.tags, ["Authentication"])
    const data = op.responses["200"].content["application/json"].schema.properties.data
    const schema = data.$ref ? doc.components?.schemas?.[data.$ref.split("/").at(-1)] ?? data : data
    assert.includeMembers(Object.keys(schema.properties ?? {}), ["id", "name", "email", "role", "account_id"])
    assert.includeMembers(Object.keys(op.responses), ["200", "401", "403", "404"])
  })
})
