/**
 * `canopy serve`: the HTTP server on a SQLite file (PostgreSQL later), with a JSON access log and
 * graceful shutdown (in-flight requests finish, then the database closes).
 */
import { createCanopy, type CanopyClient, Deliveries, type GeometryCheck, type Settings, type StorageProvider } from "@canopy/core"
import { Effect } from "effect"
import { createRequire } from "node:module"
import { createServer, type Server } from "node:http"
import { hostname } from "node:os"
import type { AddressInfo } from "node:net"
import { nodeHandler } from "./app.ts"
import { type Dispatcher, type DispatcherOptions, startDispatcher } from "@canopy/core"
import { makeSender } from "./dispatcher/sender.ts"
import { type GeometryPool, type GeometryPoolOptions, makeGeometryPool } from "./geometry/pool.ts"
import type { AccessLogLine } from "./http/handler.ts"
import { MAX_HEADER_BYTES } from "./http/node.ts"
import { deliveryOutcome, makeMetrics, type MetricsAccess } from "./http/metrics.ts"
import { meteringReporter } from "./observability/metering.ts"
import { instrumentStorage } from "./observability/storage.ts"
import { startTracing, tracingFromEnv, type TracingOptions } from "./observability/tracing.ts"
import { parsePublicUrl } from "./pages/site.ts"
import { loadPostgres, loadSqlite } from "./storageLoader.ts"

/** Options of the server. */
export interface ServeOptions {
  readonly port?: number
  readonly host?: string
  /** SQLite file; used when neither `storage` nor `databaseUrl` is given. */
  readonly db?: string
  /** PostgreSQL URL (`postgres://…`): used instead of SQLite when given. */
  readonly databaseUrl?: string
  /** Connections the PostgreSQL pool may open; default `CANOPY_PG_POOL_SIZE` or 10. */
  readonly pgPoolSize?: number
  readonly storage?: StorageProvider
  readonly settings?: Partial<Settings.SettingsShape>
  /** Addresses/CIDRs of proxies whose X-Forwarded-For, -Proto and -Host are believed. */
  readonly trustedProxies?: ReadonlyArray<string>
  /**
   * The URL clients reach the server at (`https://canopy.example.com`): the OAuth issuer, links in
   * pages and the cookies' `Secure` flag derive from it. Without it, only loopback hosts get an
   * issuer and absolute links (development). See `pages/site.ts`.
   */
  readonly publicUrl?: string | undefined
  /** A raster tile URL template for the dashboard's maps (`{z}/{x}/{y}`); none: a plain background with a graticule. */
  readonly basemapUrl?: string | undefined
  /** The attribution shown with the basemap. */
  readonly basemapAttribution?: string | undefined
  /**
   * Origins whose browser pages may call the API and the OAuth token endpoint (CORS): exact
   * origins, comma-separated or a list, or `*`. Default: `CANOPY_CORS_ORIGINS`, else none.
   * Public OAuth applications' `allowed_origins` are allowed too. See `http/cors.ts`.
   */
  readonly corsOrigins?: string | ReadonlyArray<string> | undefined
  /** Access-log sink; default: one JSON line per request on stdout. */
  readonly log?: ((line: AccessLogLine) => void) | false
  /**
   * Prometheus metrics at `/metrics`: to a bearer of a token, or to anyone (`"public"`); `false`
   * for none. Default: `CANOPY_METRICS_TOKEN` (a token) or `CANOPY_METRICS=public`, else none.
   */
  readonly metrics?: MetricsAccess | false
  /**
   * OpenTelemetry traces, exported over OTLP/HTTP; `false` for none. Default: from the standard
   * `OTEL_*` variables (`observability/tracing.ts`), off without an endpoint.
   */
  readonly tracing?: TracingOptions | false
  /** Run the webhook delivery loop in this process (default true), with these options. */
  readonly dispatcher?: boolean | DispatcherOptions
  /**
   * How project boundaries are validated and measured: in a pool of worker threads, with a time
   * budget, from a size threshold up (default, with these options); `false`: inline, on the
   * event loop, however long it takes.
   */
  readonly geometry?: GeometryPoolOptions | false
}

