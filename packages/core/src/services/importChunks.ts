/**
 * The pieces of an import's chunks (see Imports): the counts a chunk carries forward, the
 * per-feature results it records, the rollback of a chunk whose feature was refused inside its
 * transaction, and how long it has held the event loop.
 */
import { Data } from "effect"
import type { ImportResultRow } from "../Storage.ts"

/** Counts of an import's features done so far (`units`: hectares × 10,000, summed exactly). */
export interface Counts {
  readonly done: number
  readonly created: number
  readonly refused: number
  readonly units: number
}

/** The counts after one more result. */
export const tally = (c: Counts, r: ImportResultRow): Counts =>
  r.outcome === "created"
    ? { ...c, done: c.done + 1, created: c.created + 1, units: c.units + Math.round((r.area_hectares ?? 0) * 10_000) }
    : { ...c, done: c.done + 1, refused: c.refused + 1 }

/** What every result of a feature holds. */
type ResultBase = Pick<ImportResultRow, "import_id" | "account_id" | "position" | "label" | "name">

/** The result of a feature made a project. */
export const createdRow = (base: ResultBase, project: { readonly id: string; readonly area_hectares: number | null }): ImportResultRow => ({ ...base,
  outcome: "created", project_id: project.id, area_hectares: project.area_hectares, problems: [] })

/** The result of a feature refused, with its problems. */
export const refusedRow = (base: ResultBase, problems: ImportResultRow["problems"]): ImportResultRow => ({ ...base, outcome: "refused", project_id: null,
  area_hectares: null, problems })

/** A chunk's transaction rolled back: the feature at `position` was refused inside it. */
export class Replay extends Data.TaggedError("Replay")<{ readonly position: number }> {}

/** This thread's CPU time (ms), where the runtime tells it; else the clock. */
const threadMs: () => number = typeof process !== "undefined" && typeof process.threadCpuUsage === "function"
  ? () => {
    const { user, system } = process.threadCpuUsage()
    return (user + system) / 1_000
  }
  : () => performance.now()

/**
 * How long the caller has held the event loop since its last turn (ms of this thread's work, so
 * a machine short of CPU does not count as holding): a networked store's round trips let the loop
 * turn, a synchronous store's statements do not. Each call arms one `setImmediate` to see the next turn.
 */
export const loopHold = (): () => number => {
  let turnedAt = threadMs()
  let armed = false
  const arm = () => {
    armed = true
    setImmediate(() => {
      armed = false
      turnedAt = threadMs()
    })
  }
  arm()
  return () => {
    if (!armed) arm()
    return threadMs() - turnedAt
  }
}
