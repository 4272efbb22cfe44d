/**
 * The SQL schema of `SqlStorage`, as one set of versioned migrations for every dialect, so SQLite
 * and PostgreSQL cannot drift apart. What differs is named where it differs: three type names
 * (floating point, 64-bit integers, byte-wise collation, through `Types`), and the engine's own
 * machinery for the same behaviour — triggers (row triggers on SQLite, statement triggers over
 * transition tables on PostgreSQL), text search (FTS5 trigram tables vs `pg_trgm` indexes), the
 * spatial index (an R*Tree vs a GiST index) and the zoom grid's triggers. Conventions: ISO text
 * timestamps, epoch-ms integers for scheduling, JSON as text, booleans as 0/1.
 */
import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import * as Lifecycle from "../Lifecycle.ts"
import { boundaryKey } from "../Overlap.ts"
import { zoomCells } from "./zoomCells.ts"

interface Types {
  /** Double-precision floating point. */
  readonly float: string
  /** A 64-bit integer (epoch milliseconds, counters). */
  readonly bigint: string
  /** Text compared byte by byte, as SQLite does by default. */
  readonly bytewise: string
}

type Dialect = "pg" | "sqlite"

const ddl = (statements: (t: Types, dialect: Dialect) => ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const dialect = sql.onDialectOrElse({ pg: (): Dialect => "pg", orElse: (): Dialect => "sqlite" })
    const types: Types = dialect === "pg"
      ? { float: "double precision", bigint: "bigint", bytewise: "text collate \"C\"" }
      : { float: "real", bigint: "integer", bytewise: "text" }
    for (const s of statements(types, dialect)) yield* sql.unsafe(s)
  })

const { statuses } = Lifecycle
/** SQL: whether project row `p` counts (`Lifecycle.counts`). */
const counted = (p: string) => `${p}.status <> '${Lifecycle.UNCOUNTED}'`

/** Hectares as an exact integer count of 1/10,000 ha (1 m²): `area_hectares` carries 4 decimals. */
const areaUnits = (row: string) => `cast(round(${row}.area_hectares * 10000) as bigint)`

/** `SET` assignments moving an account's project totals by `sign` × the row's status and area. */
const projectDelta = (row: string, sign: "+" | "-") =>
  statuses.flatMap((s) => [
    `projects_${s} = projects_${s} ${sign} (case when ${row}.status = '${s}' then 1 else 0 end)`,
    `area_${s} = area_${s} ${sign} (case when ${row}.status = '${s}' then ${areaUnits(row)} else 0 end)`
  ])

/**
 * Row triggers keeping `account_totals` in step with a table, one body per event (statements
 * ending in `;`), as SQLite triggers or as one PL/pgSQL function on PostgreSQL.
 */
const totalsTriggers = (dialect: Dialect, table: string, bodies: { insert: string; delete: string; update?: { columns: string; body: string } }) => {
  if (dialect === "sqlite") {
    return [
      `create trigger ${table}_totals_insert after insert on ${table} begin ${bodies.insert} end`,
      `create trigger ${table}_totals_delete after delete on ${table} begin ${bodies.delete} end`,
      ...(bodies.update ? [`create trigger ${table}_totals_update after update of ${bodies.update.columns} on ${table} begin ${bodies.update.body} end`] : [])
    ]
  }
  const events = `insert or delete${bodies.update ? ` or update of ${bodies.update.columns}` : ""}`
  return [
    `create function ${table}_totals() returns trigger language plpgsql as $body$
     begin
       if tg_op = 'INSERT' then ${bodies.insert}
       elsif tg_op = 'DELETE' then ${bodies.delete}
       ${bodies.update ? `else ${bodies.update.body}` : ""}
       end if;
       return null;
     end $body$`,
    `create trigger ${table}_totals after ${events} on ${table} for each row execute function ${table}_totals()`
  ]
}

/**
 * PostgreSQL keeps project totals with statement-level triggers over transition tables: one update
 * of an account's totals row per statement, however many rows it touched. (Row triggers would
 * write a new version of that row per project, which a bulk insert into one account pays for
 * quadratically within its transaction.)
 */
