/**
 * @canopy/client against a real `canopy serve` process (accounts from `canopy init --json`):
 * the resource scenario, typed errors, pagination, verification of real webhook deliveries,
 * overlaps, and the OAuth authorization-code flow with PKCE and a refresh, consented over HTTP.
 * Retries are in retries.test.ts.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { authorizationUrl, AuthenticationError, Canopy, ConflictError, exchangeCode, NotFoundError, OAuthError, type OverlapPolicy, type OverlapReport,
  type Project, type ProjectOverlap, type ProjectOverlapEventData, refreshToken, ValidationError, verifyWebhook,
  WebhookVerificationError } from "../src/index.ts"
import { Browser, type LiveServer, recordingFetch, startLiveServer, startLocalServer } from "./support.ts"

const pkg = join(import.meta.dirname, "..")
const root = join(pkg, "../..")
const run = Math.random().toString(36).slice(2, 8)

const square = (lon: number, side = 0.01) => ({
  type: "Polygon" as const,
  coordinates: [[[lon, 0], [lon + side, 0], [lon + side, side], [lon, side], [lon, 0]]]
})

let server: LiveServer
let client: Canopy

beforeAll(async () => {
  server = await startLiveServer(run)
  client = new Canopy({ apiKey: server.pro.api_key, baseUrl: server.url, maxRetries: 2, backoffBaseMs: 50 })
}, 60_000)

afterAll(async () => {
  await server?.stop()
}, 30_000)

describe("@canopy/client: scenario against a live canopy serve", () => {
  it("auth.verify, account get/update/usage", async () => {
    const info = await client.auth.verify()
    expect(info).toMatchObject({ valid: true, type: "api_key", account_id: server.pro.account_id })
    const account = await client.account.get()
    expect([account.id, account.plan]).toEqual([server.pro.account_id, "pro"])
    const renamed = await client.account.update({ name: `TS scenario ${run}` })
    expect(renamed.name).toBe(`TS scenario ${run}`)
    const usage = await client.account.usage()
    expect(usage.members.current).toBeGreaterThanOrEqual(1)
    // A base URL given with /v1 works the same.
    const v1 = new Canopy({ apiKey: server.pro.api_key, baseUrl: `${server.url}/v1/` })
    expect((await v1.auth.verify()).account_id).toBe(server.pro.account_id)
  })

  it("create → get → list all pages → update → archive → restore → delete", async () => {
    const created: Array<Project> = []
    for (let i = 0; i < 7; i++) {
      created.push(await client.projects.create({ name: `Block ${run} ${i}`, description: `pagination ${run}`, geometry: square(10 + i * 0.02) }))
    }
    const first = created[0]!
    expect(first.id).toMatch(/^proj_/)
    expect(first.status).toBe("active")
    expect(first.area_hectares as number).toBeGreaterThan(100)
    expect((await client.projects.get(first.id)).name).toBe(first.name)

    const sent: Array<{ method: string; url: string; headers: Headers }> = []
    const lister = new Canopy({ apiKey: server.pro.api_key, baseUrl: server.url, fetch: recordingFetch(sent) })
    const seen: Array<string> = []
    for await (const p of lister.projects.listAll({ search: run, per_page: 3, sort: "name", order: "asc" })) seen.push(p.id)
    expect(seen.sort()).toEqual(created.map((p) => p.id).sort())
    expect(sent.length).toBe(3) // 3 + 3 + 1
    expect(new URL(sent[0]!.url).searchParams.get("cursor")).toBeNull()
    for (const r of sent.slice(1)) {
      const q = new URL(r.url).searchParams
      expect(q.get("cursor")).toBeTruthy()
      expect([q.get("search"), q.get("per_page"), q.get("sort"), q.get("order")]).toEqual([run, "3", "name", "asc"])
    }
    const page = await client.projects.list({ search: run, per_page: 3 })
    expect([page.data.length, page.meta.total, page.meta.has_more]).toEqual([3, 7, true])

    const updated = await client.projects.update(first.id, { name: `Block ${run} renamed`, description: null })
    expect([updated.name, updated.description]).toEqual([`Block ${run} renamed`, null])
    expect((await client.projects.archive(first.id)).status).toBe("archived")
    expect((await client.projects.restore(first.id)).status).toBe("active")
    const refused = await client.projects.delete(first.id).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ConflictError)
    expect((refused as ConflictError).status).toBe(409)
    await client.projects.archive(first.id)
    await expect(client.projects.delete(first.id)).resolves.toBeUndefined()
    await expect(client.projects.get(first.id)).rejects.toBeInstanceOf(NotFoundError)
  })

  it("assets: create, list all pages, get, update, delete", async () => {
    const project = await client.projects.create({ name: `Assets ${run}`, geometry: square(20) })
    const made = []
    for (const [i, type] of (["equipment", "equipment", "sensor", "monitoring_station", "equipment"] as const).entries()) {
      made.push(
        await client.assets.create(project.id, { name: `Asset ${i}`, type, location: { type: "Point", coordinates: [20.005, 0.005] },
          metadata: { serial: `S-${i}` } })
      )
    }
    expect(made[0]!.id).toMatch(/^asset_/)
    expect(made[0]!.status).toBe("active")
    const all = []
    for await (const a of client.assets.listAll(project.id, { per_page: 2 })) all.push(a.id)
    expect(all.sort()).toEqual(made.map((a) => a.id).sort())
    const equipment = []
    for await (const a of client.assets.listAll(project.id, { type: "equipment", per_page: 2 })) equipment.push(a)
    expect(equipment.length).toBe(3)
    expect((await client.assets.get(project.id, made[2]!.id)).type).toBe("sensor")
    expect((await client.assets.update(project.id, made[2]!.id, { status: "maintenance" })).status).toBe("maintenance")
    await client.assets.delete(project.id, made[2]!.id)
    await expect(client.assets.get(project.id, made[2]!.id)).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" })
  })

  it("a 422 with details, a 404, a 401 — typed errors with the request id", async () => {
    const invalid = await client.projects.create({ name: "Bad", geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] } }).catch((e: unknown) =>
      e
    )
    expect(invalid).toBeInstanceOf(ValidationError)
    const v = invalid as ValidationError
    expect([v.status, v.code]).toEqual([422, "VALIDATION_ERROR"])
    expect(v.details.some((d) => d.field.startsWith("geometry") && d.message.length > 0)).toBe(true)
    expect(v.requestId).toMatch(/^req_/)

    const missing = await client.projects.get("proj_doesnotexist").catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(NotFoundError)
    expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND" })
    expect((missing as NotFoundError).requestId).toMatch(/^req_/)
    expect((missing as NotFoundError).requestId).toBe((missing as NotFoundError).headers?.get("x-request-id"))

    const anonymous = new Canopy({ apiKey: "cnp_key_not_a_real_key", baseUrl: server.url })
    await expect(anonymous.projects.list()).rejects.toBeInstanceOf(AuthenticationError)
  })

  it("members: invite, change role, list, remove", async () => {
    const invited = await client.members.invite({ email: `invitee-${run}@example.com`, role: "editor" })
    expect(invited.id).toMatch(/^user_/)
    expect((await client.members.update(invited.id, { role: "viewer" })).role).toBe("viewer")
    const list = await client.members.list()
    expect(list.data.map((m) => m.id)).toContain(invited.id)
    await client.members.remove(invited.id)
    expect((await client.members.list()).data.map((m) => m.id)).not.toContain(invited.id)
  })

  it("webhooks: verifies a real delivery (X-Service-Signature and Standard Webhooks), rejects a tampered one; test, logs, redeliver, events", async () => {
    const receiver = await startLocalServer(() => ({ status: 204 }))
    try {
      const hook = await client.webhooks.create({ url: `${receiver.url}/hook`, events: ["project.created", "project.archived"], description: "ts scenario" })
      const secret = hook.secret as string
      expect(secret).toMatch(/^whsec_/)
      expect((await client.webhooks.get(hook.id)).url).toBe(`${receiver.url}/hook`)
      expect((await client.webhooks.list()).data.map((w) => w.id)).toContain(hook.id)

      const project = await client.projects.create({ name: `Hooked ${run}`, geometry: square(30) })
      const delivery = await receiver.next((r) => r.body.includes(project.id))
      expect(delivery.headers["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/)
      expect(delivery.headers["webhook-signature"]).toMatch(/^v1,/)
      const event = await verifyWebhook(delivery.body, delivery.headers, secret)
      expect(event.type).toBe("project.created")
      if (event.type !== "project.created") throw new Error("narrowing")
      expect(event.data.id).toBe(project.id)
      expect(event.id).toMatch(/^evt_/)
      // As a string and with Fetch API Headers too.
      expect((await verifyWebhook(delivery.body.toString("utf8"), new Headers(delivery.headers as Record<string, string>), secret)).id).toBe(event.id)

      const tampered = Buffer.from(delivery.body.toString("utf8").replace(project.id, "proj_someoneelse"))
      await expect(verifyWebhook(tampered, delivery.headers, secret)).rejects.toBeInstanceOf(WebhookVerificationError)
      await expect(verifyWebhook(delivery.body, delivery.headers, `${secret.slice(0, -2)}AA`)).rejects.toThrow(/does not match/)
      // Only the spec's header, tampered: still refused.
      const onlyService = { "x-service-signature": delivery.headers["x-service-signature"] as string,
        "x-service-timestamp": delivery.headers["x-service-timestamp"] as string }
      expect((await verifyWebhook(delivery.body, onlyService, secret)).id).toBe(event.id)
      await expect(verifyWebhook(tampered, onlyService, secret)).rejects.toThrow(/X-Service-Signature/)
      // A replay far outside the tolerance.
      await expect(verifyWebhook(delivery.body, delivery.headers, secret, { now: Date.now() / 1000 + 3600 })).rejects.toThrow(/timestamp/)

      const test = await client.webhooks.test(hook.id)
      expect(test.status).toBe("success")
      const testDelivery = await receiver.next((r) => r.headers["x-service-event-type"] === "webhook.test")
      expect((await verifyWebhook(testDelivery.body, testDelivery.headers, secret)).type).toBe("webhook.test")

      const logs = await client.webhooks.logs(hook.id)
      const original = logs.data.find((l) => l.event_id === event.id)
      expect(original?.status).toBe("success")
      const again = await client.webhooks.redeliver(hook.id, original!.id)
      expect(again.event_id).toBe(event.id)
      const redelivered = await receiver.next((r) => r !== delivery && r.body.equals(delivery.body))
      expect((await verifyWebhook(redelivered.body, redelivered.headers, secret)).id).toBe(event.id)

      const events = []
      for await (const e of client.events.listAll({ type: "project.created", per_page: 5 })) events.push(e as { id: string })
      expect(events.map((e) => e.id)).toContain(event.id)

      await client.webhooks.update(hook.id, { enabled: false })
      expect((await client.webhooks.get(hook.id)).enabled).toBe(false)
      await client.webhooks.delete(hook.id)
      await expect(client.webhooks.get(hook.id)).rejects.toBeInstanceOf(NotFoundError)
    } finally {
      await receiver.close()
    }
  }, 60_000)

  it("overlaps: reported on create with the other project and its shared hectares, the event, the bbox filter, overlap_policy reject", async () => {
    const rect = (lon: number, lat: number, side: number) => ({
      type: "Polygon" as const,
      coordinates: [[[lon, lat], [lon + side, lat], [lon + side, lat + side], [lon, lat + side], [lon, lat]]]
    })
    expect((await client.account.get()).overlap_policy).toBe("warn")
    // Two 0.02° squares at 10°S, the second shifted east by half a side: they share half of it.
    const west = await client.projects.create({ name: `Overlap west ${run}`, geometry: rect(60, -10, 0.02) })
    expect(west.overlaps).toEqual({ overlaps: [], complete: true })
    const east = await client.projects.create({ name: `Overlap east ${run}`, geometry: rect(60.01, -10, 0.02) })
    const report: OverlapReport | undefined = east.overlaps
    expect(report?.complete).toBe(true)
    expect(report?.overlaps.map((o) => [o.project_id, o.name])).toEqual([[west.id, west.name]])
    const shared: ProjectOverlap = report!.overlaps[0]!
    const half = east.area_hectares / 2
    expect(shared.overlap_hectares).toBeGreaterThan(0)
    expect(Math.abs(shared.overlap_hectares - half)).toBeLessThanOrEqual(half * 0.01)
    expect((await client.projects.get(east.id)).overlaps).toBeUndefined()
    expect((await client.projects.update(east.id, { description: "renamed only" })).overlaps).toBeUndefined()

    const detected: Array<ProjectOverlapEventData> = []
    for await (const e of client.events.listAll({ type: "project.overlap_detected" })) {
      const data = e.data as unknown as ProjectOverlapEventData
      if (data.project.id === east.id) detected.push(data)
    }
    expect(detected).toHaveLength(1)
    expect(detected[0]!.overlaps).toEqual([shared])
    expect(detected[0]!.project.area_hectares).toBe(east.area_hectares)

    const inBox = async (bbox: string) => {
      const ids: Array<string> = []
      for await (const p of client.projects.listAll({ bbox, sort: "name", order: "asc" })) ids.push(p.id)
      return ids
    }
    expect(await inBox("59.99,-10.01,60.005,-9.99")).toEqual([west.id])
    expect(await inBox("60.025,-9.995,60.5,-9.5")).toEqual([east.id])
    expect(await inBox("60.015,-9.995,60.016,-9.994")).toEqual([east.id, west.id])
    expect(await inBox("-170,-80,-169.5,-79.5")).toEqual([])
    const badBox = await client.projects.list({ bbox: "0,10,1,5" }).catch((e: unknown) => e)
    expect(badBox).toBeInstanceOf(ValidationError)
    expect((badBox as ValidationError).details.map((d) => d.field)).toContain("query.bbox")

    // intersects, tested exactly against the boundaries (west spans 60–60.02°E, east 60.01–60.03°E)
    const meeting = async (geometry: object) => {
      const ids: Array<string> = []
      for await (const p of client.projects.listAll({ intersects: JSON.stringify(geometry), sort: "name", order: "asc" })) ids.push(p.id)
      return ids
    }
    const pt = (lon: number, lat: number) => ({ type: "Point", coordinates: [lon, lat] })
    expect(await meeting(pt(60.005, -9.99))).toEqual([west.id])
    expect(await meeting(pt(60.025, -9.99))).toEqual([east.id])
    expect(await meeting(pt(60.015, -9.99))).toEqual([east.id, west.id])
    expect(await meeting(pt(60, -9.99))).toEqual([west.id])
    expect(await meeting(pt(60.035, -9.99))).toEqual([])
    expect(await meeting(rect(60.021, -9.995, 0.001))).toEqual([east.id])
    expect(await meeting(rect(59.99, -10, 0.01))).toEqual([])
    const paged = await client.projects.list({ intersects: JSON.stringify(pt(60.005, -9.99)), page: 2 }).catch((e: unknown) => e)
    expect(paged).toBeInstanceOf(ValidationError)
    expect((paged as ValidationError).details.map((d) => d.field)).toContain("query.page")

    const policy: OverlapPolicy = "reject"
    const strict = await client.account.update({ overlap_policy: policy })
    expect([strict.overlap_policy, strict.name]).toEqual(["reject", `TS scenario ${run}`])
    try {
      const refused = await client.projects.create({ name: `Overlap refused ${run}`, geometry: rect(60.005, -9.995, 0.005) }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(ConflictError)
      expect((refused as ConflictError).status).toBe(409)
      expect((refused as ConflictError).message).toContain(west.id)
      expect((await client.projects.list({ search: `Overlap refused ${run}` })).data).toEqual([])
      await expect(client.projects.update(east.id, { geometry: rect(60.015, -10, 0.02) })).rejects.toBeInstanceOf(ConflictError)
      expect((await client.projects.get(east.id)).bbox?.[0]).toBe(60.01)
      const apart = await client.projects.create({ name: `Overlap apart ${run}`, geometry: rect(61, -10, 0.01) })
      expect(apart.overlaps).toEqual({ overlaps: [], complete: true })
    } finally {
      await client.account.update({ overlap_policy: "warn" })
    }
  })

  it("OAuth: authorization code with PKCE (consent over HTTP), exchange, the API with the access token, refresh", async () => {
    const browser = new Browser(server.url)
    const password = `correct horse ${run} battery`
    await browser.setPassword(server.pro.set_password_url, "Owner", password)
    await browser.signIn(server.pro.email, password)
    const redirectUri = "https://app.example.com/callback"
    const app = await browser.registerApp(`Field app ${run}`, redirectUri, ["projects:read", "projects:write", "offline_access"], "public")
    expect(app.clientId).toBeTruthy()

    const auth = await authorizationUrl({ baseUrl: `${server.url}/v1`, clientId: app.clientId, redirectUri, scopes: ["projects:read", "offline_access"] })
    const u = new URL(auth.url)
    expect(`${u.origin}${u.pathname}`).toBe(`${server.url}/oauth/authorize`)
    expect([u.searchParams.get("code_challenge_method"), u.searchParams.get("code_challenge"), u.searchParams.get("state")]).toEqual(["S256",
      auth.codeChallenge, auth.state])
    expect(auth.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/)

    const callback = await browser.approve(auth.url)
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri)
    expect(callback.searchParams.get("state")).toBe(auth.state)
    const code = callback.searchParams.get("code")!
    expect(code).toBeTruthy()

    // The wrong verifier is refused (RFC 6749 error, typed).
    const wrong = await exchangeCode({ baseUrl: server.url, clientId: app.clientId, code, redirectUri, codeVerifier: "x".repeat(43) }).catch((e: unknown) => e)
    expect(wrong).toBeInstanceOf(OAuthError)
    expect(wrong).toMatchObject({ status: 400, code: "invalid_grant" })

    // A second consent gives a fresh code (the refused attempt may have burnt the first).
    const auth2 = await authorizationUrl({ baseUrl: server.url, clientId: app.clientId, redirectUri, scopes: ["projects:read", "offline_access"],
      state: `st-${run}` })
    const callback2 = await browser.approve(auth2.url)
    expect(callback2.searchParams.get("state")).toBe(`st-${run}`)
    const tokens = await exchangeCode({ baseUrl: server.url, clientId: app.clientId, code: callback2.searchParams.get("code")!, redirectUri,
      codeVerifier: auth2.codeVerifier })
    expect([tokens.token_type, tokens.expires_in]).toEqual(["Bearer", 3600])
    expect(tokens.access_token).toMatch(/^cnp_oat_/)
    expect(tokens.refresh_token).toMatch(/^cnp_ort_/)

    const asUser = new Canopy({ accessToken: tokens.access_token, baseUrl: server.url })
    const info = await asUser.auth.verify()
    expect([info.type, info.permissions]).toEqual(["oauth", ["projects:read"]])
    expect((await asUser.projects.list({ per_page: 1 })).data.length).toBe(1)
    await expect(asUser.projects.create({ name: "not allowed" })).rejects.toMatchObject({ status: 403, code: "FORBIDDEN" })

    const refreshed = await refreshToken({ baseUrl: server.url, clientId: app.clientId, refreshToken: tokens.refresh_token! })
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    asUser.setAccessToken(refreshed.access_token)
    expect((await asUser.auth.verify()).type).toBe("oauth")
    // The used refresh token is refused.
    await expect(refreshToken({ baseUrl: server.url, clientId: app.clientId, refreshToken: tokens.refresh_token! })).rejects.toMatchObject({
      code: "invalid_grant"
    })
  }, 60_000)

  it("examples/quickstart.ts runs against the live server", async () => {
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--conditions=source", join(pkg, "examples/quickstart.ts")], {
        cwd: root,
        env: { ...process.env, CANOPY_BASE_URL: server.url, CANOPY_API_KEY: server.pro.api_key }
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (d) => (stdout += d))
      child.stderr.on("data", (d) => (stderr += d))
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
      child.on("error", reject)
      child.on("close", (code) => {
        clearTimeout(timer)
        resolve({ code, stdout, stderr })
      })
    })
    expect(out.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, "")).toBe("")
    expect(out.code).toBe(0)
    const id = /created (proj_\w+): [\d.]+ ha/.exec(out.stdout)?.[1]
    expect(id, out.stdout).toBeDefined()
    expect(out.stdout).toMatch(/listed \d+ active projects/)
    expect(out.stdout).toMatch(/invalid geometry[^:]*: .+ \(req_\w+\)/)
    expect(out.stdout).toContain(`deleted ${id} (NOT_FOUND)`)
    await expect(client.projects.get(id!)).rejects.toBeInstanceOf(NotFoundError)
  }, 90_000)
})
