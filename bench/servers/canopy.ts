/**
 * Canopy's server for the benchmarks: full authentication, rate limiting and usage counting; the
 * delivery loop runs unless BENCH_DISPATCHER=0. Prints its port.
 */
import { ownProcessDefaults, serve } from "@canopy/server"

ownProcessDefaults() // as `canopy serve` does

const [where] = process.argv.slice(2) as [string]
const database = where.startsWith("postgres://") ? { databaseUrl: where } : { db: where }
// Rate limiting runs on every request; the limits are high enough that the load is never refused.
const big = { requestsPerMinute: 10_000_000, requestsPerDay: null, hectares: 1e12, members: 1_000, apiRequestsPerPeriod: 1e12 }
// The soak shortens event retention and runs the maintenance more often (BENCH_EVENT_RETENTION_MS, BENCH_MAINTENANCE_MS).
const retention = process.env.BENCH_EVENT_RETENTION_MS
  ? { eventRetentionMs: Number(process.env.BENCH_EVENT_RETENTION_MS), deliveryLogRetentionMs: Number(process.env.BENCH_EVENT_RETENTION_MS) }
  : {}
const maintenance = process.env.BENCH_MAINTENANCE_MS ? { maintenanceEveryMs: Number(process.env.BENCH_MAINTENANCE_MS) } : {}
const running = await serve({
  port: 0,
  ...database,
  log: false,
  dispatcher: process.env.BENCH_DISPATCHER === "0" ? false : maintenance,
  // As `canopy serve` does: the geometry workers start with the server, not with the first large boundary.
  // BENCH_GEOMETRY_THRESHOLD and BENCH_GEOMETRY_NICENESS set the pool's options of those names.
  geometry: {
    prewarm: true,
    ...(process.env.BENCH_GEOMETRY_THRESHOLD ? { threshold: Number(process.env.BENCH_GEOMETRY_THRESHOLD) } : {}),
    ...(process.env.BENCH_GEOMETRY_NICENESS ? { niceness: Number(process.env.BENCH_GEOMETRY_NICENESS) } : {})
  },
  // /metrics to anyone on loopback: the star benchmark reads the server's own event-loop delay there.
  // BENCH_METRICS=0: none (nor the per-operation timing behind it), as a server without /metrics.
  metrics: process.env.BENCH_METRICS === "0" ? false : "public",
  settings: { plans: { free: big, pro: big, enterprise: big }, allowInsecureWebhooks: true, ...retention }
})
process.stdout.write(`${running.port}\n`)
