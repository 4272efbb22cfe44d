import { createCanopy } from "@canopy/core"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { make, Migrations, migrate, SqliteClient, sqliteStorage } from "../src/index.ts"

const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-sqlite-"))
  return { filename: join(dir, "canopy.db"), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

const nodeArgs = ["--conditions=source", "--disable-warning=ExperimentalWarning"]

describe("SQLite adapter", () => {
  it("opens with WAL and foreign keys; its own busy timeout is 0 (locks are waited for off the loop)", async () => {
    const { cleanup, filename } = tempDb()
    const canopy = await createCanopy({ storage: sqliteStorage({ filename }) })
    await canopy.close()
    const db = new Database(filename)
    assert.strictEqual(db.pragma("journal_mode", { simple: true }), "wal")
    db.close()
    // foreign keys and busy_timeout are per connection: check the driver's own connection
    const out = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const fk = yield* sql`pragma foreign_keys`
      const busy = yield* sql`pragma busy_timeout`
      return [fk[0], busy[0]]
    }).pipe(Effect.provide(SqliteClient.layer({ filename }))))
    assert.deepStrictEqual(out, [{ foreign_keys: 1 }, { timeout: 0 }])
    cleanup()
  })

  it("migrates with temporary files on disk, then serves with them in memory", async () => {
    const { cleanup, filename } = tempDb()
    const tempStore = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return (yield* sql<{ temp_store: number }>`pragma temp_store`)[0]!.temp_store
    })
    const [whileMigrating, serving] = await Effect.runPromise(Effect.gen(function*() {
      yield* Migrations.run
      const whileMigrating = yield* tempStore
      yield* make
      return [whileMigrating, yield* tempStore]
    }).pipe(Effect.provide(SqliteClient.layer({ filename }))))
    assert.deepStrictEqual([whileMigrating, serving], [0, 2]) // the default (a file), then MEMORY
    cleanup()
  })

  it("a lock held elsewhere is waited for off the event loop, up to busyTimeoutMs; past it the write fails and changes nothing", async () => {
    const { cleanup, filename } = tempDb()
    const other = new Database(filename)
    other.pragma("journal_mode = WAL")
    other.exec("create table t (x integer)")
    // The longest gap between ticks of a 5 ms timer while `p` runs: a wait held on the loop shows
    // (SQLite's own busy wait held it for the whole 400 ms, and the lock's release could not run).
    const longestGap = async <A>(p: () => Promise<A>) => {
      let last = performance.now()
      let longest = 0
      const timer = setInterval(() => {
        const now = performance.now()
        longest = Math.max(longest, now - last)
        last = now
      }, 5)
      try {
        return { value: await p(), longest }
      } finally {
        clearInterval(timer)
      }
    }
    const insertTimed = (transaction: boolean) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const started = performance.now()
        const insert = sql`insert into t (x) values (1)`
        const exit = yield* Effect.exit(transaction ? sql.withTransaction(insert) : insert)
        return { exit, ms: performance.now() - started }
      }).pipe(Effect.provide(SqliteClient.layer({ filename, busyTimeoutMs: 400 })))
    try {
      for (const transaction of [false, true]) {
        // Released after 150 ms: the write waits for it, then succeeds.
        other.exec("begin immediate")
        setTimeout(() => other.exec("commit"), 150)
        const waited = await longestGap(() => Effect.runPromise(insertTimed(transaction)))
        assert.strictEqual(waited.value.exit._tag, "Success")
        assert.isAbove(waited.value.ms, 140)
        assert.isBelow(waited.longest, 300, `the loop was held ${Math.round(waited.longest)} ms`)

        // Held for a second: the write gives up after 400 ms (SQLite's busy error), writing nothing.
        const before = other.prepare("select count(*) from t").pluck().get()
        other.exec("begin immediate")
        setTimeout(() => other.exec("commit"), 1_000)
        const refused = await longestGap(() => Effect.runPromise(insertTimed(transaction)))
        assert.strictEqual(refused.value.exit._tag, "Failure")
        assert.match(String(refused.value.exit), /SQLITE_BUSY|locked/i)
        assert.isAbove(refused.value.ms, 390)
        assert.isBelow(refused.value.ms, 900)
        assert.isBelow(refused.longest, 300, `the loop was held ${Math.round(refused.longest)} ms`)
        await new Promise((r) => setTimeout(r, 700))
        assert.strictEqual(other.prepare("select count(*) from t").pluck().get(), before)
      }
    } finally {
      other.close()
      cleanup()
    }
  })

  it("migrations are versioned and applied once: a reopen runs none", async () => {
    const { cleanup, filename } = tempDb()
    const first = await Effect.runPromise(migrate({ filename }))
    assert.deepStrictEqual(first.map(([id, name]) => `${id}_${name}`), Object.keys(Migrations.migrations))
    const second = await Effect.runPromise(migrate({ filename }))
    assert.deepStrictEqual(second, [])
    const db = new Database(filename)
    const recorded = db.prepare("select migration_id from effect_sql_migrations").all()
    assert.strictEqual(recorded.length, Object.keys(Migrations.migrations).length)
    db.close()
    cleanup()
  })

  it("two processes opening a new file at once: the schema is created once and both succeed", async () => {
    const { cleanup, filename } = tempDb()
    const script = `import { migrate } from "${join(import.meta.dirname, "../src/index.ts")}"
import { Effect } from "effect"
const ran = await Effect.runPromise(migrate({ filename: ${JSON.stringify(filename)} }))
console.log(JSON.stringify(ran.length))`
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [...nodeArgs, "--input-type=module", "-e", script], { cwd: import.meta.dirname })
        let out = ""
        let err = ""
        child.stdout.on("data", (d) => (out += d))
        child.stderr.on("data", (d) => (err += d))
        child.on("close", (code) => resolve({ code, out, err }))
      })
    const results = await Promise.all([run(), run(), run()])
    for (const r of results) assert.strictEqual(r.code, 0, r.err)
    const applied = results.map((r) => Number(r.out.trim()))
    assert.strictEqual(applied.filter((n) => n > 0).length, 1, `applied counts: ${applied}`)
    const db = new Database(filename)
    assert.strictEqual((db.prepare("select count(*) as n from effect_sql_migrations").get() as { n: number }).n, Object.keys(Migrations.migrations).length)
    db.close()
    cleanup()
  })

  it("a process killed after writing a project and its event, before commit, leaves neither", async () => {
    const { cleanup, filename } = tempDb()
    const canopy = await createCanopy({ storage: sqliteStorage({ filename }) })
    const { api_key } = await canopy.bootstrap({ account_name: "Crash Co", email: "c@example.com" })
    await canopy.close()
    const child = spawn(process.execPath, [...nodeArgs, join(import.meta.dirname, "fixtures/killedMidTransaction.ts"), filename, api_key.token], {
      cwd: import.meta.dirname
    })
    let err = ""
    child.stderr.on("data", (d) => (err += d))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("written")) resolve()
      })
      child.on("close", (code) => reject(new Error(`child exited ${code} before writing: ${err}`)))
    })
    // The rows are written inside the open transaction: the child's own connection would see them.
    child.kill("SIGKILL")
    await new Promise((r) => child.on("close", r))
    const db = new Database(filename)
    assert.strictEqual((db.prepare("select count(*) as n from projects").get() as { n: number }).n, 0)
    assert.strictEqual((db.prepare("select count(*) as n from events").get() as { n: number }).n, 0)
    db.close()
    // and the file is healthy: the next open works and sees the account
    const again = await createCanopy({ storage: sqliteStorage({ filename }) })
    const principal = await again.authenticate(api_key.token)
    assert.strictEqual((await again.projects.list(principal)).meta.total, 0)
    await again.close()
    cleanup()
  })

  it("fails clearly when the file cannot be opened", async () => {
    const err = await createCanopy({ storage: sqliteStorage({ filename: "/nonexistent-dir/x/canopy.db" }) }).catch((e: unknown) => e)
    assert.instanceOf(err, Error)
    assert.strictEqual((err as { code?: string }).code, "INTERNAL_ERROR")
    assert.match((err as Error).message, /storage could not be opened/)
  })

  it("keeps data across reopen", async () => {
    const { cleanup, filename } = tempDb()
    const c1 = await createCanopy({ storage: sqliteStorage({ filename }) })
    const { api_key } = await c1.bootstrap({ account_name: "Durable", email: "d@example.com" })
    const p = await c1.projects.create(await c1.authenticate(api_key.token), { name: "Persisted" })
    await c1.close()
    const c2 = await createCanopy({ storage: sqliteStorage({ filename }) })
    const got = await c2.projects.get(await c2.authenticate(api_key.token), p.id)
    assert.strictEqual(got.name, "Persisted")
    await c2.close()
    cleanup()
  })
})
