/**
 * Sustained writes through the library (stops by itself): one process creating small projects
 * into a SQLite file one at a time, never pausing, as a bulk import or a busy integration does.
 * - sustained: `BENCH_WRITES_SECONDS` (default 60) of creates; per ten-second window the creates/s,
 *   CPU ms per create, p99 of a create, and the largest `-wal` file seen; the baseline is the first
 *   window, and the run passes when no window falls below it by more than 1.6×;
 * - volume: `BENCH_WRITES_PROJECTS` (default 100,000; 0 skips it) creates into a fresh file, the
 *   elapsed time and the rate of each tenth.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { type CanopyClient, createCanopy, type Principal } from "@canopy/core"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const SECONDS = Number(process.env.BENCH_WRITES_SECONDS ?? 60)
const PROJECTS = Number(process.env.BENCH_WRITES_PROJECTS ?? 100_000)
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

/** A fresh file with one account; answers the library, its principal and the file's path. */
const open = async (dir: string, name: string) => {
  const filename = join(dir, name)
  const canopy = await createCanopy({ storage: sqliteStorage({ filename }), settings: { plans: { free: big, pro: big, enterprise: big } } })
  const { api_key } = await canopy.bootstrap({ account_name: "Bulk import", email: "import@example.com", plan: "enterprise" })
  return { canopy, principal: await canopy.authenticate(api_key.token), filename }
}

interface Window {
  readonly creates: number; readonly perSecond: number; readonly cpuMs: number; readonly p99: number; readonly max: number; readonly walMiB: number; readonly heapMiB: number
}

/** Creates projects one at a time until `stop` says so; calls `onWindow` at the end of each window. */
const createUntil = async (
  canopy: CanopyClient, principal: Principal.Principal, filename: string,
  stop: (n: number, elapsedMs: number) => boolean, windowEnds: (n: number, windowMs: number) => boolean,
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
  const flush = (now: number) => {
    latencies.sort((a, b) => a - b)
    const used = process.cpuUsage(cpu)
    const creates = n - windowN
    onWindow({
      creates, perSecond: (creates * 1_000) / (now - windowStart), cpuMs: (used.user + used.system) / 1_000 / creates,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, max: latencies.at(-1) ?? 0, walMiB: wal / MIB, heapMiB: process.memoryUsage().heapUsed / MIB
    }, n)
    windowStart = now
    windowN = n
    cpu = process.cpuUsage()
    latencies = []
    wal = 0
  }
  while (!stop(n, performance.now() - start)) {
    const t0 = performance.now()
    await canopy.projects.create(principal, projectInput(n))
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
  `  ${label.padEnd(10)} ${String(w.creates).padStart(7)} ${w.perSecond.toFixed(0).padStart(9)} ${w.cpuMs.toFixed(2).padStart(8)} ${w.p99.toFixed(1).padStart(8)} ${w.max.toFixed(0).padStart(7)} ${w.walMiB.toFixed(1).padStart(9)} ${w.heapMiB.toFixed(0).padStart(8)}`
const HEADER = `  ${"window".padEnd(10)} ${"creates".padStart(7)} ${"creates/s".padStart(9)} ${"cpu ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(7)} ${"-wal MiB".padStart(9)} ${"heap MiB".padStart(8)}`

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-bench-writes-"))
  try {
    console.log(`\n== writes: the library creating projects one at a time, never pausing, for ${SECONDS} s`)
    console.log(HEADER)
    const sustained = await open(dir, "sustained.db")
    const windows: Array<Window> = []
    const s = await createUntil(sustained.canopy, sustained.principal, sustained.filename, (_n, ms) => ms >= SECONDS * 1_000, (_n, ms) => ms >= WINDOW_MS, (w) => {
      windows.push(w)
      console.log(row(`${windows.length * 10 - 10}–${windows.length * 10} s`, w))
    })
    await sustained.canopy.close()
    const full = windows.filter((w) => w.creates > 0).slice(0, Math.floor((SECONDS * 1_000) / WINDOW_MS))
    const first = full[0]!.perSecond
    const slowest = Math.min(...full.map((w) => w.perSecond))
    console.log(`  ${s.n} creates, largest -wal ${s.maxWalMiB.toFixed(1)} MiB; slowest window ${slowest.toFixed(0)}/s = first ÷ ${(first / slowest).toFixed(2)} (goal ≤ 1.6), last = first ÷ ${(first / full.at(-1)!.perSecond).toFixed(2)}; CPU ms per create, last ÷ first: ${(full.at(-1)!.cpuMs / full[0]!.cpuMs).toFixed(2)}`)

    if (PROJECTS > 0) {
      console.log(`\n== writes: ${PROJECTS.toLocaleString("en")} projects created through the library, one at a time`)
      console.log(HEADER.replace("window    ", "projects  "))
      const volume = await open(dir, "volume.db")
      const tenth = Math.max(1, Math.floor(PROJECTS / 10))
      const v = await createUntil(volume.canopy, volume.principal, volume.filename, (n) => n >= PROJECTS, (n) => n % tenth === 0, (w, n) => {
        console.log(row(`${n.toLocaleString("en")}`, w))
      })
      await volume.canopy.close()
      console.log(`  ${v.n.toLocaleString("en")} projects in ${(v.elapsedMs / 1_000).toFixed(1)} s (${((v.n * 1_000) / v.elapsedMs).toFixed(0)}/s; goal < 180 s; ${v.cpuSeconds.toFixed(0)} s of CPU), largest -wal ${v.maxWalMiB.toFixed(1)} MiB, database ${(sizeOf(volume.filename) / MIB).toFixed(0)} MiB`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
