/** Projects and assets in memory. */
import { Effect } from "effect"
import * as S from "../Storage.ts"
import * as Lifecycle from "../Lifecycle.ts"
import { boundaryKey, boxesMeet } from "../Overlap.ts"
import { cellOf, FINEST } from "../TileGrid.ts"
import { clone, type Ctx, owned, page } from "./common.ts"

export const projects = (db: Ctx): S.ProjectsShape => ({
  projects: {
    insert: (row) =>
      db.locked(() => {
        for (const p of db.t.projects.values()) {
          if (p.account_id === row.account_id && p.slug === row.slug) return Effect.fail(new S.Duplicate({ entity: "project", field: "slug" }))
        }
        db.t.projects.set(row.id, clone(row))
        return Effect.void
      }),
    get: (accountId, id) => db.locked(() => clone(owned(db.t.projects.get(id), accountId))),
    update: (accountId, id, patch) =>
      db.locked(() => {
        const row = owned(db.t.projects.get(id), accountId)
        if (row && patch.slug !== undefined && patch.slug !== row.slug) {
          for (const p of db.t.projects.values()) {
            if (p.account_id === accountId && p.slug === patch.slug) return Effect.fail(new S.Duplicate({ entity: "project", field: "slug" }))
          }
        }
        return Effect.succeed(db.update(db.t.projects, row, patch))
      }),
    delete: (accountId, id) =>
      db.locked(() => {
        if (!owned(db.t.projects.get(id), accountId)) return false
        for (const [aid, a] of db.t.assets) if (a.project_id === id) db.t.assets.delete(aid)
        return db.t.projects.delete(id)
      }),
    list: (accountId, q) =>
      db.locked(() => {
        const rows = [...db.t.projects.values()].filter((p) =>
          p.account_id === accountId &&
          (q.status === undefined || p.status === q.status) &&
          (q.search === undefined || p.search_text.includes(q.search)) &&
          (q.bbox === undefined || (p.bbox !== null && boxesMeet(p.bbox, q.bbox)))
        )
        const filtered = q.search !== undefined || q.bbox !== undefined
        const key = q.sort === "name" ? (p: S.ProjectRow) => p.sort_name
          : q.sort === "area_hectares" ? (p: S.ProjectRow) => p.area_hectares : (p: S.ProjectRow) => p.created_at
        const p = page(rows, key, q.order === "desc", q, !filtered, filtered ? S.SEARCH_COUNT_LIMIT : S.COUNT_LIMIT)
        return q.omitGeometry ? { ...p, rows: p.rows.map((r) => ({ ...r, geometry: null })) } : p
      }),
    meeting: (accountId, b, options) =>
      db.locked(() => {
        const found: Array<S.BoxNeighbour> = []
        for (const p of db.t.projects.values()) {
          if (found.length >= options.limit) break
          if (p.account_id !== accountId || !Lifecycle.counts(p.status) || p.id === options.excludeId) continue
          if (p.bbox !== null && boxesMeet(p.bbox, b)) {
            found.push({
              id: p.id,
              name: p.name,
              updated_at: p.updated_at,
              area_hectares: p.area_hectares,
              same_boundary: options.sameBoundary !== undefined && p.geometry?.text === options.sameBoundary,
              boundary_key: p.geometry ? boundaryKey(p.geometry.text) : ""
            })
          }
        }
        return found
      }),
    cells: (accountId, level, lo, hi, limit) =>
      db.locked(() => {
        // Counted on each read: the memory store serves tests and small accounts.
        const shift = 4 ** (FINEST - level)
        const found = new Map<number, { projects: number; units: number }>()
        for (const p of db.t.projects.values()) {
          if (p.account_id !== accountId || p.bbox === null) continue
          const cell = Math.floor(cellOf(p.bbox) / shift)
          if (cell < lo || cell > hi) continue
          const c = found.get(cell) ?? { projects: 0, units: 0 }
          found.set(cell, { projects: c.projects + 1, units: c.units + Math.round(p.area_hectares * 10_000) })
        }
        return [...found].sort(([a], [b]) => a - b).slice(0, limit).map(([cell, c]) => ({ cell, projects: c.projects, hectares: c.units / 10_000 }))
      }),
    stats: (accountId) =>
      db.locked(() => {
        const s = { active: 0, archived: 0, draft: 0 }
        let units = 0 // 1/10,000 ha, summed exactly as the SQL stores' running totals do
        for (const p of db.t.projects.values()) {
          if (p.account_id !== accountId) continue
          s[p.status]++
          if (Lifecycle.counts(p.status)) units += Math.round(p.area_hectares * 10_000)
        }
        return { ...s, hectares: units / 10_000 }
      })
  },

  assets: {
    insert: (row) => db.locked(() => void db.t.assets.set(row.id, clone(row))),
    get: (accountId, projectId, id) =>
      db.locked(() => {
        const a = owned(db.t.assets.get(id), accountId)
        return clone(a && a.project_id === projectId ? a : undefined)
      }),
    update: (accountId, projectId, id, patch) =>
      db.locked(() => {
        const a = owned(db.t.assets.get(id), accountId)
        return db.update(db.t.assets, a && a.project_id === projectId ? a : undefined, patch)
      }),
    delete: (accountId, projectId, id) =>
      db.locked(() => {
        const a = owned(db.t.assets.get(id), accountId)
        return !!a && a.project_id === projectId && db.t.assets.delete(id)
      }),
    list: (accountId, projectId, q) =>
      db.locked(() => {
        const rows = [...db.t.assets.values()].filter((a) =>
          a.account_id === accountId && a.project_id === projectId &&
          (q.type === undefined || a.type === q.type) &&
          (q.status === undefined || a.status === q.status) &&
          (q.search === undefined || a.search_text.includes(q.search))
        )
        return page(rows, (a) => a.created_at, true, q, false, q.search === undefined ? S.COUNT_LIMIT : S.SEARCH_COUNT_LIMIT)
      })
  }
})
