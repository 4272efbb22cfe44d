/**
 * Small pieces every service uses: request decoding into ValidationError, pagination figures,
 * and mapping a storage Duplicate to a Conflict.
 */
import { Effect, type Schema } from "effect"
import { Conflict, ValidationError } from "../Errors.ts"
import * as Schemas from "../Schemas.ts"
import type { Duplicate } from "../Storage.ts"

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

/** Page and per_page with their defaults, and the storage window. */
export const window = (q: { readonly page?: number | undefined; readonly per_page?: number | undefined }) => {
  const page = q.page ?? 1
  const perPage = q.per_page ?? Schemas.limits.defaultPerPage
  return { page, per_page: perPage, limit: perPage, offset: (page - 1) * perPage }
}

/** List metadata (spec): total, page, per_page, total_pages. */
export const listMeta = (total: number, w: { readonly page: number; readonly per_page: number }) => ({
  total,
  page: w.page,
  per_page: w.per_page,
  total_pages: Math.ceil(total / w.per_page)
})

/** A list result: the resources and the spec's list metadata. */
export interface ListResult<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: { readonly total: number; readonly page: number; readonly per_page: number; readonly total_pages: number }
}

/** Maps a storage Duplicate to a Conflict with the given message. */
export const conflictOnDuplicate = (message: (d: Duplicate) => string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, Duplicate> | Conflict, R> =>
    Effect.catch(self, (e): Effect.Effect<never, Exclude<E, Duplicate> | Conflict> =>
      (e as { _tag?: unknown })._tag === "Duplicate"
        ? Effect.fail(new Conflict({ message: message(e as Duplicate) }))
        : Effect.fail(e as Exclude<E, Duplicate>))
