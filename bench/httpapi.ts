/**
 * HTTP stack benchmark (loopback only, stops by itself): Canopy's `node:http` server against a
 * prototype of the same `/v1` read path on `@effect/platform-node` and effect's `HttpApi`
 * (`servers/httpapi.ts`), both doing Canopy's request work (token, rate limit and usage count,
 * permission, rows) over copies of one seeded SQLite file, measured in the same run with
 * autocannon. The prototype runs twice: successes encoded by their schemas (HttpApi's way), and
 * written as Canopy writes them (a boundary's stored JSON spliced in unparsed). `BENCH_ROUNDS`
 * rounds (default 2) taken in turns; the best of each shown, with the ratios prototype / Canopy
 * by req/s and by the server's CPU time per request. Before measuring, every contender must give
 * Canopy's answer to the same requests, failures included.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { createCanopy } from "@canopy/core"
import autocannon from "autocannon"
import type { ChildProcess } from "node:child_process"
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { start } from "./http.ts"

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 16

const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }

/** A 64-vertex ring around a point, as the other HTTP benchmark seeds. */
const polygon = (vertices: number) => {
  const ring: Array<[number, number]> = []
  for (let i = 0; i < vertices; i++) {
    const a = (2 * Math.PI * i) / vertices
    ring.push([-60 + 0.004 * Math.cos(a), -3 + 0.004 * Math.sin(a)])
  }
  ring.push(ring[0]!)
  return { type: "Polygon", coordinates: [ring] }
}

/** Seeds the file with an account and 200 projects; answers the key and a project id. */
const seed = async (filename: string) => {
  const canopy = await createCanopy({ storage: sqliteStorage({ filename }), settings: { plans: { free: big, pro: big, enterprise: big } } })
  const { api_key } = await canopy.bootstrap({ account_name: "Bench", email: "bench@example.com", plan: "enterprise" })
  const principal = await canopy.authenticate(api_key.token)
  let projectId = ""
  for (let i = 0; i < 200; i++) projectId = (await canopy.projects.create(principal, { name: `Seed ${i}`, geometry: polygon(64) })).id
  await canopy.close()
  return { token: api_key.token, projectId }
}

/** A run's figures; `cpuMs`: the server process's CPU time per request, which a busy machine disturbs less than req/s. */
interface Figures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly cpuMs: number
  readonly failed: number
}

/** A process's CPU time so far (user + system), in ms (Linux: /proc, clock ticks of 10 ms). */
const cpuTimeMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const load = async (url: string, pid: number, token: string): Promise<Figures> => {
  const cpuBefore = cpuTimeMs(pid)
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers: { authorization: `Bearer ${token}` } })
  const cpuMs = (cpuTimeMs(pid) - cpuBefore) / Math.max(1, r.requests.total)
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMs, failed: r.errors + r.non2xx }
}

/** The answer without what differs per request (ids and times). */
const comparable = async (res: Response) => {
  const body = await res.json() as { meta?: Record<string, unknown> }
  const { request_id: _, timestamp: __, ...meta } = body.meta ?? {}
  const headers = ["content-type", "x-content-type-options", "www-authenticate"].map((h) => res.headers.get(h)?.split(";")[0])
  return JSON.stringify({ status: res.status, body: { ...body, meta }, headers, remaining: res.headers.has("x-ratelimit-remaining") })
}

/** Both servers must answer alike, failures included, before their speed means anything. */
const sameAnswers = async (canopy: string, prototype: string, token: string, paths: ReadonlyArray<string>) => {
  for (const path of paths) {
    for (const auth of [token, ""]) {
      const headers = auth ? { authorization: `Bearer ${auth}` } : {}
      const [a, b] = await Promise.all([fetch(`${canopy}${path}`, { headers }).then(comparable), fetch(`${prototype}${path}`, { headers }).then(comparable)])
      if (a !== b) throw new Error(`the prototype answers ${path} (${auth ? "with" : "without"} a token) differently:\n  canopy:    ${a}\n  prototype: ${b}`)
    }
  }
}

const line = (label: string, f: Figures, ratio = "") =>
  `    ${label.padEnd(24)} ${f.rps.toFixed(0).padStart(7)} req/s  p50/p99 ${f.p50}/${f.p99} ms  CPU ${f.cpuMs.toFixed(3)} ms/req  ${ratio}` +
  (f.failed ? `  (${f.failed} errors/non-2xx!)` : "")

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-bench-httpapi-"))
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2))
  const children: Array<ChildProcess> = []
  try {
    const lite = await seed(join(dir, "seed.db"))
    copyFileSync(join(dir, "seed.db"), join(dir, "canopy.db"))
    copyFileSync(join(dir, "seed.db"), join(dir, "httpapi.db"))
    copyFileSync(join(dir, "seed.db"), join(dir, "spliced.db"))
    const spawnServer = async (script: string, file: string, env: Record<string, string> = {}) => {
      const s = await start(script, [join(dir, file)], env)
      children.push(s.child)
      return { url: `http://127.0.0.1:${s.port}`, pid: s.child.pid! }
    }
    const contenders = [
      // Without /metrics, as the prototype: neither times its storage operations.
      { label: "canopy (node:http)", ...await spawnServer("canopy.ts", "canopy.db", { BENCH_DISPATCHER: "0", BENCH_METRICS: "0" }) },
      { label: "HttpApi prototype", ...await spawnServer("httpapi.ts", "httpapi.db") },
      { label: "HttpApi, spliced JSON", ...await spawnServer("httpapi.ts", "spliced.db", { HTTPAPI_RESPONSES: "spliced" }) }
    ]
    const scenarios: ReadonlyArray<[string, string]> = [
      ["GET /v1/projects/{id}", `/v1/projects/${lite.projectId}`],
      ["GET /v1/projects?per_page=20", "/v1/projects?per_page=20"]
    ]
    for (const prototype of contenders.slice(1)) {
      await sameAnswers(contenders[0]!.url, prototype.url, lite.token, [...scenarios.map(([, p]) => p), "/v1/projects/proj_missing",
        "/v1/projects?per_page=0&status=lost"])
    }
    console.log(`httpapi: ${CONNECTIONS} connections, ${DURATION_S} s each, loopback; ${rounds} rounds taken in turns, the best of each shown`)
    console.log("  each: bearer token, rate limit and usage count, permission, then the rows, on copies of one SQLite file; no /metrics")
    console.log("  \"by CPU\": Canopy's server CPU time per request over the prototype's (the req/s ratio each would reach on a core of its own)")
    for (const [name, path] of scenarios) {
      const best = new Map<string, Figures>()
      for (let round = 0; round < rounds; round++) {
        for (const c of contenders) {
          const f = await load(`${c.url}${path}`, c.pid, lite.token)
          const before = best.get(c.label)
          // The best of the rounds: the most req/s, and the least CPU per request.
          best.set(c.label, !before ? f : { ...(f.rps > before.rps ? f : before), cpuMs: Math.min(f.cpuMs, before.cpuMs) })
        }
      }
      console.log(`  ${name}`)
      const base = best.get(contenders[0]!.label)!
      for (const c of contenders) {
        const f = best.get(c.label)!
        console.log(
          line(c.label, f, c === contenders[0] ? "" : `${(f.rps / base.rps).toFixed(2)}× canopy's req/s, ${(base.cpuMs / f.cpuMs).toFixed(2)}× by CPU`)
        )
      }
    }
  } finally {
    for (const c of children) c.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 300))
    rmSync(dir, { recursive: true, force: true })
  }
}
