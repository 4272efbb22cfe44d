/**
 * Prometheus metrics at `/metrics`, with `prom-client`: requests by route template, method and
 * status, their latency, rate-limit refusals, the webhook outbox (the age of the oldest due
 * delivery, pending deliveries up to a cap, deliveries in flight, delivery outcomes), the time of each storage operation,
 * metering writes the database refused, and the process's own figures (event-loop lag, heap,
 * CPU, GC). Off unless configured: with a token, a scrape must send `Authorization: Bearer TOKEN`
 * (compared in constant time); `public` serves it to anyone who can reach the port.
 */
import { ConstantTime, Errors, type Storage } from "@canopy/core"
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"
import { refusal } from "./responses.ts"
import type { AccessLogLine, ApiRequest, ApiResponse } from "./types.ts"

/** Who may read `/metrics`. */
export type MetricsAccess = { readonly token: string } | "public"

/** How a delivery attempt ended: delivered, failed with a retry scheduled, failed for good, or not recorded. */
export type DeliveryOutcome = "success" | "retry" | "dead" | "error"

/** The outcome an attempt's log entry records. */
export const deliveryOutcome = (log: Pick<Storage.DeliveryLogRow, "status" | "next_retry_at">): DeliveryOutcome =>
  log.status === "success" ? "success" : log.next_retry_at !== null ? "retry" : "dead"

/** What the outbox gauges read at each scrape. */
export interface OutboxSources {
  /** When the earliest pending delivery falls due (epoch ms), or null: one indexed `min()`. */
  readonly nextDue?: (() => Promise<number | null>) | undefined
  /** Pending deliveries, counted up to `cap`: a bounded count, however long the backlog. */
  readonly pendingCount?: ((cap: number) => Promise<number>) | undefined
  /** Attempts this process's dispatcher has in flight. */
  readonly inFlight?: (() => number) | undefined
}

/** How long a scrape waits for the outbox query before reporting NaN (a frozen database must not hang it). */
const SCRAPE_QUERY_TIMEOUT_MS = 1_000

/** Most pending deliveries a scrape counts (the gauge then reads this figure: "at least"). */
const PENDING_COUNT_CAP = 10_000

/** A scrape's query, or undefined when it failed or did not answer within `SCRAPE_QUERY_TIMEOUT_MS`. */
const withinScrape = async <A>(query: () => Promise<A>): Promise<A | undefined> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    query().catch(() => undefined),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), SCRAPE_QUERY_TIMEOUT_MS)
    })
  ]).finally(() => clearTimeout(timer))
}

/** The metrics of one application: what the access log feeds, and the `/metrics` route. */
export type Metrics = ReturnType<typeof makeMetrics>

/** The metrics of one application: what the access log feeds, and the `/metrics` route. */
export const makeMetrics = (access: MetricsAccess) => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: "canopy_" })
  const requests = new Counter({
    name: "canopy_http_requests_total",
    help: "HTTP requests answered, by route template, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry]
  })
  const latency = new Histogram({
    name: "canopy_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route template and method",
    labelNames: ["route", "method"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry]
  })
  const refused = new Counter({
    name: "canopy_rate_limited_total",
    help: "Requests refused with 429 (rate limits, sign-in limits, a saturated geometry queue)",
    labelNames: ["route"] as const,
    registers: [registry]
  })
  const deliveries = new Counter({
    name: "canopy_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: success, retry (failed, another attempt scheduled), dead (failed for good), error (could not be recorded)",
    labelNames: ["outcome"] as const,
    registers: [registry]
  })
  // Every outcome from the start at 0, so that rates and alerts see the series before the first event.
  for (const outcome of ["success", "retry", "dead", "error"] as const) deliveries.inc({ outcome }, 0)
  const dbTime = new Histogram({
    name: "canopy_db_operation_duration_seconds",
    help: "Time of each storage operation, by operation (a transaction includes the operations in it)",
    labelNames: ["operation"] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry]
  })
  const dbChildren = new Map<string, ReturnType<typeof dbTime.labels>>()
  const meteringFailures = new Counter({
    name: "canopy_metering_failures_total",
    help: "Bookkeeping writes the database refused (full disk, read-only), by operation and reason: the requests were served unmetered",
    labelNames: ["operation", "reason"] as const,
    registers: [registry]
  })
  let outbox: OutboxSources = {}
  new Gauge({
    name: "canopy_outbox_oldest_due_seconds",
    help: "How long the earliest due webhook delivery has waited (0: none due; NaN: the database did not answer)",
    registers: [registry],
    async collect() {
      const nextDue = outbox.nextDue
      if (!nextDue) return this.set(0)
      const due = await withinScrape(nextDue)
      this.set(due === undefined ? Number.NaN : due === null ? 0 : Math.max(0, (Date.now() - due) / 1000))
    }
  })
  new Gauge({
    name: "canopy_outbox_pending_deliveries",
    help: `Webhook deliveries waiting to be sent, counted up to ${PENDING_COUNT_CAP} (NaN: the database did not answer)`,
    registers: [registry],
    async collect() {
      const pendingCount = outbox.pendingCount
      if (!pendingCount) return this.set(0)
      const n = await withinScrape(() => pendingCount(PENDING_COUNT_CAP))
      this.set(n === undefined ? Number.NaN : n)
    }
  })
  new Gauge({
    name: "canopy_webhook_deliveries_in_flight",
    help: "Webhook delivery attempts this process has in flight",
    registers: [registry],
    collect() {
      this.set(outbox.inFlight?.() ?? 0)
    }
  })
  const expected = access === "public" ? undefined : Buffer.from(`Bearer ${access.token}`)
  const allowed = (req: ApiRequest) => {
    if (!expected) return true
    const given = Buffer.from(String(req.headers.authorization ?? ""))
    return ConstantTime.equalBytes(given, expected)
  }
  return {
    /** Counts one answered request (give it every access-log line). */
    observe: (line: AccessLogLine) => {
      requests.inc({ route: line.route, method: line.method, status: String(line.status) })
      latency.observe({ route: line.route, method: line.method }, line.duration_ms / 1000)
      if (line.status === 429) refused.inc({ route: line.route })
    },
    /** Counts one delivery attempt's outcome. */
    delivery: (outcome: DeliveryOutcome) => deliveries.inc({ outcome }),
    /** Observes one storage operation's time. */
    dbTime: (operation: string, seconds: number) => {
      let child = dbChildren.get(operation)
      if (!child) dbChildren.set(operation, child = dbTime.labels(operation))
      child.observe(seconds)
    },
    /** Counts one bookkeeping write the database refused. */
    meteringFailure: (operation: string, reason: string) => meteringFailures.inc({ operation, reason }),
    /** Where the outbox gauges read from (set once the store and the dispatcher run). */
    watchOutbox: (sources: OutboxSources) => {
      outbox = sources
    },
    /** `GET /metrics`. */
    route: async (req: ApiRequest, requestId: string): Promise<ApiResponse> =>
      allowed(req)
        ? { status: 200, headers: { "content-type": registry.contentType, "cache-control": "no-store" }, body: await registry.metrics() }
        : refusal(requestId, new Errors.CredentialsMissing({ message: "/metrics needs the metrics token (Authorization: Bearer …)", malformed: false }))
  }
}
