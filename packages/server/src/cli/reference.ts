/**
 * The `canopy` command line as data: every command, what it does, the flags its parser accepts
 * (with their defaults and environment variables) and the environment it reads. The parsers take
 * their options from here (`optionsOf`), `--help` is rendered from here, and so is docs/cli.md
 * (`npm run docs:cli`), so the three cannot disagree.
 */
import { Permissions, Plans, Settings } from "@canopy/core"

/** A flag: `--name VALUE` (a string) or `--name` (a boolean, false unless given). */
export interface Flag {
  readonly name: string
  readonly type: "string" | "boolean"
  /** The value's placeholder in the synopsis (strings only). */
  readonly value?: string
  readonly short?: string
  readonly description: string
  /** What applies when neither the flag nor its variable is given. */
  readonly default?: string
  /** The environment variable read when the flag is absent. */
  readonly env?: string
}

/** An environment variable read without a flag of its own. */
export interface EnvironmentVariable {
  readonly name: string
  readonly description: string
  readonly default?: string
}

/** A command: its one-line summary, synopsis lines, description, flags and environment. */
export interface Command {
  readonly name: string
  readonly summary: string
  /** Synopsis lines after `canopy `: subcommands, positional arguments and required flags. */
  readonly usage: ReadonlyArray<string>
  readonly description: ReadonlyArray<string>
  readonly flags: ReadonlyArray<Flag>
  readonly environment: ReadonlyArray<EnvironmentVariable>
}

const help = { name: "help", type: "boolean", short: "h", description: "Print this help and exit." } as const
const db = { name: "db", type: "string", value: "FILE", description: "The SQLite database file.", default: "./canopy.db", env: "CANOPY_DB" } as const
const databaseUrl = {
  name: "database-url",
  type: "string",
  value: "URL",
  description: "Work on PostgreSQL (postgres://…) instead of the SQLite file.",
  env: "DATABASE_URL"
} as const
const existingDb = { ...db, description: "The SQLite database file; it must exist (init, serve and migrate create one)." } as const
const account = { name: "account", type: "string", value: "ID",
  description: "The account to act on; may be left out when the database holds one account." } as const
const json = { name: "json", type: "boolean", description: "Print the result as JSON." } as const
const pgPoolSize = {
  name: "pg-pool-size",
  type: "string",
  value: "N",
  default: "10",
  env: "CANOPY_PG_POOL_SIZE",
  description: "Connections this process's PostgreSQL pool may open. Every server and worker has its own pool, so instances × pool size must " +
    "stay under PostgreSQL's max_connections less its reserve (or put PgBouncer in between)."
} as const
const insecureWebhooks = {
  name: "allow-insecure-webhooks",
  type: "boolean",
  env: "CANOPY_ALLOW_INSECURE_WEBHOOKS",
  description: "Deliver webhooks to http:// and private or loopback addresses (development only; the variable: 1)."
} as const
const linkPublicUrl = {
  name: "public-url",
  type: "string",
  value: "URL",
  env: "CANOPY_PUBLIC_URL",
  default: "http://HOST:PORT from the environment, else http://127.0.0.1:8080",
  description: "The address the printed set-password link starts with."
} as const
const delivery = [
  {
    name: "CANOPY_DELIVERY_LEASE_MS",
    description: "How long a claimed delivery stays with its process before another may take it over.",
    default: String(Settings.defaults.deliveryLeaseMs)
  },
  { name: "CANOPY_DELIVERY_TIMEOUT_MS", description: "How long a webhook endpoint has to answer.", default: String(Settings.defaults.deliveryTimeoutMs) }
] as const satisfies ReadonlyArray<EnvironmentVariable>
const linkEnvironment = [
  { name: "HOST", description: "With PORT, where the printed link points when no public URL is given.", default: "127.0.0.1" },
  { name: "PORT", description: "See HOST.", default: "8080" }
] as const

