import type { ChildProcess } from "node:child_process"
import { star } from "./data.ts"
import { call, callOffThread, idle, probeDuring, single } from "./measure.ts"

// ── event-loop lag ───────────────────────────────────────────────────────────────────────────

/** What the star measurement needs from the benchmark's runner. */
export interface StarDeps {
  readonly startServer: (file: string) => Promise<{ url: string; child: ChildProcess }>
  readonly stopServer: (child: ChildProcess, signal?: NodeJS.Signals) => Promise<void>
  readonly say: (line: string) => void
  readonly fmt: (x: number, digits?: number) => string
  readonly ms: (x: number) => string
  readonly timeoutS: number
}

/**
 * The server's own event-loop lag since the last read: its 10 ms timer's delay beyond those 10 ms
 * (p99 and max), from `/metrics` (prom-client's `monitorEventLoopDelay`, reset at every scrape).
 */
const serverLag = async (url: string): Promise<{ p99: number; max: number }> => {
  const { body } = await call(`${url}/metrics`)
  const read = (stat: string) => {
    const m = new RegExp(`^canopy_nodejs_eventloop_lag_${stat}_seconds(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(body)
    return m ? Math.max(0, Number(m[1]) * 1000 - 10) : NaN
  }
  return { p99: read("p99"), max: read("max") }
}

/**
 * The event-loop lag: GET /health every 10 ms while one hostile star of 24,000 and then 100,000
 * positions is posted, each to a fresh server over a copy of `file`.
 */
export const starLag = async (file: string, token: string, deps: StarDeps) => {
  const { startServer, stopServer, say, fmt, ms } = deps
  const STAR_TIMEOUT_S = deps.timeoutS
  say(`event loop: GET /health every 10 ms from this process while one hostile star is posted (fresh SQLite server each)`)
  say(`  goals: the server's event-loop lag p99 ≤ 50 ms and /health p99 ≤ 50 ms meanwhile; the star answered (201 or 422) in ≤ 2,000 ms`)
  for (const positions of [24_000, 100_000]) {
    const body = JSON.stringify({ name: `Star ${positions}`, geometry: star(positions) })
    const started = await startServer(file).catch((e: unknown) => e as Error)
    if (started instanceof Error) {
      say(`  star, ${fmt(positions)} positions: not measured (${started.message})`)
      continue
    }
    const { url, child } = started
    try {
      await idle(url)
      await single(() => ({ url: `${url}/health` }), { max: 200, budgetMs: 1_000 })
      const quiet = await probeDuring(url, () => new Promise((r) => setTimeout(r, 1_000)))
      await serverLag(url) // starts the server's own window here
      // The POST is made from a worker thread: sending 2.8 MB and collecting the answer's 2.8 MB
      // (and the garbage that leaves) would otherwise hold this thread, which sends and times the
      // probes — measured: /health "stalls" of 45–60 ms while the server's own loop never lagged
      // more than 12 ms. Only an answer's short body (an error) comes back.
      const post = await callOffThread(`${url}/v1/projects`, { method: "POST", token, body, timeoutMs: STAR_TIMEOUT_S * 1000 })
      const { result, probe } = await probeDuring(url, async () => {
        const t0 = performance.now()
        try {
          const a = await post.run()
          let code = ""
          try {
            const e = (JSON.parse(a.body) as { error?: { code?: string; message?: string; details?: Array<{ message?: string }> } }).error
            const why = e?.details?.[0]?.message ?? e?.message ?? ""
            code = a.status >= 400 ? ` ${e?.code ?? ""}${why ? ` ("${why.length > 80 ? `${why.slice(0, 77)}…` : why}")` : ""}` : ""
          } catch { /* none */ }
          return { answered: true as const, status: `${a.status}${code}`, ok: a.status === 201 || a.status === 422, ms: a.ms }
        } catch {
          return { answered: false as const, ms: performance.now() - t0 }
        }
      }, 2_000)
      const lag = await serverLag(url)
      const outcome = result.answered
        ? `answered ${result.status} in ${fmt(result.ms)} ms ${result.ok && result.ms <= 2_000 ? "✓" : "✗"}`
        : `no answer within ${STAR_TIMEOUT_S} s ✗ (gave up; server stopped)`
      const lb = probe.lowerBound ? "≥ " : ""
      say(`  star, ${fmt(positions)} positions (${fmt(body.length / 1024)} KiB): ${outcome}`)
      say(`    /health: p99 ${lb}${ms(probe.p99)} ms, max ${lb}${ms(probe.max)} ms over ${fmt(probe.probes)} probes ${probe.p99 <= 50 ? "✓" : "✗"}` +
        `   (idle, same server, 1 s before: p99 ${ms(quiet.probe.p99)} ms, max ${ms(quiet.probe.max)} ms)`)
      say(`    server's event-loop lag (its 10 ms timer's delay): p99 ${ms(lag.p99)} ms, max ${ms(lag.max)} ms ${lag.p99 <= 50 ? "✓" : "✗"}`)
    } finally {
      await stopServer(child, "SIGKILL")
    }
  }
}
