/**
 * List cursors: an opaque token for "the rows after this one" in a list's order (keyset
 * pagination), so that a deep page costs O(log n + page) instead of O(offset). A cursor names the
 * sort it was made for; using it with another sort is a validation error, not a silent jump.
 */
import type { After } from "./Storage.ts"

/** A position in one ordering of a list. */
export interface Position extends After {
  readonly sort: string
  readonly order: "asc" | "desc"
}

/** Longest cursor accepted (a cursor carries one sort value and one id). */
export const MAX_LENGTH = 600

const toBase64Url = (s: string) => Buffer.from(s, "utf8").toString("base64url")

/** The opaque cursor for a position. */
export const encode = (p: Position): string => toBase64Url(JSON.stringify([p.sort, p.order, p.value, p.id]))

/** The position a cursor names, or undefined when it is not one of ours. */
export const decode = (cursor: string): Position | undefined => {
  if (cursor.length > MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    if (!Array.isArray(parsed) || parsed.length !== 4) return undefined
    const [sort, order, value, id] = parsed as [unknown, unknown, unknown, unknown]
    if (typeof sort !== "string" || (order !== "asc" && order !== "desc") || typeof id !== "string") return undefined
    if (!(typeof value === "string" || (typeof value === "number" && Number.isFinite(value)))) return undefined
    return { sort, order, value, id }
  } catch {
    return undefined
  }
}
