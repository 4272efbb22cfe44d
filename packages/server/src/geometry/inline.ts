/**
 * The geometry pool's inline fast path: the measures the event loop runs itself, because for small
 * inputs the trip to a worker and back costs more than the work. The area two small boundaries
 * share is measured under a budget of work counted as it goes (`measuredInline`); a stored boundary
 * whose text is under `COVERS_INLINE_CHARS` is tested for a point inline; and `warmInline` runs
 * the inline measure and the validator on synthetic rings at start, so that a prewarmed server's
 * first real requests run compiled.
 */
import { GeometryCheck, Overlap, RawJson } from "@canopy/core"

/**
 * Two boundaries are compared inline only when their texts are short (parsing one is linear: under
 * a millisecond for 64,000 characters; a write's own boundary is parsed once for all its
 * comparisons, and not at all when it was checked on the loop: `GeometryCheck.storedText`) and
 * the measure fits a budget of work counted as it goes
 * (`Overlap.sharedHectaresPrepared`' `limit`: the larger boundary, usually the write's own, is
 * prepared once for all its neighbours: pairs of edges examined, edges tested, pieces — the
 * crossings it finds are counted by the sweep that finds them): 12,000 units, 1–2 ms in any shape
 * once compiled. A process's first measures run in the interpreter (~10 µs a unit), so until 500
 * have run the budget is 2,000 units (~20 ms at worst). Past it the measure stops and a worker
 * starts over under a time budget: two crossing 80-tooth combs (25,600 crossings, ~150,000 units)
 * and two nearly coinciding 1,000-vertex rings (~28,000) go there; a 1,000-vertex ring nearly
 * coinciding with a 64-vertex one (~3,400 with the ring prepared, ~11,000 pair by pair) and a stand beside its neighbours or inside its
 * estate's outline (a few dozen) stay.
 */
const SHARED_INLINE_CHARS = 64_000
const SHARED_INLINE_WORK = 12_000
const SHARED_INLINE_WORK_COLD = 2_000
const SHARED_INLINE_WARM_AFTER = 500
let inlineMeasures = 0
/** A stored boundary under this many characters is tested for a point inline (parse and test are linear). */
export const COVERS_INLINE_CHARS = 200_000

/**
 * The area two small boundaries share, measured on the loop when its work stays within the inline
 * budget and its pieces of edges close; undefined otherwise (a worker then measures it, with the
 * clipper as fallback, under a time budget).
 */
export const measuredInline = (a: RawJson.RawJson, b: RawJson.RawJson): number | undefined => {
  if (a.text.length >= SHARED_INLINE_CHARS || b.text.length >= SHARED_INLINE_CHARS) return undefined
  try {
    const limit = ++inlineMeasures > SHARED_INLINE_WARM_AFTER ? SHARED_INLINE_WORK : SHARED_INLINE_WORK_COLD
    return Overlap.sharedHectaresPrepared(GeometryCheck.parsedBoundary(a), GeometryCheck.parsedBoundary(b), limit)
  } catch {
    return undefined
  }
}

/** Validations of a synthetic ring run at start, a few per turn of the loop, before real boundaries come. */
const WARM_CHECKS = 200

/**
 * Runs the inline measure's first `SHARED_INLINE_WARM_AFTER` measures on two small synthetic rings
 * (a 200-gon and a 24-gon on one circle), five per turn of the loop (a few ms at first), so that a prewarmed
 * server's first real comparisons run compiled, with the full inline budget; and as many inline
 * validations of the 200-gon (the first, interpreted, cost ~50 ms for 1,000 positions; compiled, ~0.5 ms).
 */
export const warmInline = () => {
  const ring = (vertices: number, turn: number) => {
    const positions = Array.from({ length: vertices },
      (_, i) => [Math.cos(turn + (2 * Math.PI * i) / vertices) / 1000, Math.sin(turn + (2 * Math.PI * i) / vertices) / 1000])
    return RawJson.RawJson.of({ type: "Polygon", coordinates: [[...positions, positions[0]]] })
  }
  const outline = ring(200, 0)
  const stand = ring(24, 0.1)
  const outlineValue = outline.value()
  let checks = 0
  const step = () => {
    for (let k = 0; k < 5 && inlineMeasures < SHARED_INLINE_WARM_AFTER; k++) measuredInline(outline, stand)
    for (let k = 0; k < 5 && checks < WARM_CHECKS; k++, checks++) GeometryCheck.evaluate(outlineValue)
    if (inlineMeasures < SHARED_INLINE_WARM_AFTER || checks < WARM_CHECKS) setImmediate(step).unref()
  }
  setImmediate(step).unref()
}
