/**
 * `application/x-www-form-urlencoded` bodies read within caps (the sign-in, consent, invitation
 * and dashboard forms, and the OAuth token endpoint): a body over its byte cap is refused before
 * it is decoded, and reading stops at the first field past its field cap, so a body of millions of
 * fields costs what the cap's worth of them costs.
 */
import { unescape } from "node:querystring"

/** What an urlencoded form may hold: its body's bytes and its number of fields. */
export interface FormCaps {
  readonly bytes: number
  readonly fields: number
}

/** The fields of a form in order (repeats kept), or why it was refused. */
export type UrlencodedRead =
  | { readonly ok: true; readonly pairs: ReadonlyArray<readonly [string, string]> }
  | { readonly ok: false; readonly message: string }

// `+` is a space; an invalid escape stays as it was (as browsers and URLSearchParams do)
const decode = (s: string) => unescape(s.replaceAll("+", " "))

/** Reads an urlencoded body within `caps`, as `URLSearchParams` would (empty pieces skipped). */
export const readUrlencoded = (body: Uint8Array | undefined, caps: FormCaps): UrlencodedRead => {
  const bytes = body ?? new Uint8Array()
  if (bytes.length > caps.bytes) return { ok: false, message: `The form is larger than ${caps.bytes} bytes.` }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")
  const pairs: Array<readonly [string, string]> = []
  // Empty pieces (`a&&b`) count too: the loop is bounded by the cap, never by the body.
  for (let start = 0, pieces = 0; start < text.length; pieces++) {
    if (pieces === caps.fields) return { ok: false, message: `The form has more than ${caps.fields} fields.` }
    const amp = text.indexOf("&", start)
    const piece = text.slice(start, amp < 0 ? text.length : amp)
    start = amp < 0 ? text.length : amp + 1
    if (piece === "") continue
    const eq = piece.indexOf("=")
    pairs.push(eq >= 0 ? [decode(piece.slice(0, eq)), decode(piece.slice(eq + 1))] : [decode(piece), ""])
  }
  return { ok: true, pairs }
}
