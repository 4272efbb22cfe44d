import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { RetrySchedule } from "../src/index.ts"

const MIN = 60_000

describe("RetrySchedule", () => {
  it("next(): 1 min, 5 min, 30 min, 2 h, 24 h after each failure, then null", () => {
    const t0 = new Date("2026-01-01T00:00:00Z")
    const after = (attempt: number) => RetrySchedule.next(attempt, t0)!.getTime() - t0.getTime()
    assert.deepStrictEqual([1, 2, 3, 4, 5].map(after), [1 * MIN, 5 * MIN, 30 * MIN, 120 * MIN, 1440 * MIN])
    assert.isNull(RetrySchedule.next(6, t0))
    assert.strictEqual(RetrySchedule.MAX_ATTEMPTS, 6)
    assert.throws(() => RetrySchedule.next(0, t0))
  })

  it("honours Retry-After within the schedule's bounds", () => {
    const t0 = new Date(0)
    assert.strictEqual(RetrySchedule.next(1, t0, 600)!.getTime(), 600_000)
    assert.strictEqual(RetrySchedule.next(1, t0, 5)!.getTime(), MIN)
    assert.strictEqual(RetrySchedule.next(2, t0, 10 * 86_400)!.getTime(), 1440 * MIN)
    assert.isNull(RetrySchedule.next(6, t0, 1))
  })

  it("property: the next attempt is never earlier than the spec's delay nor later than 24 h", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 5 }), fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }), (attempt, ra) => {
      const d = RetrySchedule.next(attempt, new Date(0), ra)!.getTime()
      assert.isAtLeast(d, [0, 1, 5, 30, 120, 1440][attempt]! * MIN)
      assert.isAtMost(d, 1440 * MIN)
    }))
  })
})
