/**
 * Soak benchmark (`npm run bench -- soak`; loopback only, stops by itself): a `canopy serve`-like
 * server with its webhook dispatcher, many accounts, and a realistic mix at a fixed offered rate
 * below saturation — lists, searches, gets, creates, boundary replacements, archives and deletes,
 * asset writes and deletes, a few file imports — while every event is delivered to a local receiver.
 *
 * Prints per minute: p50/p99 per route, the server's RSS and heap, database and WAL size, the
 * outbox backlog and the event loop's lag p99. At the end: every acknowledged write present as
 * acknowledged, every stored event delivered to the receiver exactly once, and the last minutes'
 * figures against the first ones (p99 per route, RSS, disk: a ratio above 1.25 is flagged).
 *
 * `SOAK_MINUTES` (default 10), `SOAK_RATE` requests/s offered (default 40), `SOAK_ACCOUNTS`
 * (default 20), `SOAK_ENGINES` (default `sqlite,postgres`), `SOAK_EVENT_RETENTION_MINUTES`
 * (default 5: the server keeps settled events and delivery logs that long and runs its
 * maintenance every minute, so a soak of minutes shows what 30 days of retention does over months).
 * Creates and deletes are balanced, so the live population stays about constant and so should
 * the disk. The events stored are read every minute, before retention can remove them, so
 * "exactly once" covers all of them.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { createCanopy, Events, type StorageProvider } from "@canopy/core"
import Database from "better-sqlite3"
import type { ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { Agent, request } from "undici"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"
import { start } from "./http.ts"

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10)
const RATE = Number(process.env.SOAK_RATE ?? 40)
const ACCOUNTS = Number(process.env.SOAK_ACCOUNTS ?? 20)
const ENGINES = (process.env.SOAK_ENGINES ?? "sqlite,postgres").split(",").map((s) => s.trim())
const SEED_PROJECTS_PER_ACCOUNT = 100
const MAX_IN_FLIGHT = 64
const FLAT = 1.25
const EVENT_RETENTION_MS = Number(process.env.SOAK_EVENT_RETENTION_MINUTES ?? 5) * 60_000

const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }

/** A square of about 80 ha in its own cell of a grid: projects of the soak do not overlap. */
const square = (cell: number, shrink = 0) => {
  const x = -60 + (cell % 2000) * 0.01, y = -10 + Math.floor(cell / 2000) * 0.01, d = 0.008 - shrink
  return { type: "Polygon", coordinates: [[[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]] }
}

interface ProjectState {
  readonly id: string
  status: "active" | "archived" | "deleted"
  cell: number
  busy: boolean
  assets: Array<string>
  removedAssets: Array<string>
}
interface Account {
  readonly token: string
  readonly id: string
  readonly projects: Array<ProjectState>
}

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

/** The receiver: counts each event id it is sent. */
const startReceiver = async () => {
  const seen = new Map<string, number>()
  let last = Date.now()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string }
      seen.set(body.id, (seen.get(body.id) ?? 0) + 1)
      last = Date.now()
      res.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    seen,
    quietFor: () => Date.now() - last,
    close: () => {
      server.closeAllConnections()
      return new Promise((r) => server.close(r))
    }
  }
}

/** Seeds the accounts (each with projects) through the library, before the server starts. */
const seed = async (storage: StorageProvider): Promise<Array<Account>> => {
  const canopy = await createCanopy({ storage, settings: { plans: { free: big, pro: big, enterprise: big } } })
  const accounts: Array<Account> = []
  let cell = 0
  for (let a = 0; a < ACCOUNTS; a++) {
    const { account, api_key } = await canopy.bootstrap({ account_name: `Soak ${a}`, email: `soak${a}@example.com`, plan: "enterprise" })
    const principal = await canopy.authenticate(api_key.token)
    const projects: Array<ProjectState> = []
    for (let i = 0; i < SEED_PROJECTS_PER_ACCOUNT; i++) {
      const c = cell++
      const p = await canopy.projects.create(principal, { name: `Stand ${a}-${i}`, description: `seeded stand ${i}`, geometry: square(c) })
      projects.push({ id: p.id, status: "active", cell: c, busy: false, assets: [], removedAssets: [] })
    }
    accounts.push({ token: api_key.token, id: account.id, projects })
  }
  await canopy.close()
  return accounts
}

interface Sample {
  readonly route: string
  readonly ms: number
  readonly ok: boolean
}

/** One engine's soak. */
const soak = async (engine: string, storage: StorageProvider, where: string, sizes: () => Promise<{ db: number; wal: number }>,
  storedEvents: (since: string) => Promise<Array<string>>, tableSizes?: () => Promise<Map<string, number>>) => {
  const receiver = await startReceiver()
  const accounts = await seed(storage)
  let nextCell = ACCOUNTS * SEED_PROJECTS_PER_ACCOUNT
  const server = await start("canopy.ts", [where], { BENCH_EVENT_RETENTION_MS: String(EVENT_RETENTION_MS), BENCH_MAINTENANCE_MS: "60000" })
  const child: ChildProcess = server.child
  const base = `http://127.0.0.1:${server.port}`
  const agent = new Agent({ connections: MAX_IN_FLIGHT, keepAliveTimeout: 30_000 })
  const call = async (method: "GET" | "POST" | "PUT" | "DELETE", path: string, token: string, body?: unknown, contentType = "application/json") => {
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
  const unexpected = new Map<string, number>()
  const pick = <T>(xs: ReadonlyArray<T>): T | undefined => xs[Math.floor(Math.random() * xs.length)]
  const live = (a: Account, status?: ProjectState["status"]) =>
    pick(a.projects.filter((p) => !p.busy && p.status !== "deleted" && (!status || p.status === status)))

  /** One request of the mix; answers its route and whether it was acknowledged as expected. */
  const one = async (): Promise<Sample | undefined> => {
    const a = pick(accounts)!
    const roll = Math.random() * 100
    const t0 = performance.now()
    const done = (route: string, ok: boolean): Sample => {
      if (!ok) unexpected.set(route, (unexpected.get(route) ?? 0) + 1)
      return { route, ms: performance.now() - t0, ok }
    }
    if (roll < 22) return done("GET /v1/projects", (await call("GET", "/v1/projects?per_page=20", a.token)).status === 200)
    if (roll < 30)
      return done("GET /v1/projects?search", (await call("GET", `/v1/projects?search=stand%20${Math.floor(Math.random() * 90) + 10}`, a.token)).status === 200)
    if (roll < 48) {
      const p = live(a)
      if (!p) return undefined
      return done("GET /v1/projects/{id}", (await call("GET", `/v1/projects/${p.id}`, a.token)).status === 200)
    }
    if (roll < 57 || roll >= 99) {
      const cell = nextCell++
      const isImport = roll >= 99
      const r = isImport
        ? await call("POST", `/v1/projects/import?name=Imported%20${cell}`, a.token,
          JSON.stringify({ type: "Feature", properties: {}, geometry: square(cell) }), "application/geo+json")
        : await call("POST", "/v1/projects", a.token, { name: `New ${cell}`, geometry: square(cell) })
      const ok = r.status === 201 && typeof r.json?.data?.id === "string"
      if (ok) a.projects.push({ id: r.json!.data!.id!, status: "active", cell, busy: false, assets: [], removedAssets: [] })
      return done(isImport ? "POST /v1/projects/import" : "POST /v1/projects", ok)
    }
    if (roll < 64) {
      const p = live(a, "active")
      if (!p) return undefined
      p.busy = true
      const shrink = Math.random() * 0.002
      const r = await call("PUT", `/v1/projects/${p.id}`, a.token, { geometry: square(p.cell, shrink) })
      p.busy = false
      return done("PUT /v1/projects/{id} (boundary)", r.status === 200)
    }
    if (roll < 74) {
      const p = live(a, "active")
      if (!p) return undefined
      p.busy = true
      const r = await call("POST", `/v1/projects/${p.id}/archive`, a.token)
      if (r.status === 200) p.status = "archived"
      p.busy = false
      return done("POST /v1/projects/{id}/archive", r.status === 200)
    }
    if (roll < 84) {
      const p = live(a, "archived")
      if (!p) return undefined
      p.busy = true
      const r = await call("DELETE", `/v1/projects/${p.id}`, a.token)
      const ok = r.status === 200 || r.status === 204
      if (ok) p.status = "deleted"
      p.busy = false
      return done("DELETE /v1/projects/{id}", ok)
    }
    const p = live(a, "active")
    if (!p) return undefined
    if (roll >= 93 && p.assets.length >= 2) { // the oldest asset of a project with a few goes
      const id = p.assets.shift()!
      const r = await call("DELETE", `/v1/projects/${p.id}/assets/${id}`, a.token)
      const ok = r.status === 200 || r.status === 204
      if (ok) p.removedAssets.push(id)
      else p.assets.unshift(id)
      return done("DELETE /v1/projects/{id}/assets/{id}", ok)
    }
    const r = await call("POST", `/v1/projects/${p.id}/assets`, a.token, { name: `Sensor ${p.assets.length}`, type: "monitoring_station",
      location: { type: "Point", coordinates: square(p.cell).coordinates[0]![0] } })
    const ok = r.status === 201 && typeof r.json?.data?.id === "string"
    if (ok) p.assets.push(r.json!.data!.id!)
    return done("POST /v1/projects/{id}/assets", ok)
  }

  const scrape = async () => {
    const text = await (await request(`${base}/metrics`, { dispatcher: agent })).body.text()
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN)
    return {
      rss: value("canopy_process_resident_memory_bytes"),
      heap: value("canopy_nodejs_heap_size_used_bytes"),
      lagP99: value("canopy_nodejs_eventloop_lag_p99_seconds") * 1000,
      backlog: value("canopy_outbox_pending_deliveries")
    }
  }
  await scrape() // resets the lag histogram
  interface MinuteFigures {
    routes: Map<string, { p50: number; p99: number; n: number }>
    rss: number
    heap: number
    lagP99: number
    backlog: number
    db: number
    wal: number
  }
  const perMinute: Array<MinuteFigures> = []
  const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`
  console.log(
    `soak, ${engine}: ${MINUTES} min at ${RATE} req/s offered, ${ACCOUNTS} accounts, ${accounts.reduce((s, a) => s + a.projects.length, 0)} projects seeded`
  )

  const began = performance.now()
  let minuteEnds = began + 60_000
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
        void Promise.all([scrape(), sizes()]).then(([m, disk]) => {
          const routes = new Map<string, { p50: number; p99: number; n: number }>()
          for (const route of new Set(rows.map((r) => r.route))) {
            const ms = rows.filter((r) => r.route === route).map((r) => r.ms)
            routes.set(route, { p50: percentile(ms, 50), p99: percentile(ms, 99), n: ms.length })
          }
          perMinute.push({ routes, ...m, ...disk })
          const k = perMinute.length
          if (k === 1 && tableSizes)
            void tableSizes().then((t) => {
              firstTables = t
            })
          console.log(
            `  minute ${k}: ${rows.length} requests; RSS ${mb(m.rss)}, heap ${mb(m.heap)}, loop lag p99 ${m.lagP99.toFixed(1)} ms, outbox ${m.backlog}, db ${
              mb(disk.db)
            }, wal ${mb(disk.wal)}`
          )
          for (const [route, f] of [...routes].sort())
            console.log(`    ${route.padEnd(34)} n=${String(f.n).padStart(5)}  p50 ${f.p50.toFixed(1).padStart(7)} ms  p99 ${f.p99.toFixed(1).padStart(7)} ms`)
        })
        if (samples.length >= MINUTES) {
          clearInterval(tick)
          resolve()
        }
      }
    }, 5)
  })
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 50))
  while (perMinute.length < MINUTES) await new Promise((r) => setTimeout(r, 50))

  // Drain: the outbox empty and the receiver quiet for two seconds (at most two minutes).
  const drainUntil = Date.now() + 120_000
  while (Date.now() < drainUntil && ((await scrape()).backlog !== 0 || receiver.quietFor() < 2_000)) await new Promise((r) => setTimeout(r, 500))

  // Every acknowledged write, as acknowledged.
  let checked = 0, wrong = 0
  const checks = accounts.flatMap((a) => a.projects.map((p) => ({ a, p })))
  for (let i = 0; i < checks.length; i += MAX_IN_FLIGHT) {
    await Promise.all(checks.slice(i, i + MAX_IN_FLIGHT).map(async ({ a, p }) => {
      const r = await call("GET", `/v1/projects/${p.id}`, a.token)
      const status = (r.json?.data as { status?: string } | undefined)?.status
      const right = p.status === "deleted" ? r.status === 404 : r.status === 200 && status === p.status
      checked++
      if (!right) wrong++
      if (p.status !== "deleted" && p.assets.length + p.removedAssets.length > 0) {
        const kept = await Promise.all(p.assets.map((id) => call("GET", `/v1/projects/${p.id}/assets/${id}`, a.token)))
        const removed = await Promise.all(p.removedAssets.map((id) => call("GET", `/v1/projects/${p.id}/assets/${id}`, a.token)))
        checked += kept.length + removed.length
        wrong += kept.filter((x) => x.status !== 200).length + removed.filter((x) => x.status !== 404).length
      }
    }))
  }
  // Every stored event of the soak delivered exactly once.
  await collectEvents()
  const stored = [...storedIds]
  const storedSet = new Set(stored)
  const missing = stored.filter((id) => !receiver.seen.has(id)).length
  const twice = [...receiver.seen.values()].filter((n) => n > 1).length
  const strangers = [...receiver.seen.keys()].filter((id) => !storedSet.has(id)).length

  // Flatness: the last minutes against the first ones.
  const k = Math.max(1, Math.min(5, Math.floor(MINUTES / 3)))
  const first = samples.slice(0, k).flat(), last = samples.slice(-k).flat()
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((s, x) => s + x, 0) / xs.length
  console.log(`  end of ${engine}: ${issued} requests offered, ${skipped} not sent (${MAX_IN_FLIGHT} in flight: saturated), ${failures} network failures`)
  console.log(`    unexpected answers: ${unexpected.size === 0 ? "none" : [...unexpected].map(([r, n]) => `${r} ×${n}`).join(", ")}`)
  console.log(`    acknowledged writes checked: ${checked}, not as acknowledged: ${wrong}`)
  console.log(
    `    events stored: ${stored.length}; delivered: ${receiver.seen.size}; missing: ${missing}; delivered twice or more: ${twice}; unknown: ${strangers}`
  )
  console.log(`    last ${k} min ÷ first ${k} min (flag above ${FLAT}×):`)
  const flag = (r: number) => (r > FLAT ? "  ← above" : "")
  for (const route of [...new Set(first.map((s) => s.route))].sort()) {
    const a = percentile(first.filter((s) => s.route === route).map((s) => s.ms), 99)
    const b = percentile(last.filter((s) => s.route === route).map((s) => s.ms), 99)
    console.log(`      p99 ${route.padEnd(34)} ${a.toFixed(1).padStart(7)} → ${b.toFixed(1).padStart(7)} ms  ${(b / a).toFixed(2)}×${flag(b / a)}`)
  }
  const firstM = perMinute.slice(0, k), lastM = perMinute.slice(-k)
  for (const [label, f] of [["RSS", (m: MinuteFigures) => m.rss], ["disk (db + wal)", (m: MinuteFigures) => m.db + m.wal]] as const) {
    const a = mean(firstM.map(f)), b = mean(lastM.map(f))
    console.log(`      ${label.padEnd(38)} ${mb(a).padStart(10)} → ${mb(b).padStart(10)}  ${(b / a).toFixed(2)}×${flag(b / a)}`)
  }
  if (tableSizes && firstTables) {
    // What grew, table by table (and index by index), from the end of the first minute to the end.
    const last = await tableSizes()
    const grown = [...last].map(([name, bytes]) => [name, bytes - (firstTables!.get(name) ?? 0)] as const).sort((a, b) => b[1] - a[1]).slice(0, 8)
    console.log(`    grown since minute 1: ${grown.map(([name, d]) => `${name} ${d >= 0 ? "+" : ""}${mb(d)}`).join(", ")}`)
  }
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
      }, async () => {
        const db = new Database(file, { readonly: true })
        try {
          const rows = db.prepare("select name, sum(pgsize) as bytes from dbstat group by name").all() as Array<{ name: string; bytes: number }>
          return new Map(rows.map((r) => [r.name, r.bytes]))
        } finally {
          db.close()
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
          }, async (since) => (await client.query("select id from events where created_at >= $1", [since])).rows.map((r: { id: string }) => r.id))
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
