/** Boundary versions in memory. */
import { RawJson } from "../RawJson.ts"
import * as S from "../Storage.ts"
import type { Ctx } from "./common.ts"

/** A copy of a version (its boundary's `RawJson` is immutable: shared, never cloned). */
const copy = <R extends S.BoundaryVersionSummary>(v: R): R => ({ ...v, bbox: v.bbox && [...v.bbox] })

/** The boundary of a version appended without a copy: the project's current one (see the contract's `append`). */
const CURRENT = RawJson.of("current boundary")

const keyOf = (projectId: string, version: number) => `${projectId}|${String(version).padStart(10, "0")}`

export const boundaryHistory = (db: Ctx): S.BoundaryHistoryShape => {
  /** The project's versions of the account, newest first. */
  const versionsOf = (accountId: string, projectId: string) =>
    [...db.t.boundaryVersions.values()]
      .filter((v) => v.account_id === accountId && v.project_id === projectId)
      .sort((a, b) => b.version - a.version)

  return {
    boundaryVersions: {
      append: (row) =>
        db.locked(() => {
          db.t.boundaryVersions.set(keyOf(row.project_id, row.version), copy({ ...row, geometry: row.geometry === undefined ? CURRENT : row.geometry }))
          db.t.boundaryVersions.delete(keyOf(row.project_id, row.version - S.MAX_BOUNDARY_VERSIONS))
        }),
      supersedeLatest: (accountId, projectId, geometry) =>
        db.locked(() => {
          const v = versionsOf(accountId, projectId)[0]
          if (v?.geometry === CURRENT) db.t.boundaryVersions.set(keyOf(projectId, v.version), { ...v, geometry })
          return v?.version
        }),
      get: (accountId, projectId, version) =>
        db.locked(() => {
          const v = db.t.boundaryVersions.get(keyOf(projectId, version))
          if (!v || v.account_id !== accountId) return undefined
          if (v.geometry !== CURRENT) return copy(v)
          // Not copied: the project's boundary while this is its newest version.
          const newest = versionsOf(accountId, projectId)[0]?.version === version
          const project = db.t.projects.get(projectId)
          return copy({ ...v, geometry: newest && project?.account_id === accountId ? project.geometry : null })
        }),
      list: (accountId, projectId, q) =>
        db.locked(() => {
          const all = versionsOf(accountId, projectId)
          const from = q.before === undefined ? all.slice(q.offset) : all.filter((v) => v.version < q.before!)
          return {
            rows: from.slice(0, q.limit).map(({ geometry: _, ...summary }) => copy(summary)),
            hasMore: from.length > q.limit,
            total: all.length
          }
        }),
      deleteProject: (accountId, projectId) =>
        db.locked(() => {
          for (const v of versionsOf(accountId, projectId)) db.t.boundaryVersions.delete(keyOf(projectId, v.version))
        })
    }
  }
}
