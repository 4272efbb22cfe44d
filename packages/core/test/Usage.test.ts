import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Plans, Usage } from "../src/index.ts"

describe("Usage", () => {
  it("fires each threshold reached and not yet fired", () => {
    assert.deepStrictEqual(Usage.reached(700, 1000, []), [])
    assert.deepStrictEqual(Usage.reached(750, 1000, []), [75])
    assert.deepStrictEqual(Usage.reached(950, 1000, [75]), [90])
    assert.deepStrictEqual(Usage.reached(1000, 1000, []), [75, 90, 100])
    assert.deepStrictEqual(Usage.reached(1000, 1000, [75, 90, 100]), [])
  })

  it("property: over any sequence of values in a period, each threshold fires at most once, and fires once reached", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 1500 }), { maxLength: 50 }), (values) => {
      const fired: Array<number> = []
      for (const v of values) fired.push(...Usage.reached(v, 1000, fired))
      assert.strictEqual(new Set(fired).size, fired.length)
      const max = Math.max(0, ...values)
      for (const t of Usage.thresholds) assert.strictEqual(fired.includes(t), max * 100 >= t * 1000)
    }))
  })

  it("refuses growth past a limit, never a reduction", () => {
    assert.isTrue(Usage.exceeds(900, 1000.5, 1000))
    assert.isFalse(Usage.exceeds(900, 1000, 1000))
    assert.isFalse(Usage.exceeds(1200, 1100, 1000))
  })

  it("periods are UTC calendar months", () => {
    const p = Usage.periodOf(new Date("2026-02-14T23:59:59Z"))
    assert.strictEqual(p.start.toISOString(), "2026-02-01T00:00:00.000Z")
    assert.strictEqual(p.end.toISOString(), "2026-03-01T00:00:00.000Z")
    assert.strictEqual(p.key, "2026-02")
    assert.strictEqual(Usage.periodOf(new Date("2026-12-31T12:00:00Z")).end.toISOString(), "2027-01-01T00:00:00.000Z")
  })

  it("the period key of any instant is its period's key", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
      assert.strictEqual(Usage.periodKey(ms), Usage.periodOf(new Date(ms)).key)
    }))
  })

  it("percentage, and the plan defaults from DECISIONS", () => {
    assert.strictEqual(Usage.percentage(333, 1000), 33.3)
    assert.strictEqual(Plans.defaults.free.hectares, 1000)
    assert.strictEqual(Plans.defaults.pro.members, 25)
    assert.strictEqual(Plans.defaults.enterprise.requestsPerDay, null)
    assert.strictEqual(Plans.defaults.pro.requestsPerMinute, 300)
  })
})
