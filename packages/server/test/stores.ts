/**
 * A `canopy` server on each store, for tests that must hold on SQLite and on the real PostgreSQL:
 * `for (const [store, open] of serverOnEachStore) suite(store, open)`. Each `open` starts a server
 * on a fresh database (a temporary SQLite file, or a fresh PostgreSQL database of the test run's
 * embedded server) with the dispatcher off, and `close` stops it and drops what it made.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { type RunningServer, serve, type ServeOptions } from "../src/index.ts"

/** A server on a fresh store, and how to stop it and drop the store. */
export interface StoreServer {
  readonly running: RunningServer
  readonly close: () => Promise<void>
}

/** What a test may choose of the server it opens (the rest as above). */
export interface StoreServerOptions {
  readonly settings?: NonNullable<ServeOptions["settings"]>
}

/** The stores, each with how to open a server on a fresh database of it. */
export const serverOnEachStore: ReadonlyArray<readonly [store: string, open: (options?: StoreServerOptions) => Promise<StoreServer>]> = [
  ["SQLite", async (options = {}) => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-store-"))
    const running = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "canopy.db"), log: false, dispatcher: false, ...options })
    return { running, close: async () => {
      await running.close()
      rmSync(dir, { recursive: true, force: true })
    } }
  }],
  ["PostgreSQL", async (options = {}) => {
    const scope = await Effect.runPromise(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
    const running = await serve({ port: 0, host: "127.0.0.1", storage: postgresStorage({ url }), log: false, dispatcher: false, ...options })
    return { running, close: async () => {
      await running.close()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    } }
  }]
]
