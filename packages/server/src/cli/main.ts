/**
 * The `canopy` command line: serve, init, keys, service-tokens, account, migrate.
 * Configuration comes from flags, then the environment (PORT, HOST, CANOPY_DB,
 * CANOPY_TRUSTED_PROXIES, CANOPY_PUBLIC_URL, CANOPY_ALLOW_INSECURE_WEBHOOKS), then defaults.
 */
import { Accounts, CanopyError, createCanopy, type CanopyClient, Plans, Principal } from "@canopy/core"
import { Effect } from "effect"
import { hostname } from "node:os"
import { parseArgs, type ParseArgsConfig } from "node:util"
import { startDispatcher } from "@canopy/core"
import { parseCorsOrigins } from "../http/cors.ts"
import { parseBasemapUrl } from "../pages/projects.ts"
import { parsePublicUrl } from "../pages/site.ts"
import { openCanopy, ownProcessDefaults, serve, storageFor } from "../server.ts"
import { loadPostgres, loadSqlite } from "../storageLoader.ts"

const HELP: Record<string, string> = {
  main: `canopy — forest project management service

Usage: canopy <command> [options]

Commands:
  serve             run the HTTP API (and the webhook delivery loop)
  worker            run only the webhook delivery loop
  init              create an account, its owner and an admin API key
  keys              create, list or revoke API keys
  service-tokens    create, list or revoke service tokens
  account           change an account's plan
  migrate           apply pending database migrations
  backup            copy a live SQLite database to a new file (online backup)

Every command works on the SQLite file --db (default $CANOPY_DB or ./canopy.db), or on PostgreSQL
with --database-url postgres://… (or $DATABASE_URL). Only init, serve and migrate create a missing
SQLite file; the others (worker, keys, service-tokens, account) say "no database at PATH".

Run "canopy <command> --help" for a command's options.`,
  serve: `Usage: canopy serve [--port 8080] [--host 127.0.0.1] [--db ./canopy.db | --database-url URL]
                    [--public-url https://canopy.example.com] [--trusted-proxies 10.0.0.1,10.1.0.0/16]
                    [--allow-insecure-webhooks] [--bootstrap-if-empty] [--email owner@example.com]
                    [--account-name "My Forest Account"] [--no-dispatcher]
                    [--cors-origins https://app.example.com,http://localhost:5173]
                    [--basemap-url https://tile.openstreetmap.org/{z}/{x}/{y}.png]

Serves the v1 API on the SQLite file --db, or on PostgreSQL with --database-url postgres://…
(or DATABASE_URL). --public-url is the address clients use: the OAuth issuer, links in pages and
the session cookie's Secure flag (https) derive from it, never from a request's Host. Without it,
only requests to localhost/127.0.0.1/[::1] get an OAuth issuer and absolute links (development).
A public URL with a path (https://example.com/canopy) also serves Canopy under that path.
--trusted-proxies: proxies whose X-Forwarded-For, -Proto and -Host are believed.
--cors-origins: origins whose browser pages may call the API and the OAuth token endpoint (exact
origins, comma-separated, or *; never with credentials); public OAuth applications add their own.
Environment: PORT, HOST, CANOPY_DB, DATABASE_URL, CANOPY_PUBLIC_URL, CANOPY_TRUSTED_PROXIES, CANOPY_CORS_ORIGINS,
CANOPY_ALLOW_INSECURE_WEBHOOKS=1, CANOPY_STACK_TRACES=1 (capture stack traces, for debugging; never
logged), CANOPY_GEOMETRY_WORKERS (threads validating large boundaries; default: CPUs - 1),
CANOPY_GEOMETRY_BUDGET_MS (most time one boundary may take, default 1500; over it, a 422). With
--bootstrap-if-empty, an empty database gets an account (--account-name, or CANOPY_ACCOUNT_NAME;
default "My Forest Account"), an owner (--email, or CANOPY_OWNER_EMAIL; default owner@example.com)
and an admin key, printed once with the owner's set-password link (on the public URL, else on the
address listened at). SIGTERM/SIGINT finish in-flight requests, then exit. A port in use or an
address it may not listen on: one line, exit 1.`,
  worker: `Usage: canopy worker [--db ./canopy.db | --database-url URL] [--allow-insecure-webhooks]
                     [--concurrency 64] [--per-endpoint 4]

Delivers webhooks without serving HTTP, so delivery can scale apart from the API. Any number of
workers (and servers) may share a database: deliveries are claimed under a lease, so no attempt is
sent twice at once, and a crashed worker's deliveries are picked up when its lease expires. The
SQLite file must exist (canopy init, serve or migrate create it).`,
  init: `Usage: canopy init --db FILE --email EMAIL [--name NAME] [--account-name NAME]
                   [--plan ${Plans.plans.join("|")}] [--public-url URL] [--json]

Creates an account, its owner and an admin API key, and prints them with the owner's one-time
set-password link, on --public-url (or CANOPY_PUBLIC_URL; else http://HOST:PORT from the
environment, default http://127.0.0.1:8080). With --json, prints exactly
{ "account_id", "user_id", "api_key", "set_password_url" }.`,
  keys: `Usage: canopy keys create --name NAME --permissions p1,p2 [--account ID] [--db FILE] [--json]
       canopy keys list [--account ID] [--db FILE] [--json]
       canopy keys revoke ID [--account ID] [--db FILE]

Permissions: ${"projects:read, projects:write, assets:read, assets:write, members:read, members:write, billing:read, admin"}.
--account may be left out when the database holds one account. The SQLite file must exist.`,
  "service-tokens": `Usage: canopy service-tokens create --name NAME --permissions p1,p2 [--ip-allowlist 10.0.0.0/8,1.2.3.4]
                                   [--account ID] [--db FILE] [--json]
       canopy service-tokens list [--account ID] [--db FILE] [--json]
       canopy service-tokens revoke ID [--account ID] [--db FILE]`,
  account: `Usage: canopy account set-plan ${Plans.plans.join("|")} [--account ID] [--db FILE] [--json]

Changes the plan and emits subscription.updated. The SQLite file must exist.`,
  migrate: `Usage: canopy migrate [--db FILE]

Applies pending migrations and prints what ran.`,
  backup: `Usage: canopy backup --to FILE [--db FILE] [--json]

Copies the SQLite database --db to a new file with SQLite's online backup API: consistent while
servers keep writing, nothing stopped. Never overwrites a file; checks the copy's integrity.
Restore by stopping the servers and putting the copy in the database's place (PostgreSQL: use
pg_dump).`
}

