/**
 * A SQLite file grown to a given number of projects as the scale benchmark grows its own
 * (bench/scale.ts's header): the first 1,000 through the library (`seedBase`), the rest SQL
 * replicas of those (`extendSqlite`), which stack on the 1,000 base positions in six forest
 * regions; then ANALYZE and a checkpoint. And the count of stored boxes a new box meets.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import Database from "better-sqlite3"
import { type Base, extendSqlite, seedBase } from "../scale/seed.ts"

const BASE_SIZE = 1_000

/** "1k", "100k", "1m", "250000" → a number of projects; "" → 0. */
export const parseSize = (text: string): number => {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim())
  if (!m) throw new Error(`BENCH_WRITES_START: "${text}" is not a size (e.g. 1k, 100k, 1m)`)
  return Math.round(Number(m[1]) * ({ "": 1, k: 1_000, m: 1_000_000 } as Record<string, number>)[m[2]!.toLowerCase()]!)
}

/** Grows `file` (new) to `size` projects; answers the base set (its admin key) and how long each part took. */
export const grow = async (file: string, size: number, progress: (line: string) => void) => {
  const t0 = performance.now()
  const base: Base = await seedBase(sqliteStorage({ filename: file }), Math.min(size, BASE_SIZE), progress)
  const seededS = (performance.now() - t0) / 1_000
  const t1 = performance.now()
  if (size > BASE_SIZE) extendSqlite(file, base, BASE_SIZE, size, progress)
  else {
    const db = new Database(file)
    db.exec("analyze")
    db.pragma("wal_checkpoint(TRUNCATE)")
    db.close()
  }
  return { base, seededS, replicatedS: (performance.now() - t1) / 1_000 }
}

type Box = readonly [number, number, number, number]

/** How many stored projects' boxes meet `box` (through the R*Tree, as a write's overlap candidates are found), itself excluded. */
export const boxesMeeting = (file: string, box: Box, self = 1): number => {
  const db = new Database(file, { readonly: true })
  try {
    const { n } = db.prepare("select count(*) as n from projects_rtree where west <= ? and east >= ? and south <= ? and north >= ?")
      .get(box[2], box[0], box[3], box[1]) as { n: number }
    return n - self
  } finally {
    db.close()
  }
}
