import { MemoryStorage, Storage } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { serve } from "../src/index.ts"
import { client, isErrorBody, request, square, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
let token: string
let api: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  token = (await server.newAccount("pro")).token
  api = client(server.url, token)
})
afterAll(() => server.stop())

describe("every error path answers with the spec's body and X-Request-Id", () => {
  it("unknown route → 404; wrong method → 405 with Allow", async () => {
    const unknown = await api.get("/v1/forests")
    assert.strictEqual(unknown.status, 404)
    assert.isTrue(isErrorBody(unknown, "NOT_FOUND"))
    const outside = await request(server.url, "GET", "/nope")
    assert.isTrue(isErrorBody(outside, "NOT_FOUND"))
    const wrong = await request(server.url, "PATCH", "/v1/projects", { token })
    assert.strictEqual(wrong.status, 405)
    assert.isTrue(isErrorBody(wrong, "NOT_FOUND"))
    assert.strictEqual(wrong.headers.get("allow"), "GET, POST")
  })

  it("malformed JSON → 400", async () => {
    const r = await request(server.url, "POST", "/v1/projects", { token, body: "{\"name\": ", headers: { "content-type": "application/json" } })
    assert.strictEqual(r.status, 400)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
    assert.strictEqual(r.body.error.details[0].field, "body")
  })

  it("a body with another content type → 400", async () => {
    const r = await request(server.url, "POST", "/v1/projects", { token, body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } })
    assert.strictEqual(r.status, 400)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
    assert.strictEqual(r.body.error.details[0].field, "content-type")
  })

  it("invalid query parameters → 400 with each problem (per_page=500, page=0, sort=bogus)", async () => {
    const r = await api.get("/v1/projects?per_page=500&page=0&sort=bogus&order=sideways")
    assert.strictEqual(r.status, 400)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
    assert.deepStrictEqual(r.body.error.details.map((d: { field: string }) => d.field).sort(), ["query.order", "query.page", "query.per_page", "query.sort"])
    assert.strictEqual((await api.get("/v1/projects?per_page=100")).status, 200)
  })

  it("a well-formed body that fails validation → 422 with every problem at its path; nothing stored", async () => {
    const before = (await api.get("/v1/projects")).body.meta.total
    const r = await api.post("/v1/projects", {
      name: "",
      description: 42,
      status: "gone",
      geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 100], [0, 0]]] }
    })
    assert.strictEqual(r.status, 422)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
    assert.deepStrictEqual(r.body.error.details.map((d: { field: string }) => d.field).sort(), ["description", "geometry.coordinates[0][2][1]", "name",
      "status"])
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, before)
    const tooFew = await api.post("/v1/projects", { name: "x", geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] } })
    assert.strictEqual(tooFew.body.error.details[0].field, "geometry.coordinates[0]")
    assert.match(tooFew.body.error.details[0].message, /at least 4 positions/)
    const wrongType = await api.put("/v1/account", { name: 5 })
    assert.deepStrictEqual([wrongType.status, wrongType.body.error.details[0].field], [422, "name"])
  })

  it("a body over 5 MiB → 413 with the standard body, nothing stored", async () => {
    const big = JSON.stringify({ name: "big", description: "x".repeat(5 * 1024 * 1024) })
    const r = await request(server.url, "POST", "/v1/projects", { token, body: big, headers: { "content-type": "application/json" } })
    assert.strictEqual(r.status, 413)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
  })

  it("missing, malformed, unknown and revoked tokens → 401 with WWW-Authenticate", async () => {
    const none = await request(server.url, "GET", "/v1/projects")
    assert.strictEqual(none.status, 401)
    assert.isTrue(isErrorBody(none, "UNAUTHORIZED"))
    assert.strictEqual(none.headers.get("www-authenticate"), "Bearer")
    const basic = await request(server.url, "GET", "/v1/projects", { headers: { authorization: "Basic dXNlcjpwdw==" } })
    assert.strictEqual(basic.status, 401)
    assert.match(basic.headers.get("www-authenticate") ?? "", /^Bearer/)
    const bogus = await request(server.url, "GET", "/v1/projects", { token: "cnp_key_000000000000000000000000000000000000AAAAAA" })
    assert.strictEqual(bogus.status, 401)
    assert.strictEqual(bogus.headers.get("www-authenticate"), "Bearer error=\"invalid_token\"")
    const key = await server.canopy.credentials.create(await server.canopy.authenticate(token), "api_key", { name: "temp", permissions: ["projects:read"] })
    assert.strictEqual((await client(server.url, key.token).get("/v1/projects")).status, 200)
    await server.canopy.credentials.revoke(await server.canopy.authenticate(token), key.id)
    const revoked = await client(server.url, key.token).get("/v1/projects")
    assert.strictEqual(revoked.status, 401)
    assert.isTrue(isErrorBody(revoked, "UNAUTHORIZED"))
    // a bad payload without a token is still a 401: authentication comes first
    assert.strictEqual((await request(server.url, "POST", "/v1/projects", { json: { name: "" } })).status, 401)
  })

  it("a valid token without the permission → 403", async () => {
    const reader = await server.canopy.credentials.create(await server.canopy.authenticate(token), "api_key", { name: "reader",
      permissions: ["projects:read"] })
    const r = await client(server.url, reader.token).post("/v1/projects", { name: "nope" })
    assert.strictEqual(r.status, 403)
    assert.isTrue(isErrorBody(r, "FORBIDDEN"))
  })

  it("state conflicts → 409: delete an active project, archive twice, restore an active one, duplicate slug, last owner", async () => {
    const p = (await api.post("/v1/projects", { name: "Conflicted", geometry: square(40) })).body.data
    for (const r of [
      await api.del(`/v1/projects/${p.id}`),
      await api.post(`/v1/projects/${p.id}/restore`),
      await api.post("/v1/projects", { name: "conflicted" })
    ]) {
      assert.strictEqual(r.status, 409)
      assert.isTrue(isErrorBody(r, "CONFLICT"))
    }
    await api.post(`/v1/projects/${p.id}/archive`)
    assert.strictEqual((await api.post(`/v1/projects/${p.id}/archive`)).status, 409)
    const owner = (await api.get("/v1/account/members")).body.data.find((m: { role: string }) => m.role === "owner")
    assert.strictEqual((await api.put(`/v1/account/members/${owner.id}`, { role: "viewer" })).status, 409)
    assert.strictEqual((await api.del(`/v1/account/members/${owner.id}`)).status, 409)
  })

  it("over a plan limit → 403 FORBIDDEN", async () => {
    const free = client(server.url, (await server.newAccount("free")).token)
    const r = await free.post("/v1/projects", { name: "Too big", geometry: square(0, 0.3) })
    assert.strictEqual(r.status, 403)
    assert.isTrue(isErrorBody(r, "FORBIDDEN"))
    assert.match(r.body.error.message, /limit of 1000/)
  })

  it("an unexpected failure → 500 INTERNAL_ERROR with no internals, logged by request id", async () => {
    const failing = Layer.effect(Storage.Storage, Effect.gen(function*() {
      const real = yield* Storage.Storage
      return { ...real, projects: { ...real.projects, list: () => Effect.die(new Error("SQLITE_CORRUPT: select * from projects at /srv/secret/path")) } }
    })).pipe(Layer.provide(MemoryStorage.layer))
    const logs: Array<{ status: number; error?: string; request_id: string }> = []
    const broken = await serve({ port: 0, storage: { layer: failing }, log: (l) => logs.push(l), dispatcher: false })
    try {
      const b = await broken.canopy.bootstrap({ account_name: "Broken", email: "b@example.com" })
      const r = await client(broken.url, b.api_key.token).get("/v1/projects")
      assert.strictEqual(r.status, 500)
      assert.isTrue(isErrorBody(r, "INTERNAL_ERROR"))
      assert.notMatch(r.text, /SQLITE|select|secret|at \//)
      const line = logs.find((l) => l.request_id === r.body.meta.request_id)!
      assert.deepStrictEqual([line.status, line.error], [500, "Error"])
      assert.notMatch(JSON.stringify(logs), /secret|SQLITE/)
    } finally {
      await broken.close()
    }
  })
})
