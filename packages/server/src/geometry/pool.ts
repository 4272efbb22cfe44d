/**
 * The server's `GeometryCheck`: boundaries of `threshold` positions (and rings) or more are
 * validated and measured in worker threads, so that the event loop keeps answering while one is checked.
 *
 * - Small boundaries (the usual case) stay inline: below 2,000 positions (and rings) a check costs
 *   about a millisecond a thousand positions once compiled (a few ms in the worst shapes), less than
 *   the trip to a worker and back with a packed copy. So do boundaries over the 100,000-position
 *   cap, which the validator rejects at once.
 * - A check that overruns its time budget (default 1.5 s) is abandoned: the worker is terminated
 *   (and replaced when needed) and the answer is the 422 `GeometryCheck.tooComplex`. Nothing runs
 *   unbounded.
 * - Checks waiting for a worker hold at most `queuedPositions` positions together (default
 *   400,000 per worker: about two seconds of validation each, four of the largest boundaries); a
 *   check that would pass that is answered 429 `RATE_LIMITED` (`GeometryCheck.busy`): the request
 *   was fine, the server is saturated, and the client should retry. Bounding the queue by work
 *   rather than by count lets a burst of ordinary 1,000-vertex outlines wait while a burst of
 *   100,000-position ones is refused early.
 * - Workers start on first use (or at once with `prewarm`, which also warms the inline overlap
 *   measure), ~0.4 s each, mostly loading `effect`;
 *   the budget starts when a ready worker gets the job. Idle workers do not keep the process alive.
 */
import { type Errors, Geometry, GeometryCheck, RawJson } from "@canopy/core"
import { Effect } from "effect"
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { endWorker, makeWorkerSlots, mayStartWorker, workerModule, type WorkerSlot } from "../workerPool.ts"
import { COVERS_INLINE_CHARS, measuredInline, warmInline } from "./inline.ts"
import { type Answer, type BodyAnswer, bodyTransfer, pack, type Ready, type Request, sizeOf } from "./transfer.ts"

/** Options of the pool. */
export interface GeometryPoolOptions {
  /** Worker threads; default: the machine's available parallelism minus one (the event loop's), at least 1. */
  readonly workers?: number
  /** Boundaries with fewer positions, rings and polygons (together) are checked inline; default 2,000. */
  readonly threshold?: number
  /** Most time one check may run in a worker, in milliseconds; default 1,500. */
  readonly budgetMs?: number
  /** Most positions the checks waiting for a worker may hold together; default 400,000 per worker. */
  readonly queuedPositions?: number
  /** Start every worker now instead of on first use, and replace a terminated one at once. */
  readonly prewarm?: boolean
  /** Most time measuring the area two boundaries share may run in a worker, in milliseconds; default twice `budgetMs`. */
  readonly sharedBudgetMs?: number
  /**
   * How much lower than the event loop the workers are scheduled (a nice increment, 0–19; Linux,
   * where threads have priorities of their own); default 10. 0 keeps the process's priority.
   */
  readonly niceness?: number
}

/** The defaults. */
export const defaults = {
  threshold: 2_000,
  budgetMs: 1_500,
  queuedPositionsPerWorker: 400_000,
  niceness: 10
} as const

/** A running pool: the check, figures for tests and operators, and `close`. */
export interface GeometryPool extends GeometryCheck.GeometryCheckShape {
  /**
   * Workers started (ready or starting), checks running and waiting, checks answered by a worker,
   * and checks abandoned for their budget; of those answered or abandoned, how many were overlap
   * measures (`shared`) rather than checks of a boundary.
   */
  readonly stats: () => {
    readonly workers: number
    readonly running: number
    readonly queued: number
    readonly completed: number
    readonly abandoned: number
    readonly measures: number
  }
  /** Terminates the workers; checks still waiting fail. */
  readonly close: () => Promise<void>
}

interface Job {
  readonly positions: number
  /** Most time it may run in a worker (ms). */
  readonly budgetMs: number
  /** When its caller stops waiting (`performance.now()`), queueing included: a measure with a limit. */
  readonly deadline: number
  readonly request: Request
  readonly done: (outcome: Answer | "timeout" | Error) => void
}

