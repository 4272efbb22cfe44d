/**
 * A JSON value kept as its text. A project's boundary can hold 100,000 positions (3.8 MB of JSON):
 * parsing it costs ~25 ms and serialising it again ~27 ms of the event loop. Stored, read and
 * answered as text, it is never parsed on the request path: the row carries the text, and
 * `stringify` splices it into the response or event verbatim.
 *
 * Plain `JSON.stringify` of a value holding a `RawJson` still gives the right JSON (through
 * `toJSON`, at the cost of a parse); `materialize` turns one into plain values for library users.
 *
 * A `RawJson` made where its text was already UTF-8 (a geometry worker's answer, moved to this
 * thread without a copy) keeps those bytes too: `chunks` hands them to a writer as they are, so
 * a response carrying a 3 MB boundary is not encoded (and its length not counted) character by
 * character on the event loop.
 */

/** A JSON value held as its (valid, compact) JSON text. */
export class RawJson {
  /** The JSON text, compact (as `JSON.stringify` writes it, or a boundary as it was sent without its whitespace). */
  readonly text: string
  #value: unknown
  #parsed = false
  #bytes: Uint8Array | undefined
  /** `bytes`, when given, must be `text` encoded as UTF-8; they are kept, not copied. */
  constructor(text: string, bytes?: Uint8Array) {
    this.text = text
    this.#bytes = bytes
  }

  /** The text as UTF-8, when it was made from bytes (see `fromBytes`); undefined otherwise. */
  get bytes(): Uint8Array | undefined {
    return this.#bytes
  }

  /** A RawJson of UTF-8 JSON text, keeping the bytes (for `chunks`) beside the decoded text. */
  static fromBytes(bytes: Uint8Array): RawJson {
    return new RawJson(decoder.decode(bytes), bytes)
  }

  /** Wraps a value by serialising it once. */
  static of(value: unknown): RawJson {
    return new RawJson(JSON.stringify(value))
  }

  /** The parsed value (parsed once, on first use). */
  value(): unknown {
    if (!this.#parsed) {
      this.#value = JSON.parse(this.text)
      this.#parsed = true
    }
    return this.#value
  }

  /** The marker `stringify` splices, while it runs; the parsed value otherwise. */
  toJSON(): unknown {
    if (splicing) {
      splicing.push(this)
      return `${splicing.nonce}${splicing.length - 1}`
    }
    return this.value()
  }
}

const decoder = new TextDecoder("utf-8")

let splicing: (Array<RawJson> & { nonce: string }) | undefined

const nonce = () => `\u0000raw-${Math.random().toString(36).slice(2)}-`

/**
 * `JSON.stringify(value)` in pieces: the JSON text between `RawJson`s, and each `RawJson`.
 * The markers put in their place start with a NUL and a random nonce, which no other string of
 * the value holds. Without a `RawJson` in the value there are no `parts`: `out` is the whole text.
 */
const splice = (value: unknown): { readonly out: string; readonly parts?: ReadonlyArray<string | RawJson> } => {
  const found = Object.assign([] as Array<RawJson>, { nonce: nonce() })
  const outer = splicing
  splicing = found
  let out: string
  try {
    out = JSON.stringify(value)
  } finally {
    splicing = outer
  }
  if (found.length === 0) return { out }
  // The marker string as JSON.stringify escapes it: the NUL becomes \u0000.
  const quoted = JSON.stringify(found.nonce)
  const prefix = quoted.slice(0, -1)
  const split = out.split(prefix)
  const parts: Array<string | RawJson> = [split[0]!]
  for (let i = 1; i < split.length; i++) {
    const part = split[i]!
    const end = part.indexOf("\"")
    parts.push(found[Number(part.slice(0, end))]!, part.slice(end + 1))
  }
  return { out, parts }
}

/**
 * `JSON.stringify(value)` with every `RawJson` inside written as its text, unparsed. The markers
 * put in their place start with a NUL and a random nonce, which no other string of the value holds.
 */
export const stringify = (value: unknown): string => {
  const { out, parts } = splice(value)
  if (!parts) return out
  let result = ""
  for (const p of parts) result += typeof p === "string" ? p : p.text
  return result
}

/**
 * `stringify(value)` as the pieces to write one after another: the text alone (a string) when no
 * `RawJson` inside carries its UTF-8 bytes; otherwise strings and, for each such `RawJson`, its
 * bytes, as they are (not copied). Written in order, the pieces are exactly `stringify(value)`
 * in UTF-8.
 */
export const chunks = (value: unknown): string | ReadonlyArray<string | Uint8Array> => {
  const { out, parts } = splice(value)
  if (!parts) return out
  if (!parts.some((p) => typeof p !== "string" && p.bytes !== undefined)) {
    let result = ""
    for (const p of parts) result += typeof p === "string" ? p : p.text
    return result
  }
  const pieces: Array<string | Uint8Array> = []
  let text = ""
  for (const p of parts) {
    const bytes = typeof p === "string" ? undefined : p.bytes
    if (bytes === undefined) {
      text += typeof p === "string" ? p : p.text
      continue
    }
    if (text !== "") pieces.push(text)
    pieces.push(bytes)
    text = ""
  }
  if (text !== "") pieces.push(text)
  return pieces
}

/**
 * The type of `materialize(value)`: each `RawJson` left out of the unions it is in (a schema that
 * carries one says what it holds, e.g. `Geometry.Boundary | RawJson`), through objects and arrays.
 */
export type Materialized<A> = A extends RawJson ? never : A extends object ? { [K in keyof A]: Materialized<A[K]> } : A

/** A copy of `value` with every `RawJson` (in it, its arrays and plain objects) replaced by its parsed value. */
export const materialize = <A>(value: A): Materialized<A> => {
  if (value instanceof RawJson) return value.value() as Materialized<A>
  if (Array.isArray(value)) return value.map(materialize) as Materialized<A>
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    let copy: Record<string, unknown> | undefined
    for (const [k, v] of Object.entries(value)) {
      const m = materialize(v)
      if (m !== v) (copy ??= { ...value as Record<string, unknown> })[k] = m
    }
    return (copy ?? value) as Materialized<A>
  }
  return value as Materialized<A>
}
