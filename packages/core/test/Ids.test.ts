import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import { Ids } from "../src/index.ts"

describe("Ids", () => {
  const kinds = Object.keys(Ids.prefixes) as Array<Ids.Kind>

  it("makes ids with the kind's prefix and 26 base32 characters (130 random bits)", () => {
    for (const kind of kinds) {
      const id = Ids.make(kind as "project")
      assert.match(id, new RegExp(`^${Ids.prefixes[kind]}_[0-9a-hjkmnp-tv-z]{26}$`))
      assert.isTrue(Ids.isId(kind, id))
    }
  })

  it("does not repeat over 100,000 ids, and uses the whole alphabet evenly", () => {
    const seen = new Set<string>()
    const counts = new Map<string, number>()
    for (let i = 0; i < 100_000; i++) {
      const id = Ids.make("project")
      seen.add(id)
      for (const ch of id.slice(5)) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    }
    assert.strictEqual(seen.size, 100_000)
    assert.strictEqual(counts.size, 32)
    const expected = (100_000 * 26) / 32
    for (const n of counts.values()) assert.closeTo(n, expected, expected * 0.05)
  })

  it("branded schemas reject every other prefix", () => {
    const isProject = Schema.is(Ids.ProjectId)
    const isAsset = Schema.is(Ids.AssetId)
    const p = Ids.make("project")
    const a = Ids.make("asset")
    assert.isTrue(isProject(p))
    assert.isFalse(isProject(a))
    assert.isFalse(isAsset(p))
    assert.isFalse(isProject(p.toUpperCase()))
    assert.isFalse(isProject(`${p}x`))
    assert.isFalse(isProject("proj_"))
  })

  it("property: a foreign prefix never decodes as another kind", () => {
    fc.assert(fc.property(fc.constantFrom(...kinds), fc.constantFrom(...kinds), (k1, k2) => {
      const id = Ids.make(k1 as "project")
      assert.strictEqual(Ids.isId(k2, id), k1 === k2)
    }))
    fc.assert(fc.property(fc.string(), (s) => {
      if (Ids.isId("project", s)) assert.match(s, /^proj_/)
    }))
  })
})