/** A running server. */
export interface RunningServer {
  readonly url: string
  /** The configured public URL, normalised (no trailing slash), if any. */
  readonly publicUrl: string | undefined
  readonly port: number
  readonly canopy: CanopyClient
  readonly server: Server
  readonly dispatcher: Dispatcher | undefined
  /** The geometry worker pool (undefined with `geometry: false`). */
  readonly geometry: GeometryPool | undefined
  /** Stops accepting, lets in-flight requests and deliveries finish, closes the database. */
  readonly close: () => Promise<void>
}

/**
 * What `canopy serve` and `canopy worker` do to their own process: stop capturing stack traces.
 * Canopy never writes one to a response or a log line (docs/decisions.md), and Effect captures
 * one per traced call, a stack walk each (~4% of a GET). `CANOPY_STACK_TRACES=1` keeps them for
 * debugging. A library embedding Canopy leaves its process alone: this is for processes we own.
 */
export const ownProcessDefaults = (env: Readonly<Record<string, string | undefined>> = process.env) => {
  if (env.CANOPY_STACK_TRACES !== "1") Error.stackTraceLimit = 0
}

/**
 * The storage a configuration names: PostgreSQL when a URL is given, else the SQLite file (with
 * `mustExist`, a missing file is an error instead of a new database). The adapter is loaded on
 * demand (`storageLoader.ts`): a missing one is an error naming the package to install.
 */
export const storageFor = async (options: {
  readonly db?: string | undefined
  readonly databaseUrl?: string | undefined
  readonly pgPoolSize?: number | undefined
  readonly mustExist?: boolean
}): Promise<StorageProvider> =>
  options.databaseUrl
    ? (await loadPostgres()).postgresStorage({ url: options.databaseUrl, ...(options.pgPoolSize !== undefined ? { maxConnections: options.pgPoolSize } : {}) })
    : (await loadSqlite()).sqliteStorage({ filename: options.db ?? "canopy.db", ...(options.mustExist ? { mustExist: true } : {}) })

