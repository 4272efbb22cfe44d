/**
 * `application/x-www-form-urlencoded` bodies read within caps (the sign-in, consent, invitation
 * and dashboard forms, and the OAuth token endpoint): a body over its byte cap is refused before
 * it is decoded, and reading stops at the first field past its field cap, so a body of millions of
 * fields costs what the cap's worth of them costs.
 */
/** What an urlencoded form may hold: its body's bytes and its number of fields. */
export interface FormCaps {
  readonly bytes: number
  readonly fields: number
}

/** The fields of a form in order (repeats kept), or why it was refused. */
export type UrlencodedRead =
  | { readonly ok: true; readonly pairs: ReadonlyArray<readonly [string, string]> }
  | { readonly ok: false; readonly message: string }

/** Each byte's value as a hexadecimal digit, or -1. */
const HEX = Int8Array.from({ length: 256 }, (_, b) => {
  const c = String.fromCharCode(b)
  return /^[0-9a-fA-F]$/.test(c) ? Number.parseInt(c, 16) : -1
})

/**
 * A name or value as `URLSearchParams` decodes it: `+` is a space, `%XX` a byte (an invalid escape
 * stays as it was), then UTF-8. Byte by byte, linear in its length (a string's `replaceAll` of
 * millions of `+`, or `decodeURIComponent`'s fallback, costs seconds on 5 MB).
 */
const decode = (bytes: Uint8Array, start: number, end: number): string => {
  const piece = bytes.subarray(start, end)
  if (piece.indexOf(0x2b) < 0 && piece.indexOf(0x25) < 0) return Buffer.from(piece.buffer, piece.byteOffset, piece.length).toString("utf8")
  const out = Buffer.allocUnsafe(piece.length)
  let n = 0
  for (let i = 0; i < piece.length; i++) {
    const b = piece[i]!
    const high = b === 0x25 && i + 2 < piece.length ? HEX[piece[i + 1]!]! : -1
    const low = high >= 0 ? HEX[piece[i + 2]!]! : -1
    if (low >= 0) {
      out[n++] = high * 16 + low
      i += 2
    } else {
      out[n++] = b === 0x2b ? 0x20 : b
    }
  }
  return out.toString("utf8", 0, n)
}

/** Reads an urlencoded body within `caps`, as `URLSearchParams` would (empty pieces skipped). */
export const readUrlencoded = (body: Uint8Array | undefined, caps: FormCaps): UrlencodedRead => {
  const bytes = body ?? new Uint8Array()
  if (bytes.length > caps.bytes) return { ok: false, message: `The form is larger than ${caps.bytes} bytes.` }
  const pairs: Array<readonly [string, string]> = []
  // Empty pieces (`a&&b`) count too: the loop is bounded by the cap, never by the body.
  for (let start = 0, pieces = 0; start < bytes.length; pieces++) {
    if (pieces === caps.fields) return { ok: false, message: `The form has more than ${caps.fields} fields.` }
    const amp = bytes.indexOf(0x26, start)
    const end = amp < 0 ? bytes.length : amp
    const eq = bytes.subarray(start, end).indexOf(0x3d)
    if (end > start) pairs.push(eq >= 0 ? [decode(bytes, start, start + eq), decode(bytes, start + eq + 1, end)] : [decode(bytes, start, end), ""])
    start = end + 1
  }
  return { ok: true, pairs }
}
