/**
 * Scale benchmark (`npm run bench -- scale`; loopback only, stops by itself, never gates CI):
 * one account with 1,000, then 100,000 and — with `BENCH_SCALE=1m` — 1,000,000 projects; each
 * endpoint of the scale table measured over real HTTP against the packaged server
 * (bench/servers/canopy.ts: `serve()` with full authentication, rate limiting and usage
 * counting), as the p50 of sequential single requests (in four rounds taken in turns with the
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
import { sqliteStorage } from "@canopy/adapter-sqlite"
import Database from "better-sqlite3"
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"
import { type CursorPlan, type DbRow, midCursor } from "./scale/cursor.ts"
import { Geometry } from "@canopy/core"
import { projectGeometry, SEARCH_TERM, thousandVertexPolygon } from "./scale/data.ts"
import { call, idle, type Load, load, mergeRefusals, mergeSingles, quantile, type Refusals, type Single, single } from "./scale/measure.ts"
import { type Base, extendPostgres, extendSqlite, seedBase } from "./scale/seed.ts"
import { starLag } from "./scale/star.ts"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const CONNECTIONS = 10
const STAR_TIMEOUT_S = Number(process.env.BENCH_STAR_TIMEOUT ?? 60)
const BASE_SIZE = 1_000

const fmt = (x: number, digits = 0) => x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
const ratio = (r: number) => `${r >= 100 ? fmt(r) : r >= 1 || r === 0 ? r.toFixed(2) : r.toPrecision(2)}×`
const ms = (x: number) => (x >= 100 ? fmt(x) : x >= 10 ? fmt(x, 1) : fmt(x, 2))
const say = (line: string) => console.log(line)
const progress = (what: string) => (line: string) => say(`    ${what}: ${line}`)

// ── servers ──────────────────────────────────────────────────────────────────────────────────

const live = new Set<ChildProcess>()

/** Starts bench/servers/canopy.ts on a SQLite file or PostgreSQL URL; resolves with its base URL. */
const startServer = (where: string): Promise<{ url: string; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      "--conditions=source",
      "--disable-warning=ExperimentalWarning",
      join(import.meta.dirname, "servers", "canopy.ts"),
      where
    ], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, BENCH_DISPATCHER: "0" } })
    live.add(child)
    child.once("exit", (code) => {
      live.delete(child)
      reject(new Error(`the server exited (${code}) before it listened`))
    })
    child.stdout!.once("data", (d: Buffer) => resolve({ url: `http://127.0.0.1:${Number(d.toString().trim())}`, child }))
  })

const stopServer = async (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit")
    child.kill(signal)
    const t = setTimeout(() => child.kill("SIGKILL"), 5_000)
    await exited
    clearTimeout(t)
  }
  live.delete(child)
}

// ── what each size's database holds ─────────────────────────────────────────────────────────

interface Facts {
  readonly count: number
  /** Random project ids, for GET by id. */
  readonly ids: ReadonlyArray<string>
  /** Random active projects, for archive ⇄ restore (one sequential, one per connection). */
  readonly active: ReadonlyArray<string>
  /** The row just before offset n/2 in the default order, and the ids that may stand at n/2. */
  readonly prev: DbRow
  readonly firstIds: ReadonlySet<string>
}

const MID = (tie: "asc" | "desc") =>
  `select id, created_at, name, slug, area_hectares, sort_name from projects where account_id = $1 order by created_at desc, id ${tie} limit 2 offset $2`

const sqliteFacts = (file: string, accountId: string): Facts => {
  const db = new Database(file, { readonly: true })
  try {
    const q = (sql: string) => db.prepare(sql.replace(/\$\d/g, "?"))
    const count = (q("select count(*) as n from projects where account_id = $1").get(accountId) as { n: number }).n
    const ids = (q("select id from projects where account_id = $1 order by random() limit 1000").all(accountId) as Array<{ id: string }>).map((r) => r.id)
    const active = (q("select id from projects where account_id = $1 and status = 'active' order by random() limit 11").all(accountId) as Array<{ id: string }>)
      .map((r) => r.id)
    const asc = q(MID("asc")).all(accountId, Math.floor(count / 2) - 1) as Array<DbRow>
    const desc = q(MID("desc")).all(accountId, Math.floor(count / 2) - 1) as Array<DbRow>
    return { count, ids, active, prev: asc[0]!, firstIds: new Set([asc[1]!.id, desc[1]!.id]) }
  } finally {
    db.close()
  }
}

