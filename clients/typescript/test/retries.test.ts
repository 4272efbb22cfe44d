/**
 * @canopy/client's retries against a real `canopy serve` process and local endpoints: 5xx answers
 * retried with backoff and one Idempotency-Key across the attempts, network errors retried then
 * `APIConnectionError`, and a 429 on the free plan retried after Retry-After creating exactly one project.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { APIConnectionError, Canopy, RateLimitError, type RetryInfo } from "../src/index.ts"
import { type LiveServer, recordingFetch, startLiveServer, startLocalServer } from "./support.ts"

const run = Math.random().toString(36).slice(2, 8)

let server: LiveServer

beforeAll(async () => {
  server = await startLiveServer(run)
}, 60_000)

afterAll(async () => {
  await server?.stop()
}, 30_000)

describe("@canopy/client: retries", () => {
  it("retries 5xx answers with backoff, one Idempotency-Key across the attempts (a local endpoint answering 503, 503, 201)", async () => {
    const flaky = await startLocalServer((_r, i) =>
      i < 2
        ? { status: 503, body: JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "try again", details: [] }, meta: { request_id: "req_local" } }) }
        : { status: 201, body: JSON.stringify({ data: { id: "proj_local", name: "x" }, meta: { request_id: "req_ok", timestamp: new Date().toISOString() } }) }
    )
    try {
      const retries: Array<RetryInfo> = []
      const c = new Canopy({ apiKey: "cnp_key_x", baseUrl: flaky.url, maxRetries: 2, backoffBaseMs: 20, onRetry: (r) => retries.push(r) })
      const p = await c.projects.create({ name: "x" })
      expect(p.id).toBe("proj_local")
      expect(flaky.received.length).toBe(3)
      const keys = flaky.received.map((r) => r.headers["idempotency-key"])
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
      expect(new Set(keys).size).toBe(1)
      expect(flaky.received.every((r) => r.body.toString() === "{\"name\":\"x\"}")).toBe(true)
      expect(retries.map((r) => [r.status, r.idempotencyKey])).toEqual([[503, keys[0]], [503, keys[0]]])
      // Out of retries: the typed error.
      const before = await startLocalServer(() => ({ status: 500,
        body: JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "boom", details: [] }, meta: { request_id: "req_boom" } }) })
      )
      try {
        const e = await new Canopy({ apiKey: "k", baseUrl: before.url, maxRetries: 1, backoffBaseMs: 10 }).projects.list().catch((x: unknown) => x)
        expect(e).toMatchObject({ status: 500, code: "INTERNAL_ERROR", requestId: "req_boom" })
        expect(before.received.length).toBe(2)
      } finally {
        await before.close()
      }
    } finally {
      await flaky.close()
    }
  })

  it("network errors: retried, then APIConnectionError", async () => {
    const gone = await startLocalServer(() => ({ status: 200 }))
    const url = gone.url
    await gone.close()
    const retries: Array<RetryInfo> = []
    const c = new Canopy({ apiKey: "k", baseUrl: url, maxRetries: 2, backoffBaseMs: 10, onRetry: (r) => retries.push(r) })
    const e = await c.projects.create({ name: "x" }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(APIConnectionError)
    expect((e as APIConnectionError).status).toBeNull()
    expect(retries.length).toBe(2)
    expect(retries.every((r) => r.status === null && r.error instanceof APIConnectionError)).toBe(true)
    expect(new Set(retries.map((r) => r.idempotencyKey)).size).toBe(1)
  })

  it("a 429 on the free plan is retried after Retry-After, with one Idempotency-Key, creating exactly one project", async () => {
    const strict = new Canopy({ apiKey: server.free.api_key, baseUrl: server.url, maxRetries: 0 })
    let limited: RateLimitError | undefined
    let burst = 0
    for (; burst < 200 && !limited; burst++) {
      await strict.auth.verify().catch((e: unknown) => {
        if (e instanceof RateLimitError) limited = e
        else throw e
      })
    }
    expect(limited).toBeInstanceOf(RateLimitError)
    expect([limited!.status, limited!.code]).toEqual([429, "RATE_LIMITED"])
    expect(limited!.retryAfter).toBeGreaterThanOrEqual(1)
    expect(burst).toBeGreaterThan(30)

    const sent: Array<{ method: string; url: string; headers: Headers }> = []
    const retries: Array<RetryInfo> = []
    const patient = new Canopy({ apiKey: server.free.api_key, baseUrl: server.url, maxRetries: 3, fetch: recordingFetch(sent),
      onRetry: (r) => retries.push(r) })
    const name = `After the limit ${run}`
    const started = performance.now()
    const created = await patient.projects.create({ name })
    const elapsed = performance.now() - started
    expect(created.id).toMatch(/^proj_/)
    expect(retries.length).toBeGreaterThanOrEqual(1)
    expect(retries[0]!.status).toBe(429)
    expect(retries[0]!.retryAfter).toBeGreaterThanOrEqual(1)
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(retries[0]!.retryAfter! * 1000)
    expect(elapsed).toBeGreaterThanOrEqual(retries[0]!.retryAfter! * 1000)
    expect(sent.length).toBe(retries.length + 1)
    expect(new Set(sent.map((s) => s.headers.get("idempotency-key"))).size).toBe(1)
    const mine = []
    for await (const p of patient.projects.listAll({ search: name })) mine.push(p.id)
    expect(mine).toEqual([created.id])
  }, 60_000)
})
