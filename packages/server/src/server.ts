/**
 * `canopy serve`: the HTTP server on a SQLite file (PostgreSQL later), with a JSON access log and
 * graceful shutdown (in-flight requests finish, then the database closes).
 */
import { createCanopy, type CanopyClient, Settings, type StorageProvider } from "@canopy/core"
import { postgresStorage } from "@canopy/adapter-postgres"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { nodeHandler } from "./app.ts"
import type { AccessLogLine } from "./http/handler.ts"

/** Options of the server. */
export interface ServeOptions {
  readonly port?: number
  readonly host?: string
  /** SQLite file; used when neither `storage` nor `databaseUrl` is given. */
  readonly db?: string
  /** PostgreSQL URL (`postgres://…`): used instead of SQLite when given. */
  readonly databaseUrl?: string
  readonly storage?: StorageProvider
  readonly settings?: Partial<Settings.SettingsShape>
  readonly trustedProxies?: ReadonlyArray<string>
  /** Access-log sink; default: one JSON line per request on stdout. */
  readonly log?: ((line: AccessLogLine) => void) | false
}

/** A running server. */
export interface RunningServer {
  readonly url: string
  readonly port: number
  readonly canopy: CanopyClient
  readonly server: Server
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  readonly close: () => Promise<void>
}

/** The storage a configuration names: PostgreSQL when a URL is given, else the SQLite file. */
export const storageFor = (options: { readonly db?: string | undefined; readonly databaseUrl?: string | undefined }): StorageProvider =>
  options.databaseUrl ? postgresStorage({ url: options.databaseUrl }) : sqliteStorage({ filename: options.db ?? "canopy.db" })

const stdoutLog = (line: AccessLogLine) => process.stdout.write(`${JSON.stringify(line)}\n`)

/** Opens the storage and starts listening. */
export const serve = async (options: ServeOptions = {}): Promise<RunningServer> => {
  const canopy = await createCanopy({
    storage: options.storage ?? storageFor(options),
    ...(options.settings ? { settings: options.settings } : {})
  })
  const log = options.log === false ? undefined : (options.log ?? stdoutLog)
  const handler = nodeHandler(canopy, { ...(log ? { log } : {}), trustedProxies: options.trustedProxies ?? [] })
  const server = createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "An unexpected error occurred", details: [] }, meta: { request_id: "" } }))
    })
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 8080, options.host ?? "127.0.0.1", () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    canopy,
    server,
    close: () => (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      })
      await canopy.close()
    })())
  }
}
