/** Bulk imports and their per-feature results in memory. */
import type * as S from "../Storage.ts"
import { clone, type Ctx, owned } from "./common.ts"

/** A result's key: its import and position. */
const resultKey = (importId: string, position: number) => `${importId}|${position}`

export const imports = (db: Ctx): S.ImportsShape => ({
  imports: {
    insert: (row) => db.locked(() => void db.t.imports.set(row.id, clone(row))),
    get: (accountId, id) => db.locked(() => clone(owned(db.t.imports.get(id), accountId))),
    record: (accountId, id, progress, results) =>
      db.locked(() => {
        const row = owned(db.t.imports.get(id), accountId)
        if (!row) return undefined
        for (const r of results) db.t.importResults.set(resultKey(id, r.position), clone({ ...r, import_id: id, account_id: accountId }))
        return db.update(db.t.imports, row, progress)
      }),
    finish: (accountId, id, end) =>
      db.locked(() => {
        const row = owned(db.t.imports.get(id), accountId)
        return row && row.status === "running" ? db.update(db.t.imports, row, { ...end, updated_at: end.completed_at }) : undefined
      }),
    results: (accountId, importId, after, limit) =>
      db.locked(() =>
        [...db.t.importResults.values()]
          .filter((r) => r.import_id === importId && r.account_id === accountId && r.position > after)
          .sort((a, b) => a.position - b.position)
          .slice(0, limit)
          .map(clone)
      ),
    running: (accountId, limit) =>
      db.locked(() => Math.min(limit, [...db.t.imports.values()].filter((r) => r.account_id === accountId && r.status === "running").length)),
    expired: (now, limit) => db.locked(() => [...db.t.imports.values()].filter((r) => r.status === "running" && r.lease_until < now).slice(0, limit).map(clone))
  }
})
