/**
 * A GIS import worker thread: runs `importBoundary` (or, for a bulk import, `importFeatures`) on
 * the bytes it is sent, one file at a time,
 * and answers the result with the memory the thread holds after it. The pool (offload.ts)
 * terminates it when an import overruns its budget, and replaces it when it grew too much.
 */
import { getHeapStatistics } from "node:v8"
import { parentPort } from "node:worker_threads"
import { type FeatureFields, type FeaturesResult, importFeatures } from "./features.ts"
import { importBoundary } from "./index.ts"
import type { ImportHint, ImportLimits, ImportResult } from "./types.ts"

/** What the pool sends. */
export interface ImportJob {
  readonly id: number
  readonly bytes: Uint8Array
  readonly hint: ImportHint
  readonly limits: Partial<ImportLimits>
  /** Read feature by feature (a bulk import), naming projects from these fields, instead of as one boundary. */
  readonly perFeature?: FeatureFields | undefined
}

/** What the worker answers. */
export interface ImportAnswer {
  readonly id: number
  readonly result: ImportResult | FeaturesResult
  /** Bytes this thread holds after the job: its V8 heap and external memory (buffers and WebAssembly memory among them). */
  readonly memoryBytes: number
}

/** What the worker says once started, with its memory then. */
export interface WorkerReady {
  readonly ready: true
  readonly memoryBytes: number
}

const port = parentPort
if (!port) throw new Error("gis/importWorker.ts runs as a worker thread")

/** The thread's memory: its heap as reserved, plus what lives outside it (buffers, WebAssembly memory). */
const memoryHeld = () => {
  const heap = getHeapStatistics()
  return heap.total_heap_size + heap.malloced_memory + process.memoryUsage().external
}

port.on("message", (job: ImportJob) => {
  const reading: Promise<ImportResult | FeaturesResult> = job.perFeature
    ? importFeatures(job.bytes, job.hint, { limits: job.limits, fields: job.perFeature })
    : importBoundary(job.bytes, job.hint, { limits: job.limits })
  void reading.then((result) => port.postMessage({ id: job.id, result, memoryBytes: memoryHeld() } satisfies ImportAnswer))
})
port.postMessage({ ready: true, memoryBytes: memoryHeld() } satisfies WorkerReady)