const common = {
  db: { type: "string" },
  "database-url": { type: "string" },
  account: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false }
} as const satisfies ParseArgsConfig["options"]

/** A usage error: printed with the command's help, exit code 2. */
class UsageError extends Error {}

const dbOf = (v: { db?: string | undefined }) => v.db ?? process.env.CANOPY_DB ?? "./canopy.db"
/** The database a command works on: --database-url / DATABASE_URL (PostgreSQL), else the SQLite file. */
/** Delivery settings from the environment (CANOPY_DELIVERY_LEASE_MS, CANOPY_DELIVERY_TIMEOUT_MS). */
const deliverySettings = () => ({
  ...(process.env.CANOPY_DELIVERY_LEASE_MS ? { deliveryLeaseMs: Number(process.env.CANOPY_DELIVERY_LEASE_MS) } : {}),
  ...(process.env.CANOPY_DELIVERY_TIMEOUT_MS ? { deliveryTimeoutMs: Number(process.env.CANOPY_DELIVERY_TIMEOUT_MS) } : {})
})

/** The geometry worker pool of `canopy serve`: workers start with the server; sizes from the environment. */
const geometrySettings = () => {
  const positive = (name: string) => {
    const raw = process.env[name]
    if (raw === undefined || raw === "") return undefined
    const n = Number(raw)
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, got ${raw}`)
    return n
  }
  const workers = positive("CANOPY_GEOMETRY_WORKERS")
  const budgetMs = positive("CANOPY_GEOMETRY_BUDGET_MS")
  return { prewarm: true, ...(workers ? { workers } : {}), ...(budgetMs ? { budgetMs } : {}) }
}

const storageOf = (v: { db?: string | undefined; "database-url"?: string | undefined }) => {
  const databaseUrl = v["database-url"] ?? (process.env.DATABASE_URL || undefined)
  return { db: dbOf(v), databaseUrl, describe: databaseUrl ? "PostgreSQL" : dbOf(v) }
}
const list = (s: string | undefined) => (s ?? "").split(",").map((x) => x.trim()).filter((x) => x !== "")

/** --public-url, else CANOPY_PUBLIC_URL, validated and without a trailing slash; undefined when neither is set. */
const publicUrlOf = (v: { "public-url"?: string | undefined }) => {
  const raw = v["public-url"] ?? (process.env.CANOPY_PUBLIC_URL || undefined)
  if (raw === undefined) return undefined
  try {
    return parsePublicUrl(raw)
  } catch (e) {
    throw new UsageError(`--public-url: ${(e as Error).message}`)
  }
}

/** Where links printed for the operator point: the public URL, else where the server listens (loopback for a wildcard bind). */
const linkBase = (publicUrl: string | undefined, url: string) =>
  publicUrl ?? url.replace("//0.0.0.0:", "//127.0.0.1:").replace("//[::]:", "//[::1]:")

const print = (json: boolean, value: unknown, text: string) => process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`)

/** Runs `f` on the database of an existing account: a missing SQLite file is an error, never created. */
const withCanopy = async <A>(where: ReturnType<typeof storageOf>, f: (canopy: CanopyClient) => Promise<A>, create = false): Promise<A> => {
  const canopy = await createCanopy({ storage: await storageFor({ ...where, mustExist: !create }) })
  try {
    return await f(canopy)
  } finally {
    await canopy.close()
  }
}

/** The account to act on: --account, or the only one in the database. */
const accountOf = async (canopy: CanopyClient, given: string | undefined): Promise<string> => {
  if (given) return given
  const accounts = await canopy.run(Effect.flatMap(Accounts, (a) => a.ids))
  if (accounts.length === 1) return accounts[0]!
  throw new UsageError(accounts.length === 0 ? "the database has no account yet: run canopy init" : "the database holds several accounts: pass --account ID")
}

const DEFAULT_ACCOUNT_NAME = "My Forest Account"
const DEFAULT_OWNER_EMAIL = "owner@example.com"

/** `http://HOST:PORT` for a host as given to listen (IPv6 in brackets). */
const httpUrl = (host: string, port: number | string) => `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`

/** The owner's one-time set-password link. */
const setPasswordUrl = (base: string, token: string) => `${base}/invitations/accept?token=${token}`

const bootstrap = async (canopy: CanopyClient, opts: { email: string; name?: string | undefined; accountName?: string | undefined; plan?: string | undefined }) => {
  const b = await canopy.bootstrap({
    account_name: opts.accountName ?? DEFAULT_ACCOUNT_NAME,
    email: opts.email,
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.plan ? { plan: opts.plan } : {})
  })
  return b
}

