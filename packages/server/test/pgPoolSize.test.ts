/**
 * The PostgreSQL pool of a `canopy serve` process is sized by `--pg-pool-size` or
 * `CANOPY_PG_POOL_SIZE` (default 10): under a burst of concurrent requests the process never holds
 * more connections than that, as PostgreSQL itself counts them (`pg_stat_activity`). And
 * `init --help` / `migrate --help` name `--database-url`.
 */
import { afterAll, beforeAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { type ChildProcess, spawnSync } from "node:child_process"
import pg from "pg"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { canopyBin, startServeProcess } from "@canopy/server/testing"

const canopy = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const r = spawnSync(process.execPath, [canopyBin, ...args], { encoding: "utf8", env: { ...process.env, CANOPY_DB: "", ...env }, timeout: 60_000 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.exitCode !== null ? resolve() : child.on("exit", () => resolve()))

let scope: Scope.Closeable
let databaseUrl: string
let database: string
let token: string
let admin: pg.Client

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  databaseUrl = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
  database = new URL(databaseUrl).pathname.slice(1)
  const init = canopy(["init", "--database-url", databaseUrl, "--email", "pool@example.com", "--plan", "enterprise", "--json"])
  assert.strictEqual(init.code, 0, init.err)
  token = JSON.parse(init.out).api_key
  admin = new pg.Client({ connectionString: inject("postgresUrl") })
  await admin.connect()
})
afterAll(async () => {
  await admin?.end()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** The most connections the server held (as PostgreSQL counts them) during a burst of concurrent requests. */
const peakUnderBurst = async (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const s = await startServeProcess(["--database-url", databaseUrl, "--no-dispatcher", ...args], env)
  try {
    let peak = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const r = await admin.query("select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = 'canopy'", [database])
        peak = Math.max(peak, r.rows[0].n as number)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    })()
    try {
      // 3 × 40 requests a server, within the enterprise plan's 1,000 a minute
      for (let round = 0; round < 3; round++) {
        const replies = await Promise.all(
          Array.from({ length: 40 }, () => fetch(`${s.url}/v1/projects?per_page=100`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status))
        )
        assert.deepStrictEqual([...new Set(replies)], [200])
      }
    } finally {
      sampling = false
      await sampler
    }
    return peak
  } finally {
    s.child.kill("SIGTERM")
    await exited(s.child)
  }
}

describe("the PostgreSQL pool size", () => {
  it("--pg-pool-size and CANOPY_PG_POOL_SIZE bound the connections one process holds; the default opens more", async () => {
    const unbounded = await peakUnderBurst([])
    assert.isAbove(unbounded, 3, "the burst needs more than three connections at the default size (10)")
    assert.isAtMost(unbounded, 10)
    const flag = await peakUnderBurst(["--pg-pool-size", "2"])
    assert.isAtMost(flag, 2)
    assert.isAtLeast(flag, 1)
    // the flag wins over the variable
    assert.isAtMost(await peakUnderBurst(["--pg-pool-size", "2"], { CANOPY_PG_POOL_SIZE: "9" }), 2)
    const variable = await peakUnderBurst([], { CANOPY_PG_POOL_SIZE: "3" })
    assert.isAtMost(variable, 3)
  }, 120_000)

  it("a pool size that is not a positive integer is a usage error", () => {
    for (const bad of ["0", "-1", "ten", "2.5"]) {
      const r = canopy(["serve", "--database-url", databaseUrl, `--pg-pool-size=${bad}`])
      assert.strictEqual(r.code, 2, `${bad}: ${r.err}`)
      assert.include(r.err, "--pg-pool-size must be a positive integer")
    }
  }, 90_000)

  it("serve, worker, init and migrate --help name what they take", () => {
    assert.include(canopy(["serve", "--help"]).out, "--pg-pool-size")
    assert.include(canopy(["serve", "--help"]).out, "CANOPY_PG_POOL_SIZE")
    assert.include(canopy(["worker", "--help"]).out, "--pg-pool-size")
    assert.include(canopy(["init", "--help"]).out, "--database-url")
    assert.include(canopy(["migrate", "--help"]).out, "--database-url")
  }, 90_000)
})
