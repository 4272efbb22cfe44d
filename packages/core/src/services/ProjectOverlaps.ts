/**
 * A project's overlaps: the account's other counted projects (active or draft) sharing area with
 * its boundary, each with the shared hectares, as a cursor-paginated list. Candidates come from the
 * spatial index (the project's box) in name order, each measured through `GeometryCheck.shared`
 * (off the event loop for large boundaries); one request examines a bounded number of candidates
 * in a bounded time and may answer a partial page that resumes where it stopped.
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import * as Cursor from "../Cursor.ts"
import { NotFound } from "../Errors.ts"
import * as Geometry from "../Geometry.ts"
import * as GeometryCheck from "../GeometryCheck.ts"
import * as Lifecycle from "../Lifecycle.ts"
import * as Overlap from "../Overlap.ts"
import { authorize, type Principal } from "../Principal.ts"
import type { RawJson } from "../RawJson.ts"
import type * as Schemas from "../Schemas.ts"
import { pageFields, paginated } from "../schemas/common.ts"
import { type ProjectRow, Storage, type StorageShape } from "../Storage.ts"
import { decode, type ListResult, type ListWindow, window } from "./common.ts"
import type { ProjectsError } from "./Projects.ts"

/** Candidates read from the spatial index at a time, and at most per request. */
const OVERLAPS_CHUNK = 50
const OVERLAPS_EXAMINED = 500
/** Candidates' boundaries read together (on PostgreSQL, round trips in parallel). */
const READ_TOGETHER = 8

/** The order of the list (and of its cursors): by name, ties by id. */
const ordering: Schemas.Ordering = { sort: "name", order: "asc" }

/** GET /projects/{id}/overlaps: `per_page` and `cursor`; pages past the first are walked with cursors. */
export const ListProjectOverlaps = paginated(Schema.Struct({ ...pageFields }), () => ordering).pipe(
  Schema.check(
    Schema.makeFilter((q: { readonly page?: number | undefined }) =>
      (q.page ?? 1) === 1 || { path: ["page"], issue: "overlaps are walked with cursor=<meta.next_cursor>" }
    )
  )
)
export type ListProjectOverlaps = typeof ListProjectOverlaps.Type

const decodeQuery = decode(ListProjectOverlaps, "query")

/** The ProjectOverlaps service. */
export class ProjectOverlaps extends Context.Service<ProjectOverlaps, {
  /**
   * The projects sharing area with project `id` (at least 0.0001 ha, the API's rounding), in name
   * order. An archived project, or one without a boundary, overlaps nothing.
   */
  readonly list: (principal: Principal, id: string, query?: unknown) => Effect.Effect<ListResult<typeof Schemas.ProjectOverlap.Type>, ProjectsError>
}>()("canopy/ProjectOverlaps") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

/** A counted boundary: the project whose overlaps are listed. */
interface Counted {
  readonly id: string
  readonly geometry: RawJson
  readonly bbox: Geometry.BBox
}

/** The position before every name: where a first page that examined nothing resumes. */
const START = { value: "", id: "" }

