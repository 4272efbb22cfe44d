/**
 * The overlap check of a project write (create, update, restore): the boundary the write makes
 * count compared with the account's other counted projects whose boxes meet it, before the write's
 * transaction (the heavy part) and again inside it; the report of overlaps the write answers with;
 * the account's policy (`reject`) applied; and `project.overlap_detected` emitted.
 */
import { Clock, Effect } from "effect"
import { Conflict } from "../Errors.ts"
import * as Events from "../Events.ts"
import * as Geometry from "../Geometry.ts"
import * as Lifecycle from "../Lifecycle.ts"
import * as GeometryCheck from "../GeometryCheck.ts"
import * as Overlap from "../Overlap.ts"
import type { RawJson } from "../RawJson.ts"
import type { ProjectRow, StorageShape } from "../Storage.ts"
import { emit } from "./Outbox.ts"

/** Neighbours' boundaries a write's overlap comparison reads together. */
const READ_TOGETHER = 8

/** When the current write's comparisons must stop (epoch ms): `Overlap.WRITE_DEADLINE_MS` after it began. */
export const writeDeadline = Effect.gen(function*() {
  const began = (yield* Overlap.WriteStarted) ?? (yield* Clock.currentTimeMillis)
  return began + Overlap.WRITE_DEADLINE_MS
})

/** A boundary a write makes count (new, changed, or restored), to compare with the others. */
export interface Counted {
  readonly geometry: RawJson
  readonly bbox: readonly [number, number, number, number]
}

/** One neighbour's comparison: the version compared (`updated_at`) and the shared hectares, or undefined when over budget. */
export type Compared = ReadonlyMap<string, { readonly updated_at: string; readonly hectares: number | undefined }>

/**
 * Compares a boundary with the other counted projects whose boxes meet its box (at most
 * `Overlap.MAX_CANDIDATES`), reusing `known` comparisons of neighbours unchanged since. Runs
 * before the write's transaction (the heavy part, off the event loop through `GeometryCheck`)
 * and again inside it, where only a neighbour written in between is compared anew: so two
 * concurrent writes cannot both miss each other (the transaction holds the account's lock).
 */
export const compare = (storage: StorageShape, accountId: string, b: Counted, excludeId: string | undefined, deadline: number, known: Compared = new Map()) =>
  Effect.gen(function*() {
    // The same boundary stored twice (a duplicate import: the classic double count) shares all
    // of it: the store tells which neighbours hold this very text, so they are never read out or
    // clipped. (Equal text is the same shape. The same shape spelled otherwise — a boundary is
    // stored as sent when it is plain, GeometryCheck.keepSource — is measured like any neighbour.)
    const sameBoundary = b.geometry.text.length <= Overlap.SAME_BOUNDARY_MAX_CHARS ? b.geometry.text : undefined
    const near = yield* storage.projects.meeting(accountId, b.bbox, { excludeId, limit: Overlap.MAX_CANDIDATES + 1, sameBoundary })
    const out = new Map<string, { readonly name: string; readonly updated_at: string; readonly hectares: number | undefined }>()
    const candidates = near.slice(0, Overlap.MAX_CANDIDATES)
    // The neighbours to read are read a few at a time together (on PostgreSQL, round trips in
    // parallel: an outline over 500 stands reads 500 boundaries), each chunk when the last is measured.
    // Neighbours storing one same boundary (copies of one stand) share the same area with it: the
    // first of them is read and measured, the others take its figure (`shares`, by boundary key).
    const keys = new Set<string>()
    const firstCopy = (key: string) => key === "" || (!keys.has(key) && Boolean(keys.add(key)))
    const toRead = candidates.filter((n) => !n.same_boundary && known.get(n.id)?.updated_at !== n.updated_at && firstCopy(n.boundary_key))
    const inChunks = new Set(toRead.map((n) => n.id))
    const shares = new Map<string, number | undefined>()
    const read = new Map<string, ProjectRow | undefined>()
    let readUpTo = 0
    for (const n of candidates) {
      const seen = known.get(n.id)
      if (seen && seen.updated_at === n.updated_at) {
        out.set(n.id, { name: n.name, ...seen })
        continue
      }
      if (n.same_boundary) {
        out.set(n.id, { name: n.name, updated_at: n.updated_at, hectares: n.area_hectares })
        continue
      }
      const left = deadline - (yield* Clock.currentTimeMillis)
      if (left <= 0) {
        out.set(n.id, { name: n.name, updated_at: n.updated_at, hectares: undefined })
        continue
      }
      if (shares.has(n.boundary_key)) {
        out.set(n.id, { name: n.name, updated_at: n.updated_at, hectares: shares.get(n.boundary_key) })
        continue
      }
      if (!read.has(n.id)) {
        // (A copy whose first was changed in between is read on its own.)
        const chunk = inChunks.has(n.id) ? toRead.slice(readUpTo, readUpTo + READ_TOGETHER) : [n]
        if (inChunks.has(n.id)) readUpTo += chunk.length
        const rows = yield* Effect.forEach(chunk, (c) => storage.projects.get(accountId, c.id), { concurrency: READ_TOGETHER })
        chunk.forEach((c, i) => read.set(c.id, rows[i]))
      }
      const other = read.get(n.id)
      read.delete(n.id)
      if (!other?.geometry) continue
      if (other.geometry.text === b.geometry.text) {
        out.set(n.id, { name: other.name, updated_at: other.updated_at, hectares: other.area_hectares })
        continue
      }
      const shared = yield* GeometryCheck.shared(b.geometry, other.geometry, left)
      const hectares = shared._tag === "Shared" ? shared.hectares : undefined
      out.set(n.id, { name: other.name, updated_at: other.updated_at, hectares })
      if (n.boundary_key !== "" && other.updated_at === n.updated_at) shares.set(n.boundary_key, hectares)
    }
    return { compared: out, truncated: near.length > Overlap.MAX_CANDIDATES }
  })

