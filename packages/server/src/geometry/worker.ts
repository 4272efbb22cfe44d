/**
 * A geometry worker thread: validates and measures boundaries (packed, or as JSON text), one at a time, with the
 * core's own `GeometryCheck.evaluate`, and answers the problems or the area and bbox. The pool
 * (pool.ts) terminates it when a job overruns its time budget.
 */
import { GeometryCheck, RawJson } from "@canopy/core"
import { readlinkSync } from "node:fs"
import { setPriority } from "node:os"
import { parentPort, workerData } from "node:worker_threads"
import { type Answer, type BodyAnswer, type Ready, type Request, unpack } from "./transfer.ts"

const port = parentPort
if (!port) throw new Error("geometry/worker.ts runs as a worker thread")

// Below the event loop's priority: when the cores are contended, the thread answering requests
// runs first and the validation waits (its time budget still bounds it). Linux schedules threads
// one by one (this thread's id from /proc); elsewhere the worker keeps the process's priority.
const niceness = (workerData as { niceness?: number } | undefined)?.niceness ?? 0
if (niceness > 0) {
  try {
    setPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()), niceness)
  } catch { /* not Linux, or not allowed: same priority as the loop */ }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const decoder = new TextDecoder("utf-8")
const encoder = new TextEncoder()

/** A request body: parsed here, its boundary field checked and serialised here; the rest goes back. */
const parseBody = (request: Extract<Request, { body: Uint8Array }>): BodyAnswer => {
  const text = decoder.decode(request.body)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { id: request.id, notJson: e instanceof SyntaxError ? e.message : "invalid JSON" }
  }
  GeometryCheck.keepSource(value, text, request.field) // a plain boundary is stored as sent, not serialised again
  if (!isRecord(value) || !Object.hasOwn(value, request.field)) return { id: request.id, rest: value, field: { kind: "absent" } }
  const { [request.field]: boundary, ...rest } = value
  if (boundary === null || typeof boundary !== "object") return { id: request.id, rest, field: { kind: "value", value: boundary } }
  const verdict = GeometryCheck.evaluate(boundary)
  return verdict._tag === "Invalid"
    ? { id: request.id, rest, field: { kind: "invalid", problems: verdict.problems } }
    : { id: request.id, rest, field: { kind: "valid", utf8: encoder.encode(verdict.geometry.text), area_hectares: verdict.area_hectares, bbox: verdict.bbox } }
}

port.on("message", (request: Request) => {
  if ("body" in request) {
    const answer = parseBody(request)
    // The boundary's text moves to the event loop's thread: its memory, not a copy of it.
    const f = "field" in answer ? answer.field : undefined
    port.postMessage(answer, f?.kind === "valid" ? [f.utf8.buffer as ArrayBuffer] : [])
    return
  }
  if ("covers" in request) {
    port.postMessage({ id: request.id, covered: GeometryCheck.measureCovers(new RawJson.RawJson(request.covers), request.position) } satisfies Answer)
    return
  }
  if ("shared" in request) {
    const [a, b] = request.shared
    const shared = GeometryCheck.measureShared(new RawJson.RawJson(a), new RawJson.RawJson(b))
    port.postMessage({ id: request.id, sharedHectares: shared._tag === "Shared" ? shared.hectares : Number.NaN } satisfies Answer)
    return
  }
  const verdict = GeometryCheck.evaluate("packed" in request ? unpack(request.packed) : JSON.parse(request.json))
  const answer: Answer = verdict._tag === "Invalid"
    ? { id: request.id, problems: verdict.problems }
    : { id: request.id, area_hectares: verdict.area_hectares, bbox: verdict.bbox }
  port.postMessage(answer)
})
port.postMessage({ ready: true } satisfies Ready)
