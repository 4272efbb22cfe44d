/**
 * The runner of a started import (see Imports): its features go through Projects.create a chunk at
 * a time, each chunk one transaction under the account's lock whose projects, results and progress
 * commit together; a feature refused inside a chunk rolls it back and is replayed alone. The
 * runner renews the import's lease as it records, stops after the chunk at hand when the import is
 * cancelled or the service closes, and ends the import with its outcome.
 */
import { Cause, Effect, Exit } from "effect"
import { type DomainError, isDomainError, ValidationError } from "../Errors.ts"
import * as Overlap from "../Overlap.ts"
import type { Principal } from "../Principal.ts"
import type { ImportResultRow, ImportRow, StorageError, StorageShape } from "../Storage.ts"
import * as Time from "../Time.ts"
import { type Counts, createdRow, loopHold, refusedRow, Replay, tally } from "./importChunks.ts"
import { IMPORT_JOBS, type ImportFeature, lostRunner } from "./importJob.ts"
import type { Projects } from "./Projects.ts"

/** A domain failure of one feature's create, as its problems. */
const problemsOf = (e: DomainError): ReadonlyArray<{ field: string; message: string }> =>
  e instanceof ValidationError ? e.details : [{ field: "project", message: e.message }]

/** Lets the event loop serve other work (a macrotask turn: I/O, timers) before going on. */
export const letOthersIn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** What a chunk creates through: a Projects whose reads of an account are shared between `begin` and `end`. */
export interface ChunkWriter {
  readonly projects: Projects["Service"]
  readonly begin: (accountId: string) => void
  readonly end: (accountId: string) => void
}

/** What a runner works through and reports to: the store, the Projects it creates through, and the service's state of its jobs. */
export interface RunnerContext {
  readonly storage: StorageShape
  /** Creates a feature alone (a chunk's replay), as a single create is. */
  readonly projects: Projects["Service"]
  readonly chunkWriter: ChunkWriter
  /** Whether the service is closing (the server stops): runners stop after the chunk at hand. */
  readonly closing: () => boolean
  /** Whether the import was asked to stop (cancelled in this process). */
  readonly stopping: (id: string) => boolean
  /** Ends a running import and emits `import.completed`, together; undefined when it was not running. */
  readonly end: (row: ImportRow, status: "completed" | "failed" | "cancelled", error: string | null) => Effect.Effect<ImportRow | undefined, StorageError>
  /** Told when the runner is done, whatever its outcome. */
  readonly done: (id: string) => void
}

/**
 * Runs an import's features through Projects.create a chunk at a time: each chunk one
 * transaction under the account's lock, its projects, results and progress committed together
 * (so no project is ever without its result, and the store pays one commit per chunk instead of
 * one per feature). A chunk ends once it has held the event loop `sliceMs` without a turn (a
 * synchronous store's work), lasted `chunkMs` (round trips), or holds `chunkFeatures` results;
 * the loop is let in between chunks. A feature refused inside the transaction (a duplicate slug, an overlap the
 * account refuses, a limit reached) rolls its chunk back, and the chunk's features up to it are
 * then created each alone, as a single create is, and recorded; the next chunk starts after it.
 */
