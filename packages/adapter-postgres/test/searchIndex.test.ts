/**
 * The trigram indexes keep a short pending list (migration `19_search_short_pending_list`): GIN's
 * default let each write append its entries to a list of up to 4 MB that every search read
 * through until an autovacuum emptied it, so a search cost more the more had been written since.
 * Measured with `pgstattuple`'s `pgstatginindex` (the list's pages) on a real PostgreSQL.
 */
import { Assets, Canopy, Projects, SqlMigrations } from "@canopy/core"
import { Fixtures } from "@canopy/core/testing"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type pg from "pg"
import { inject } from "vitest"
import { layer as postgresLayer, migrate } from "../src/index.ts"
import { freshDatabase, withConnection } from "./database.ts"

/** Runs `f` with a plain connection to `database`. */
const withClient = <A>(database: string, f: (c: pg.Client) => Promise<A>) => Effect.promise(() => withConnection(database, f))

/** The pages of each trigram index's pending list. */
const pendingPages = async (c: pg.Client) => {
  const pages: Array<number> = []
  for (const index of SqlMigrations.SEARCH_INDEXES) {
    pages.push(Number((await c.query(`select pending_pages from pgstatginindex($1::regclass)`, [index])).rows[0].pending_pages))
  }
  return pages
}

/** The most pages a list of `SEARCH_PENDING_LIST_KB` holds (8 kB pages). */
const MAX_PAGES = SqlMigrations.SEARCH_PENDING_LIST_KB / 8

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
  "postgresql: trigram indexes with a short pending list",
  (it) => {
    it.effect("every GIN index keeps a 64 kB list; writes never fill more; the migration moves a longer list into the index", () =>
      Effect.gen(function*() {
        const { database } = yield* Database
        const { admin } = yield* Fixtures.newAccount("enterprise")
        const projects = yield* Projects
        const assets = yield* Assets
        const write = (from: number, count: number) =>
          Effect.forEach(Array.from({ length: count }, (_, i) => from + i), (i) =>
            Effect.flatMap(
              projects.create(admin, { name: `Stand ${i} of the north ridge, compartment ${i * 7}`, geometry: Fixtures.squareHa(1, 10 + i * 0.01) }),
              (p) => assets.create(admin, p.id, { name: `Sensor ${i} by the creek, plot ${i * 3}`, type: "monitoring_station" })
            ), { discard: true })
        const atMost = (pages: ReadonlyArray<number>) => pages.forEach((n, k) => assert.isAtMost(n, MAX_PAGES, SqlMigrations.SEARCH_INDEXES[k]))

        yield* withClient(database, async (c) => {
          await c.query("create extension if not exists pgstattuple")
          const indexes = await ginIndexes(c)
          assert.sameMembers(indexes.map((i) => i.name), [...SqlMigrations.SEARCH_INDEXES])
          for (const i of indexes) assert.include(i.options, `gin_pending_list_limit=${SqlMigrations.SEARCH_PENDING_LIST_KB}`, i.name)
          // The lists are measured as the writes leave them: an autovacuum (or auto-analyze) that
          // came in between would empty them and hide the longer list the old setting allowed.
          for (const index of SqlMigrations.SEARCH_INDEXES) {
            const table = (await c.query(`select indrelid::regclass::text as t from pg_index where indexrelid = $1::regclass`, [index])).rows[0].t
            await c.query(`alter table ${table} set (autovacuum_enabled = off)`)
          }
        })
        yield* write(0, 250)
        atMost(yield* withClient(database, pendingPages))

        // A database as it was before the migration: the same writes leave a longer list (what the probe sees)…
        yield* withClient(database, async (c) => {
          for (const index of SqlMigrations.SEARCH_INDEXES) await c.query(`alter index ${index} reset (gin_pending_list_limit)`)
          await c.query(`delete from effect_sql_migrations where name in ('search_short_pending_list', 'boundaries_last', 'boundaries_uncompressed')`)
        })
        yield* write(250, 250)
        const before = yield* withClient(database, pendingPages)
        before.forEach((n, k) => assert.isAbove(n, MAX_PAGES, SqlMigrations.SEARCH_INDEXES[k]))
        // …and the migration moves it into the index and shortens the list.
        const ran = yield* migrate({ url: database })
        assert.deepStrictEqual(ran.map(([, name]) => name), ["search_short_pending_list", "boundaries_last", "boundaries_uncompressed"])
        assert.deepStrictEqual(yield* withClient(database, pendingPages), [0, 0, 0, 0])
        yield* write(500, 250)
        atMost(yield* withClient(database, pendingPages))
        // and a search finds what was written before and after
        const found = yield* projects.list(admin, { search: "north ridge", per_page: "100" })
        assert.strictEqual(found.meta.total, 750)
      }))
  }
)
