/**
 * Building blocks of the schemas: DECISIONS' limits, names and descriptions, metadata, emails,
 * query parameters, timestamps and counts, and the pagination rules every list query shares.
 */
import { type JsonSchema, Schema } from "effect"
import * as Cursor from "../Cursor.ts"

/**
 * An email address as HTML's `<input type=email>` accepts it (the WHATWG rule: an ASCII local part
 * without quotes, spaces or angle brackets; a domain of LDH labels), with at least one dot in the
 * domain.
 */
const emailPattern = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/

/** Content limits (DECISIONS). */
export const limits = {
  name: 200,
  description: 5_000,
  metadataBytes: 16 * 1024,
  search: 200,
  searchMin: 3,
  maxOffset: 10_000,
  perPage: 100,
  defaultPerPage: 20,
  webhooksPerAccount: 25,
  email: 254,
  webhookSecretMin: 16,
  webhookSecretMax: 256,
  url: 2_048
} as const

/** A required human-readable name: not blank, at most 200 characters. */
export const Name = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => s.trim().length > 0 || "must not be empty")),
  Schema.check(Schema.makeFilter((s: string) => s.length <= limits.name || `must be at most ${limits.name} characters`))
)

/** A description: at most 5,000 characters. */
export const Description = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => s.length <= limits.description || `must be at most ${limits.description} characters`))
)

/** Free-form metadata: a JSON object of at most 16 KiB. */
export const Metadata = Schema.Record(Schema.String, Schema.Unknown).pipe(
  Schema.check(Schema.makeFilter((m: Readonly<Record<string, unknown>>) => {
    const size = Buffer.byteLength(JSON.stringify(m), "utf8")
    return size <= limits.metadataBytes || `must be at most ${limits.metadataBytes} bytes as JSON, got ${size}`
  }, { toJsonSchema: () => [{ additionalProperties: true }, true] }))
).annotate({ description: `Free-form JSON object (any keys), at most ${limits.metadataBytes} bytes as JSON`, examples: [{ serial: "WX-1042", height_m: 2.5 }] })

/** An email address (normalised to lowercase by the services). */
export const Email = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => (s.length <= limits.email && emailPattern.test(s)) || "must be an email address"))
)

/** An integer query parameter, given as a number or as a decimal string. */
const queryInt = (min: number, max: number) =>
  Schema.Union([Schema.Number, Schema.NumberFromString]).pipe(
    Schema.check(Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= min && n <= max) || `must be an integer from ${min} to ${max}`, // As it travels in a URL: an integer in the range (the reference keeps just this).
      { toJsonSchema: () => ({ type: "integer", minimum: min, maximum: max }) }))
  )

/** One of a list of strings, with a message that names them. */
export const literal = <const L extends ReadonlyArray<string>>(values: L) =>
  Schema.Literals(values).annotate({ message: `must be one of ${values.join(", ")}` })

/** A value typed `T` whose JSON Schema is `jsonSchema` (a GeoJSON geometry held as checked JSON, or as `RawJson` text). */
export const documented = <T>(jsonSchema: JsonSchema.JsonSchema) =>
  Schema.Any.pipe(Schema.refine((_u: unknown): _u is T => true, { toJsonSchema: () => jsonSchema }))

/** A JSON object with any keys, documented as such. */
export const AnyObject = (description: string) =>
  Schema.Record(Schema.String, Schema.Unknown).pipe(Schema.check(Schema.makeFilter(() => true, { toJsonSchema: () => [{ additionalProperties: true }, true] })))
    .annotate({ description })

/** Page number, from 1. */
export const Page = queryInt(1, 1_000_000)
/** Page size, 1 to 100. */
export const PerPage = queryInt(1, limits.perPage)
/** An opaque list cursor (a previous page's `meta.next_cursor`). */
export const ListCursor = Schema.String.pipe(Schema.check(Schema.isMaxLength(600)))
/** A search term: a case-insensitive substring, 3 to 200 characters (it runs on a trigram index). */
export const SearchTerm = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => s.length >= limits.searchMin || `must be at least ${limits.searchMin} characters`)),
  Schema.check(Schema.isMaxLength(limits.search))
)
/** Sort order. */
export const Order = literal(["asc", "desc"])

/** An ISO 8601 timestamp in a query. */
export const Timestamp8601 = Schema.String.pipe(Schema.check(Schema.makeFilter((s: string) => !Number.isNaN(Date.parse(s)) || "must be an ISO 8601 timestamp")))

/** A timestamp in a resource. */
export const Timestamp = Schema.String.annotate({ format: "date-time" })
export const NullableTimestamp = Schema.NullOr(Timestamp)
/** A count: a non-negative integer. */
export const Count = Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0)))
/** A measure (hectares, percent, milliseconds): a finite number, never NaN or Infinity. */
export const Measure = Schema.Finite

// ---------------------------------------------------------------------------------------------
// Pagination

/** A list's ordering: sort key and direction. */
export interface Ordering {
  readonly sort: string
  readonly order: "asc" | "desc"
}

/** Assets, events and delivery logs: newest first. */
export const newestFirst = (): Ordering => ({ sort: "created_at", order: "desc" })

/** The pagination parameters every list query takes. */
export const pageFields = {
  page: Schema.optionalKey(Page),
  per_page: Schema.optionalKey(PerPage),
  cursor: Schema.optionalKey(ListCursor)
}

type PageQuery = { readonly page?: number | undefined; readonly per_page?: number | undefined; readonly cursor?: string | undefined }

/**
 * A list query with its pagination rules: `cursor` (a previous page's `meta.next_cursor`) or
 * `page`, not both; a cursor only with the ordering it was made for; page numbers reach at most
 * `limits.maxOffset` rows deep (deeper lists are walked with cursors, at O(log n) a page).
 */
export const paginated = <S extends Schema.Codec<PageQuery, unknown>>(schema: S, ordering: (q: S["Type"]) => Ordering) =>
  schema.pipe(Schema.check(Schema.makeFilter((q: S["Type"]) => {
    const perPage = q.per_page ?? limits.defaultPerPage
    if (q.cursor !== undefined) {
      if (q.page !== undefined) return { path: ["cursor"], issue: "give either cursor or page, not both" }
      const at = Cursor.decode(q.cursor)
      if (!at) return { path: ["cursor"], issue: "is not a cursor this API returned (pass meta.next_cursor as it is)" }
      const o = ordering(q)
      if (at.sort !== o.sort || at.order !== o.order) {
        return { path: ["cursor"], issue: `was made for sort=${at.sort}&order=${at.order}; repeat those with it` }
      }
      return true
    }
    return (q.page ?? 1) * perPage <= limits.maxOffset ||
      { path: ["page"], issue: `pages reach at most ${limits.maxOffset} rows deep; walk further with cursor=<meta.next_cursor>` }
  })))
