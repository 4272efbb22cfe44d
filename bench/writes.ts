/**
 * Sustained writes (stops by itself): one process creating small projects one at a time, never
 * pausing, as a bulk import or a busy integration does.
 * - sustained: `BENCH_WRITES_SECONDS` (default 60) of creates through the library into a SQLite
 *   file; per ten-second window the creates/s, CPU ms per create, p99 of a create, the largest
 *   `-wal` file seen and the largest overlap report; the baseline is the first window, and the run
 *   passes when no window falls below it by more than 1.6×;
 * - volume (from an empty file only): `BENCH_WRITES_PROJECTS` (default 100,000; 0 skips it)
 *   creates into a fresh file, the elapsed time and the rate of each tenth;
 * - `BENCH_WRITES_START` (e.g. `1k`, `100k`, `1m`; default: an empty file): the file is first grown
 *   to that many projects as the scale benchmark grows its own (bench/writes/grown.ts: 1,000
 *   through the library, then SQL replicas stacked on those 1,000 positions), the sustained
 *   minute runs on it, and then, on a copy of the grown file served by the packaged server
 *   (bench/servers/canopy.ts), `POST /v1/projects` for `BENCH_WRITES_SECONDS` at
 *   after a 5 s warm-up, closed-loop with `BENCH_WRITES_HTTP_CONNECTIONS` (default 8), then open
 *   loop at `BENCH_WRITES_HTTP_RATE` posts a second (default 100; lowered to 60% of the closed
 *   loop's rate when that is less, so the offered rate stays below saturation); per window p50/p99
 *   and req/s, passing when no window's p99 exceeds the first's by more than 1.6×.
 * Every new project, library or HTTP, is a ~25 ha square on its own cell of a grid south of the
 * seeded regions, so a create meets no stored box: the output says how many boxes its cell meets
 * (the write's overlap candidates) and how many a seeded position meets, for comparison.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { type CanopyClient, createCanopy, type Principal } from "@canopy/core"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { projectGeometry } from "./scale/data.ts"
import { startServer, stopServer } from "./scale/servers.ts"
import { copySqlite, removeSqlite } from "./scale/sqliteFiles.ts"
import { boxesMeeting, grow, parseSize } from "./writes/grown.ts"
import { closedLoop, type HttpWindow, openLoop } from "./writes/http.ts"

const SECONDS = Number(process.env.BENCH_WRITES_SECONDS ?? 60)
const PROJECTS = Number(process.env.BENCH_WRITES_PROJECTS ?? 100_000)
const START = parseSize(process.env.BENCH_WRITES_START ?? "0")
const HTTP_RATE = Number(process.env.BENCH_WRITES_HTTP_RATE ?? 100)
const HTTP_CONNECTIONS = Number(process.env.BENCH_WRITES_HTTP_CONNECTIONS ?? 8)
/** Where the HTTP posts' cells start (rows of 1,000 cells): away from the library's and the seeded regions. */
const HTTP_WARM_FROM = 450_000
const HTTP_CLOSED_FROM = 500_000
const HTTP_OPEN_FROM = 600_000
const WINDOW_MS = 10_000
const MIB = 1024 * 1024
const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }
const WORDS = ["oak", "pine", "birch", "cedar", "alder", "spruce", "larch", "beech", "maple", "ash", "willow", "poplar"]

/** The n-th project: a ~25 ha square on its own cell of a grid (no two overlap), a varied name. */
export const projectInput = (n: number) => {
  const x = -60 + (n % 1_000) * 0.01
  const y = -20 + Math.floor(n / 1_000) * 0.01
  return {
    name: `${WORDS[n % WORDS.length]} stand ${WORDS[(n * 7) % WORDS.length]} ${n}`,
    geometry: { type: "Polygon", coordinates: [[[x, y], [x + 0.005, y], [x + 0.005, y + 0.005], [x, y + 0.005], [x, y]]] }
  }
}

const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0)

