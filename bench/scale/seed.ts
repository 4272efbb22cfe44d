/**
 * Seeding for the scale benchmark (method in bench/scale.ts's header): a base set through the
 * library, then SQL replication — plain INSERT statements on the real `projects` table, in
 * transactions of BATCH rows, so whatever triggers the schema has (running totals, full-text
 * indexes) keep themselves right. Nothing else is written directly.
 */
import { createCanopy, Ids, Slug, type StorageProvider } from "@canopy/core"
import Database from "better-sqlite3"
import pg from "pg"
import { projectDescription, projectGeometry, projectName, projectStatus } from "./data.ts"

/** Limits so high that no plan limit (hectares, requests) ever refuses the benchmark. */
export const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }

/** What the base seeding leaves: the admin key, the account, and base project `n`'s id at `ids[n]`. */
export interface Base {
  readonly token: string
  readonly accountId: string
  readonly ids: ReadonlyArray<string>
  /** Epoch ms of the oldest base project; replicas are older, one a minute. */
  readonly oldest: number
}

const BATCH = 50_000

/** Account (enterprise plan) + owner + admin key, then `count` projects through `canopy.projects.create`. */
export const seedBase = async (storage: StorageProvider, count: number, progress: (line: string) => void): Promise<Base> => {
  const canopy = await createCanopy({ storage, settings: { plans: { free: big, pro: big, enterprise: big } } })
  try {
    const { account, api_key } = await canopy.bootstrap({ account_name: "Scale Forestry", email: "scale@example.com", plan: "enterprise" })
    const principal = await canopy.authenticate(api_key.token)
    const ids: Array<string> = []
    let oldest = Infinity
    for (let n = 0; n < count; n++) {
      const status = projectStatus(n)
      const description = projectDescription(n)
      const p = await canopy.projects.create(principal, {
        name: projectName(n),
        geometry: projectGeometry(n),
        ...(description ? { description } : {}),
        ...(status === "draft" ? { status: "draft" } : {})
      })
      if (status === "archived") await canopy.projects.archive(principal, p.id)
      ids.push(p.id)
      oldest = Math.min(oldest, Date.parse(p.created_at))
      if ((n + 1) % 250 === 0) progress(`${n + 1} projects through the library`)
    }
    return { token: api_key.token, accountId: account.id, ids, oldest }
  } finally {
    await canopy.close()
  }
}

/** The columns a replica replaces; every other column of `projects` is copied from its base row. */
const REPLACED = ["id", "name", "slug", "description", "status", "sort_name", "search_text", "created_at", "updated_at"] as const
type Replaced = (typeof REPLACED)[number]

/** Replica `n` (n ≥ base size) of base row `n % base size`: a new id, slug, name, description, status and time. */
const replica = (base: Base, n: number): Record<Replaced | "base_id", string | null> => {
  const name = projectName(n)
  const description = projectDescription(n)
  const at = new Date(base.oldest - (n - base.ids.length + 1) * 60_000).toISOString()
  return {
    base_id: base.ids[n % base.ids.length]!,
    id: Ids.make("project"),
    name,
    slug: Slug.fromName(name),
    description,
    status: projectStatus(n),
    sort_name: name.toLowerCase(),
    search_text: `${name}\n${description ?? ""}`.toLowerCase(),
    created_at: at,
    updated_at: at
  }
}

const quote = (c: string) => `"${c.replaceAll("\"", "\"\"")}"`

/** Splits the table's columns into replaced and copied; says which are copied as they are. */
const plan = (columns: ReadonlyArray<string>) => {
  const replaced = columns.filter((c): c is Replaced => (REPLACED as ReadonlyArray<string>).includes(c))
  const copied = columns.filter((c) => !(REPLACED as ReadonlyArray<string>).includes(c))
  if (!replaced.includes("id")) throw new Error("projects has no id column")
  return { replaced, copied }
}

const rate = (rows: number, ms: number) => `${Math.round(rows / (ms / 1000)).toLocaleString("en-US")} rows/s`