/** Every command, in the order `canopy --help` lists them. */
export const COMMANDS = [
  {
    name: "serve",
    summary: "run the HTTP API (and the webhook delivery loop)",
    usage: ["serve [options]"],
    description: [
      "Serves the v1 API, the dashboard and the docs on the SQLite file --db, or on PostgreSQL with --database-url. SIGTERM or SIGINT finish the requests in flight, then exit. A port in use or an address it may not listen on: one line, exit 1.",
      "--public-url is the address clients use: the OAuth issuer, links in pages and the session cookie's Secure flag (https) derive from it, never from a request's Host. Without it, only requests to localhost, 127.0.0.1 or [::1] get an OAuth issuer and absolute links (development). A public URL with a path (https://example.com/canopy) serves Canopy under that path.",
      "With --bootstrap-if-empty, an empty database gets an account, its owner and an admin API key. The key is written to a new file only this user can read (mode 0600), and the owner's one-time set-password link to canopy-owner-link in the same directory, also 0600. Both are shown on stderr only when stderr is a terminal, so a service manager's log holds the files' paths, never the key or the link."
    ],
    flags: [
      { name: "port", type: "string", value: "N", description: "The port to listen on (0: any free port).", default: "8080", env: "PORT" },
      { name: "host", type: "string", value: "ADDRESS", description: "The address to listen on (0.0.0.0 or :: for every interface).", default: "127.0.0.1",
        env: "HOST" },
      db,
      databaseUrl,
      pgPoolSize,
      { name: "public-url", type: "string", value: "URL", description: "The address clients use, such as https://canopy.example.com (see above).",
        env: "CANOPY_PUBLIC_URL" },
      {
        name: "trusted-proxies",
        type: "string",
        value: "LIST",
        env: "CANOPY_TRUSTED_PROXIES",
        description: "Proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For, -Proto and -Host are believed."
      },
      {
        name: "cors-origins",
        type: "string",
        value: "LIST",
        env: "CANOPY_CORS_ORIGINS",
        description:
          "Origins whose browser pages may call the API and the OAuth token endpoint: exact origins, comma-separated, or *; never with credentials. Public OAuth applications add their own."
      },
      {
        name: "basemap-url",
        type: "string",
        value: "TEMPLATE",
        env: "CANOPY_BASEMAP_URL",
        default: "none (boundaries on a plain background)",
        description: "The dashboard map's raster tiles, an http(s) template with {z}, {x} and {y}, such as https://tile.openstreetmap.org/{z}/{x}/{y}.png."
      },
      insecureWebhooks,
      { name: "no-dispatcher", type: "boolean", description: "Do not deliver webhooks from this process (run canopy worker for them instead)." },
      { name: "bootstrap-if-empty", type: "boolean", description: "On an empty database, create an account, its owner and an admin API key (see above)." },
      {
        name: "bootstrap-key-file",
        type: "string",
        value: "PATH",
        env: "CANOPY_BOOTSTRAP_KEY_FILE",
        default: "canopy-admin-key next to the SQLite file (PostgreSQL: in the working directory)",
        description: "Where --bootstrap-if-empty writes the admin key (a file already there is replaced)."
      },
      { name: "email", type: "string", value: "EMAIL", description: "The owner's email, with --bootstrap-if-empty.", default: "owner@example.com",
        env: "CANOPY_OWNER_EMAIL" },
      { name: "account-name", type: "string", value: "NAME", description: "The account's name, with --bootstrap-if-empty.", default: "My Forest Account",
        env: "CANOPY_ACCOUNT_NAME" },
      help
    ],
    environment: [
      { name: "CANOPY_BASEMAP_ATTRIBUTION", description: "The attribution the basemap's terms require, shown on the map." },
      { name: "CANOPY_METRICS_TOKEN", description: "The bearer token GET /metrics asks for (Prometheus)." },
      { name: "CANOPY_METRICS", description: "public: GET /metrics without a token. Neither set: no /metrics." },
      { name: "CANOPY_GEOMETRY_WORKERS", description: "Threads validating and measuring large boundaries.", default: "CPUs - 1, at least 1" },
      { name: "CANOPY_GEOMETRY_BUDGET_MS", description: "The most time one boundary may take; over it, a 422.", default: "1500" },
      { name: "CANOPY_EXPORT_MAX_BYTES", description: "The most bytes one list export writes (a positive integer).", default: "268435456 (256 MiB)" },
      { name: "CANOPY_STACK_TRACES", description: "1: capture stack traces, for debugging (never logged nor answered)." },
      ...delivery
    ]
  },
  {
    name: "worker",
    summary: "run only the webhook delivery loop",
    usage: ["worker [options]"],
    description: [
      "Delivers webhooks without serving HTTP, so delivery can scale apart from the API. Any number of workers (and servers) may share a database: deliveries are claimed under a lease, so no attempt is sent twice at once, and a crashed worker's deliveries are picked up when its lease expires. SIGTERM or SIGINT finish the deliveries in flight, then exit."
    ],
    flags: [
      existingDb,
      databaseUrl,
      pgPoolSize,
      insecureWebhooks,
      { name: "concurrency", type: "string", value: "N", description: "Deliveries attempted at once.", default: "64" },
      { name: "per-endpoint", type: "string", value: "N", description: "Deliveries attempted at once to one webhook endpoint.", default: "4" },
      help
    ],
    environment: [...delivery]
  },
  {
    name: "init",
    summary: "create an account, its owner and an admin API key",
    usage: ["init --email EMAIL [options]"],
    description: [
      "Creates an account, its owner and an admin API key, and prints them on stdout with the owner's one-time set-password link (valid for 7 days). The key and the link are shown only then. With --json, prints exactly { \"account_id\", \"user_id\", \"api_key\", \"set_password_url\" }."
    ],
    flags: [
      db,
      databaseUrl,
      { name: "email", type: "string", value: "EMAIL", description: "The owner's email (required)." },
      { name: "name", type: "string", value: "NAME", description: "The owner's name." },
      { name: "account-name", type: "string", value: "NAME", description: "The account's name.", default: "My Forest Account" },
      { name: "plan", type: "string", value: "PLAN", description: `The account's plan: ${Plans.plans.join(", ")}.`, default: "free" },
      linkPublicUrl,
      json,
      help
    ],
    environment: [...linkEnvironment]
  },
  {
    name: "owner",
    summary: "issue a new set-password link for a locked-out owner",
    usage: ["owner reset-password [options]"],
    description: [
      "Prints a new one-time set-password link for an owner who cannot sign in (the first link expired or was lost, or the password is forgotten). It is valid for 7 days, and using it sets the password."
    ],
    flags: [
      existingDb,
      databaseUrl,
      account,
      { name: "email", type: "string", value: "EMAIL", description: "The owner locked out, when the account has several." },
      linkPublicUrl,
      json,
      help
    ],
    environment: [...linkEnvironment]
  },
  {
    name: "keys",
    summary: "create, list or revoke API keys",
    usage: ["keys create --name NAME --permissions LIST [options]", "keys list [options]", "keys revoke ID [options]"],
    description: [
      `Creates an API key (its value is printed only then), lists the keys (without their values) or revokes one. Permissions: ${Permissions.all.join(", ")}.`
    ],
    flags: [
      existingDb,
      databaseUrl,
      account,
      { name: "name", type: "string", value: "NAME", description: "The new key's name (create)." },
      { name: "permissions", type: "string", value: "LIST", description: "The new key's permissions, comma-separated (create)." },
      json,
      help
    ],
    environment: []
  },
  {
    name: "service-tokens",
    summary: "create, list or revoke service tokens",
    usage: ["service-tokens create --name NAME --permissions LIST [options]", "service-tokens list [options]", "service-tokens revoke ID [options]"],
    description: ["Like keys, for service tokens, which may be limited to some addresses."],
    flags: [
      existingDb,
      databaseUrl,
      account,
      { name: "name", type: "string", value: "NAME", description: "The new token's name (create)." },
      { name: "permissions", type: "string", value: "LIST", description: "The new token's permissions, comma-separated (create)." },
      { name: "ip-allowlist", type: "string", value: "LIST", description: "Addresses or CIDR ranges the token may be used from, comma-separated (create)." },
      json,
      help
    ],
    environment: []
  },
  {
    name: "account",
    summary: "change an account's plan",
    usage: [`account set-plan ${Plans.plans.join("|")} [options]`],
    description: ["Changes the account's plan and emits subscription.updated."],
    flags: [existingDb, databaseUrl, account, json, help],
    environment: []
  },
  {
    name: "migrate",
    summary: "apply pending database migrations",
    usage: ["migrate [options]"],
    description: ["Applies pending migrations to the SQLite file --db, or to PostgreSQL with --database-url, and prints what ran."],
    flags: [db, databaseUrl, json, help],
    environment: []
  },
  {
    name: "backup",
    summary: "copy a live SQLite database to a new file (online backup)",
    usage: ["backup --to FILE [options]"],
    description: [
      "Copies the SQLite database --db to a new file with SQLite's online backup API: consistent while servers keep writing, nothing stopped. Never overwrites a file; checks the copy's integrity. Restore by stopping the servers and putting the copy in the database's place."
    ],
    flags: [
      existingDb,
      { ...databaseUrl, description: "Refused: a PostgreSQL database is backed up with pg_dump." },
      { name: "to", type: "string", value: "FILE", description: "The new file (required)." },
      json,
      help
    ],
    environment: []
  }
] as const satisfies ReadonlyArray<Command>