const projectTotalsPerStatement = (["insert", "update", "delete"] as const).flatMap((event) => {
  const changes = [
    ...(event === "delete" ? [] : ["select account_id, status, area_hectares, 1 as sign from new_rows"]),
    ...(event === "insert" ? [] : ["select account_id, status, area_hectares, -1 as sign from old_rows"])
  ].join(" union all ")
  const sums = statuses.flatMap((s) => [
    `coalesce(sum(sign) filter (where status = '${s}'), 0) as projects_${s}`,
    `coalesce(sum(sign * ${areaUnits("c")}) filter (where status = '${s}'), 0) as area_${s}`
  ]).join(", ")
  const set = statuses.flatMap((s) => [`projects_${s} = t.projects_${s} + d.projects_${s}`, `area_${s} = t.area_${s} + d.area_${s}`]).join(", ")
  const tables = event === "insert" ? "new table as new_rows" : event === "delete" ? "old table as old_rows" : "old table as old_rows new table as new_rows"
  return [
    `create function projects_totals_${event}() returns trigger language plpgsql as $body$
     begin
       update account_totals t set ${set}
       from (select account_id, ${sums} from (${changes}) c group by account_id) d
       where t.account_id = d.account_id;
       return null;
     end $body$`,
    `create trigger projects_totals_${event} after ${event} on projects referencing ${tables}
     for each statement execute function projects_totals_${event}()`
  ]
})

/** A trigram index over `search_text` and the triggers keeping it in step (SQLite FTS5). */
const ftsTable = (table: string) => [
  `create virtual table ${table}_fts using fts5(search_text, content='${table}', content_rowid='rowid', tokenize='trigram')`,
  `create trigger ${table}_fts_insert after insert on ${table} begin
     insert into ${table}_fts (rowid, search_text) values (new.rowid, new.search_text); end`,
  `create trigger ${table}_fts_delete after delete on ${table} begin
     insert into ${table}_fts (${table}_fts, rowid, search_text) values ('delete', old.rowid, old.search_text); end`,
  `create trigger ${table}_fts_update after update of search_text on ${table} begin
     insert into ${table}_fts (${table}_fts, rowid, search_text) values ('delete', old.rowid, old.search_text);
     insert into ${table}_fts (rowid, search_text) values (new.rowid, new.search_text); end`,
  `insert into ${table}_fts (${table}_fts) values ('rebuild')`
]

/**
 * The scale migration: running per-account totals kept by triggers in the same transaction as
 * every write (and backfilled here), trigram search indexes, and indexes whose order matches every
 * list's sort including its tie-break (keyset pagination), with and without a status filter.
 */
