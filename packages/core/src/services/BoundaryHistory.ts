/**
 * Boundary history (docs/decisions.md, "Boundary history"): every change of a project's boundary
 * kept as a numbered version, written by `record` inside the change's own transaction (a refused
 * change stores none); the versions listed newest first, read one at a time, and restored — a
 * restore is a normal boundary update (validation, hectare limits, overlaps, `project.updated`)
 * that becomes a version of its own.
 */
import { Context, Effect, Layer } from "effect"
import { NotFound } from "../Errors.ts"
import * as Cursor from "../Cursor.ts"
import * as GeometryCheck from "../GeometryCheck.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { type BoundaryVersionRow, type BoundaryVersionSummary, Storage, type StorageShape } from "../Storage.ts"
import { decode, type ListResult, type ListWindow, window } from "./common.ts"
import { via } from "./boundaryChange.ts"
import { Projects, type ProjectsError } from "./Projects.ts"

export { type ChangeSource, via } from "./boundaryChange.ts"

/** The API view of a version without its boundary. */
const toSummary = (v: BoundaryVersionSummary): Schemas.BoundaryVersionSummary => ({
  version: v.version,
  project_id: v.project_id,
  area_hectares_before: v.area_hectares_before,
  area_hectares_after: v.area_hectares_after,
  via: v.via,
  file_format: v.file_format,
  restored_from: v.restored_from,
  changed_by: v.actor_kind === null ? null : { kind: v.actor_kind, user_id: v.user_id, credential_id: v.credential_id },
  created_at: v.created_at
})

/** The API view of a version. */
const toResource = (v: BoundaryVersionRow): Schemas.BoundaryVersion => ({ ...toSummary(v), geometry: v.geometry, bbox: v.bbox })

/** A version number from a path: a positive integer, or undefined. */
const versionNumber = (s: string) => (/^[1-9][0-9]{0,9}$/.test(s) ? Number(s) : undefined)

const decodeList = decode(Schemas.ListBoundaryVersions, "query")

/** List metadata of a page of versions (cursors carry the last version's number). */
const metaOf = (page: { readonly rows: ReadonlyArray<BoundaryVersionSummary>; readonly hasMore: boolean; readonly total: number }, w: ListWindow) => {
  const last = page.rows[page.rows.length - 1]
  return {
    total: page.total,
    total_exact: true,
    page: w.page,
    per_page: w.per_page,
    total_pages: Math.ceil(page.total / w.per_page),
    has_more: page.hasMore,
    next_cursor: page.hasMore && last ? Cursor.encode({ sort: w.sort, order: w.order, value: last.version, id: last.project_id }) : null
  }
}

/** The BoundaryHistory service. */
export class BoundaryHistory extends Context.Service<BoundaryHistory, {
  /** A project's versions, newest first, without their boundaries. */
  readonly list: (principal: Principal, projectId: string, query?: unknown) => Effect.Effect<ListResult<Schemas.BoundaryVersionSummary>, ProjectsError>
  /** One version with its boundary; `version` as the path gives it. */
  readonly get: (principal: Principal, projectId: string, version: string) => Effect.Effect<Schemas.BoundaryVersion, ProjectsError>
  /** Sets the project's boundary back to a version's, as a boundary update: answers the project. */
  readonly restore: (principal: Principal, projectId: string, version: string) => Effect.Effect<Schemas.Project, ProjectsError>
}>()("canopy/BoundaryHistory") {
  static readonly layer = Layer.effect(this, Effect.gen(function*() {
    return make(yield* Storage, yield* Projects)
  }))
}

const make = (storage: StorageShape, projects: Projects["Service"]) => {
  /** The project must exist in the account (another account's reads as absent). */
  const project = (accountId: string, id: string) =>
    Effect.flatMap(storage.projects.get(accountId, id), (p) => (p ? Effect.void : Effect.fail(new NotFound({ resource: "project", id }))))

  /**
   * A version by its number. Versions are the account's rows and go with their project, so a found
   * one needs no read of the project (whose boundary may weigh megabytes); only a miss asks whether
   * the project is there, to say which of the two is not.
   */
  const version = (accountId: string, projectId: string, v: string) =>
    Effect.gen(function*() {
      const n = versionNumber(v)
      const row = n === undefined ? undefined : yield* storage.boundaryVersions.get(accountId, projectId, n)
      if (row) return row
      yield* project(accountId, projectId)
      return yield* new NotFound({ resource: "boundary version", id: v })
    })

  return BoundaryHistory.of({
    list: Effect.fn("BoundaryHistory.list")(function*(principal, projectId, query) {
      yield* authorize(principal, "projects.get")
      const q = yield* decodeList(query ?? {})
      const w = window(q, Schemas.versionOrdering())
      const page = yield* storage.boundaryVersions.list(principal.account_id, projectId, {
        limit: w.limit,
        offset: w.offset,
        before: w.after === undefined ? undefined : Number(w.after.value)
      })
      // A project with versions is there (see `version`); without any, it may not be.
      if (page.total === 0) yield* project(principal.account_id, projectId)
      return { data: page.rows.map(toSummary), meta: metaOf(page, w) }
    }),

    get: Effect.fn("BoundaryHistory.get")(function*(principal, projectId, v) {
      yield* authorize(principal, "projects.get")
      return toResource(yield* version(principal.account_id, projectId, v))
    }),

    restore: Effect.fn("BoundaryHistory.restore")(function*(principal, projectId, v) {
      yield* authorize(principal, "projects.update")
      const row = yield* version(principal.account_id, projectId, v)
      // The stored boundary was checked and measured when it was written: handed over as checked.
      const geometry = row.geometry === null || row.bbox === null ? null : new GeometryCheck.Prepared({
        _tag: "Valid",
        geometry: row.geometry,
        area_hectares: row.area_hectares_after,
        bbox: row.bbox
      })
      return yield* projects.update(principal, projectId, { geometry }).pipe(via({ via: "version_restore", restored_from: row.version }))
    })
  })
}