/** The library on `filename`; a fresh file gets one account, a grown one is used with its admin key `token`. */
const open = async (filename: string, token?: string) => {
  const canopy = await createCanopy({ storage: sqliteStorage({ filename }), settings: { plans: { free: big, pro: big, enterprise: big } } })
  const key = token ?? (await canopy.bootstrap({ account_name: "Bulk import", email: "import@example.com", plan: "enterprise" })).api_key.token
  return { canopy, principal: await canopy.authenticate(key), filename }
}

type Box = readonly [number, number, number, number]
const boxOf = (
  ring: ReadonlyArray<ReadonlyArray<number>>
): Box => [Math.min(...ring.map((p) => p[0]!)), Math.min(...ring.map((p) => p[1]!)), Math.max(...ring.map((p) => p[0]!)), Math.max(...ring.map((p) => p[1]!))]
const load = () => `load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`

interface Window {
  readonly creates: number
  readonly perSecond: number
  readonly cpuMs: number
  readonly p99: number
  readonly max: number
  readonly walMiB: number
  readonly heapMiB: number
  /** The largest overlap report (its length) among the window's creates. */
  readonly overlapsMax: number
}

/** Creates projects one at a time until `stop` says so; calls `onWindow` at the end of each window. */
const createUntil = async (
  canopy: CanopyClient,
  principal: Principal.Principal,
  filename: string,
  stop: (n: number, elapsedMs: number) => boolean,
  windowEnds: (n: number, windowMs: number) => boolean,
  onWindow: (w: Window, n: number) => void
) => {
  const start = performance.now()
  const cpuAtStart = process.cpuUsage()
  let n = 0
  let windowStart = start
  let windowN = 0
  let cpu = process.cpuUsage()
  let latencies: Array<number> = []
  let wal = 0
  let maxWal = 0
  let overlaps = 0
  const flush = (now: number) => {
    latencies.sort((a, b) => a - b)
    const used = process.cpuUsage(cpu)
    const creates = n - windowN
    onWindow({
      creates,
      perSecond: (creates * 1_000) / (now - windowStart),
      cpuMs: (used.user + used.system) / 1_000 / creates,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      max: latencies.at(-1) ?? 0,
      walMiB: wal / MIB,
      heapMiB: process.memoryUsage().heapUsed / MIB,
      overlapsMax: overlaps
    }, n)
    windowStart = now
    windowN = n
    cpu = process.cpuUsage()
    latencies = []
    wal = 0
    overlaps = 0
  }
  while (!stop(n, performance.now() - start)) {
    const t0 = performance.now()
    const created = await canopy.projects.create(principal, projectInput(n)) as { readonly overlaps?: { readonly overlaps: ReadonlyArray<unknown> } }
    overlaps = Math.max(overlaps, created.overlaps?.overlaps.length ?? 0)
    const now = performance.now()
    latencies.push(now - t0)
    n++
    const size = sizeOf(`${filename}-wal`)
    wal = Math.max(wal, size)
    maxWal = Math.max(maxWal, size)
    if (windowEnds(n, now - windowStart)) flush(now)
  }
  if (n > windowN) flush(performance.now())
  const cpuUsed = process.cpuUsage(cpuAtStart)
  return { n, elapsedMs: performance.now() - start, cpuSeconds: (cpuUsed.user + cpuUsed.system) / 1e6, maxWalMiB: maxWal / MIB }
}

const row = (label: string, w: Window) =>
  `  ${label.padEnd(10)} ${String(w.creates).padStart(7)} ${w.perSecond.toFixed(0).padStart(9)} ${w.cpuMs.toFixed(2).padStart(8)} ${
    w.p99.toFixed(1).padStart(8)
  } ${w.max.toFixed(0).padStart(7)} ${w.walMiB.toFixed(1).padStart(9)} ${w.heapMiB.toFixed(0).padStart(8)} ${String(w.overlapsMax).padStart(8)}`
const HEADER = `  ${"window".padEnd(10)} ${"creates".padStart(7)} ${"creates/s".padStart(9)} ${"cpu ms".padStart(8)} ${"p99 ms".padStart(8)} ${
  "max ms".padStart(7)
} ${"-wal MiB".padStart(9)} ${"heap MiB".padStart(8)} ${"overlaps".padStart(8)}`

