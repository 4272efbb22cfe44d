/**
 * A geometry worker thread: validates and measures boundaries (packed, or as JSON text), one at a time, with the
 * core's own `GeometryCheck.evaluate`, and answers the problems or the area and bbox. The pool
 * (pool.ts) terminates it when a job overruns its time budget.
 */
import { GeometryCheck } from "@canopy/core"
import { parentPort } from "node:worker_threads"
import { type Answer, type Ready, type Request, unpack } from "./transfer.ts"

const port = parentPort
if (!port) throw new Error("geometry/worker.ts runs as a worker thread")

port.on("message", (request: Request) => {
  const verdict = GeometryCheck.evaluate("packed" in request ? unpack(request.packed) : JSON.parse(request.json))
  const answer: Answer = verdict._tag === "Invalid"
    ? { id: request.id, problems: verdict.problems }
    : { id: request.id, area_hectares: verdict.area_hectares, bbox: verdict.bbox }
  port.postMessage(answer)
})
port.postMessage({ ready: true } satisfies Ready)
