/** Projects and assets over SQL, with search on a trigram index. */
import { Effect } from "effect"
import * as Lifecycle from "../Lifecycle.ts"
import { boundaryKey } from "../Overlap.ts"
import type { RawJson } from "../RawJson.ts"
import * as S from "../Storage.ts"
import { cellOf } from "../TileGrid.ts"
import { fromDb } from "./codec.ts"
import { type Context, forgetting, type Fragment, memoKey, onUnique, orStorage } from "./common.ts"

/** A term as an FTS5 phrase: with the trigram tokenizer, a case-insensitive substring match. */
const ftsPhrase = (term: string) => `"${term.replace(/"/g, "\"\"")}"`

/** Rows a filtered project list walks in sort order before asking the filters' indexes. */
const FILTER_WALK = 5_000

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The stored key of a boundary (`Overlap.boundaryKey`), beside its text; null without one. */
const keyOf = (geometry: RawJson | null | undefined) => (geometry ? boundaryKey(geometry.text) : null)

/** The stored zoom-grid cell of a box (`TileGrid.cellOf`, counted in `zoom_cells` by triggers); null without one. */
const zoomCellOf = (bbox: S.ProjectRow["bbox"]) => (bbox ? cellOf(bbox) : null)

export const projects = (c: Context): S.ProjectsShape => {
  const { sql, dialect, one, all, count, affected, planned, insert, patchRow, orderBy, keyset, page, totals } = c

  /** The columns of a project list: every one, or every one but the boundary's text (read as null). */
  const listColumns = (q: S.ProjectQuery) =>
    q.omitGeometry
      ? sql.literal(
        "id, account_id, name, slug, description, null as geometry, area_hectares, bbox, status, created_by, sort_name, search_text, created_at, updated_at"
      )
      : sql.literal("*")

  /** A case-insensitive substring match on `search_text` through the table's trigram index. */
  const searchClause = (table: "projects" | "assets", term: string) =>
    dialect === "sqlite"
      ? sql`rowid in (select rowid from ${sql(`${table}_fts`)} where ${sql(`${table}_fts`)} match ${ftsPhrase(term)})`
      : sql`search_text like ${likeContains(term)} escape '\\'`

  type Box = readonly [number, number, number, number]

  /** The exact test of a row's stored box against `b`, edges included (rows without one fail it). */
  const boxMeets = (b: Box) =>
    dialect === "pg"
      ? sql`bbox is not null and projects_box(bbox) && box(point(${b[0]}, ${b[1]}), point(${b[2]}, ${b[3]}))`
      : sql`bbox is not null and json_extract(bbox, '$[0]') <= ${b[2]} and json_extract(bbox, '$[2]') >= ${b[0]}
          and json_extract(bbox, '$[1]') <= ${b[3]} and json_extract(bbox, '$[3]') >= ${b[1]}`

  /**
   * Rows whose box meets `b`, through the spatial index: on SQLite the R*Tree's candidates in the
   * account's own dimension (`countedOnly`: not archived), on PostgreSQL the GiST index the planner
   * picks for `boxMeets`. Combine with `boxMeets` for the exact test.
   */
  const boxIndexed = (accountId: string, b: Box, countedOnly = false) =>
    dialect === "pg"
      ? boxMeets(b)
      : sql`rowid in (select r.id from projects_rtree r, (select rowid as k from accounts where id = ${accountId}) a
          where r.west <= ${b[2]} and r.east >= ${b[0]} and r.south <= ${b[3]} and r.north >= ${b[1]}
          and r.account_lo <= a.k and r.account_hi >= a.k ${countedOnly ? sql`and r.counted_hi >= 1` : sql``})`

  /**
   * Projects of a box counted up to one past `SEARCH_COUNT_LIMIT`, driven by the R*Tree (a join,
   * so the count stops with its limit instead of first collecting every match of the box).
   */
  const boxCount = (accountId: string, clauses: Array<Fragment>, b: Box) =>
    count(sql`select count(*) as n from (select 1 from projects_rtree r
        join (select rowid as k from accounts where id = ${accountId}) a on r.account_lo <= a.k and r.account_hi >= a.k
        join projects on projects.rowid = r.id
        where r.west <= ${b[2]} and r.east >= ${b[0]} and r.south <= ${b[3]} and r.north >= ${b[1]}
        and ${sql.and([...clauses, boxMeets(b)])} limit ${S.SEARCH_COUNT_LIMIT + 1}) c`)

  /**
   * A filtered project list (a search term, a box, or both). The page: first by walking the sort
   * index (at most `FILTER_WALK` rows, testing each row), which fills the page whenever more than
   * about one row in 200 matches; otherwise through the filters' indexes (trigram, spatial), sorting
   * the matches' keys — cheap exactly when matches are few, which a box's count (from the spatial
   * index, before the page) tells. The total counts matches up to `SEARCH_COUNT_LIMIT`.
   */
  const filteredProjects = (accountId: string, clauses: Array<Fragment>, column: string, desc: boolean, q: S.ProjectQuery) =>
    Effect.gen(function*() {
      const tests: Array<Fragment> = []
      const indexed: Array<Fragment> = []
      if (q.search !== undefined) {
        tests.push(dialect === "pg" ? sql`strpos(search_text, ${q.search}) > 0` : sql`instr(search_text, ${q.search}) > 0`)
        indexed.push(searchClause("projects", q.search))
      }
      if (q.bbox !== undefined) {
        tests.push(boxMeets(q.bbox))
        if (dialect !== "pg") indexed.push(boxIndexed(accountId, q.bbox))
      }
      const order = orderBy(column, desc)
      const skip = q.after === undefined ? q.offset : 0
      const want = skip + q.limit + 1
      const after = [...clauses, ...keyset(column, desc, q.after)]
      const from = sql.and(after)
      /** The page through the filters' indexes: the matches' keys sorted (cost follows the matches). */
      const viaIndexes = dialect === "pg" && q.bbox !== undefined
        // PostgreSQL estimates the box test poorly and would walk the sort index testing every
        // row: the matches are taken from the GiST index first (a materialised set), then sorted.
        ? all<S.ProjectRow>("projects", planned(sql`with m as materialized (
            select id, ${sql(column)} from projects where ${sql.and([...clauses, ...tests])})
            select ${listColumns(q)} from projects where id in (
              select id from m ${q.after === undefined ? sql`` : sql`where ${sql.and(keyset(column, desc, q.after))}`}
              order by ${order} limit ${want}) order by ${order}`))
        : all<S.ProjectRow>("projects", planned(sql`select ${listColumns(q)} from projects where id in (
          select id from projects where ${sql.and([...after, ...indexed, ...tests])}
          order by ${order} limit ${want}) order by ${order}`))
      /** The page by walking the sort index, then through the indexes if the walk fell short. */
      const walking = Effect.gen(function*() {
        const walked = yield* all<S.ProjectRow>("projects", planned(sql`select ${listColumns(q)} from projects where id in (
            select id from (select id, ${sql(column)}, search_text, bbox from projects where ${from} order by ${order} limit ${FILTER_WALK}) w
            where ${sql.and(tests)} order by ${order} limit ${want}) order by ${order}`))
        if (walked.length >= want) return walked
        const rowsWalked = yield* count(sql`select count(*) as n from (select 1 from projects where ${from} limit ${FILTER_WALK}) c`)
        return rowsWalked < FILTER_WALK ? walked : yield* viaIndexes
      })
      const counted = q.bbox === undefined
        ? searchCount(accountId, clauses.length > 1, q.search!)
        : dialect === "sqlite" && q.search === undefined
        ? boxCount(accountId, clauses, q.bbox)
        : count(planned(sql`select count(*) as n from (select 1 from projects
            where ${sql.and([...clauses, ...indexed, ...tests])} limit ${S.SEARCH_COUNT_LIMIT + 1}) c`))
      const [rows, n] = q.bbox !== undefined
        // A box: its capped count comes from the spatial index first (cheap); when it holds at most
        // `SEARCH_COUNT_LIMIT` projects, their keys are sorted at once instead of walking the sort
        // index, where every row's box would be tested (5,000 tests for a box of 100 projects).
        ? yield* Effect.flatMap(counted, (n) => Effect.map(n <= S.SEARCH_COUNT_LIMIT ? viaIndexes : walking, (r) => [r, n] as const))
        // A term: on PostgreSQL the page and the count run at once, on two of the pool's connections.
        : yield* Effect.all([walking, counted], { concurrency: dialect === "pg" ? 2 : 1 })
      return {
        rows: rows.slice(skip, skip + q.limit),
        hasMore: rows.length > skip + q.limit,
        total: Math.min(n, S.SEARCH_COUNT_LIMIT),
        totalExact: n <= S.SEARCH_COUNT_LIMIT
      }
    })

  /**
   * Projects of the account matching a term, counted up to one past `SEARCH_COUNT_LIMIT`. On a
   * SQLite file that holds this account alone (the usual deployment), the trigram index answers by
   * itself; otherwise each match is checked against the account (and status).
   */
  const searchCount = (accountId: string, filtered: boolean, term: string) =>
    Effect.gen(function*() {
      const cap = S.SEARCH_COUNT_LIMIT + 1
      if (dialect === "sqlite" && !filtered) {
        const others = yield* count(sql`select count(*) as n from (select 1 from accounts where id <> ${accountId} limit 1) o`)
        if (others === 0) {
          return yield* count(sql`select count(*) as n from (select rowid from projects_fts where projects_fts match ${ftsPhrase(term)} limit ${cap}) c`)
        }
      }
      const clauses = [sql`account_id = ${accountId}`, searchClause("projects", term)]
      return yield* count(planned(sql`select count(*) as n from (select 1 from projects where ${sql.and(clauses)} limit ${cap}) c`))
    })

  return {
    projects: {
      insert: (row) =>
        forgetting(
          onUnique("project", "slug")(Effect.asVoid(insert("projects", { ...row, boundary_key: keyOf(row.geometry), zoom_cell: zoomCellOf(row.bbox) }))),
          memoKey.totalsOf(row.account_id)
        ),
      get: (accountId, id) => one("projects", sql`select * from projects where account_id = ${accountId} and id = ${id}`),
      update: (accountId, id, patch) =>
        forgetting(onUnique("project", "slug")(Effect.map(patchRow("projects", {
          ...patch,
          ...(patch.geometry === undefined ? {} : { boundary_key: keyOf(patch.geometry) }),
          ...(patch.bbox === undefined ? {} : { zoom_cell: zoomCellOf(patch.bbox) })
        }, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`])), (r) => fromDb<S.ProjectRow>("projects", r[0]))), memoKey.totalsOf(accountId)),
      delete: (accountId, id) =>
        forgetting(orStorage(Effect.gen(function*() {
          yield* sql`delete from assets where account_id = ${accountId} and project_id = ${id}`
          return (yield* sql`delete from projects where account_id = ${accountId} and id = ${id} returning id`).length > 0
        })), memoKey.totalsOf(accountId)),
      list: (accountId, q) => {
        const clauses = [sql`account_id = ${accountId}`]
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        const column = q.sort === "name" ? "sort_name" : q.sort
        const desc = q.order === "desc"
        if (q.search === undefined && q.bbox === undefined) {
          const exact = Effect.map(totals(accountId), (t) => (q.status === undefined ? t.active + t.archived + t.draft : t[q.status]))
          return page<S.ProjectRow>("projects", clauses, column, desc, q, { exactTotal: exact, columns: listColumns(q) })
        }
        return filteredProjects(accountId, clauses, column, desc, q)
      },
      meeting: (accountId, b, options) => {
        const clauses = [
          sql`account_id = ${accountId}`,
          sql`status <> ${sql.literal(`'${Lifecycle.UNCOUNTED}'`)}`,
          boxMeets(b),
          ...(options.excludeId !== undefined ? [sql`projects.id <> ${options.excludeId}`] : [])
        ]
        // Equal texts by their keys: a fixed-size column, not the boundaries' texts.
        const same = options.sameBoundary === undefined ? sql`0` : sql`(boundary_key = ${boundaryKey(options.sameBoundary)})`
        // SQLite: driven by the R*Tree in that order (the planner would otherwise walk every
        // project of the account by its index), so the cost follows the candidates up to the limit.
        const from = dialect === "pg"
          ? sql`from projects where ${sql.and(clauses)}`
          : sql`from (select rowid as k from accounts where id = ${accountId}) a cross join projects_rtree r cross join projects
            where r.account_lo <= a.k and r.account_hi >= a.k and r.counted_hi >= 1 and projects.rowid = r.id
            and r.west <= ${b[2]} and r.east >= ${b[0]} and r.south <= ${b[3]} and r.north >= ${b[1]} and ${sql.and(clauses)}`
        return orStorage(Effect.map(
          planned(sql`select projects.id, name, updated_at, area_hectares, boundary_key, ${same} as same_boundary ${from} limit ${options.limit}`),
          (rows) =>
            rows.map((r) => ({
              id: String(r.id),
              name: String(r.name),
              updated_at: String(r.updated_at),
              area_hectares: Number(r.area_hectares),
              same_boundary: r.same_boundary === true || Number(r.same_boundary) === 1,
              boundary_key: String(r.boundary_key ?? "")
            }))
        ))
      },
      cells: (accountId, level, lo, hi, limit) =>
        orStorage(Effect.map(
          sql`select cell, projects, area from zoom_cells where account_id = ${accountId} and level = ${level}
            and cell >= ${lo} and cell <= ${hi} order by cell limit ${limit}`,
          (rows) => rows.map((r) => ({ cell: Number(r.cell), projects: Number(r.projects), hectares: Number(r.area) / 10_000 }))
        )),
      stats: (accountId) =>
        Effect.map(totals(accountId), (t) => ({
          active: t.active,
          archived: t.archived,
          draft: t.draft,
          hectares: (t.areaActive + t.areaDraft) / 10_000
        }))
    },

    assets: {
      insert: (row) => orStorage(Effect.asVoid(insert("assets", row))),
      get: (accountId, projectId, id) => one("assets", sql`select * from assets where account_id = ${accountId} and project_id = ${projectId} and id = ${id}`),
      update: (accountId, projectId, id, patch) =>
        one("assets", patchRow("assets", patch, sql.and([sql`account_id = ${accountId}`, sql`project_id = ${projectId}`, sql`id = ${id}`]))),
      delete: (accountId, projectId, id) =>
        affected(sql`delete from assets where account_id = ${accountId} and project_id = ${projectId} and id = ${id} returning id`),
      list: (accountId, projectId, q) => {
        const clauses = [sql`account_id = ${accountId}`, sql`project_id = ${projectId}`]
        if (q.type !== undefined) clauses.push(sql`type = ${q.type}`)
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        if (q.search !== undefined) clauses.push(searchClause("assets", q.search))
        return page<S.AssetRow>("assets", clauses, "created_at", true, q,
          q.search === undefined ? {} : { countLimit: S.SEARCH_COUNT_LIMIT, valueDependent: true })
      }
    }
  }
}
