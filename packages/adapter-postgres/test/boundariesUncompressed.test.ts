/**
 * PostgreSQL stores a boundary's text uncompressed out of line (migration
 * `21_boundaries_uncompressed`): by default it compresses every value past 2 kB with pglz, 2.7 ms
 * of the server's CPU for a 1,000-position boundary, paid by each write that stores one (the
 * project, its event, a replayed response) under the account's lock. Checked on a real
 * PostgreSQL: a database migrated up to 20 compresses; after 21 the columns are `external`, what
 * is written from then on is stored whole, and what was stored before still reads back.
 */
import { createCanopy, SqlMigrations } from "@canopy/core"
import { storageUpTo } from "@canopy/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { inject } from "vitest"
import { clientLayer, postgresStorage } from "../src/index.ts"
import { freshDatabase, withConnection } from "./database.ts"

/** A closed ring of `n` positions around (cx, cy), counter-clockwise: ~40 characters a position. */
const circle = (cx: number, cy: number, n: number) => {
  const ring: Array<[number, number]> = []
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n
    ring.push([cx + 0.004 * Math.cos(a), cy + 0.004 * Math.sin(a)])
  }
  ring.push(ring[0]!)
  return { type: "Polygon" as const, coordinates: [ring] }
}

/** How PostgreSQL stored each value: its compression method (null when whole) and its stored size against its length. */
const storedAs = (url: string, table: string, column: string, where: string, value: string) =>
  withConnection(url, async (c) =>
    (await c.query(`select pg_column_compression(${column}) as method, pg_column_size(${column}) as size, length(${column}) as length
      from ${table} where ${where} = $1`, [value])).rows as Array<{ method: string | null; size: number; length: number }>)

const settings = { plans: { enterprise: { requestsPerMinute: 1e6, requestsPerDay: null, hectares: 1e9, members: 100, apiRequestsPerPeriod: 1e9 } } }

describe("postgresql: boundaries stored uncompressed (migration 21_boundaries_uncompressed)", () => {
  it.effect("compressed up to migration 20; after 21 every boundary column is external, new writes are whole, old rows still read",
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabase(inject("postgresUrl"))
        yield* Effect.promise(() => writtenAndRead(url))
      }).pipe(Effect.scoped), { timeout: 120_000 })
})

/** Writes up to migration 20, migrates, writes again; asserts how each was stored, and that both read back. */
const writtenAndRead = async (url: string) => {
  const before = await createCanopy({ storage: { layer: storageUpTo(20).pipe(Layer.provide(clientLayer({ url }))) }, settings: settings as never })
  const { api_key } = await before.bootstrap({ account_name: "Estate", email: "owner@example.com", plan: "enterprise" })
  const principal = await before.authenticate(api_key.token)
  const old = await before.projects.create(principal, { name: "Old stand", geometry: circle(-60, -3, 1_000) })
  await before.close()
  const [compressed] = await storedAs(url, "projects", "geometry", "id", old.id)
  assert.strictEqual(compressed!.method, "pglz", "PostgreSQL's default: a 40 kB boundary compressed")

  const after = await createCanopy({ storage: postgresStorage({ url }), settings: settings as never })
  try {
    const storage = await withConnection(url, async (c) =>
      (await c.query(`select c.relname as table, a.attname as column, a.attstorage as storage from pg_attribute a
            join pg_class c on c.oid = a.attrelid where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped
            and (c.relname, a.attname) in (${
        SqlMigrations.UNCOMPRESSED_COLUMNS.map(([t, col]) => `('${t}', '${col}')`).join(", ")
      })`)).rows)
    assert.lengthOf(storage, SqlMigrations.UNCOMPRESSED_COLUMNS.length)
    for (const column of storage) assert.strictEqual(column.storage, "e", `${column.table}.${column.column}`)

    const p = await after.authenticate(api_key.token)
    const created = await after.projects.create(p, { name: "New stand", geometry: circle(-59.9, -3, 1_000) })
    // a replacement copies the boundary it replaces into the history
    await after.projects.update(p, created.id, { geometry: circle(-59.9, -3, 1_001) })
    const stored = {
      project: await storedAs(url, "projects", "geometry", "id", created.id),
      replaced: await storedAs(url, "boundary_versions", "geometry", "project_id", created.id),
      events: await storedAs(url, "events", "payload", "payload::json->'data'->>'id'", created.id)
    }
    for (const [what, rows] of Object.entries(stored)) {
      const boundaries = rows.filter((r) => r.length > 30_000)
      assert.isNotEmpty(boundaries, `${what}: a boundary's text`)
      for (const r of boundaries) {
        assert.isNull(r.method, `${what} stored whole`)
        assert.isAtLeast(r.size, r.length)
      }
    }
    // the boundary written compressed reads back as it was sent
    assert.deepStrictEqual((await after.projects.get(p, old.id)).geometry, circle(-60, -3, 1_000))
    assert.deepStrictEqual((await after.projects.get(p, created.id)).geometry, circle(-59.9, -3, 1_001))
  } finally {
    await after.close()
  }
}