const say = (line: string) => console.log(line)

/** The sustained minute on `db` (a fresh file or a grown one); prints its windows and verdict. */
const sustained = async (db: Awaited<ReturnType<typeof open>>) => {
  say(HEADER)
  const windows: Array<Window> = []
  const s = await createUntil(db.canopy, db.principal, db.filename, (_n, ms) => ms >= SECONDS * 1_000, (_n, ms) => ms >= WINDOW_MS, (w) => {
    windows.push(w)
    say(row(`${windows.length * 10 - 10}–${windows.length * 10} s`, w))
  })
  await db.canopy.close()
  const full = windows.filter((w) => w.creates > 0).slice(0, Math.floor((SECONDS * 1_000) / WINDOW_MS))
  const first = full[0]!.perSecond
  const slowest = Math.min(...full.map((w) => w.perSecond))
  say(
    `  ${s.n} creates, largest -wal ${s.maxWalMiB.toFixed(1)} MiB; slowest window ${slowest.toFixed(0)}/s = first ÷ ${
      (first / slowest).toFixed(2)
    } (goal ≤ 1.6), last = first ÷ ${(first / full.at(-1)!.perSecond).toFixed(2)}; CPU ms per create, last ÷ first: ${
      (full.at(-1)!.cpuMs / full[0]!.cpuMs).toFixed(2)
    }; ${load()}`
  )
  return s.n
}

const HTTP_HEADER = `  ${"window".padEnd(10)} ${"answers".padStart(7)} ${"req/s".padStart(7)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${
  "max ms".padStart(8)
} ${"overlaps".padStart(8)}  refused`
const httpRow = (k: number, w: HttpWindow) =>
  `  ${`${k * 10}–${k * 10 + 10} s`.padEnd(10)} ${String(w.answers).padStart(7)} ${w.perSecond.toFixed(0).padStart(7)} ${w.p50.toFixed(1).padStart(8)} ${
    w.p99.toFixed(1).padStart(8)
  } ${w.max.toFixed(0).padStart(8)} ${String(w.overlapsMax).padStart(8)}  ${[...w.refused].map(([status, n]) => `${n}× ${status}`).join(", ") || "—"}`

/** Prints one HTTP load's windows and its verdict (worst and last window's p99 ÷ the first's). */
const printHttp = (windows: ReadonlyArray<HttpWindow>) => {
  say(HTTP_HEADER)
  windows.forEach((w, k) => say(httpRow(k, w)))
  const first = windows[0]!
  const worst = Math.max(...windows.map((w) => w.p99))
  const slowest = Math.min(...windows.map((w) => w.perSecond))
  say(`  p99: worst window = first × ${(worst / first.p99).toFixed(2)} (goal ≤ 1.6), last = first × ${(windows.at(-1)!.p99 / first.p99).toFixed(2)};` +
    ` req/s: slowest = first ÷ ${(first.perSecond / slowest).toFixed(2)}; ${load()}`)
}

