/**
 * Sustained `POST /v1/projects` over loopback HTTP against the packaged server
 * (bench/servers/canopy.ts), in ten-second windows: at a fixed offered rate (open loop: each
 * request sent at its scheduled time whatever the answers do, its latency counted from that time,
 * so a server that falls behind shows in the figures) and closed-loop with a fixed number of
 * connections (each sends its next request when its answer arrives).
 */
import { Agent } from "node:http"
import { call, quantile } from "../scale/measure.ts"

/** One ten-second window of answers (grouped by the time each request was due). */
export interface HttpWindow {
  readonly answers: number
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  /** Answers that were not 201, by status (0: none within 30 s, or the connection failed). */
  readonly refused: ReadonlyMap<number, number>
  /** The largest overlap report among the answers (its `overlaps.overlaps` length). */
  readonly overlapsMax: number
}

/** A post not answered within this long counts as refused (status 0). */
const TIMEOUT_MS = 30_000

interface Sample {
  readonly due: number
  readonly ms: number
  readonly status: number
  readonly overlaps: number
}

const windowsOf = (samples: ReadonlyArray<Sample>, start: number, windowMs: number, count: number): Array<HttpWindow> =>
  Array.from({ length: count }, (_, k) => {
    const mine = samples.filter((s) => Math.min(count - 1, Math.floor((s.due - start) / windowMs)) === k)
    const times = mine.map((s) => s.ms).sort((a, b) => a - b)
    const refused = new Map<number, number>()
    for (const s of mine) if (s.status !== 201) refused.set(s.status, (refused.get(s.status) ?? 0) + 1)
    return {
      answers: mine.length,
      perSecond: (mine.length * 1_000) / windowMs,
      p50: quantile(times, 0.5),
      p99: quantile(times, 0.99),
      max: times.at(-1) ?? NaN,
      refused,
      overlapsMax: Math.max(0, ...mine.map((s) => s.overlaps))
    }
  })

/** Posts one body; answers its status (0: no answer within `TIMEOUT_MS`, or the connection failed), latency and overlap report length. */
const post = async (url: string, token: string, body: string, agent: Agent, due: number): Promise<Sample> => {
  try {
    const a = await call(`${url}/v1/projects`, { method: "POST", token, body, agent, timeoutMs: TIMEOUT_MS })
    const overlaps = a.status === 201 ? (JSON.parse(a.body) as { overlaps?: { overlaps?: Array<unknown> } }).overlaps?.overlaps?.length ?? 0 : 0
    return { due, ms: performance.now() - due, status: a.status, overlaps }
  } catch {
    return { due, ms: performance.now() - due, status: 0, overlaps: 0 }
  }
}

/** Options shared by both loads: the server, its admin key, the request body of the n-th post, length and window. */
export interface Target {
  readonly url: string
  readonly token: string
  readonly body: (n: number) => string
  readonly seconds: number
  readonly windowMs: number
}

/** `rate` posts a second, each sent at its time (concurrently if answers are late); windows by due time. */
export const openLoop = async (t: Target, rate: number): Promise<Array<HttpWindow>> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const start = performance.now()
  const total = Math.floor(t.seconds * rate)
  const pending: Array<Promise<Sample>> = []
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1_000) / rate
    const wait = due - performance.now()
    if (wait > 1) await new Promise((r) => setTimeout(r, wait))
    pending.push(post(t.url, t.token, t.body(i), agent, due))
  }
  const samples = await Promise.all(pending)
  agent.destroy()
  return windowsOf(samples, start, t.windowMs, Math.ceil((t.seconds * 1_000) / t.windowMs))
}

/** `connections` loops, each posting its next project when its answer arrives, for `seconds`. */
export const closedLoop = async (t: Target, connections: number): Promise<Array<HttpWindow>> => {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const start = performance.now()
  const end = start + t.seconds * 1_000
  const samples: Array<Sample> = []
  let n = 0
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < end) samples.push(await post(t.url, t.token, t.body(n++), agent, performance.now()))
  }))
  agent.destroy()
  return windowsOf(samples, start, t.windowMs, Math.ceil((t.seconds * 1_000) / t.windowMs))
}
