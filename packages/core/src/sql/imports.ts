/** Bulk imports and their per-feature results over SQL. */
import { Effect } from "effect"
import type * as S from "../Storage.ts"
import { toDb } from "./codec.ts"
import { type Context, orStorage } from "./common.ts"

/** Result rows written by one statement. */
const RESULTS_PER_STATEMENT = 200

export const imports = (c: Context): S.ImportsShape => {
  const { sql, one, all, count, insert, transaction } = c
  return {
    imports: {
      insert: (row) => orStorage(Effect.asVoid(insert("imports", row))),
      get: (accountId, id) => one("imports", sql`select * from imports where account_id = ${accountId} and id = ${id}`),
      record: (accountId, id, progress, results) =>
        transaction(Effect.gen(function*() {
          const row = yield* one<S.ImportRow>("imports",
            sql`update imports set ${sql.update(toDb("imports", progress))} where account_id = ${accountId} and id = ${id} returning *`)
          if (!row) return undefined
          for (let i = 0; i < results.length; i += RESULTS_PER_STATEMENT) {
            const [first, ...rest] = results.slice(i, i + RESULTS_PER_STATEMENT).map((r) =>
              toDb("import_results", { ...r, import_id: id, account_id: accountId })
            )
            yield* orStorage(sql`insert into import_results ${sql.insert([first!, ...rest])}`)
          }
          return row
        })),
      finish: (accountId, id, end) =>
        one("imports", sql`update imports set ${sql.update(toDb("imports", { ...end, updated_at: end.completed_at }))}
          where account_id = ${accountId} and id = ${id} and status = 'running' returning *`),
      results: (accountId, importId, after, limit) =>
        all("import_results", sql`select * from import_results where import_id = ${importId} and account_id = ${accountId}
          and position > ${after} order by position limit ${limit}`),
      running: (accountId, limit) =>
        count(sql`select count(*) as n from (select 1 from imports where account_id = ${accountId} and status = 'running' limit ${limit}) c`),
      expired: (now, limit) => all("imports", sql`select * from imports where status = 'running' and lease_until < ${now} order by lease_until limit ${limit}`)
    }
  }
}
