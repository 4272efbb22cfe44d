import { ConstantTime } from "../src/index.ts"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

describe("ConstantTime", () => {
  it("equal is string equality, for any two strings (lengths that differ included)", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
      assert.strictEqual(ConstantTime.equal(a, b), a === b)
      assert.isTrue(ConstantTime.equal(a, a))
    }))
  })

  it("equalBytes is byte equality; a prefix is not equal", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
      assert.strictEqual(ConstantTime.equalBytes(a, b), Buffer.from(a).equals(Buffer.from(b)))
    }))
    assert.isFalse(ConstantTime.equalBytes(Buffer.from("secret"), Buffer.from("secre")))
  })
})
