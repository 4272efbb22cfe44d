/**
 * Small pieces every service uses: request decoding into ValidationError, pagination figures,
 * and mapping a storage Duplicate to a Conflict.
 */
import { Effect, type Schema } from "effect"
import { Conflict, ValidationError } from "../Errors.ts"
import * as Schemas from "../Schemas.ts"
import * as Cursor from "../Cursor.ts"
import type * as S from "../Storage.ts"
import type { Duplicate } from "../Storage.ts"
import type * as Storage from "../storage/common.ts"
import type { DomainError } from "../Errors.ts"

/** A service operation: it fails with a domain error or a storage failure (the storage layer's `Fx` with `DomainError`). */
export type Fx<A> = Storage.Fx<A, DomainError>

/** Decodes a request body or query; fails with every problem as a ValidationError. */
export const decode = <S extends Schema.Decoder<unknown>>(schema: S, what = "request body") => {
  const run = Schemas.decodeRequest(schema)
  return (input: unknown): Effect.Effect<S["Type"], ValidationError> => {
    const r = run(input)
    return r._tag === "Success"
      ? Effect.succeed(r.success)
      : Effect.fail(new ValidationError({ message: `The ${what} is invalid`, details: [...r.failure] }))
  }
}

/** A list's window: page or cursor, per_page, and what the store needs. */
export interface ListWindow extends Schemas.Ordering {
  /** The page asked for; null when walking by cursor. */
  readonly page: number | null
  readonly per_page: number
  readonly limit: number
  readonly offset: number
  readonly after?: S.After | undefined
}

/**
 * The window of a decoded list query (its schema checked the cursor against the ordering and the
 * page depth): by `cursor` when given, else by `page`.
 */
export const window = (
  q: { readonly page?: number | undefined; readonly per_page?: number | undefined; readonly cursor?: string | undefined },
  ordering: Schemas.Ordering
): ListWindow => {
  const perPage = q.per_page ?? Schemas.limits.defaultPerPage
  const at = q.cursor === undefined ? undefined : Cursor.decode(q.cursor)
  return at
    ? { ...ordering, page: null, per_page: perPage, limit: perPage, offset: 0, after: { value: at.value, id: at.id } }
    : { ...ordering, page: q.page ?? 1, per_page: perPage, limit: perPage, offset: ((q.page ?? 1) - 1) * perPage }
}

/** List metadata: the spec's total, page, per_page, total_pages, and the cursor to the next page. */
export const listMeta = <R extends { readonly id: string }>(p: S.Page<R>, w: ListWindow, sortValue: (row: R) => string | number): ListMeta => {
  const last = p.rows[p.rows.length - 1]
  return {
    total: p.total,
    total_exact: p.totalExact,
    page: w.page,
    per_page: w.per_page,
    total_pages: Math.ceil(p.total / w.per_page),
    has_more: p.hasMore,
    next_cursor: p.hasMore && last ? Cursor.encode({ sort: w.sort, order: w.order, value: sortValue(last), id: last.id }) : null
  }
}

/** The metadata of a list response. */
export interface ListMeta {
  /** Matching rows; when `total_exact` is false, at least this many (counting stopped there). */
  readonly total: number
  readonly total_exact: boolean
  /** The page served; null when walking by cursor. */
  readonly page: number | null
  readonly per_page: number
  readonly total_pages: number
  /** Whether rows follow this page. */
  readonly has_more: boolean
  /** Pass as `cursor` for the next page; null on the last one. */
  readonly next_cursor: string | null
}

/** A list result: the resources and the list metadata. */
export interface ListResult<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: ListMeta
}

/**
 * Rows one purge batch deletes at most, and batches one maintenance purge runs at most: 20,000
 * rows a call. On SQLite a batch holds the event loop while it runs (a batch of 250 events with
 * their deliveries, 8–9 ms; 20,000 in one go held it about 400 ms), so batches stay small and
 * `inBatches` lets the loop turn between them.
 */
export const PURGE_BATCH = 250
export const PURGE_BATCHES = 80

/**
 * Runs a bounded delete (`deleteUpTo(limit)` deletes at most `limit` rows and says how many) in
 * batches of `batch` until one deletes fewer, at most `batches` times; answers the rows deleted.
 * Maintenance work stays bounded per run, and the event loop turns between batches, so a request
 * waits behind one batch at most.
 */
export const inBatches = <E>(deleteUpTo: (limit: number) => Effect.Effect<number, E>, batch = PURGE_BATCH, batches = PURGE_BATCHES) =>
  Effect.gen(function*() {
    let total = 0
    for (let i = 0; i < batches; i++) {
      if (i > 0) yield* Effect.yieldNow
      const n = yield* deleteUpTo(batch)
      total += n
      if (n < batch) break
    }
    return total
  })

/** Maps a storage Duplicate to a Conflict with the given message. */
export const conflictOnDuplicate =
  (message: (d: Duplicate) => string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, Duplicate> | Conflict, R> =>
    Effect.catch(self, (e): Effect.Effect<never, Exclude<E, Duplicate> | Conflict> =>
      (e as { _tag?: unknown })._tag === "Duplicate"
        ? Effect.fail(new Conflict({ message: message(e as Duplicate) }))
        : Effect.fail(e as Exclude<E, Duplicate>))
