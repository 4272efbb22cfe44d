/**
 * Bulk imports: a file's features, already read and checked (the server reads files off the event
 * loop), become projects through the Projects service, a chunk of them per transaction — so
 * permissions, validation, overlaps, plan limits and events apply to each as to any create — in a
 * job that answers at once and reports its progress and per-feature results as it goes
 * (docs/gis.md, "Bulk imports").
 *
 * - Per feature: each feature its own project; a refused feature stores nothing and is listed
 *   with its problems. `merge`: the file's polygons as one project (the caller hands one feature).
 * - Before anything is stored, the plan's limits: hectares (the valid features' total beside the
 *   account's usage) and the daily request allowance (one create per feature). A file past one is
 *   refused whole, and a second import of an account while one runs is a 429.
 * - A running import holds a lease its runner renews as it records progress. A runner that stops
 *   with the process finishes the chunk at hand and marks its import failed; one that vanished (a crash) leaves a
 *   lease that runs out, and the import is marked failed at the next start-up or when it is read.
 * - `import.completed` is emitted when a (non-preview) import ends, whatever its outcome.
 *
 * This module is the jobs' lifecycle (admit, start, read, cancel, expire, stop); the runner of a
 * job's chunks is `importRunner.ts`, the job's shapes and limits `importJob.ts`, a preview's
 * overlaps `importPreview.ts`.
 */
import { Clock, Context, Effect, Fiber, FiberSet, Layer, Schema } from "effect"
import { Conflict, type DomainError, LimitExceeded, NotFound, RateLimited } from "../Errors.ts"
import { roundHectares } from "../Geometry.ts"
import * as Ids from "../Ids.ts"
import * as Overlap from "../Overlap.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { GetImportQuery, type ImportResource } from "../schemas/imports.ts"
import { Settings } from "../Settings.ts"
import { type ImportResultRow, type ImportRow, Storage, type StorageError, type StorageShape } from "../Storage.ts"
import * as Time from "../Time.ts"
import { decode } from "./common.ts"
import { completedData, IMPORT_JOBS, type ImportFeature, lostRunner, type StartImport, toResource } from "./importJob.ts"
import { previewOverlaps } from "./importPreview.ts"
import { importReads } from "./importReads.ts"
import { type ChunkWriter, letOthersIn, runImport, type RunnerContext } from "./importRunner.ts"
import { emit } from "./Outbox.ts"
import { Projects } from "./Projects.ts"
import * as UsageGuard from "./UsageGuard.ts"

export { type ImportFeature, type StartImport } from "./importJob.ts"
export { GetImportQuery, ImportResource } from "../schemas/imports.ts"

type ImportsError = DomainError | StorageError

/** The Imports service. */
export class Imports extends Context.Service<Imports, {
  /** Whether the principal may start an import now (permission, one running import per account): before a file is read. */
  readonly admit: (principal: Principal) => Effect.Effect<void, ImportsError>
  /** Checks the plan's limits and starts the import (a preview completes at once). */
  readonly start: (principal: Principal, input: StartImport) => Effect.Effect<ImportResource, ImportsError>
  readonly get: (principal: Principal, id: string, query?: unknown) => Effect.Effect<ImportResource, ImportsError>
  /** Stops a running import: the features done stay done, the rest are not imported. */
  readonly cancel: (principal: Principal, id: string) => Effect.Effect<ImportResource, ImportsError>
}>()("canopy/Imports") {
  static readonly layer = Layer.effect(this, Effect.gen(function*() {
    const storage = yield* Storage
    const projects = yield* Projects
    const jobs = yield* FiberSet.make<void, never>()
    // The runner's chunks create through a Projects of their own, over reads shared within a chunk.
    const reads = importReads(storage)
    const chunkProjects = Context.get(yield* Layer.build(Layer.provide(Projects.layer, Layer.succeed(Storage, reads.storage))), Projects)
    const service = make(storage, projects, jobs, { projects: chunkProjects, begin: reads.begin, end: reads.end })
    // Imports whose runner vanished (their lease ran out) are settled now, not left "running".
    yield* Effect.ignore(service.expire)
    // On close, before the set interrupts them: runners finish the chunk at hand and record it,
    // so that no project is left without its result.
    yield* Effect.addFinalizer(() => service.stopAll)
    return Imports.of(service.api)
  }))
}

const newId = () => `imp_${Ids.randomBase32(26)}`

/** Results of a preview written together. */
const PREVIEW_SLICE = 500

const tooBusy = (message: string) => new RateLimited({ message, retryAfter: 5 })

