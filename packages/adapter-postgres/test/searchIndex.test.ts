/**
 * The trigram indexes keep no pending list (migration `19_search_without_pending_list`): with GIN's
 * `fastupdate` on, each write appended its entries to a list that every search read through until
 * an autovacuum emptied it, so a search cost more the more had been written since. Measured with
 * `pgstattuple`'s `pgstatginindex` (entries waiting in the list) on a real PostgreSQL.
 */
import { Assets, Canopy, Projects, SqlMigrations } from "@canopy/core"
import { Fixtures } from "@canopy/core/testing"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { layer as postgresLayer, migrate } from "../src/index.ts"
import { freshDatabase } from "./database.ts"

/** Runs `f` with a plain connection to `database`. */
const withClient = <A>(database: string, f: (c: pg.Client) => Promise<A>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: database })
    await client.connect()
    try {
      return await f(client)
    } finally {
      await client.end()
    }
  })

/** Entries waiting in each trigram index's pending list. */
const pending = async (c: pg.Client) => {
  const counts: Array<number> = []
  for (const index of SqlMigrations.SEARCH_INDEXES) {
    counts.push(Number((await c.query(`select pending_tuples from pgstatginindex($1::regclass)`, [index])).rows[0].pending_tuples))
  }
  return counts
}

/** Every GIN index of the database, with its storage options. */
const ginIndexes = async (c: pg.Client) =>
  (await c.query(`select c.relname as name, coalesce(c.reloptions, '{}') as options from pg_class c join pg_am am on am.oid = c.relam
    where am.amname = 'gin' and c.relnamespace = 'public'::regnamespace order by 1`)).rows as Array<{ name: string; options: Array<string> }>

/** The test's own database on the test server (dropped afterwards). */
class Database extends Context.Service<Database, { readonly database: string }>()("test/Database") {
  static readonly layer = Layer.effect(Database, Effect.map(freshDatabase(inject("postgresUrl")), (database) => ({ database })))
}

const storage = Layer.unwrap(Effect.gen(function*() {
  return postgresLayer({ url: (yield* Database).database })
}))

layer(Canopy.layer.pipe(Layer.provideMerge(storage), Layer.provideMerge(Database.layer)), { timeout: "120 seconds", excludeTestServices: true })(
  "postgresql: trigram indexes without a pending list",
  (it) => {
    it.effect("every GIN index has fastupdate off; writes leave nothing pending; the migration empties a list left by earlier writes", () =>
      Effect.gen(function*() {
        const { database } = yield* Database
        const { admin } = yield* Fixtures.newAccount("enterprise")
        const projects = yield* Projects
        const assets = yield* Assets
        const write = (from: number, count: number) =>
          Effect.forEach(Array.from({ length: count }, (_, i) => from + i), (i) =>
            Effect.flatMap(projects.create(admin, { name: `Stand ${i} of the north ridge`, geometry: Fixtures.squareHa(1, 10 + i * 0.01) }), (p) =>
              assets.create(admin, p.id, { name: `Sensor ${i}`, type: "monitoring_station" })), { discard: true })

        yield* withClient(database, async (c) => {
          await c.query("create extension if not exists pgstattuple")
          const indexes = await ginIndexes(c)
          assert.sameMembers(indexes.map((i) => i.name), [...SqlMigrations.SEARCH_INDEXES])
          for (const i of indexes) assert.include(i.options, "fastupdate=off", i.name)
        })
        yield* write(0, 60)
        assert.deepStrictEqual(yield* withClient(database, pending), [0, 0, 0, 0])

        // A database as it was before the migration: its writes wait in the lists (what the probe sees)…
        yield* withClient(database, async (c) => {
          for (const index of SqlMigrations.SEARCH_INDEXES) await c.query(`alter index ${index} reset (fastupdate)`)
          await c.query(`delete from effect_sql_migrations where name = 'search_without_pending_list'`)
        })
        yield* write(60, 60)
        const before = yield* withClient(database, pending)
        for (const [k, n] of before.entries()) assert.isAbove(n, 0, SqlMigrations.SEARCH_INDEXES[k])
        // …and the migration puts them in the indexes and turns the lists off.
        const ran = yield* migrate({ url: database })
        assert.deepStrictEqual(ran.map(([, name]) => name), ["search_without_pending_list"])
        assert.deepStrictEqual(yield* withClient(database, pending), [0, 0, 0, 0])
        yield* write(120, 30)
        assert.deepStrictEqual(yield* withClient(database, pending), [0, 0, 0, 0])
        // and a search finds what was written before and after
        const found = yield* projects.list(admin, { search: "north ridge", per_page: "100" })
        assert.strictEqual(found.meta.total, 150)
      }))
  }
)
