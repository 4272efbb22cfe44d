/**
 * The storage contract over Effect's `SqlClient`, written once for every SQL database Canopy runs
 * on. The adapters supply the driver (the `SqlClient`) and run the migrations that create the
 * tables below; the few dialect differences (row locks, one CTE) are branches here. An adapter may
 * also run the two operations of every request's path by a faster route of its own (the SQLite
 * adapter's `RequestPath`), with the same SQL and behaviour.
 *
 * Column conventions, identical in every dialect: timestamps are ISO 8601 text, scheduling times
 * are epoch milliseconds (integer/bigint), JSON values are text, booleans are integers 0/1.
 */
import { Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Row } from "effect/sql/SqlConnection"
import type { Plan } from "../Plans.ts"
import { RawJson } from "../RawJson.ts"
import type { State as RateLimitState } from "../RateLimit.ts"
import * as S from "../Storage.ts"

type Sql = SqlClient.SqlClient

/** A SQL driver failure as the storage contract's StorageError (the cause kept, never shown). */
export const storageError = (e: SqlError.SqlError) =>
  new S.StorageError({ message: `storage failure: ${e.reason._tag}`, cause: e })

const isUnique = (e: SqlError.SqlError) => e.reason._tag === "UniqueViolation"

/** Maps SQL failures: a unique violation to Duplicate, anything else to StorageError. */
const onUnique = (entity: string, field: string) =>
  <A, R>(self: Effect.Effect<A, SqlError.SqlError, R>): Effect.Effect<A, S.Duplicate | S.StorageError, R> =>
    Effect.mapError(self, (e) => (isUnique(e) ? new S.Duplicate({ entity, field }) : storageError(e)))

const orStorage = <A, R>(self: Effect.Effect<A, SqlError.SqlError, R>): Effect.Effect<A, S.StorageError, R> =>
  Effect.mapError(self, storageError)

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v))
const parse = <A>(v: unknown): A => (v === null || v === undefined ? (null as A) : (JSON.parse(String(v)) as A))
const num = (v: unknown): number => Number(v)
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/** How each table's JSON, boolean and numeric columns convert between rows and the database. */
const codecs = {
  projects: { json: ["bbox"], raw: ["geometry"], bool: [], num: ["area_hectares"] },
  assets: { json: ["location", "metadata"], bool: [], num: [] },
  webhooks: { json: ["events"], bool: ["enabled"], num: ["consecutive_failures"] },
  credentials: { json: ["permissions", "ip_allowlist"], bool: [], num: [] },
  deliveries: { json: [], bool: [], num: ["attempts", "next_attempt_at", "lease_expires_at"] },
  delivery_logs: { json: [], bool: [], num: ["attempt", "response_code", "response_time_ms"] },
  accounts: { json: [], bool: [], num: [] },
  members: { json: [], bool: [], num: [] },
  invitations: { json: [], bool: [], num: [] },
  events: { json: [], bool: [], num: [] },
  oauth_clients: { json: ["redirect_uris", "scopes", "allowed_origins"], bool: ["confidential"], num: [] },
  oauth_codes: { json: ["scopes"], bool: [], num: ["expires_at", "used_at"] },
  oauth_tokens: { json: ["scopes"], bool: [], num: ["expires_at", "rotated_at", "revoked_at", "last_used_at"] },
  sessions: { json: [], bool: [], num: ["expires_at"] }
} as const satisfies Record<string, { json: ReadonlyArray<string>; raw?: ReadonlyArray<string>; bool: ReadonlyArray<string>; num: ReadonlyArray<string> }>

/** Columns kept as JSON text both ways (a `RawJson` in the row): never parsed on the request path. */
const rawColumns = (table: Table): ReadonlyArray<string> => ("raw" in codecs[table] ? (codecs[table] as { raw: ReadonlyArray<string> }).raw : [])
type Table = keyof typeof codecs

const toDb = (table: Table, row: object): Record<string, unknown> => {
  const c = codecs[table]
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(row)) {
    if (v === undefined) continue
    out[k] = v instanceof RawJson ? v.text : (c.json as ReadonlyArray<string>).includes(k) ? json(v) : (c.bool as ReadonlyArray<string>).includes(k) ? (v ? 1 : 0) : v
  }
  return out
}

/** A row as the SQL driver answers it. */
export type { Row }

/** The tables whose rows `fromRow` converts. */
export type { Table }

/** A driver row of `table` converted to the storage contract's row (JSON, booleans, numbers). */
export const fromRow = <A>(table: Table, row: Row | undefined): A | undefined => fromDb<A>(table, row)

