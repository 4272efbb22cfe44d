/**
 * The write-ahead log's bound. A thread of its own copies the log into the database (so no commit
 * pays for a checkpoint in the common case), and the log is kept short under any write pattern:
 *
 * - every 200 ms the thread runs a PASSIVE checkpoint (never waits for readers or writers);
 * - a writer that never pauses starves a PASSIVE checkpoint: the log only starts over when a write
 *   begins with every frame already copied, which never happens while commits follow each other.
 *   So once the log holds `RESTART_BYTES`, the thread asks for a RESTART right after its passive
 *   pass: it takes the write lock (waiting at most 100 ms for a commit in progress), copies the
 *   few frames written since, and the next write starts the log over. While the log is longer
 *   than a quarter of that (and not just restarted), the thread checks every 25 ms;
 * - if the thread cannot keep up (a starved CPU), the writer bounds the log itself: a commit that
 *   leaves the `-wal` file beyond `HARD_BYTES` is followed by a PASSIVE checkpoint on the
 *   committing call (it copies what the thread has not, never waiting for a lock), so its next
 *   write starts the log over — the rare case that holds the loop. With the thread running, the
 *   writer looks at the file's size at most every `WRITER_LOOK_MS` (a `stat` costs 25 µs on a
 *   server under load, where its caches are cold: measured, every request commits), so the file
 *   may pass `HARD_BYTES` by what that many milliseconds of commits write; alone, after every commit;
 * - `journal_size_limit` cuts the file back to `HARD_BYTES` whenever the log starts over.
 */
import type Database from "better-sqlite3"
import { statSync } from "node:fs"
import { createRequire } from "node:module"
import { resolve } from "node:path"
import { Worker } from "node:worker_threads"

const MIB = 1024 * 1024
/** The log's length past which the checkpointer thread restarts it. */
export const RESTART_BYTES = 8 * MIB
/** The `-wal` file's size past which the writer checkpoints itself after a commit. */
export const HARD_BYTES = 32 * MIB
/** How often the thread checkpoints while the log is short. */
const INTERVAL_MS = 200
/** With the thread running, the least time between two looks of the writer at the log's size. */
export const WRITER_LOOK_MS = 10

/** The checkpointer thread (see the module's comment). CommonJS, run with `eval`. */
const THREAD = `
const { workerData, parentPort } = require("node:worker_threads")
const Database = require(workerData.driver)
const db = new Database(workerData.filename, { fileMustExist: true })
db.pragma("busy_timeout = 0")
const restartFrames = Math.ceil(workerData.restartBytes / db.pragma("page_size", { simple: true }))
let restartedAt = -1
let timer
const tick = () => {
  let next = workerData.intervalMs
  try {
    const { log } = db.pragma("wal_checkpoint(PASSIVE)")[0]
    if (log >= restartFrames && log !== restartedAt) {
      db.pragma("busy_timeout = 100")
      try {
        const done = db.pragma("wal_checkpoint(RESTART)")[0]
        if (done.busy === 0) restartedAt = done.log
      } finally {
        db.pragma("busy_timeout = 0")
      }
    }
    if (log >= restartFrames / 4 && log !== restartedAt) next = workerData.intervalMs / 8
  } catch {}
  timer = setTimeout(tick, next)
}
tick()
parentPort.on("message", () => { clearTimeout(timer); db.close(); parentPort.close() })
`

/** A running checkpointer: `stop` ends the thread; `afterCommit` applies the writer's bound. */
export interface Checkpointer {
  readonly stop: () => Promise<void>
  readonly afterCommit: () => void
}

/**
 * The writer's bound: after a commit, a PASSIVE checkpoint when the `-wal` file has grown past
 * `HARD_BYTES` (otherwise a `stat`). With `everyMs`, the file is looked at only when that long has
 * passed since the last look.
 */
export const writerBound = (db: Database.Database, filename: string, everyMs = 0): () => void => {
  const wal = `${resolve(filename)}-wal`
  let lookedAt = -Infinity
  return () => {
    if (everyMs > 0) {
      const now = performance.now()
      if (now - lookedAt < everyMs) return
      lookedAt = now
    }
    try {
      if ((statSync(wal, { throwIfNoEntry: false })?.size ?? 0) > HARD_BYTES && db.open && !db.inTransaction) {
        db.pragma("wal_checkpoint(PASSIVE)")
      }
    } catch {
      // The commit stands; a checkpoint that could not run is tried again after the next one
      // (one already running on the thread answers busy at once, and finishes soon).
    }
  }
}

/**
 * Starts the checkpointer thread for an open WAL database and turns the connection's own
 * automatic checkpoint off; if the thread fails, the automatic checkpoint comes back.
 */
export const start = (db: Database.Database, filename: string): Checkpointer => {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve("better-sqlite3"),
      filename: resolve(filename),
      intervalMs: INTERVAL_MS,
      restartBytes: RESTART_BYTES
    },
    execArgv: [],
    stdout: true,
    stderr: true
  })
  worker.unref()
  let running = true
  const fallBack = () => {
    if (running && db.open) db.pragma("wal_autocheckpoint = 1000")
    running = false
  }
  worker.on("error", fallBack)
  worker.on("exit", fallBack)
  db.pragma("wal_autocheckpoint = 0")
  const stop = () => {
    if (!running) return Promise.resolve()
    running = false
    return new Promise<void>((done) => {
      const timer = setTimeout(() => void worker.terminate().then(() => done()), 2_000)
      worker.once("exit", () => {
        clearTimeout(timer)
        done()
      })
      worker.postMessage("close")
    })
  }
  return { stop, afterCommit: writerBound(db, filename, WRITER_LOOK_MS) }
}
