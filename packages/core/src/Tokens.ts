/**
 * Secret token values: API keys, service tokens, invitation tokens (and, later, OAuth tokens).
 *
 * `<prefix>_<32 base62 characters: 190 random bits><6 base62 characters: CRC-32 checksum>`.
 * The visible prefix tells the kind, so a leaked token can be recognised by secret scanners, and
 * the checksum rejects typos and garbage without a database lookup. Only the SHA-256 of a value
 * is stored; a token has far too much entropy for a fast hash to be a weakness.
 */
import { hash as oneShotHash, randomBytes } from "node:crypto"
import { crc32 as zlibCrc32 } from "node:zlib"

/** The visible prefix of each kind of token. */
export const prefixes = {
  api_key: "cnp_key",
  service_token: "cnp_svc",
  invitation: "cnp_inv",
  oauth_access: "cnp_oat",
  oauth_refresh: "cnp_ort",
  oauth_code: "cnp_ocd",
  client_secret: "cnp_sec",
  session: "cnp_ses"
} as const
/** A kind of token. */
export type TokenKind = keyof typeof prefixes

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const BODY = 32
const CHECK = 6

/** CRC-32 (IEEE) of a string's UTF-8 bytes. */
export const crc32 = (s: string): number => zlibCrc32(s)

const base62 = (n: number, width: number): string => {
  let out = ""
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out
}

const randomBase62 = (n: number): string => {
  let out = ""
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += BASE62[b % 62] // 248 = 4·62: no modulo bias
    }
  }
  return out
}

/** A new token value of the given kind. */
export const generate = (kind: TokenKind): string => {
  const head = `${prefixes[kind]}_${randomBase62(BODY)}`
  return `${head}${base62(crc32(head), CHECK)}`
}

/** The kind of a well-formed token value (prefix known, checksum right), or undefined. */
export const kindOf = (value: string): TokenKind | undefined => {
  const m = /^(cnp_[a-z]{3})_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/.exec(value)
  if (!m) return undefined
  const kind = (Object.keys(prefixes) as Array<TokenKind>).find((k) => prefixes[k] === m[1])
  if (!kind) return undefined
  return base62(crc32(`${m[1]}_${m[2]}`), CHECK) === m[3] ? kind : undefined
}

/** SHA-256 of a token value, hex: what is stored. */
export const hash = (value: string): string => oneShotHash("sha256", value, "hex")

/** What a list shows of a token: its prefix and last four characters. */
export const hint = (value: string): string => `${value.slice(0, value.indexOf("_", 4) + 1)}…${value.slice(-4)}`
