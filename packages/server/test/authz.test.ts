import { Permissions, Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { routes } from "../src/index.ts"
import { client, isErrorBody, request, square, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({
    plans: {
      free: { requestsPerMinute: 5, requestsPerDay: 8, hectares: 1_000, members: 3, apiRequestsPerPeriod: 30_000 },
      pro: { requestsPerMinute: 300, requestsPerDay: 10_000, hectares: 100_000, members: 25, apiRequestsPerPeriod: 300_000 },
      enterprise: { requestsPerMinute: 100_000, requestsPerDay: null, hectares: 10_000_000, members: 1_000, apiRequestsPerPeriod: 10_000_000 }
    }
  })
})
afterAll(() => server.stop())

const fill = (path: string) =>
  path.replace("{project_id}", "proj_00000000000000000000000000").replace("{asset_id}", "asset_00000000000000000000000000")
    .replace("{member_id}", "user_00000000000000000000000000").replace("{webhook_id}", "wh_00000000000000000000000000")

describe("the permission matrix: each permission against each endpoint", () => {
  it("a key holding one permission gets 403 exactly where the table says", async () => {
    const { accountId } = await server.newAccount("enterprise")
    const system = Principal.system(accountId)
    const failures: Array<string> = []
    for (const permission of Permissions.all) {
      const key = await server.canopy.credentials.create(system, "api_key", { name: permission, permissions: [permission] })
      for (const route of routes) {
        const r = await request(server.url, route.method, `/v1${fill(route.path)}`, { token: key.token, ...(route.body ? { json: {} } : {}) })
        const allowed = Permissions.mayPerform([permission], route.operation)
        if (allowed === (r.status === 403)) failures.push(`${permission} ${route.method} ${route.path}: ${r.status}`)
        if (!allowed && !isErrorBody(r, "FORBIDDEN")) failures.push(`${permission} ${route.method} ${route.path}: body ${r.text}`)
      }
    }
    assert.deepStrictEqual(failures, [])
  })

  it("a service token's IP allowlist is checked against the socket address", async () => {
    const { accountId } = await server.newAccount("enterprise")
    const system = Principal.system(accountId)
    const inside = await server.canopy.credentials.create(system, "service_token", { name: "local", permissions: ["projects:read"],
      ip_allowlist: ["127.0.0.0/8"] })
    const outside = await server.canopy.credentials.create(system, "service_token", { name: "remote", permissions: ["projects:read"],
      ip_allowlist: ["203.0.113.0/24"] })
    assert.strictEqual((await client(server.url, inside.token).get("/v1/projects")).status, 200)
    const refused = await client(server.url, outside.token).get("/v1/projects")
    assert.strictEqual(refused.status, 403)
    assert.isTrue(isErrorBody(refused, "FORBIDDEN"))
    // X-Forwarded-For from an untrusted peer is ignored
    const spoofed = await request(server.url, "GET", "/v1/projects", { token: outside.token, headers: { "x-forwarded-for": "203.0.113.9" } })
    assert.strictEqual(spoofed.status, 403)
  })
})

describe("tenant isolation over HTTP", () => {
  it("another account's ids are 404 on every route that takes one, and nothing changes", async () => {
    const a = client(server.url, (await server.newAccount("enterprise")).token)
    const tokenB = (await server.newAccount("enterprise")).token
    const b = client(server.url, tokenB)
    const p = (await a.post("/v1/projects", { name: "A's plot", geometry: square(5) })).body.data
    const asset = (await a.post(`/v1/projects/${p.id}/assets`, { name: "A's sensor", type: "sensor" })).body.data
    const w = (await a.post("/v1/webhooks", { url: "https://a.example.com/h", events: ["*"] })).body.data
    const m = (await a.post("/v1/account/members/invite", { email: "a-member@example.com", role: "viewer" })).body.data
    const ids: Record<string, string> = { project_id: p.id, asset_id: asset.id, webhook_id: w.id, member_id: m.id }
    const validBody: Record<string, unknown> = {
      "POST /projects/{project_id}/assets": { name: "x", type: "sensor" },
      "PUT /projects/{project_id}": { name: "x" },
      "PUT /projects/{project_id}/assets/{asset_id}": { name: "x" },
      "PUT /account/members/{member_id}": { role: "editor" },
      "PUT /webhooks/{webhook_id}": { enabled: false }
    }
    // (the tile route's parameters are coordinates, not ids: its isolation is in tiles.test.ts)
    for (const route of routes.filter((r) => /\{\w+_id\}/.test(r.path))) {
      const path = `/v1${route.path.replace(/\{(\w+)\}/g, (_, k: string) => ids[k]!)}`
      const body = validBody[`${route.method} ${route.path}`]
      const viaB = await request(server.url, route.method, path, { token: tokenB, ...(body ? { json: body } : {}) })
      assert.strictEqual(viaB.status, 404, `${route.method} ${route.path}`)
      assert.isTrue(isErrorBody(viaB, "NOT_FOUND"))
    }
    assert.strictEqual((await a.get(`/v1/projects/${p.id}`)).body.data.name, "A's plot")
    assert.strictEqual((await a.get(`/v1/projects/${p.id}/assets/${asset.id}`)).body.data.name, "A's sensor")
    assert.isTrue((await a.get(`/v1/webhooks/${w.id}`)).body.data.enabled)
    assert.strictEqual((await a.get("/v1/account/members")).body.meta.total, 2)
    assert.strictEqual((await b.get("/v1/projects")).body.meta.total, 0)
  })
})

describe("rate limits", () => {
  it("headers on every authenticated response; the minute bucket is shared by the account's keys; 429 with Retry-After", async () => {
    const { accountId, token } = await server.newAccount("free") // 5 per minute, 8 per day in this test server
    const second = await server.canopy.credentials.create(Principal.system(accountId), "api_key", { name: "second", permissions: ["projects:read"] })
    const first = client(server.url, token)
    const other = client(server.url, second.token)
    const replies = [await first.get("/v1/projects"), await other.get("/v1/projects"), await first.get("/v1/nothing-here"),
      await first.post("/v1/projects", { name: "" }), await other.get("/v1/projects"), await first.get("/v1/projects"), await other.get("/v1/projects")]
    const limited = replies.filter((r) => r.headers.get("x-ratelimit-limit") !== null)
    assert.strictEqual(limited.length, 6, "the unknown route is answered before authentication")
    assert.deepStrictEqual(limited.map((r) => r.headers.get("x-ratelimit-remaining")), ["4", "3", "2", "1", "0", "0"])
    assert.deepStrictEqual(limited.map((r) => r.status), [200, 200, 422, 200, 200, 429])
    const refused = replies[6]!
    assert.strictEqual(refused.status, 429)
    assert.isTrue(isErrorBody(refused, "RATE_LIMITED"))
    assert.strictEqual(refused.headers.get("x-ratelimit-limit"), "5")
    assert.strictEqual(refused.headers.get("x-ratelimit-remaining"), "0")
    const retryAfter = Number(refused.headers.get("retry-after"))
    assert.isTrue(retryAfter >= 1 && retryAfter <= 12, `retry-after ${retryAfter}`)
    const reset = Number(refused.headers.get("x-ratelimit-reset"))
    assert.isTrue(reset >= Math.floor(Date.now() / 1000) && reset <= Date.now() / 1000 + 61)
    // another account is unaffected
    assert.strictEqual((await client(server.url, (await server.newAccount("free")).token).get("/v1/projects")).status, 200)
  })
})