/** A feature's name and description, checked as a project's would be. */
const checkNames = Schemas.decodeRequest(Schema.Struct({ name: Schemas.Name, description: Schema.optionalKey(Schemas.Description) }))

const make = (storage: StorageShape, projects: Projects["Service"], jobs: FiberSet.FiberSet<void, never>, chunkWriter: ChunkWriter) => {
  const provide = <A, E>(effect: Effect.Effect<A, E, Storage>) => Effect.provideService(effect, Storage, storage)
  /** Whether the service is closing (the server stops): runners stop after the chunk at hand. */
  let closing = false
  /** Imports this process runs (their runners), and those asked to stop. */
  const local = new Map<string, Fiber.Fiber<void>>()
  const stopping = new Set<string>()

  const load = (accountId: string, id: string) =>
    Effect.flatMap(storage.imports.get(accountId, id), (row) => row ? Effect.succeed(row) : Effect.fail(new NotFound({ resource: "import", id })))

  /** Ends a running import and emits `import.completed`, together; undefined when it was not running. */
  const end = (row: ImportRow, status: "completed" | "failed" | "cancelled", error: string | null) =>
    provide(storage.transaction(Effect.gen(function*() {
      const ended = yield* storage.imports.finish(row.account_id, row.id, { status, error, completed_at: yield* Time.nowIso })
      if (ended && !ended.dry_run) yield* emit(row.account_id, "import.completed", completedData(ended))
      return ended
    })))

  /** What this service's runners work through, and how they learn of a cancel or a close. */
  const runner: RunnerContext = {
    storage,
    projects,
    chunkWriter,
    closing: () => closing,
    stopping: (id) => stopping.has(id),
    end,
    done: (id) => {
      local.delete(id)
      stopping.delete(id)
    }
  }

  /** Settles imports whose lease ran out: their runner is gone. */
  const expire = Effect.gen(function*() {
    for (;;) {
      const stale = yield* storage.imports.expired(yield* Time.nowMillis, 100)
      for (const row of stale) yield* end(row, "failed", lostRunner(row))
      if (stale.length < 100) return
    }
  })

  /** Refuses a file the plan's limits would not let through: hectares, and one create per feature a day. */
  const checkLimits = (principal: Principal, valid: ReadonlyArray<ImportFeature>, dryRun: boolean) =>
    Effect.gen(function*() {
      const account = yield* storage.accounts.get(principal.account_id)
      const plan = (yield* Settings).plans[account?.plan ?? "free"]
      if (plan.requestsPerDay !== null && valid.length > plan.requestsPerDay) {
        return yield* new LimitExceeded({ metric: "requests_per_day", limit: plan.requestsPerDay, current: 0, requested: valid.length })
      }
      const stats = yield* storage.projects.stats(principal.account_id)
      const adding = valid.reduce((sum, f) => sum + Math.round((f.areaHectares ?? 0) * 10_000), 0) / 10_000
      const check = provide(UsageGuard.check(principal.account_id, "hectares", stats.hectares, stats.hectares + adding))
      yield* dryRun ? check
        : check.pipe(Effect.tapError((e) => e instanceof LimitExceeded ? provide(UsageGuard.reportExceeded(principal.account_id)(e)) : Effect.void))
    })

  const admit = (principal: Principal) =>
    Effect.gen(function*() {
      yield* authorize(principal, "projects.create")
      if (local.size >= IMPORT_JOBS.perProcess) return yield* tooBusy("Too many imports are running on this server right now; retry in a few seconds")
      if ((yield* storage.imports.running(principal.account_id, 1)) > 0) {
        return yield* tooBusy("An import of this account is running: wait for it to end (GET /v1/imports/{id}) or cancel it")
      }
    })

  const page = (row: ImportRow, after: number, perPage: number) =>
    Effect.map(storage.imports.results(row.account_id, row.id, after, perPage + 1), (rows) => toResource(row, rows.slice(0, perPage), rows.length > perPage))

  const api: Imports["Service"] = {
    admit,

    start: (principal, input) =>
      Effect.gen(function*() {
        yield* authorize(principal, "projects.create")
        const features: Array<ImportFeature> = []
        let slice = performance.now()
        for (const f of input.features) {
          const checked = f.problems.length > 0 ? undefined
            : checkNames({ name: f.name, ...(f.description !== undefined ? { description: f.description } : {}) })
          features.push(checked?._tag === "Failure"
            ? { ...f, problems: checked.failure.map((d) => ({ field: d.field, message: `${d.message} (${f.label})` })) }
            : f)
          if (performance.now() - slice >= IMPORT_JOBS.sliceMs) {
            yield* letOthersIn
            slice = performance.now()
          }
        }
        const valid = features.filter((f) => f.problems.length === 0)
        yield* checkLimits(principal, valid, input.dryRun)
        const now = yield* Time.nowMillis
        const at = new Date(now).toISOString()
        const row: ImportRow = {
          id: newId(),
          account_id: principal.account_id,
          created_by: principal.user_id,
          status: "running",
          mode: input.mode,
          dry_run: input.dryRun,
          file_name: input.file.name,
          format: input.file.format,
          source_crs: input.file.sourceCrs,
          features: features.length,
          done: 0,
          created: 0,
          refused: 0,
          hectares: 0,
          error: null,
          lease_until: now + IMPORT_JOBS.leaseMs,
          created_at: at,
          updated_at: at,
          completed_at: null
        }
        if (input.dryRun) {
          const began = (yield* Overlap.WriteStarted) ?? (yield* Clock.currentTimeMillis)
          const overlaps = yield* previewOverlaps({ storage, projects, sliceMs: IMPORT_JOBS.sliceMs }, principal, features,
            began + IMPORT_JOBS.previewOverlapMs)
          const results = features.map((f, position): ImportResultRow => ({
            import_id: row.id,
            account_id: row.account_id,
            position,
            label: f.label,
            name: f.name,
            outcome: f.problems.length > 0 ? "refused" : "valid",
            project_id: null,
            area_hectares: f.problems.length > 0 ? null : roundHectares(f.areaHectares ?? 0),
            problems: overlaps[position] ? { overlaps: overlaps[position] } : f.problems
          }))
          const hectares = valid.reduce((sum, f) => sum + Math.round((f.areaHectares ?? 0) * 10_000), 0) / 10_000
          // Written a slice at a time (a 10,000-feature preview is as many rows), then completed.
          yield* storage.imports.insert(row)
          for (let i = 0; i < results.length; i += PREVIEW_SLICE) {
            const done = Math.min(results.length, i + PREVIEW_SLICE)
            yield* storage.imports.record(row.account_id, row.id, {
              done,
              created: 0,
              refused: results.slice(0, done).filter((r) => r.outcome === "refused").length,
              hectares: done === results.length ? hectares : 0,
              lease_until: row.lease_until,
              updated_at: at
            }, results.slice(i, done))
            yield* letOthersIn
          }
          const saved = yield* end(row, "completed", null)
          return yield* page(saved ?? row, -1, 100)
        }
        yield* admit(principal)
        // One running import per account: the check and the claim under the account's lock.
        yield* storage.transaction(Effect.gen(function*() {
          yield* storage.lockAccount(principal.account_id)
          if ((yield* storage.imports.running(principal.account_id, 1)) > 0)
            return yield* tooBusy(
              "An import of this account is running: wait for it to end or cancel it"
            )
          yield* storage.imports.insert(row)
        }))
        local.set(row.id, yield* FiberSet.run(jobs, runImport(runner, principal, row, features), { startImmediately: false }))
        return toResource(row, [], false)
      }),

    get: (principal, id, query) =>
      Effect.gen(function*() {
        yield* authorize(principal, "projects.get")
        const q = yield* decode(GetImportQuery, "query")(query ?? {})
        let row = yield* load(principal.account_id, id)
        if (row.status === "running" && !local.has(row.id) && row.lease_until < (yield* Time.nowMillis)) {
          row = (yield* end(row, "failed", lostRunner(row))) ?? (yield* load(principal.account_id, id))
        }
        return yield* page(row, q.results_after ?? -1, q.results_per_page ?? 100)
      }),

    cancel: (principal, id) =>
      Effect.gen(function*() {
        yield* authorize(principal, "projects.create")
        const row = yield* load(principal.account_id, id)
        if (row.status !== "running") return yield* new Conflict({ message: `The import is ${row.status} already; only a running import can be cancelled` })
        const runner = local.get(row.id)
        if (runner) {
          // This process runs it: the runner stops after the chunk at hand and ends it with its last results.
          stopping.add(row.id)
          yield* Fiber.await(runner)
        } else {
          yield* end(row, "cancelled", null) // another instance's runner sees it at its next record and stops
        }
        return yield* page(yield* load(principal.account_id, id), -1, 100)
      })
  }
  /** Stops every runner of this process after the chunk at hand, each import then failed with the reason. */
  const stopAll = Effect.suspend(() => {
    closing = true
    return Effect.forEach([...local.values()], Fiber.await, { discard: true })
  })
  return { api, expire, stopAll }
}
