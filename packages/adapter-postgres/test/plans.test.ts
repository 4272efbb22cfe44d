/**
 * Statements whose best plan depends on their values (a search pattern, a box) are planned for
 * those values every time. A named prepared statement run more than five times may be switched by
 * PostgreSQL to a generic plan, and a generic `search_text like $1` is a sequential scan: at
 * 100,000 projects a search then took 209 ms instead of 12 ms. The store runs those statements
 * unnamed; every other statement stays prepared. Checked on one connection, whose
 * `pg_prepared_statements` lists what it prepared.
 */
import { Fixtures } from "@canopy/core/testing"
import { SqlMigrations, SqlStorage, Storage } from "@canopy/core"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { clientLayer } from "../src/index.ts"
import { freshDatabase } from "./database.ts"

/** The store and its SQL client on a single connection of a fresh database. */
const oneConnection = Layer.unwrap(
  Effect.map(freshDatabase(inject("postgresUrl")), (url) =>
    Layer.effect(Storage.Storage, Effect.andThen(SqlMigrations.run, SqlStorage.make))
      .pipe(Layer.provideMerge(clientLayer({ url, maxConnections: 1 }))))
)

layer(oneConnection, { timeout: 60_000 })("PostgreSQL plans", (it) => {
  it.effect("searches, boxes and overlap candidates are never run from a cached (generic) plan; other statements are prepared", () =>
    Effect.gen(function*() {
      const s = yield* Storage.Storage
      const sql = yield* SqlClient.SqlClient
      const account = Fixtures.accountRow()
      yield* s.accounts.insert(account)
      yield* s.transaction(Effect.forEach(Array.from({ length: 300 }, (_, i) =>
        Fixtures.projectRow(account.id, {
          name: i % 10 === 0 ? `Quillwort ${i}` : `Spruce ${i}`,
          bbox: [i / 10, 1, i / 10 + 0.05, 1.05]
        })), (r) => s.projects.insert(r), { discard: true }))
      const q = { sort: "created_at" as const, order: "desc" as const, limit: 5, offset: 0 }
      // More runs than PostgreSQL's five before it weighs a generic plan.
      for (let i = 0; i < 8; i++) {
        const found = yield* s.projects.list(account.id, { ...q, search: "quillwort" })
        assert.strictEqual(found.total, 30)
        const boxed = yield* s.projects.list(account.id, { ...q, bbox: [0, 0, 1, 2] })
        assert.strictEqual(boxed.total, 11)
        assert.strictEqual((yield* s.projects.meeting(account.id, [0, 0, 1, 2], { limit: 51 })).length, 11)
        assert.strictEqual((yield* s.projects.list(account.id, q)).total, 300)
      }
      const prepared = (yield* sql<{ statement: string; generic_plans: number }>`
        select statement, generic_plans from pg_prepared_statements`).map((r) => r.statement)
        .filter((t) => /^\s*(select|with)\b/i.test(t)) // queries (the migrations' DDL was prepared too)
      const valueDependent = prepared.filter((t) => /search_text like|strpos\(|projects_box\(/.test(t))
      assert.deepStrictEqual(valueDependent, [], "no statement testing a pattern or a box is prepared")
      assert.isTrue(prepared.some((t) => /from "?projects"? where/.test(t) && !/search_text|bbox/.test(t)),
        `the plain list's statement is prepared: ${prepared.join(" | ")}`)
    }))
})