type Slot = WorkerSlot<Job>

const workerEntry = workerModule(import.meta.url, "worker")

/** Bytes of JSON per position, to count a body's positions in the queue before it is parsed. */
const BYTES_PER_POSITION = 20

/** The default number of workers: one core is the event loop's. */
const defaultWorkers = () => Math.max(1, availableParallelism() - 1)

/** Starts a pool (workers start on first use unless `prewarm`). */
export const makeGeometryPool = (options: GeometryPoolOptions = {}): GeometryPool => {
  const or = (v: number | undefined, fallback: number) => (v !== undefined && Number.isFinite(v) ? v : fallback)
  const size = Math.max(1, Math.floor(or(options.workers, defaultWorkers())))
  const threshold = or(options.threshold, defaults.threshold)
  const budgetMs = Math.max(0, or(options.budgetMs, defaults.budgetMs))
  const niceness = Math.min(19, Math.max(0, Math.floor(or(options.niceness, defaults.niceness))))
  const maxQueued = Math.max(0, Math.floor(or(options.queuedPositions, defaults.queuedPositionsPerWorker * size)))
  const queuedPositions = () => queue.reduce((n, job) => n + job.positions, 0)
  let prewarm = options.prewarm ?? false

  const sharedBudgetMs = Math.max(0, or(options.sharedBudgetMs, budgetMs * 2))
  const slots = makeWorkerSlots<Slot>()
  const queue: Array<Job> = []
  let seq = 0
  let abandoned = 0
  let completed = 0
  let measures = 0
  let closed = false

  const failed = (slot: Slot, error: Error) => {
    if (!slots.has(slot)) return // terminated by us
    slots.remove(slot)
    const job = slot.job
    slot.job = undefined
    job?.done(error)
    // A worker that cannot even start would fail every job the same way: fail the waiting ones
    // now rather than respawn in a loop.
    if (!slot.ready) {
      prewarm = false
      for (const waiting of queue.splice(0)) waiting.done(error)
    }
    pump()
  }

  const spawn = () => {
    const worker = new Worker(workerEntry.url, { execArgv: workerEntry.execArgv, workerData: { niceness } })
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined }
    slots.add(slot)
    worker.on("message", (message: Answer | Ready) => {
      if ("ready" in message) {
        slot.ready = true
      } else if (slot.job && message.id === slot.job.request.id) {
        const job = slot.job
        clearTimeout(slot.timer)
        slot.timer = undefined
        slot.job = undefined
        completed++
        if ("shared" in job.request || "covers" in job.request) measures++
        job.done(message)
      }
      pump()
    })
    worker.on("error", (error) => failed(slot, error))
    worker.on("exit", (code) => failed(slot, new Error(`geometry worker exited with code ${code}`)))
  }

  const abandon = (slot: Slot) => {
    const job = slot.job
    slots.remove(slot)
    slot.job = undefined
    abandoned++
    if (job && ("shared" in job.request || "covers" in job.request)) measures++
    void endWorker(slot.worker)
    job?.done("timeout")
    pump()
  }

  const dispatch = (slot: Slot, job: Job) => {
    slot.job = job
    slot.timer = setTimeout(() => abandon(slot), Math.min(job.budgetMs, job.deadline - performance.now()))
    const request = job.request
    slot.worker.postMessage(request, "packed" in request
      ? [request.packed.xy.buffer, request.packed.rings.buffer, request.packed.polygons.buffer] as Array<ArrayBuffer>
      : "body" in request ? bodyTransfer(request.body)
      : [])
  }

  function pump() {
    if (closed) return
    for (;;) {
      const job = queue[0]
      const idle = job && slots.idle()
      if (!job || !idle) break
      queue.shift()
      // Its caller's limit passed while it waited: answered without running.
      if (job.deadline <= performance.now()) job.done("timeout")
      else dispatch(idle, job)
    }
    const starting = slots.starting()
    const wanted = prewarm ? size : Math.min(size, slots.count() - starting + Math.max(starting, queue.length))
    while (slots.count() < wanted && mayStartWorker(pump)) spawn()
    // Workers hold the process open only while they have work (a job, or jobs waiting for them).
    slots.reference(queue.length)
  }

  const toVerdict = (answer: Exclude<Answer, BodyAnswer | { readonly sharedHectares: number } | { readonly covered: boolean }>,
    value: unknown): GeometryCheck.Verdict =>
    "problems" in answer
      ? { _tag: "Invalid", problems: answer.problems }
      // The stored geometry is the caller's value normalised here (0.4 ms for 100,000 positions),
      // altitudes included: the worker's copy has none; then its JSON text (27 ms for 100,000).
      : { _tag: "Valid", geometry: GeometryCheck.storedText(Geometry.normalize(value as Geometry.Boundary)), area_hectares: answer.area_hectares,
        bbox: answer.bbox }

  const check = (value: unknown): Effect.Effect<GeometryCheck.Verdict, Errors.RateLimited> =>
    Effect.suspend(() => {
      const size = sizeOf(value)
      // Not a boundary at all, small, or over the position cap: the validator answers at once.
      if (!size || size.positions + size.parts < threshold || size.positions > Geometry.MAX_POSITIONS) {
        return GeometryCheck.inline.check(value)
      }
      // Packing is a stretch of its own too (decoding the body came just before it).
      return Effect.yieldNow.pipe(Effect.andThen(submit<GeometryCheck.Verdict>(size.positions, (id) => {
        const packed = pack(value)
        return packed ? { id, packed } : { id, json: JSON.stringify(value) }
      }, (outcome) =>
        outcome === "timeout" ? Effect.succeed(GeometryCheck.tooComplex(budgetMs))
          : outcome instanceof Error ? Effect.die(outcome)
          : !("problems" in outcome) && !("area_hectares" in outcome) ? Effect.die(new Error("a geometry worker answered a check with something else"))
          // Serialising a large boundary is a stretch of its own: the loop turns before and after it.
          : Effect.yieldNow.pipe(Effect.andThen(Effect.sync(() => toVerdict(outcome, value))), Effect.tap(() => Effect.yieldNow)))))
    })

  /** Queues a job, unless the waiting ones already hold too many positions: then `busy`. */
  const submit = <A>(
    positions: number,
    request: (id: number) => Request,
    settle: (outcome: Answer | "timeout" | Error) => Effect.Effect<A>,
    jobBudgetMs = budgetMs,
    limitMs = Infinity
  ) =>
    Effect.suspend(() => {
      const waits = !slots.idle()
      if (closed || (waits && queue.length > 0 && queuedPositions() + positions > maxQueued)) return Effect.fail(GeometryCheck.busy())
      return Effect.callback<A>((resume) => {
        const job: Job = { positions, budgetMs: jobBudgetMs, deadline: performance.now() + limitMs, request: request(++seq),
          done: (outcome) => resume(settle(outcome)) }
        queue.push(job)
        pump()
        // Interrupted while waiting: leave the queue. (A running job finishes or hits its budget.)
        return Effect.sync(() => {
          const i = queue.indexOf(job)
          if (i >= 0) queue.splice(i, 1)
        })
      })
    })

  // A body's boundary comes back as its UTF-8 text and measures; only the small rest of the body
  // is rebuilt on this thread. The body itself moves to the worker when the HTTP adapter made it
  // for this request alone (transfer.ts `movableBodies`), else it is copied.
  const parseBody = (bytes: Uint8Array, field: string): Effect.Effect<GeometryCheck.ParsedBody, Errors.RateLimited> =>
    submit<GeometryCheck.ParsedBody>(Math.ceil(bytes.length / BYTES_PER_POSITION), (id) => ({ id, body: bytes, field }), (outcome) => {
      if (outcome === "timeout") return Effect.succeed({ _tag: "TooComplex", problem: GeometryCheck.tooComplexProblem(budgetMs) })
      if (outcome instanceof Error) return Effect.die(outcome)
      if (!("rest" in outcome) && !("notJson" in outcome)) return Effect.die(new Error("a geometry worker answered a body with something else"))
      if ("notJson" in outcome) return Effect.succeed({ _tag: "NotJson", message: outcome.notJson })
      const f = outcome.field
      const value = f.kind === "absent" ? undefined
        : f.kind === "value" ? f.value
        : new GeometryCheck.Prepared(f.kind === "invalid"
          ? { _tag: "Invalid", problems: f.problems }
          // The text for the store, the bytes kept for the response (RawJson.chunks).
          : { _tag: "Valid", geometry: RawJson.RawJson.fromBytes(f.utf8), area_hectares: f.area_hectares, bbox: f.bbox })
      return Effect.succeed({ _tag: "Parsed", body: f.kind === "absent" ? outcome.rest : { ...(outcome.rest as object), [field]: value } })
    })

  // The area two stored boundaries share: its cost follows the crossings of their edges (up to
  // the product of their sizes), so all but pairs whose measure fits the inline budget go to a
  // worker with a time budget of their own, which stops the measure itself, not only the next one.
  const shared = (a: RawJson.RawJson, b: RawJson.RawJson, limitMs?: number): Effect.Effect<GeometryCheck.Shared, Errors.RateLimited> =>
    Effect.suspend(() => {
      const allowed = Math.min(sharedBudgetMs, limitMs ?? Infinity)
      const hectares = measuredInline(a, b)
      // Measured here: the loop turns before the next comparison (a write may make hundreds).
      if (hectares !== undefined) return Effect.as(Effect.yieldNow, { _tag: "Shared", hectares } as const)
      if (allowed <= 0) return Effect.succeed({ _tag: "TooComplex" } as const)
      return submit<GeometryCheck.Shared>(Math.ceil((a.text.length + b.text.length) / BYTES_PER_POSITION), (id) => ({ id, shared: [a.text, b.text] }),
        (outcome) =>
          outcome === "timeout" ? Effect.succeed({ _tag: "TooComplex" } as const)
            : outcome instanceof Error ? Effect.die(outcome)
            : !("sharedHectares" in outcome) ? Effect.die(new Error("a geometry worker answered an overlap with something else"))
            : Effect.succeed(
              Number.isFinite(outcome.sharedHectares) ? { _tag: "Shared", hectares: outcome.sharedHectares } as const : { _tag: "TooComplex" } as const
            ), allowed, limitMs)
    })

  // Whether a stored boundary covers a position: linear, but a large boundary's text is parsed in a
  // worker rather than on the loop.
  const covers = (b: RawJson.RawJson, position: Geometry.Position, limitMs?: number): Effect.Effect<boolean | undefined, Errors.RateLimited> => {
    const allowed = Math.min(budgetMs, limitMs ?? Infinity)
    if (b.text.length < COVERS_INLINE_CHARS) return GeometryCheck.inline.covers!(b, position)
    if (allowed <= 0) return Effect.succeed(undefined)
    return submit<boolean | undefined>(Math.ceil(b.text.length / BYTES_PER_POSITION), (id) => ({ id, covers: b.text, position: [position[0], position[1]] }),
      (outcome) =>
        outcome === "timeout" ? Effect.succeed(undefined)
          : outcome instanceof Error ? Effect.die(outcome)
          : !("covered" in outcome) ? Effect.die(new Error("a geometry worker answered a point test with something else"))
          : Effect.succeed(outcome.covered), allowed, limitMs)
  }

  if (prewarm) {
    pump()
    warmInline()
  }

  return {
    check,
    parseBody,
    shared,
    covers,
    stats: () => ({ workers: slots.count(), running: slots.running(), queued: queue.length, completed, abandoned, measures }),
    close: async () => {
      if (closed) return
      closed = true
      const error = new Error("the geometry pool is closed")
      for (const job of queue.splice(0)) job.done(error)
      const all = slots.takeAll()
      for (const s of all) {
        if (s.timer) clearTimeout(s.timer)
        s.job?.done(error)
      }
      await Promise.all(all.map((s) => endWorker(s.worker)))
    }
  }
}
