/**
 * What the soak benchmark prints: each minute's figures, and at the end the last minutes against
 * the first ones (p99 per route, RSS, disk), a ratio above `FLAT` flagged.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import type { Sample } from "./traffic.ts"

/** The ratio of the last minutes to the first ones above which a figure is flagged. */
const FLAT = 1.25

/** The `p`th percentile (0–100) of `xs` (NaN when empty). */
const percentile = (xs: ReadonlyArray<number>, p: number) => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

/**
 * How precisely two windows' samples fix the ratio of their `p`th percentiles: the 5th and 95th
 * percentiles of that ratio over `rounds` bootstrap resamplings (each window drawn again, with
 * replacement, at its own size). A p99 of a few hundred requests rests on its few slowest: the
 * interval shows how far the same traffic's ratio would wander by chance.
 */
const ratioInterval = (a: ReadonlyArray<number>, b: ReadonlyArray<number>, p: number, rounds = 400): readonly [number, number] => {
  const resampled = (xs: ReadonlyArray<number>) => percentile(Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)]!), p)
  const ratios = Array.from({ length: rounds }, () => resampled(b) / resampled(a))
  return [percentile(ratios, 5), percentile(ratios, 95)]
}

/** Bytes as megabytes, one decimal. */
const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`

/** What the server's `/metrics` said at the end of a minute. */
export interface Scraped {
  readonly rss: number
  readonly heap: number
  readonly lagP99: number
  /** The server's longest event-loop delay of the minute. */
  readonly lagMax: number
  readonly backlog: number
  /** The server's garbage collection in the minute: its total pause, and the pauses over 10 ms. */
  readonly gc: { readonly ms: number; readonly over10ms: number }
}

/** One minute's figures: latency per route, the server's metrics and the store's size on disk. */
export interface MinuteFigures extends Scraped {
  readonly routes: Map<string, { p50: number; p99: number; n: number }>
  readonly db: number
  readonly wal: number
}

/** The shares of the host's CPU left idle and taken by the hypervisor (steal), 0–1. */
export interface HostShares {
  readonly idle: number
  readonly steal: number
}

/**
 * A sampler of the host's CPU, from Linux's `/proc/stat`: each call answers its `HostShares` since
 * the call before (undefined where there is no such file). A step in every route's latency that
 * comes with less idle or more steal is the host's, not the server's.
 */
export const hostCpu = () => {
  const read = () => {
    try {
      return readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
    } catch {
      return undefined
    }
  }
  let last = read()
  return (): HostShares | undefined => {
    const now = read()
    if (!now || !last) return undefined
    const d = now.map((v, i) => v - (last![i] ?? 0))
    last = now
    const total = d.reduce((a, b) => a + b, 0)
    // Fields: user nice system idle iowait irq softirq steal …
    return total > 0 ? { idle: (d[3]! + d[4]!) / total, steal: (d[7] ?? 0) / total } : undefined
  }
}

/** Linux's clock ticks a second, the unit of `/proc/<pid>/stat`'s CPU times. */
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/** A process's parent, own CPU and its waited-for children's CPU (ticks), from `/proc`. */
const procStat = (pid: number) => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    const close = text.lastIndexOf(")")
    const f = text.slice(close + 2).split(" ").map(Number)
    // After the name: state, ppid, …, utime (index 11), stime, cutime, cstime.
    return { ppid: f[1]!, own: f[11]! + f[12]!, children: f[13]! + f[14]! }
  } catch {
    return undefined
  }
}

/** Where the CPU went in a minute, in cores: the server's process, PostgreSQL's, the load client's. */
export interface ProcessShares {
  readonly server: number
  readonly postgres?: number
  readonly client: number
}

/** The parent of a process (the postmaster, for a PostgreSQL backend's pid), or undefined. */
export const parentOf = (pid: number) => procStat(pid)?.ppid

/**
 * A sampler of the CPU that the server's process, the soak's PostgreSQL (its postmaster `postmasterPid`
 * and the backends and workers it started, with those that exited counted through the
 * postmaster's waited-for children) and this process took since the call before, in cores. Another
 * PostgreSQL on the host is not counted. With the host's idle share it tells a step in latency that
 * is the server's own work from one that is PostgreSQL's or another tenant's of the host.
 */
export const processCpu = (serverPid: number | undefined, postmasterPid?: number) => {
  const postgresTicks = () => {
    if (postmasterPid === undefined) return undefined
    const postmaster = procStat(postmasterPid)
    if (postmaster === undefined) return undefined
    let pids: Array<number>
    try {
      pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number)
    } catch {
      return undefined
    }
    const children = pids.map(procStat).filter((s) => s?.ppid === postmasterPid)
    return children.reduce((n, s) => n + s!.own, postmaster.own + postmaster.children)
  }
  const read = () => ({ at: performance.now(), server: serverPid ? procStat(serverPid)?.own : undefined, postgres: postgresTicks(),
    client: process.cpuUsage() })
  let last = read()
  return (): ProcessShares | undefined => {
    const now = read()
    const seconds = (now.at - last.at) / 1000
    const cores = (ticks: number) => ticks / clockTicks / seconds
    const shares = now.server === undefined || last.server === undefined ? undefined : {
      server: cores(now.server - last.server),
      ...(now.postgres === undefined || last.postgres === undefined ? {} : { postgres: cores(now.postgres - last.postgres) }),
      client: (now.client.user + now.client.system - last.client.user - last.client.system) / 1e6 / seconds
    }
    last = now
    return shares
  }
}

/** Computes and prints minute `k`'s figures from its samples, metrics and disk sizes. */
export const reportMinute = (
  k: number,
  rows: ReadonlyArray<Sample>,
  m: Scraped,
  disk: { db: number; wal: number },
  clientLagMax: number,
  warmUp = false,
  host?: HostShares,
  cpu?: ProcessShares
): MinuteFigures => {
  const routes = new Map<string, { p50: number; p99: number; n: number }>()
  for (const route of new Set(rows.map((r) => r.route))) {
    const ms = rows.filter((r) => r.route === route).map((r) => r.ms)
    routes.set(route, { p50: percentile(ms, 50), p99: percentile(ms, 99), n: ms.length })
  }
  console.log(
    `  minute ${k}${warmUp ? " (warm-up)" : ""}: ${rows.length} requests; RSS ${mb(m.rss)}, heap ${mb(m.heap)}, loop lag p99 ${m.lagP99.toFixed(1)} ms (max ${
      m.lagMax.toFixed(0)
    } ms; the client's max ${clientLagMax.toFixed(0)} ms; GC ${m.gc.ms.toFixed(0)} ms, ${m.gc.over10ms} pauses over 10 ms), outbox ${m.backlog}, db ${
      mb(disk.db)
    }, wal ${mb(disk.wal)}${host ? `; host ${(100 * host.idle).toFixed(0)}% idle, ${(100 * host.steal).toFixed(1)}% steal` : ""}${
      cpu
        ? `; CPU in cores: server ${cpu.server.toFixed(2)}${cpu.postgres === undefined ? "" : `, PostgreSQL ${cpu.postgres.toFixed(2)}`}, load client ${
          cpu.client.toFixed(2)
        }` : ""
    }`
  )
  for (const [route, f] of [...routes].sort())
    console.log(`    ${route.padEnd(34)} n=${String(f.n).padStart(5)}  p50 ${f.p50.toFixed(1).padStart(7)} ms  p99 ${f.p99.toFixed(1).padStart(7)} ms`)
  return { routes, ...m, ...disk }
}

/**
 * Prints the last `k` minutes against the first `k` (of the measured minutes, after the warm-up
 * that fills the retention window): p99 per route, then RSS and disk.
 */
export const reportFlatness = (
  k: number,
  samples: ReadonlyArray<ReadonlyArray<Sample>>,
  perMinute: ReadonlyArray<MinuteFigures>
) => {
  const first = samples.slice(0, k).flat(), last = samples.slice(-k).flat()
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((s, x) => s + x, 0) / xs.length
  console.log(`    last ${k} min ÷ first ${k} min (flag above ${FLAT}×; in brackets the ratio's 90% bootstrap interval, and the requests in each window):`)
  const flag = (r: number) => (r > FLAT ? "  ← above" : "")
  for (const route of [...new Set(first.map((s) => s.route))].sort()) {
    const as = first.filter((s) => s.route === route).map((s) => s.ms), bs = last.filter((s) => s.route === route).map((s) => s.ms)
    const a = percentile(as, 99), b = percentile(bs, 99)
    const [lo, hi] = ratioInterval(as, bs, 99)
    console.log(
      `      p99 ${route.padEnd(34)} ${a.toFixed(1).padStart(7)} → ${b.toFixed(1).padStart(7)} ms  ${(b / a).toFixed(2)}× [${lo.toFixed(2)}–${
        hi.toFixed(2)
      }, n ${as.length}/${bs.length}]${flag(b / a)}`
    )
  }
  const firstM = perMinute.slice(0, k), lastM = perMinute.slice(-k)
  for (const [label, f] of [["RSS", (m: MinuteFigures) => m.rss], ["disk (db + wal)", (m: MinuteFigures) => m.db + m.wal]] as const) {
    const a = mean(firstM.map(f)), b = mean(lastM.map(f))
    console.log(`      ${label.padEnd(38)} ${mb(a).padStart(10)} → ${mb(b).padStart(10)}  ${(b / a).toFixed(2)}×${flag(b / a)}`)
  }
}

/** Prints the tables (and indexes) that grew most between two readings of their sizes. */
export const reportGrowth = (before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>) => {
  const grown = [...after].map(([name, bytes]) => [name, bytes - (before.get(name) ?? 0)] as const).sort((a, b) => b[1] - a[1]).slice(0, 8)
  console.log(`    grown since minute 1: ${grown.map(([name, d]) => `${name} ${d >= 0 ? "+" : ""}${mb(d)}`).join(", ")}`)
}
