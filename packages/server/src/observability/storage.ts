/**
 * What the server adds around the store it opens: the time of every storage operation (for the
 * `canopy_db_operation_duration_seconds` histogram), and bookkeeping writes that may be skipped
 * when the database refuses writes (full disk, read-only): a credential's `last_used_at` is not
 * worth failing a read for. `writeRefusal` recognises such a refusal, on SQLite and PostgreSQL.
 */
import { type Canopy, Storage } from "@canopy/core"
import { Effect, Layer } from "effect"

/**
 * The reason when a failure (a `StorageError`, whatever wraps it) says the database refuses
 * writes while it may still answer reads: `SQLITE_FULL`, `SQLITE_READONLY`, `SQLITE_IOERR` (and
 * their extended codes), PostgreSQL's `disk_full` (53100) and `read_only_sql_transaction`
 * (25006); else undefined. The cause chain is walked (`cause`, `reason`); nothing else is read.
 */
export const writeRefusal = (failure: unknown): string | undefined => {
  let node: unknown = failure
  const seen = new Set<unknown>()
  for (let depth = 0; depth < 8 && node !== null && typeof node === "object" && !seen.has(node); depth++) {
    seen.add(node)
    const code = (node as { code?: unknown }).code
    if (typeof code === "string") {
      const sqlite = /^SQLITE_(FULL|READONLY|IOERR)/.exec(code)
      if (sqlite) return `SQLITE_${sqlite[1]}`
      if (code === "53100") return "disk_full"
      if (code === "25006") return "read_only_sql_transaction"
    }
    const next: { cause?: unknown; reason?: unknown } = node as never
    node = next.cause !== undefined && next.cause !== node ? next.cause : next.reason
  }
  return undefined
}

/** Storage operations that only keep books, skipped (and reported) when the database refuses writes. */
const SKIPPABLE: ReadonlySet<string> = new Set(["credentials.touch"])

/** Options of `instrumentStorage`. */
export interface InstrumentOptions {
  /** Observes the seconds each storage operation took, by name (`projects.get`, `transaction`…). */
  readonly observe?: ((operation: string, seconds: number) => void) | undefined
  /** Told when a skippable bookkeeping write was refused and skipped. */
  readonly onRefused?: ((operation: string, reason: string) => void) | undefined
}

/**
 * The provider's store with every operation timed (when `observe` is given) and bookkeeping
 * writes skipped when the database refuses them, each by its path (`group.operation`).
 */
export const instrumentStorage = (provider: Canopy.StorageProvider, options: InstrumentOptions): Canopy.StorageProvider => {
  const observe = options.observe
  const timed = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    observe === undefined ? effect : Effect.suspend(() => {
      const started = performance.now()
      return Effect.ensuring(effect, Effect.sync(() => observe(operation, (performance.now() - started) / 1000)))
    })
  const tolerant = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A | void, E, R> =>
    SKIPPABLE.has(operation)
      ? Effect.catchIf(effect, (e) => writeRefusal(e) !== undefined, (e) => Effect.sync(() => options.onRefused?.(operation, writeRefusal(e) ?? "unknown")))
      : effect
  return {
    layer: Layer.effect(Storage.Storage, Effect.gen(function*() {
      return Storage.mapOperations(yield* Storage.Storage, (operation, effect) => tolerant(operation, timed(operation, effect)))
    }))
      .pipe(Layer.provide(provider.layer))
  }
}
