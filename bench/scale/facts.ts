/** What the scale benchmark reads straight from each size's database before measuring it. */
import Database from "better-sqlite3"
import pg from "pg"
import type { DbRow } from "./cursor.ts"

/** One size's facts: its count, ids to ask for, and where the middle of the default order stands. */
export interface Facts {
  readonly count: number
  /** Random project ids, for GET by id. */
  readonly ids: ReadonlyArray<string>
  /** Random active projects, for archive ⇄ restore (one sequential, one per connection). */
  readonly active: ReadonlyArray<string>
  /** The row just before offset n/2 in the default order, and the ids that may stand at n/2. */
  readonly prev: DbRow
  readonly firstIds: ReadonlySet<string>
}

/** The two rows from offset `$2` of the default order, equal creation times ordered by id `tie`. */
const MID = (tie: "asc" | "desc") =>
  `select id, created_at, name, slug, area_hectares, sort_name from projects where account_id = $1 order by created_at desc, id ${tie} limit 2 offset $2`

/** The facts of a SQLite file (opened read-only). */
export const sqliteFacts = (file: string, accountId: string): Facts => {
  const db = new Database(file, { readonly: true })
  try {
    const q = (sql: string) => db.prepare(sql.replace(/\$\d/g, "?"))
    const count = (q("select count(*) as n from projects where account_id = $1").get(accountId) as { n: number }).n
    const ids = (q("select id from projects where account_id = $1 order by random() limit 1000").all(accountId) as Array<{ id: string }>).map((r) => r.id)
    const active = (q("select id from projects where account_id = $1 and status = 'active' order by random() limit 11").all(accountId) as Array<{ id: string }>)
      .map((r) => r.id)
    const asc = q(MID("asc")).all(accountId, Math.floor(count / 2) - 1) as Array<DbRow>
    const desc = q(MID("desc")).all(accountId, Math.floor(count / 2) - 1) as Array<DbRow>
    return { count, ids, active, prev: asc[0]!, firstIds: new Set([asc[1]!.id, desc[1]!.id]) }
  } finally {
    db.close()
  }
}

/** The facts of a PostgreSQL database. */
export const postgresFacts = async (url: string, accountId: string): Promise<Facts> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const count = Number((await client.query<{ n: string }>("select count(*) as n from projects where account_id = $1", [accountId])).rows[0]!.n)
    const ids = (await client.query<{ id: string }>("select id from projects where account_id = $1 order by random() limit 1000", [accountId])).rows.map((r) =>
      r.id
    )
    const active =
      (await client.query<{ id: string }>("select id from projects where account_id = $1 and status = 'active' order by random() limit 11", [accountId])).rows
        .map((r) => r.id)
    const asc = (await client.query<DbRow>(MID("asc"), [accountId, Math.floor(count / 2) - 1])).rows
    const desc = (await client.query<DbRow>(MID("desc"), [accountId, Math.floor(count / 2) - 1])).rows
    return { count, ids, active, prev: { ...asc[0]!, area_hectares: Number(asc[0]!.area_hectares) }, firstIds: new Set([asc[1]!.id, desc[1]!.id]) }
  } finally {
    await client.end()
  }
}
