/**
 * Scale benchmark (`npm run bench -- scale`; loopback only, stops by itself, never gates CI):
 * one account with 1,000, then 100,000 and — with `BENCH_SCALE=1m` — 1,000,000 projects; each
 * endpoint of the scale table (bench/scale/endpoints.ts) measured over real HTTP against the
 * packaged server (bench/servers/canopy.ts: `serve()` with full authentication, rate limiting and
 * usage counting), as the p50 of sequential single requests (in four rounds taken in turns with the
 * other sizes) and as req/s (autocannon, 10 connections,
 * `BENCH_SECONDS`, default 3), each printed with its ratio to the 1,000-project figure of the same
 * run. Then the event-loop lag: GET /health every 10 ms while hostile star polygons of 24,000 and
 * 100,000 positions are posted. `BENCH_POSTGRES=1` repeats the tables at 1,000 and 100,000 on an
 * embedded PostgreSQL (`BENCH_ONLY=postgres`: those alone, without SQLite's tables and stars);
 * `BENCH_ONLY=star`: only the stars. `BENCH_STAR_TIMEOUT` (seconds, default 60) bounds the wait for a star;
 * `BENCH_SCALE=1k` stops at 1,000 projects (a quick check of the benchmark itself);
 * `BENCH_ENDPOINTS=<text>`: only the rows whose label holds it (e.g. `tile`), without the stars.
 *
 * How the data is made (bench/scale/data.ts, bench/scale/seed.ts):
 * 1. Base set, through the library: `createCanopy` + `canopy.bootstrap` (an account on the
 *    `enterprise` plan with its owner and admin key), then 1,000 `canopy.projects.create` calls
 *    (drafts created as drafts, archived ones archived through `canopy.projects.archive`) — so
 *    every base row, event and total is what the product itself writes. Boundaries: 96% small
 *    polygons (4–20 vertices, ~2–400 ha), 4% traced boundaries (100–1,000 vertices, up to
 *    ~20,000 ha) in six forest regions; descriptions on ~40%; ~85% active, 10% archived, 5% draft.
 * 2. Replicas, by SQL: project n (n ≥ 1,000) is a copy of base row n mod 1,000, written by a
 *    plain INSERT on the real `projects` table — SQLite: better-sqlite3, one prepared
 *    `INSERT INTO projects (…) VALUES (…)` per row, binding the base row's own values as read
 *    from the file (an `INSERT … SELECT … WHERE id = <base>` does the same at twice the cost);
 *    PostgreSQL: `pg`, `INSERT INTO projects (…) SELECT … FROM unnest(<arrays>) JOIN projects
 *    <base rows>`, 10,000 rows a statement — 50,000 rows a transaction. A replica gets a new id,
 *    slug, name, description, status, sort/search text and a creation time one minute older than
 *    the one before; every other column (geometry, area_hectares, bbox, account, creator, and any
 *    column a later migration adds) is the base row's, so areas and boxes stay exact. Only the
 *    `projects` table is written, so the schema's own triggers (running totals, full-text
 *    indexes) maintain what they maintain. Replicas have no events. ANALYZE after each growth.
 * 3. Names: "<Qualifier> <Tree> <Feature> <Kind> Lot <n>"; the made-up word "quillwort" replaces
 *    the tree exactly when n mod 100 = 37, so a search for it matches exactly 1% of any size
 *    (descriptions never contain it).
 * One SQLite file grows 1k → 100k → 1M; each size is served from its own copy (so the writes of
 * one size do not leak into another) by its own server process (PostgreSQL: `CREATE DATABASE …
 * TEMPLATE`). All sizes' servers run at once and each endpoint is measured at every size in turn
 * before the next endpoint, so a ratio compares figures taken close together even on a busy
 * machine.
 *
 * Rate limits: the account is on `enterprise`, whose default limit (1,000 requests a minute,
 * packages/core/src/Plans.ts) the load would exceed within a second, so the benchmark server runs
 * with every plan's limits raised (as bench/http.ts does); the limiter still runs on every request.
 * Any 429 is reported next to its figure.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { statSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"
import { midCursor } from "./scale/cursor.ts"
import { SEARCH_TERM } from "./scale/data.ts"
import { BASE_SIZE, chosen, CONNECTIONS, DENSE, ENDPOINTS, endpoints, ROUNDS, SECONDS, type Table, type Target, TILES } from "./scale/endpoints.ts"
import { postgresFacts, sqliteFacts } from "./scale/facts.ts"
import { fmt, ms, say } from "./scale/format.ts"
import { idle, mergeSingles, quantile, type Refusals, type Single } from "./scale/measure.ts"
import { extendPostgres, seedBase } from "./scale/seed.ts"
import { inScratchDir, type Server, startServer, stopServer } from "./scale/servers.ts"
import { copySqlite, growSqlite, removeSqlite, seedSqlite } from "./scale/sqliteFiles.ts"
import { starLag } from "./scale/star.ts"

const STAR_TIMEOUT_S = Number(process.env.BENCH_STAR_TIMEOUT ?? 60)

const ratio = (r: number) => `${r >= 100 ? fmt(r) : r >= 1 || r === 0 ? r.toFixed(2) : r.toPrecision(2)}×`
const progress = (what: string) => (line: string) => say(`    ${what}: ${line}`)

// ── measuring and printing ───────────────────────────────────────────────────────────────────

const describeRefusals = (m: Refusals) =>
  [...m].map(([k, { count, message }]) => `${fmt(count)}× ${k}${message ? ` "${message.length > 70 ? `${message.slice(0, 67)}…` : message}"` : ""}`).join(", ")
/** The request limiter's own refusal (http/handler.ts), as opposed to back-pressure or sign-in limits. */
const planLimited = (m: Refusals | undefined) => [...(m?.values() ?? [])].some((r) => /^rate limit exceeded/i.test(r.message))