/** The report of a comparison: overlaps of at least 0.0001 ha (what the API's rounding shows), largest first. */
export const reportOf = (c: Effect.Success<ReturnType<typeof compare>>): Overlap.Report => {
  const overlaps: Array<Overlap.Overlap> = []
  let complete = !c.truncated
  for (const [id, v] of c.compared) {
    if (v.hectares === undefined) complete = false
    else if (Geometry.roundHectares(v.hectares) > 0) overlaps.push({ project_id: id, name: v.name, overlap_hectares: Geometry.roundHectares(v.hectares) })
  }
  overlaps.sort((a, b) => b.overlap_hectares - a.overlap_hectares || (a.project_id < b.project_id ? -1 : 1))
  return { overlaps, complete }
}

/**
 * Inside the write's transaction: the final comparison, the account's policy (`reject` refuses
 * any overlap, and a comparison it could not finish). The caller emits `project.overlap_detected`
 * (`reportOverlaps`) after the write's own event.
 */
export const settleOverlaps = (storage: StorageShape, accountId: string, project: ProjectRow, b: Counted, deadline: number, known: Compared) =>
  Effect.gen(function*() {
    const report = reportOf(yield* compare(storage, accountId, b, project.id, deadline, known))
    const account = yield* storage.accounts.get(accountId)
    if (account?.overlap_policy === "reject" && (report.overlaps.length > 0 || !report.complete)) {
      return yield* new Conflict({
        message: report.overlaps.length > 0 ? Overlap.refusal(report.overlaps)
          : "The boundary could not be compared with every nearby project within the time budget; this account refuses boundaries it cannot check (overlap_policy: reject)"
      })
    }
    return report
  })

/** `project.overlap_detected`, when a write's report lists overlaps. */
export const reportOverlaps = (accountId: string, project: ProjectRow, report: Overlap.Report | undefined) =>
  report && report.overlaps.length > 0 ? emit(accountId, "project.overlap_detected", Events.overlapDetected(project, report)) : Effect.void

/** The counted boundary of a row, when it has one and is not archived. */
export const countedOf = (p: Pick<ProjectRow, "geometry" | "bbox" | "status">): Counted | undefined =>
  p.geometry !== null && p.bbox !== null && Lifecycle.counts(p.status) ? { geometry: p.geometry, bbox: p.bbox } : undefined