/** Why the server could not listen, in one sentence naming the address (the error keeps its `code`). */
const listenFailure = (e: unknown, host: string, port: number): Error => {
  const code = (e as { code?: unknown }).code
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`
  const message = code === "EADDRINUSE" ? `port ${port} on ${host} is already in use (EADDRINUSE): stop the other server or choose another --port`
    : code === "EACCES" ? `no permission to listen on ${where} (EACCES): ports below 1024 need privileges; choose --port 1024 or above`
    : code === "EADDRNOTAVAIL" ? `cannot listen on ${where}: ${host} is not an address of this machine (EADDRNOTAVAIL); check --host`
    : `cannot listen on ${where}: ${(e as Error)?.message ?? String(e)}`
  return Object.assign(new Error(message, { cause: e }), { code })
}

/** Opens Canopy with the hardened webhook sender. */
export const openCanopy = async (
  options: Pick<ServeOptions, "storage" | "db" | "databaseUrl" | "pgPoolSize" | "settings"> & {
    readonly geometryCheck?: GeometryCheck.GeometryCheckShape
    /** A missing SQLite file is an error ("no database at PATH") rather than a new database. */
    readonly mustExist?: boolean
  }
) => {
  const sender = makeSender({ allowLocal: options.settings?.allowInsecureWebhooks ?? false })
  const canopy = await createCanopy({
    storage: options.storage ?? await storageFor(options),
    sender: { send: sender.send },
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.geometryCheck ? { geometryCheck: options.geometryCheck } : {})
  })
  return { canopy, closeSender: () => sender.close() }
}

const logDispatcherError = (e: unknown) =>
  process.stderr.write(
    `${
      JSON.stringify({ time: new Date().toISOString(), component: "dispatcher",
        error: (e as { _tag?: string })?._tag ?? (e instanceof Error ? e.name : "error") })
    }\n`
  )

/** `/metrics` access from the environment: `CANOPY_METRICS_TOKEN`, or `CANOPY_METRICS=public`. */
const metricsFromEnv = (): MetricsAccess | undefined => {
  const token = process.env.CANOPY_METRICS_TOKEN
  if (token) return { token }
  return process.env.CANOPY_METRICS === "public" ? "public" : undefined
}

/** This package's version (the `service.version` of its traces). */
const SERVER_VERSION = (createRequire(import.meta.url)("../package.json") as { version?: string }).version

const stdoutLog = (line: AccessLogLine) => process.stdout.write(`${JSON.stringify(line)}\n`)

/** Opens the storage and starts listening. */
export const serve = async (options: ServeOptions = {}): Promise<RunningServer> => {
  // A malformed public URL fails here, before anything is opened.
  const publicUrl = options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl)
  // So do bad OTEL_* settings (an endpoint that is not a URL, an unsupported protocol).
  const tracingOptions = options.tracing === false ? undefined : (options.tracing ?? tracingFromEnv())
  const geometry = options.geometry === false ? undefined : makeGeometryPool(options.geometry)
  const metricsAccess = options.metrics === false ? undefined : (options.metrics ?? metricsFromEnv())
  const metrics = metricsAccess ? makeMetrics(metricsAccess) : undefined
  // Refused bookkeeping writes (full disk, read-only): counted, and logged at most once a minute.
  const onMeteringRefused = meteringReporter({ count: metrics?.meteringFailure })
  const { canopy, closeSender } = await (async () => {
    // The store, with each operation timed (when metrics are on) and bookkeeping writes skippable.
    const storage = instrumentStorage(options.storage ?? await storageFor(options), { observe: metrics?.dbTime, onRefused: onMeteringRefused })
    return openCanopy({ ...options, storage, ...(geometry ? { geometryCheck: geometry } : {}) })
  })()
    .catch(async (e: unknown) => {
      await geometry?.close()
      throw e
    })
  const tracing = tracingOptions ? await startTracing({ serviceVersion: SERVER_VERSION, ...tracingOptions }) : undefined
  const dispatcher = options.dispatcher === false ? undefined
    : startDispatcher(canopy, {
      name: `dispatcher-${hostname()}-${process.pid}`,
      onError: logDispatcherError,
      ...(metrics ? { onAttempt: (log) => metrics.delivery(log ? deliveryOutcome(log) : "error") } : {}),
      ...(tracing ? { traceAttempt: tracing.background } : {}),
      ...(typeof options.dispatcher === "object" ? options.dispatcher : {})
    })
  metrics?.watchOutbox({
    nextDue: () => canopy.run(Effect.flatMap(Deliveries, (d) => d.nextDue)),
    pendingCount: (cap) => canopy.run(Effect.flatMap(Deliveries, (d) => d.pendingCount(cap))),
    ...(dispatcher ? { inFlight: dispatcher.inFlight } : {})
  })
  const log = options.log === false ? undefined : (options.log ?? stdoutLog)
  const handler = nodeHandler(canopy, {
    ...(log ? { log } : {}),
    trustedProxies: options.trustedProxies ?? [],
    publicUrl,
    ...(dispatcher ? { onWrite: dispatcher.wake } : {}),
    ...(metrics ? { metrics } : {}),
    ...(tracing ? { tracing } : {}),
    onMeteringRefused,
    corsOrigins: options.corsOrigins ?? process.env.CANOPY_CORS_ORIGINS,
    ...(options.basemapUrl !== undefined ? { basemapUrl: options.basemapUrl } : {}),
    ...(options.basemapAttribution !== undefined ? { basemapAttribution: options.basemapAttribution } : {})
  })
  // Request line and headers up to MAX_HEADER_BYTES: a 1,000-position `intersects=` fits.
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "An unexpected error occurred", details: [] }, meta: { request_id: "" } }))
    })
  })
  // Requests Node's parser refuses (431, 400, 408) still get the spec's error body and a log line.
  server.on("clientError", handler.clientError)
  server.keepAliveTimeout = 5_000
  // Slow clients cannot hold connections open: headers within 10 s, the whole request within 30 s.
  server.headersTimeout = 10_000
  server.requestTimeout = 30_000
  const port = options.port ?? 8080
  const host = options.host ?? "127.0.0.1"
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, host, () => {
        server.off("error", reject)
        resolve()
      })
    })
  } catch (e) {
    // Nothing may keep the process alive after a failed start: stop what was started, then say why.
    await dispatcher?.stop()
    await canopy.close()
    await closeSender()
    await geometry?.close()
    await tracing?.close()
    throw listenFailure(e, host, port)
  }
  const address = server.address() as AddressInfo
  const listening = address.family === "IPv6" ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${listening}:${address.port}`,
    publicUrl,
    port: address.port,
    canopy,
    server,
    dispatcher,
    geometry,
    close: () => (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      })
      await dispatcher?.stop()
      await canopy.close()
      await closeSender()
      await geometry?.close()
      // Last: the spans of everything above are exported before the process goes.
      await tracing?.close()
    })())
  }
}