const postgresFacts = async (url: string, accountId: string): Promise<Facts> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const count = Number((await client.query<{ n: string }>("select count(*) as n from projects where account_id = $1", [accountId])).rows[0]!.n)
    const ids = (await client.query<{ id: string }>("select id from projects where account_id = $1 order by random() limit 1000", [accountId])).rows.map((r) =>
      r.id
    )
    const active =
      (await client.query<{ id: string }>("select id from projects where account_id = $1 and status = 'active' order by random() limit 11", [accountId])).rows
        .map((r) => r.id)
    const asc = (await client.query<DbRow>(MID("asc"), [accountId, Math.floor(count / 2) - 1])).rows
    const desc = (await client.query<DbRow>(MID("desc"), [accountId, Math.floor(count / 2) - 1])).rows
    return { count, ids, active, prev: { ...asc[0]!, area_hectares: Number(asc[0]!.area_hectares) }, firstIds: new Set([asc[1]!.id, desc[1]!.id]) }
  } finally {
    await client.end()
  }
}

// ── the endpoints ────────────────────────────────────────────────────────────────────────────

interface Figure {
  readonly single?: Single
  readonly load?: Load
  /** Shown instead of figures (e.g. "refused (400 VALIDATION_ERROR)", "n/a"). */
  readonly instead?: string
  readonly notes: Array<string>
}
type Table = Map<string, Figure>

/** One size's running server. */
interface Target {
  readonly url: string
  readonly token: string
  readonly facts: Facts
  cursor?: CursorPlan
}

let writeCounter = 0
const geometry1000 = JSON.stringify(thousandVertexPolygon(7))
const writeBody = () => `{"name":"Scale write ${++writeCounter}","geometry":${geometry1000}}`

const describeRefusals = (m: Refusals) =>
  [...m].map(([k, { count, message }]) => `${fmt(count)}× ${k}${message ? ` "${message.length > 70 ? `${message.slice(0, 67)}…` : message}"` : ""}`).join(", ")
/** The request limiter's own refusal (http/handler.ts), as opposed to back-pressure or sign-in limits. */
const planLimited = (m: Refusals | undefined) => [...(m?.values() ?? [])].some((r) => /^rate limit exceeded/i.test(r.message))

const merge = (loads: ReadonlyArray<Load>): Load => {
  const sum = (f: (l: Load) => number) => loads.reduce((a, l) => a + f(l), 0)
  return { rps: sum((l) => l.rps), non2xx: sum((l) => l.non2xx), errors: sum((l) => l.errors), refused: mergeRefusals(loads.map((l) => l.refused)) }
}

/**
 * How one endpoint is measured on one size: `prepare` once (a refusal of the first request is
 * shown instead of figures), then `round`s of sequential single requests — taken in turns with the
 * other sizes, so a machine that slows down for a while skews every size alike — then `load`.
 */
interface Endpoint {
  readonly prepare: (t: Target) => Promise<{ readonly instead?: string; readonly notes: Array<string> }>
  readonly round: (t: Target, share: number) => Promise<Single>
  readonly load: (t: Target) => Promise<Load>
}

/** Rounds of single requests per endpoint (each size's samples split between them). */
const ROUNDS = 4

/** A read endpoint: its first answer checked, sequential p50, then req/s. */
const read = (path: (t: Target, i: number) => string | undefined, check?: (t: Target, body: string) => string | undefined): Endpoint => ({
  prepare: async (t) => {
    const notes: Array<string> = []
    const first = path(t, 0)
    if (first === undefined) return { instead: "n/a", notes }
    const a = await call(`${t.url}${first}`, { token: t.token })
    if (a.status >= 400) {
      let code = ""
      try {
        code = ` ${(JSON.parse(a.body) as { error: { code: string } }).error.code}`
      } catch { /* no code */ }
      return { instead: `refused (${a.status}${code})`, notes }
    }
    const extra = check?.(t, a.body)
    if (extra) notes.push(extra)
    return { notes }
  },
  round: (t, share) => single((i) => ({ url: `${t.url}${path(t, i)!}`, token: t.token }), { max: 200 / share, budgetMs: 5_000 / share }),
  load: (t) => load(t.url, { seconds: SECONDS, connections: CONNECTIONS, token: t.token, requests: [{ path: (i) => path(t, i)! }] })
})

