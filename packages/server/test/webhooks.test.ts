import { layer as sqliteLayer } from "@canopy/adapter-sqlite"
import { Accounts, Canopy, Credentials, Deliveries, Projects, Sender, Settings, Signature, Storage, Time, Webhooks } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { guardedLookup, makeSender } from "../src/index.ts"
import { client, startTestServer, type TestServer, startReceiver } from "@canopy/server/testing"

let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
let api: ReturnType<typeof client>

beforeAll(async () => {
  receiver = await startReceiver()
  server = await startTestServer({ allowInsecureWebhooks: true, deliveryTimeoutMs: 1_000 }, { dispatcher: true })
  api = client(server.url, (await server.newAccount("enterprise")).token)
})
afterAll(async () => {
  await server.stop()
  await receiver.close()
})

const hook = async (path: string, events: Array<string> = ["*"], secret = "whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtMTIzNA==") => {
  const r = await api.post("/v1/webhooks", { url: receiver.url(path), events, secret })
  assert.strictEqual(r.status, 201, r.text)
  return r.body.data as { id: string; secret: string }
}

describe("webhook delivery to a real receiver on loopback", () => {
  it("signs the raw body, sends both header sets and the spec's envelope, logs the attempt", async () => {
    const w = await hook("/signed", ["project.created"])
    const p = (await api.post("/v1/projects", { name: "Signed delivery" })).body.data
    const [got] = await receiver.waitFor("/signed", 1)
    const h = got!.headers
    assert.strictEqual(h["content-type"], "application/json")
    assert.isTrue(Signature.verify(w.secret, got!.raw, String(h["x-service-signature"])), "X-Service-Signature over the raw body")
    assert.match(String(h["x-service-signature"]), /^sha256=[0-9a-f]{64}$/)
    const id = String(h["webhook-id"])
    const ts = Number(h["webhook-timestamp"])
    assert.isTrue(Signature.verifyStandard(w.secret, id, ts, got!.raw, String(h["webhook-signature"])), "Standard Webhooks signature")
    assert.strictEqual(h["x-service-event-id"], got!.json.id)
    assert.strictEqual(h["x-service-event-type"], "project.created")
    assert.strictEqual(h["x-service-timestamp"], h["webhook-timestamp"])
    assert.closeTo(ts, Date.now() / 1000, 10)
    assert.deepStrictEqual(Object.keys(got!.json).sort(), ["account", "created_at", "data", "id", "type"])
    assert.strictEqual(got!.json.data.id, p.id)
    assert.match(got!.json.id, /^evt_/)
    // a byte changed anywhere breaks the signature
    const tampered = Buffer.from(got!.raw)
    tampered[tampered.length - 2]! ^= 1
    assert.isFalse(Signature.verify(w.secret, tampered, String(h["x-service-signature"])))
    let logs = await api.get(`/v1/webhooks/${w.id}/logs`)
    for (let i = 0; i < 50 && logs.body.meta.total === 0; i++) {
      await new Promise((r) => setTimeout(r, 20))
      logs = await api.get(`/v1/webhooks/${w.id}/logs`)
    }
    const entry = logs.body.data[0]
    assert.deepStrictEqual([entry.status, entry.response_code, entry.attempt, entry.event_id, entry.event_type, entry.error], ["success", 200, 1, got!.json.id,
      "project.created", null])
    assert.isNumber(entry.response_time_ms)
    assert.isString(entry.delivered_at)
  })

  it("POST /webhooks/{id}/test sends a signed webhook.test now and answers its log entry", async () => {
    const w = await hook("/test-endpoint", ["project.deleted"])
    const r = await api.post(`/v1/webhooks/${w.id}/test`)
    assert.strictEqual(r.status, 200, r.text)
    assert.deepStrictEqual([r.body.data.status, r.body.data.event_type, r.body.data.response_code], ["success", "webhook.test", 200])
    const [got] = receiver.at("/test-endpoint")
    assert.strictEqual(got!.json.type, "webhook.test")
    assert.isTrue(Signature.verify(w.secret, got!.raw, String(got!.headers["x-service-signature"])))
    // redeliver: same event id, a new attempt
    const again = await api.post(`/v1/webhooks/${w.id}/logs/${r.body.data.id}/redeliver`)
    assert.strictEqual(again.status, 200, again.text)
    assert.notStrictEqual(again.body.data.id, r.body.data.id)
    const both = receiver.at("/test-endpoint")
    assert.strictEqual(both.length, 2)
    assert.strictEqual(both[1]!.json.id, both[0]!.json.id)
    assert.strictEqual((await api.post(`/v1/webhooks/${w.id}/logs/log_00000000000000000000000000/redeliver`)).status, 404)
  })

  it("disabled endpoints get nothing; re-enabled ones get only new events", async () => {
    const w = await hook("/disabled", ["project.created"])
    await api.put(`/v1/webhooks/${w.id}`, { enabled: false })
    await api.post("/v1/projects", { name: "Unheard 1" })
    await api.post("/v1/projects", { name: "Unheard 2" })
    await new Promise((r) => setTimeout(r, 500))
    assert.lengthOf(receiver.at("/disabled"), 0)
    await api.put(`/v1/webhooks/${w.id}`, { enabled: true })
    await api.post("/v1/projects", { name: "Heard" })
    const got = await receiver.waitFor("/disabled", 1)
    await new Promise((r) => setTimeout(r, 300))
    assert.lengthOf(receiver.at("/disabled"), 1)
    assert.strictEqual(got[0]!.json.data.name, "Heard")
  })

  it("410 Gone disables the endpoint at once, with the reason and time on the record", async () => {
    receiver.on("/gone", () => ({ status: 410 }))
    const w = await hook("/gone", ["project.created"])
    await api.post("/v1/projects", { name: "Gone 1" })
    await receiver.waitFor("/gone", 1)
    let record = (await api.get(`/v1/webhooks/${w.id}`)).body.data
    for (let i = 0; i < 50 && record.enabled; i++) {
      await new Promise((r) => setTimeout(r, 20))
      record = (await api.get(`/v1/webhooks/${w.id}`)).body.data
    }
    assert.isFalse(record.enabled)
    assert.match(record.disabled_reason, /410/)
    assert.isString(record.disabled_at)
    const logs = (await api.get(`/v1/webhooks/${w.id}/logs`)).body.data
    assert.deepStrictEqual([logs[0].status, logs[0].response_code, logs[0].next_retry_at], ["failed", 410, null])
    await api.post("/v1/projects", { name: "Gone 2" })
    await new Promise((r) => setTimeout(r, 300))
    assert.lengthOf(receiver.at("/gone"), 1)
  })

  it("a failure is retried on schedule, honouring Retry-After, and the log says when", async () => {
    receiver.on("/busy", () => ({ status: 503, headers: { "retry-after": "600" } }))
    const w = await hook("/busy", ["project.created"])
    await api.post("/v1/projects", { name: "Busy" })
    await receiver.waitFor("/busy", 1)
    let logs = (await api.get(`/v1/webhooks/${w.id}/logs`)).body
    for (let i = 0; i < 50 && logs.meta.total === 0; i++) {
      await new Promise((r) => setTimeout(r, 20))
      logs = (await api.get(`/v1/webhooks/${w.id}/logs`)).body
    }
    const entry = logs.data[0]
    assert.deepStrictEqual([entry.status, entry.response_code, entry.error_class, entry.attempt], ["failed", 503, "http", 1])
    const delay = Date.parse(entry.next_retry_at) - Date.parse(entry.delivered_at)
    assert.closeTo(delay, 600_000, 1_000, "Retry-After: 600 pushes the retry from 1 minute to 10")
  })

  it("one dead endpoint does not hold up the others: at most 4 attempts at it at once", async () => {
    receiver.on("/dead", () => "hang")
    await hook("/dead", ["asset.created"])
    await hook("/alive", ["asset.created"])
    const p = (await api.post("/v1/projects", { name: "Many assets" })).body.data
    const started = Date.now()
    for (let i = 0; i < 20; i++) await api.post(`/v1/projects/${p.id}/assets`, { name: `Asset ${i}`, type: "sensor" })
    await receiver.waitFor("/alive", 20, 5_000)
    const aliveDone = Date.now() - started
    assert.isBelow(aliveDone, 4_000, `the live endpoint got its 20 events in ${aliveDone} ms`)
    assert.isAtMost(receiver.maxConcurrent("/dead"), 4)
    assert.isAtLeast(receiver.at("/dead").length, 1)
  })

  it("GET /v1/events lists the account's events, newest first, with type and time filters", async () => {
    const all = await api.get("/v1/events?per_page=100")
    assert.strictEqual(all.status, 200)
    assert.isAbove(all.body.meta.total, 5)
    const types = new Set(all.body.data.map((e: { type: string }) => e.type))
    assert.isTrue(types.has("project.created") && types.has("asset.created"))
    const only = await api.get("/v1/events?type=asset.created&per_page=5")
    assert.isTrue(only.body.data.every((e: { type: string }) => e.type === "asset.created"))
    assert.strictEqual(only.body.meta.per_page, 5)
    const future = await api.get(`/v1/events?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
    assert.strictEqual(future.body.meta.total, 0)
    assert.strictEqual((await api.get("/v1/events?created_after=yesterday")).status, 400)
  })
})

describe("the retry schedule with a controlled clock", () => {
  const T0 = Date.UTC(2026, 5, 1, 12)
  const MIN = 60_000
  let dir: string
  // Its own runtime over the store: the services and the storage under them (white-box checks).
  let rt: ManagedRuntime.ManagedRuntime<Canopy.Runtime | Storage.Storage, unknown>
  let clock: ReturnType<typeof Time.manual>
  let sender: ReturnType<typeof makeSender>

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "canopy-schedule-"))
    clock = Time.manual(T0)
    sender = makeSender({ allowLocal: true })
    rt = ManagedRuntime.make(Canopy.layerWithSender.pipe(
      Layer.provideMerge(sqliteLayer({ filename: join(dir, "schedule.db") })),
      Layer.provideMerge(Layer.succeed(Sender, { send: sender.send })),
      Layer.provideMerge(Layer.succeed(Time.Time, clock.service)),
      Layer.provideMerge(Layer.succeed(Settings.Settings, { ...Settings.defaults, allowInsecureWebhooks: true }))
    ))
  })
  afterAll(async () => {
    await rt.dispose()
    await sender.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const setup = (path: string) =>
    rt.runPromise(Effect.gen(function*() {
      const b = yield* (yield* Accounts).bootstrap({ account_name: "Clocked", email: `c-${path.slice(1)}@example.com`, plan: "enterprise" })
      const admin = yield* (yield* Credentials).authenticate(b.api_key.token)
      const w = yield* (yield* Webhooks).create(admin, { url: receiver.url(path), events: ["project.created"] })
      yield* (yield* Projects).create(admin, { name: `Scheduled ${path}` })
      return { account: b.account.id, webhook: w.id }
    }))
  const claimAll = () => rt.runPromise(Effect.flatMap(Deliveries, (d) => d.claim("test-dispatcher", 100)))
  const attemptAll = (claimed: Awaited<ReturnType<typeof claimAll>>) =>
    rt.runPromise(Effect.forEach(claimed, (c) => Effect.flatMap(Deliveries, (d) => d.attempt(c, "test-dispatcher"))))

  it("attempts at 0, +1 min, +5 min, +30 min, +2 h, +24 h after each failure, then failed for good", async () => {
    receiver.on("/always-500", () => ({ status: 500 }))
    const { account, webhook } = await setup("/always-500")
    const delays = [1, 5, 30, 120, 1440].map((m) => m * MIN)
    const mine = (c: Awaited<ReturnType<typeof claimAll>>) => c.filter((d) => d.webhook_id === webhook)
    for (let attempt = 1; attempt <= 6; attempt++) {
      const claimed = mine(await claimAll())
      assert.lengthOf(claimed, 1, `attempt ${attempt} is due`)
      const [log] = await attemptAll(claimed)
      assert.strictEqual(log!.attempt, attempt)
      assert.strictEqual(log!.status, "failed")
      if (attempt < 6) {
        const due = Date.parse(log!.next_retry_at!)
        assert.isAtMost(Math.abs(due - (clock.get() + delays[attempt - 1]!)), 1_000, `next_retry_at of attempt ${attempt}`)
        await rt.runPromise(clock.set(due - 1_000))
        assert.lengthOf(mine(await claimAll()), 0, "not before it is due")
        await rt.runPromise(clock.set(due))
      } else {
        assert.isNull(log!.next_retry_at)
      }
    }
    await rt.runPromise(clock.adjust(30 * 86_400_000))
    assert.lengthOf(mine(await claimAll()), 0, "no 7th attempt")
    const deliveries = await rt.runPromise(Effect.gen(function*() {
      const s = yield* Storage.Storage
      const events = yield* s.outbox.listEvents(account, { type: "project.created", limit: 1, offset: 0 })
      return yield* s.outbox.listDeliveries(account, events.rows[0]!.id)
    }))
    assert.deepStrictEqual(deliveries.map((d) => [d.status, d.attempts]), [["failed", 6]])
    assert.lengthOf(receiver.at("/always-500"), 6)
  })

  it("disabling a webhook cancels its pending retries, with a log entry saying so", async () => {
    receiver.on("/to-disable", () => ({ status: 500 }))
    const { account, webhook } = await setup("/to-disable")
    const mine = (c: Awaited<ReturnType<typeof claimAll>>) => c.filter((d) => d.webhook_id === webhook)
    const [failed] = await attemptAll(mine(await claimAll()))
    assert.isString(failed!.next_retry_at)
    await rt.runPromise(clock.adjust(1_000)) // the user disables it a second later
    const logs = await rt.runPromise(Effect.gen(function*() {
      const admin = { kind: "system" as const, account_id: account, user_id: null, credential_id: null, permissions: ["admin" as const], expires_at: null }
      yield* (yield* Webhooks).update(admin, webhook, { enabled: false })
      return (yield* (yield* Webhooks).logs(admin, webhook)).data
    }))
    assert.deepStrictEqual(logs.map((l) => l.status), ["canceled", "failed"])
    assert.match(logs[0]!.error ?? "", /disabled/)
    await rt.runPromise(clock.adjust(2 * 86_400_000))
    assert.lengthOf(mine(await claimAll()), 0, "nothing is retried")
  })

  it("a 2xx after failures stops the retries", async () => {
    receiver.on("/third-time", (n) => ({ status: n < 3 ? 502 : 204 }))
    const { webhook } = await setup("/third-time")
    const mine = (c: Awaited<ReturnType<typeof claimAll>>) => c.filter((d) => d.webhook_id === webhook)
    const statuses: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const [log] = await attemptAll(mine(await claimAll()))
      statuses.push(log!.status)
      if (log!.next_retry_at) await rt.runPromise(clock.set(Date.parse(log!.next_retry_at)))
    }
    assert.deepStrictEqual(statuses, ["failed", "failed", "success"])
    await rt.runPromise(clock.adjust(2 * 86_400_000))
    assert.lengthOf(mine(await claimAll()), 0)
    assert.lengthOf(receiver.at("/third-time"), 3)
  })
})

describe("the SSRF guard", () => {
  it("refuses loopback, private and metadata targets unless local targets are allowed", async () => {
    const strict = makeSender({ allowLocal: false })
    try {
      for (const url of ["http://127.0.0.1:9/x", "https://10.0.0.5/x", "https://169.254.169.254/latest/meta-data", "https://[::1]/x", "https://localhost/x",
        "https://[::ffff:127.0.0.1]/x"]) {
        const r = await Effect.runPromise(strict.send({ url, headers: {}, body: "{}", timeoutMs: 1000 }))
        assert.deepStrictEqual([r.kind, r.kind === "error" ? r.errorClass : ""], ["error", "blocked"], url)
      }
    } finally {
      await strict.close()
    }
    // a host name that resolves to loopback is refused at connection time, after resolution
    const refused = await new Promise<string>((resolve) =>
      guardedLookup(false)("localhost", { all: true }, (err) => resolve(err ? String((err as { code?: string }).code) : "allowed"))
    )
    assert.strictEqual(refused, "CANOPY_BLOCKED_ADDRESS")
    const allowed = await new Promise<string>((resolve) => guardedLookup(true)("localhost", { all: true }, (err) => resolve(err ? "refused" : "allowed")))
    assert.strictEqual(allowed, "allowed")
  })
})