/**
 * Grows a SQLite file from `from` to `to` projects (better-sqlite3), then ANALYZE. Each replica is
 * one prepared `INSERT INTO projects (…) VALUES (…)` binding the replaced columns and, for every
 * other column, the base row's own value as read from the file (integers as BigInt, so exact):
 * the same row an `INSERT … SELECT` would copy, at half the cost (SQLite's INSERT … SELECT on one
 * row re-reads the base row, large geometries included, for every replica).
 */
export const extendSqlite = (file: string, base: Base, from: number, to: number, progress: (line: string) => void): { copied: ReadonlyArray<string> } => {
  const db = new Database(file)
  try {
    db.pragma("journal_mode = WAL")
    db.pragma("synchronous = OFF") // a throwaway benchmark file: no fsync while seeding
    db.pragma("foreign_keys = ON")
    db.pragma("cache_size = -262144") // 256 MiB for the indexes being built
    const columns = (db.prepare("select name from pragma_table_info('projects')").all() as Array<{ name: string }>).map((r) => r.name)
    const { replaced, copied } = plan(columns)
    const read = db.prepare(`select ${copied.map(quote).join(", ")} from projects where id = ?`).safeIntegers(true)
    const baseRows = base.ids.map((id) => {
      const row = read.get(id) as Record<string, unknown> | undefined
      if (!row) throw new Error(`base row ${id} not found`)
      return copied.map((c) => row[c])
    })
    const insert = db.prepare(
      `insert into projects (${[...replaced, ...copied].map(quote).join(", ")}) values (${[...replaced, ...copied].map(() => "?").join(", ")})`
    )
    const batch = db.transaction((start: number, end: number) => {
      for (let n = start; n < end; n++) {
        const r = replica(base, n)
        insert.run(...replaced.map((c) => r[c]), ...baseRows[n % baseRows.length]!)
      }
    })
    const t0 = performance.now()
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH)
      batch(start, end)
      progress(`${end.toLocaleString("en-US")} projects (${rate(end - from, performance.now() - t0)})`)
    }
    const t1 = performance.now()
    db.exec("analyze")
    db.pragma("wal_checkpoint(TRUNCATE)")
    progress(`ANALYZE ${((performance.now() - t1) / 1000).toFixed(1)} s`)
    return { copied }
  } finally {
    db.close()
  }
}

/** Grows a PostgreSQL database from `from` to `to` projects (`pg`, INSERT … SELECT from unnest(arrays) joined to the base rows), then ANALYZE. */
export const extendPostgres = async (url: string, base: Base, from: number, to: number,
  progress: (line: string) => void): Promise<{ copied: ReadonlyArray<string> }> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const columns = (await client.query<{ column_name: string }>(
      "select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'projects' order by ordinal_position"
    )).rows.map((r) => r.column_name)
    const { replaced, copied } = plan(columns)
    const inputs = ["base_id", ...replaced] as const
    const sql = `insert into projects (${[...replaced, ...copied].map(quote).join(", ")}) ` +
      `select ${[...replaced.map((c) => `s.${quote(c)}`), ...copied.map((c) => `b.${quote(c)}`)].join(", ")} ` +
      `from unnest(${inputs.map((_, i) => `$${i + 1}::text[]`).join(", ")}) as s(${inputs.map(quote).join(", ")}) ` +
      `join projects b on b.id = s.base_id`
    const STATEMENT = 10_000
    const t0 = performance.now()
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH)
      await client.query("begin")
      for (let s = start; s < end; s += STATEMENT) {
        const e = Math.min(end, s + STATEMENT)
        const arrays = inputs.map(() => [] as Array<string | null>)
        for (let n = s; n < e; n++) {
          const r = replica(base, n)
          inputs.forEach((c, i) => arrays[i]!.push(r[c]))
        }
        const result = await client.query(sql, arrays)
        if (result.rowCount !== e - s) throw new Error(`inserted ${result.rowCount} of ${e - s} rows`)
      }
      await client.query("commit")
      progress(`${end.toLocaleString("en-US")} projects (${rate(end - from, performance.now() - t0)})`)
    }
    const t1 = performance.now()
    await client.query("analyze")
    progress(`ANALYZE ${((performance.now() - t1) / 1000).toFixed(1)} s`)
    return { copied }
  } finally {
    await client.end()
  }
}
