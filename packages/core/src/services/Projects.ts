/**
 * Projects: create, list, get, update, archive, restore, delete — with the lifecycle's rules,
 * slugs unique per account, geometry validated and measured, hectare limits, and events. A write's
 * overlap check is `writeOverlaps.ts`; the list's `intersects` filter, `intersectsFilter.ts`.
 */
import { Context, Effect, Layer, Result } from "effect"
import { Conflict, NotFound } from "../Errors.ts"
import * as Events from "../Events.ts"
import type * as Geometry from "../Geometry.ts"
import * as GeometryCheck from "../GeometryCheck.ts"
import * as Ids from "../Ids.ts"
import * as Lifecycle from "../Lifecycle.ts"
import type * as Overlap from "../Overlap.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import * as Slug from "../Slug.ts"
import { type ProjectRow, Storage, type StorageShape, type ZoomCell } from "../Storage.ts"
import * as TileGrid from "../TileGrid.ts"
import { record as recordBoundary } from "./boundaryChange.ts"
import { conflictOnDuplicate, decode, type ListResult, listMeta, window } from "./common.ts"
import { intersecting } from "./intersectsFilter.ts"
import { emit, nowIso } from "./Outbox.ts"
import * as UsageGuard from "./UsageGuard.ts"
import { compare, type Counted, countedOf, reportOf, reportOverlaps, settleOverlaps, writeDeadline } from "./writeOverlaps.ts"

export type { Counted } from "./writeOverlaps.ts"

/** The API view of a project row. */
const toResource = (p: ProjectRow): Schemas.Project => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  description: p.description,
  geometry: p.geometry,
  area_hectares: p.area_hectares,
  bbox: p.bbox,
  status: p.status,
  created_at: p.created_at,
  updated_at: p.updated_at
})

const countedArea = (p: { readonly status: string; readonly area_hectares: number }) => (Lifecycle.counts(p.status) ? p.area_hectares : 0)

/** The stored geometry fields of a project without a boundary (DECISIONS: area 0, no bbox). */
const noGeometry = { geometry: null, area_hectares: 0, bbox: null }

const searchText = (name: string, description: string | null) => `${name}\n${description ?? ""}`.toLowerCase()

const duplicateSlug = conflictOnDuplicate(() => "a project with this slug already exists in the account")

/** The Projects service. */
export class Projects extends Context.Service<Projects, {
  readonly create: (principal: Principal, input: unknown) => Effect.Effect<Schemas.Project, ProjectsError>
  /**
   * The list. With `boundaries: false` each project comes with `geometry: null` (its area and bbox
   * as stored): for views that draw no boundary, such as the overview map's batches.
   */
  readonly list: (principal: Principal, query?: unknown,
    options?: { readonly boundaries?: boolean }) => Effect.Effect<ListResult<Schemas.Project>, ProjectsError>
  readonly get: (principal: Principal, id: string) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly update: (principal: Principal, id: string, input: unknown) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly archive: (principal: Principal, id: string) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly restore: (principal: Principal, id: string) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly delete: (principal: Principal, id: string) => Effect.Effect<void, ProjectsError>
  /**
   * The zoom grid's cells within tile z/x/y (`TileGrid`, at `TileGrid.levelFor(z)`: at most 32 × 32)
   * with their projects and hectares, as the store keeps them: the map's clusters, whose cost
   * follows the cells, not the projects in them.
   */
  readonly zoomCells: (principal: Principal,
    tile: { readonly z: number; readonly x: number; readonly y: number }
  ) => Effect.Effect<{ readonly level: number; readonly cells: ReadonlyArray<ZoomCell> }, ProjectsError>
  /**
   * The overlaps a checked boundary would have if it were created now, writing nothing: the
   * comparison and report a create makes (the account's active and draft projects, at least
   * 0.0001 ha), its comparisons stopping at `deadline` (epoch ms; `complete: false` past it).
   */
  readonly overlapsOf: (principal: Principal, boundary: Counted, deadline: number) => Effect.Effect<Overlap.Report, ProjectsError>
}>()("canopy/Projects") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

/** Errors the Projects service can fail with. */
export type ProjectsError = import("../Errors.ts").DomainError | import("../Storage.ts").StorageError

// The geometry is decoded unchecked, then validated and measured through GeometryCheck (which the
// server runs off the event loop for large boundaries); the problems come out as a full decode's.
const decodeCreate = GeometryCheck.decodeBody(Schemas.CreateProjectDeferred)
const decodeUpdate = GeometryCheck.decodeBody(Schemas.UpdateProjectDeferred)
const decodeList = decode(Schemas.ListProjects, "query")

