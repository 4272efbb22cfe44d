/**
 * Boundary storage benchmark (`npm run bench -- boundary-storage`, PostgreSQL): what an insert of a
 * 1,000-position boundary's text (~40 kB) costs in a column PostgreSQL compresses (its default,
 * pglz: the baseline) and in one stored out of line uncompressed (`storage external`, what
 * migration `21_boundaries_uncompressed` sets), on the same server in the same run, in turns; and
 * the size each stores. `BENCH_STORAGE_INSERTS` (default 300) inserts of each per round, 3 rounds.
 */
import pg from "pg"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"

const INSERTS = Number(process.env.BENCH_STORAGE_INSERTS ?? 300)
const ROUNDS = 3

/** A closed ring of `n` positions, as a boundary's GeoJSON text (~40 characters a position). */
const boundaryText = (n: number) => {
  const ring = Array.from({ length: n }, (_, i) => [-60 + 0.004 * Math.cos((2 * Math.PI * i) / n), -3 + 0.004 * Math.sin((2 * Math.PI * i) / n)])
  return JSON.stringify({ type: "Polygon", coordinates: [[...ring, ring[0]]] })
}

const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[xs.length >> 1]!

export const run = async () => {
  const server = await startEmbeddedPostgres()
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    const text = boundaryText(1_000)
    const tables = { compressed: "boundary_pglz", uncompressed: "boundary_external" } as const
    for (const table of Object.values(tables)) await client.query(`create table ${table} (id serial primary key, geometry text)`)
    await client.query(`alter table ${tables.uncompressed} alter column geometry set storage external`)
    const times: Record<keyof typeof tables, Array<number>> = { compressed: [], uncompressed: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, table] of Object.entries(tables) as Array<[keyof typeof tables, string]>) {
        for (let i = 0; i < INSERTS; i++) {
          const started = performance.now()
          await client.query(`insert into ${table} (geometry) values ($1)`, [text])
          if (i >= INSERTS / 10) times[kind].push(performance.now() - started) // the first tenth warms up
        }
      }
    }
    const stored = async (table: string) => (await client.query(`select pg_column_size(geometry) as n from ${table} limit 1`)).rows[0].n as number
    const [pglz, external] = [median(times.compressed), median(times.uncompressed)]
    console.log(
      `boundary storage: inserts of a 1,000-position boundary (${text.length.toLocaleString("en")} characters), p50 of ${times.compressed.length}, in turns`
    )
    console.log(
      `  compressed (pglz, PostgreSQL's default)   ${pglz.toFixed(2)} ms  stored ${(await stored(tables.compressed)).toLocaleString("en")} bytes  (baseline)`
    )
    console.log(
      `  uncompressed (storage external)          ${external.toFixed(2)} ms  stored ${(await stored(tables.uncompressed)).toLocaleString("en")} bytes  ${
        (external / pglz).toFixed(2)
      }×`
    )
  } finally {
    await client.end()
    await server.stop()
  }
}
