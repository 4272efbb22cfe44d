/**
 * The SQL schema of `SqlStorage`, as one set of versioned migrations for every dialect: the few
 * type names that differ (floating point, 64-bit integers, byte-wise collation) are the only
 * branches, so SQLite and PostgreSQL cannot drift apart. Conventions: ISO text timestamps,
 * epoch-ms integers for scheduling, JSON as text, booleans as 0/1.
 */
import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"

interface Types {
  /** Double-precision floating point. */
  readonly float: string
  /** A 64-bit integer (epoch milliseconds, counters). */
  readonly bigint: string
  /** Text compared byte by byte, as SQLite does by default. */
  readonly bytewise: string
}

const ddl = (statements: (t: Types) => ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const types = sql.onDialectOrElse({
      pg: (): Types => ({ float: "double precision", bigint: "bigint", bytewise: "text collate \"C\"" }),
      orElse: (): Types => ({ float: "real", bigint: "integer", bytewise: "text" })
    })
    for (const s of statements(types)) yield* sql.unsafe(s)
  })

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
  ])
}

/** Applies pending migrations (under PostgreSQL's table lock, or SQLite's write lock); returns what ran. */
export const run = Migrator.make({})({ loader: Migrator.fromRecord(migrations) })
