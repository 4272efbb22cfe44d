/**
 * Rows to and from SQL columns, derived once (when the module loads) from each row's Schema in
 * `storage/`: a `Schema.Number` field is a numeric column, `Schema.Boolean` an integer 0/1,
 * arrays, tuples, structs and records JSON text, a `RawJson` field JSON text kept unparsed;
 * strings and literals pass through. A nullable field (`Schema.NullOr`) keeps its nulls. Rows are
 * converted by these plans, never decoded through Schema (lists of 100 rows on every request).
 */
import type { Schema, SchemaAST } from "effect"
import type { Row } from "effect/sql/SqlConnection"
import { RawJson } from "../RawJson.ts"
import * as S from "../Storage.ts"
import { RawJsonColumn } from "../storage/common.ts"

type Kind = "json" | "raw" | "bool" | "num" | "text"

interface Column {
  readonly name: string
  readonly kind: Kind
  readonly nullable: boolean
}

/** A field's column kind, from its schema's AST. */
const columnOf = (name: string, ast: SchemaAST.AST): Column => {
  const members = ast._tag === "Union" ? ast.types.filter((t) => t._tag !== "Null") : [ast]
  const nullable = ast._tag === "Union" && members.length < ast.types.length
  const kinds = new Set(members.map((t): Kind => {
    switch (t._tag) {
      case "Number":
        return "num"
      case "Boolean":
        return "bool"
      case "Arrays":
      case "Objects":
        return "json"
      case "Declaration":
        if (t === RawJsonColumn.ast) return "raw"
        throw new Error(`storage column ${name}: a declared type other than RawJson has no SQL codec`)
      case "String":
      case "Literal":
        return "text"
      case "Union":
        return t.types.every((u) => u._tag === "Literal" && typeof u.literal === "string") ? "text" : "json"
      default:
        throw new Error(`storage column ${name}: no SQL codec for a ${t._tag} field`)
    }
  }))
  if (kinds.size !== 1) throw new Error(`storage column ${name}: mixed column kinds`)
  return { name, kind: [...kinds][0]!, nullable }
}

/** How one table's rows convert: its columns needing conversion, by kind. */
export interface Codec {
  readonly json: ReadonlyArray<string>
  readonly raw: ReadonlyArray<string>
  readonly bool: ReadonlyArray<string>
  readonly num: ReadonlyArray<string>
  readonly numOrNull: ReadonlyArray<string>
}

const codecOf = (schema: Schema.Struct<Schema.Struct.Fields>): Codec => {
  const columns = Object.entries(schema.fields).map(([name, field]) => columnOf(name, field.ast))
  const named = (p: (c: Column) => boolean) => columns.filter(p).map((c) => c.name)
  return {
    json: named((c) => c.kind === "json"),
    raw: named((c) => c.kind === "raw"),
    bool: named((c) => c.kind === "bool"),
    num: named((c) => c.kind === "num" && !c.nullable),
    numOrNull: named((c) => c.kind === "num" && c.nullable)
  }
}

/** Each table's row schema. */
const schemas = {
  accounts: S.AccountRow,
  members: S.MemberRow,
  invitations: S.InvitationRow,
  sessions: S.SessionRow,
  projects: S.ProjectRow,
  assets: S.AssetRow,
  webhooks: S.WebhookRow,
  events: S.EventRow,
  deliveries: S.DeliveryRow,
  delivery_logs: S.DeliveryLogRow,
  credentials: S.CredentialRow,
  oauth_clients: S.OAuthClientRow,
  oauth_codes: S.OAuthCodeRow,
  oauth_tokens: S.OAuthTokenRow,
  imports: S.ImportRow,
  import_results: S.ImportResultRow
} as const

/** The tables whose rows `fromDb` converts. */
export type Table = keyof typeof schemas

/** Each table's codec, derived once. */
const codecs: { readonly [T in Table]: Codec } = Object.fromEntries(
  Object.entries(schemas).map(([table, schema]) => [table, codecOf(schema as unknown as Schema.Struct<Schema.Struct.Fields>)])
) as never

/** A JSON value as text (null stays null). */
export const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v))
/** JSON text as its value (null stays null). */
export const parse = <A>(v: unknown): A => (v === null || v === undefined ? (null as A) : (JSON.parse(String(v)) as A))
/** A numeric column's value, null kept. */
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/** A row (or patch) of `table` as columns: JSON as text, booleans as 0/1, `RawJson` as its text. */
export const toDb = (table: Table, row: object): Record<string, unknown> => {
  const c = codecs[table]
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(row)) {
    if (v === undefined) continue
    out[k] = v instanceof RawJson ? v.text : c.json.includes(k) ? json(v) : c.bool.includes(k) ? (v ? 1 : 0) : v
  }
  return out
}

/** A driver row of `table` as the storage contract's row (JSON, booleans, numbers). */
export const fromDb = <A>(table: Table, row: Row | undefined): A | undefined => {
  if (!row) return undefined
  const c = codecs[table]
  const out: Record<string, unknown> = { ...row }
  if (table === "projects") {
    // the store's own columns (sql/projects.ts), not the row's
    delete out.boundary_key
    delete out.zoom_cell
  }
  for (const k of c.json) out[k] = parse(out[k])
  for (const k of c.raw) out[k] = out[k] === null || out[k] === undefined ? null : new RawJson(String(out[k]))
  for (const k of c.bool) out[k] = Boolean(Number(out[k]))
  for (const k of c.num) out[k] = Number(out[k])
  for (const k of c.numOrNull) out[k] = numOrNull(out[k])
  return out as A
}
