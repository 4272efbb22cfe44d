/**
 * Scratch arrays (internal/scratch.ts): zeroed whatever the last scope left in them, apart from
 * one another while a scope lasts, given back when it returns or throws (the next scope gets the
 * same memory), allocated as usual outside a scope or past the buffer, and the buffer grown for
 * the next scope when one asked for more than it had.
 */
import { assert, describe, it } from "@effect/vitest"
import { float64, int32, scratch, uint8 } from "../src/internal/scratch.ts"

describe("scratch", () => {
  it("gives zeroed arrays that do not overlap while the scope lasts, and the same memory to the next scope", () => {
    const first = scratch(() => {
      const a = int32(100), b = float64(50), c = uint8(7), d = int32(3)
      for (const arr of [a, b, c, d]) assert.isTrue(arr.every((v) => v === 0))
      a.fill(-1)
      b.fill(2.5)
      c.fill(9)
      d.fill(4)
      assert.isTrue(a.every((v) => v === -1) && b.every((v) => v === 2.5) && c.every((v) => v === 9) && d.every((v) => v === 4))
      // Views of one buffer, laid out one after another, 8-byte aligned.
      assert.strictEqual(a.buffer, b.buffer)
      assert.isTrue(b.byteOffset >= a.byteOffset + a.byteLength && b.byteOffset % 8 === 0)
      return { buffer: a.buffer, offset: a.byteOffset }
    })
    scratch(() => {
      const again = int32(100)
      assert.strictEqual(again.buffer, first.buffer)
      assert.strictEqual(again.byteOffset, first.offset)
      assert.isTrue(again.every((v) => v === 0)) // zeroed, though the last scope wrote -1 there
    })
  })

  it("nests: an inner scope's arrays come after the outer's, and are given back when it returns", () => {
    scratch(() => {
      const outer = int32(10).fill(7)
      const inner = scratch(() => {
        const x = int32(10).fill(8)
        assert.isTrue(x.byteOffset >= outer.byteOffset + outer.byteLength)
        return x.byteOffset
      })
      assert.strictEqual(int32(10).byteOffset, inner) // the inner scope's memory, free again
      assert.isTrue(outer.every((v) => v === 7))
    })
  })

  it("gives the memory back when the scope throws", () => {
    const before = scratch(() => int32(1).byteOffset)
    assert.throws(() =>
      scratch(() => {
        int32(1000)
        throw new Error("boom")
      }), "boom")
    assert.strictEqual(scratch(() => int32(1).byteOffset), before)
  })

  it("allocates outside a scope and past the buffer, then grows the buffer for the next scope", () => {
    const outside = int32(4)
    assert.strictEqual(outside.byteOffset, 0)
    assert.strictEqual(outside.buffer.byteLength, 16) // its own memory
    const big = 1_000_000 // 8 MB of Float64: more than the buffer holds at first
    const first = scratch(() => {
      const a = float64(big)
      return a.buffer.byteLength === a.byteLength // allocated as usual
    })
    assert.isTrue(first)
    scratch(() => {
      const a = float64(big)
      assert.isTrue(a.buffer.byteLength >= 8 * big)
      const b = int32(10)
      assert.strictEqual(b.buffer, a.buffer) // from the grown buffer
    })
  })
})