const scale = ddl((t, dialect) => [
  `create table account_totals (
    account_id text primary key references accounts(id) on delete cascade,
    ${statuses.map((s) => `projects_${s} ${t.bigint} not null default 0, area_${s} ${t.bigint} not null default 0`).join(", ")},
    members ${t.bigint} not null default 0, webhooks ${t.bigint} not null default 0)`,
  `insert into account_totals (account_id) select id from accounts`,
  `update account_totals set
    ${
    statuses.map((s) =>
      `projects_${s} = (select count(*) from projects p where p.account_id = account_totals.account_id and p.status = '${s}'),
      area_${s} = (select coalesce(sum(${areaUnits("p")}), 0) from projects p where p.account_id = account_totals.account_id and p.status = '${s}')`
    ).join(",\n")
  },
    members = (select count(*) from members m where m.account_id = account_totals.account_id),
    webhooks = (select count(*) from webhooks w where w.account_id = account_totals.account_id)`,
  ...totalsTriggers(dialect, "accounts", {
    insert: "insert into account_totals (account_id) values (new.id);",
    delete: "delete from account_totals where account_id = old.id;"
  }),
  ...(dialect === "sqlite"
    ? totalsTriggers(dialect, "projects", {
      insert: `update account_totals set ${projectDelta("new", "+").join(", ")} where account_id = new.account_id;`,
      delete: `update account_totals set ${projectDelta("old", "-").join(", ")} where account_id = old.account_id;`,
      update: {
        columns: "status, area_hectares",
        body: `update account_totals set ${projectDelta("old", "-").join(", ")} where account_id = old.account_id;
               update account_totals set ${projectDelta("new", "+").join(", ")} where account_id = new.account_id;`
      }
    })
    : projectTotalsPerStatement),
  ...(["members", "webhooks"] as const).flatMap((table) =>
    totalsTriggers(dialect, table, {
      insert: `update account_totals set ${table} = ${table} + 1 where account_id = new.account_id;`,
      delete: `update account_totals set ${table} = ${table} - 1 where account_id = old.account_id;`
    })
  ),
  `drop index projects_stats`,
  ...["created_at", "sort_name", "area_hectares"].map((column) => `create index projects_by_status_${column} on projects (account_id, status, ${column}, id)`),
  `create index events_by_type on events (account_id, type, created_at, id)`,
  ...(dialect === "sqlite"
    ? [...ftsTable("projects"), ...ftsTable("assets")]
    : [
      `create extension if not exists pg_trgm`,
      `create extension if not exists btree_gin`,
      `create index projects_search on projects using gin (account_id, search_text gin_trgm_ops)`,
      `create index assets_search on assets using gin (account_id, project_id, search_text gin_trgm_ops)`
    ])
])

/**
 * A spatial index over project bounding boxes (the `bbox` filter of the project list, and the
 * candidates of overlap detection), and each account's overlap policy.
 *
 * SQLite: an R*Tree over five dimensions — west/east, south/north, the account (its rowid, so
 * one account's query never walks another's boxes), and whether the project counts toward usage
 * (not archived) — kept by triggers. R*Tree coordinates are 32-bit floats rounded outward, so
 * queries re-check the exact box. PostgreSQL: a GiST index over (account, status, box), the box
 * from the stored bbox through an immutable function (`btree_gist` for the scalar columns).
 */
const spatial = ddl((_t, dialect) => [
  `alter table accounts add column overlap_policy text not null default 'warn'`,
  ...(dialect === "sqlite"
    ? [
      `create virtual table projects_rtree using rtree(id, west, east, south, north, account_lo, account_hi, counted_lo, counted_hi)`,
      ...[
        ["insert", "insert", ""],
        ["update", "update of bbox, status, account_id", `delete from projects_rtree where id = old.rowid;`]
      ].map(([name, event, before]) =>
        `create trigger projects_rtree_${name} after ${event} on projects begin
         ${before}
         insert into projects_rtree
           select new.rowid, ${rtreeColumns("new", "a")} from accounts a where a.id = new.account_id and new.bbox is not null;
       end`
      ),
      `create trigger projects_rtree_delete after delete on projects begin delete from projects_rtree where id = old.rowid; end`,
      `insert into projects_rtree select p.rowid, ${rtreeColumns("p", "a")} from projects p join accounts a on a.id = p.account_id where p.bbox is not null`
    ]
    : [
      `create extension if not exists btree_gist`,
      `create function projects_box(bbox text) returns box language sql immutable parallel safe as $$
         select box(point((bbox::json->>0)::float8, (bbox::json->>1)::float8), point((bbox::json->>2)::float8, (bbox::json->>3)::float8))
       $$`,
      `create index projects_spatial on projects using gist (account_id, status, projects_box(bbox)) where bbox is not null`
    ])
])

/** The R*Tree's columns after the id, for project row `p` of account row `a`. */
const rtreeColumns = (p: string, a: string) =>
  `json_extract(${p}.bbox, '$[0]'), json_extract(${p}.bbox, '$[2]'), json_extract(${p}.bbox, '$[1]'), json_extract(${p}.bbox, '$[3]'),
   ${a}.rowid, ${a}.rowid, ${counted(p)}, ${counted(p)}`

