/**
 * Temporary typed arrays for the synchronous geometry code, as views of one reused buffer. V8
 * gives every `new Int32Array(n)` memory of its own outside the heap — 2–6 µs for 1,000 elements,
 * and collector work afterwards — while a view of an existing buffer costs ~0.1 µs; a validation
 * takes some twenty arrays.
 *
 * A function takes its arrays inside `scratch(f)`; they are given back when `f` returns, so none
 * may outlive it (nothing kept, returned or cached). Scopes nest. Outside a scope, or when the
 * buffer is full, an array is allocated as usual; the buffer grows (to at most `MAX_BYTES`) once
 * no scope is open, to what the last scopes asked for.
 */

/** The most memory the buffer keeps: beyond it (boundaries of ~1,000,000 positions) arrays are allocated. */
const MAX_BYTES = 32 * 1024 * 1024

let buffer = new ArrayBuffer(256 * 1024)
let top = 0
let depth = 0
let wanted = 0

/** Runs `f` with the arrays it takes from here given back when it returns (or throws). */
export const scratch = <A>(f: () => A): A => {
  const mark = top
  depth++
  try {
    return f()
  } finally {
    depth--
    top = mark
    if (depth === 0 && wanted > buffer.byteLength) {
      buffer = new ArrayBuffer(Math.min(MAX_BYTES, 2 ** Math.ceil(Math.log2(wanted))))
      wanted = 0
    }
  }
}

/** Where `bytes` fit (8-byte aligned), or -1: outside a scope, or the buffer is full. */
const take = (bytes: number): number => {
  if (depth === 0) return -1
  const at = (top + 7) & ~7
  if (at + bytes > buffer.byteLength) {
    wanted = Math.max(wanted, at + bytes)
    return -1
  }
  top = at + bytes
  return at
}

/** A zeroed Int32Array of `length`, valid until the enclosing `scratch` returns. */
export const int32 = (length: number): Int32Array => {
  const at = take(length * 4)
  return at < 0 ? new Int32Array(length) : new Int32Array(buffer, at, length).fill(0)
}

/** A zeroed Float64Array of `length`, valid until the enclosing `scratch` returns. */
export const float64 = (length: number): Float64Array => {
  const at = take(length * 8)
  return at < 0 ? new Float64Array(length) : new Float64Array(buffer, at, length).fill(0)
}

/** A zeroed Uint8Array of `length`, valid until the enclosing `scratch` returns. */
export const uint8 = (length: number): Uint8Array => {
  const at = take(length)
  return at < 0 ? new Uint8Array(length) : new Uint8Array(buffer, at, length).fill(0)
}
