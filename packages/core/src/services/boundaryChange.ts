/**
 * How a write's boundary change is recorded in the project's boundary history: the route making
 * the write says how it came in (`via`), and the write records the change inside its own
 * transaction (`record`), so a refused or failed write stores no version.
 */
import { Context, Effect } from "effect"
import type { Principal } from "../Principal.ts"
import type { BoundaryVia, ProjectRow, StorageShape } from "../Storage.ts"
import { nowIso } from "./Outbox.ts"

/** How the boundary change of the current write came in, when the caller is not a plain create or update. */
export interface ChangeSource {
  readonly via: BoundaryVia
  readonly file_format?: string | undefined
  readonly restored_from?: number | undefined
}

/** Set by the route making a write (an import, the dashboard, a version restore); absent: `create` or `update`. */
const ChangeVia = Context.Reference<ChangeSource | undefined>("canopy/BoundaryHistory/ChangeVia", { defaultValue: () => undefined })

/** Runs a write with its boundary change recorded as coming from `source`. */
export const via = (source: ChangeSource) => <A, E, R>(write: Effect.Effect<A, E, R>) => Effect.provideService(write, ChangeVia, source)

const textOf = (p: Pick<ProjectRow, "geometry"> | undefined) => p?.geometry?.text ?? null

/**
 * Inside a write's transaction, after the project row is written: a new version when the boundary
 * changed from `before` (undefined: the project is new) to `after`, or when the write restores a
 * version. A project whose boundary predates its history first gets that boundary as an `initial`
 * version, so that no boundary is lost to a change.
 */
export const record = (storage: StorageShape, principal: Principal, before: ProjectRow | undefined, after: ProjectRow) =>
  Effect.gen(function*() {
    const source = yield* ChangeVia
    if (textOf(before) === textOf(after) && source?.restored_from === undefined) return
    // The newest version's boundary is the project's own, stored once (in the project row); the
    // one this write replaces gets its copy now. A new project has no history yet: nothing to read.
    const latest = before ? yield* storage.boundaryVersions.supersedeLatest(after.account_id, after.id, before.geometry ?? null) : undefined
    let version = (latest ?? 0) + 1
    const base = { account_id: after.account_id, project_id: after.id, file_format: null, restored_from: null }
    if (latest === undefined && before?.geometry) {
      yield* storage.boundaryVersions.append({
        ...base,
        version,
        geometry: before.geometry,
        bbox: before.bbox,
        area_hectares_before: 0,
        area_hectares_after: before.area_hectares,
        via: "initial",
        actor_kind: null,
        user_id: null,
        credential_id: null,
        created_at: before.updated_at
      })
      version++
    }
    yield* storage.boundaryVersions.append({
      ...base,
      version,
      bbox: after.bbox,
      area_hectares_before: before?.area_hectares ?? 0,
      area_hectares_after: after.area_hectares,
      via: source?.via ?? (before ? "update" : "create"),
      file_format: source?.file_format ?? null,
      restored_from: source?.restored_from ?? null,
      actor_kind: principal.kind,
      user_id: principal.user_id,
      credential_id: principal.credential_id,
      created_at: yield* nowIso
    })
  })
