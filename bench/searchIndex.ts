/**
 * Search-index benchmark (`npm run bench -- search-index`; an embedded PostgreSQL, stops by
 * itself): what GIN's pending list does to a trigram search while writes go on. A table with
 * Canopy's two trigram indexes (`(account_id, search_text)` and `search_text` alone; migrations 4
 * and 12) holds `SEARCH_ROWS` rows (default 200,000) over 20 accounts, vacuumed; then rows are
 * written one at a time, and after each batch a search for a term in 1% of an account's rows is
 * timed (200 searches). Printed for each setting of the indexes — GIN's default list (4 MB),
 * Canopy's (`gin_pending_list_limit = 64`, migration 19) and none (`fastupdate = off`): the
 * search's p50 and p99 against the same setting's right after the vacuum (the baseline), each
 * write's mean, p99 and longest time, and the WAL each write logs (a checkpoint before each batch,
 * so the pages' first images after it count, as in production).
 */
import pg from "pg"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"

const ROWS = Number(process.env.SEARCH_ROWS ?? 200_000)
const BATCHES = [2_000, 4_000, 8_000]
const SETTINGS = [
  ["GIN's default list (4 MB)", "fastupdate = on"],
  ["a 64 kB list (Canopy)", "fastupdate = on, gin_pending_list_limit = 64"],
  ["no list (fastupdate off)", "fastupdate = off"]
] as const

const words = ["stand", "north", "ridge", "valley", "creek", "oak", "pine", "block", "plot", "estate"]
/** A project's name as its search text: a few words, a number in 100 (the term searched), a serial. */
const text = (i: number) => `${words[i % 10]} ${words[(i * 7) % 10]} stand ${i % 100} number ${i}`

const quantile = (xs: Array<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!

export const run = async () => {
  const server = await startEmbeddedPostgres()
  const c = new pg.Client({ connectionString: server.url })
  await c.connect()
  try {
    await c.query("create extension if not exists pg_trgm; create extension if not exists btree_gin")
    console.log(`search-index: ${ROWS.toLocaleString("en")} rows over 20 accounts; writes one at a time; 200 searches after each batch`)
    const searches = async () => {
      const times: Array<number> = []
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now()
        await c.query("select id from t where account_id = $1 and search_text like $2 order by id limit 20", [`acc${i % 20}`, `%stand ${10 + (i % 90)} %`])
        times.push(performance.now() - t0)
      }
      return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) }
    }
    const writes = async (from: number, count: number) => {
      await c.query("checkpoint")
      const lsn = (await c.query("select pg_current_wal_lsn() as l")).rows[0].l as string
      const times: Array<number> = []
      for (let i = from; i < from + count; i++) {
        const t0 = performance.now()
        await c.query("insert into t (account_id, search_text) values ($1, $2)", [`acc${i % 20}`, text(i)])
        times.push(performance.now() - t0)
      }
      const wal = Number((await c.query("select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as d", [lsn])).rows[0].d)
      return { mean: times.reduce((a, b) => a + b, 0) / count, p99: quantile(times, 0.99), max: Math.max(...times), walKb: wal / count / 1024 }
    }
    for (const [label, options] of SETTINGS) {
      await c.query("drop table if exists t")
      await c.query("create table t (id bigserial primary key, account_id text not null, search_text text not null)")
      await c.query(`create index t_search on t using gin (account_id, search_text gin_trgm_ops) with (${options})`)
      await c.query(`create index t_search_text on t using gin (search_text gin_trgm_ops) with (${options})`)
      await c.query("alter table t set (autovacuum_enabled = false)") // the list empties only as the setting does it
      await c.query(`insert into t (account_id, search_text) select 'acc' || (g % 20), 'x' from generate_series(1, ${ROWS}) g`)
      await c.query(`update t set search_text = ${"'stand ' || (id % 100) || ' number ' || id"}`)
      await c.query("vacuum analyze t")
      const base = await searches()
      console.log(`  ${label}: after the vacuum, search p50/p99 ${base.p50.toFixed(2)}/${base.p99.toFixed(2)} ms (the baseline)`)
      let written = 0
      for (const count of BATCHES) {
        const w = await writes(ROWS + written, count)
        written += count
        const s = await searches()
        console.log(
          `    +${written.toLocaleString("en").padStart(6)} writes: search p50 ${(s.p50 / base.p50).toFixed(2)}×, p99 ${(s.p99 / base.p99).toFixed(2)}×;`
            + ` a write ${w.mean.toFixed(2)} ms (p99 ${w.p99.toFixed(2)}, longest ${w.max.toFixed(1)}), ${w.walKb.toFixed(1)} kB of WAL`
        )
      }
    }
  } finally {
    await c.end()
    await server.stop()
  }
}
