/**
 * A page of the project list filtered by `intersects` (a boundary or a point): candidates from the
 * spatial index, each tested exactly, within a bounded number of candidates and a time budget per
 * request; a page cut short resumes with the cursor after the last candidate examined.
 */
import { Clock, Effect } from "effect"
import * as Cursor from "../Cursor.ts"
import * as Geometry from "../Geometry.ts"
import * as GeometryCheck from "../GeometryCheck.ts"
import * as Overlap from "../Overlap.ts"
import { RawJson } from "../RawJson.ts"
import type { ProjectQuery, ProjectRow, StorageShape } from "../Storage.ts"
import type { ListWindow } from "./common.ts"

/** Candidates an `intersects` list reads from the spatial index at a time, and at most per request. */
const INTERSECTS_CHUNK = 50
const INTERSECTS_EXAMINED = 500

/** The box two boxes share, if any. */
const meet = (a: Geometry.BBox, b: Geometry.BBox): Geometry.BBox | undefined =>
  Overlap.boxesMeet(a, b) ? [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])] : undefined

/**
 * A page of the list filtered by `intersects`: candidates come from the spatial index (the
 * geometry's box) in the list's order, `INTERSECTS_CHUNK` at a time, each tested exactly
 * (through `GeometryCheck`, off the event loop for large boundaries). At most
 * `INTERSECTS_EXAMINED` candidates (or `Overlap.LIST_BUDGET_MS`) per request: a page may
 * then hold fewer rows than asked, with `resume` — the cursor after the last candidate examined.
 * The total is exact only when every candidate was examined from the start.
 */
export const intersecting = (
  storage: StorageShape,
  accountId: string,
  q: Omit<ProjectQuery, "limit" | "offset" | "after">,
  w: ListWindow,
  g: Geometry.Boundary | Geometry.Point,
  sortValue: (p: ProjectRow) => string | number
) =>
  Effect.gen(function*() {
    const gBox = Geometry.bbox(g)
    const box = q.bbox === undefined ? gBox : meet(q.bbox, gBox)
    const text = g.type === "Point" ? undefined : RawJson.of(g)
    const matches: Array<ProjectRow> = []
    let after = w.after
    let examined = 0
    let last: ProjectRow | undefined
    let exhausted = box === undefined
    let uncertain = false
    const started = yield* Clock.currentTimeMillis
    while (!exhausted && matches.length <= w.limit) {
      if (examined >= INTERSECTS_EXAMINED || (yield* Clock.currentTimeMillis) - started > Overlap.LIST_BUDGET_MS) break
      // The candidates without their boundaries' text; each boundary is read when it is tested.
      const chunk = yield* storage.projects.list(accountId, { ...q, bbox: box, limit: INTERSECTS_CHUNK, offset: 0, after, omitGeometry: true })
      for (const row of chunk.rows) {
        examined++
        last = row
        const stored = (yield* storage.projects.get(accountId, row.id))?.geometry ?? null
        if (stored !== null) {
          const yes = g.type === "Point"
            ? yield* GeometryCheck.covers(stored, g.coordinates)
            : yield* Effect.map(GeometryCheck.shared(text!, stored, started + Overlap.LIST_BUDGET_MS - (yield* Clock.currentTimeMillis)),
              (s) => (s._tag === "Shared" ? s.hectares > 0 : undefined))
          if (yes === true) matches.push({ ...row, geometry: stored })
          if (yes === undefined) uncertain = true
        }
        if (matches.length > w.limit) break
      }
      if (!chunk.hasMore && matches.length <= w.limit) exhausted = true
      const tail = chunk.rows[chunk.rows.length - 1]
      if (!tail) exhausted = true
      else after = { value: sortValue(tail), id: tail.id }
    }
    const rows = matches.slice(0, w.limit)
    const more = matches.length > w.limit || !exhausted
    const at = matches.length > w.limit ? rows[rows.length - 1] : last
    const resume = more && at ? Cursor.encode({ sort: w.sort, order: w.order, value: sortValue(at), id: at.id }) : null
    const exact = exhausted && !uncertain && w.after === undefined
    return { rows, hasMore: more, total: rows.length, totalExact: exact, resume }
  })