/** What `canopy --help` says besides the command list. */
export const OVERVIEW = [
  "Every command works on the SQLite file --db (default $CANOPY_DB or ./canopy.db), or on PostgreSQL with --database-url postgres://… (or $DATABASE_URL). Only init, serve and migrate create a missing SQLite file; the others say \"no database at PATH\".",
  "Flags come first, then their environment variable, then the default."
] as const

/** Variables every command reads when it works on PostgreSQL. */
export const POSTGRES_ENVIRONMENT: ReadonlyArray<EnvironmentVariable> = [
  { name: "CANOPY_PG_CONNECT_TIMEOUT_MS", description: "How long opening a PostgreSQL connection may take.", default: "5000" },
  { name: "CANOPY_PG_STATEMENT_TIMEOUT_MS", description: "How long one statement may run (a transaction gets three times this).", default: "10000" },
  { name: "CANOPY_PG_PREPARED_STATEMENTS", description: "off (or 0, false): no prepared statements, for PgBouncer in transaction mode.", default: "on" }
]

/** A command's name. */
export type CommandName = (typeof COMMANDS)[number]["name"]

type FlagsOf<N extends CommandName> = Extract<(typeof COMMANDS)[number], { readonly name: N }>["flags"][number]

/** The `parseArgs` options of a command's flags: booleans default to false. */
export type OptionsOf<N extends CommandName> = {
  readonly [F in FlagsOf<N> as F["name"]]: F["type"] extends "boolean" ? { type: "boolean"; default: boolean; short?: string } : { type: "string" }
}

/** A command by name. */
const commandNamed = (name: string): Command | undefined => COMMANDS.find((c) => c.name === name)

/** The options a command's parser accepts: exactly its flags in the table. */
export const optionsOf = <N extends CommandName>(name: N): OptionsOf<N> =>
  Object.fromEntries(commandNamed(name)!.flags.map((f) => [f.name, f.type === "boolean"
    ? { type: "boolean", default: false, ...(f.short ? { short: f.short } : {}) }
    : { type: "string" }]
  )) as OptionsOf<N>
