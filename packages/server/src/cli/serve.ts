/**
 * The long-running commands: `canopy serve` (the HTTP API and the delivery loop) and `canopy
 * worker` (the delivery loop alone).
 */
import { Accounts, startDispatcher } from "@canopy/core"
import { Effect } from "effect"
import { chmodSync, rmSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { dirname, join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { parseCorsOrigins } from "../http/cors.ts"
import { parseBasemapUrl } from "../pages/projects.ts"
import { openCanopy, ownProcessDefaults, serve } from "../server.ts"
import { bootstrap, DEFAULT_ACCOUNT_NAME, DEFAULT_OWNER_EMAIL, deliverySettings, geometrySettings, linkBase, list, pgPoolSizeOf, positiveIntegerOf, publicUrlOf,
  setPasswordUrl, storageOf, UsageError } from "./common.ts"
import { HELP } from "./help.ts"
import { optionsOf } from "./reference.ts"

/** Where `--bootstrap-if-empty` writes the admin key by default: next to the SQLite file, else in the working directory. */
const defaultKeyFile = (where: ReturnType<typeof storageOf>) =>
  where.databaseUrl ? resolve("canopy-admin-key") : join(dirname(resolve(where.db)), "canopy-admin-key")

/** Where `--bootstrap-if-empty` writes the owner's set-password link: next to the admin key's file. */
const ownerLinkFile = (keyFile: string) => join(dirname(resolve(keyFile)), "canopy-owner-link")

/**
 * Writes a secret (the admin key, the owner's link) to a new file only its owner may read or
 * write (0600): a file left there (or a link planted there) is removed first, and the new one is
 * created exclusively. Answers true, or why it could not.
 */
const writeSecretFile = (path: string, secret: string): true | string => {
  try {
    rmSync(path, { force: true })
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: "wx" })
    chmodSync(path, 0o600)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? (e as Error).message
  }
}

