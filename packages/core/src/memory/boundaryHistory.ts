/** Boundary versions in memory. */
import * as S from "../Storage.ts"
import type { Ctx } from "./common.ts"

/** A copy of a version (its boundary's `RawJson` is immutable: shared, never cloned). */
const copy = <R extends S.BoundaryVersionSummary>(v: R): R => ({ ...v, bbox: v.bbox && [...v.bbox] })

const keyOf = (projectId: string, version: number) => `${projectId}|${String(version).padStart(10, "0")}`

export const boundaryHistory = (db: Ctx): S.BoundaryHistoryShape => {
  /** The project's versions of the account, newest first. */
  const versionsOf = (accountId: string, projectId: string) =>
    [...db.t.boundaryVersions.values()]
      .filter((v) => v.account_id === accountId && v.project_id === projectId)
      .sort((a, b) => b.version - a.version)

  return {
    boundaryVersions: {
      append: (row) => db.locked(() => {
        db.t.boundaryVersions.set(keyOf(row.project_id, row.version), copy(row))
        db.t.boundaryVersions.delete(keyOf(row.project_id, row.version - S.MAX_BOUNDARY_VERSIONS))
      }),
      latest: (accountId, projectId) => db.locked(() => versionsOf(accountId, projectId)[0]?.version),
      get: (accountId, projectId, version) => db.locked(() => {
        const v = db.t.boundaryVersions.get(keyOf(projectId, version))
        return v && v.account_id === accountId ? copy(v) : undefined
      }),
      list: (accountId, projectId, q) => db.locked(() => {
        const all = versionsOf(accountId, projectId)
        const from = q.before === undefined ? all.slice(q.offset) : all.filter((v) => v.version < q.before!)
        return {
          rows: from.slice(0, q.limit).map(({ geometry: _, ...summary }) => copy(summary)),
          hasMore: from.length > q.limit,
          total: all.length
        }
      }),
      deleteProject: (accountId, projectId) => db.locked(() => {
        for (const v of versionsOf(accountId, projectId)) db.t.boundaryVersions.delete(keyOf(projectId, v.version))
      })
    }
  }
}
