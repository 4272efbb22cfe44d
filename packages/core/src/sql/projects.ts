/** Projects and assets over SQL, with search on a trigram index. */
import { Effect } from "effect"
import * as S from "../Storage.ts"
import { fromDb } from "./codec.ts"
import { type Context, type Fragment, onUnique, orStorage } from "./common.ts"

/** A term as an FTS5 phrase: with the trigram tokenizer, a case-insensitive substring match. */
const ftsPhrase = (term: string) => `"${term.replace(/"/g, '""')}"`

/** Rows a searched project list walks in sort order before asking the trigram index. */
const SEARCH_WALK = 5_000

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const projects = (c: Context): S.ProjectsShape => {
  const { sql, dialect, one, all, count, affected, insert, patchRow, orderBy, keyset, page, totals } = c

  /** A case-insensitive substring match on `search_text` through the table's trigram index. */
  const searchClause = (table: "projects" | "assets", term: string) =>
    dialect === "sqlite"
      ? sql`rowid in (select rowid from ${sql(`${table}_fts`)} where ${sql(`${table}_fts`)} match ${ftsPhrase(term)})`
      : sql`search_text like ${likeContains(term)} escape '\\'`

  /**
   * A searched project list. The page: first by walking the sort index (at most `SEARCH_WALK`
   * rows, testing each row's text), which fills the page for any term in more than about one row
   * in 250; otherwise from the trigram index, sorting the matches' keys — cheap exactly when
   * matches are few. The total counts matches up to `SEARCH_COUNT_LIMIT`.
   */
  const searchProjects = (accountId: string, clauses: Array<Fragment>, column: string, desc: boolean, term: string, q: S.Window) =>
    Effect.gen(function*() {
      const order = orderBy(column, desc)
      const skip = q.after === undefined ? q.offset : 0
      const want = skip + q.limit + 1
      const after = [...clauses, ...keyset(column, desc, q.after)]
      const from = sql.and(after)
      const contains = dialect === "pg" ? sql`strpos(search_text, ${term}) > 0` : sql`instr(search_text, ${term}) > 0`
      let rows = yield* all<S.ProjectRow>("projects", sql`select * from projects where id in (
          select id from (select id, ${sql(column)}, search_text from projects where ${from} order by ${order} limit ${SEARCH_WALK}) w
          where ${contains} order by ${order} limit ${want}) order by ${order}`)
      if (rows.length < want) {
        const walked = yield* count(sql`select count(*) as n from (select 1 from projects where ${from} limit ${SEARCH_WALK}) c`)
        if (walked >= SEARCH_WALK) {
          rows = yield* all<S.ProjectRow>("projects", sql`select * from projects where id in (
              select id from projects where ${sql.and([...after, searchClause("projects", term)])}
              order by ${order} limit ${want}) order by ${order}`)
        }
      }
      const n = yield* searchCount(accountId, clauses.length > 1, term)
      return {
        rows: rows.slice(skip, skip + q.limit), hasMore: rows.length > skip + q.limit,
        total: Math.min(n, S.SEARCH_COUNT_LIMIT), totalExact: n <= S.SEARCH_COUNT_LIMIT
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
      return yield* count(sql`select count(*) as n from (select 1 from projects where ${sql.and(clauses)} limit ${cap}) c`)
    })

  return {
    projects: {
      insert: (row) => onUnique("project", "slug")(Effect.asVoid(insert("projects", row))),
      get: (accountId, id) => one("projects", sql`select * from projects where account_id = ${accountId} and id = ${id}`),
      update: (accountId, id, patch) =>
        onUnique("project", "slug")(Effect.map(patchRow("projects", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`])),
          (r) => fromDb<S.ProjectRow>("projects", r[0]))),
      delete: (accountId, id) =>
        orStorage(Effect.gen(function*() {
          yield* sql`delete from assets where account_id = ${accountId} and project_id = ${id}`
          return (yield* sql`delete from projects where account_id = ${accountId} and id = ${id} returning id`).length > 0
        })),
      list: (accountId, q) => {
        const clauses = [sql`account_id = ${accountId}`]
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        const column = q.sort === "name" ? "sort_name" : q.sort
        const desc = q.order === "desc"
        if (q.search === undefined) {
          const exact = Effect.map(totals(accountId), (t) => (q.status === undefined ? t.active + t.archived + t.draft : t[q.status]))
          return page<S.ProjectRow>("projects", clauses, column, desc, q, exact)
        }
        return searchProjects(accountId, clauses, column, desc, q.search, q)
      },
      stats: (accountId) =>
        Effect.map(totals(accountId), (t) => ({
          active: t.active, archived: t.archived, draft: t.draft, hectares: (t.areaActive + t.areaDraft) / 10_000
        }))
    },

    assets: {
      insert: (row) => orStorage(Effect.asVoid(insert("assets", row))),
      get: (accountId, projectId, id) =>
        one("assets", sql`select * from assets where account_id = ${accountId} and project_id = ${projectId} and id = ${id}`),
      update: (accountId, projectId, id, patch) =>
        one("assets", patchRow("assets", patch, sql.and([sql`account_id = ${accountId}`, sql`project_id = ${projectId}`, sql`id = ${id}`]))),
      delete: (accountId, projectId, id) =>
        affected(sql`delete from assets where account_id = ${accountId} and project_id = ${projectId} and id = ${id} returning id`),
      list: (accountId, projectId, q) => {
        const clauses = [sql`account_id = ${accountId}`, sql`project_id = ${projectId}`]
        if (q.type !== undefined) clauses.push(sql`type = ${q.type}`)
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        if (q.search !== undefined) clauses.push(searchClause("assets", q.search))
        return page<S.AssetRow>("assets", clauses, "created_at", true, q, undefined, q.search === undefined ? S.COUNT_LIMIT : S.SEARCH_COUNT_LIMIT)
      }
    }
  }
}