/** The tables whose rows hold a boundary's text, in the column `geometry`. */
export const BOUNDARY_TABLES = ["projects", "boundary_versions"] as const

/**
 * SQLite: the boundary's text in the last column of its row. SQLite stores a row's values in
 * column order, and a value longer than what fits on the row's page goes on in a chain of overflow
 * pages: reading any column stored after it walks that chain (behind a 3.5 MB boundary, 1.3 ms a
 * row against 28 µs with the boundary last). Overlap candidates, project pages listed without
 * boundaries and boundary history summaries read only the columns before it now. The column moves by
 * a new last column, filled, the old one dropped (SQLite rewrites each row) and the new one
 * renamed: rowids stay (the full-text and spatial indexes refer to them) and no table is dropped,
 * so no foreign key fires. PostgreSQL stores a long value out of line (TOAST): nothing to do.
 */
const boundariesLast = ddl((_t, dialect) =>
  dialect === "sqlite"
    ? BOUNDARY_TABLES.flatMap((table) => [
      `alter table ${table} add column geometry_last text`,
      `update ${table} set geometry_last = geometry, geometry = null where geometry is not null`,
      `alter table ${table} drop column geometry`,
      `alter table ${table} rename column geometry_last to geometry`
    ])
    : []
)

/** PostgreSQL's columns that hold a boundary's text, whole or inside a resource (table, column). */
export const UNCOMPRESSED_COLUMNS = [
  ["projects", "geometry"],
  ["boundary_versions", "geometry"],
  ["events", "payload"],
  ["idempotency_keys", "response_body"]
] as const

/**
 * PostgreSQL: a boundary's text stored out of line uncompressed (`storage external`). By default
 * PostgreSQL compresses a value past 2 kB with pglz before storing it out of line, and a create
 * writes a boundary's text two or three times (the project, its event, a replayed response), under
 * the account's lock: an insert of a 1,000-position boundary (40.6 kB) took 2.65 ms compressed
 * (to 20 kB) and 0.69 ms uncompressed (`npm run bench -- boundary-storage`), on disk 2.0× the
 * compressed size; a read no longer decompresses. The setting applies to values written from then
 * on; SQLite never compresses.
 */
const boundariesUncompressed = ddl((_t, dialect) =>
  dialect === "sqlite" ? [] : UNCOMPRESSED_COLUMNS.map(([table, column]) => `alter table ${table} alter column ${column} set storage external`)
)

