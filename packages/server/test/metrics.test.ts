/**
 * Prometheus metrics over a real socket: off by default; with a token, only its bearer scrapes;
 * the scrape parses as Prometheus text and counts requests by route template, method and status.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import parsePrometheusTextFormat from "parse-prometheus-text-format"
import { serve } from "../src/index.ts"
import { client, request, square } from "./harness.ts"

interface Family {
  readonly name: string
  readonly type: string
  readonly metrics: ReadonlyArray<{ readonly value?: string; readonly labels?: Record<string, string>; readonly buckets?: Record<string, string>; readonly count?: string }>
}

const start = async (metrics?: { token: string } | "public") => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-metrics-"))
  const running = await serve({ port: 0, db: join(dir, "m.db"), log: false, dispatcher: false, geometry: false, ...(metrics ? { metrics } : { metrics: false }) })
  const boot = await running.canopy.bootstrap({ account_name: "Metered", email: "metrics@example.com", plan: "pro" })
  return { running, token: boot.api_key.token, stop: async () => { await running.close(); rmSync(dir, { recursive: true, force: true }) } }
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
        Number(family("canopy_http_requests_total")?.metrics.find((m) =>
          m.labels?.route === route && m.labels?.method === method && m.labels?.status === status)?.value ?? 0)
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
})
