/** Boundary versions over SQL: one table keyed (account_id, project_id, version), read by that key. */
import { Effect } from "effect"
import type { Row } from "effect/sql/SqlConnection"
import { RawJson } from "../RawJson.ts"
import * as S from "../Storage.ts"
import { json, numOrNull, parse } from "./codec.ts"
import { type Context, orStorage } from "./common.ts"

/** Every column but the boundary's text. */
const SUMMARY_COLUMNS = "account_id, project_id, version, bbox, area_hectares_before, area_hectares_after, via, file_format, " +
  "restored_from, actor_kind, user_id, credential_id, created_at"

const summaryOf = (r: Row): S.BoundaryVersionSummary => ({
  account_id: String(r.account_id),
  project_id: String(r.project_id),
  version: Number(r.version),
  bbox: parse<S.BoundaryVersionRow["bbox"]>(r.bbox),
  area_hectares_before: Number(r.area_hectares_before),
  area_hectares_after: Number(r.area_hectares_after),
  via: String(r.via) as S.BoundaryVia,
  file_format: r.file_format == null ? null : String(r.file_format),
  restored_from: numOrNull(r.restored_from),
  actor_kind: r.actor_kind == null ? null : String(r.actor_kind),
  user_id: r.user_id == null ? null : String(r.user_id),
  credential_id: r.credential_id == null ? null : String(r.credential_id),
  created_at: String(r.created_at)
})

/** A version's own "no boundary", told apart from a version without a copy (SQL null). */
const NO_BOUNDARY = "null"
/** The column's value: the text, `NO_BOUNDARY`, or null for the project's current boundary (not copied). */
const stored = (g: RawJson | null | undefined) => (g === undefined ? null : g === null ? NO_BOUNDARY : g.text)

export const boundaryHistory = (c: Context): S.BoundaryHistoryShape => {
  const { sql, count, holdOrRun, flushHeld } = c
  const ofProject = (accountId: string, projectId: string) => sql`account_id = ${accountId} and project_id = ${projectId}`
  return {
    boundaryVersions: {
      append: (row) => {
        const inserted = sql`insert into boundary_versions ${sql.insert({ ...row, geometry: stored(row.geometry), bbox: json(row.bbox) })}`
        const expired = row.version - S.MAX_BOUNDARY_VERSIONS
        // A version past the history's length also removes the oldest: sent now, after what is held.
        return orStorage(expired < 1 ? holdOrRun([inserted]) : Effect.gen(function*() {
          yield* flushHeld
          yield* inserted
          yield* sql`delete from boundary_versions where ${ofProject(row.account_id, row.project_id)} and version = ${expired}`
        }))
      },
      // The newest version found by the key's index and its copy given in the same statement (a
      // version that has its own is written back unchanged: only histories from before copies were
      // deferred have one), so a boundary replacement costs one round trip here, not two.
      supersedeLatest: (accountId, projectId, geometry) =>
        orStorage(Effect.map(
          sql`update boundary_versions set geometry = case when geometry is null then ${stored(geometry)} else geometry end
            where ${ofProject(accountId, projectId)}
              and version = (select max(version) from boundary_versions where ${ofProject(accountId, projectId)})
            returning version`,
          (rows) => (rows[0] ? Number(rows[0].version) : undefined)
        )),
      get: (accountId, projectId, version) =>
        orStorage(Effect.gen(function*() {
          const [row] = yield* sql`select * from boundary_versions where ${ofProject(accountId, projectId)} and version = ${version}`
          if (!row) return undefined
          let text = row.geometry == null ? null : String(row.geometry)
          // Not copied: the project's current boundary, when this is its newest version (an older
          // one without a copy is a history written before copies were deferred: no boundary).
          if (text === null) {
            const [newer] = yield* sql`select 1 as x from boundary_versions where ${ofProject(accountId, projectId)} and version > ${version} limit 1`
            const [project] = newer ? [] : yield* sql`select geometry from projects where account_id = ${accountId} and id = ${projectId}`
            text = project?.geometry == null ? null : String(project.geometry)
          }
          return { ...summaryOf(row), geometry: text === null || text === NO_BOUNDARY ? null : new RawJson(text) }
        })),
      list: (accountId, projectId, q) =>
        Effect.gen(function*() {
          const below = q.before === undefined ? sql`` : sql`and version < ${q.before}`
          const skip = q.before === undefined && q.offset > 0 ? sql`offset ${q.offset}` : sql``
          const rows = yield* orStorage(sql`select ${sql.literal(SUMMARY_COLUMNS)} from boundary_versions
            where ${ofProject(accountId, projectId)} ${below} order by version desc limit ${q.limit + 1} ${skip}`)
          const total = yield* count(sql`select count(*) as n from boundary_versions where ${ofProject(accountId, projectId)}`)
          return { rows: rows.slice(0, q.limit).map(summaryOf), hasMore: rows.length > q.limit, total }
        }),
      deleteProject: (accountId, projectId) => orStorage(Effect.asVoid(sql`delete from boundary_versions where ${ofProject(accountId, projectId)}`))
    }
  }
}
