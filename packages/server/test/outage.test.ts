/**
 * A PostgreSQL outage seen through a real server (`serve({ databaseUrl })`) on a PostgreSQL of
 * this file's own: frozen (SIGSTOP of the postmaster and its backends) requests answer 503 with
 * `Retry-After` within the statement timeout and `/ready` answers 503 while `/health` stays 200;
 * SIGCONT brings 200 back. Stopped outright: 503 quickly, `/ready` 503.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readdirSync, readFileSync } from "node:fs"
import { startEmbeddedPostgres } from "../../adapter-postgres/test/embedded.ts"
import { type RunningServer, serve } from "../src/server.ts"

const STATEMENT_TIMEOUT_MS = 3_000

let pg: { url: string; stop: () => Promise<void> }
let server: RunningServer
let apiKey: string
let postmaster: number

/** The postmaster and every process it started (the backends serving pooled connections). */
const pgProcesses = (): Array<number> => {
  const pids = [postmaster]
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      if (ppid === postmaster) pids.push(Number(entry))
    } catch { /* gone */ }
  }
  return pids
}
const signalAll = (signal: NodeJS.Signals) => {
  for (const pid of pgProcesses()) {
    try {
      process.kill(pid, signal)
    } catch { /* gone */ }
  }
}

const get = async (path: string, auth = true) => {
  const started = performance.now()
  const res = await fetch(`${server.url}${path}`, auth ? { headers: { authorization: `Bearer ${apiKey}` } } : {})
  const body = await res.text()
  return { status: res.status, headers: res.headers, body, ms: performance.now() - started }
}

beforeAll(async () => {
  pg = await startEmbeddedPostgres()
  process.env.CANOPY_PG_STATEMENT_TIMEOUT_MS = String(STATEMENT_TIMEOUT_MS)
  // The postmaster's pid: the first line of postmaster.pid in the data directory.
  const { SqlClient } = await import("effect/sql")
  const { Effect } = await import("effect")
  const { clientLayer } = await import("@canopy/adapter-postgres")
  const dataDir = await Effect.runPromise(Effect.scoped(Effect.provide(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ d: string }>`select current_setting('data_directory') as d`),
    clientLayer({ url: pg.url })
  )))
  postmaster = Number(readFileSync(`${dataDir[0]!.d}/postmaster.pid`, "utf8").split("\n")[0])
  server = await serve({ port: 0, host: "127.0.0.1", databaseUrl: pg.url, log: false, dispatcher: false, geometry: false })
  apiKey = (await server.canopy.bootstrap({ account_name: "Outage", email: "outage@example.com", plan: "enterprise" })).api_key.token
}, 120_000)

afterAll(async () => {
  if (postmaster) signalAll("SIGCONT")
  delete process.env.CANOPY_PG_STATEMENT_TIMEOUT_MS
  await server?.close().catch(() => {})
  await pg?.stop()
}, 60_000)

describe("PostgreSQL outage", () => {
  it("frozen: 503 with Retry-After within the timeout, /ready 503, /health 200; SIGCONT → 200", async () => {
    expect((await get("/v1/projects")).status).toBe(200)
    expect((await get("/ready", false)).status).toBe(200)
    signalAll("SIGSTOP")
    try {
      const [list, ready, health] = await Promise.all([get("/v1/projects"), get("/ready", false), get("/health", false)])
      console.log(`frozen PostgreSQL: /v1/projects ${list.status} in ${Math.round(list.ms)} ms, /ready ${ready.status} in ${Math.round(ready.ms)} ms`)
      expect(list.status).toBe(503)
      expect(list.headers.get("retry-after")).toBe("5")
      const body = JSON.parse(list.body) as { error: { code: string; details: unknown[] }; meta: { request_id: string } }
      expect(body.error.code).toBe("INTERNAL_ERROR")
      expect(body.meta.request_id).toBe(list.headers.get("x-request-id"))
      // The first storage operation gives up at the timeout; the answer does not wait for the driver.
      expect(list.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1_500)
      expect(ready.status).toBe(503)
      expect(ready.ms).toBeLessThan(3_000)
      expect(JSON.parse(ready.body).error.code).toBe("INTERNAL_ERROR")
      expect(health.status).toBe(200)
    } finally {
      signalAll("SIGCONT")
    }
    // The pool recovers: fresh connections replace the ones given up on.
    let last = 0
    for (let i = 0; i < 40 && last !== 200; i++) {
      last = (await get("/v1/projects")).status
      if (last !== 200) await new Promise((r) => setTimeout(r, 250))
    }
    expect(last).toBe(200)
    expect((await get("/ready", false)).status).toBe(200)
  }, 90_000)

  it("stopped: 503 quickly, /ready 503", async () => {
    await pg.stop()
    const list = await get("/v1/projects")
    const ready = await get("/ready", false)
    console.log(`stopped PostgreSQL: /v1/projects ${list.status} in ${Math.round(list.ms)} ms, /ready ${ready.status} in ${Math.round(ready.ms)} ms`)
    expect(list.status).toBe(503)
    expect(list.headers.get("retry-after")).toBe("5")
    expect(ready.status).toBe(503)
    expect((await get("/health", false)).status).toBe(200)
  }, 60_000)
})