const commands: Record<string, (argv: Array<string>) => Promise<void>> = {
  async serve(argv) {
    const { values } = parseArgs({ args: argv, options: {
      ...common, port: { type: "string" }, host: { type: "string" }, "trusted-proxies": { type: "string" }, "public-url": { type: "string" },
      "cors-origins": { type: "string" }, "basemap-url": { type: "string" },
      "allow-insecure-webhooks": { type: "boolean", default: false }, "bootstrap-if-empty": { type: "boolean", default: false },
      email: { type: "string" }, "account-name": { type: "string" }, "no-dispatcher": { type: "boolean", default: false }
    } })
    if (values.help) return void console.log(HELP.serve)
    ownProcessDefaults()
    const port = Number(values.port ?? process.env.PORT ?? 8080)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port: ${values.port ?? process.env.PORT}`)
    const host = values.host ?? process.env.HOST ?? "127.0.0.1"
    const where = storageOf(values)
    const publicUrl = publicUrlOf(values)
    const insecure = values["allow-insecure-webhooks"] || process.env.CANOPY_ALLOW_INSECURE_WEBHOOKS === "1"
    let corsOrigins: ReadonlyArray<string>
    try {
      corsOrigins = parseCorsOrigins(values["cors-origins"] ?? process.env.CANOPY_CORS_ORIGINS)
    } catch (e) {
      throw new UsageError(`--cors-origins: ${(e as Error).message}`)
    }
    const basemapUrl = values["basemap-url"] ?? process.env.CANOPY_BASEMAP_URL
    try {
      parseBasemapUrl(basemapUrl)
    } catch (e) {
      throw new UsageError(`--basemap-url: ${(e as Error).message}`)
    }
    const running = await serve({
      corsOrigins, ...(basemapUrl !== undefined ? { basemapUrl } : {}),
      port, host, db: where.db, ...(where.databaseUrl ? { databaseUrl: where.databaseUrl } : {}), publicUrl,
      trustedProxies: list(values["trusted-proxies"] ?? process.env.CANOPY_TRUSTED_PROXIES),
      settings: { allowInsecureWebhooks: insecure, ...deliverySettings() },
      dispatcher: !values["no-dispatcher"],
      geometry: geometrySettings()
    })
    process.stderr.write(`canopy: serving ${running.url} (database ${where.describe})\n`)
    if (publicUrl) process.stderr.write(`canopy: public URL ${publicUrl}\n`)
    else if (!["127.0.0.1", "localhost", "::1"].includes(host)) {
      process.stderr.write("canopy: no --public-url: the OAuth metadata and absolute links are served only to localhost requests, and session cookies are Secure only over HTTPS seen by this server or a trusted proxy\n")
    }
    if (values["bootstrap-if-empty"]) {
      const count = await running.canopy.run(Effect.flatMap(Accounts, (a) => a.count))
      const email = values.email ?? (process.env.CANOPY_OWNER_EMAIL || undefined)
      const accountName = values["account-name"] ?? (process.env.CANOPY_ACCOUNT_NAME || undefined)
      if (count === 0) {
        const b = await bootstrap(running.canopy, { email: email ?? DEFAULT_OWNER_EMAIL, accountName: accountName ?? DEFAULT_ACCOUNT_NAME })
        process.stderr.write([
          "",
          `canopy: new database — created account ${b.account.id} "${b.account.name}" with owner ${b.user.email}.`,
          ...(email === undefined || accountName === undefined
            ? ["canopy: to choose them, start on an empty database with --email and --account-name, e.g.",
              `  npm start -- --email you@example.org --account-name "Your Company"`]
            : []),
          "canopy: admin API key (shown only now, store it safely):",
          "",
          `  ${b.api_key.token}`,
          "",
          "canopy: the owner sets a password (once) at:",
          `  ${setPasswordUrl(linkBase(publicUrl, running.url), b.password_token)}`,
          "",
          "canopy: try it:",
          `  curl -H "Authorization: Bearer ${b.api_key.token}" ${linkBase(undefined, running.url)}/v1/projects`,
          ""
        ].join("\n") + "\n")
      } else if (email !== undefined || accountName !== undefined) {
        process.stderr.write("canopy: the database already has an account: --email and --account-name are used only on an empty one\n")
      }
    }
    const stop = (signal: string) => {
      process.stderr.write(`canopy: ${signal}: finishing in-flight requests\n`)
      running.close().then(() => process.exit(0), () => process.exit(1))
    }
    process.once("SIGTERM", () => stop("SIGTERM"))
    process.once("SIGINT", () => stop("SIGINT"))
  },

  async worker(argv) {
    const { values } = parseArgs({ args: argv, options: {
      ...common, "allow-insecure-webhooks": { type: "boolean", default: false },
      concurrency: { type: "string" }, "per-endpoint": { type: "string" }
    } })
    if (values.help) return void console.log(HELP.worker)
    ownProcessDefaults()
    const where = storageOf(values)
    const insecure = values["allow-insecure-webhooks"] || process.env.CANOPY_ALLOW_INSECURE_WEBHOOKS === "1"
    const { canopy, closeSender } = await openCanopy({ db: where.db, mustExist: true, ...(where.databaseUrl ? { databaseUrl: where.databaseUrl } : {}), settings: { allowInsecureWebhooks: insecure, ...deliverySettings() } })
    const dispatcher = startDispatcher(canopy, {
      name: `worker-${hostname()}-${process.pid}`,
      ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
      ...(values["per-endpoint"] ? { perEndpoint: Number(values["per-endpoint"]) } : {})
    })
    process.stderr.write(`canopy: worker ${dispatcher.owner} delivering webhooks (database ${where.describe})\n`)
    const stop = (signal: string) => {
      process.stderr.write(`canopy: ${signal}: finishing in-flight deliveries\n`)
      dispatcher.stop().then(() => canopy.close()).then(() => closeSender()).then(() => process.exit(0), () => process.exit(1))
    }
    process.once("SIGTERM", () => stop("SIGTERM"))
    process.once("SIGINT", () => stop("SIGINT"))
  },

  async init(argv) {
    const { values } = parseArgs({ args: argv, options: {
      ...common, email: { type: "string" }, name: { type: "string" }, "account-name": { type: "string" }, plan: { type: "string" },
      "public-url": { type: "string" }
    } })
    if (values.help) return void console.log(HELP.init)
    if (!values.email) throw new UsageError("--email is required")
    const base = publicUrlOf(values) ?? linkBase(undefined, httpUrl(process.env.HOST || "127.0.0.1", process.env.PORT || 8080))
    if (values.plan && !(Plans.plans as ReadonlyArray<string>).includes(values.plan)) throw new UsageError(`--plan must be one of ${Plans.plans.join(", ")}`)
    await withCanopy(storageOf(values), async (canopy) => {
      const b = await bootstrap(canopy, { email: values.email!, name: values.name, accountName: values["account-name"], plan: values.plan })
      const link = setPasswordUrl(base, b.password_token)
      print(values.json, { account_id: b.account.id, user_id: b.user.id, api_key: b.api_key.token, set_password_url: link },
        `account  ${b.account.id} (${b.account.name}, plan ${b.account.plan})\nowner    ${b.user.id} <${b.user.email}>\napi key  ${b.api_key.token}\n\n` +
        `The owner sets a password (once, within 7 days) at:\n  ${link}\n\nThe key and the link are shown only now.`)
    }, true)
  },

  keys: (argv) => credentialCommand("api_key", "keys", argv),
  "service-tokens": (argv) => credentialCommand("service_token", "service-tokens", argv),
  backup: (argv) => backupCommand(argv),

  async account(argv) {
    const { positionals, values } = parseArgs({ args: argv, options: common, allowPositionals: true })
    if (values.help) return void console.log(HELP.account)
    const [sub, plan] = positionals
    if (sub !== "set-plan" || !plan) throw new UsageError("expected: canopy account set-plan PLAN")
    if (!(Plans.plans as ReadonlyArray<string>).includes(plan)) throw new UsageError(`plan must be one of ${Plans.plans.join(", ")}`)
    await withCanopy(storageOf(values), async (canopy) => {
      const account = await canopy.account.setPlan(await accountOf(canopy, values.account), plan as Plans.Plan)
      print(values.json, account, `account ${account.id} is now on the ${account.plan} plan`)
    })
  },

  async migrate(argv) {
    const { values } = parseArgs({ args: argv, options: common })
    if (values.help) return void console.log(HELP.migrate)
    const where = storageOf(values)
    const ran = await Effect.runPromise(where.databaseUrl ? (await loadPostgres()).migrate({ url: where.databaseUrl }) : (await loadSqlite()).migrate({ filename: where.db }))
    print(values.json, ran.map(([id, name]) => ({ id, name })), ran.length === 0 ? "schema is up to date" : ran.map(([id, name]) => `applied ${id}_${name}`).join("\n"))
  }
}

/** `canopy backup`: the online backup of a SQLite file. */
const backupCommand = async (argv: Array<string>) => {
  const { values } = parseArgs({ args: argv, options: { ...common, to: { type: "string" } } })
  if (values.help) return void console.log(HELP.backup)
  if (!values.to) throw new UsageError("--to FILE is required")
  const where = storageOf(values)
  if (where.databaseUrl) throw new UsageError("backup copies a SQLite file; for PostgreSQL use pg_dump")
  const { pages } = await (await loadSqlite()).backup(where.db, values.to)
  print(values.json, { database: where.db, backup: values.to, pages }, `backed up ${where.db} to ${values.to} (${pages} pages, integrity ok)`)
}

const credentialCommand = async (kind: "api_key" | "service_token", name: "keys" | "service-tokens", argv: Array<string>) => {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: {
    ...common, name: { type: "string" }, permissions: { type: "string" }, ...(kind === "service_token" ? { "ip-allowlist": { type: "string" } } : {})
  } })
  if (values.help) return void console.log(HELP[name])
  const [sub, id] = positionals
  await withCanopy(storageOf(values), async (canopy) => {
    const system = Principal.system(await accountOf(canopy, values.account))
    if (sub === "create") {
      if (!values.name || !values.permissions) throw new UsageError("--name and --permissions are required")
      const raw = (values as Record<string, unknown>)["ip-allowlist"]
      const allowlist = list(typeof raw === "string" ? raw : undefined)
      const c = await canopy.credentials.create(system, kind, {
        name: values.name, permissions: list(values.permissions), ...(allowlist.length ? { ip_allowlist: allowlist } : {})
      })
      print(values.json, c, `${c.id}  ${c.name}  [${c.permissions.join(", ")}]${c.ip_allowlist ? `  from ${c.ip_allowlist.join(", ")}` : ""}\n${c.token}\n\nThe value is shown only now.`)
    } else if (sub === "list") {
      const all = await canopy.credentials.list(system, kind)
      print(values.json, all, all.length === 0 ? "none" : all.map((c) =>
        `${c.id}  ${c.name.padEnd(24)} ${c.token_hint}  [${c.permissions.join(", ")}]  ${c.revoked_at ? `revoked ${c.revoked_at}` : `last used ${c.last_used_at ?? "never"}`}`).join("\n"))
    } else if (sub === "revoke") {
      if (!id) throw new UsageError("expected the id to revoke")
      const c = await canopy.credentials.revoke(system, id)
      print(values.json, c, `revoked ${c.id} (${c.name})`)
    } else {
      throw new UsageError(`unknown subcommand: ${sub ?? "(none)"}`)
    }
  })
}

/** Runs the CLI with the given arguments; resolves to the exit code. */
export const main = async (argv: Array<string>): Promise<number> => {
  const [command, ...rest] = argv
  if (!command || command === "--help" || command === "-h" || command === "help") {
    console.log(HELP.main)
    return command ? 0 : 2
  }
  const run = commands[command]
  if (!run) {
    process.stderr.write(`canopy: unknown command "${command}"\n\n${HELP.main}\n`)
    return 2
  }
  try {
    await run(rest)
    return 0
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" || (e as { code?: string }).code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      process.stderr.write(`canopy ${command}: ${(e as Error).message}\n\n${HELP[command] ?? HELP.main}\n`)
      return 2
    }
    // A database that could not be opened: the adapter's sentence names the path and the cause.
    const opening = "storage could not be opened: "
    if (e instanceof CanopyError && e.message.startsWith(opening)) {
      process.stderr.write(`canopy ${command}: ${e.message.slice(opening.length)}\n`)
      return 1
    }
    if (e instanceof CanopyError) {
      const details = e.details.map((d) => `  ${d.field}: ${d.message}`).join("\n")
      process.stderr.write(`canopy ${command}: ${e.code}: ${e.message}${details ? `\n${details}` : ""}\n`)
      return 1
    }
    process.stderr.write(`canopy ${command}: ${(e as Error).message ?? String(e)}\n`)
    return 1
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then((code) => {
    if (code !== 0 || (process.argv[2] !== "serve" && process.argv[2] !== "worker")) process.exitCode = code
  })
}