/** Checks `meta.total`: exact, or — where the server says it stopped counting — at most the true count. */
const total = (expected: (n: number) => number) => (t: Target, body: string) => {
  const meta = (JSON.parse(body) as { meta?: { total?: number; total_exact?: boolean } }).meta
  const got = meta?.total
  const want = expected(t.facts.count)
  if (meta?.total_exact === false && got !== undefined && got <= want) return `meta.total ≥ ${fmt(got)} (counting capped; true ${fmt(want)})`
  return got === want ? undefined : `meta.total ${got === undefined ? "absent" : fmt(got)}, expected ${fmt(want)}`
}

/** Writes: 1,000-vertex polygons; p50 over up to 100 sequential creates, then writes/s. */
const create: Endpoint = {
  prepare: () => Promise.resolve({ notes: [] }),
  round: (t, share) =>
    single(() => ({ url: `${t.url}/v1/projects`, method: "POST", token: t.token, body: writeBody() }), { max: 100 / share, budgetMs: 10_000 / share,
      warmup: 5 }),
  load: (t) =>
    load(t.url, { seconds: SECONDS, connections: CONNECTIONS, token: t.token, requests: [{ method: "POST", path: () =>
      "/v1/projects", body: () => writeBody() }] })
}

/** Archive ⇄ restore: one project alternating sequentially, then one project per connection. */
const ensureActive = async (t: Target, id: string) => {
  const a = await call(`${t.url}/v1/projects/${id}`, { token: t.token })
  if ((JSON.parse(a.body) as { status?: string }).status === "archived") await call(`${t.url}/v1/projects/${id}/restore`, { method: "POST", token: t.token })
}
const archive: Endpoint = {
  prepare: () => Promise.resolve({ notes: [] }),
  round: async (t, share) => {
    const one = t.facts.active[0]!
    let k = 0
    const s = await single(() => ({ url: `${t.url}/v1/projects/${one}/${k++ % 2 === 0 ? "archive" : "restore"}`, method: "POST", token: t.token }), {
      max: 200 / share,
      budgetMs: 5_000 / share
    })
    await ensureActive(t, one)
    return s
  },
  load: async (t) => {
    const perConnection = t.facts.active.slice(1)
    const loads = await Promise.all(perConnection.slice(0, CONNECTIONS).map((id) =>
      load(t.url, {
        seconds: SECONDS,
        connections: 1,
        token: t.token,
        requests: [{ method: "POST", path: () => `/v1/projects/${id}/archive` }, { method: "POST", path: () => `/v1/projects/${id}/restore` }]
      })
    ))
    await idle(t.url)
    for (const id of perConnection) await ensureActive(t, id)
    return merge(loads)
  }
}

const CURSOR = "cursor page at n/2, per_page=100"

/** A 5°×3° corner of the Amazon region of the generated data (one region in six): ~1% of projects. */
const AMAZON_CORNER = [-70, -12, -65, -9] as const

/**
 * Vector tiles at zooms 4–14 (request i: zoom 4 + i mod 11) over the centre of base project
 * i mod 1,000 — where its replicas stack at every size past 1,000 — so tiles of every density are
 * asked for; and every tile at zooms 4–8 meeting the densest region of the data (the Pacific
 * Northwest: a sixth of the projects on 4° × 7°), where a tile holds thousands. Prepare notes the
 * largest tile and how many of each mode (`X-Tile-Mode`) among the first ones; the table adds
 * each size's p99.
 */