const fromDb = <A>(table: Table, row: Row | undefined): A | undefined => {
  if (!row) return undefined
  const c = codecs[table]
  const out: Record<string, unknown> = { ...row }
  for (const k of c.json) out[k] = parse(out[k])
  for (const k of rawColumns(table)) out[k] = out[k] === null || out[k] === undefined ? null : new RawJson(String(out[k]))
  for (const k of c.bool) out[k] = Boolean(Number(out[k]))
  for (const k of c.num) out[k] = k === "attempts" || k === "attempt" || k === "area_hectares" || k === "consecutive_failures" || k === "last_used_at" || (table === "oauth_codes" && k === "expires_at") || (table === "sessions" && k === "expires_at") ? num(out[k]) : numOrNull(out[k])
  return out as A
}

const many = <A>(table: Table, rows: ReadonlyArray<Row>): Array<A> => rows.map((r) => fromDb<A>(table, r)!)

/** A term as an FTS5 phrase: with the trigram tokenizer, a case-insensitive substring match. */
const ftsPhrase = (term: string) => `"${term.replace(/"/g, '""')}"`

/** Rows a searched project list walks in sort order before asking the trigram index. */
const SEARCH_WALK = 5_000

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The storage contract implemented over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql: Sql = yield* SqlClient.SqlClient
  const dialect = sql.onDialectOrElse({ pg: () => "pg" as const, sqlite: () => "sqlite" as const, orElse: () => "other" as const })

  const one = <A>(table: Table, statement: Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>) =>
    orStorage(Effect.map(statement, (rows) => fromDb<A>(table, rows[0])))
  const all = <A>(table: Table, statement: Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>) =>
    orStorage(Effect.map(statement, (rows) => many<A>(table, rows)))
  const count = (statement: Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>) =>
    orStorage(Effect.map(statement, (rows) => Number((rows[0] as { n?: unknown } | undefined)?.n ?? 0)))
  const affected = (statement: Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>) =>
    orStorage(Effect.map(statement, (rows) => rows.length > 0))

  /** Rows a purge picks on PostgreSQL are locked, and rows others hold are skipped (no waits, no deadlocks). */
  const skipLocked = dialect === "pg" ? sql`for update skip locked` : sql``

  /** UPDATE … RETURNING *, or a plain read when the patch is empty. */
  const patchRow = (table: Table, patch: object, where: ReturnType<Sql["and"]>) => {
    const values = toDb(table, patch)
    return Object.keys(values).length === 0
      ? sql`select * from ${sql(table)} where ${where}`
      : sql`update ${sql(table)} set ${sql.update(values)} where ${where} returning *`
  }

  /** The order `column dir, id dir`: every list's, ties broken by id in the sort's direction. */
  const orderBy = (column: string, desc: boolean) =>
    sql.literal(desc ? `${column} desc, id desc` : `${column} asc, id asc`)

  /** Rows strictly after `after` in the order `column dir, id dir` (keyset pagination). */
  const keyset = (column: string, desc: boolean, after: S.After | undefined) =>
    after === undefined ? [] : [desc
      ? sql`(${sql(column)}, id) < (${after.value}, ${after.id})`
      : sql`(${sql(column)}, id) > (${after.value}, ${after.id})`]

  /** Matching rows counted up to `COUNT_LIMIT` (one more, to know whether it stopped there). */
  const cappedCount = (table: Table, where: ReturnType<Sql["and"]>, limit: number) =>
    Effect.map(count(sql`select count(*) as n from (select 1 from ${sql(table)} where ${where} limit ${limit + 1}) c`),
      (n) => ({ total: Math.min(n, limit), totalExact: n <= limit }))

  /**
   * One window of a list in the order `column dir, id dir`: by keyset when `after` is given, else
   * by offset; the total from `exactTotal` when given, else a capped count.
   */
  const page = <A>(
    table: Table, clauses: Array<ReturnType<Sql["and"]>>, column: string, desc: boolean,
    q: { readonly limit: number; readonly offset: number; readonly after?: S.After | undefined },
    exactTotal?: Effect.Effect<number, S.StorageError>, countLimit = S.COUNT_LIMIT
  ) =>
    Effect.gen(function*() {
      const where = sql.and([...clauses, ...keyset(column, desc, q.after)])
      const skip = q.after === undefined && q.offset > 0 ? sql`offset ${q.offset}` : sql``
      const fetched = yield* all<A>(table,
        sql`select * from ${sql(table)} where ${where} order by ${orderBy(column, desc)} limit ${q.limit + 1} ${skip}`)
      const counted = exactTotal
        ? { total: yield* exactTotal, totalExact: true }
        : yield* cappedCount(table, sql.and(clauses), countLimit)
      return { rows: fetched.slice(0, q.limit), hasMore: fetched.length > q.limit, ...counted }
    })

  /** A case-insensitive substring match on `search_text` through the table's trigram index. */
  const searchClause = (table: "projects" | "assets", term: string) =>
    dialect === "sqlite"
      ? sql`rowid in (select rowid from ${sql(`${table}_fts`)} where ${sql(`${table}_fts`)} match ${ftsPhrase(term)})`
      : sql`search_text like ${likeContains(term)} escape '\\'`

  /**
   * A searched project list. The page: first by walking the sort index (at most `SEARCH_WALK`
   * rows, testing each row's text), which fills the page for any term in more than about one row
   * in 250; otherwise from the trigram index, sorting the matches' keys — cheap exactly when
   * matches are few. The total counts matches up to `SEARCH_COUNT_LIMIT`.
   */
  const searchProjects = (
    accountId: string, clauses: Array<ReturnType<Sql["and"]>>, column: string, desc: boolean, term: string,
    q: { readonly limit: number; readonly offset: number; readonly after?: S.After | undefined }
  ) =>
    Effect.gen(function*() {
      const order = orderBy(column, desc)
      const skip = q.after === undefined ? q.offset : 0
      const want = skip + q.limit + 1
      const after = [...clauses, ...keyset(column, desc, q.after)]
      const from = sql.and(after)
      const contains = dialect === "pg" ? sql`strpos(search_text, ${term}) > 0` : sql`instr(search_text, ${term}) > 0`
      let rows = yield* all<S.ProjectRow>("projects", sql`select * from projects where id in (
          select id from (select id, ${sql(column)}, search_text from projects where ${from} order by ${order} limit ${SEARCH_WALK}) w
          where ${contains} order by ${order} limit ${want}) order by ${order}`)
      if (rows.length < want) {
        const walked = yield* count(sql`select count(*) as n from (select 1 from projects where ${from} limit ${SEARCH_WALK}) c`)
        if (walked >= SEARCH_WALK) {
          rows = yield* all<S.ProjectRow>("projects", sql`select * from projects where id in (
              select id from projects where ${sql.and([...after, searchClause("projects", term)])}
              order by ${order} limit ${want}) order by ${order}`)
        }
      }
      const n = yield* searchCount(accountId, clauses.length > 1, term)
      return {
        rows: rows.slice(skip, skip + q.limit), hasMore: rows.length > skip + q.limit,
        total: Math.min(n, S.SEARCH_COUNT_LIMIT), totalExact: n <= S.SEARCH_COUNT_LIMIT
      }
    })

  /**
   * Projects of the account matching a term, counted up to one past `SEARCH_COUNT_LIMIT`. On a
   * SQLite file that holds this account alone (the usual deployment), the trigram index answers by
   * itself; otherwise each match is checked against the account (and status).
   */
  const searchCount = (accountId: string, filtered: boolean, term: string) =>
    Effect.gen(function*() {
      const cap = S.SEARCH_COUNT_LIMIT + 1
      if (dialect === "sqlite" && !filtered) {
        const others = yield* count(sql`select count(*) as n from (select 1 from accounts where id <> ${accountId} limit 1) o`)
        if (others === 0) {
          return yield* count(sql`select count(*) as n from (select rowid from projects_fts where projects_fts match ${ftsPhrase(term)} limit ${cap}) c`)
        }
      }
      const clauses = [sql`account_id = ${accountId}`, searchClause("projects", term)]
      return yield* count(sql`select count(*) as n from (select 1 from projects where ${sql.and(clauses)} limit ${cap}) c`)
    })

  /** One account's running totals (zeros for an account without a row). */
  const totals = (accountId: string) =>
    orStorage(Effect.map(sql`select * from account_totals where account_id = ${accountId}`, (rows) => {
      const r = (rows[0] ?? {}) as Record<string, unknown>
      const n = (k: string) => Number(r[k] ?? 0)
      return {
        active: n("projects_active"), archived: n("projects_archived"), draft: n("projects_draft"),
        areaActive: n("area_active"), areaArchived: n("area_archived"), areaDraft: n("area_draft"),
        members: n("members"), webhooks: n("webhooks")
      }
    }))

  /** Joins the current transaction when there is one (no savepoint), or opens one. */
  const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.serviceOption(sql.transactionService), (current) =>
      current._tag === "Some" ? effect : sql.withTransaction(effect))

  /** Deliveries joined with their event and webhook, as a dispatcher needs them. */
  const claimedRows = (ids: ReadonlyArray<string>) =>
    Effect.map(
      sql`select d.*, e.payload as payload, e.type as event_type, e.created_at as event_created_at,
            w.url as url, w.secret as secret, coalesce(w.enabled, 0) as webhook_enabled,
            coalesce(w.consecutive_failures, 0) as webhook_consecutive_failures, w.failing_since as webhook_failing_since
          from deliveries d join events e on e.id = d.event_id left join webhooks w on w.id = d.webhook_id
          where d.id in ${sql.in(ids)} order by d.next_attempt_at, d.id`,
      (rows) => rows.map((r) => {
        const x = r as { webhook_enabled: unknown; webhook_consecutive_failures: unknown }
        return {
          ...fromDb<S.DeliveryRow>("deliveries", r)!,
          webhook_enabled: Boolean(Number(x.webhook_enabled)),
          webhook_consecutive_failures: Number(x.webhook_consecutive_failures)
        } as S.ClaimedDelivery
      }))

  const storage: S.StorageShape = {
    transaction: (effect) => Effect.mapError(atomically(effect), (e) =>
      (e as { _tag?: string })._tag === "SqlError" ? storageError(e as SqlError.SqlError) : e) as never,

    lockAccount: (accountId) =>
      dialect === "pg" ? orStorage(Effect.asVoid(sql`select id from accounts where id = ${accountId} for update`)) : Effect.void,

    ping: orStorage(Effect.asVoid(sql`select 1`)),

    accounts: {
      insert: (row) => onUnique("account", "id")(Effect.asVoid(sql`insert into accounts ${sql.insert(toDb("accounts", row))}`)),
      get: (id) => one("accounts", sql`select * from accounts where id = ${id}`),
      update: (id, patch) => one("accounts", patchRow("accounts", patch, sql.and([sql`id = ${id}`]))),
      count: count(sql`select count(*) as n from accounts`),
      list: all("accounts", sql`select * from accounts order by created_at asc, id asc`)
    },

    members: {
      insert: (row) => onUnique("member", "email")(Effect.asVoid(sql`insert into members ${sql.insert(toDb("members", row))}`)),
      get: (accountId, id) => one("members", sql`select * from members where account_id = ${accountId} and id = ${id}`),
      getByEmail: (accountId, email) => one("members", sql`select * from members where account_id = ${accountId} and email = ${email}`),
      findByEmail: (email) => all("members", sql`select * from members where email = ${email} order by created_at asc, id asc`),
      list: (accountId) => all("members", sql`select * from members where account_id = ${accountId} order by created_at asc, id asc`),
      update: (accountId, id, patch) =>
        onUnique("member", "email")(Effect.map(patchRow("members", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`])), (r) => fromDb<S.MemberRow>("members", r[0]))),
      delete: (accountId, id) => affected(sql`delete from members where account_id = ${accountId} and id = ${id} returning id`),
      countActiveWithRole: (accountId, role) =>
        count(sql`select count(*) as n from members where account_id = ${accountId} and role = ${role} and status = 'active'`),
      count: (accountId) => Effect.map(totals(accountId), (t) => t.members)
    },

    invitations: {
      insert: (row) => onUnique("invitation", "token_hash")(Effect.asVoid(sql`insert into invitations ${sql.insert(toDb("invitations", row))}`)),
      getByTokenHash: (hash) => one("invitations", sql`select * from invitations where token_hash = ${hash}`),
      markAccepted: (id, at) => affected(sql`update invitations set accepted_at = ${at} where id = ${id} and accepted_at is null returning id`),
      deleteForMember: (accountId, userId) => orStorage(Effect.asVoid(sql`delete from invitations where account_id = ${accountId} and user_id = ${userId}`))
    },

    projects: {
      insert: (row) => onUnique("project", "slug")(Effect.asVoid(sql`insert into projects ${sql.insert(toDb("projects", row))}`)),
      get: (accountId, id) => one("projects", sql`select * from projects where account_id = ${accountId} and id = ${id}`),
      update: (accountId, id, patch) =>
        onUnique("project", "slug")(Effect.map(patchRow("projects", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`])), (r) => fromDb<S.ProjectRow>("projects", r[0]))),
      delete: (accountId, id) =>
        orStorage(Effect.gen(function*() {
          yield* sql`delete from assets where account_id = ${accountId} and project_id = ${id}`
          return (yield* sql`delete from projects where account_id = ${accountId} and id = ${id} returning id`).length > 0
        })),
      list: (accountId, q) => {
        const clauses = [sql`account_id = ${accountId}`]
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        const column = q.sort === "name" ? "sort_name" : q.sort
        const desc = q.order === "desc"
        if (q.search === undefined) {
          const exact = Effect.map(totals(accountId), (t) => (q.status === undefined ? t.active + t.archived + t.draft : t[q.status]))
          return page<S.ProjectRow>("projects", clauses, column, desc, q, exact)
        }
        return searchProjects(accountId, clauses, column, desc, q.search, q)
      },
      stats: (accountId) =>
        Effect.map(totals(accountId), (t) => ({
          active: t.active, archived: t.archived, draft: t.draft, hectares: (t.areaActive + t.areaDraft) / 10_000
        }))
    },

    assets: {
      insert: (row) => orStorage(Effect.asVoid(sql`insert into assets ${sql.insert(toDb("assets", row))}`)),
      get: (accountId, projectId, id) =>
        one("assets", sql`select * from assets where account_id = ${accountId} and project_id = ${projectId} and id = ${id}`),
      update: (accountId, projectId, id, patch) =>
        one("assets", patchRow("assets", patch, sql.and([sql`account_id = ${accountId}`, sql`project_id = ${projectId}`, sql`id = ${id}`]))),
      delete: (accountId, projectId, id) =>
        affected(sql`delete from assets where account_id = ${accountId} and project_id = ${projectId} and id = ${id} returning id`),
      list: (accountId, projectId, q) => {
        const clauses = [sql`account_id = ${accountId}`, sql`project_id = ${projectId}`]
        if (q.type !== undefined) clauses.push(sql`type = ${q.type}`)
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        if (q.search !== undefined) clauses.push(searchClause("assets", q.search))
        return page<S.AssetRow>("assets", clauses, "created_at", true, q, undefined, q.search === undefined ? S.COUNT_LIMIT : S.SEARCH_COUNT_LIMIT)
      }
    },

    webhooks: {
      insert: (row) => orStorage(Effect.asVoid(sql`insert into webhooks ${sql.insert(toDb("webhooks", row))}`)),
      get: (accountId, id) => one("webhooks", sql`select * from webhooks where account_id = ${accountId} and id = ${id}`),
      update: (accountId, id, patch) => one("webhooks", patchRow("webhooks", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`]))),
      delete: (accountId, id) => affected(sql`delete from webhooks where account_id = ${accountId} and id = ${id} returning id`),
      list: (accountId) => all("webhooks", sql`select * from webhooks where account_id = ${accountId} order by created_at asc, id asc`),
      count: (accountId) => Effect.map(totals(accountId), (t) => t.webhooks)
    },

    outbox: {
      append: (event, deliveries) =>
        orStorage(Effect.gen(function*() {
          yield* sql`insert into events ${sql.insert(toDb("events", event))}`
          for (const d of deliveries) yield* sql`insert into deliveries ${sql.insert(toDb("deliveries", d))}`
        })),
      getEvent: (accountId, id) => one("events", sql`select * from events where account_id = ${accountId} and id = ${id}`),
      listEvents: (accountId, q) => {
        const clauses = [sql`account_id = ${accountId}`]
        if (q.type !== undefined) clauses.push(sql`type = ${q.type}`)
        if (q.created_after !== undefined) clauses.push(sql`created_at >= ${q.created_after}`)
        if (q.created_before !== undefined) clauses.push(sql`created_at < ${q.created_before}`)
        return page<S.EventRow>("events", clauses, "created_at", true, q)
      },
      listDeliveries: (accountId, eventId) =>
        all("deliveries", sql`select * from deliveries where account_id = ${accountId} and event_id = ${eventId} order by created_at asc, id asc`),
      cancelPending: (accountId, webhookId, at) =>
        all<S.DeliveryRow>("deliveries",
          sql`update deliveries set status = 'canceled', next_attempt_at = null, lease_owner = null, lease_expires_at = null, updated_at = ${at}
              where account_id = ${accountId} and webhook_id = ${webhookId} and status = 'pending' returning *`),
      claimDue: (now, limit, owner, leaseUntil, exclude = []) =>
        storage.transaction(orStorage(Effect.gen(function*() {
          const notExcluded = exclude.length > 0 ? sql`and webhook_id not in ${sql.in(exclude)}` : sql``
          const pick = sql`select id from deliveries where status = 'pending' and next_attempt_at <= ${now}
            and (lease_expires_at is null or lease_expires_at < ${now}) ${notExcluded}
            order by next_attempt_at, id limit ${limit}`
          const ids = (dialect === "pg" ? yield* sql`${pick} for update skip locked` : yield* pick).map((r) => (r as { id: string }).id)
          if (ids.length === 0) return []
          yield* sql`update deliveries set lease_owner = ${owner}, lease_expires_at = ${leaseUntil} where id in ${sql.in(ids)}`
          return yield* claimedRows(ids)
        }))),
      release: (ids, owner) =>
        ids.length === 0 ? Effect.void : orStorage(Effect.asVoid(
          sql`update deliveries set lease_owner = null, lease_expires_at = null where id in ${sql.in(ids)} and lease_owner = ${owner}`)),
      claimOne: (id, now, owner, leaseUntil) =>
        storage.transaction(orStorage(Effect.gen(function*() {
          const rows = yield* sql`update deliveries set lease_owner = ${owner}, lease_expires_at = ${leaseUntil}
            where id = ${id} and status = 'pending' and (lease_expires_at is null or lease_expires_at < ${now} or lease_owner = ${owner}) returning id`
          if (rows.length === 0) return undefined
          return (yield* claimedRows([id]))[0]
        }))),
      recordAttempt: (r) =>
        storage.transaction(orStorage(Effect.gen(function*() {
          yield* sql`insert into delivery_logs ${sql.insert(toDb("delivery_logs", r.log))}`
          const updated = yield* sql`update deliveries set attempts = ${r.attempts}, status = ${r.status}, next_attempt_at = ${r.next_attempt_at},
              lease_owner = null, lease_expires_at = null, updated_at = ${r.updated_at}
            where id = ${r.delivery_id} and status = 'pending' and lease_owner = ${r.owner} returning id`
          return updated.length > 0
        }))),
      nextDue: orStorage(Effect.map(sql`select min(next_attempt_at) as at from deliveries where status = 'pending'`,
        (rows) => numOrNull((rows[0] as { at?: unknown } | undefined)?.at))),
      getDelivery: (accountId, id) => one("deliveries", sql`select * from deliveries where account_id = ${accountId} and id = ${id}`),
      getLog: (accountId, webhookId, id) =>
        one("delivery_logs", sql`select * from delivery_logs where account_id = ${accountId} and webhook_id = ${webhookId} and id = ${id}`),
      purgeLogs: (before, limit) => orStorage(Effect.map(
        sql`delete from delivery_logs where id in (
            select id from delivery_logs where created_at < ${before} order by created_at limit ${limit} ${skipLocked}) returning id`,
        (rows) => rows.length)),
      addDeliveries: (deliveries) =>
        orStorage(Effect.forEach(deliveries, (d) => sql`insert into deliveries ${sql.insert(toDb("deliveries", d))}`, { discard: true })),
      insertLog: (row) => orStorage(Effect.asVoid(sql`insert into delivery_logs ${sql.insert(toDb("delivery_logs", row))}`)),
      listLogs: (accountId, webhookId, q) => {
        const clauses = [sql`account_id = ${accountId}`, sql`webhook_id = ${webhookId}`]
        if (q.status !== undefined) clauses.push(sql`status = ${q.status}`)
        if (q.event_type !== undefined) clauses.push(sql`event_type = ${q.event_type}`)
        return page<S.DeliveryLogRow>("delivery_logs", clauses, "created_at", true, q)
      }
    },

    credentials: {
      insert: (row) => onUnique("credential", "token_hash")(Effect.asVoid(sql`insert into credentials ${sql.insert(toDb("credentials", row))}`)),
      getByHash: (hash) => one("credentials", sql`select * from credentials where token_hash = ${hash}`),
      list: (accountId, kind) =>
        all("credentials", sql`select * from credentials where account_id = ${accountId} and kind = ${kind} order by created_at asc, id asc`),
      get: (accountId, id) => one("credentials", sql`select * from credentials where account_id = ${accountId} and id = ${id}`),
      revoke: (accountId, id, at) =>
        affected(sql`update credentials set revoked_at = ${at} where account_id = ${accountId} and id = ${id} and revoked_at is null returning id`),
      touch: (id, at) => orStorage(Effect.asVoid(sql`update credentials set last_used_at = ${at} where id = ${id}`))
    },

    usage: {
      increment: (accountId, period, metric, by) =>
        orStorage(Effect.map(
          sql`insert into usage_counters (account_id, period, metric, value) values (${accountId}, ${period}, ${metric}, ${by})
              on conflict (account_id, period, metric) do update set value = usage_counters.value + excluded.value
              returning value`,
          (rows) => Number((rows[0] as { value: unknown }).value))),
      get: (accountId, period, metric) =>
        orStorage(Effect.map(
          sql`select value from usage_counters where account_id = ${accountId} and period = ${period} and metric = ${metric}`,
          (rows) => Number((rows[0] as { value?: unknown } | undefined)?.value ?? 0))),
      markAlert: (accountId, period, metric, threshold) =>
        affected(sql`insert into usage_alerts (account_id, period, metric, threshold) values (${accountId}, ${period}, ${metric}, ${threshold})
                     on conflict do nothing returning threshold`),
      alerts: (accountId, period, metric) =>
        orStorage(Effect.map(
          sql`select threshold from usage_alerts where account_id = ${accountId} and period = ${period} and metric = ${metric} order by threshold`,
          (rows) => rows.map((r) => Number((r as { threshold: unknown }).threshold))))
    },

    oauth: {
      insertClient: (row) => onUnique("oauth client", "id")(Effect.asVoid(sql`insert into oauth_clients ${sql.insert(toDb("oauth_clients", row))}`)),
      getClient: (id) => one("oauth_clients", sql`select * from oauth_clients where id = ${id}`),
      listClients: (accountId) => all("oauth_clients", sql`select * from oauth_clients where account_id = ${accountId} order by created_at asc, id asc`),
      updateClient: (accountId, id, patch) =>
        one("oauth_clients", patchRow("oauth_clients", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`]))),
      deleteClient: (accountId, id) => affected(sql`delete from oauth_clients where account_id = ${accountId} and id = ${id} returning id`),
      insertCode: (row) => onUnique("oauth code", "code_hash")(Effect.asVoid(sql`insert into oauth_codes ${sql.insert(toDb("oauth_codes", row))}`)),
      getCode: (hash) => one("oauth_codes", sql`select * from oauth_codes where code_hash = ${hash}`),
      useCode: (hash, now) =>
        storage.transaction(orStorage(Effect.gen(function*() {
          const before = dialect === "pg"
            ? yield* sql`select * from oauth_codes where code_hash = ${hash} for update`
            : yield* sql`select * from oauth_codes where code_hash = ${hash}`
          const row = fromDb<S.OAuthCodeRow>("oauth_codes", before[0])
          if (row && row.used_at === null) yield* sql`update oauth_codes set used_at = ${now} where code_hash = ${hash}`
          return row
        }))),
      insertToken: (row) => onUnique("oauth token", "token_hash")(Effect.asVoid(sql`insert into oauth_tokens ${sql.insert(toDb("oauth_tokens", row))}`)),
      getToken: (hash) => one("oauth_tokens", sql`select * from oauth_tokens where token_hash = ${hash}`),
      getTokenById: (id) => one("oauth_tokens", sql`select * from oauth_tokens where id = ${id}`),
      // The JSON text narrows the scan (LIKE, wildcards escaped); the decoded list decides exactly.
      originAllowed: (origin) =>
        Effect.map(
          all<S.OAuthClientRow>("oauth_clients", sql`select * from oauth_clients where allowed_origins like ${`%${JSON.stringify(origin).replace(/[\\%_]/g, "\\$&")}%`} escape '\\'`),
          (rows) => rows.some((c) => c.allowed_origins.includes(origin))),
      rotate: (hash, now) => affected(sql`update oauth_tokens set rotated_at = ${now} where token_hash = ${hash} and rotated_at is null returning id`),
      revokeFamily: (familyId, now) =>
        orStorage(Effect.map(sql`update oauth_tokens set revoked_at = ${now} where family_id = ${familyId} and revoked_at is null returning id`, (r) => r.length)),
      touchToken: (hash, now) => orStorage(Effect.asVoid(sql`update oauth_tokens set last_used_at = ${now} where token_hash = ${hash}`))
    },

    sessions: {
      insert: (row) => onUnique("session", "token_hash")(Effect.asVoid(sql`insert into sessions ${sql.insert(toDb("sessions", row))}`)),
      get: (hash) => one("sessions", sql`select * from sessions where token_hash = ${hash}`),
      delete: (hash) => orStorage(Effect.asVoid(sql`delete from sessions where token_hash = ${hash}`)),
      purgeExpired: (now, limit) =>
        orStorage(Effect.map(sql`delete from sessions where expires_at <= ${now} and token_hash in (
            select token_hash from sessions where expires_at <= ${now} order by expires_at limit ${limit} ${skipLocked})
          returning token_hash`, (rows) => rows.length))
    },

    rateLimits: {
      update: (accountId, step) =>
        storage.transaction(orStorage(Effect.gen(function*() {
          // Make sure the row exists, so that the read below can lock it.
          yield* sql`insert into rate_limits (account_id, state) values (${accountId}, ${null}) on conflict (account_id) do nothing`
          const rows = dialect === "pg"
            ? yield* sql`select state from rate_limits where account_id = ${accountId} for update`
            : yield* sql`select state from rate_limits where account_id = ${accountId}`
          const current = parse<RateLimitState | null>((rows[0] as { state: unknown } | undefined)?.state) ?? undefined
          const [result, next] = step(current)
          // An upsert: a purge may have removed an idle bucket since the read (it then starts afresh).
          yield* sql`insert into rate_limits (account_id, state, touched_at) values (${accountId}, ${json(next)}, ${next.refilledAt})
                     on conflict (account_id) do update set state = excluded.state, touched_at = excluded.touched_at`
          return result
        }))),
      purge: (before, limit) =>
        orStorage(Effect.map(sql`delete from rate_limits where touched_at < ${before} and account_id in (
            select account_id from rate_limits where touched_at < ${before} order by touched_at limit ${limit} ${skipLocked})
          returning account_id`, (rows) => rows.length))
    },

    idempotency: {
      begin: (accountId, key, fingerprint, token, now, limits) =>
        orStorage(Effect.gen(function*() {
          const where = sql`account_id = ${accountId} and idempotency_key = ${key}`
          // A purge may delete the row between the statements below: then start again.
          for (let attempt = 0; ; attempt++) {
            // A free key is claimed by exactly one of concurrent inserts (the others do nothing)…
            const inserted = yield* sql`insert into idempotency_keys (account_id, idempotency_key, fingerprint, token, created_at)
              values (${accountId}, ${key}, ${fingerprint}, ${token}, ${now})
              on conflict (account_id, idempotency_key) do nothing returning token`
            if (inserted.length > 0) return { kind: "new" } as const
            // …an expired or abandoned one by exactly one of concurrent updates (the condition is
            // checked again on the row each finds, and no longer holds after the first).
            const taken = yield* sql`update idempotency_keys set fingerprint = ${fingerprint}, token = ${token}, created_at = ${now},
                response_status = ${null}, response_headers = ${null}, response_body = ${null}
              where ${where} and (created_at < ${limits.expiredBefore} or (response_status is null and created_at < ${limits.abandonedBefore}))
              returning token`
            if (taken.length > 0) return { kind: "new" } as const
            const rows = yield* sql`select fingerprint, response_status, response_headers, response_body from idempotency_keys where ${where}`
            const row = rows[0] as { fingerprint: string; response_status: unknown; response_headers: unknown; response_body: unknown } | undefined
            if (!row) {
              if (attempt < 3) continue
              return { kind: "in_progress" } as const
            }
            if (row.fingerprint !== fingerprint) return { kind: "mismatch" } as const
            if (row.response_status === null || row.response_status === undefined) return { kind: "in_progress" } as const
            return {
              kind: "replay",
              response: {
                status: Number(row.response_status),
                headers: parse<Record<string, string>>(row.response_headers) ?? {},
                body: row.response_body === null || row.response_body === undefined ? null : String(row.response_body)
              }
            } as const
          }
        })),
      complete: (accountId, key, token, response) =>
        affected(sql`update idempotency_keys set response_status = ${response.status}, response_headers = ${json(response.headers)},
            response_body = ${response.body}
          where account_id = ${accountId} and idempotency_key = ${key} and token = ${token} and response_status is null
          returning token`),
      release: (accountId, key, token) =>
        affected(sql`delete from idempotency_keys
          where account_id = ${accountId} and idempotency_key = ${key} and token = ${token} and response_status is null
          returning token`),
      purge: (before, limit) =>
        orStorage(Effect.map(sql`delete from idempotency_keys where created_at < ${before} and (account_id, idempotency_key) in (
            select account_id, idempotency_key from idempotency_keys where created_at < ${before} order by created_at limit ${limit} ${skipLocked})
          returning token`, (rows) => rows.length))
    },

    requests: {
      meter: (accountId, period, decide) =>
        storage.transaction(orStorage(Effect.gen(function*() {
          // Plan and bucket, the bucket row locked on PostgreSQL (SQLite's BEGIN IMMEDIATE already
          // holds the write lock). An account's first request finds no bucket row: it is created
          // (only for an existing account) and read again, so that there is a row to lock.
          const read = () => dialect === "pg"
            ? sql`select a.plan, r.state from accounts a join rate_limits r on r.account_id = a.id where a.id = ${accountId} for update of r`
            : sql`select a.plan, r.state from accounts a join rate_limits r on r.account_id = a.id where a.id = ${accountId}`
          let rows = yield* read()
          if (rows.length === 0) {
            yield* sql`insert into rate_limits (account_id, state) select id, ${null} from accounts where id = ${accountId}
                       on conflict (account_id) do nothing`
            rows = yield* read()
          }
          const row = rows[0] as { plan: Plan; state: unknown } | undefined
          if (!row) return undefined
          const step = decide(row.plan, parse<RateLimitState | null>(row.state) ?? undefined)
          const save = sql`update rate_limits set state = ${json(step.state)} where account_id = ${accountId}`
          const counter = step.count
            ? sql`insert into usage_counters (account_id, period, metric, value) values (${accountId}, ${period}, 'api_requests', 1)
                  on conflict (account_id, period, metric) do update set value = usage_counters.value + 1 returning value`
            : sql`select value from usage_counters where account_id = ${accountId} and period = ${period} and metric = 'api_requests'`
          // PostgreSQL saves the bucket and counts in one round trip (a data-modifying CTE).
          const counted = dialect === "pg"
            ? yield* sql`with saved as (${save}) ${counter}`
            : yield* Effect.andThen(save, counter)
          return { result: step.result, count: Number((counted[0] as { value?: unknown } | undefined)?.value ?? 0) }
        })))
    }
  }
  return storage
})

/** The storage layer over the `SqlClient` in context. */
export const layer: Layer.Layer<S.Storage, never, SqlClient.SqlClient> = Layer.effect(S.Storage, make)