export const runImport = (ctx: RunnerContext, principal: Principal, row: ImportRow, features: ReadonlyArray<ImportFeature>) => {
  const { storage, projects, chunkWriter, end } = ctx
  /** What is committed: the counts recorded with the results stored so far. */
  let counts: Counts = { done: 0, created: 0, refused: 0, units: 0 }
  let halted = false
  const stopped = () => halted || ctx.closing() || ctx.stopping(row.id)
  /** Records `results` with the counts after them, renewing the lease; a run cancelled elsewhere halts here. */
  const record = (next: Counts, results: ReadonlyArray<ImportResultRow>) =>
    Effect.gen(function*() {
      const now = yield* Time.nowMillis
      const after = yield* storage.imports.record(row.account_id, row.id, {
        done: next.done,
        created: next.created,
        refused: next.refused,
        hectares: next.units / 10_000,
        lease_until: now + IMPORT_JOBS.leaseMs,
        updated_at: new Date(now).toISOString()
      }, results)
      if (after?.status !== "running") halted = true // cancelled (perhaps by another instance)
      return after
    })
  const base = (f: ImportFeature, position: number) => ({ import_id: row.id, account_id: row.account_id, position, label: f.label, name: f.name })
  const create = (f: ImportFeature, through = projects) =>
    Effect.flatMap(Time.nowMillis, (now) =>
      Effect.exit(Effect.provideService(through.create(principal, {
        name: f.name,
        ...(f.description !== undefined ? { description: f.description } : {}),
        geometry: f.geometry
      }), Overlap.WriteStarted, now)))
  /** One feature in a transaction of its own: its project, or its problems. */
  const alone = (f: ImportFeature, position: number) =>
    Effect.gen(function*() {
      if (f.problems.length > 0) return refusedRow(base(f, position), f.problems)
      const created = yield* create(f)
      if (Exit.isSuccess(created)) return createdRow(base(f, position), created.value)
      const e = Cause.findErrorOption(created.cause)
      if (e._tag === "None" || !isDomainError(e.value)) return yield* Effect.failCause(created.cause)
      return refusedRow(base(f, position), problemsOf(e.value))
    })
  /** Features from `from` in one transaction, while the chunk's budget lasts; fails with `Replay` on a refusal inside it. */
  const chunk = (from: number) =>
    storage.transaction(Effect.gen(function*() {
      yield* storage.lockAccount(row.account_id)
      chunkWriter.begin(row.account_id)
      const began = performance.now()
      const held = loopHold()
      const results: Array<ImportResultRow> = []
      let next = counts
      for (let position = from; position < features.length && !stopped(); position++) {
        const f = features[position]!
        let result: ImportResultRow
        if (f.problems.length > 0) result = refusedRow(base(f, position), f.problems)
        else {
          const created = yield* create(f, chunkWriter.projects)
          if (Exit.isFailure(created)) {
            const e = Cause.findErrorOption(created.cause)
            return yield* e._tag === "Some" && isDomainError(e.value) ? Effect.fail(new Replay({ position })) : Effect.failCause(created.cause)
          }
          result = createdRow(base(f, position), created.value)
        }
        results.push(result)
        next = tally(next, result)
        if (results.length >= IMPORT_JOBS.chunkFeatures || performance.now() - began >= IMPORT_JOBS.chunkMs || held() >= IMPORT_JOBS.sliceMs) break
      }
      yield* record(next, results)
      return next
    }).pipe(Effect.ensuring(Effect.sync(() => chunkWriter.end(row.account_id)))))
  /** A chunk rolled back at `refusedAt`: its features up to that one, each alone and recorded as it is done. */
  const replay = (from: number, refusedAt: number) =>
    Effect.gen(function*() {
      for (let position = from; position <= refusedAt && !stopped(); position++) {
        const result = yield* alone(features[position]!, position)
        counts = tally(counts, result)
        yield* record(counts, [result])
        yield* letOthersIn
      }
    })
  const work = Effect.gen(function*() {
    while (counts.done < features.length && !stopped()) {
      const from = counts.done
      const outcome = yield* Effect.result(chunk(from))
      if (outcome._tag === "Success") counts = outcome.success
      else if (outcome.failure instanceof Replay) yield* replay(from, outcome.failure.position)
      else return yield* Effect.fail(outcome.failure)
      yield* letOthersIn
    }
    const after = yield* record(counts, [])
    if (after?.status !== "running") return
    if (ctx.closing() && counts.done < features.length) yield* end(after, "failed", lostRunner(after))
    else yield* end(after, ctx.stopping(row.id) ? "cancelled" : "completed", null)
  })
  const settle = (error: string) => Effect.ignore(Effect.andThen(record(counts, []), end(row, "failed", error)))
  return work.pipe(
    Effect.onInterrupt(() => settle(lostRunner({ ...row, done: counts.done }))),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause)
        : settle(`a storage failure stopped the import after ${counts.done} of ${row.features} features; import the rest again`)
    ),
    Effect.ensuring(Effect.sync(() => ctx.done(row.id))),
    Effect.ignore
  )
}