const TILE_ZOOMS = 11
const tileAt = (lon: number, latDeg: number, z: number) => {
  const n = 2 ** z
  const lat = latDeg * Math.PI / 180
  return [Math.floor(((lon + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan(lat) + 1 / Math.cos(lat)) / Math.PI) / 2) * n)] as const
}
const tilePath = (i: number) => {
  const [x0, y0, x1, y1] = Geometry.bbox(projectGeometry(i % BASE_SIZE) as Geometry.Boundary)
  const z = 4 + (i % TILE_ZOOMS)
  const [x, y] = tileAt((x0 + x1) / 2, (y0 + y1) / 2, z)
  return `/v1/tiles/${z}/${x}/${y}.mvt`
}
/** The Pacific Northwest region of bench/scale/data.ts, `[west, south, east, north]`. */
const DENSE_REGION = [-124, 42, -120, 49] as const
const DENSE_TILES = [4, 5, 6, 7, 8].flatMap((z) => {
  const [xw, yn] = tileAt(DENSE_REGION[0], DENSE_REGION[3], z)
  const [xe, ys] = tileAt(DENSE_REGION[2], DENSE_REGION[1], z)
  const out: Array<string> = []
  for (let x = xw; x <= xe; x++) for (let y = yn; y <= ys; y++) out.push(`/v1/tiles/${z}/${x}/${y}.mvt`)
  return out
})
const tileEndpoint = (path: (i: number) => string, first: number): Endpoint => ({
  ...read((_, i) => path(i)),
  prepare: async (t) => {
    let largest = 0
    const modes = new Map<string, number>()
    for (let i = 0; i < first; i++) {
      const a = await call(`${t.url}${path(i)}`, { token: t.token })
      if (a.status !== 200) return { instead: `refused (${a.status})`, notes: [] }
      largest = Math.max(largest, a.bytes)
      const mode = String(a.headers?.["x-tile-mode"])
      modes.set(mode, (modes.get(mode) ?? 0) + 1)
    }
    return { notes: [`largest tile ${fmt(largest / 1024, 1)} KiB`, [...modes].map(([m, k]) => `${k} ${m}`).join(", ")] }
  }
})
const tiles = tileEndpoint(tilePath, 10 * TILE_ZOOMS)
const denseTiles = tileEndpoint((i) => DENSE_TILES[i % DENSE_TILES.length]!, DENSE_TILES.length)
const TILES = "tile z4–14 over stacked projects"
const DENSE = `tile z4–8 over the dense region (${DENSE_TILES.length})`

/** Every endpoint of the table, in order. */
const endpoints: ReadonlyArray<readonly [string, Endpoint]> = [
  ["GET /v1/projects/{id}", read((t, i) => `/v1/projects/${t.facts.ids[i % t.facts.ids.length]}`)],
  ["list page 1 (default sort)", read(() => "/v1/projects", total((n) => n))],
  ["sort=area_hectares&order=desc", read(() => "/v1/projects?sort=area_hectares&order=desc", total((n) => n))],
  [`search=${SEARCH_TERM} (1% of names)`, read(() => `/v1/projects?search=${SEARCH_TERM}`, total((n) => n / 100))],
  // Boxes through the spatial index: a 5°×3° corner of the Amazon region (~1% of projects), and
  // base project 1's own box (its replicas: 0.1% of projects at every size, found by the index).
  ["bbox=Amazon corner (~1%)", read(() => `/v1/projects?bbox=${AMAZON_CORNER.join(",")}`)],
  ["bbox=one project's box (0.1%)", read(() => `/v1/projects?bbox=${Geometry.bbox(projectGeometry(1) as Geometry.Boundary).join(",")}`)],
  ["page at offset n/2, per_page=100", read((t) => `/v1/projects?page=${Math.floor(t.facts.count / 2 / 100) + 1}&per_page=100`)],
  [CURSOR, {
    ...read((t) => (t.cursor!.kind === "none" ? undefined : t.cursor!.path)),
    prepare: async (t) => {
      const plan = t.cursor!
      if (plan.kind === "none") return { instead: "n/a", notes: [plan.note] }
      const f = await read(() => plan.path).prepare(t)
      return { ...f, notes: [...f.notes, plan.kind === "next" ? plan.note : `${plan.how}${plan.verified ? ", position checked" : ", POSITION NOT CONFIRMED"}`] }
    }
  }],
  ["GET /v1/account/usage", read(() => "/v1/account/usage")],
  [TILES, tiles],
  [DENSE, denseTiles],
  ["POST /v1/projects (1,000 vertices)", create],
  ["POST …/archive ⇄ …/restore", archive]
]

