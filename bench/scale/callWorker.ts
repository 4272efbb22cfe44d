/**
 * A request made from a worker thread (see `measure.ts`'s `callOffThread`): the client's own work
 * on a large request or answer — writing megabytes, collecting them, its garbage collection —
 * then never delays the probes the benchmark's main thread sends meanwhile.
 */
import { parentPort, workerData } from "node:worker_threads"
import { call } from "./measure.ts"

const { url, opts } = workerData as { url: string; opts: Parameters<typeof call>[1] }
parentPort!.once("message", () => {
  call(url, opts).then(
    (a) => parentPort!.postMessage({ ok: true, status: a.status, ms: a.ms, body: a.body.length > 4_000 ? "" : a.body, bytes: a.bytes }),
    (e: unknown) => parentPort!.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) })
  )
})
parentPort!.postMessage("ready")
