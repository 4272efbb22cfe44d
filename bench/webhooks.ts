/**
 * Webhook delivery benchmark (loopback only, stops by itself):
 * - throughput: a `canopy worker` drains 3,000 queued deliveries (signed, over HTTP) to a local
 *   sink behind 10 webhook endpoints (the per-endpoint cap is 4 in flight); the baseline is a bare
 *   loop signing and POSTing the same bodies with undici, no database;
 * - latency: enqueue (event written) → first attempt at the sink, p50/p95, at a steady write load
 *   on a running server.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { createCanopy, Delivery } from "@canopy/core"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Agent, request } from "undici"
import { start } from "./http.ts"

const QUEUED = 3_000
const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }

const startSink = async () => {
  const arrivals: Array<{ at: number; created: number }> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { created_at: string }
      arrivals.push({ at: Date.now(), created: Date.parse(body.created_at) })
      res.writeHead(204)
      res.end()
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/sink`, arrivals, close: () => {
    server.closeAllConnections()
    return new Promise((r) => server.close(r))
  } }
}

const waitFor = async (f: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!f()) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((r) => setTimeout(r, 10))
  }
}

const percentile = (xs: Array<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-bench-wh-"))
  const sink = await startSink()
  try {
    // Queue QUEUED deliveries with no dispatcher running.
    const db = join(dir, "queue.db")
    const canopy = await createCanopy({ storage: sqliteStorage({ filename: db }),
      settings: { plans: { free: big, pro: big, enterprise: big }, allowInsecureWebhooks: true } })
    const { api_key } = await canopy.bootstrap({ account_name: "Bench", email: "bench@example.com", plan: "enterprise" })
    const admin = await canopy.authenticate(api_key.token)
    const hooks = []
    for (let i = 0; i < 10; i++) hooks.push(await canopy.webhooks.create(admin, { url: `${sink.url}/${i}`, events: ["asset.created"] }))
    const hook = hooks[0]!
    const project = await canopy.projects.create(admin, { name: "Queue" })
    for (let i = 0; i < QUEUED / 10; i++) await canopy.assets.create(admin, project.id, { name: `A${i}`, type: "sensor" })
    await canopy.close()

    // Baseline: sign and POST the same number of bodies directly, 64 at a time.
    const agent = new Agent({ connections: 64 })
    const body = JSON.stringify({ id: "evt_x", type: "asset.created", created_at: new Date().toISOString(), data: { name: "x" },
      account: { id: "acc", name: "a" } })
    const t0 = performance.now()
    let next = 0
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (next < QUEUED) {
        next++
        const res = await request(sink.url, { method: "POST", body, dispatcher: agent,
          headers: Delivery.headers({ id: "evt_x", type: "asset.created" }, hook.secret!, body, Math.floor(Date.now() / 1000)) })
        await res.body.dump()
      }
    }))
    const baseline = QUEUED / ((performance.now() - t0) / 1000)
    await agent.close()
    sink.arrivals.length = 0

    // Canopy: a worker drains the queue.
    const w0 = performance.now()
    const worker = spawn(process.execPath, ["--conditions=source", "--disable-warning=ExperimentalWarning",
      join(import.meta.dirname, "../packages/server/src/cli/main.ts"), "worker", "--db", db, "--allow-insecure-webhooks"], { stdio: "ignore" })
    await waitFor(() => sink.arrivals.length >= QUEUED, 120_000)
    const withStart = QUEUED / ((performance.now() - w0) / 1000)
    const drained = (QUEUED - 1) / ((sink.arrivals.at(-1)!.at - sink.arrivals[0]!.at) / 1000)
    worker.kill("SIGTERM")

    // Latency at a steady load: 50 writes/s for 5 s on a running server with its loop (one endpoint).
    sink.arrivals.length = 0
    const server = await start("canopy.ts", [db])
    const base = `http://127.0.0.1:${server.port}`
    const headers = { authorization: `Bearer ${api_key.token}`, "content-type": "application/json" }
    for (let i = 0; i < 250; i++) {
      void fetch(`${base}/v1/projects/${project.id}/assets`, { method: "POST", headers, body: JSON.stringify({ name: `L${i}`, type: "sensor" }) })
      await new Promise((r) => setTimeout(r, 20))
    }
    await waitFor(() => sink.arrivals.length >= 2_500, 30_000)
    const latencies = sink.arrivals.map((a) => a.at - a.created)
    server.child.kill("SIGTERM")

    console.log(`webhooks: ${QUEUED} queued deliveries to a loopback sink behind 10 endpoints (signed, both header sets)`)
    console.log(
      `  canopy worker drain          ${drained.toFixed(0).padStart(6)} deliveries/s  (goal ≥ 1,000/s; ${
        withStart.toFixed(0)
      }/s counting the worker's start-up)`
    )
    console.log(`  bare sign + POST (baseline)  ${baseline.toFixed(0).padStart(6)} deliveries/s  ratio ${(drained / baseline).toFixed(2)}×`)
    console.log(
      `  enqueue → first attempt at 50 writes/s (×10 endpoints): p50 ${percentile(latencies, 50)} ms, p95 ${
        percentile(latencies, 95)
      } ms  (goal p95 < 1,000 ms)`
    )
  } finally {
    await sink.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
