/**
 * Soak benchmark (`npm run bench -- soak`; loopback only, stops by itself): a `canopy serve`-like
 * server with its webhook dispatcher, many accounts, and a realistic mix at a fixed offered rate
 * below saturation — lists, searches, gets, creates, boundary replacements, archives and deletes,
 * asset writes and deletes, a few file imports — while every event is delivered to a local receiver.
 *
 * Prints per minute: p50/p99 per route, the server's RSS and heap, database and WAL size, the
 * outbox backlog, the event loop's lag (p99 and max; the client's own max beside it) and, on Linux,
 * the host's CPU left idle and taken by steal (a step in every route at once with less idle is the
 * host's). At the end: every acknowledged write present as acknowledged, every stored event
 * delivered to the receiver exactly once, and the last measured minutes' figures against the first
 * ones (p99 per route, RSS, disk: a ratio above 1.25 is flagged).
 *
 * `SOAK_MINUTES` (default 10), `SOAK_RATE` requests/s offered (default 40), `SOAK_ACCOUNTS`
 * (default 20), `SOAK_ENGINES` (default `sqlite,postgres`), `SOAK_EVENT_RETENTION_MINUTES`
 * (default 5: the server keeps settled events and delivery logs that long and runs its
 * maintenance every minute, so a soak of minutes shows what 30 days of retention does over months),
 * `SOAK_WARMUP_MINUTES` (default: the retention plus one): the same traffic runs that long first,
 * its minutes printed but not compared — a server in production has its retention window full,
 * so "flat" is measured from there, not from an empty database filling it.
 * Creates and deletes are balanced, so the live population stays about constant and so should
 * the disk. The events stored are read every minute, before retention can remove them, so
 * "exactly once" covers all of them.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { Events, type StorageProvider } from "@canopy/core"
import Database from "better-sqlite3"
import type { ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import pg from "pg"
import { Agent, request } from "undici"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"
import { start } from "./http.ts"
import { checkWrites, deliveries, startReceiver } from "./soak/checks.ts"
import { type MinuteFigures, hostCpu, parentOf, processCpu, reportFlatness, reportGrowth, reportMinute } from "./soak/report.ts"
import { type Call, type Sample, seed, trafficMix } from "./soak/traffic.ts"

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10)
const RATE = Number(process.env.SOAK_RATE ?? 40)
const ACCOUNTS = Number(process.env.SOAK_ACCOUNTS ?? 20)
const ENGINES = (process.env.SOAK_ENGINES ?? "sqlite,postgres").split(",").map((s) => s.trim())
const MAX_IN_FLIGHT = 64
const EVENT_RETENTION_MS = Number(process.env.SOAK_EVENT_RETENTION_MINUTES ?? 5) * 60_000
const WARMUP = Number(process.env.SOAK_WARMUP_MINUTES ?? Math.round(EVENT_RETENTION_MS / 60_000) + 1)

/** One engine's soak. */
const soak = async (engine: string, storage: StorageProvider, where: string, sizes: () => Promise<{ db: number; wal: number }>,
  storedEvents: (since: string) => Promise<Array<string>>,
  engineSide: { tableSizes?: () => Promise<Map<string, number>>; postmasterPid?: number | undefined } = {}) => {
  const { tableSizes, postmasterPid } = engineSide
  const receiver = await startReceiver()
  const accounts = await seed(storage, ACCOUNTS)
  const server = await start("canopy.ts", [where], { BENCH_EVENT_RETENTION_MS: String(EVENT_RETENTION_MS), BENCH_MAINTENANCE_MS: "60000" })
  const child: ChildProcess = server.child
  const base = `http://127.0.0.1:${server.port}`
  const agent = new Agent({ connections: MAX_IN_FLIGHT, keepAliveTimeout: 30_000 })
  const call: Call = async (method, path, token, body, contentType = "application/json") => {
    const res = await request(`${base}${path}`, {
      method,
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": contentType }) },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
    })
    const text = await res.body.text()
    return { status: res.statusCode, json: text ? JSON.parse(text) as { data?: { id?: string } } : undefined }
  }
  const since = new Date().toISOString()
  let firstTables: Map<string, number> | undefined
  // Every event stored since the start, read each minute (retention removes them after minutes).
  const storedIds = new Set<string>()
  let collecting = Promise.resolve()
  const collectEvents = () => (collecting = collecting.then(async () => {
    for (const id of await storedEvents(since)) storedIds.add(id)
  }))
  for (const a of accounts) {
    const r = await call("POST", "/v1/webhooks", a.token, { url: receiver.url, events: Events.types })
    if (r.status !== 201) throw new Error(`webhook create answered ${r.status}`)
  }

  const samples: Array<Array<Sample>> = []
  let minute: Array<Sample> = []
  let inFlight = 0, issued = 0, skipped = 0, failures = 0
  const { one, unexpected } = trafficMix(accounts, call)

  // The GC histogram is cumulative: each minute reports what it added.
  let gcBefore = { seconds: 0, pauses: 0, upTo10ms: 0 }
  const scrape = async () => {
    const text = await (await request(`${base}/metrics`, { dispatcher: agent })).body.text()
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN)
    // Summed over the kinds of collection (minor, major, incremental, weak callbacks).
    const total = (series: RegExp) => [...text.matchAll(series)].reduce((n, m) => n + Number(m[1]), 0)
    const gcNow = {
      seconds: total(/^canopy_nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm),
      pauses: total(/^canopy_nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm),
      upTo10ms: total(/^canopy_nodejs_gc_duration_seconds_bucket\{le="0\.01",[^}]*\} (\S+)$/gm)
    }
    const gc = { ms: (gcNow.seconds - gcBefore.seconds) * 1000, over10ms: (gcNow.pauses - gcNow.upTo10ms) - (gcBefore.pauses - gcBefore.upTo10ms) }
    gcBefore = gcNow
    return {
      gc,
      rss: value("canopy_process_resident_memory_bytes"),
      heap: value("canopy_nodejs_heap_size_used_bytes"),
      lagP99: value("canopy_nodejs_eventloop_lag_p99_seconds") * 1000,
      lagMax: value("canopy_nodejs_eventloop_lag_max_seconds") * 1000,
      backlog: value("canopy_outbox_pending_deliveries")
    }
  }
  await scrape() // resets the lag histogram
  // The client's own loop: a stall here delays the answers it times, and is not the server's.
  const clientLag = monitorEventLoopDelay({ resolution: 10 })
  clientLag.enable()
  const perMinute: Array<MinuteFigures> = []
  console.log(
    `soak, ${engine}: ${WARMUP} min of warm-up, then ${MINUTES} min measured, at ${RATE} req/s offered, ${ACCOUNTS} accounts, ${
      accounts.reduce((s, a) => s + a.projects.length, 0)
    } projects seeded`
  )

  const began = performance.now()
  let minuteEnds = began + 60_000
  const hostMinute = hostCpu()
  const cpuMinute = processCpu(child.pid, postmasterPid)
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now()
      const due = Math.floor(((now - began) / 1000) * RATE)
      for (; issued < due; issued++) {
        if (inFlight >= MAX_IN_FLIGHT) {
          skipped++
          continue
        }
        inFlight++
        one().then((s) => {
          if (s) minute.push(s)
        }, () => {
          failures++
        }).finally(() => {
          inFlight--
        })
      }
      if (now >= minuteEnds) {
        minuteEnds += 60_000
        const rows = minute
        minute = []
        samples.push(rows)
        void collectEvents()
        const clientLagMax = clientLag.max / 1e6
        clientLag.reset()
        const host = hostMinute()
        const cpu = cpuMinute()
        void Promise.all([scrape(), sizes()]).then(([m, disk]) => {
          perMinute.push(reportMinute(perMinute.length + 1, rows, m, disk, clientLagMax, perMinute.length < WARMUP, host, cpu))
          if (perMinute.length === WARMUP + 1 && tableSizes)
            void tableSizes().then((t) => {
              firstTables = t
            })
        })
        if (samples.length >= WARMUP + MINUTES) {
          clearInterval(tick)
          resolve()
        }
      }
    }, 5)
  })
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 50))
  while (perMinute.length < WARMUP + MINUTES) await new Promise((r) => setTimeout(r, 50))

  // Drain: the outbox empty and the receiver quiet for two seconds (at most two minutes).
  const drainUntil = Date.now() + 120_000
  while (Date.now() < drainUntil && ((await scrape()).backlog !== 0 || receiver.quietFor() < 2_000)) await new Promise((r) => setTimeout(r, 500))

  // Every acknowledged write, as acknowledged; every stored event of the soak delivered exactly once.
  const { checked, wrong } = await checkWrites(accounts, call, MAX_IN_FLIGHT)
  await collectEvents()
  const stored = [...storedIds]
  const { missing, twice, strangers } = deliveries(stored, receiver.seen)

  console.log(`  end of ${engine}: ${issued} requests offered, ${skipped} not sent (${MAX_IN_FLIGHT} in flight: saturated), ${failures} network failures`)
  console.log(`    unexpected answers: ${unexpected.size === 0 ? "none" : [...unexpected].map(([r, n]) => `${r} ×${n}`).join(", ")}`)
  console.log(`    acknowledged writes checked: ${checked}, not as acknowledged: ${wrong}`)
  console.log(
    `    events stored: ${stored.length}; delivered: ${receiver.seen.size}; missing: ${missing}; delivered twice or more: ${twice}; unknown: ${strangers}`
  )
  // Flatness: the last measured minutes against the first ones (after the warm-up).
  reportFlatness(Math.max(1, Math.min(5, Math.floor(MINUTES / 3))), samples.slice(WARMUP), perMinute.slice(WARMUP))
  // What grew, table by table (and index by index), from the end of the first measured minute to the end.
  if (tableSizes && firstTables) reportGrowth(firstTables, await tableSizes())
  child.kill("SIGTERM")
  await new Promise((r) => child.once("exit", r))
  await agent.close()
  await receiver.close()
}

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-soak-"))
  try {
    if (ENGINES.includes("sqlite")) {
      const file = join(dir, "soak.db")
      const size = (f: string) => (existsSync(f) ? statSync(f).size : 0)
      await soak("SQLite", sqliteStorage({ filename: file }), file, async () => ({ db: size(file), wal: size(`${file}-wal`) }), async (since) => {
        const db = new Database(file, { readonly: true })
        try {
          return (db.prepare("select id from events where created_at >= ?").all(since) as Array<{ id: string }>).map((r) => r.id)
        } finally {
          db.close()
        }
      }, {
        tableSizes: async () => {
          const db = new Database(file, { readonly: true })
          try {
            const rows = db.prepare("select name, sum(pgsize) as bytes from dbstat group by name").all() as Array<{ name: string; bytes: number }>
            return new Map(rows.map((r) => [r.name, r.bytes]))
          } finally {
            db.close()
          }
        }
      })
    }
    if (ENGINES.includes("postgres")) {
      const postgres = await startEmbeddedPostgres()
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      try {
        await admin.query("create database canopy_soak")
        const url = postgres.url.replace(/\/postgres$/, "/canopy_soak")
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        try {
          await soak("PostgreSQL", postgresStorage({ url }), url, async () => {
            const db = Number((await client.query("select pg_database_size(current_database()) as n")).rows[0].n)
            const wal = Number((await admin.query("select coalesce(sum(size), 0) as n from pg_ls_waldir()")).rows[0].n)
            return { db, wal }
          }, async (since) => (await client.query("select id from events where created_at >= $1", [since])).rows.map((r: { id: string }) => r.id), {
            postmasterPid: parentOf(Number((await admin.query("select pg_backend_pid() as pid")).rows[0].pid))
          })
        } finally {
          await client.end()
        }
      } finally {
        await admin.end()
        await postgres.stop()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
