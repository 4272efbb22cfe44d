import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import { Slug } from "../src/index.ts"

describe("Slug.fromName", () => {
  it("follows DECISIONS: NFKD, no diacritics, lowercase, one hyphen per run, trimmed", () => {
    assert.strictEqual(Slug.fromName("Amazon Reforestation 2024"), "amazon-reforestation-2024")
    assert.strictEqual(Slug.fromName("  Forêt de Fontainebleau — Parcelle n°3!  "), "foret-de-fontainebleau-parcelle-n-3")
    assert.strictEqual(Slug.fromName("Ｆｕｌｌｗｉｄｔｈ ＡＢＣ"), "fullwidth-abc")
    assert.strictEqual(Slug.fromName("Über__Straße"), "uber-straße")
    assert.strictEqual(Slug.fromName("Лес №5"), "лес-no5")
    assert.strictEqual(Slug.fromName("!!!"), Slug.FALLBACK)
  })

  it("cuts at 64 characters without a trailing hyphen", () => {
    const s = Slug.fromName(`${"a".repeat(63)} b`)
    assert.strictEqual(s, "a".repeat(63))
    assert.strictEqual(Slug.fromName("x".repeat(300)).length, 64)
  })

  it("property: always a valid slug, and idempotent", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 120 }), (name) => {
      const s = Slug.fromName(name)
      assert.isTrue(Slug.isSlug(s), `${JSON.stringify(name)} → ${JSON.stringify(s)}`)
      assert.isAtMost(Array.from(s).length, Slug.MAX_LENGTH)
      assert.strictEqual(Slug.fromName(s), s)
    }), { numRuns: 1000 })
  })

  it("the explicit-slug schema accepts slugs and rejects others", () => {
    const is = Schema.is(Slug.Slug)
    assert.isTrue(is("my-forest-2"))
    for (const bad of ["", "-a", "a-", "a--b", "A", "a b", "x".repeat(65)]) assert.isFalse(is(bad), bad)
  })
})
