/**
 * A cursor positioned in the middle of the default-sorted project list, without walking to it.
 *
 * The page after page 1 gives a real `meta.next_cursor`, whose "position" is page 1's last row.
 * That cursor is decoded — with the server's own `Cursor` module when `@canopy/core` exports one
 * (or packages/core/src/Cursor.ts exists), else as base64url/base64 JSON — every value taken from
 * page 1's last row (id, created_at, …) is replaced by the same field of the row just before the
 * middle (read from the database), and it is encoded again the same way. The page it answers is
 * checked against the database's row at offset n/2. When there is no `next_cursor` at all, a
 * Stripe-style `starting_after=<id>` is tried; when the cursor cannot be rebuilt, the page after
 * page 1 is measured instead and the output says so.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { call } from "./measure.ts"

/** A project row as the database holds it (the fields a cursor may carry). */
export interface DbRow {
  readonly id: string
  readonly created_at: string
  readonly name: string
  readonly slug: string
  readonly area_hectares: number
  readonly sort_name: string
}

export type CursorPlan =
  | { readonly kind: "mid"; readonly path: string; readonly how: string; readonly verified: boolean }
  | { readonly kind: "next"; readonly path: string; readonly note: string }
  | { readonly kind: "none"; readonly note: string }

type Codec = { readonly name: string; readonly decode: (s: string) => unknown; readonly encode: (v: unknown) => unknown }

/** Unwraps an Option, Result or Either; anything else as it is. */
const unwrap = (v: unknown): unknown => {
  if (typeof v !== "object" || v === null || !("_tag" in v)) return v
  const o = v as Record<string, unknown>
  switch (o._tag) {
    case "Some":
      return o.value
    case "Success":
      return o.success
    case "Right":
      return o.right
    case "None":
    case "Failure":
    case "Left":
      return undefined
    default:
      return v
  }
}

const serverCodec = async (): Promise<Codec | undefined> => {
  let mod: Record<string, unknown> | undefined
  try {
    const core = (await import("@canopy/core")) as unknown as Record<string, unknown>
    if (typeof core.Cursor === "object" && core.Cursor !== null) mod = core.Cursor as Record<string, unknown>
  } catch { /* no core */ }
  const file = join(import.meta.dirname, "..", "..", "packages", "core", "src", "Cursor.ts")
  if (!mod && existsSync(file)) mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>
  if (!mod || typeof mod.encode !== "function" || typeof mod.decode !== "function") return undefined
  const { encode, decode } = mod as { encode: (v: unknown) => unknown; decode: (s: string) => unknown }
  return { name: "the server's Cursor module", decode: (s) => unwrap(decode(s)), encode: (v) => unwrap(encode(v)) }
}

const jsonCodecs: ReadonlyArray<Codec> = [
  { name: "base64url JSON", decode: (s) => JSON.parse(Buffer.from(s, "base64url").toString("utf8")),
    encode: (v) => Buffer.from(JSON.stringify(v)).toString("base64url") },
  { name: "base64 JSON", decode: (s) => JSON.parse(Buffer.from(s, "base64").toString("utf8")),
    encode: (v) => Buffer.from(JSON.stringify(v)).toString("base64") },
  { name: "JSON", decode: (s) => JSON.parse(s), encode: (v) => JSON.stringify(v) }
]

/** Replaces every value equal to one of `from`'s by the matching one of `to`'s; counts the ids replaced. */
const substitute = (value: unknown, pairs: ReadonlyArray<readonly [unknown, unknown]>, ids: { n: number }, idValue: unknown): unknown => {
  if (Array.isArray(value)) return value.map((v) => substitute(v, pairs, ids, idValue))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, pairs, ids, idValue)]))
  }
  for (const [from, to] of pairs) {
    if (value === from) {
      if (from === idValue) ids.n++
      return to
    }
  }
  return value
}

interface ApiRow {
  readonly id: string
  readonly created_at: string
  readonly name: string
  readonly slug: string
  readonly area_hectares: number
}

const getJson = async (url: string, token: string) => {
  const a = await call(url, { token })
  let json: { data?: Array<ApiRow>; meta?: Record<string, unknown> } | undefined
  try {
    json = JSON.parse(a.body)
  } catch {
    json = undefined
  }
  return { status: a.status, json }
}

/**
 * The plan for the "cursor page in the middle" figure: `prev` is the row just before offset n/2,
 * `firstIds` the ids that may stand at offset n/2 (one per tie-break order).
 */
export const midCursor = async (base: string, token: string, prev: DbRow, firstIds: ReadonlySet<string>): Promise<CursorPlan> => {
  const list = "/v1/projects?per_page=100"
  const page1 = await getJson(`${base}${list}`, token)
  const next = page1.json?.meta?.next_cursor
  if (typeof next !== "string" || next === "") {
    const path = `${list}&starting_after=${encodeURIComponent(prev.id)}`
    const tried = await getJson(`${base}${path}`, token)
    if (tried.status === 200 && tried.json?.data?.[0] && firstIds.has(tried.json.data[0].id)) {
      return { kind: "mid", path, how: "starting_after=<id>", verified: true }
    }
    return { kind: "none", note: "no meta.next_cursor in list answers yet" }
  }
  const nextPath = `${list}&cursor=${encodeURIComponent(next)}`
  const last = page1.json?.data?.at(-1)
  if (!last) return { kind: "next", path: nextPath, note: "page 1 was empty" }
  const pairs: Array<readonly [unknown, unknown]> = [
    [last.id, prev.id],
    [last.created_at, prev.created_at],
    [Date.parse(last.created_at), Date.parse(prev.created_at)],
    [last.name, prev.name],
    [last.name.toLowerCase(), prev.sort_name],
    [last.slug, prev.slug],
    [last.area_hectares, prev.area_hectares]
  ]
  const server = await serverCodec()
  const tried: Array<string> = []
  for (const codec of server ? [server, ...jsonCodecs] : jsonCodecs) {
    let cursor: unknown
    try {
      const decoded = codec.decode(next)
      if (decoded === undefined) continue
      const ids = { n: 0 }
      const moved = substitute(decoded, pairs, ids, last.id)
      if (ids.n === 0) continue
      cursor = codec.encode(moved)
    } catch {
      continue
    }
    if (typeof cursor !== "string") continue
    const path = `${list}&cursor=${encodeURIComponent(cursor)}`
    const page = await getJson(`${base}${path}`, token)
    if (page.status !== 200) {
      tried.push(`${codec.name}: ${page.status}`)
      continue
    }
    return { kind: "mid", path, how: `cursor rebuilt with ${codec.name}`, verified: !!page.json?.data?.[0] && firstIds.has(page.json.data[0].id) }
  }
  return {
    kind: "next",
    path: nextPath,
    note: `mid cursor not available (${server ? "" : "no Cursor module in @canopy/core; "}${
      tried.length ? `refused: ${tried.join(", ")}` : "cursor is opaque"
    }): measured the page after page 1 via meta.next_cursor`
  }
}
