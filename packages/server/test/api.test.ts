import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { client, isErrorBody, square, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
let api: ReturnType<typeof client>
let accountId: string
let ownerId: string

beforeAll(async () => {
  server = await startTestServer()
  const a = await server.newAccount("pro")
  api = client(server.url, a.token)
  accountId = a.accountId
  ownerId = a.userId
})
afterAll(() => server.stop())

const meta = (r: { body: any; headers: Headers }) => {
  assert.match(r.body.meta.request_id, /^req_/)
  assert.strictEqual(r.body.meta.request_id, r.headers.get("x-request-id"))
}

describe("v1 over a real socket: every endpoint's success", () => {
  it("projects: create 201, get, list with meta, update, archive, restore, delete 204", async () => {
    const created = await api.post("/v1/projects", { name: "Forêt de Tronçais", description: "oak", geometry: square(3) })
    assert.strictEqual(created.status, 201)
    meta(created)
    assert.match(created.body.meta.timestamp, /^\d{4}-\d\d-\d\dT/)
    const p = created.body.data
    assert.strictEqual(p.slug, "foret-de-troncais")
    assert.isAbove(p.area_hectares, 1)
    assert.deepStrictEqual(Object.keys(p).sort(), ["area_hectares", "bbox", "created_at", "description", "geometry", "id", "name", "overlaps", "slug", "status",
      "updated_at"])
    assert.deepStrictEqual(p.overlaps, { overlaps: [], complete: true })

    const got = await api.get(`/v1/projects/${p.id}`)
    assert.strictEqual(got.status, 200)
    const { overlaps: _written, ...stored } = p
    assert.deepStrictEqual(got.body.data, stored)

    await api.post("/v1/projects", { name: "Second", status: "draft" })
    const list = await api.get("/v1/projects?per_page=1&page=2&sort=name&order=asc")
    assert.strictEqual(list.status, 200)
    meta(list)
    assert.deepStrictEqual({ ...list.body.meta, request_id: 0, timestamp: 0 }, { total: 2, total_exact: true, page: 2, per_page: 1, total_pages: 2,
      has_more: false, next_cursor: null, request_id: 0, timestamp: 0 })
    const first = await api.get("/v1/projects?per_page=1&sort=name&order=asc")
    const next = await api.get(`/v1/projects?per_page=1&sort=name&order=asc&cursor=${first.body.meta.next_cursor}`)
    assert.deepStrictEqual([next.status, next.body.meta.page, next.body.data[0].name], [200, null, "Second"])
    const wrongSort = await api.get(`/v1/projects?per_page=1&cursor=${first.body.meta.next_cursor}`)
    assert.deepStrictEqual([wrongSort.status, wrongSort.body.error.code, wrongSort.body.error.details[0].field], [400, "VALIDATION_ERROR", "query.cursor"])
    const deep = await api.get("/v1/projects?per_page=100&page=101")
    assert.deepStrictEqual([deep.status, deep.body.error.details[0].field], [400, "query.page"])
    const short = await api.get("/v1/projects?search=ab")
    assert.deepStrictEqual([short.status, short.body.error.details[0].field], [400, "query.search"])
    const nul = await api.get("/v1/projects?search=abc%00")
    assert.deepStrictEqual([nul.status, nul.body.error.code, nul.body.error.details[0].field], [400, "VALIDATION_ERROR", "query.search"])
    assert.strictEqual(list.body.data[0].name, "Second")
    assert.strictEqual((await api.get("/v1/projects?status=draft&search=SECO")).body.meta.total, 1)

    const updated = await api.put(`/v1/projects/${p.id}`, { description: "oak and beech" })
    assert.strictEqual(updated.status, 200)
    assert.strictEqual(updated.body.data.description, "oak and beech")
    assert.strictEqual(updated.body.data.name, p.name)

    const archived = await api.post(`/v1/projects/${p.id}/archive`)
    assert.deepStrictEqual([archived.status, archived.body.data.status], [200, "archived"])
    const restored = await api.post(`/v1/projects/${p.id}/restore`)
    assert.deepStrictEqual([restored.status, restored.body.data.status], [200, "active"])
    await api.post(`/v1/projects/${p.id}/archive`)
    const deleted = await api.del(`/v1/projects/${p.id}`)
    assert.strictEqual(deleted.status, 204)
    assert.strictEqual(deleted.text, "")
    assert.match(deleted.headers.get("x-request-id") ?? "", /^req_/)
    assert.strictEqual((await api.get(`/v1/projects/${p.id}`)).status, 404)
  })

  it("assets: create 201, get, list, update, delete 204", async () => {
    const p = (await api.post("/v1/projects", { name: "Asset host" })).body.data
    const created = await api.post(`/v1/projects/${p.id}/assets`, {
      name: "Station A",
      type: "monitoring_station",
      location: { type: "Point", coordinates: [3.1, 46.6] },
      metadata: { serial: "X1" }
    })
    assert.strictEqual(created.status, 201)
    const a = created.body.data
    assert.deepStrictEqual([a.project_id, a.status, a.metadata.serial], [p.id, "active", "X1"])
    assert.deepStrictEqual((await api.get(`/v1/projects/${p.id}/assets/${a.id}`)).body.data, a)
    const list = await api.get(`/v1/projects/${p.id}/assets?type=monitoring_station&search=station`)
    assert.deepStrictEqual([list.status, list.body.meta.total, list.body.data[0].id], [200, 1, a.id])
    const u = await api.put(`/v1/projects/${p.id}/assets/${a.id}`, { status: "maintenance", location: null })
    assert.deepStrictEqual([u.status, u.body.data.status, u.body.data.location], [200, "maintenance", null])
    assert.strictEqual((await api.del(`/v1/projects/${p.id}/assets/${a.id}`)).status, 204)
  })

  it("members: list with meta.total, invite 201, change role, remove 204", async () => {
    const list = await api.get("/v1/account/members")
    assert.strictEqual(list.status, 200)
    assert.strictEqual(list.body.meta.total, 1)
    assert.strictEqual(list.body.data[0].id, ownerId)
    assert.deepStrictEqual(list.body.data[0].permissions, ["admin"])
    const invited = await api.post("/v1/account/members/invite", { email: "newbie@example.com", role: "viewer" })
    assert.strictEqual(invited.status, 201)
    assert.deepStrictEqual([invited.body.data.status, invited.body.data.joined_at], ["invited", null])
    assert.match(invited.body.data.invitation.token, /^cnp_inv_/)
    const id = invited.body.data.id
    const changed = await api.put(`/v1/account/members/${id}`, { role: "editor" })
    assert.deepStrictEqual([changed.status, changed.body.data.role], [200, "editor"])
    assert.strictEqual((await api.del(`/v1/account/members/${id}`)).status, 204)
    assert.strictEqual((await api.get("/v1/account/members")).body.meta.total, 1)
  })

  it("account: get, rename, usage", async () => {
    const got = await api.get("/v1/account")
    assert.deepStrictEqual([got.status, got.body.data.id, got.body.data.type, got.body.data.plan], [200, accountId, "team", "pro"])
    assert.containsAllKeys(got.body.data.usage, ["hectares", "projects", "members"])
    const renamed = await api.put("/v1/account", { name: "Renamed Forestry" })
    assert.deepStrictEqual([renamed.status, renamed.body.data.name], [200, "Renamed Forestry"])
    const usage = await api.get("/v1/account/usage")
    assert.strictEqual(usage.status, 200)
    assert.containsAllKeys(usage.body.data, ["period", "hectares", "projects", "members", "api_requests"])
    assert.isAbove(usage.body.data.api_requests.current, 5, "API requests are counted")
    assert.strictEqual(usage.body.data.api_requests.limit, 300_000)
  })

  it("webhooks: create 201 with the secret once, list, get, update, logs, delete 204", async () => {
    const created = await api.post("/v1/webhooks", { url: "https://hooks.example.com/canopy", events: ["project.created"], description: "main" })
    assert.strictEqual(created.status, 201)
    const w = created.body.data
    assert.match(w.secret, /^whsec_/)
    const list = await api.get("/v1/webhooks")
    assert.deepStrictEqual([list.status, list.body.meta.total], [200, 1])
    assert.notProperty(list.body.data[0], "secret")
    const got = await api.get(`/v1/webhooks/${w.id}`)
    assert.notProperty(got.body.data, "secret")
    const u = await api.put(`/v1/webhooks/${w.id}`, { enabled: false, events: ["*"] })
    assert.deepStrictEqual([u.status, u.body.data.enabled, u.body.data.events], [200, false, ["*"]])
    const logs = await api.get(`/v1/webhooks/${w.id}/logs?status=failed&per_page=5`)
    assert.deepStrictEqual([logs.status, logs.body.data, logs.body.meta.total, logs.body.meta.per_page], [200, [], 0, 5])
    assert.strictEqual((await api.del(`/v1/webhooks/${w.id}`)).status, 204)
  })

  it("auth/verify: valid token type, permissions, account, expiry", async () => {
    const r = await api.get("/v1/auth/verify")
    assert.strictEqual(r.status, 200)
    assert.deepStrictEqual(r.body.data, { valid: true, type: "api_key", permissions: ["admin"], account_id: accountId, expires_at: null })
  })

  it("HEAD answers like GET without a body", async () => {
    const r = await fetch(`${server.url}/v1/account`, { method: "HEAD", headers: { authorization: `Bearer ${(await server.newAccount()).token}` } })
    assert.strictEqual(r.status, 200)
    assert.strictEqual(await r.text(), "")
  })

  it("openapi.json and /docs are served without a token and describe every route", async () => {
    const doc = await fetch(`${server.url}/v1/openapi.json`)
    assert.strictEqual(doc.status, 200)
    const json = await doc.json() as { openapi: string; paths: Record<string, Record<string, unknown>> }
    assert.strictEqual(json.openapi, "3.1.0")
    const ops = Object.entries(json.paths).flatMap(([p, m]) => Object.keys(m).map((x) => `${x.toUpperCase()} ${p}`))
    for (const expected of ["GET /v1/projects", "POST /v1/projects/{project_id}/archive", "DELETE /v1/projects/{project_id}/assets/{asset_id}",
      "POST /v1/account/members/invite", "GET /v1/account/usage", "GET /v1/webhooks/{webhook_id}/logs", "GET /v1/auth/verify"]) {
      assert.include(ops, expected)
    }
    const html = await (await fetch(`${server.url}/docs`)).text()
    assert.include(html, "/v1/projects/{project_id}/restore") // listed for readers without JavaScript
    assert.match(html, /<script src="\/docs\/api-reference\.js\?v=[^"]+"><\/script>/) // the reference's bundle, from Canopy itself
  })

  it("writes one JSON access-log line per request, never the token", async () => {
    const a = await server.newAccount()
    await client(server.url, a.token).get("/v1/projects")
    const line = server.logs.find((l) => l.account_id === a.accountId)!
    assert.deepStrictEqual([line.method, line.path, line.status], ["GET", "/v1/projects", 200])
    assert.match(line.request_id, /^req_/)
    assert.isNumber(line.duration_ms)
    assert.notInclude(JSON.stringify(server.logs), a.token)
  })

  it("errors use the spec's body", async () => {
    const r = await api.get("/v1/projects/proj_doesnotexist")
    assert.strictEqual(r.status, 404)
    assert.isTrue(isErrorBody(r, "NOT_FOUND"), r.text)
  })
})
