/**
 * Assets of a project: list, get, create, update, delete. Assets of an archived project stay
 * readable; creating, changing or deleting them is a conflict (DECISIONS). A status change emits
 * `asset.status_changed` besides `asset.updated`.
 */
import { Context, Effect, Layer } from "effect"
import { Conflict, NotFound } from "../Errors.ts"
import * as Events from "../Events.ts"
import * as Ids from "../Ids.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { type AssetRow, Storage, type StorageShape } from "../Storage.ts"
import { decode, type ListResult, listMeta, window, type Fx } from "./common.ts"
import { emit, nowIso } from "./Outbox.ts"

/** The API view of an asset row. */
const toResource = (a: AssetRow): Schemas.Asset => ({
  id: a.id,
  project_id: a.project_id,
  name: a.name,
  type: a.type as Schemas.AssetType,
  location: a.location,
  status: a.status as Schemas.AssetStatus,
  metadata: a.metadata,
  created_at: a.created_at,
  updated_at: a.updated_at
})

/** The Assets service. */
export class Assets extends Context.Service<Assets, {
  readonly list: (principal: Principal, projectId: string, query?: unknown) => Fx<ListResult<Schemas.Asset>>
  readonly get: (principal: Principal, projectId: string, id: string) => Fx<Schemas.Asset>
  readonly create: (principal: Principal, projectId: string, input: unknown) => Fx<Schemas.Asset>
  readonly update: (principal: Principal, projectId: string, id: string, input: unknown) => Fx<Schemas.Asset>
  readonly delete: (principal: Principal, projectId: string, id: string) => Fx<void>
}>()("canopy/Assets") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

const decodeCreate = decode(Schemas.CreateAsset)
const decodeUpdate = decode(Schemas.UpdateAsset)
const decodeList = decode(Schemas.ListAssets, "query")

const make = (storage: StorageShape) => {
  const provide = <A, E>(effect: Effect.Effect<A, E, Storage>) => Effect.provideService(effect, Storage, storage)

  const project = (accountId: string, projectId: string, forChange: boolean) =>
    Effect.gen(function*() {
      const p = yield* storage.projects.get(accountId, projectId)
      if (!p) return yield* new NotFound({ resource: "project", id: projectId })
      if (forChange && p.status === "archived") {
        return yield* new Conflict({ message: "the project is archived: restore it before changing its assets" })
      }
      return p
    })

  const asset = (accountId: string, projectId: string, id: string) =>
    Effect.flatMap(storage.assets.get(accountId, projectId, id), (a) => a ? Effect.succeed(a) : Effect.fail(new NotFound({ resource: "asset", id })))

  const inTransaction = <A, E>(accountId: string, body: Effect.Effect<A, E, Storage>) =>
    provide(storage.transaction(Effect.andThen(storage.lockAccount(accountId), body)))

  return Assets.of({
    list: Effect.fn("Assets.list")(function*(principal, projectId, query) {
      yield* authorize(principal, "assets.list")
      const q = yield* decodeList(query ?? {})
      yield* project(principal.account_id, projectId, false)
      const w = window(q, Schemas.newestFirst())
      const page = yield* storage.assets.list(principal.account_id, projectId, {
        type: q.type,
        status: q.status,
        search: q.search?.toLowerCase(),
        limit: w.limit,
        offset: w.offset,
        after: w.after
      })
      return { data: page.rows.map(toResource), meta: listMeta(page, w, (a) => a.created_at) }
    }),

    get: Effect.fn("Assets.get")(function*(principal, projectId, id) {
      yield* authorize(principal, "assets.get")
      yield* project(principal.account_id, projectId, false)
      return toResource(yield* asset(principal.account_id, projectId, id))
    }),

    create: Effect.fn("Assets.create")(function*(principal, projectId, input) {
      yield* authorize(principal, "assets.create")
      const body = yield* decodeCreate(input)
      return yield* inTransaction(principal.account_id, Effect.gen(function*() {
        yield* project(principal.account_id, projectId, true)
        const now = yield* nowIso
        const row: AssetRow = {
          id: Ids.make("asset"),
          account_id: principal.account_id,
          project_id: projectId,
          name: body.name,
          type: body.type,
          location: body.location ?? null,
          status: body.status ?? "active",
          metadata: body.metadata ?? {},
          search_text: body.name.toLowerCase(),
          created_at: now,
          updated_at: now
        }
        yield* storage.assets.insert(row)
        yield* emit(principal.account_id, "asset.created", Events.assetCreated(row))
        return toResource(row)
      }))
    }),

    update: Effect.fn("Assets.update")(function*(principal, projectId, id, input) {
      yield* authorize(principal, "assets.update")
      const body = yield* decodeUpdate(input)
      return yield* inTransaction(principal.account_id, Effect.gen(function*() {
        yield* project(principal.account_id, projectId, true)
        const before = yield* asset(principal.account_id, projectId, id)
        const now = yield* nowIso
        const saved = yield* storage.assets.update(principal.account_id, projectId, id, {
          ...body,
          ...(body.name !== undefined ? { search_text: body.name.toLowerCase() } : {}),
          updated_at: now
        })
        if (!saved) return yield* new NotFound({ resource: "asset", id })
        yield* emit(principal.account_id, "asset.updated", toResource(saved))
        if (saved.status !== before.status) {
          yield* emit(principal.account_id, "asset.status_changed", Events.assetStatusChanged(saved, before.status))
        }
        return toResource(saved)
      }))
    }),

    delete: Effect.fn("Assets.delete")(function*(principal, projectId, id) {
      yield* authorize(principal, "assets.delete")
      yield* inTransaction(principal.account_id, Effect.gen(function*() {
        yield* project(principal.account_id, projectId, true)
        const a = yield* asset(principal.account_id, projectId, id)
        yield* storage.assets.delete(principal.account_id, projectId, id)
        yield* emit(principal.account_id, "asset.deleted", toResource(a))
      }))
    })
  })
}
