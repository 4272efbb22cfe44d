/**
 * Prometheus metrics over a real socket: off by default; with a token, only its bearer scrapes;
 * the scrape parses as Prometheus text and counts requests by route template, method and status;
 * webhook deliveries to a real receiver move the outbox gauges (oldest due, pending, in flight) and the
 * outcome counter; storage
 * operations are timed.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import parsePrometheusTextFormat from "parse-prometheus-text-format"
import { serve } from "../src/index.ts"
import { client, request, square, startReceiver } from "@canopy/server/testing"

interface Family {
  readonly name: string
  readonly type: string
  readonly metrics: ReadonlyArray<
    { readonly value?: string; readonly labels?: Record<string, string>; readonly buckets?: Record<string, string>; readonly count?: string }
  >
}

const start = async (metrics?: { token: string } | "public") => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-metrics-"))
  const running = await serve({ port: 0, db: join(dir, "m.db"), log: false, dispatcher: false, geometry: false,
    ...(metrics ? { metrics } : { metrics: false }) })
  const boot = await running.canopy.bootstrap({ account_name: "Metered", email: "metrics@example.com", plan: "pro" })
  return { running, token: boot.api_key.token, stop: async () => {
    await running.close()
    rmSync(dir, { recursive: true, force: true })
  } }
}

describe("/metrics", () => {
  it("is off unless configured", async () => {
    const s = await start()
    try {
      assert.strictEqual((await request(s.running.url, "GET", "/metrics")).status, 404)
    } finally {
      await s.stop()
    }
  })

  it("with a token: 401 without it; parses as Prometheus text; counts requests by route template, method and status, with latency", async () => {
    const s = await start({ token: "scrape-secret-123" })
    try {
      const api = client(s.running.url, s.token)
      const created = await api.post("/v1/projects", { name: "Measured", geometry: square() })
      assert.strictEqual(created.status, 201)
      for (let i = 0; i < 3; i++) assert.strictEqual((await api.get(`/v1/projects/${created.body.data.id}`)).status, 200)
      assert.strictEqual((await api.get("/v1/projects/proj_00000000000000000000000000")).status, 404)
      const denied = await request(s.running.url, "GET", "/metrics", { headers: { authorization: "Bearer wrong" } })
      assert.deepStrictEqual([denied.status, denied.body.error.code], [401, "UNAUTHORIZED"])
      const scrape = await fetch(`${s.running.url}/metrics`, { headers: { authorization: "Bearer scrape-secret-123" } })
      assert.strictEqual(scrape.status, 200)
      assert.match(scrape.headers.get("content-type") ?? "", /^text\/plain/)
      const text = await scrape.text()
      const families = parsePrometheusTextFormat(text) as ReadonlyArray<Family>
      const family = (name: string) => families.find((f) => f.name === name)
      const count = (route: string, method: string, status: string) =>
        Number(
          family("canopy_http_requests_total")?.metrics.find((m) => m.labels?.route === route && m.labels?.method === method && m.labels?.status === status)
            ?.value ?? 0
        )
      assert.strictEqual(count("/v1/projects/{project_id}", "GET", "200"), 3)
      assert.strictEqual(count("/v1/projects/{project_id}", "GET", "404"), 1)
      assert.strictEqual(count("/v1/projects", "POST", "201"), 1)
      const latency = family("canopy_http_request_duration_seconds")
      assert.strictEqual(latency?.type, "HISTOGRAM")
      assert.isAbove(latency?.metrics.length ?? 0, 0)
      // (the parser keeps no labels on histograms: the per-route count is read off the text)
      assert.match(text, /^canopy_http_request_duration_seconds_count\{route="\/v1\/projects\/\{project_id\}",method="GET"\} 4$/m)
      assert.isDefined(family("canopy_nodejs_eventloop_lag_p99_seconds"), "the process's own figures are there")
      // No id ever becomes a label: the label set stays bounded whatever clients send.
      assert.notInclude(JSON.stringify(families), created.body.data.id)
    } finally {
      await s.stop()
    }
  })

  it("outbox backlog and deliveries in flight while a receiver is slow; delivery outcomes; storage time by operation", async () => {
    const receiver = await startReceiver()
    const dir = mkdtempSync(join(tmpdir(), "canopy-metrics-"))
    const running = await serve({
      port: 0,
      db: join(dir, "m.db"),
      log: false,
      geometry: false,
      metrics: "public",
      settings: { allowInsecureWebhooks: true, deliveryTimeoutMs: 5_000 },
      dispatcher: { pollMs: 50 }
    })
    try {
      const boot = await running.canopy.bootstrap({ account_name: "Delivered", email: "deliveries@example.com", plan: "pro" })
      const api = client(running.url, boot.api_key.token)
      // 1st delivery: answered after 1.5 s; 2nd: a 500 (a retry is scheduled); then 200s.
      receiver.on("/hook", (n) => (n === 1 ? { status: 200, delayMs: 1_500 } : n === 2 ? { status: 500 } : { status: 200 }))
      const hook = await api.post("/v1/webhooks", { url: receiver.url("/hook"), events: ["project.created"] })
      assert.strictEqual(hook.status, 201, hook.text)
      const scrape = async () => {
        const r = await fetch(`${running.url}/metrics`)
        assert.strictEqual(r.status, 200)
        const text = await r.text()
        const families = parsePrometheusTextFormat(text) as ReadonlyArray<Family>
        const value = (name: string, labels: Record<string, string> = {}) => {
          const m = families.find((f) => f.name === name)?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v))
          return m ? Number(m.value) : undefined
        }
        return { text, value, outcome: (outcome: string) => value("canopy_webhook_deliveries_total", { outcome }) }
      }
      const before = await scrape()
      assert.deepStrictEqual(["success", "retry", "dead", "error"].map(before.outcome), [0, 0, 0, 0])
      assert.strictEqual(before.value("canopy_outbox_oldest_due_seconds"), 0, "nothing due yet")
      assert.strictEqual(before.value("canopy_outbox_pending_deliveries"), 0, "nothing pending yet")

      assert.strictEqual((await api.post("/v1/projects", { name: "Slowly delivered" })).status, 201)
      await receiver.waitFor("/hook", 1)
      await new Promise((r) => setTimeout(r, 400))
      const during = await scrape()
      assert.isAtLeast(during.value("canopy_outbox_oldest_due_seconds") ?? 0, 0.3, "the pending delivery has waited since the event")
      assert.strictEqual(during.value("canopy_webhook_deliveries_in_flight"), 1)
      assert.strictEqual(during.value("canopy_outbox_pending_deliveries"), 1, "the delivery in flight is still pending")
      assert.strictEqual(during.outcome("success"), 0)

      const until = async (check: (s: Awaited<ReturnType<typeof scrape>>) => boolean, what: string) => {
        const deadline = Date.now() + 10_000
        for (;;) {
          const s = await scrape()
          if (check(s)) return s
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${s.text}`)
          await new Promise((r) => setTimeout(r, 50))
        }
      }
      const delivered = await until((s) => s.outcome("success") === 1, "the first delivery's success")
      assert.strictEqual(delivered.value("canopy_outbox_oldest_due_seconds"), 0, "nothing left due")
      assert.strictEqual(delivered.value("canopy_webhook_deliveries_in_flight"), 0)
      assert.strictEqual(delivered.value("canopy_outbox_pending_deliveries"), 0, "nothing left pending")

      assert.strictEqual((await api.post("/v1/projects", { name: "Refused delivery" })).status, 201)
      const retried = await until((s) => s.outcome("retry") === 1, "the second delivery's retry")
      assert.deepStrictEqual(["success", "dead", "error"].map(retried.outcome), [1, 0, 0])
      assert.strictEqual(retried.value("canopy_outbox_pending_deliveries"), 1, "the refused delivery waits for its retry")
      assert.match(retried.text, /^# HELP canopy_outbox_pending_deliveries .*counted up to 10000/m)

      // Storage time, by operation: the request path's and the dispatcher's operations are there.
      const count = (operation: string) =>
        Number(
          new RegExp(`^canopy_db_operation_duration_seconds_count\\{operation="${operation.replace(".", "\\.")}"\\} (\\d+)$`, "m").exec(retried.text)?.[1] ?? 0
        )
      assert.isAtLeast(count("credentials.getByHash"), 3, "one per API request")
      assert.isAtLeast(count("requests.meter"), 3)
      assert.isAtLeast(count("outbox.recordAttempt"), 2)
      assert.isAtLeast(count("outbox.nextDue"), 1)
      assert.isAtLeast(count("outbox.pendingCount"), 1)
      assert.match(retried.text, /^canopy_db_operation_duration_seconds_bucket\{le="\+Inf",operation="requests\.meter"\} \d+$/m)
    } finally {
      await running.close()
      await receiver.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
