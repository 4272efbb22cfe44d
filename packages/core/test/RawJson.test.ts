import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { RawJson } from "../src/index.ts"

const utf8 = (s: string) => new TextEncoder().encode(s)

/** The pieces of `chunks` written one after another, as UTF-8. */
const written = (pieces: string | ReadonlyArray<string | Uint8Array>): string =>
  typeof pieces === "string" ? pieces
    : Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p.buffer, p.byteOffset, p.byteLength)))).toString("utf8")

describe("RawJson", () => {
  it("stringify splices the text of every RawJson, unparsed, into the JSON of the rest", () => {
    const inner = new RawJson.RawJson("{\"type\":\"Point\",\"coordinates\":[1,2]}")
    const value = { a: 1, g: inner, list: [inner, "x"], s: "naïve 🌲" }
    assert.strictEqual(RawJson.stringify(value),
      "{\"a\":1,\"g\":{\"type\":\"Point\",\"coordinates\":[1,2]},\"list\":[{\"type\":\"Point\",\"coordinates\":[1,2]},\"x\"],\"s\":\"naïve 🌲\"}")
    assert.strictEqual(RawJson.stringify({ plain: [1, "two"] }), JSON.stringify({ plain: [1, "two"] }))
    // Plain JSON.stringify gives the same JSON through toJSON.
    assert.strictEqual(JSON.stringify(value), RawJson.stringify(value))
  })

  it("chunks is the very text of stringify: one string without bytes, the bytes themselves (not copies) with them", () => {
    const text = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]]}"
    const bytes = utf8(text)
    const fromBytes = RawJson.RawJson.fromBytes(bytes)
    assert.strictEqual(fromBytes.text, text)
    assert.strictEqual(fromBytes.bytes, bytes)
    assert.isUndefined(new RawJson.RawJson(text).bytes)
    // Without bytes: the same single string as stringify.
    const plain = { data: { name: "é", geometry: new RawJson.RawJson(text) }, meta: { n: 1 } }
    assert.strictEqual(RawJson.chunks(plain), RawJson.stringify(plain))
    assert.strictEqual(RawJson.chunks({ x: 1 }), "{\"x\":1}")
    // With bytes: strings around the bytes, which are the very object given.
    const value = { data: { name: "Forêt 🌲", geometry: fromBytes, other: new RawJson.RawJson("[1]") }, meta: { n: 1 } }
    const pieces = RawJson.chunks(value)
    assert.isTrue(Array.isArray(pieces))
    assert.deepStrictEqual((pieces as ReadonlyArray<unknown>).map((p) => typeof p), ["string", "object", "string"])
    assert.strictEqual((pieces as ReadonlyArray<unknown>)[1], bytes)
    assert.strictEqual(written(pieces), RawJson.stringify(value))
    // A bare RawJson with bytes is its bytes alone.
    assert.deepStrictEqual(RawJson.chunks(fromBytes), [bytes])
  })

  it("property: for any JSON around RawJson values (with and without bytes), chunks writes exactly stringify", () => {
    const raw = fc.jsonValue().map((v) => JSON.stringify(v))
    const leaf = fc.oneof(
      fc.jsonValue(),
      raw.map((t) => new RawJson.RawJson(t)),
      raw.map((t) => RawJson.RawJson.fromBytes(utf8(t)))
    )
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(fc.string(), tie("node"), { maxKeys: 4 }))
    })).node
    fc.assert(fc.property(tree, (value) => {
      const expected = JSON.stringify(RawJson.materialize(value as unknown))
      assert.strictEqual(RawJson.stringify(value), expected)
      assert.strictEqual(written(RawJson.chunks(value)), expected)
    }), { numRuns: 300 })
  })
})
