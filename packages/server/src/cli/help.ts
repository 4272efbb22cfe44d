/**
 * The help text of every command, in one place: `canopy --help`, `canopy <command> --help` and
 * the usage errors print from here.
 */
import { Permissions, Plans } from "@canopy/core"

export const HELP: Record<string, string> = {
  main: `canopy — forest project management service

Usage: canopy <command> [options]

Commands:
  serve             run the HTTP API (and the webhook delivery loop)
  worker            run only the webhook delivery loop
  init              create an account, its owner and an admin API key
  owner             issue a new set-password link for a locked-out owner
  keys              create, list or revoke API keys
  service-tokens    create, list or revoke service tokens
  account           change an account's plan
  migrate           apply pending database migrations
  backup            copy a live SQLite database to a new file (online backup)

Every command works on the SQLite file --db (default $CANOPY_DB or ./canopy.db), or on PostgreSQL
with --database-url postgres://… (or $DATABASE_URL). Only init, serve and migrate create a missing
SQLite file; the others (worker, owner, keys, service-tokens, account) say "no database at PATH".

Run "canopy <command> --help" for a command's options.`,
  serve: `Usage: canopy serve [--port 8080] [--host 127.0.0.1] [--db ./canopy.db | --database-url URL]
                    [--public-url https://canopy.example.com] [--trusted-proxies 10.0.0.1,10.1.0.0/16]
                    [--allow-insecure-webhooks] [--bootstrap-if-empty [--bootstrap-key-file PATH]] [--email owner@example.com]
                    [--account-name "My Forest Account"] [--no-dispatcher]
                    [--cors-origins https://app.example.com,http://localhost:5173]
                    [--basemap-url https://tile.openstreetmap.org/{z}/{x}/{y}.png] [--pg-pool-size 10]

Serves the v1 API on the SQLite file --db, or on PostgreSQL with --database-url postgres://…
(or DATABASE_URL). --public-url is the address clients use: the OAuth issuer, links in pages and
the session cookie's Secure flag (https) derive from it, never from a request's Host. Without it,
only requests to localhost/127.0.0.1/[::1] get an OAuth issuer and absolute links (development).
A public URL with a path (https://example.com/canopy) also serves Canopy under that path.
--trusted-proxies: proxies whose X-Forwarded-For, -Proto and -Host are believed.
--cors-origins: origins whose browser pages may call the API and the OAuth token endpoint (exact
origins, comma-separated, or *; never with credentials); public OAuth applications add their own.
--pg-pool-size: connections this process's PostgreSQL pool may open (default $CANOPY_PG_POOL_SIZE
or 10); every server and worker has its own pool, so instances × pool size must stay under
PostgreSQL's max_connections less its reserve (or put PgBouncer in between).
Environment: PORT, HOST, CANOPY_DB, DATABASE_URL, CANOPY_PG_POOL_SIZE, CANOPY_PUBLIC_URL, CANOPY_TRUSTED_PROXIES, CANOPY_CORS_ORIGINS,
CANOPY_ALLOW_INSECURE_WEBHOOKS=1, CANOPY_STACK_TRACES=1 (capture stack traces, for debugging; never
logged), CANOPY_GEOMETRY_WORKERS (threads validating large boundaries; default: CPUs - 1),
CANOPY_GEOMETRY_BUDGET_MS (most time one boundary may take, default 1500; over it, a 422). With
--bootstrap-if-empty, an empty database gets an account (--account-name, or CANOPY_ACCOUNT_NAME;
default "My Forest Account"), an owner (--email, or CANOPY_OWNER_EMAIL; default owner@example.com)
and an admin key. The key is written to a new file only this user can read (mode 0600):
--bootstrap-key-file, or CANOPY_BOOTSTRAP_KEY_FILE, default canopy-admin-key next to the SQLite
file (PostgreSQL: in the working directory); it is shown on stderr only when stderr is a terminal,
so a service manager's log holds the file's path, never the key. The owner's set-password link
is printed (on the public URL, else on the address listened at). SIGTERM/SIGINT finish in-flight requests, then exit. A port in use or an
address it may not listen on: one line, exit 1.`,
  worker: `Usage: canopy worker [--db ./canopy.db | --database-url URL] [--allow-insecure-webhooks]
                     [--concurrency 64] [--per-endpoint 4] [--pg-pool-size 10]

Delivers webhooks without serving HTTP, so delivery can scale apart from the API. Any number of
workers (and servers) may share a database: deliveries are claimed under a lease, so no attempt is
sent twice at once, and a crashed worker's deliveries are picked up when its lease expires. The
SQLite file must exist (canopy init, serve or migrate create it). --pg-pool-size (or
CANOPY_PG_POOL_SIZE): connections this worker's PostgreSQL pool may open, default 10.`,
  init: `Usage: canopy init [--db FILE | --database-url URL] --email EMAIL [--name NAME] [--account-name NAME]
                   [--plan ${Plans.plans.join("|")}] [--public-url URL] [--json]

Creates an account, its owner and an admin API key, and prints them with the owner's one-time
set-password link, on --public-url (or CANOPY_PUBLIC_URL; else http://HOST:PORT from the
environment, default http://127.0.0.1:8080). With --json, prints exactly
{ "account_id", "user_id", "api_key", "set_password_url" }.`,
  owner: `Usage: canopy owner reset-password [--email EMAIL] [--account ID] [--db FILE | --database-url URL]
                                   [--public-url URL] [--json]

Prints a new one-time set-password link for an owner who cannot sign in (the first link expired
or was lost, or the password is forgotten); it is valid for 7 days, and using it sets the
password. --email picks the owner when the account has several; --account, the account when the
database holds several. Links are built like init's (--public-url or CANOPY_PUBLIC_URL). The
SQLite file must exist.`,
  keys: `Usage: canopy keys create --name NAME --permissions p1,p2 [--account ID] [--db FILE] [--json]
       canopy keys list [--account ID] [--db FILE] [--json]
       canopy keys revoke ID [--account ID] [--db FILE]

Permissions: ${Permissions.all.join(", ")}.
--account may be left out when the database holds one account. The SQLite file must exist.`,
  "service-tokens": `Usage: canopy service-tokens create --name NAME --permissions p1,p2 [--ip-allowlist 10.0.0.0/8,1.2.3.4]
                                   [--account ID] [--db FILE] [--json]
       canopy service-tokens list [--account ID] [--db FILE] [--json]
       canopy service-tokens revoke ID [--account ID] [--db FILE]`,
  account: `Usage: canopy account set-plan ${Plans.plans.join("|")} [--account ID] [--db FILE] [--json]

Changes the plan and emits subscription.updated. The SQLite file must exist.`,
  migrate: `Usage: canopy migrate [--db FILE | --database-url URL] [--json]

Applies pending migrations to the SQLite file --db, or to PostgreSQL with --database-url
postgres://… (or DATABASE_URL), and prints what ran.`,
  backup: `Usage: canopy backup --to FILE [--db FILE] [--json]

Copies the SQLite database --db to a new file with SQLite's online backup API: consistent while
servers keep writing, nothing stopped. Never overwrites a file; checks the copy's integrity.
Restore by stopping the servers and putting the copy in the database's place (PostgreSQL: use
pg_dump).`
}
