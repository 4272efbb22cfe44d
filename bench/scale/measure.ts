/**
 * Measuring over real HTTP on loopback: sequential single requests (p50), autocannon load (req/s),
 * waiting for the server to go idle between runs, and the event-loop probe (GET /health every
 * 10 ms while something else is being served).
 */
import autocannon from "autocannon"
import { Agent, request as httpRequest } from "node:http"
import { Worker } from "node:worker_threads"

export interface Answer {
  readonly status: number
  readonly body: string
  readonly bytes: number
  readonly ms: number
  /** The answer's headers (`call` only). */
  readonly headers?: Readonly<Record<string, string | Array<string> | undefined>>
}

const sequentialAgent = new Agent({ keepAlive: true, maxSockets: 1 })

/** One request; `ms` from the call to the last byte of the answer. */
export const call = (url: string, opts: { method?: string; token?: string; body?: string; agent?: Agent; timeoutMs?: number } = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = httpRequest(url, {
      method: opts.method ?? "GET",
      agent: opts.agent ?? sequentialAgent,
      headers: {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body !== undefined ? { "content-type": "application/json", "content-length": Buffer.byteLength(opts.body) } : {})
      },
      ...(opts.timeoutMs ? { signal: AbortSignal.timeout(opts.timeoutMs) } : {})
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const all = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, body: all.toString("utf8"), bytes: all.length, ms: performance.now() - t0, headers: res.headers })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(opts.body)
  })

/**
 * One request made from a worker thread, prepared (the worker started, the body handed over)
 * before `run` sends it; the answer's body comes back only when short (≤ 4,000 characters).
 */
export const callOffThread = async (url: string, opts: Parameters<typeof call>[1] = {}) => {
  const worker = new Worker(new URL("./callWorker.ts", import.meta.url), { workerData: { url, opts } })
  await new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve())
    worker.once("error", reject)
  })
  return {
    run: () =>
      new Promise<Answer>((resolve, reject) => {
        worker.once("message", (m: { ok: true; status: number; ms: number; body: string; bytes: number } | { ok: false; message: string }) => {
          void worker.terminate()
          if (m.ok) resolve({ status: m.status, ms: m.ms, body: m.body, bytes: m.bytes })
          else reject(new Error(m.message))
        })
        worker.once("error", reject)
        worker.postMessage("go")
      })
  }
}

export const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

export interface Single {
  readonly p50: number
  /** Every sample (ms), sorted. */
  readonly times: ReadonlyArray<number>
  readonly samples: number
  /** The samples asked for (fewer were taken if they were slow). */
  readonly target: number
  /** Answers that were not 2xx. */
  readonly refused: Refusals
}

/** Answers that were not 2xx, by status and error code ("429 RATE_LIMITED"), with how many and the first message. */
export type Refusals = Map<string, { count: number; readonly message: string }>

/** Counts a non-2xx answer under its status and error code. */
const refuse = (into: Refusals, status: number, body: string) => {
  let key = String(status)
  let message = ""
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error
    if (typeof error?.code === "string") key = `${status} ${error.code}`
    if (typeof error?.message === "string") message = error.message
  } catch { /* not JSON */ }
  const seen = into.get(key)
  if (seen) seen.count++
  else into.set(key, { count: 1, message })
}

/**
 * Sequential requests after a short warm-up: up to `max` samples, fewer if they take longer than
 * `budgetMs` in all (at least `min`); the p50 of their times.
 */
export const single = async (
  next: (i: number) => { url: string; method?: string; token?: string; body?: string },
  opts: { max?: number; min?: number; budgetMs?: number; warmup?: number } = {}
): Promise<Single> => {
  const { max = 200, min = 5, budgetMs = 5_000, warmup = 10 } = opts
  let i = 0
  const warmEnd = performance.now() + 1_000
  for (let w = 0; w < warmup && performance.now() < warmEnd; w++) {
    const r = next(i++)
    await call(r.url, r)
  }
  const times: Array<number> = []
  const refused: Refusals = new Map()
  const end = performance.now() + budgetMs
  while (times.length < max && (times.length < min || performance.now() < end)) {
    const r = next(i++)
    const a = await call(r.url, r)
    if (a.status >= 300) refuse(refused, a.status, a.body)
    times.push(a.ms)
  }
  times.sort((a, b) => a - b)
  return { p50: quantile(times, 0.5), times, samples: times.length, target: max, refused }
}

/** Several runs' refusals, counted together. */
export const mergeRefusals = (all: ReadonlyArray<Refusals>): Refusals => {
  const refused: Refusals = new Map()
  for (const m of all) {
    for (const [k, v] of m) {
      const seen = refused.get(k)
      if (seen) seen.count += v.count
      else refused.set(k, { ...v })
    }
  }
  return refused
}

/** Rounds of `single` taken at different moments, as one figure (the p50 of all their samples). */
export const mergeSingles = (rounds: ReadonlyArray<Single>): Single => {
  const times = rounds.flatMap((r) => r.times).sort((a, b) => a - b)
  return {
    p50: quantile(times, 0.5),
    times,
    samples: times.length,
    target: rounds.reduce((a, r) => a + r.target, 0),
    refused: mergeRefusals(rounds.map((r) => r.refused))
  }
}

export interface Load {
  /** 2xx answers a second. */
  readonly rps: number
  readonly non2xx: number
  readonly errors: number
  readonly refused: Refusals
}

/** autocannon for `seconds` with `connections`; `requests` cycles per connection (e.g. archive, restore). */
export const load = async (base: string, opts: {
  seconds: number
  connections: number
  token?: string
  requests: ReadonlyArray<{ method?: "GET" | "POST"; path: (i: number) => string; body?: (i: number) => string }>
}): Promise<Load> => {
  let i = 0
  const refused: Refusals = new Map()
  const result = await autocannon({
    url: base,
    connections: opts.connections,
    duration: opts.seconds,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), "content-type": "application/json" },
    requests: opts.requests.map((r) => ({
      method: r.method ?? "GET",
      setupRequest: (req: autocannon.Request) => {
        const k = ++i
        return { ...req, method: r.method ?? "GET", path: r.path(k), ...(r.body ? { body: r.body(k) } : {}) }
      },
      onResponse: (status: number, body: string) => {
        if (status >= 300) refuse(refused, status, body)
      }
    }))
  })
  return { rps: result["2xx"] / opts.seconds, non2xx: result.non2xx, errors: result.errors, refused }
}

/** Waits until GET /health answers within 20 ms twice in a row (what load left queued is done), at most `maxMs`. */
export const idle = async (base: string, maxMs = 120_000): Promise<void> => {
  const end = performance.now() + maxMs
  let fast = 0
  while (fast < 2 && performance.now() < end) {
    const a = await call(`${base}/health`).catch(() => undefined)
    fast = a && a.ms < 20 ? fast + 1 : 0
    if (fast < 2) await new Promise((r) => setTimeout(r, 20))
  }
}

export interface Probe {
  /** Probes sent while the request ran. */
  readonly probes: number
  readonly p99: number
  readonly max: number
  /** Whether some probes were still unanswered when we gave up (their figure is a lower bound). */
  readonly lowerBound: boolean
}

/**
 * Runs `work` while GET /health is sent every 10 ms (from this process, over up to 64 keep-alive
 * connections); each probe's latency counts from when it was sent, so a server that cannot answer
 * shows the whole wait. Once `work` is done, probes still out get up to `drainMs` to come back;
 * any that do not count with their wait so far (a lower bound).
 */
export const probeDuring = async <A>(base: string, work: () => Promise<A>, drainMs = 5_000): Promise<{ result: A; probe: Probe }> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const latencies: Array<number> = []
  const pending = new Map<number, number>()
  const start = performance.now()
  let k = 0
  const timer = setInterval(() => {
    // Every probe due since the last tick (timers drift; the schedule does not).
    while (start + k * 10 <= performance.now()) {
      const probe = k++
      pending.set(probe, performance.now())
      call(`${base}/health`, { agent }).then(
        (a) => {
          if (pending.delete(probe)) latencies.push(a.ms)
        },
        () => {
          pending.delete(probe)
        }
      )
    }
  }, 10)
  try {
    const result = await work()
    clearInterval(timer)
    const end = performance.now() + drainMs
    while (pending.size > 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 10))
    const now = performance.now()
    const unanswered = [...pending.values()].map((sent) => now - sent)
    pending.clear()
    const all = [...latencies, ...unanswered].sort((a, b) => a - b)
    return { result, probe: { probes: all.length, p99: quantile(all, 0.99), max: all.at(-1) ?? NaN, lowerBound: unanswered.length > 0 } }
  } finally {
    clearInterval(timer)
    agent.destroy()
  }
}
