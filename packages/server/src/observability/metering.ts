/**
 * When the database refuses the writes that only keep books (metering a request: its rate-limit
 * bucket and usage count; a credential's `last_used_at`), reads are served anyway, unmetered
 * (docs/decisions.md). Each refusal is counted (`canopy_metering_failures_total`) and the first
 * of each interval is logged: one JSON line on stderr with the operation, the database's reason
 * and how many were refused since the last line. Nothing of the request is logged.
 */

/** Options of the reporter. */
export interface MeteringReporterOptions {
  /** Counts one refusal (the metric). */
  readonly count?: ((operation: string, reason: string) => void) | undefined
  /** Writes a log line; default: stderr. */
  readonly write?: ((line: string) => void) | undefined
  /** At most one line per this many ms; default 60,000. */
  readonly intervalMs?: number | undefined
}

/** A reporter of refused bookkeeping writes: `(operation, reason) => void`. */
export const meteringReporter = (options: MeteringReporterOptions = {}) => {
  const interval = options.intervalMs ?? 60_000
  const write = options.write ?? ((line: string) => process.stderr.write(line))
  let lastLogged = -Infinity
  let unlogged = 0
  return (operation: string, reason: string) => {
    options.count?.(operation, reason)
    unlogged++
    const now = performance.now()
    if (now - lastLogged < interval) return
    lastLogged = now
    write(`${
      JSON.stringify({
        time: new Date().toISOString(),
        component: "metering",
        level: "warn",
        operation,
        reason,
        refused: unlogged,
        message: "the database refuses writes: reads are served unmetered, writes answer 503"
      })
    }\n`)
    unlogged = 0
  }
}
