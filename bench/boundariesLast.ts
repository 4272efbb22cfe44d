/**
 * Boundaries-last benchmark (`npm run bench -- boundaries-last`, SQLite): what a read of a project
 * row without its boundary costs when the boundary is stored before the other columns (the schema
 * up to migration 19, the baseline) and after migration `20_boundaries_last` moved it last, on the
 * same file in the same run; and how long that migration takes over a grown database.
 *
 * - `projects.meeting` (an overlap candidate's read) over `BENCH_LAST_PROJECTS` (10) projects of
 *   `BENCH_LAST_POSITIONS` (99,000: 3.5 MB of text each) whose boxes all meet the query's;
 * - the migration over `BENCH_LAST_GROWN` (128,000) projects of 64 positions, copied by SQL.
 */
import { sqliteStorage, SqliteClient } from "@canopy/adapter-sqlite"
import { type Canopy, createCanopy, Storage } from "@canopy/core"
import * as Testing from "@canopy/core/testing"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const PROJECTS = Number(process.env.BENCH_LAST_PROJECTS ?? 10)
const POSITIONS = Number(process.env.BENCH_LAST_POSITIONS ?? 99_000)
const GROWN = Number(process.env.BENCH_LAST_GROWN ?? 128_000)
const ROUNDS = 25

/** A storage on a file migrated up to migration `last` only: the schema a database had then. */
const storageUpTo = (filename: string, last: number): Canopy.StorageProvider => ({
  layer: Testing.storageUpTo(last).pipe(Layer.provide(SqliteClient.layer({ filename })))
})

const circle = (cx: number, cy: number, r: number, n: number) => {
  const ring: Array<[number, number]> = []
  for (let i = 0; i < n; i++) {
    const a = (-2 * Math.PI * i) / n
    ring.push([cx + r * Math.cos(a), cy + r * Math.sin(a)])
  }
  ring.reverse()
  ring.push(ring[0]!)
  return { type: "Polygon", coordinates: [ring] }
}

const unlimited = { requestsPerMinute: 1e9, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }
const settings = { plans: { free: unlimited, pro: unlimited, enterprise: unlimited } } as never

type Opened = Awaited<ReturnType<typeof createCanopy>>

/** p50 of `projects.meeting` over every stored project, in ms. */
const meetingP50 = async (canopy: Opened, accountId: string) => {
  const times: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    const began = performance.now()
    const meeting = Effect.gen(function*() {
      return yield* (yield* Storage.Storage).projects.meeting(accountId, [-61, -4, -59, -2], { limit: 51 })
    })
    const rows = await canopy.run(meeting as Effect.Effect<Effect.Success<typeof meeting>, Effect.Error<typeof meeting>>)
    times.push(performance.now() - began)
    if (rows.length !== PROJECTS) throw new Error(`meeting answered ${rows.length} rows, not ${PROJECTS}`)
  }
  return times.sort((a, b) => a - b)[ROUNDS >> 1]!
}

const large = async (dir: string) => {
  const filename = join(dir, "large.db")
  const before = await createCanopy({ storage: storageUpTo(filename, 19), settings })
  const { account, api_key } = await before.bootstrap({ account_name: "Bench", email: "bench@example.com", plan: "enterprise" })
  const principal = await before.authenticate(api_key.token)
  for (let i = 0; i < PROJECTS; i++) await before.projects.create(principal, { name: `Large ${i}`, geometry: circle(-60 + 0.001 * i, -3, 0.05, POSITIONS) })
  const baseline = await meetingP50(before, account.id)
  await before.close()
  const after = await createCanopy({ storage: sqliteStorage({ filename }), settings })
  const moved = await meetingP50(after, account.id)
  await after.close()
  const mb = (POSITIONS * 36) / 1e6
  console.log(
    `  projects.meeting over ${PROJECTS} projects of ${POSITIONS.toLocaleString("en")} positions (~${mb.toFixed(1)} MB of text each), p50 of ${ROUNDS}:`
  )
  console.log(`    boundary 6th (migration 19, baseline)  ${baseline.toFixed(2)} ms`)
  console.log(`    boundary last (migration 20)           ${moved.toFixed(2)} ms  ${(moved / baseline).toFixed(2)}×`)
}

const grown = async (dir: string) => {
  const filename = join(dir, "grown.db")
  const seeding = await createCanopy({ storage: storageUpTo(filename, 19), settings })
  const { api_key } = await seeding.bootstrap({ account_name: "Grown", email: "grown@example.com", plan: "enterprise" })
  const principal = await seeding.authenticate(api_key.token)
  for (let i = 0; i < 1_000; i++) {
    await seeding.projects.create(principal, { name: `Stand ${i}`, geometry: circle(-60 + 0.01 * (i % 30), -3 + 0.01 * Math.floor(i / 30), 0.004, 64) })
  }
  await seeding.close()
  // copies of the thousand by SQL (the triggers keep the indexes), doubling up to GROWN
  const db = new Database(filename)
  const columns = (db.pragma("table_info(projects)") as Array<{ name: string }>).map((c) => c.name)
  const count = () => (db.prepare("select count(*) as n from projects").get() as { n: number }).n
  for (let copy = 1; count() < GROWN; copy++) {
    const values = columns.map((c) => (c === "id" ? `id || '-${copy}'` : c === "slug" ? `slug || '-${copy}'` : c)).join(", ")
    db.exec(`insert into projects (${columns.join(", ")}) select ${values} from projects order by rowid limit ${GROWN - count()}`)
  }
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
  const size = statSync(filename).size
  const began = performance.now()
  const migrated = await createCanopy({ storage: sqliteStorage({ filename }), settings })
  const seconds = (performance.now() - began) / 1_000
  const log = statSync(`${filename}-wal`).size
  await migrated.close()
  console.log(`  migration 20 (and opening) over ${GROWN.toLocaleString("en")} projects of 64 positions, a ${(size / 1e6).toFixed(0)} MB file:`)
  console.log(`    ${seconds.toFixed(1)} s; the log after it ${(log / 1e6).toFixed(0)} MB (its one transaction rewrites the table)`)
}

export const run = async () => {
  console.log("boundaries last (SQLite): reads of a row without its boundary, before and after migration 20")
  const dir = mkdtempSync(join(tmpdir(), "canopy-bench-last-"))
  try {
    await large(dir)
    await grown(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
