/** Helpers the storage contract's cases share. */
import { Effect, Exit } from "effect"
import { RawJson } from "../../RawJson.ts"
import type { BoundaryVersionRow, StorageShape } from "../../Storage.ts"
import { accountRow, webhookRow } from "../fixtures.ts"

export const newAccountRow = (s: StorageShape) =>
  Effect.gen(function*() {
    const a = accountRow()
    yield* s.accounts.insert(a)
    return a
  })

export const accountWithTwoWebhooks = (s: StorageShape) =>
  Effect.gen(function*() {
    const a = yield* newAccountRow(s)
    const w1 = webhookRow(a.id)
    const w2 = webhookRow(a.id)
    yield* s.webhooks.insert(w1)
    yield* s.webhooks.insert(w2)
    return { a, w1, w2 }
  })

export const failureTag = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? (exit.cause.reasons[0].error as { _tag?: string })._tag : undefined

/** Project counts and hectares recounted by walking every page of the account's projects. */
export const recountProjects = (s: StorageShape, accountId: string) =>
  Effect.gen(function*() {
    const counts = { active: 0, archived: 0, draft: 0 }
    let units = 0
    let after: { value: string; id: string } | undefined
    for (;;) {
      const p = yield* s.projects.list(accountId, { sort: "created_at", order: "asc", limit: 100, offset: 0, after })
      for (const r of p.rows) {
        counts[r.status]++
        if (r.status !== "archived") units += Math.round(r.area_hectares * 10_000)
      }
      const last = p.rows[p.rows.length - 1]
      if (!p.hasMore || !last) break
      after = { value: last.created_at, id: last.id }
    }
    return { ...counts, hectares: units / 10_000 }
  })

/** A delivery by id, among its event's (what the services read). */
export const deliveryOf = (s: StorageShape, accountId: string, eventId: string, id: string) =>
  Effect.map(s.outbox.listDeliveries(accountId, eventId), (rows) => rows.find((d) => d.id === id))

/** A metering decision that counts every request (and keeps no rate-limit state of note). */
export const countEvery = () => ({ result: undefined, state: { units: 0, refilledAt: 0, day: 0, dayCount: 0 }, count: true })

/** 2026-01-01 at `minute` past midnight, UTC, as ISO text. */
export const iso = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString()

/** Version `version` of a project's boundary history (a triangle `version` wide), written at minute `version`. */
export const versionRow = (accountId: string, projectId: string, version: number, over: Partial<BoundaryVersionRow> = {}): BoundaryVersionRow => ({
  account_id: accountId,
  project_id: projectId,
  version,
  geometry: RawJson.of({ type: "Polygon", coordinates: [[[0, 0], [version, 0], [version, 1], [0, 0]]] }),
  bbox: [0, 0, version, 1],
  area_hectares_before: version - 1 + 0.25,
  area_hectares_after: version + 0.25,
  via: "update",
  file_format: null,
  restored_from: null,
  actor_kind: "api_key",
  user_id: "user_1",
  credential_id: "key_1",
  created_at: iso(version),
  ...over
})