/**
 * Measures every endpoint on every size's server: its single requests in `ROUNDS` rounds taken in
 * turns across the sizes (the order reversed every other round), so a machine busy for a while
 * skews every size alike; then each size's req/s.
 */
const measure = async (targets: ReadonlyArray<Target>): Promise<Array<Table>> => {
  const tables = targets.map((): Table => new Map())
  for (const t of targets) {
    await idle(t.url)
    t.cursor = await midCursor(t.url, t.token, t.facts.prev, t.facts.firstIds)
  }
  for (const [label, endpoint] of endpoints.filter(([label]) => chosen(label))) {
    const prepared = []
    for (const t of targets) prepared.push(await endpoint.prepare(t))
    const rounds = targets.map((): Array<Single> => [])
    for (let r = 0; r < ROUNDS; r++) {
      // Sizes in turn, the order reversed every other round.
      const order = [...targets.keys()]
      if (r % 2 === 1) order.reverse()
      for (const k of order) {
        if (prepared[k]!.instead !== undefined) continue
        await idle(targets[k]!.url)
        rounds[k]!.push(await endpoint.round(targets[k]!, ROUNDS))
      }
    }
    for (const [k, t] of targets.entries()) {
      const { instead, notes } = prepared[k]!
      if (instead !== undefined) {
        tables[k]!.set(label, { instead, notes })
        continue
      }
      await idle(t.url)
      const l = await endpoint.load(t)
      await idle(t.url)
      tables[k]!.set(label, { single: mergeSingles(rounds[k]!), load: l, notes })
    }
  }
  return tables
}

const printTable = (title: string, table: Table, reference: Table | undefined) => {
  say(title)
  say(`  ${"endpoint".padEnd(38)} ${"p50 ms".padStart(9)} ${"×1k".padStart(8)} ${"req/s".padStart(8)} ${"×1k".padStart(7)}  notes`)
  for (const [label, f] of table) {
    const ref = reference?.get(label)
    if (f.instead) {
      say(`  ${label.padEnd(38)} ${f.instead.padStart(34)}  ${f.notes.join("; ")}`)
      continue
    }
    const notes = [...f.notes]
    if (f.single && f.single.samples < f.single.target) notes.push(`p50 of ${f.single.samples} (slow)`)
    if ((label === TILES || label === DENSE) && f.single) notes.push(`p99 ${ms(quantile(f.single.times, 0.99))} ms`)
    if (f.single?.refused.size) notes.push(`sequential non-2xx: ${describeRefusals(f.single.refused)}`)
    if (f.load && f.load.non2xx + f.load.errors > 0) {
      notes.push(
        `load: ${fmt(f.load.non2xx)} non-2xx${f.load.refused.size ? ` (${describeRefusals(f.load.refused)})` : ""}${
          f.load.errors ? `, ${fmt(f.load.errors)} errors` : ""
        }`
      )
    }
    if (planLimited(f.load?.refused) || planLimited(f.single?.refused)) notes.push("THE PLAN'S RATE LIMIT BIT: figures invalid")
    const p50 = f.single ? ms(f.single.p50) : "—"
    const rps = f.load ? (f.load.rps >= 10 ? fmt(f.load.rps) : fmt(f.load.rps, f.load.rps >= 1 ? 1 : 2)) : "—"
    const p50x = f.single && ref?.single ? ratio(f.single.p50 / ref.single.p50) : reference ? "—" : "base"
    const rpsx = f.load && ref?.load && ref.load.rps > 0 ? ratio(f.load.rps / ref.load.rps) : reference ? "—" : "base"
    say(`  ${label.padEnd(38)} ${p50.padStart(9)} ${p50x.padStart(8)} ${rps.padStart(8)} ${rpsx.padStart(7)}  ${notes.join("; ")}`)
  }
}

// ── the run ──────────────────────────────────────────────────────────────────────────────────

const sizesFor = (scale: string | undefined) => scale === "1m" ? [1_000, 100_000, 1_000_000] : scale === "1k" ? [1_000] : [1_000, 100_000]

