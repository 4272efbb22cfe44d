/**
 * `importBoundary` off the event loop, for every file upload (the API's import and boundary
 * replacement, the dashboard's upload): reading a file is synchronous CPU work whose cost follows
 * what the file holds, not its size, so every file is read in a worker thread with a time and a
 * memory budget (`IMPORT_BUDGETS`), never on the loop.
 *
 * - At most `workers` imports run at once; at most `queued` wait, and at most `perAccount` of one
 *   account are running or waiting. More are refused with 429 `RATE_LIMITED` with Retry-After:
 *   the server is saturated, the request was fine.
 * - An import that overruns `timeMs` is abandoned: its worker is terminated and the answer is a
 *   problem on `file` marked `overBudget: "time"` (it depends on the load: a retry may pass).
 * - A worker's V8 heap is capped (`heapMb`, `youngMb`): a file whose reading exhausts it ends that
 *   worker only (`ERR_WORKER_OUT_OF_MEMORY`), and the answer is a problem on `file` marked
 *   `overBudget: "memory"`. Any other death of a worker during a job is a problem on `file` too.
 * - After each job the worker reports its memory (its heap and external memory, buffers and
 *   WebAssembly memory included); a worker that grew by more than `recycleGrowthMb` since it
 *   started is replaced, so that one large file does not leave the process holding its memory.
 * - Workers start on first use (~0.4 s) and are kept; idle workers do not keep the process alive.
 */
import { Errors } from "@canopy/core"
import { Effect } from "effect"
import { Worker } from "node:worker_threads"
import { endWorker, makeShares, makeWorkerSlots, mayStartWorker, processWide, queueOwned, terminateInTurn, workerModule,
  type WorkerSlot } from "../workerPool.ts"
import type { FeatureFields, FeaturesResult } from "./features.ts"
import type { ImportAnswer, ImportJob, WorkerReady } from "./importWorker.ts"
import type { ImportFailure, ImportHint, ImportLimits, ImportResult } from "./types.ts"

/** The budgets of the import workers. */
const IMPORT_BUDGETS = {
  /** Files read at once (one worker each). */
  workers: 2,
  /** Files waiting for a worker; more are a 429. */
  queued: 8,
  /** Files of one account running or waiting; more are a 429. */
  perAccount: 4,
  /** Longest one file may be read (ms); past it the worker is terminated and the answer is a 422. */
  timeMs: 20_000,
  /**
   * A worker's old-generation heap ceiling (MiB); a file that needs more is a 422. A KMZ of the
   * 10,000 placemarks a list export holds (~300,000 XML nodes, the reader's cap) needs ~320.
   */
  heapMb: 384,
  /** A worker's young-generation ceiling (MiB). */
  youngMb: 32,
  /**
   * A worker whose memory (heap and external) grew by more than this since it started (MiB) is
   * replaced after its job. A started worker holds ~80 MiB; a first GeoPackage adds ~20 (sql.js),
   * a 100,000-position boundary ~50.
   */
  recycleGrowthMb: 32
} as const

/** A file refused for its budget: what it answers, and which budget it passed. */
export interface OverBudget extends ImportFailure {
  /** `time`: the read ran past `timeMs` (depends on the load); `memory`: it exhausted the worker's heap. */
  readonly overBudget: "time" | "memory"
}

/** What a read answers: the import's result, or a refusal for its budget. */
export type PoolResult = ImportResult | OverBudget

export interface ImportPoolOptions {
  readonly workers?: number
  readonly maxQueued?: number
  readonly perAccount?: number
  readonly budgetMs?: number
  readonly heapMb?: number
  readonly recycleGrowthMb?: number
}

interface Slot extends WorkerSlot<Pending> {
  /** The worker's memory once started (bytes). */
  baseline: number
}

interface Pending {
  readonly job: ImportJob
  readonly owner: string
  readonly done: (r: PoolResult | FeaturesResult | Error) => void
}

const workerEntry = workerModule(import.meta.url, "importWorker")

const MB = 1024 * 1024

const overBudget = (kind: "time" | "memory", message: string): OverBudget => ({ ok: false, overBudget: kind, problems: [{ field: "file", message }] })

const busy = () => new Errors.RateLimited({ message: "Too many files are being read right now; retry after 1 s", retryAfter: 1 })

/** A pool of import workers. */
export const makeImportPool = (options: ImportPoolOptions = {}) => {
  const size = Math.max(1, options.workers ?? IMPORT_BUDGETS.workers)
  const maxQueued = Math.max(0, options.maxQueued ?? IMPORT_BUDGETS.queued)
  const perAccount = Math.max(1, options.perAccount ?? IMPORT_BUDGETS.perAccount)
  const budgetMs = options.budgetMs ?? IMPORT_BUDGETS.timeMs
  const heapMb = options.heapMb ?? IMPORT_BUDGETS.heapMb
  const recycleGrowth = (options.recycleGrowthMb ?? IMPORT_BUDGETS.recycleGrowthMb) * MB
  const slots = makeWorkerSlots<Slot>()
  const queue: Array<Pending> = []
  /** Jobs running or waiting, per owner. */
  const held = makeShares()
  const counts = { jobs: 0, recycled: 0, outOfMemory: 0, timedOut: 0 }
  let seq = 0

  /** The slot's job ends with `result`: the job is answered, and the slot is free (or gone). */
  const finish = (slot: Slot, result: PoolResult | FeaturesResult | Error) => {
    const job = slot.job
    slot.job = undefined
    if (slot.timer) clearTimeout(slot.timer)
    slot.timer = undefined
    job?.done(result)
  }
  const died = (slot: Slot, error: Error) => {
    if (!slots.has(slot)) return
    slots.remove(slot)
    if (slot.job) {
      const oom = (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY"
      if (oom) counts.outOfMemory++
      finish(slot, oom
        ? overBudget("memory", `reading the file needs more than the ${heapMb} MiB of memory an import may use`)
        : { ok: false, problems: [{ field: "file", message: "could not read the file (its reader stopped)" }] })
    }
    // A worker that could not start (e.g. its heap ceiling too small to load the readers): the
    // waiting imports are refused as "busy, retry" (429), said once on stderr for the operator.
    if (!slot.ready && queue.length > 0) {
      process.stderr.write(
        `${
          JSON.stringify({ time: new Date().toISOString(), component: "import-pool", error: "worker did not start",
            code: (error as { code?: string }).code ?? null })
        }\n`
      )
      for (const waiting of queue.splice(0)) waiting.done(error)
    }
    void endWorker(slot.worker)
    pump()
  }
  const spawn = () => {
    const worker = new Worker(workerEntry.url, {
      execArgv: workerEntry.execArgv,
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: IMPORT_BUDGETS.youngMb }
    })
    const slot: Slot = { worker, ready: false, baseline: 0, job: undefined, timer: undefined }
    slots.add(slot)
    worker.on("message", (m: ImportAnswer | WorkerReady) => {
      if ("ready" in m) {
        slot.ready = true
        slot.baseline = m.memoryBytes
      } else if (slot.job && m.id === slot.job.job.id) {
        finish(slot, m.result)
        if (m.memoryBytes - slot.baseline > recycleGrowth) {
          counts.recycled++
          slots.remove(slot)
          void endWorker(worker)
          replace() // its replacement starts as soon as it has ended, not when the next file comes
        }
      }
      pump()
    })
    worker.on("error", (e) => died(slot, e))
    worker.on("exit", (code) => died(slot, new Error(`GIS import worker exited with code ${code}`)))
  }
  function replace() {
    if (!closed && slots.count() < size && mayStartWorker(replace)) spawn()
  }
  function pump() {
    for (;;) {
      const next = queue[0]
      const idle = next && slots.idle()
      if (!next || !idle) break
      queue.shift()
      idle.job = next
      idle.timer = setTimeout(() => {
        counts.timedOut++
        slots.remove(idle)
        void endWorker(idle.worker)
        finish(idle, overBudget("time", `the file took longer than ${budgetMs / 1000} s to read`))
        pump()
      }, budgetMs)
      idle.worker.postMessage(next.job)
    }
    const starting = slots.starting()
    while (slots.count() < Math.min(size, slots.count() - starting + Math.max(starting, queue.length)) && !closed && mayStartWorker(pump)) spawn()
    slots.reference(queue.length)
  }

  /**
   * Reads a file in a worker. `owner` (an account id) shares the pool: at most `perAccount` of
   * its files are running or waiting. Fails with RateLimited when the pool or the owner's share is full.
   */
  const read = (bytes: Uint8Array, hint: ImportHint, owner = "", limits: Partial<ImportLimits> = {}): Effect.Effect<PoolResult, Errors.RateLimited> =>
    submit<PoolResult>(bytes, hint, owner, limits, undefined)

  /**
   * Reads a file feature by feature (a bulk import: each feature's boundary or problems, named
   * from `fields`), in a worker, within the same budgets and shares as `read`.
   */
  const readFeatures = (bytes: Uint8Array, hint: ImportHint, owner: string,
    fields: FeatureFields): Effect.Effect<FeaturesResult | OverBudget, Errors.RateLimited> =>
    submit<FeaturesResult | OverBudget>(bytes, hint, owner, {}, fields)

  const submit = <R>(bytes: Uint8Array, hint: ImportHint, owner: string, limits: Partial<ImportLimits>,
    perFeature: FeatureFields | undefined): Effect.Effect<R, Errors.RateLimited> =>
    Effect.suspend(() => {
      const full = !slots.idle() && queue.length >= maxQueued
      if (full || held.of(owner) >= perAccount) return Effect.fail(busy())
      counts.jobs++
      return queueOwned(queue, held, owner, (done): Pending => ({ job: { id: ++seq, bytes, hint, limits, perFeature }, owner, done }),
        (r: PoolResult | FeaturesResult | Error) => r instanceof Error ? Effect.fail(busy()) : Effect.succeed(r as R), pump)
    })

  let closed = false
  const close = () => {
    closed = true
    return terminateInTurn(slots.takeAll())
  }
  /** Workers, jobs running and waiting now, and counts since the pool began. */
  const stats = () => ({ workers: slots.count(), running: slots.running(), queued: queue.length, ...counts })
  return { read, readFeatures, close, stats }
}

/** A pool of import workers. */
export type ImportPool = ReturnType<typeof makeImportPool>

const processPool = processWide(() => makeImportPool())

/** The process's pool (`IMPORT_BUDGETS`), started on first use. */
export const importPool: () => ImportPool = processPool.get

/** Replaces the process's pool (other budgets, e.g. in a test); resolves once the previous one is closed. */
export const replaceImportPool: (pool: ImportPool) => Promise<void> = processPool.replace
