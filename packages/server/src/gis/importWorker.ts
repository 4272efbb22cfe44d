/**
 * A GIS import worker thread: runs `importBoundary` on the bytes it is sent, one file at a time,
 * and answers the result. The pool (offload.ts) terminates it when an import overruns its budget.
 */
import { parentPort } from "node:worker_threads"
import { importBoundary } from "./index.ts"
import type { ImportHint, ImportLimits, ImportResult } from "./types.ts"

/** What the pool sends. */
export interface ImportJob {
  readonly id: number
  readonly bytes: Uint8Array
  readonly hint: ImportHint
  readonly limits: Partial<ImportLimits>
}

/** What the worker answers. */
export interface ImportAnswer {
  readonly id: number
  readonly result: ImportResult
}

const port = parentPort
if (!port) throw new Error("gis/importWorker.ts runs as a worker thread")

port.on("message", (job: ImportJob) => {
  void importBoundary(job.bytes, job.hint, { limits: job.limits }).then((result) => port.postMessage({ id: job.id, result } satisfies ImportAnswer))
})
port.postMessage({ ready: true })