/** Every migration, by `<id>_<name>`. */
export const migrations = {
  "1_initial": ddl((t) => [
    `create table accounts (
      id text primary key, name text not null, slug text not null, plan text not null,
      created_at text not null, updated_at text not null)`,
    `create table members (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      email text not null, name text, role text not null, status text not null, password_hash text,
      joined_at text, last_active_at text, created_at text not null, updated_at text not null,
      unique (account_id, email))`,
    `create index members_by_account on members (account_id, created_at, id)`,
    `create table invitations (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      user_id text not null, token_hash text not null unique, expires_at text not null, accepted_at text,
      created_at text not null)`,
    `create table projects (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      name text not null, slug text not null, description text, geometry text, area_hectares ${t.float} not null,
      bbox text, status text not null, created_by text, sort_name ${t.bytewise} not null, search_text text not null,
      created_at text not null, updated_at text not null, unique (account_id, slug))`,
    `create index projects_by_created on projects (account_id, created_at, id)`,
    `create index projects_by_name on projects (account_id, sort_name, id)`,
    `create index projects_by_area on projects (account_id, area_hectares, id)`,
    `create table assets (
      id text primary key, account_id text not null,
      project_id text not null references projects(id) on delete cascade,
      name text not null, type text not null, location text, status text not null, metadata text not null,
      search_text text not null, created_at text not null, updated_at text not null)`,
    `create index assets_by_project on assets (account_id, project_id, created_at, id)`,
    `create table webhooks (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      url text not null, events text not null, description text, secret text not null, enabled integer not null,
      disabled_reason text, disabled_at text, created_at text not null, updated_at text not null)`,
    `create index webhooks_by_account on webhooks (account_id, created_at, id)`,
    `create table events (
      id text primary key, account_id text not null, type text not null, payload text not null, created_at text not null)`,
    `create index events_by_account on events (account_id, created_at, id)`,
    `create table deliveries (
      id text primary key, account_id text not null, event_id text not null references events(id) on delete cascade,
      webhook_id text not null, status text not null, attempts integer not null, next_attempt_at ${t.bigint},
      lease_owner text, lease_expires_at ${t.bigint}, created_at text not null, updated_at text not null)`,
    `create index deliveries_due on deliveries (status, next_attempt_at)`,
    `create index deliveries_by_event on deliveries (account_id, event_id)`,
    `create index deliveries_by_webhook on deliveries (webhook_id, status)`,
    `create table delivery_logs (
      id text primary key, account_id text not null, webhook_id text not null, delivery_id text not null,
      event_id text not null, event_type text not null, attempt integer not null, status text not null,
      response_code integer, response_time_ms integer, error text, error_class text, delivered_at text,
      next_retry_at text, created_at text not null)`,
    `create index delivery_logs_by_webhook on delivery_logs (account_id, webhook_id, created_at, id)`,
    `create table credentials (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      kind text not null, name text not null, permissions text not null, token_hash text not null unique,
      token_hint text not null, ip_allowlist text, created_by text, created_at text not null,
      last_used_at text, revoked_at text)`,
    `create index credentials_by_account on credentials (account_id, kind, created_at, id)`,
    `create table usage_counters (
      account_id text not null, period text not null, metric text not null, value ${t.bigint} not null,
      primary key (account_id, period, metric))`,
    `create table usage_alerts (
      account_id text not null, period text not null, metric text not null, threshold integer not null,
      primary key (account_id, period, metric, threshold))`,
    `create table rate_limits (account_id text primary key, state text)`
  ]),
  // Usage figures read every project's status and area: cover them with an index.
  "2_project_stats_index": ddl(() => [
    `create index projects_stats on projects (account_id, status, area_hectares)`
  ]),
  // Webhook health, for disabling an endpoint that has only failed for days.
  "3_webhook_health": ddl(() => [
    `alter table webhooks add column consecutive_failures integer not null default 0`,
    `alter table webhooks add column failing_since text`
  ]),
  // OAuth 2.0: applications, authorization codes, access and refresh tokens (all secrets by hash).
  "4_oauth": ddl((t) => [
    `create table oauth_clients (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      name text not null, redirect_uris text not null, scopes text not null, confidential integer not null,
      secret_hash text, created_at text not null, updated_at text not null)`,
    `create index oauth_clients_by_account on oauth_clients (account_id, created_at, id)`,
    `create table oauth_codes (
      code_hash text primary key, client_id text not null, account_id text not null, user_id text not null,
      redirect_uri text not null, scopes text not null, code_challenge text, expires_at ${t.bigint} not null,
      used_at ${t.bigint}, created_at text not null)`,
    `create table oauth_tokens (
      id text primary key, token_hash text not null unique, kind text not null, client_id text not null,
      account_id text not null, user_id text not null, scopes text not null, family_id text not null,
      expires_at ${t.bigint}, rotated_at ${t.bigint}, revoked_at ${t.bigint}, last_used_at ${t.bigint} not null,
      created_at text not null)`,
    `create index oauth_tokens_by_family on oauth_tokens (family_id)`
  ]),
  // Web sessions of signed-in members (account pages, OAuth consent).
  "5_sessions": ddl((t) => [
    `create table sessions (
      token_hash text primary key, account_id text not null, user_id text not null, csrf text not null,
      expires_at ${t.bigint} not null, created_at text not null)`
  ]),
  "6_scale": scale,
  // Maintenance of sign-in state: when each rate-limit bucket was last used (buckets kept by
  // metering leave it null), and indexes so that purging idle buckets and expired sessions costs
  // what it deletes, not a scan.
  "7_sign_in_maintenance": ddl((t) => [
    `alter table rate_limits add column touched_at ${t.bigint}`,
    `create index rate_limits_by_use on rate_limits (touched_at)`,
    `create index sessions_by_expiry on sessions (expires_at)`
  ]),
  // Delivery logs are purged after 30 days in bounded batches, oldest first.
  "8_delivery_log_retention": ddl(() => [
    `create index delivery_logs_by_age on delivery_logs (created_at)`
  ]),
  // Idempotency keys of POST requests, per account: the claim (fingerprint, token, time) and,
  // once completed, the response to replay. Purged 24 h after the claim, oldest first.
  "9_idempotency": ddl((t) => [
    `create table idempotency_keys (
      account_id text not null, idempotency_key text not null, fingerprint text not null, token text not null,
      created_at ${t.bigint} not null, response_status integer, response_headers text, response_body text,
      primary key (account_id, idempotency_key))`,
    `create index idempotency_keys_by_age on idempotency_keys (created_at)`
  ]),
  // Browser origins a public OAuth application's pages call from (CORS), as a JSON list.
  "10_oauth_allowed_origins": ddl(() => [
    `alter table oauth_clients add column allowed_origins text not null default '[]'`
  ]),
  "11_spatial_index": spatial,
  // PostgreSQL: trigram indexes over the text alone, beside the per-account ones. In an account
  // that holds most of the table, the account's entry in the combined GIN index lists every row
  // and dominates the scan (100,000 projects: 516 index pages, 8.8 ms for a term in 1% of names;
  // 25 pages, 1.0 ms on the text alone, the account then checked on the rows the search rechecks
  // anyway). The planner picks per query: a small account among many keeps the combined index.
  "12_search_text_index": ddl((_, dialect) =>
    dialect === "sqlite" ? [] : [
      `create index projects_search_text on projects using gin (search_text gin_trgm_ops)`,
      `create index assets_search_text on assets using gin (search_text gin_trgm_ops)`
    ]
  ),
  // Boundary history: each change of a project's boundary as a numbered version, read newest
  // first by its key; removed with the project.
  "13_boundary_history": ddl((t) => [
    `create table boundary_versions (
      account_id text not null, project_id text not null references projects(id) on delete cascade,
      version integer not null, geometry text, bbox text,
      area_hectares_before ${t.float} not null, area_hectares_after ${t.float} not null,
      via text not null, file_format text, restored_from integer,
      actor_kind text, user_id text, credential_id text, created_at text not null,
      primary key (account_id, project_id, version))`,
    `create index boundary_versions_by_project on boundary_versions (project_id)`
  ]),
  // Bulk imports: the job (its progress and lease) and one result per feature of its file, read
  // in file order by their key; running imports found by account, and by lease when one expires.
  "14_imports": ddl((t) => [
    `create table imports (
      id text primary key, account_id text not null, created_by text, status text not null, mode text not null,
      dry_run integer not null, file_name text, format text, source_crs text,
      features integer not null, done integer not null, created integer not null, refused integer not null,
      hectares ${t.float} not null, error text, lease_until ${t.bigint} not null,
      created_at text not null, updated_at text not null, completed_at text)`,
    `create index imports_by_status on imports (account_id, status)`,
    `create index imports_by_lease on imports (status, lease_until)`,
    `create table import_results (
      import_id text not null, account_id text not null, position integer not null, label text not null,
      outcome text not null, name text, project_id text, area_hectares ${t.float}, problems text not null,
      primary key (import_id, position))`
  ]),
  // Event retention: events are purged oldest first by their time, each once none of its
  // deliveries is pending (found, and then deleted, by the deliveries' event).
  "15_event_retention": ddl(() => [
    `create index events_by_time on events (created_at)`,
    `create index deliveries_of_event on deliveries (event_id, status)`
  ]),
  // Each project's boundary key (`Overlap.boundaryKey`, SHA-256 of its text), so that a write finds
  // the neighbours storing its very boundary by a 64-character column rather than their texts.
  // Existing boundaries are keyed here, 500 projects at a time in id order (by the primary key).
  "16_boundary_keys": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`alter table projects add column boundary_key text`)
    for (let after = "";;) {
      const rows = yield* sql<{ id: string; geometry: string | null }>`select id, geometry from projects where id > ${after} order by id limit 500`
      if (rows.length === 0) break
      for (const r of rows) {
        if (r.geometry !== null) yield* sql`update projects set boundary_key = ${boundaryKey(String(r.geometry))} where id = ${r.id}`
      }
      after = String(rows[rows.length - 1]!.id)
    }
  }),
  "17_zoom_cells": zoomCells,
  // PostgreSQL: an account's write lock and what a write then reads of the account, in one round
  // trip. A function, because each statement of a volatile function sees what committed before it
  // started: a single statement locking the account and joining its totals would answer the totals
  // of its own snapshot, taken before it waited for the lock (stale by the previous holder's write).
  "18_account_lock": ddl((_t, dialect) =>
    dialect === "sqlite" ? [] : [
      `create function lock_account(target text) returns json language plpgsql volatile as $body$
       declare account json; totals json; hooks json;
       begin
         select to_json(a) into account from accounts a where a.id = target for update;
         if account is null then return null; end if;
         select to_json(t) into totals from account_totals t where t.account_id = target;
         select coalesce(json_agg(w order by w.created_at, w.id), '[]'::json) into hooks from webhooks w where w.account_id = target;
         return json_build_object('account', account, 'totals', totals, 'webhooks', hooks);
       end $body$`
    ]
  ),
  // PostgreSQL: the trigram indexes with a short pending list. With GIN's `fastupdate` a write
  // appends its entries to a list that every search reads through, up to `gin_pending_list_limit`
  // (4 MB by default), until an autovacuum or the write that overflows it (paying for all of it)
  // moves them into the index: a search's cost grew with the writes since (`npm run bench --
  // search-index`, 200,000 rows: p50 4.3× after 6,000 writes). At 64 kB (the least allowed) a
  // search reads at most that, and a write that overflows it moves at most that (the longest write
  // 6.3 ms). `fastupdate = off` would keep searches as flat, but each write then logs every index
  // page it touches: 20–46 kB of WAL a write against 1.5–2.8 kB (the soak's `pg_wal` 160 → 352 MB);
  // the 64 kB list logs 6.5–6.9 kB.
  "19_search_short_pending_list": ddl((_t, dialect) =>
    dialect === "sqlite" ? [] : SEARCH_INDEXES.flatMap((index) => [
      // the list moved into the index first: the setting's exclusive lock on the index is then
      // held for a catalog change alone (the next write past 64 kB moves what came meanwhile)
      `select gin_clean_pending_list('${index}'::regclass)`,
      `alter index ${index} set (gin_pending_list_limit = ${SEARCH_PENDING_LIST_KB})`
    ])
  ),
  "20_boundaries_last": boundariesLast,
  "21_boundaries_uncompressed": boundariesUncompressed
}

/** The pending list of PostgreSQL's trigram indexes, in kB (`19_search_short_pending_list`). */
export const SEARCH_PENDING_LIST_KB = 64

/** PostgreSQL's trigram (GIN) indexes: the per-account ones and those over the text alone. */
export const SEARCH_INDEXES = ["projects_search", "assets_search", "projects_search_text", "assets_search_text"] as const

/** Applies pending migrations (under PostgreSQL's table lock, or SQLite's write lock); returns what ran. */
export const run = Migrator.make({})({ loader: Migrator.fromRecord(migrations) })

/** Applies the pending migrations numbered up to `last` only: the schema a database had then (tests and benchmarks of a migration). */
export const runUpTo = (last: number) =>
  Migrator.make({})({
    loader: Migrator.fromRecord(Object.fromEntries(Object.entries(migrations).filter(([key]) => Number(key.split("_")[0]) <= last)))
  })
