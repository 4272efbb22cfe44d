import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { HARD_BYTES, WRITER_LOOK_MS, writerBound } from "../src/Checkpointer.ts"
import { SqliteClient } from "../src/index.ts"

const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-checkpoint-"))
  return { filename: join(dir, "canopy.db"), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

const FOUR_MB = "x".repeat(4 * 1024 * 1024)
const ONE_MB = "y".repeat(1024 * 1024)

describe("SQLite write-ahead log checkpoints", () => {
  it("run on a thread of their own: the connection's automatic checkpoint is off, and the log still reaches the file", async () => {
    const { cleanup, filename } = tempDb()
    try {
      const out = await Effect.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const auto = yield* sql`pragma wal_autocheckpoint`
        yield* sql`create table big (id integer primary key, body text)`
        for (let i = 0; i < 3; i++) yield* sql`insert into big (body) values (${FOUR_MB})`
        // Nothing on this connection checkpoints (its automatic checkpoint is off, and no statement
        // asks for one): the 12 MiB reach the database file only through the checkpointer thread.
        const deadline = Date.now() + 5_000
        while (statSync(filename).size < 12 * 1024 * 1024 && Date.now() < deadline) yield* Effect.sleep("50 millis")
        const rows = yield* sql`select count(*) as n from big`
        return { auto: auto[0], size: statSync(filename).size, rows: rows[0] }
      }).pipe(Effect.provide(SqliteClient.layer({ filename }))))
      assert.deepStrictEqual(out.auto, { wal_autocheckpoint: 0 })
      assert.isAtLeast(out.size, 12 * 1024 * 1024)
      assert.deepStrictEqual(out.rows, { n: 3 })
    } finally {
      cleanup()
    }
  })

  it("are the writer's own once the log passes its hard bound: the -wal file never grows past it by more than a commit", async () => {
    const { cleanup, filename } = tempDb()
    try {
      const largest = await Effect.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // No automatic checkpoint and no thread: only the writer's bound checkpoints this log.
        yield* sql`pragma wal_autocheckpoint = 0`
        yield* sql`create table big (id integer primary key, body text)`
        let largest = 0
        for (let i = 0; i < 60; i++) {
          yield* sql.withTransaction(sql`insert into big (body) values (${ONE_MB})`)
          largest = Math.max(largest, statSync(`${filename}-wal`).size)
        }
        return largest
      }).pipe(Effect.provide(SqliteClient.layer({ filename, checkpointOffThread: false }))))
      assert.isBelow(largest, HARD_BYTES + 2 * 1024 * 1024)
    } finally {
      cleanup()
    }
  })

  it("beside the thread, the writer looks at the log's size at most every WRITER_LOOK_MS; alone, after every commit", async () => {
    const { cleanup, filename } = tempDb()
    try {
      // a -wal file past the hard bound, and a connection that counts the checkpoints asked of it
      writeFileSync(`${filename}-wal`, "")
      truncateSync(`${filename}-wal`, HARD_BYTES + 1)
      let checkpoints = 0
      const db = { open: true, inTransaction: false, pragma: () => void checkpoints++ } as never
      const besideThread = writerBound(db, filename, WRITER_LOOK_MS)
      besideThread()
      besideThread()
      besideThread()
      assert.strictEqual(checkpoints, 1)
      await new Promise((resolve) => setTimeout(resolve, WRITER_LOOK_MS + 5))
      besideThread()
      assert.strictEqual(checkpoints, 2)
      const alone = writerBound(db, filename)
      alone()
      alone()
      assert.strictEqual(checkpoints, 4)
      truncateSync(`${filename}-wal`, HARD_BYTES)
      alone()
      assert.strictEqual(checkpoints, 4) // not past the bound: no checkpoint
    } finally {
      cleanup()
    }
  })

  it("stay on the committing call when asked (checkpointOffThread: false)", async () => {
    const { cleanup, filename } = tempDb()
    try {
      const auto = await Effect.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return (yield* sql`pragma wal_autocheckpoint`)[0]
      }).pipe(Effect.provide(SqliteClient.layer({ filename, checkpointOffThread: false }))))
      assert.deepStrictEqual(auto, { wal_autocheckpoint: 1000 })
    } finally {
      cleanup()
    }
  })
})
