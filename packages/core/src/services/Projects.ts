/**
 * Projects: create, list, get, update, archive, restore, delete — with the lifecycle's rules,
 * slugs unique per account, geometry validated and measured, hectare limits, and events.
 */
import { Clock, Context, Effect, Layer, Result } from "effect"
import { Conflict, NotFound } from "../Errors.ts"
import * as Events from "../Events.ts"
import * as Geometry from "../Geometry.ts"
import * as GeometryCheck from "../GeometryCheck.ts"
import * as Ids from "../Ids.ts"
import * as Lifecycle from "../Lifecycle.ts"
import * as Overlap from "../Overlap.ts"
import * as Cursor from "../Cursor.ts"
import { RawJson } from "../RawJson.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import * as Slug from "../Slug.ts"
import { type ProjectQuery, type ProjectRow, Storage, type StorageShape, type ZoomCell } from "../Storage.ts"
import * as TileGrid from "../TileGrid.ts"
import { conflictOnDuplicate, decode, type ListResult, listMeta, type ListWindow, window } from "./common.ts"
import { record as recordBoundary } from "./boundaryChange.ts"
import { emit, nowIso } from "./Outbox.ts"
import * as UsageGuard from "./UsageGuard.ts"

/** The API view of a project row. */
export const toResource = (p: ProjectRow): Schemas.Project => ({
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

const countedArea = (p: { readonly status: string; readonly area_hectares: number }) => (p.status === "archived" ? 0 : p.area_hectares)

/** The stored geometry fields of a project without a boundary (DECISIONS: area 0, no bbox). */
const noGeometry = { geometry: null, area_hectares: 0, bbox: null }

const searchText = (name: string, description: string | null) => `${name}\n${description ?? ""}`.toLowerCase()

const duplicateSlug = conflictOnDuplicate(() => "a project with this slug already exists in the account")

/** Candidates an `intersects` list reads from the spatial index at a time, and at most per request. */
const INTERSECTS_CHUNK = 50
const INTERSECTS_EXAMINED = 500
/** Neighbours' boundaries a write's overlap comparison reads together. */
const READ_TOGETHER = 8

/** When the current write's comparisons must stop (epoch ms): `Overlap.WRITE_DEADLINE_MS` after it began. */
const writeDeadline = Effect.gen(function*() {
  const began = (yield* Overlap.WriteStarted) ?? (yield* Clock.currentTimeMillis)
  return began + Overlap.WRITE_DEADLINE_MS
})

/** The box two boxes share, if any. */
const meet = (a: Geometry.BBox, b: Geometry.BBox): Geometry.BBox | undefined =>
  Overlap.boxesMeet(a, b) ? [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])] : undefined

/** A boundary a write makes count (new, changed, or restored), to compare with the others. */
export interface Counted {
  readonly geometry: RawJson
  readonly bbox: readonly [number, number, number, number]
}

/** One neighbour's comparison: the version compared (`updated_at`) and the shared hectares, or undefined when over budget. */
type Compared = ReadonlyMap<string, { readonly updated_at: string; readonly hectares: number | undefined }>

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

  /**
   * Compares a boundary with the other counted projects whose boxes meet its box (at most
   * `Overlap.MAX_CANDIDATES`), reusing `known` comparisons of neighbours unchanged since. Runs
   * before the write's transaction (the heavy part, off the event loop through `GeometryCheck`)
   * and again inside it, where only a neighbour written in between is compared anew: so two
   * concurrent writes cannot both miss each other (the transaction holds the account's lock).
   */
  const compare = (accountId: string, b: Counted, excludeId: string | undefined, deadline: number, known: Compared = new Map()) =>
    Effect.gen(function*() {
      // The same boundary stored twice (a duplicate import: the classic double count) shares all
      // of it: the store tells which neighbours hold this very text, so they are never read out or
      // clipped. (Stored texts are normalised: equal shapes are equal text.)
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
  const reportOf = (c: Effect.Success<ReturnType<typeof compare>>): Overlap.Report => {
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
  const settleOverlaps = (accountId: string, project: ProjectRow, b: Counted, deadline: number, known: Compared) =>
    Effect.gen(function*() {
      const report = reportOf(yield* compare(accountId, b, project.id, deadline, known))
      const account = yield* storage.accounts.get(accountId)
      if (account?.overlap_policy === "reject" && (report.overlaps.length > 0 || !report.complete)) {
        return yield* new Conflict({
          message: report.overlaps.length > 0 ? Overlap.refusal(report.overlaps)
            : "The boundary could not be compared with every nearby project within the time budget; this account refuses boundaries it cannot check (overlap_policy: reject)"
        })
      }
      return report
    })

  /**
   * A page of the list filtered by `intersects`: candidates come from the spatial index (the
   * geometry's box) in the list's order, `INTERSECTS_CHUNK` at a time, each tested exactly
   * (through `GeometryCheck`, off the event loop for large boundaries). At most
   * `INTERSECTS_EXAMINED` candidates (or `Overlap.LIST_BUDGET_MS`) per request: a page may
   * then hold fewer rows than asked, with `resume` — the cursor after the last candidate examined.
   * The total is exact only when every candidate was examined from the start.
   */
  const intersecting = (
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

  /** `project.overlap_detected`, when a write's report lists overlaps. */
  const reportOverlaps = (accountId: string, project: ProjectRow, report: Overlap.Report | undefined) =>
    report && report.overlaps.length > 0 ? emit(accountId, "project.overlap_detected", Events.overlapDetected(project, report)) : Effect.void

  /** The counted boundary of a row, when it has one and is not archived. */
  const countedOf = (p: Pick<ProjectRow, "geometry" | "bbox" | "status">): Counted | undefined =>
    p.geometry !== null && p.bbox !== null && p.status !== "archived" ? { geometry: p.geometry, bbox: p.bbox } : undefined

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
      const known = early ? (yield* compare(principal.account_id, early, id, deadline)).compared : new Map()
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
        const report = counted ? yield* settleOverlaps(principal.account_id, after, counted, deadline, known) : undefined
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
      const known = counted ? (yield* compare(principal.account_id, counted, undefined, deadline)).compared : new Map()
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
        const report = counted ? yield* settleOverlaps(principal.account_id, row, counted, deadline, known) : undefined
        yield* storage.projects.insert(row).pipe(duplicateSlug)
        yield* recordBoundary(storage, principal, undefined, row)
        const creator = principal.user_id ? yield* storage.members.get(principal.account_id, principal.user_id) : undefined
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
        const page = yield* intersecting(principal.account_id, query_, w, Schemas.parseIntersectsQuery(q.intersects) as Geometry.Boundary | Geometry.Point,
          sortValue)
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
      }, (before, after) => (m?.geometry || (before.status === "archived" && after.status !== "archived")) ? countedOf(after) : undefined, deadline)
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
      return reportOf(yield* compare(principal.account_id, boundary, undefined, deadline))
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
