/**
 * Slugs (DECISIONS): NFKD, diacritics removed, lowercase, every run of characters that are not
 * letters or digits becomes one `-`, trimmed of `-`, at most 64 characters. Letters and digits of
 * any script are kept, so a name in Cyrillic or Japanese still gets a meaningful slug.
 */
import { Schema } from "effect"

/** Longest slug. */
export const MAX_LENGTH = 64
/** Used when a name has no letter or digit at all. */
export const FALLBACK = "untitled"

/** The slug derived from a name. */
export const fromName = (name: string): string => {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
  const cut = Array.from(slug).slice(0, MAX_LENGTH).join("").replace(/-+$/, "")
  return cut === "" ? FALLBACK : cut
}

const SLUG_PATTERN = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*$/u

/** Whether a string is already a slug (what `fromName` can produce). */
export const isSlug = (value: string): boolean =>
  SLUG_PATTERN.test(value) && value === value.toLowerCase() && value === value.normalize("NFKD") &&
  Array.from(value).length <= MAX_LENGTH

/** An explicit slug given on create or update. */
export const Slug = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter((s: string) => isSlug(s) || `must be lowercase letters and digits separated by single hyphens, at most ${MAX_LENGTH} characters`)
  )
)