const header = (store: string, sizes: ReadonlyArray<number>) => {
  say(`scale (${store}): sizes ${sizes.map((s) => fmt(s)).join(", ")}; p50 of sequential single requests (up to 200 after warm-up, fewer if slow);`)
  say(`  req/s with autocannon, ${CONNECTIONS} connections, ${SECONDS} s; ×1k = figure ÷ the 1,000-project figure of this run`)
  say(`  (p50 ×1k > 1 is slower; req/s ×1k < 1 is slower); search term "${SEARCH_TERM}" is in exactly 1% of names`)
}

const runSqlite = async (dir: string, sizes: ReadonlyArray<number>) => {
  header("SQLite", sizes)
  const seedFile = join(dir, "seed.db")
  const starFile = join(dir, "star.db")
  const t0 = performance.now()
  const base = await seedSqlite(seedFile, BASE_SIZE, progress("seeding"))
  say(`  seeded ${fmt(BASE_SIZE)} projects through the library in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  // The stars first, on a copy of the 1,000-project file, while the machine is quiet: right after
  // the 1,000,000-project tables (gigabytes written, copied and deleted) this VM slowed even a fresh
  // server's event loop (its own 10 ms timer: p99 41 ms, where it reads 5–10 ms otherwise).
  copySqlite(seedFile, starFile)
  if (ENDPOINTS === undefined) await starLag(starFile, base.token, { startServer, stopServer, say, fmt, ms, timeoutS: STAR_TIMEOUT_S })
  removeSqlite(starFile)
  if (process.env.BENCH_ONLY === "star") return
  // One file grows; each size is measured on its own copy (so one size's writes stay out of the next).
  const files = growSqlite(seedFile, base, sizes, dir, progress("replicating"),
    (from, to, seconds, copied) =>
      say(`  replicated ${fmt(from)} → ${fmt(to)} projects by SQL in ${seconds.toFixed(1)} s` +
        ` (file ${fmt(statSync(seedFile).size / 1024 / 1024)} MiB; copied from the base row: ${copied.join(", ")})`))
  const servers = await Promise.all(files.map((f) => startServer(f)))
  try {
    const targets = files.map((f, k): Target => ({ url: servers[k]!.url, token: base.token, facts: sqliteFacts(f, base.accountId) }))
    const tables = await measure(targets)
    tables.forEach((table, k) => printTable(`  SQLite, ${fmt(targets[k]!.facts.count)} projects`, table, k === 0 ? undefined : tables[0]))
  } finally {
    for (const s of servers) await stopServer(s.child)
    for (const f of files) removeSqlite(f)
  }
}

const runPostgres = async (sizes: ReadonlyArray<number>) => {
  header("PostgreSQL, embedded", sizes)
  const postgres = await startEmbeddedPostgres()
  const admin = new pg.Client({ connectionString: postgres.url })
  const databases: Array<string> = []
  const servers: Array<Server> = []
  try {
    await admin.connect()
    const urlOf = (db: string) => postgres.url.replace(/\/postgres$/, `/${db}`)
    await admin.query("create database canopy_scale_seed")
    let t0 = performance.now()
    const base = await seedBase(postgresStorage({ url: urlOf("canopy_scale_seed") }), BASE_SIZE, progress("seeding"))
    say(`  seeded ${fmt(BASE_SIZE)} projects through the library in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    let current = BASE_SIZE
    for (const size of sizes) {
      if (size > current) {
        t0 = performance.now()
        const { copied } = await extendPostgres(urlOf("canopy_scale_seed"), base, current, size, progress("replicating"))
        say(
          `  replicated ${fmt(current)} → ${fmt(size)} projects by SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s (copied from the base row: ${
            copied.join(", ")
          })`
        )
        current = size
      } else if (size === BASE_SIZE) {
        const client = new pg.Client({ connectionString: urlOf("canopy_scale_seed") })
        await client.connect()
        await client.query("analyze")
        await client.end()
      }
      const db = `canopy_scale_${size}`
      await admin.query(`create database ${db} template canopy_scale_seed`)
      databases.push(db)
    }
    const targets: Array<Target> = []
    for (const db of databases) {
      const facts = await postgresFacts(urlOf(db), base.accountId)
      const server = await startServer(urlOf(db))
      servers.push(server)
      targets.push({ url: server.url, token: base.token, facts })
    }
    // BENCH_ONLY=star: just the event-loop lag of hostile stars (after seeding the 1,000 projects).
    const tables = process.env.BENCH_ONLY === "star" ? [] : await measure(targets)
    tables.forEach((table, k) => printTable(`  PostgreSQL, ${fmt(targets[k]!.facts.count)} projects`, table, k === 0 ? undefined : tables[0]))
  } finally {
    for (const s of servers) await stopServer(s.child)
    for (const db of databases) await admin.query(`drop database if exists ${db} with (force)`).catch(() => undefined)
    await admin.end().catch(() => undefined)
    await postgres.stop()
  }
}

export const run = () =>
  inScratchDir("canopy-scale-", async (dir) => {
    const sizes = sizesFor(process.env.BENCH_SCALE)
    if (process.env.BENCH_ONLY !== "postgres") await runSqlite(dir, sizes)
    if (process.env.BENCH_POSTGRES === "1" || process.env.BENCH_ONLY === "postgres") await runPostgres(sizes.filter((s) => s <= 100_000))
  })
