/**
 * HTTP benchmark (loopback only, stops by itself): Canopy's server with full authentication and
 * rate limiting, against the floor — a bare node:http + better-sqlite3 server doing the same
 * lookups — on copies of one SQLite database, measured in the same run with autocannon.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { createCanopy } from "@canopy/core"
import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 16

const polygon = (vertices: number) => {
  const ring: Array<[number, number]> = []
  for (let i = 0; i < vertices; i++) {
    const a = (-2 * Math.PI * i) / vertices
    ring.push([-60 + 0.004 * Math.cos(a), -3 + 0.004 * Math.sin(a)])
  }
  ring.reverse()
  ring.push(ring[0]!)
  return { type: "Polygon", coordinates: [ring] }
}

/** Starts a benchmark server in a child process; resolves with the port it prints. */
export const start = (script: string, args: Array<string>, env: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=source", "--disable-warning=ExperimentalWarning", join(import.meta.dirname, "servers", script), ...args], {
      stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env }
    })
    child.stdout!.once("data", (d: Buffer) => resolve({ child, port: Number(d.toString().trim()) }))
    child.on("exit", (code) => reject(new Error(`${script} exited ${code}`)))
  })

interface Figures { readonly rps: number; readonly p50: number; readonly p99: number; readonly errors: number; readonly non2xx: number }

const load = async (url: string, opts: { method?: "GET" | "POST"; token?: string; body?: (i: number) => string }): Promise<Figures> => {
  let i = 0
  const result = await autocannon({
    url, connections: CONNECTIONS, duration: DURATION_S, method: opts.method ?? "GET",
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), "content-type": "application/json" },
    ...(opts.body ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: opts.body!(++i) }) }] } : {})
  })
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx }
}

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-bench-"))
  try {
    // One database with an account and 200 projects, copied for each server.
    const seed = join(dir, "seed.db")
    const canopy = await createCanopy({ storage: sqliteStorage({ filename: seed }), settings: { plans: { free: big, pro: big, enterprise: big } } })
    const { account, api_key } = await canopy.bootstrap({ account_name: "Bench", email: "bench@example.com", plan: "enterprise" })
    const principal = await canopy.authenticate(api_key.token)
    let projectId = ""
    for (let i = 0; i < 200; i++) projectId = (await canopy.projects.create(principal, { name: `Seed ${i}`, geometry: polygon(64) })).id
    await canopy.close()
    copyFileSync(seed, join(dir, "canopy.db"))
    copyFileSync(seed, join(dir, "floor.db"))

    const body1000 = polygon(1000)
    const post = (prefix: string) => (i: number) => JSON.stringify({ name: `${prefix} ${i}`, geometry: body1000 })
    const canopyServer = await start("canopy.ts", [join(dir, "canopy.db")], { BENCH_DISPATCHER: "0" })
    const floorServer = await start("floor.ts", [join(dir, "floor.db"), account.id])
    const c = `http://127.0.0.1:${canopyServer.port}`
    const f = `http://127.0.0.1:${floorServer.port}`
    const scenarios: Array<[string, () => Promise<Figures>, () => Promise<Figures>]> = [
      ["GET /v1/projects/{id}", () => load(`${c}/v1/projects/${projectId}`, { token: api_key.token }), () => load(`${f}/v1/projects/${projectId}`, {})],
      ["GET /v1/projects?per_page=20", () => load(`${c}/v1/projects?per_page=20`, { token: api_key.token }), () => load(`${f}/v1/projects?per_page=20`, {})],
      ["POST /v1/projects (1,000-vertex polygon)", () => load(`${c}/v1/projects`, { method: "POST", token: api_key.token, body: post("Canopy") }), () => load(`${f}/v1/projects`, { method: "POST", body: post("Floor") })]
    ]
    console.log(`http: ${CONNECTIONS} connections, ${DURATION_S} s each, loopback; floor = bare node:http + better-sqlite3 (no auth, no rate limit)`)
    console.log(`  ${"scenario".padEnd(42)} ${"canopy req/s".padStart(12)} ${"p50/p99 ms".padStart(11)} ${"floor req/s".padStart(12)} ${"p50/p99 ms".padStart(11)}  ratio`)
    for (const [name, ours, floor] of scenarios) {
      const a = await ours()
      const b = await floor()
      const bad = a.errors + a.non2xx + b.errors + b.non2xx
      console.log(`  ${name.padEnd(42)} ${a.rps.toFixed(0).padStart(12)} ${`${a.p50}/${a.p99}`.padStart(11)} ${b.rps.toFixed(0).padStart(12)} ${`${b.p50}/${b.p99}`.padStart(11)}  ${(a.rps / b.rps).toFixed(2)}×${bad ? `  (${bad} errors/non-2xx!)` : ""}`)
    }
    canopyServer.child.kill("SIGTERM")
    floorServer.child.kill("SIGTERM")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }
