/**
 * HTTP benchmark (loopback only, stops by itself): Canopy's server with full authentication and
 * rate limiting, against the floor — a bare node:http + better-sqlite3 server doing the same
 * lookups (token, rate limit and usage count, then the endpoint's rows) — on copies of one SQLite
 * database, measured in the same run with autocannon. A floor's create does what Canopy's must
 * (`servers/floorCreate.ts`: the boundary checked and measured with core's pure functions, its
 * neighbours found and measured, the project, its version and events written in one transaction);
 * "rows only" floors write and answer the same rows without validating or measuring the boundary,
 * and "no geometry" floors parse the body and insert a row, as references. A second reference, the
 * bare floor, does the endpoint's lookups only. On PostgreSQL the floor is a bare node:http + `pg` server doing the same
 * lookups (`servers/floorPg.ts`), by one and by two processes like Canopy. The last scenario
 * sends the same creates from 8 accounts in turn, to Canopy alone: what a second server adds when
 * writes do not all wait for one account's lock. Every contender runs
 * `BENCH_ROUNDS` rounds (default 2) taken in turns. `BENCH_POSTGRES=0` leaves PostgreSQL out,
 * `BENCH_SQLITE=0` SQLite.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { createCanopy, type StorageProvider } from "@canopy/core"
import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"
import { startPgBouncer } from "../packages/adapter-postgres/test/pgbouncer.ts"

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 16

/** Sites of the seeded projects: a 20 × 10 grid, 0.02° apart (each boundary 0.008° across). */
const SITES = 200
/** A boundary of `vertices` positions around site `site`: the same circle whatever the count. */
const polygon = (vertices: number, site = 0) => {
  const cx = -60 + 0.02 * (site % 20), cy = -3 + 0.02 * Math.floor(site / 20)
  const ring: Array<[number, number]> = []
  for (let i = 0; i < vertices; i++) {
    const a = (-2 * Math.PI * i) / vertices
    ring.push([cx + 0.004 * Math.cos(a), cy + 0.004 * Math.sin(a)])
  }
  ring.reverse()
  ring.push(ring[0]!)
  return { type: "Polygon", coordinates: [ring] }
}

/** Starts a benchmark server in a child process; resolves with the port it prints. */
export const start = (script: string, args: Array<string>, env: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=source", "--disable-warning=ExperimentalWarning", join(import.meta.dirname, "servers", script),
      ...args], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...env }
    })
    child.stdout!.once("data", (d: Buffer) => resolve({ child, port: Number(d.toString().trim()) }))
    child.on("exit", (code) => reject(new Error(`${script} exited ${code}`)))
  })

interface Figures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
  readonly incomplete: number
}

/** What one load sends: a method, a bearer token (or, `tokens`, one after the other by request), a body by request number. */
interface Sending {
  readonly method?: "GET" | "POST"
  readonly token?: string
  readonly tokens?: ReadonlyArray<string>
  readonly body?: (i: number) => string
}

const load = async (url: string, opts: Sending & { connections?: number }): Promise<Figures> => {
  let i = 0, incomplete = 0
  const result = await autocannon({
    url,
    connections: opts.connections ?? CONNECTIONS,
    duration: DURATION_S,
    method: opts.method ?? "GET",
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), "content-type": "application/json" },
    ...(opts.body ? {
      requests: [{
        setupRequest: (req: autocannon.Request) => {
          const n = ++i
          const headers = opts.tokens ? { ...req.headers, authorization: `Bearer ${opts.tokens[n % opts.tokens.length]}` } : req.headers
          return { ...req, headers, body: opts.body!(n) }
        },
        // A create's overlap report must be complete: one that is not is counted and shown.
        onResponse: (_status: number, body: string) => {
          if (body.includes("\"complete\":false")) incomplete++
        }
      }]
    } : {})
  })
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx, incomplete }
}

/** Accounts the many-accounts POST scenario writes from, one after the other by request. */
const ACCOUNTS = 8

/** The seed of a store: the first account's key, id and a project of it; with `accounts`, every account's key. */
interface Seed {
  readonly token: string
  readonly accountId: string
  readonly projectId: string
  readonly tokens: ReadonlyArray<string>
}

/**
 * Seeds a store with `accounts` accounts (1 unless told), each with a 64-vertex project at each of
 * the 200 sites; answers the first's key, id and a project id, and every account's key.
 */
const seed = async (storage: StorageProvider, accounts = 1): Promise<Seed> => {
  const canopy = await createCanopy({ storage, settings: { plans: { free: big, pro: big, enterprise: big } } })
  const seeded: Array<{ token: string; accountId: string; projectId: string }> = []
  for (let a = 0; a < accounts; a++) {
    const { account, api_key } = await canopy.bootstrap({ account_name: `Bench ${a}`, email: `bench${a}@example.com`, plan: "enterprise" })
    const principal = await canopy.authenticate(api_key.token)
    let projectId = ""
    for (let i = 0; i < SITES; i++) projectId = (await canopy.projects.create(principal, { name: `Seed ${i}`, geometry: polygon(64, i) })).id
    seeded.push({ token: api_key.token, accountId: account.id, projectId })
  }
  await canopy.close()
  return { ...seeded[0]!, tokens: seeded.map((s) => s.token) }
}

/** Runs one scenario against several servers at once (connections split), summing req/s. */
const loadAll = async (urls: ReadonlyArray<string>, path: string, opts: Sending): Promise<Figures> => {
  const parts = await Promise.all(urls.map((u, k) =>
    load(`${u}${path}`, {
      ...opts,
      ...(opts.body ? { body: (i: number) => opts.body!(k * 10_000_000 + i) } : {}),
      connections: Math.max(1, Math.floor(CONNECTIONS / urls.length))
    })
  ))
  return {
    rps: parts.reduce((a, p) => a + p.rps, 0),
    p50: Math.max(...parts.map((p) => p.p50)),
    p99: Math.max(...parts.map((p) => p.p99)),
    errors: parts.reduce((a, p) => a + p.errors, 0),
    non2xx: parts.reduce((a, p) => a + p.non2xx, 0),
    incomplete: parts.reduce((a, p) => a + p.incomplete, 0)
  }
}

/** One contender of a scenario: a label, its servers, its seed, and the row whose req/s its ratio is to. */
interface Contender {
  readonly label: string
  readonly urls: ReadonlyArray<string>
  readonly seed: Seed
  readonly base?: string
  /** More references its ratio is also shown to. */
  readonly also?: ReadonlyArray<string>
  /** The same store's row with one server: what the second server adds. */
  readonly scaleOf?: string
  readonly auth?: boolean
  /** The scenarios it runs, when not all (`get`, `list`, `post`; `accounts` only where listed). */
  readonly routes?: ReadonlyArray<string>
}

/** The scenarios every contender runs unless it lists its own. */
const ROUTES = ["get", "list", "post"]

/** The scenarios a contender runs. */
const runs = (c: Contender, key: string) => (c.routes ?? ROUTES).includes(key)

const line = (label: string, f: Figures, ratio: string) =>
  `    ${label.padEnd(36)} ${f.rps.toFixed(0).padStart(7)} req/s  p50/p99 ${f.p50}/${f.p99} ms  ${ratio}${
    f.errors + f.non2xx ? `  (${f.errors + f.non2xx} errors/non-2xx!)` : ""
  }${f.incomplete ? `  (${f.incomplete} incomplete overlap reports!)` : ""}`

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-bench-"))
  const withPostgres = process.env.BENCH_POSTGRES !== "0"
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2))
  const postgres = withPostgres ? await startEmbeddedPostgres() : undefined
  const children: Array<ChildProcess> = []
  let bouncer: Awaited<ReturnType<typeof startPgBouncer>> | undefined
  try {
    // SQLite: one seeded file, copied for Canopy and for the floor.
    const seedFile = join(dir, "seed.db")
    const lite = await seed(sqliteStorage({ filename: seedFile }), ACCOUNTS)
    copyFileSync(seedFile, join(dir, "canopy.db"))
    copyFileSync(seedFile, join(dir, "floor.db"))
    copyFileSync(seedFile, join(dir, "bare.db"))
    copyFileSync(seedFile, join(dir, "lookups.db"))
    copyFileSync(seedFile, join(dir, "rows.db"))

    // Each create's 1,000-vertex boundary nearly coincides with one site's seeded 64-vertex one (a
    // re-survey), site after site: it is measured against that neighbour, and its copies at the
    // site (earlier posts) are found by key; its overlap report lists them all, and stays complete.
    const bodies1000 = Array.from({ length: SITES }, (_, site) => JSON.stringify(polygon(1000, site)))
    const post = (prefix: string) => (i: number) => `{"name":${JSON.stringify(`${prefix} ${i}`)},"geometry":${bodies1000[i % SITES]}}`
    const spawnServer = async (script: string, args: Array<string>, env: Record<string, string> = {}) => {
      const s = await start(script, args, env)
      children.push(s.child)
      return `http://127.0.0.1:${s.port}`
    }
    const contenders: Array<Contender> = process.env.BENCH_SQLITE === "0" ? [] : [
      { label: "bare floor", urls: [await spawnServer("floor.ts", [join(dir, "bare.db"), lite.accountId], { FLOOR_AUTH: "0" })], seed: lite, auth: false },
      { label: "floor", urls: [await spawnServer("floor.ts", [join(dir, "floor.db"), lite.accountId])], seed: lite, base: "bare floor" },
      { label: "floor, rows only", urls: [await spawnServer("floor.ts", [join(dir, "rows.db"), lite.accountId], { FLOOR_GEOMETRY: "rows" })], seed: lite,
        routes: ["post"] },
      { label: "floor, no geometry", urls: [await spawnServer("floor.ts", [join(dir, "lookups.db"), lite.accountId], { FLOOR_GEOMETRY: "0" })], seed: lite,
        routes: ["post"] },
      { label: "canopy, SQLite", urls: [await spawnServer("canopy.ts", [join(dir, "canopy.db")], { BENCH_DISPATCHER: "0" })], seed: lite, base: "floor",
        also: ["floor, rows only", "floor, no geometry"], routes: [...ROUTES, "accounts"] }
    ]
    if (postgres) {
      // PostgreSQL: one database per contender, seeded the same way; Canopy by one and by two
      // processes, the floor (bare node:http + pg) by one and by two.
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      const database = async (name: string, accounts = 1) => {
        await admin.query(`create database ${name}`)
        const url = postgres.url.replace(/\/postgres$/, `/${name}`)
        return { url, seed: await seed(postgresStorage({ url }), accounts) }
      }
      const floorDb = await database("floor_bench")
      const canopyDb = await database("canopy_bench", ACCOUNTS)
      await admin.end()
      const floorPg = [await spawnServer("floorPg.ts", [floorDb.url]), await spawnServer("floorPg.ts", [floorDb.url])]
      const floorPgRows = await spawnServer("floorPg.ts", [floorDb.url], { FLOOR_GEOMETRY: "rows" })
      const floorPgLookups = await spawnServer("floorPg.ts", [floorDb.url], { FLOOR_GEOMETRY: "0" })
      const onPg = [await spawnServer("canopy.ts", [canopyDb.url], { BENCH_DISPATCHER: "0" }),
        await spawnServer("canopy.ts", [canopyDb.url], { BENCH_DISPATCHER: "0" })]
      contenders.push(
        { label: "floor, PostgreSQL, 1 server", urls: floorPg.slice(0, 1), seed: floorDb.seed },
        { label: "floor, PostgreSQL, rows only", urls: [floorPgRows], seed: floorDb.seed, routes: ["post"] },
        { label: "floor, PostgreSQL, no geometry", urls: [floorPgLookups], seed: floorDb.seed, routes: ["post"] },
        { label: "canopy, PostgreSQL, 1 server", urls: onPg.slice(0, 1), seed: canopyDb.seed, base: "floor, PostgreSQL, 1 server",
          also: ["floor, PostgreSQL, rows only", "floor, PostgreSQL, no geometry"], routes: [...ROUTES, "accounts"] },
        { label: "floor, PostgreSQL, 2 servers", urls: floorPg, seed: floorDb.seed },
        { label: "canopy, PostgreSQL, 2 servers", urls: onPg, seed: canopyDb.seed, base: "floor, PostgreSQL, 2 servers",
          scaleOf: "canopy, PostgreSQL, 1 server", routes: [...ROUTES, "accounts"] }
      )
      // Two more Canopy processes on the same database through PgBouncer in transaction mode,
      // with the settings docs/operating.md gives (when pgbouncer is installed).
      bouncer = await startPgBouncer(postgres.url, { poolSize: 20 }).catch((e: unknown) =>
        void console.log(`  (no PgBouncer row: ${String(e).split("\n")[0]})`)
      )
      if (bouncer) {
        const env = { BENCH_DISPATCHER: "0", CANOPY_PG_PREPARED_STATEMENTS: "off" }
        const viaBouncer = [await spawnServer("canopy.ts", [bouncer.url("canopy_bench")], env),
          await spawnServer("canopy.ts", [bouncer.url("canopy_bench")], env)]
        const floorEnv = { FLOOR_PREPARED: "0" }
        const floorViaBouncer = [await spawnServer("floorPg.ts", [bouncer.url("floor_bench")], floorEnv),
          await spawnServer("floorPg.ts", [bouncer.url("floor_bench")], floorEnv)]
        contenders.push(
          { label: "floor, PgBouncer, 2 servers", urls: floorViaBouncer, seed: floorDb.seed },
          { label: "canopy, PgBouncer, 2 servers", urls: viaBouncer, seed: canopyDb.seed, base: "floor, PgBouncer, 2 servers", routes: [...ROUTES, "accounts"] }
        )
      }
    }
    console.log(`http: ${CONNECTIONS} connections, ${DURATION_S} s each, loopback; ${rounds} rounds taken in turns, the best of each shown`)
    console.log("  floor = bare node:http + better-sqlite3 doing the same lookups (token, rate limit, usage count, rows); ratios are to it")
    console.log("  bare floor = the same server doing the endpoint's rows only (no auth, no rate limit, no usage count)")
    console.log("  a floor's create also checks and measures the boundary and its neighbours with @canopy/core's pure functions and writes")
    console.log("  the project, its version and events in one transaction (servers/floorCreate.ts); \"rows only\" = the same rows and answer,")
    console.log("  the boundary neither validated nor measured; \"no geometry\" = parse the body, insert a row")
    if (postgres)
      console.log("  floor, PostgreSQL = bare node:http + pg (pool of 10, prepared statements): token, one metering statement, rows; through PgBouncer unnamed")
    const scenarios: Array<[string, (s: { token: string; projectId: string }) => string, "GET" | "POST", string]> = [
      ["GET /v1/projects/{id}", (s) => `/v1/projects/${s.projectId}`, "GET", "get"],
      ["GET /v1/projects?per_page=20", () => "/v1/projects?per_page=20", "GET", "list"],
      ["POST /v1/projects (1,000-vertex polygon)", () => "/v1/projects", "POST", "post"],
      // The same creates from 8 accounts in turn (each its own seeded sites): an account's writes
      // take its lock one at a time on PostgreSQL, other accounts' do not wait for them.
      [`POST /v1/projects (1,000-vertex polygon), from ${ACCOUNTS} accounts in turn`, () => "/v1/projects", "POST", "accounts"]
    ]
    // BENCH_ROUTES=get,list,post,accounts: a subset of the scenarios, in this order.
    const routes = (process.env.BENCH_ROUTES ?? [...ROUTES, "accounts"].join(",")).split(",")
    for (const [name, path, method, key] of scenarios.filter((s) => routes.includes(s[3]))) {
      const best = new Map<string, Figures>()
      // Rounds in turns: a machine busy for a while slows every contender alike.
      for (let round = 0; round < rounds; round++) {
        for (const c of contenders.filter((c) => runs(c, key))) {
          const f = await loadAll(c.urls, path(c.seed), {
            ...(c.auth === false ? {} : key === "accounts" ? { tokens: c.seed.tokens } : { token: c.seed.token }),
            // names (and so slugs) of their own in each scenario and round
            ...(method === "POST" ? { method, body: post(`${c.label.replace(/\W+/g, "-")}-${key}-${round}`) } : {})
          })
          const before = best.get(c.label)
          if (!before || f.rps > before.rps) best.set(c.label, f)
        }
      }
      console.log(`  ${name}`)
      for (const c of contenders.filter((c) => best.has(c.label))) {
        const f = best.get(c.label)!
        const ratios = [c.base, ...(c.also ?? []), c.scaleOf].filter((b) => b !== undefined && best.has(b)).map((b) =>
          `${(f.rps / best.get(b!)!.rps).toFixed(2)}× ${b}`
        )
        console.log(line(c.label, f, ratios.join(", ")))
      }
    }
  } finally {
    for (const c of children) c.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 300))
    await bouncer?.stop()
    await postgres?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }
