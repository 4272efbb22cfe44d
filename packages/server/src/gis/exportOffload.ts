/**
 * Zipped Shapefile and GeoPackage exports built off the event loop, in the manner of the import
 * workers (offload.ts): a file of either format is made whole (a zip's central directory, a
 * SQLite file) before it is sent, and building one costs CPU in proportion to its boundaries, so
 * every one is built in a worker thread (exportWorker.ts) with a time and a memory budget
 * (`EXPORT_BUDGETS`), never on the loop.
 *
 * - At most `workers` files are built at once; at most `queued` wait, and at most `perAccount` of
 *   one account are building or waiting: more are refused with 429 `RATE_LIMITED`, Retry-After 1.
 * - A build that overruns `timeMs`, or whose worker ends (its heap capped at `heapMb`), fails as a
 *   defect of the request (500), and its worker is replaced.
 * - A worker is kept for the next file, unless the file it built was larger than
 *   `recycleAfterMb`: then it is ended, giving its memory (sql.js's WebAssembly memory among it)
 *   back. Idle workers do not keep the process alive.
 */
import { Errors } from "@canopy/core"
import { Effect } from "effect"
import { Worker } from "node:worker_threads"
import { endWorker, makeShares, mayStartWorker, processWide, queueOwned, terminateInTurn, workerModule } from "../workerPool.ts"
import type { ExportEnd } from "./export.ts"
import type { BinaryExportFormat, ExportAnswer, ExportJob } from "./exportWorker.ts"

/** The budgets of the export workers. */
export const EXPORT_BUDGETS = {
  /** Files built at once (one worker each). */
  workers: 1,
  /** Files waiting for a worker; more are a 429. */
  queued: 4,
  /** Files of one account building or waiting; more are a 429. */
  perAccount: 2,
  /** Longest one file may take to build (ms). */
  timeMs: 60_000,
  /** A worker's old-generation heap ceiling (MiB). */
  heapMb: 512,
  /** A worker that built a file larger than this (MiB) is ended after it. */
  recycleAfterMb: 16
} as const

interface Pending {
  readonly job: ExportJob
  readonly owner: string
  readonly done: (r: Uint8Array | Error) => void
}

interface Slot {
  readonly worker: Worker
  job: Pending | undefined
  timer: ReturnType<typeof setTimeout> | undefined
}

const workerEntry = workerModule(import.meta.url, "exportWorker")

const busy = () => new Errors.RateLimited({ message: "Too many export files are being built right now; retry after 1 s", retryAfter: 1 })

/** A pool of export workers. */
export const makeExportPool = (options: Partial<Record<keyof typeof EXPORT_BUDGETS, number>> = {}) => {
  const budgets = { ...EXPORT_BUDGETS, ...options }
  const slots: Array<Slot> = []
  const queue: Array<Pending> = []
  const held = makeShares()
  const counts = { jobs: 0, recycled: 0, failed: 0 }
  let seq = 0

  const drop = (slot: Slot) => {
    const i = slots.indexOf(slot)
    if (i >= 0) slots.splice(i, 1)
    if (slot.timer) clearTimeout(slot.timer)
    void endWorker(slot.worker)
  }
  const finish = (slot: Slot, result: Uint8Array | Error) => {
    const job = slot.job
    slot.job = undefined
    if (slot.timer) clearTimeout(slot.timer)
    slot.timer = undefined
    if (result instanceof Error) counts.failed++
    job?.done(result)
  }
  const spawn = (): Slot => {
    const worker = new Worker(workerEntry.url, { execArgv: workerEntry.execArgv, resourceLimits: { maxOldGenerationSizeMb: budgets.heapMb } })
    const slot: Slot = { worker, job: undefined, timer: undefined }
    slots.push(slot)
    worker.on("message", (m: ExportAnswer) => {
      if (!slot.job || m.id !== slot.job.job.id) return
      finish(slot, m.ok ? m.bytes : new Error(`the export file could not be built (${m.message})`))
      if (m.ok && m.bytes.byteLength > budgets.recycleAfterMb * 1024 * 1024) {
        counts.recycled++
        drop(slot)
      }
      pump()
    })
    const died = (e: Error) => {
      if (!slots.includes(slot)) return
      drop(slot)
      finish(slot, new Error(`the export worker stopped (${e.message})`))
      pump()
    }
    worker.on("error", died)
    worker.on("exit", (code) => died(new Error(`exit code ${code}`)))
    return slot
  }
  function pump() {
    for (;;) {
      const next = queue[0]
      if (!next) break
      const idle = slots.find((s) => !s.job) ?? (slots.length < budgets.workers && !closed && mayStartWorker(pump) ? spawn() : undefined)
      if (!idle) break
      queue.shift()
      idle.job = next
      idle.timer = setTimeout(() => {
        drop(idle)
        finish(idle, new Error(`the export file took longer than ${budgets.timeMs / 1000} s to build`))
        pump()
      }, budgets.timeMs)
      idle.worker.postMessage(next.job, next.job.records.map((r) => r.buffer as ArrayBuffer))
    }
    for (const s of slots) {
      if (s.job) s.worker.ref()
      else s.worker.unref()
    }
  }

  /**
   * Builds a file in a worker from the projects' JSON texts (their buffers are handed over:
   * each must own its buffer). `owner` (an account id) shares the pool. Fails with RateLimited
   * when the pool or the owner's share is full; dies when the build fails.
   */
  const build = (
    format: BinaryExportFormat,
    records: ReadonlyArray<Uint8Array>,
    options: { readonly baseName: string; readonly end?: ExportEnd | undefined; readonly owner?: string }
  ): Effect.Effect<Uint8Array, Errors.RateLimited> =>
    Effect.suspend(() => {
      const owner = options.owner ?? ""
      const free = slots.some((s) => !s.job) || slots.length < budgets.workers
      if ((!free && queue.length >= budgets.queued) || held.of(owner) >= budgets.perAccount) return Effect.fail(busy())
      counts.jobs++
      return queueOwned(queue, held, owner,
        (done): Pending => ({ job: { id: ++seq, format, baseName: options.baseName, records, end: options.end }, owner, done }),
        (r: Uint8Array | Error) => r instanceof Error ? Effect.die(r) : Effect.succeed(r), pump)
    })

  let closed = false
  const close = () => {
    closed = true
    return terminateInTurn(slots.splice(0))
  }
  /** Workers, files building and waiting now, and counts since the pool began. */
  const stats = () => ({ workers: slots.length, running: slots.filter((s) => s.job).length, queued: queue.length, ...counts })
  return { build, close, stats }
}

/** A pool of export workers. */
export type ExportPool = ReturnType<typeof makeExportPool>

const processPool = processWide(() => makeExportPool())

/** The process's export pool (`EXPORT_BUDGETS`), started on first use. */
export const exportPool: () => ExportPool = processPool.get
