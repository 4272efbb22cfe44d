/**
 * A bulk import's preview of overlaps: for each valid feature, the account's active and draft
 * projects it would share hectares with, as its create would report them (`Projects.overlapsOf`),
 * nothing written, within one time budget for the whole file.
 */
import { Clock, Effect } from "effect"
import { RateLimited } from "../Errors.ts"
import { type BBox, bbox, type Boundary } from "../Geometry.ts"
import { GeometryCheck } from "../GeometryCheck.ts"
import * as Overlap from "../Overlap.ts"
import type { Principal } from "../Principal.ts"
import type { StorageShape } from "../Storage.ts"
import type { Projects } from "./Projects.ts"

/** A feature as the preview sees it: refused when it has problems, else its boundary (if any). */
interface PreviewFeature {
  readonly geometry?: Boundary | undefined
  readonly problems: ReadonlyArray<unknown>
}

/** What the preview reads through, and how long it may hold the event loop without a turn (ms). */
interface PreviewDeps {
  readonly storage: StorageShape
  readonly projects: Projects["Service"]
  readonly sliceMs: number
}

/** The report of a feature whose comparison was not made (past the budget, or the checker busy). */
const notCompared: Overlap.Report = { overlaps: [], complete: false }
const none: Overlap.Report = { overlaps: [], complete: true }

/** Lets the event loop serve other work (a macrotask turn) before going on. */
const letOthersIn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** Runs `step` over the features, letting the event loop in once a slice of `sliceMs` has passed. */
const sliced = <A, E>(features: ReadonlyArray<PreviewFeature>, sliceMs: number, step: (f: PreviewFeature) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const out: Array<A> = []
    let slice = performance.now()
    for (const f of features) {
      out.push(yield* step(f))
      if (performance.now() - slice >= sliceMs) {
        yield* letOthersIn
        slice = performance.now()
      }
    }
    return out
  })

/**
 * Each valid feature's overlaps, in file order (undefined for a refused one). A file whose box
 * meets no counted project's box has none, known from one look at the spatial index; otherwise each
 * feature is checked and compared as a create would be, its comparisons stopping a write's
 * `Overlap.WRITE_DEADLINE_MS` after it began or at `until` (epoch ms) for the whole file, whichever
 * is first: a feature reached after `until`, or whose comparison ran out of time, is `complete: false`.
 */
export const previewOverlaps = (deps: PreviewDeps, principal: Principal, features: ReadonlyArray<PreviewFeature>, until: number) =>
  Effect.gen(function*() {
    let box: BBox | undefined
    yield* sliced(features, deps.sliceMs, (f) =>
      Effect.sync(() => {
        if (f.problems.length > 0 || f.geometry === undefined) return
        const b = bbox(f.geometry)
        box = box ? [Math.min(box[0], b[0]), Math.min(box[1], b[1]), Math.max(box[2], b[2]), Math.max(box[3], b[3])] : b
      }))
    const near = box ? yield* deps.storage.projects.meeting(principal.account_id, box, { limit: 1 }) : []
    const overlapsOf = (f: PreviewFeature) =>
      Effect.gen(function*() {
        if (f.problems.length > 0) return undefined
        const now = yield* Clock.currentTimeMillis
        if (f.geometry === undefined || near.length === 0) return none
        if (now >= until) return notCompared
        const verdict = yield* (yield* GeometryCheck).check(f.geometry)
        return verdict._tag === "Valid" ? yield* deps.projects.overlapsOf(principal, verdict, Math.min(until, now + Overlap.WRITE_DEADLINE_MS)) : notCompared
      }).pipe(Effect.catchIf((e) => e instanceof RateLimited, () => Effect.succeed(notCompared)))
    return yield* sliced(features, deps.sliceMs, overlapsOf)
  })
