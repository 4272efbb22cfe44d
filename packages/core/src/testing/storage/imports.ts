/** The storage contract's cases for bulk imports: rows, results in file order, ends, leases, tenancy, atomicity. */
import { assert, type Vitest } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Ids from "../../Ids.ts"
import { type ImportResultRow, type ImportRow, Storage } from "../../Storage.ts"
import { iso, newAccountRow } from "./helpers.ts"

const importRow = (accountId: string, over: Partial<ImportRow> = {}): ImportRow => ({
  id: `imp_${Ids.randomBase32(26)}`,
  account_id: accountId,
  created_by: Ids.make("user"),
  status: "running",
  mode: "per_feature",
  dry_run: false,
  file_name: "stands.zip",
  format: "shapefile",
  source_crs: "EPSG:25832",
  features: 3,
  done: 0,
  created: 0,
  refused: 0,
  hectares: 0,
  error: null,
  lease_until: Date.UTC(2026, 0, 1, 0, 5),
  created_at: iso(1),
  updated_at: iso(1),
  completed_at: null,
  ...over
})

const resultRow = (row: ImportRow, position: number, over: Partial<ImportResultRow> = {}): ImportResultRow => ({
  import_id: row.id,
  account_id: row.account_id,
  position,
  label: `feature ${position + 1} "Stand ${position + 1}"`,
  outcome: "created",
  name: `Stand ${position + 1}`,
  project_id: Ids.make("project"),
  area_hectares: 12.3456,
  problems: [],
  ...over
})

const progress = (done: number, created: number, refused: number) => ({ done, created, refused, hectares: created * 12.3456,
  lease_until: Date.UTC(2026, 0, 1, 0, 10), updated_at: iso(2) })

export const importsCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("imports: rows out equal rows in; results come back in file order, a page at a time", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const row = importRow(a.id, { dry_run: true, source_crs: null })
      yield* s.imports.insert(row)
      assert.deepStrictEqual(yield* s.imports.get(a.id, row.id), row)
      const refused = resultRow(row, 1, {
        outcome: "refused",
        project_id: null,
        area_hectares: null,
        problems: [{ field: "geometry.coordinates[0]", message: "must be closed (feature 2 \"Ünïcode\")" }]
      })
      // Written out of order, in two records: read back by position.
      const after = yield* s.imports.record(a.id, row.id, progress(2, 1, 1), [resultRow(row, 2), refused])
      assert.strictEqual(after?.done, 2)
      assert.strictEqual(after?.refused, 1)
      assert.strictEqual(after?.lease_until, Date.UTC(2026, 0, 1, 0, 10))
      yield* s.imports.record(a.id, row.id, progress(3, 2, 1), [resultRow(row, 0)])
      const all = yield* s.imports.results(a.id, row.id, -1, 10)
      assert.deepStrictEqual(all.map((r) => r.position), [0, 1, 2])
      assert.deepStrictEqual(all[1], refused)
      assert.deepStrictEqual((yield* s.imports.results(a.id, row.id, 0, 1)).map((r) => r.position), [1])
      assert.deepStrictEqual(yield* s.imports.results(a.id, row.id, 2, 10), [])
    }))

  it.effect("imports: only a running import ends, once; results recorded after its end are kept", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const row = importRow(a.id)
      yield* s.imports.insert(row)
      const cancelled = yield* s.imports.finish(a.id, row.id, { status: "cancelled", error: null, completed_at: iso(3) })
      assert.strictEqual(cancelled?.status, "cancelled")
      assert.strictEqual(cancelled?.completed_at, iso(3))
      assert.isUndefined(yield* s.imports.finish(a.id, row.id, { status: "completed", error: null, completed_at: iso(4) }))
      // The runner's last batch, recorded after the cancel: counted and listed, the status kept.
      const recorded = yield* s.imports.record(a.id, row.id, progress(1, 1, 0), [resultRow(row, 0)])
      assert.strictEqual(recorded?.status, "cancelled")
      assert.strictEqual(recorded?.created, 1)
      assert.lengthOf(yield* s.imports.results(a.id, row.id, -1, 10), 1)
    }))

  it.effect("imports: running ones counted per account up to a limit; expired leases found across accounts", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      const past = Date.now() - 60_000
      const stale = importRow(b.id, { lease_until: past })
      const live = importRow(a.id, { lease_until: Date.now() + 60_000 })
      const ended = importRow(a.id, { status: "completed", lease_until: past })
      for (const r of [stale, live, ended, importRow(a.id)]) yield* s.imports.insert(r)
      assert.strictEqual(yield* s.imports.running(a.id, 10), 2)
      assert.strictEqual(yield* s.imports.running(a.id, 1), 1)
      assert.strictEqual(yield* s.imports.running(Ids.make("account"), 10), 0)
      const expired = (yield* s.imports.expired(Date.now(), 1_000)).map((r) => r.id)
      assert.include(expired, stale.id)
      assert.notInclude(expired, live.id)
      assert.notInclude(expired, ended.id)
      assert.lengthOf(yield* s.imports.expired(Date.now(), 1), 1)
    }))

  it.effect("imports: another account's import reads as absent and cannot be changed", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      const row = importRow(a.id)
      yield* s.imports.insert(row)
      yield* s.imports.record(a.id, row.id, progress(1, 1, 0), [resultRow(row, 0)])
      assert.isUndefined(yield* s.imports.get(b.id, row.id))
      assert.isUndefined(yield* s.imports.record(b.id, row.id, progress(3, 3, 0), [resultRow(row, 1)]))
      assert.isUndefined(yield* s.imports.finish(b.id, row.id, { status: "failed", error: "x", completed_at: iso(5) }))
      assert.deepStrictEqual(yield* s.imports.results(b.id, row.id, -1, 10), [])
      const mine = yield* s.imports.get(a.id, row.id)
      assert.strictEqual(mine?.status, "running")
      assert.strictEqual(mine?.done, 1)
      assert.deepStrictEqual((yield* s.imports.results(a.id, row.id, -1, 10)).map((r) => r.position), [0])
    }))

  it.effect("imports: a failed transaction leaves no import, no result and no progress", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const kept = importRow(a.id)
      yield* s.imports.insert(kept)
      const lost = importRow(a.id)
      const exit = yield* Effect.exit(s.transaction(Effect.gen(function*() {
        yield* s.imports.insert(lost)
        yield* s.imports.record(a.id, kept.id, progress(2, 2, 0), [resultRow(kept, 0), resultRow(kept, 1)])
        return yield* Effect.fail("boom")
      })))
      assert.isTrue(Exit.isFailure(exit))
      assert.isUndefined(yield* s.imports.get(a.id, lost.id))
      assert.strictEqual((yield* s.imports.get(a.id, kept.id))?.done, 0)
      assert.deepStrictEqual(yield* s.imports.results(a.id, kept.id, -1, 10), [])
    }))
}
