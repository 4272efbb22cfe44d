/**
 * A JSON value kept as its text. A project's boundary can hold 100,000 positions (3.8 MB of JSON):
 * parsing it costs ~25 ms and serialising it again ~27 ms of the event loop. Stored, read and
 * answered as text, it is never parsed on the request path: the row carries the text, and
 * `stringify` splices it into the response or event verbatim.
 *
 * Plain `JSON.stringify` of a value holding a `RawJson` still gives the right JSON (through
 * `toJSON`, at the cost of a parse); `materialize` turns one into plain values for library users.
 */

/** A JSON value held as its (valid, compact) JSON text. */
export class RawJson {
  /** The JSON text, as `JSON.stringify` wrote it. */
  readonly text: string
  #value: unknown
  #parsed = false
  constructor(text: string) {
    this.text = text
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
      splicing.push(this.text)
      return `${splicing.nonce}${splicing.length - 1}`
    }
    return this.value()
  }
}

let splicing: (Array<string> & { nonce: string }) | undefined

const nonce = () => `\u0000raw-${Math.random().toString(36).slice(2)}-`

/**
 * `JSON.stringify(value)` with every `RawJson` inside written as its text, unparsed. The markers
 * put in their place start with a NUL and a random nonce, which no other string of the value holds.
 */
export const stringify = (value: unknown): string => {
  const texts = Object.assign([] as Array<string>, { nonce: nonce() })
  const outer = splicing
  splicing = texts
  let out: string
  try {
    out = JSON.stringify(value)
  } finally {
    splicing = outer
  }
  if (texts.length === 0) return out
  // The marker string as JSON.stringify escapes it: the NUL becomes \u0000.
  const quoted = JSON.stringify(texts.nonce)
  const prefix = quoted.slice(0, -1)
  const parts = out.split(prefix)
  let result = parts[0]!
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!
    const end = part.indexOf("\"")
    result += texts[Number(part.slice(0, end))]! + part.slice(end + 1)
  }
  return result
}

/** A copy of `value` with every `RawJson` (in it, its arrays and plain objects) replaced by its parsed value. */
export const materialize = <A>(value: A): A => {
  if (value instanceof RawJson) return value.value() as A
  if (Array.isArray(value)) return value.map(materialize) as A
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    let copy: Record<string, unknown> | undefined
    for (const [k, v] of Object.entries(value)) {
      const m = materialize(v)
      if (m !== v) (copy ??= { ...value as Record<string, unknown> })[k] = m
    }
    return (copy ?? value) as A
  }
  return value
}
