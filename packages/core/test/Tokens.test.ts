import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Tokens } from "../src/index.ts"

describe("Tokens", () => {
  const kinds = Object.keys(Tokens.prefixes) as Array<Tokens.TokenKind>

  it("computes CRC-32 (IEEE) and SHA-256 as the standards' check values say", () => {
    assert.strictEqual(Tokens.crc32("123456789"), 0xcbf43926)
    assert.strictEqual(Tokens.crc32(""), 0)
    assert.strictEqual(Tokens.hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("recognises every kind it generates, and nothing else", () => {
    for (const kind of kinds) {
      const token = Tokens.generate(kind)
      assert.match(token, new RegExp(`^${Tokens.prefixes[kind]}_[0-9A-Za-z]{38}$`))
      assert.strictEqual(Tokens.kindOf(token), kind)
    }
    assert.isUndefined(Tokens.kindOf("cnp_xyz_" + "a".repeat(38)))
    assert.isUndefined(Tokens.kindOf("not a token"))
  })

  it("rejects any one-character change by its checksum", () => {
    const token = Tokens.generate("api_key")
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    fc.assert(fc.property(fc.integer({ min: 8, max: token.length - 1 }), fc.integer({ min: 1, max: 61 }), (at, shift) => {
      const changed = alphabet[(alphabet.indexOf(token[at]!) + shift) % 62]!
      const typo = token.slice(0, at) + changed + token.slice(at + 1)
      assert.isUndefined(Tokens.kindOf(typo))
    }))
  })
})