/** `BENCH_ENDPOINTS` (a case-insensitive substring of the rows' labels, e.g. `tile`): only those rows, and no stars. */
const ENDPOINTS = process.env.BENCH_ENDPOINTS?.toLowerCase()
const chosen = (label: string) => ENDPOINTS === undefined || label.toLowerCase().includes(ENDPOINTS)

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
  const copy = (from: string, to: string) => {
    for (const suffix of ["-wal", "-shm"]) rmSync(`${to}${suffix}`, { force: true })
    copyFileSync(from, to)
    if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`)
  }
  let t0 = performance.now()
  const base: Base = await seedBase(sqliteStorage({ filename: seedFile }), BASE_SIZE, progress("seeding"))
  say(`  seeded ${fmt(BASE_SIZE)} projects through the library in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  {
    const db = new Database(seedFile)
    db.exec("analyze")
    db.pragma("wal_checkpoint(TRUNCATE)")
    db.close()
  }
  // The stars first, on a copy of the 1,000-project file, while the machine is quiet: right after
  // the 1,000,000-project tables (gigabytes written, copied and deleted) this VM slowed even a fresh
  // server's event loop (its own 10 ms timer: p99 41 ms, where it reads 5–10 ms otherwise).
  copy(seedFile, starFile)
  if (ENDPOINTS === undefined) await starLag(starFile, base.token, { startServer, stopServer, say, fmt, ms, timeoutS: STAR_TIMEOUT_S })
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${starFile}${suffix}`, { force: true })
  if (process.env.BENCH_ONLY === "star") return
  // One file grows; each size is measured on its own copy (so one size's writes stay out of the next).
  let current = BASE_SIZE
  const files: Array<string> = []
  for (const size of sizes) {
    if (size > current) {
      t0 = performance.now()
      const { copied } = extendSqlite(seedFile, base, current, size, progress("replicating"))
      say(`  replicated ${fmt(current)} → ${fmt(size)} projects by SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s` +
        ` (file ${fmt(statSync(seedFile).size / 1024 / 1024)} MiB; copied from the base row: ${copied.join(", ")})`)
      current = size
    }
    const file = join(dir, `run-${size}.db`)
    copy(seedFile, file)
    files.push(file)
  }
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${seedFile}${suffix}`, { force: true })
  const servers = await Promise.all(files.map((f) => startServer(f)))
  try {
    const targets = files.map((f, k): Target => ({ url: servers[k]!.url, token: base.token, facts: sqliteFacts(f, base.accountId) }))
    const tables = await measure(targets)
    tables.forEach((table, k) => printTable(`  SQLite, ${fmt(targets[k]!.facts.count)} projects`, table, k === 0 ? undefined : tables[0]))
  } finally {
    for (const s of servers) await stopServer(s.child)
    for (const f of files) for (const suffix of ["", "-wal", "-shm"]) rmSync(`${f}${suffix}`, { force: true })
  }
}

const runPostgres = async (sizes: ReadonlyArray<number>) => {
  header("PostgreSQL, embedded", sizes)
  const postgres = await startEmbeddedPostgres()
  const admin = new pg.Client({ connectionString: postgres.url })
  const databases: Array<string> = []
  const servers: Array<{ url: string; child: ChildProcess }> = []
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

export const run = async () => {
  const sizes = sizesFor(process.env.BENCH_SCALE)
  const dir = mkdtempSync(join(tmpdir(), "canopy-scale-"))
  const onSignal = () => {
    for (const c of live) c.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
    process.exit(130)
  }
  process.once("SIGINT", onSignal)
  try {
    if (process.env.BENCH_ONLY !== "postgres") await runSqlite(dir, sizes)
    if (process.env.BENCH_POSTGRES === "1" || process.env.BENCH_ONLY === "postgres") await runPostgres(sizes.filter((s) => s <= 100_000))
  } finally {
    process.off("SIGINT", onSignal)
    for (const c of live) await stopServer(c, "SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
}
