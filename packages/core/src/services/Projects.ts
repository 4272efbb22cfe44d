/**
 * Projects: create, list, get, update, archive, restore, delete — with the lifecycle's rules,
 * slugs unique per account, geometry validated and measured, hectare limits, and events.
 */
import { Context, Effect, Layer, Result } from "effect"
import { Conflict, NotFound } from "../Errors.ts"
import * as Events from "../Events.ts"
import * as GeometryCheck from "../GeometryCheck.ts"
import * as Ids from "../Ids.ts"
import * as Lifecycle from "../Lifecycle.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import * as Slug from "../Slug.ts"
import { Storage, type ProjectRow, type StorageShape } from "../Storage.ts"
import { conflictOnDuplicate, decode, type ListResult, listMeta, window } from "./common.ts"
import { emit, nowIso } from "./Outbox.ts"
import * as UsageGuard from "./UsageGuard.ts"

/** The API view of a project row. */
export const toResource = (p: ProjectRow): Schemas.Project => ({
  id: p.id, name: p.name, slug: p.slug, description: p.description, geometry: p.geometry,
  area_hectares: p.area_hectares, bbox: p.bbox, status: p.status, created_at: p.created_at, updated_at: p.updated_at
})

const counted = (p: { readonly status: string; readonly area_hectares: number }) => (p.status === "archived" ? 0 : p.area_hectares)

/** The stored geometry fields of a project without a boundary (DECISIONS: area 0, no bbox). */
const noGeometry = { geometry: null, area_hectares: 0, bbox: null }

const searchText = (name: string, description: string | null) => `${name}\n${description ?? ""}`.toLowerCase()

const duplicateSlug = conflictOnDuplicate(() => "a project with this slug already exists in the account")

/** The Projects service. */
export class Projects extends Context.Service<Projects, {
  readonly create: (principal: Principal, input: unknown) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly list: (principal: Principal, query?: unknown) => Effect.Effect<ListResult<Schemas.Project>, ProjectsError>
  readonly get: (principal: Principal, id: string) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly update: (principal: Principal, id: string, input: unknown) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly archive: (principal: Principal, id: string) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly restore: (principal: Principal, id: string) => Effect.Effect<Schemas.Project, ProjectsError>
  readonly delete: (principal: Principal, id: string) => Effect.Effect<void, ProjectsError>
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
  const change = (principal: Principal, id: string, command: Lifecycle.Command, patch: (p: ProjectRow) => Partial<ProjectRow>) =>
    provide(UsageGuard.guarded(principal.account_id, Effect.gen(function*() {
      const before = yield* load(principal.account_id, id)
      const t = yield* refuse(Lifecycle.transition(before.status, command))
      const now = yield* nowIso
      const fields = { ...patch(before), status: t.state ?? before.status, updated_at: now }
      const after = { ...before, ...fields }
      const stats = yield* storage.projects.stats(principal.account_id)
      const usage = stats.hectares - counted(before) + counted(after)
      yield* UsageGuard.check(principal.account_id, "hectares", stats.hectares, usage)
      const saved = yield* storage.projects.update(principal.account_id, id, fields).pipe(duplicateSlug)
      if (!saved) return yield* new NotFound({ resource: "project", id })
      yield* emit(principal.account_id, t.event, toResource(saved))
      if (usage > stats.hectares) yield* UsageGuard.alert(principal.account_id, "hectares", usage)
      return toResource(saved)
    })))

  return Projects.of({
    create: Effect.fn("Projects.create")(function*(principal, input) {
      yield* authorize(principal, "projects.create")
      const { body, geometry } = yield* decodeCreate(input)
      const t = Result.getOrThrow(Lifecycle.transition(null, { _tag: "Create", status: body.status }))
      const m = geometry ?? noGeometry
      return yield* provide(UsageGuard.guarded(principal.account_id, Effect.gen(function*() {
        const now = yield* nowIso
        const description = body.description ?? null
        const row: ProjectRow = {
          id: Ids.make("project"), account_id: principal.account_id, name: body.name,
          slug: body.slug ?? Slug.fromName(body.name), description, ...m,
          status: t.state ?? "active", created_by: principal.user_id,
          sort_name: body.name.toLowerCase(), search_text: searchText(body.name, description),
          created_at: now, updated_at: now
        }
        const stats = yield* storage.projects.stats(principal.account_id)
        yield* UsageGuard.check(principal.account_id, "hectares", stats.hectares, stats.hectares + counted(row))
        yield* storage.projects.insert(row).pipe(duplicateSlug)
        const creator = principal.user_id ? yield* storage.members.get(principal.account_id, principal.user_id) : undefined
        yield* emit(principal.account_id, "project.created",
          Events.projectCreated(row, creator ? { id: creator.id, email: creator.email } : null))
        if (counted(row) > 0) yield* UsageGuard.alert(principal.account_id, "hectares", stats.hectares + counted(row))
        return toResource(row)
      })))
    }),

    list: Effect.fn("Projects.list")(function*(principal, query) {
      yield* authorize(principal, "projects.list")
      const q = yield* decodeList(query ?? {})
      const w = window(q, Schemas.projectOrdering(q))
      const sort = q.sort ?? "created_at"
      const page = yield* storage.projects.list(principal.account_id, {
        status: q.status, search: q.search?.toLowerCase(), sort, order: w.order, limit: w.limit, offset: w.offset, after: w.after
      })
      const sortValue = (p: ProjectRow) => (sort === "name" ? p.sort_name : sort === "area_hectares" ? p.area_hectares : p.created_at)
      return { data: page.rows.map(toResource), meta: listMeta(page, w, sortValue) }
    }),

    get: Effect.fn("Projects.get")(function*(principal, id) {
      yield* authorize(principal, "projects.get")
      return toResource(yield* load(principal.account_id, id))
    }),

    update: Effect.fn("Projects.update")(function*(principal, id, input) {
      yield* authorize(principal, "projects.update")
      const { body, geometry } = yield* decodeUpdate(input)
      const m = geometry === undefined ? undefined : (geometry ?? noGeometry)
      return yield* change(principal, id, { _tag: "Update", status: body.status }, (p) => {
        const name = body.name ?? p.name
        const description = body.description === undefined ? p.description : body.description
        return {
          name, description, sort_name: name.toLowerCase(), search_text: searchText(name, description),
          ...(body.slug !== undefined ? { slug: body.slug } : {}),
          ...(m ?? {})
        }
      })
    }),

    archive: Effect.fn("Projects.archive")(function*(principal, id) {
      yield* authorize(principal, "projects.archive")
      return yield* change(principal, id, { _tag: "Archive" }, () => ({}))
    }),

    restore: Effect.fn("Projects.restore")(function*(principal, id) {
      yield* authorize(principal, "projects.restore")
      return yield* change(principal, id, { _tag: "Restore" }, () => ({}))
    }),

    delete: Effect.fn("Projects.delete")(function*(principal, id) {
      yield* authorize(principal, "projects.delete")
      yield* provide(storage.transaction(Effect.gen(function*() {
        yield* storage.lockAccount(principal.account_id)
        const p = yield* load(principal.account_id, id)
        const t = yield* refuse(Lifecycle.transition(p.status, { _tag: "Delete" }))
        yield* storage.projects.delete(principal.account_id, id)
        yield* emit(principal.account_id, t.event, toResource(p))
      })))
    })
  })
}