const make = (storage: StorageShape) => {
  const provide = <A, E>(effect: Effect.Effect<A, E, Storage>) => Effect.provideService(effect, Storage, storage)

  const load = (accountId: string, id: string) =>
    Effect.flatMap(storage.projects.get(accountId, id), (p) => p ? Effect.succeed(p) : Effect.fail(new NotFound({ resource: "project", id })))

  const refuse = (r: Result.Result<Lifecycle.Transition, Lifecycle.Refused>) =>
    Result.isSuccess(r) ? Effect.succeed(r.success) : Effect.fail(new Conflict({ message: r.failure.reason }))

  /** Applies a status change and patch under the hectare guard, emitting the transition's event. */
  const change = (
    principal: Principal,
    id: string,
    command: Lifecycle.Command,
    patch: (p: ProjectRow) => Partial<ProjectRow>,
    overlapsOf?: (before: ProjectRow, after: ProjectRow) => Counted | undefined,
    deadline = 0
  ) =>
    Effect.gen(function*() {
      // The heavy comparison before the transaction, against the row as it is now; settled inside.
      const current = overlapsOf ? yield* storage.projects.get(principal.account_id, id) : undefined
      const early = current && overlapsOf ? overlapsOf(current, { ...current, ...patch(current) }) : undefined
      const known = early ? (yield* compare(storage, principal.account_id, early, id, deadline)).compared : new Map()
      return yield* provide(UsageGuard.guarded(principal.account_id, Effect.gen(function*() {
        const before = yield* load(principal.account_id, id)
        const t = yield* refuse(Lifecycle.transition(before.status, command))
        const now = yield* nowIso
        const fields = { ...patch(before), status: t.state ?? before.status, updated_at: now }
        const after = { ...before, ...fields }
        const stats = yield* storage.projects.stats(principal.account_id)
        const usage = stats.hectares - countedArea(before) + countedArea(after)
        yield* UsageGuard.check(principal.account_id, "hectares", stats.hectares, usage)
        const counted = overlapsOf?.(before, after)
        const report = counted ? yield* settleOverlaps(storage, principal.account_id, after, counted, deadline, known) : undefined
        const saved = yield* storage.projects.update(principal.account_id, id, fields).pipe(duplicateSlug)
        if (!saved) return yield* new NotFound({ resource: "project", id })
        yield* recordBoundary(storage, principal, before, saved)
        yield* emit(principal.account_id, t.event, toResource(saved))
        yield* reportOverlaps(principal.account_id, saved, report)
        if (usage > stats.hectares) yield* UsageGuard.alert(principal.account_id, "hectares", usage)
        return report ? { ...toResource(saved), overlaps: report } : toResource(saved)
      })))
    })

  return Projects.of({
    create: Effect.fn("Projects.create")(function*(principal, input) {
      const deadline = yield* writeDeadline
      yield* authorize(principal, "projects.create")
      const { body, geometry } = yield* decodeCreate(input)
      const t = Result.getOrThrow(Lifecycle.transition(null, { _tag: "Create", status: body.status }))
      const m = geometry ?? noGeometry
      const status = t.state ?? "active"
      const counted = countedOf({ ...m, status })
      const known = counted ? (yield* compare(storage, principal.account_id, counted, undefined, deadline)).compared : new Map()
      // The creator named in the event, read before the account's lock is taken: one round trip
      // less under it on PostgreSQL (who sent the request does not change with the lock).
      const creator = principal.user_id ? yield* storage.members.get(principal.account_id, principal.user_id) : undefined
      return yield* provide(UsageGuard.guarded(principal.account_id, Effect.gen(function*() {
        const now = yield* nowIso
        const description = body.description ?? null
        const row: ProjectRow = {
          id: Ids.make("project"),
          account_id: principal.account_id,
          name: body.name,
          slug: body.slug ?? Slug.fromName(body.name),
          description,
          ...m,
          status,
          created_by: principal.user_id,
          sort_name: body.name.toLowerCase(),
          search_text: searchText(body.name, description),
          created_at: now,
          updated_at: now
        }
        const stats = yield* storage.projects.stats(principal.account_id)
        yield* UsageGuard.check(principal.account_id, "hectares", stats.hectares, stats.hectares + countedArea(row))
        const report = counted ? yield* settleOverlaps(storage, principal.account_id, row, counted, deadline, known) : undefined
        yield* storage.projects.insert(row).pipe(duplicateSlug)
        yield* recordBoundary(storage, principal, undefined, row)
        yield* emit(principal.account_id, "project.created", Events.projectCreated(row, creator ? { id: creator.id, email: creator.email } : null))
        yield* reportOverlaps(principal.account_id, row, report)
        if (countedArea(row) > 0) yield* UsageGuard.alert(principal.account_id, "hectares", stats.hectares + countedArea(row))
        return report ? { ...toResource(row), overlaps: report } : toResource(row)
      })))
    }),

    list: Effect.fn("Projects.list")(function*(principal, query, options) {
      yield* authorize(principal, "projects.list")
      const q = yield* decodeList(query ?? {})
      const w = window(q, Schemas.projectOrdering(q))
      const sort = q.sort ?? "created_at"
      const sortValue = (p: ProjectRow) => (sort === "name" ? p.sort_name : sort === "area_hectares" ? p.area_hectares : p.created_at)
      const box = q.bbox === undefined ? undefined : Schemas.parseBoxQuery(q.bbox) as Geometry.BBox
      const query_ = { status: q.status, search: q.search?.toLowerCase(), sort, order: w.order, bbox: box, omitGeometry: options?.boundaries === false }
      if (q.intersects !== undefined) {
        const page = yield* intersecting(storage, principal.account_id, query_, w,
          Schemas.parseIntersectsQuery(q.intersects) as Geometry.Boundary | Geometry.Point, sortValue)
        return { data: page.rows.map(toResource), meta: { ...listMeta(page, w, sortValue), next_cursor: page.resume } }
      }
      const page = yield* storage.projects.list(principal.account_id, { ...query_, limit: w.limit, offset: w.offset, after: w.after })
      return { data: page.rows.map(toResource), meta: listMeta(page, w, sortValue) }
    }),

    get: Effect.fn("Projects.get")(function*(principal, id) {
      yield* authorize(principal, "projects.get")
      return toResource(yield* load(principal.account_id, id))
    }),

    update: Effect.fn("Projects.update")(function*(principal, id, input) {
      const deadline = yield* writeDeadline
      yield* authorize(principal, "projects.update")
      const { body, geometry } = yield* decodeUpdate(input)
      const m = geometry === undefined ? undefined : (geometry ?? noGeometry)
      return yield* change(principal, id, { _tag: "Update", status: body.status }, (p) => {
        const name = body.name ?? p.name
        const description = body.description === undefined ? p.description : body.description
        return {
          name,
          description,
          sort_name: name.toLowerCase(),
          search_text: searchText(name, description),
          ...(body.slug !== undefined ? { slug: body.slug } : {}),
          ...m
        }
      }, (before, after) => (m?.geometry || (!Lifecycle.counts(before.status) && Lifecycle.counts(after.status))) ? countedOf(after) : undefined, deadline)
    }),

    archive: Effect.fn("Projects.archive")(function*(principal, id) {
      yield* authorize(principal, "projects.archive")
      return yield* change(principal, id, { _tag: "Archive" }, () => ({}))
    }),

    restore: Effect.fn("Projects.restore")(function*(principal, id) {
      const deadline = yield* writeDeadline
      yield* authorize(principal, "projects.restore")
      return yield* change(principal, id, { _tag: "Restore" }, () => ({}), (_, after) => countedOf({ ...after, status: "active" }), deadline)
    }),

    overlapsOf: Effect.fn("Projects.overlapsOf")(function*(principal, boundary, deadline) {
      yield* authorize(principal, "projects.list")
      return reportOf(yield* compare(storage, principal.account_id, boundary, undefined, deadline))
    }),

    zoomCells: Effect.fn("Projects.zoomCells")(function*(principal, { z, x, y }) {
      yield* authorize(principal, "projects.list")
      const level = TileGrid.levelFor(z)
      const { lo, hi } = TileGrid.cellRange(z, x, y, level)
      return { level, cells: yield* storage.projects.cells(principal.account_id, level, lo, hi, 4 ** TileGrid.CELLS_BELOW) }
    }),

    delete: Effect.fn("Projects.delete")(function*(principal, id) {
      yield* authorize(principal, "projects.delete")
      yield* provide(storage.transaction(Effect.gen(function*() {
        yield* storage.lockAccount(principal.account_id)
        const p = yield* load(principal.account_id, id)
        const t = yield* refuse(Lifecycle.transition(p.status, { _tag: "Delete" }))
        yield* storage.boundaryVersions.deleteProject(principal.account_id, id)
        yield* storage.projects.delete(principal.account_id, id)
        yield* emit(principal.account_id, t.event, toResource(p))
      })))
    })
  })
}
