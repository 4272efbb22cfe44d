import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { RateLimit } from "../src/index.ts"
import type { Decision, Limits, State } from "../src/RateLimit.ts"

const free: Limits = { perMinute: 60, perDay: 1_000 }
const DAY = 86_400_000

/** Sends requests at the given times, returning every decision. */
const replay = (limits: Limits, times: ReadonlyArray<number>): Array<Decision & { at: number }> => {
  let state: State | undefined
  return times.map((at) => {
    const d = RateLimit.consume(state, limits, at)
    state = d.state
    return { ...d, at }
  })
}

describe("RateLimit", () => {
  it("a full bucket lets exactly `perMinute` through at once, then refuses with Retry-After", () => {
    const t0 = Date.UTC(2026, 0, 1, 12)
    const ds = replay(free, Array.from({ length: 61 }, () => t0))
    assert.strictEqual(ds.filter((d) => d.allowed).length, 60)
    assert.strictEqual(ds[0]!.remaining, 59)
    assert.strictEqual(ds[59]!.remaining, 0)
    const refused = ds[60]!
    assert.isFalse(refused.allowed)
    assert.strictEqual(refused.refusedBy, "minute")
    assert.strictEqual(refused.retryAfter, 1) // one token every second
    assert.strictEqual(refused.reset, t0 / 1000 + 60)
    assert.strictEqual(refused.limit, 60)
  })

  it("refills at perMinute per 60 s", () => {
    const t0 = Date.UTC(2026, 0, 1, 12)
    let state = replay(free, Array.from({ length: 60 }, () => t0)).at(-1)!.state
    assert.isFalse(RateLimit.consume(state, free, t0 + 999).allowed)
    const d = RateLimit.consume(state, free, t0 + 1000)
    assert.isTrue(d.allowed)
    state = d.state
    assert.strictEqual(RateLimit.consume(state, free, t0 + 31_000).remaining, 29)
  })

  it("the day counter refuses the 1,001st request of a UTC day, and resets at midnight", () => {
    const t0 = Date.UTC(2026, 0, 1, 0)
    const times = Array.from({ length: 1_001 }, (_, i) => t0 + i * 2_000) // well under the minute limit
    const ds = replay(free, times)
    assert.strictEqual(ds.filter((d) => d.allowed).length, 1_000)
    const last = ds[1_000]!
    assert.strictEqual(last.refusedBy, "day")
    assert.strictEqual(last.reset, Date.UTC(2026, 0, 2) / 1000)
    assert.strictEqual(last.retryAfter, Math.ceil((Date.UTC(2026, 0, 2) - last.at) / 1000))
    assert.isTrue(RateLimit.consume(last.state, free, Date.UTC(2026, 0, 2)).allowed)
  })

  it("a request refused by one limit consumes nothing from the other", () => {
    const t0 = Date.UTC(2026, 0, 1, 12)
    const ds = replay(free, Array.from({ length: 100 }, () => t0))
    assert.strictEqual(ds.at(-1)!.state.dayCount, 60)
    // Day exhausted: the bucket keeps its tokens.
    const dayFull: State = { units: 60 * 60_000, refilledAt: t0, day: Math.floor(t0 / DAY), dayCount: 1_000 }
    const d = RateLimit.consume(dayFull, free, t0)
    assert.isFalse(d.allowed)
    assert.strictEqual(d.state.units, 60 * 60_000)
  })

  it("enterprise has no daily limit", () => {
    const ds = replay({ perMinute: 1000, perDay: null }, Array.from({ length: 5_000 }, (_, i) => i * 100))
    assert.isTrue(ds.every((d) => d.allowed))
  })

  const traffic = fc.record({
    perMinute: fc.integer({ min: 1, max: 300 }),
    perDay: fc.option(fc.integer({ min: 1, max: 2_000 }), { nil: null }),
    gaps: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 600 }),
    start: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 11, 31) })
  })

  it("property: in any window of length T at most capacity + rate·T requests pass", () => {
    fc.assert(fc.property(traffic, ({ gaps, perDay, perMinute, start }) => {
      const limits = { perMinute, perDay }
      const times: Array<number> = []
      let t = start
      for (const g of gaps) times.push(t += g)
      const passed = replay(limits, times).filter((d) => d.allowed).map((d) => d.at)
      for (let i = 0; i < passed.length; i++) {
        for (let j = i; j < passed.length; j++) {
          const T = passed[j]! - passed[i]!
          assert.isAtMost(j - i + 1, perMinute + (perMinute * T) / 60_000 + 1e-9)
        }
      }
    }), { numRuns: 150 })
  })

  it("property: remaining never negative, reset never in the past, retryAfter only when refused", () => {
    fc.assert(fc.property(traffic, ({ gaps, perDay, perMinute, start }) => {
      let t = start
      const times = gaps.map((g) => (t += g))
      for (const d of replay({ perMinute, perDay }, times)) {
        assert.isAtLeast(d.remaining, 0)
        assert.isAtMost(d.remaining, perMinute)
        assert.isAtLeast(d.reset * 1000, d.at)
        assert.strictEqual(d.retryAfter > 0, !d.allowed)
      }
    }), { numRuns: 300 })
  })
})
