/**
 * The scale and map benchmarks' SQLite files: the base set seeded through the library into one
 * file, which then grows by SQL replicas to each size in turn, each size served from its own copy.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import Database from "better-sqlite3"
import { copyFileSync, existsSync, rmSync } from "node:fs"
import { join } from "node:path"
import { type Base, extendSqlite, seedBase } from "./seed.ts"

/** Copies a SQLite file with its write-ahead log (any stale log of the target removed first). */
export const copySqlite = (from: string, to: string) => {
  for (const suffix of ["-wal", "-shm"]) rmSync(`${to}${suffix}`, { force: true })
  copyFileSync(from, to)
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`)
}

/** Removes a SQLite file with its write-ahead log and shared-memory file. */
export const removeSqlite = (file: string) => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true })
}

/**
 * Seeds `count` base projects through the library into `file` (bench/scale/seed.ts), runs `then`
 * on it (e.g. more members through the library), then ANALYZE and a checkpoint that empties the log.
 */
export const seedSqlite = async (file: string, count: number, progress: (line: string) => void, then?: (base: Base) => Promise<void>): Promise<Base> => {
  const base = await seedBase(sqliteStorage({ filename: file }), count, progress)
  await then?.(base)
  const db = new Database(file)
  db.exec("analyze")
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
  return base
}

/**
 * Grows the seeded file to each of `sizes` (ascending; the first is the seeded count) by SQL
 * replicas, copying it to `<dir>/run-<size>.db` at each size; `grown` hears of each growth (the
 * sizes, its seconds and the columns copied from the base row). Removes the seeded file at the end
 * and answers the copies, one per size.
 */
export const growSqlite = (seedFile: string, base: Base, sizes: ReadonlyArray<number>, dir: string, progress: (line: string) => void,
  grown: (from: number, to: number, seconds: number, copied: ReadonlyArray<string>) => void): Array<string> => {
  let current = sizes[0]!
  const files: Array<string> = []
  for (const size of sizes) {
    if (size > current) {
      const t0 = performance.now()
      const { copied } = extendSqlite(seedFile, base, current, size, progress)
      grown(current, size, (performance.now() - t0) / 1000, copied)
      current = size
    }
    const file = join(dir, `run-${size}.db`)
    copySqlite(seedFile, file)
    files.push(file)
  }
  removeSqlite(seedFile)
  return files
}
