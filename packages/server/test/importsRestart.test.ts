/**
 * Bulk imports across a restart, on SQLite and on PostgreSQL: an import running when the server
 * stops is failed with the reason and its results kept; one whose runner vanished (a crash) is
 * failed at the next start.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { Storage } from "@canopy/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import { client } from "@canopy/server/testing"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { type RunningServer, serve } from "../src/index.ts"
import { allResults, post, sleep, standsZip } from "./importFixtures.ts"

/** Each store, opened again on the same database by a new server (a restart). */
const reopenable: ReadonlyArray<readonly [string, () => Promise<{ start: () => Promise<RunningServer>; drop: () => Promise<void> }>]> = [
  ["SQLite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-imports-"))
    const db = join(dir, "canopy.db")
    return { start: () => serve({ port: 0, host: "127.0.0.1", db, log: false, dispatcher: false }),
      drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }],
  ["PostgreSQL", async () => {
    const scope = await Effect.runPromise(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
    return {
      start: () => serve({ port: 0, host: "127.0.0.1", storage: postgresStorage({ url }), log: false, dispatcher: false }),
      drop: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }]
]

/** Reads or writes the store under a running server (what no API route does). */
const withStorage = <A>(server: RunningServer, f: (s: Storage.StorageShape) => Effect.Effect<A, unknown>) =>
  server.canopy.run(Effect.flatMap(Storage.Storage, f) as never) as Promise<A>

for (const [store, prepare] of reopenable) {
  describe(`bulk imports across a restart (${store})`, () => {
    it("an import running when the server stops is failed with the reason, its results kept; one whose runner vanished is failed at the next start", {
      timeout: 90_000
    }, async () => {
      const db = await prepare()
      try {
        const first = await db.start()
        const b = await first.canopy.bootstrap({ account_name: "Estate", email: "owner@estate.example", plan: "enterprise" })
        const token = b.api_key.token
        const started = await post(first.url, token, "/v1/imports", standsZip(1_500))
        assert.strictEqual(started.status, 202, started.text)
        const id = started.body.data.id
        for (let i = 0; i < 400; i++) {
          if ((await client(first.url, token).get(`/v1/imports/${id}?results_per_page=0`)).body.data.progress.done > 0) break
          await sleep(25)
        }
        // A runner that vanished without a word (a crash): its lease ran out a minute ago.
        const orphan = `imp_${"0".repeat(26)}`
        await withStorage(first, (s) =>
          s.imports.insert({
            id: orphan,
            account_id: b.account.id,
            created_by: null,
            status: "running",
            mode: "per_feature",
            dry_run: false,
            file_name: "lost.zip",
            format: "shapefile",
            source_crs: null,
            features: 10,
            done: 4,
            created: 4,
            refused: 0,
            hectares: 4,
            error: null,
            lease_until: Date.now() - 60_000,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
            completed_at: null
          }))
        await first.close()

        const second = await db.start()
        try {
          // Settled at start-up, before anyone reads it.
          const settled = await withStorage(second, (s) => s.imports.get(b.account.id, orphan))
          assert.strictEqual(settled?.status, "failed")
          assert.include(settled?.error, "the server stopped")

          const api = client(second.url, token)
          const stopped = (await api.get(`/v1/imports/${id}?results_per_page=1000`)).body.data
          assert.strictEqual(stopped.status, "failed", JSON.stringify(stopped.progress))
          assert.include(stopped.error, "the server stopped while the file was being imported")
          assert.isBelow(stopped.progress.done, 1_500)
          assert.strictEqual((await allResults(api, id)).length, stopped.progress.done, "every feature done is listed")
          assert.strictEqual((await api.get("/v1/projects")).body.meta.total, stopped.progress.created)
          const events = (await api.get("/v1/events?type=import.completed")).body.data.map((e: any) => e.data)
          assert.sameMembers(events.map((e: any) => `${e.id} ${e.status}`), [`${id} failed`, `${orphan} failed`])
          // The account may import again.
          assert.strictEqual((await post(second.url, token, "/v1/imports?dry_run=true", standsZip(2))).status, 202)
        } finally {
          await second.close()
        }
      } finally {
        await db.drop()
      }
    })
  })
}