/** Grows a file to START projects, then the library's sustained minute on it and the HTTP minutes on a copy. */
const onGrownFile = async (dir: string) => {
  const fmt = (n: number) => n.toLocaleString("en")
  const grown = join(dir, "grown.db")
  const served = join(dir, "served.db")
  say(`\n== writes: growing a file to ${fmt(START)} projects (as the scale benchmark does); ${load()}`)
  const { base, seededS, replicatedS } = await grow(grown, START, (line) => say(`    ${line}`))
  say(
    `  ${fmt(Math.min(START, 1_000))} through the library in ${seededS.toFixed(1)} s, replicas by SQL and ANALYZE in ${replicatedS.toFixed(1)} s; file ${
      (sizeOf(grown) / MIB).toFixed(0)
    } MiB`
  )
  copySqlite(grown, served)

  say(`\n== writes: on ${fmt(START)} projects, the library creating projects one at a time, never pausing, for ${SECONDS} s; ${load()}`)
  const n = await sustained(await open(grown, base.token))
  const seeded = boxesMeeting(grown, boxOf(projectGeometry(0).coordinates[0]!))
  say(`  overlap candidates (stored boxes meeting a new box): first create ${boxesMeeting(grown, boxOf(projectInput(0).geometry.coordinates[0]!))}, ` +
    `last ${boxesMeeting(grown, boxOf(projectInput(n - 1).geometry.coordinates[0]!))}; a create on seeded position 0 would meet ${
      fmt(seeded + 1)
    } (stacked replicas)`)
  removeSqlite(grown)

  const server = await startServer(served)
  try {
    const target = (from: number) => ({ url: server.url, token: base.token, seconds: SECONDS, windowMs: WINDOW_MS, body: (i: number) =>
      JSON.stringify(projectInput(from + i)) })
    await closedLoop({ ...target(HTTP_WARM_FROM), seconds: 5 }, HTTP_CONNECTIONS) // warm-up: JIT, geometry workers, page cache
    say(`\n== writes: on ${fmt(START)} projects, POST /v1/projects closed-loop, ${HTTP_CONNECTIONS} connections, for ${SECONDS} s; ${load()}`)
    const closed = await closedLoop(target(HTTP_CLOSED_FROM), HTTP_CONNECTIONS)
    printHttp(closed)
    const posted = closed.reduce((a, w) => a + w.answers, 0)
    // Below saturation: the asked rate, or 60% of what the closed loop sustained when that is less.
    const saturation = posted / SECONDS
    const rate = Math.min(HTTP_RATE, Math.max(1, Math.floor(saturation * 0.6)))
    say(`\n== writes: on ${fmt(START)} projects (+ the posts above), POST /v1/projects at ${rate}/s (open loop; latency from each post's due time` +
      `${rate < HTTP_RATE ? `; ${HTTP_RATE}/s asked, but the closed loop sustained ${saturation.toFixed(0)}/s` : ""}) for ${SECONDS} s; ${load()}`)
    printHttp(await openLoop(target(HTTP_OPEN_FROM), rate))
    say(
      `  overlap candidates of the last closed-loop post: ${
        boxesMeeting(served, boxOf(projectInput(HTTP_CLOSED_FROM + posted - 1).geometry.coordinates[0]!))
      }, ` +
        `of the first open-loop post: ${boxesMeeting(served, boxOf(projectInput(HTTP_OPEN_FROM).geometry.coordinates[0]!))}`
    )
  } finally {
    await stopServer(server.child)
    removeSqlite(served)
  }
}

/** `npm run bench -- writes`: the parts the header lists, in a temporary directory removed at the end. */
export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-bench-writes-"))
  try {
    if (START > 0) return await onGrownFile(dir)
    say(`\n== writes: the library creating projects one at a time, never pausing, for ${SECONDS} s`)
    await sustained(await open(join(dir, "sustained.db")))

    if (PROJECTS > 0) {
      say(`\n== writes: ${PROJECTS.toLocaleString("en")} projects created through the library, one at a time`)
      say(HEADER.replace("window    ", "projects  "))
      const volume = await open(join(dir, "volume.db"))
      const tenth = Math.max(1, Math.floor(PROJECTS / 10))
      const v = await createUntil(volume.canopy, volume.principal, volume.filename, (n) => n >= PROJECTS, (n) => n % tenth === 0, (w, n) => {
        say(row(`${n.toLocaleString("en")}`, w))
      })
      await volume.canopy.close()
      say(
        `  ${v.n.toLocaleString("en")} projects in ${(v.elapsedMs / 1_000).toFixed(1)} s (${((v.n * 1_000) / v.elapsedMs).toFixed(0)}/s; goal < 180 s; ${
          v.cpuSeconds.toFixed(0)
        } s of CPU), largest -wal ${v.maxWalMiB.toFixed(1)} MiB, database ${(sizeOf(volume.filename) / MIB).toFixed(0)} MiB`
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
