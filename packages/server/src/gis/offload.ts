/**
 * `importBoundary` off the event loop, for the import endpoints: parsing a file is synchronous CPU
 * work (up to a few hundred ms for the largest allowed files, ~1 s for the first GeoPackage of a
 * process), so files are read in worker threads.
 *
 * - Small text files (GeoJSON or KML under `INLINE_BYTES`) are read inline: a few milliseconds,
 *   less than the trip to a worker. Zips and GeoPackages always go to a worker (a small zip may
 *   inflate to `maxUncompressedBytes`).
 * - At most `workers` imports run at once (default 2); at most `maxQueued` wait (default 8). More
 *   are refused with `GeometryCheck.busy()` (429 `RATE_LIMITED` with Retry-After): the server is
 *   saturated, the request was fine.
 * - An import that overruns its budget (default 20 s) is abandoned: its worker is terminated and
 *   the answer is a problem on `file`. Nothing runs unbounded: the module's own limits
 *   (`DEFAULT_LIMITS`, lowered per call) bound the work of every import, inline or not.
 * - Workers start on first use (~0.4 s) and are kept; idle workers do not keep the process alive.
 */
import { Errors, GeometryCheck } from "@canopy/core"
import { Effect } from "effect"
import { Worker } from "node:worker_threads"
import type { ImportAnswer, ImportJob } from "./importWorker.ts"
import type { ImportHint, ImportLimits, ImportResult } from "./types.ts"

/** Text files below this size are read on the event loop. */
export const INLINE_BYTES = 64 * 1024

export interface ImportPoolOptions {
  readonly workers?: number
  readonly maxQueued?: number
  readonly budgetMs?: number
}

interface Slot {
  readonly worker: Worker
  ready: boolean
  job: Pending | undefined
  timer: ReturnType<typeof setTimeout> | undefined
}

interface Pending {
  readonly job: ImportJob
  readonly done: (r: ImportResult | Error) => void
}

const fromSources = import.meta.url.endsWith(".ts")
const workerUrl = new URL(fromSources ? "./importWorker.ts" : "./importWorker.js", import.meta.url)
const execArgv = fromSources ? ["--conditions=source", "--disable-warning=ExperimentalWarning"] : []

const isSmallText = (bytes: Uint8Array) => {
  if (bytes.length >= INLINE_BYTES) return false
  for (const b of bytes) {
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || b === 0xef || b === 0xbb || b === 0xbf) continue // blanks, BOM
    return b === 0x7b /* { */ || b === 0x3c /* < */
  }
  return true
}

/** A pool of import workers. */
export const makeImportPool = (options: ImportPoolOptions = {}) => {
  const size = Math.max(1, options.workers ?? 2)
  const maxQueued = Math.max(0, options.maxQueued ?? 8)
  const budgetMs = options.budgetMs ?? 20_000
  const slots: Array<Slot> = []
  const queue: Array<Pending> = []
  let seq = 0

  const remove = (slot: Slot) => {
    const i = slots.indexOf(slot)
    if (i >= 0) slots.splice(i, 1)
    if (slot.timer) clearTimeout(slot.timer)
  }
  const reference = () => {
    for (const s of slots) (s.job || (!s.ready && queue.length > 0) ? s.worker.ref() : s.worker.unref())
  }
  const failed = (slot: Slot, error: Error) => {
    if (!slots.includes(slot)) return
    remove(slot)
    const job = slot.job
    slot.job = undefined
    job?.done(error)
    if (!slot.ready) for (const waiting of queue.splice(0)) waiting.done(error)
    pump()
  }
  const spawn = () => {
    const worker = new Worker(workerUrl, { execArgv })
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined }
    slots.push(slot)
    worker.on("message", (m: ImportAnswer | { ready: true }) => {
      if ("ready" in m) slot.ready = true
      else if (slot.job && m.id === slot.job.job.id) {
        const job = slot.job
        clearTimeout(slot.timer)
        slot.timer = undefined
        slot.job = undefined
        job.done(m.result)
      }
      pump()
    })
    worker.on("error", (e) => failed(slot, e))
    worker.on("exit", (code) => failed(slot, new Error(`GIS import worker exited with code ${code}`)))
  }
  function pump() {
    for (;;) {
      const next = queue[0]
      const idle = next && slots.find((s) => s.ready && !s.job)
      if (!next || !idle) break
      queue.shift()
      idle.job = next
      idle.timer = setTimeout(() => {
        const job = idle.job
        remove(idle)
        idle.job = undefined
        void idle.worker.terminate()
        job?.done({ ok: false, problems: [{ field: "file", message: `the file took longer than ${budgetMs / 1000} s to read` }] })
        pump()
      }, budgetMs)
      idle.worker.postMessage(next.job)
    }
    const starting = slots.filter((s) => !s.ready).length
    while (slots.length < Math.min(size, slots.length - starting + Math.max(starting, queue.length))) spawn()
    reference()
  }

  /** Reads a file (inline when it is a small text file, else in a worker). */
  const read = (bytes: Uint8Array, hint: ImportHint, limits: Partial<ImportLimits> = {}): Effect.Effect<ImportResult, Errors.RateLimited> =>
    isSmallText(bytes)
      ? Effect.promise(async () => (await import("./index.ts")).importBoundary(bytes, hint, { limits }))
      : Effect.suspend(() => {
        const busy = !slots.some((s) => s.ready && !s.job) && queue.length >= maxQueued
        if (busy) return Effect.fail(GeometryCheck.busy())
        return Effect.callback<ImportResult>((resume) => {
          const pending: Pending = {
            job: { id: ++seq, bytes, hint, limits },
            done: (r) => resume(r instanceof Error ? Effect.die(r) : Effect.succeed(r))
          }
          queue.push(pending)
          pump()
          return Effect.sync(() => {
            const i = queue.indexOf(pending)
            if (i >= 0) queue.splice(i, 1)
          })
        })
      })

  const close = async () => {
    for (const s of slots.splice(0)) {
      if (s.timer) clearTimeout(s.timer)
      await s.worker.terminate()
    }
  }
  return { read, close, stats: () => ({ workers: slots.length, running: slots.filter((s) => s.job).length, queued: queue.length }) }
}

/** The process's pool, started on first use. */
let shared: ReturnType<typeof makeImportPool> | undefined
export const importPool = () => (shared ??= makeImportPool())
