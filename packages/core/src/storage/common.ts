/**
 * What every area of the storage contract shares: its two errors, pages and keyset positions, and
 * the column helpers the row schemas are written with.
 */
import { type Effect, Schema } from "effect"
import { RawJson } from "../RawJson.ts"

/** An unexpected storage failure (connection lost, disk full…). Never a business outcome. */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/** A write broke a uniqueness rule; nothing was changed. */
export class Duplicate extends Schema.TaggedError<Duplicate>()("Duplicate", {
  entity: Schema.String,
  field: Schema.String
}) {}

/** A storage operation: may fail with `E` or a `StorageError`. */
export type Fx<A, E = never> = Effect.Effect<A, E | StorageError>

/** A patch of a row: any subset of its mutable fields. */
export type Patch<Row, Immutable extends keyof Row = never> = Partial<Omit<Row, "id" | "account_id" | "created_at" | Immutable>>

/** Most rows a filtered list counts; beyond, `Page.totalExact` is false. */
export const COUNT_LIMIT = 10_000
/** Most matches a searched list counts; beyond, `Page.totalExact` is false. */
export const SEARCH_COUNT_LIMIT = 1_000
/** Fewest characters a search term needs: substring search runs on a trigram index. */
export const MIN_SEARCH = 3

/** A page of rows, whether more follow, and the count of matching rows. */
export interface Page<A> {
  readonly rows: ReadonlyArray<A>
  /** Matching rows: exact when `totalExact`, else `COUNT_LIMIT` (there are at least that many). */
  readonly total: number
  readonly totalExact: boolean
  /** Whether a row follows the last one of `rows`. */
  readonly hasMore: boolean
}

/** A position in a list's order: the sort value and id of the last row seen. */
export interface After {
  readonly value: string | number
  readonly id: string
}

/** The window a list asks for: `limit` rows from `offset`, or after a keyset position. */
export interface Window {
  readonly limit: number
  readonly offset: number
  /** Keyset position: rows strictly after it (then `offset` is ignored). */
  readonly after?: After | undefined
}

// ---------------------------------------------------------------------------------------------
// Column helpers. A row is one `Schema.Struct`; its type is `typeof XRow.Type`, and the SQL store
// derives each column's conversion from the field's schema once, when the module loads
// (`sql/codec.ts`): numbers, booleans, JSON (arrays, objects, tuples) and `RawJson` text.
// Rows are never decoded through Schema at run time.

/** Timestamps: ISO 8601 UTC strings with milliseconds. */
export const Timestamp = Schema.String
/** Scheduling times: epoch milliseconds. */
export const EpochMs = Schema.Number

/** A JSON value kept as its text (`RawJson`): stored and read as text, never parsed. */
export const RawJsonColumn = Schema.instanceOf(RawJson)

/** `[longitude, latitude]`, optionally with an altitude. */
const Position = Schema.Union([Schema.Tuple([Schema.Number, Schema.Number]), Schema.Tuple([Schema.Number, Schema.Number, Schema.Number])])
/** GeoJSON Point. */
export const PointColumn = Schema.Struct({ type: Schema.Literal("Point"), coordinates: Position })
/** `[minLon, minLat, maxLon, maxLat]`. */
export const BBoxColumn = Schema.Tuple([Schema.Number, Schema.Number, Schema.Number, Schema.Number])
/** A JSON object with any values. */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
/** A JSON list of strings. */
export const Strings = Schema.Array(Schema.String)
