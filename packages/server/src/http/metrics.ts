/**
 * Prometheus metrics at `/metrics`, with `prom-client`: requests by route template, method and
 * status, their latency, rate-limit refusals, and the process's own figures (event-loop lag, heap,
 * CPU, GC). Off unless configured: with a token, a scrape must send `Authorization: Bearer TOKEN`
 * (compared in constant time); `public` serves it to anyone who can reach the port.
 */
import { timingSafeEqual } from "node:crypto"
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client"
import { type AccessLogLine, type ApiRequest, type ApiResponse, errorResponse } from "./handler.ts"

/** Who may read `/metrics`. */
export type MetricsAccess = { readonly token: string } | "public"

/** The metrics of one application: what the access log feeds, and the `/metrics` route. */
export const makeMetrics = (access: MetricsAccess) => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: "canopy_" })
  const requests = new Counter({
    name: "canopy_http_requests_total", help: "HTTP requests answered, by route template, method and status",
    labelNames: ["route", "method", "status"] as const, registers: [registry]
  })
  const latency = new Histogram({
    name: "canopy_http_request_duration_seconds", help: "Time to answer an HTTP request, by route template and method",
    labelNames: ["route", "method"] as const, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry]
  })
  const refused = new Counter({
    name: "canopy_rate_limited_total", help: "Requests refused with 429 (rate limits, sign-in limits, a saturated geometry queue)",
    labelNames: ["route"] as const, registers: [registry]
  })
  const expected = access === "public" ? undefined : Buffer.from(`Bearer ${access.token}`)
  const allowed = (req: ApiRequest) => {
    if (!expected) return true
    const given = Buffer.from(String(req.headers.authorization ?? ""))
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
  return {
    /** Counts one answered request (give it every access-log line). */
    observe: (line: AccessLogLine) => {
      requests.inc({ route: line.route, method: line.method, status: String(line.status) })
      latency.observe({ route: line.route, method: line.method }, line.duration_ms / 1000)
      if (line.status === 429) refused.inc({ route: line.route })
    },
    /** `GET /metrics`. */
    route: async (req: ApiRequest, requestId: string): Promise<ApiResponse> =>
      allowed(req)
        ? { status: 200, headers: { "content-type": registry.contentType, "cache-control": "no-store" }, body: await registry.metrics() }
        : errorResponse(401, requestId, "UNAUTHORIZED", "/metrics needs the metrics token (Authorization: Bearer …)", [], { "www-authenticate": "Bearer" })
  }
}