export const serveCommands: Record<string, (argv: Array<string>) => Promise<void>> = {
  async serve(argv) {
    const { values } = parseArgs({ args: argv, options: optionsOf("serve") })
    if (values.help) return void console.log(HELP.serve)
    ownProcessDefaults()
    const port = Number(values.port ?? process.env.PORT ?? 8080)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port: ${values.port ?? process.env.PORT}`)
    const host = values.host ?? process.env.HOST ?? "127.0.0.1"
    const where = storageOf(values)
    const pgPoolSize = pgPoolSizeOf(values)
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
      corsOrigins,
      ...(basemapUrl !== undefined ? { basemapUrl } : {}),
      port,
      host,
      db: where.db,
      ...(where.databaseUrl ? { databaseUrl: where.databaseUrl } : {}),
      publicUrl,
      ...(pgPoolSize !== undefined ? { pgPoolSize } : {}),
      trustedProxies: list(values["trusted-proxies"] ?? process.env.CANOPY_TRUSTED_PROXIES),
      settings: { allowInsecureWebhooks: insecure, ...deliverySettings() },
      dispatcher: !values["no-dispatcher"],
      geometry: geometrySettings()
    })
    process.stderr.write(`canopy: serving ${running.url} (database ${where.describe})\n`)
    if (publicUrl) process.stderr.write(`canopy: public URL ${publicUrl}\n`)
    else if (!["127.0.0.1", "localhost", "::1"].includes(host)) {
      process.stderr.write(
        "canopy: no --public-url: the OAuth metadata and absolute links are served only to localhost requests, and session cookies are Secure only over HTTPS seen by this server or a trusted proxy\n"
      )
    }
    if (values["bootstrap-if-empty"]) {
      const count = await running.canopy.run(Effect.flatMap(Accounts, (a) => a.count))
      const email = values.email ?? (process.env.CANOPY_OWNER_EMAIL || undefined)
      const accountName = values["account-name"] ?? (process.env.CANOPY_ACCOUNT_NAME || undefined)
      if (count === 0) {
        const b = await bootstrap(running.canopy, { email: email ?? DEFAULT_OWNER_EMAIL, accountName: accountName ?? DEFAULT_ACCOUNT_NAME })
        const keyFile = values["bootstrap-key-file"] ?? process.env.CANOPY_BOOTSTRAP_KEY_FILE ?? defaultKeyFile(where)
        const written = writeSecretFile(keyFile, b.api_key.token)
        const link = setPasswordUrl(linkBase(publicUrl, running.url), b.password_token)
        const linkFile = ownerLinkFile(keyFile)
        const linkWritten = writeSecretFile(linkFile, link)
        // On a terminal the key and the link are shown once; anywhere else (a service manager's
        // log) only the files that hold them.
        const onTerminal = process.stderr.isTTY === true
        const bearer = onTerminal ? b.api_key.token : `$(cat ${keyFile})`
        process.stderr.write([
          "",
          `canopy: new database — created account ${b.account.id} "${b.account.name}" with owner ${b.user.email}.`,
          ...(email === undefined || accountName === undefined
            ? ["canopy: to choose them, start on an empty database with --email and --account-name, e.g.",
              `  npm start -- --email you@example.org --account-name "Your Company"`]
            : []),
          ...(onTerminal ? ["canopy: admin API key (shown only now, store it safely):", "", `  ${b.api_key.token}`, ""] : []),
          written === true
            ? `canopy: admin API key written to ${keyFile} (readable by this user only); move it somewhere safe and delete the file`
            : `canopy: the admin API key could not be written to ${keyFile} (${written})${
              onTerminal ? "" : "; create another with canopy keys create --name admin --permissions admin"
            }`,
          "",
          ...(onTerminal ? ["canopy: the owner sets a password (once, within 7 days) at:", `  ${link}`, ""] : []),
          linkWritten === true
            ? `canopy: the owner's set-password link (once, within 7 days) written to ${linkFile} (readable by this user only)`
            : `canopy: the owner's set-password link could not be written to ${linkFile} (${linkWritten})${
              onTerminal ? "" : "; issue another with canopy owner reset-password"
            }`,
          "",
          "canopy: try it:",
          `  curl -H "Authorization: Bearer ${bearer}" ${linkBase(undefined, running.url)}/v1/projects`,
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
    const { values } = parseArgs({ args: argv, options: optionsOf("worker") })
    if (values.help) return void console.log(HELP.worker)
    const pgPoolSize = pgPoolSizeOf(values)
    const concurrency = positiveIntegerOf("concurrency", values.concurrency)
    const perEndpoint = positiveIntegerOf("per-endpoint", values["per-endpoint"])
    ownProcessDefaults()
    const where = storageOf(values)
    const insecure = values["allow-insecure-webhooks"] || process.env.CANOPY_ALLOW_INSECURE_WEBHOOKS === "1"
    const { canopy, closeSender } = await openCanopy({
      db: where.db,
      mustExist: true,
      ...(where.databaseUrl ? { databaseUrl: where.databaseUrl } : {}),
      ...(pgPoolSize !== undefined ? { pgPoolSize } : {}),
      settings: { allowInsecureWebhooks: insecure, ...deliverySettings() }
    })
    const dispatcher = startDispatcher(canopy, {
      name: `worker-${hostname()}-${process.pid}`,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(perEndpoint !== undefined ? { perEndpoint } : {})
    })
    process.stderr.write(`canopy: worker ${dispatcher.owner} delivering webhooks (database ${where.describe})\n`)
    const stop = (signal: string) => {
      process.stderr.write(`canopy: ${signal}: finishing in-flight deliveries\n`)
      dispatcher.stop().then(() => canopy.close()).then(() => closeSender()).then(() => process.exit(0), () => process.exit(1))
    }
    process.once("SIGTERM", () => stop("SIGTERM"))
    process.once("SIGINT", () => stop("SIGINT"))
  }
}