const make = (storage: StorageShape) => {
  /**
   * One page: candidates after `w.after` whose boxes meet the project's box, `OVERLAPS_CHUNK` at a
   * time, without their boundaries' text (read `READ_TOGETHER` at a time as they are measured).
   * Stops at `OVERLAPS_EXAMINED` candidates or `Overlap.LIST_BUDGET_MS`, and before a measure that
   * did not finish after others in this request (the next request measures it first, with the whole
   * budget); one that did not finish as the request's first measure is left out, and the total then
   * says it is not exact.
   */
  const page = (accountId: string, self: Counted, w: ListWindow) =>
    Effect.gen(function*() {
      const found: Array<typeof Schemas.ProjectOverlap.Type & { readonly sort_name: string }> = []
      const started = yield* Clock.currentTimeMillis
      let after = w.after
      let examined = 0
      let measured = 0
      let last: ProjectRow | undefined
      let exhausted = false
      let stopped = false
      let uncertain = false
      while (!exhausted && !stopped && found.length <= w.limit && examined < OVERLAPS_EXAMINED) {
        if ((yield* Clock.currentTimeMillis) - started > Overlap.LIST_BUDGET_MS) break
        const chunk = yield* storage.projects.list(accountId, {
          bbox: self.bbox,
          sort: "name",
          order: "asc",
          limit: OVERLAPS_CHUNK,
          offset: 0,
          after,
          omitGeometry: true
        })
        const toRead = chunk.rows.filter((row) => row.id !== self.id && Lifecycle.counts(row.status))
        const read = new Map<string, ProjectRow | undefined>()
        let readUpTo = 0
        for (const row of chunk.rows) {
          if (row.id !== self.id && Lifecycle.counts(row.status)) {
            const left = started + Overlap.LIST_BUDGET_MS - (yield* Clock.currentTimeMillis)
            if (left <= 0) {
              stopped = true
              break
            }
            if (!read.has(row.id)) {
              const batch = toRead.slice(readUpTo, readUpTo + READ_TOGETHER)
              readUpTo += batch.length
              const rows = yield* Effect.forEach(batch, (c) => storage.projects.get(accountId, c.id), { concurrency: READ_TOGETHER })
              batch.forEach((c, i) => read.set(c.id, rows[i]))
            }
            const other = read.get(row.id)
            read.delete(row.id)
            let hectares: number | undefined = 0
            if (other?.geometry && Lifecycle.counts(other.status)) {
              if (other.geometry.text === self.geometry.text) hectares = other.area_hectares
              else {
                const shared = yield* GeometryCheck.shared(self.geometry, other.geometry, left)
                if (shared._tag === "TooComplex" && measured > 0) {
                  stopped = true
                  break
                }
                measured++
                hectares = shared._tag === "Shared" ? shared.hectares : undefined
                if (hectares === undefined) uncertain = true
              }
            }
            if (hectares !== undefined && Geometry.roundHectares(hectares) > 0) {
              found.push({ project_id: row.id, name: row.name, overlap_hectares: Geometry.roundHectares(hectares), sort_name: row.sort_name })
            }
          }
          examined++
          last = row
          if (found.length > w.limit || examined >= OVERLAPS_EXAMINED) break
        }
        const tail = chunk.rows[chunk.rows.length - 1]
        if (!stopped && !chunk.hasMore && (tail === undefined || tail === last)) exhausted = true
        if (last) after = { value: last.sort_name, id: last.id }
      }
      const rows = found.slice(0, w.limit)
      const more = found.length > w.limit || !exhausted
      const end = rows[rows.length - 1]
      const at = found.length > w.limit && end ? { value: end.sort_name, id: end.project_id } : after ?? START
      return {
        rows: rows.map(({ sort_name: _, ...o }) => o),
        more,
        next: more ? Cursor.encode({ ...ordering, ...at }) : null,
        exact: !more && !uncertain && w.after === undefined
      }
    })

  return ProjectOverlaps.of({
    list: Effect.fn("ProjectOverlaps.list")(function*(principal, id, query) {
      yield* authorize(principal, "projects.get")
      const q = yield* decodeQuery(query ?? {})
      const w = window(q, ordering)
      const self = yield* storage.projects.get(principal.account_id, id)
      if (!self) return yield* new NotFound({ resource: "project", id })
      const p = self.geometry !== null && self.bbox !== null && Lifecycle.counts(self.status)
        ? yield* page(principal.account_id, { id: self.id, geometry: self.geometry, bbox: self.bbox }, w)
        : { rows: [], more: false, next: null, exact: w.after === undefined }
      return {
        data: p.rows,
        meta: {
          total: p.rows.length,
          total_exact: p.exact,
          page: w.page,
          per_page: w.per_page,
          total_pages: Math.ceil(p.rows.length / w.per_page),
          has_more: p.more,
          next_cursor: p.next
        }
      }
    })
  })
}
