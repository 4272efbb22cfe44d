import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Delivery, Signature } from "../src/index.ts"

const MIN = 60_000
const T = Date.UTC(2026, 0, 1)

describe("Delivery", () => {
  it("2xx is success and ends the delivery", () => {
    for (const status of [200, 201, 204, 299]) {
      const o = Delivery.outcome(3, { kind: "response", status, durationMs: 5 }, T)
      assert.deepStrictEqual([o.success, o.status, o.nextAttemptAt, o.errorClass], [true, "success", null, null])
    }
  })

  it("anything else is a failure retried on the spec's schedule; the 6th is final", () => {
    const results = [
      { kind: "response" as const, status: 500, durationMs: 1 },
      { kind: "response" as const, status: 302, durationMs: 1 },
      { kind: "error" as const, errorClass: "timeout" as const, message: "no answer", durationMs: 5000 }
    ]
    for (const r of results) {
      assert.deepStrictEqual([1, 2, 3, 4, 5].map((n) => Delivery.outcome(n, r, T).nextAttemptAt! - T), [1, 5, 30, 120, 1440].map((m) => m * MIN))
      const last = Delivery.outcome(6, r, T)
      assert.deepStrictEqual([last.success, last.status, last.nextAttemptAt], [false, "failed", null])
    }
    assert.strictEqual(Delivery.outcome(1, results[0]!, T).errorClass, "http")
    assert.strictEqual(Delivery.outcome(1, results[2]!, T).errorClass, "timeout")
  })

  it("410 Gone fails for good and disables the endpoint", () => {
    const o = Delivery.outcome(1, { kind: "response", status: 410, durationMs: 1 }, T)
    assert.deepStrictEqual([o.status, o.nextAttemptAt], ["failed", null])
    assert.match(o.disable ?? "", /410/)
  })

  it("Retry-After is honoured within the schedule's bounds", () => {
    const o = Delivery.outcome(1, { kind: "response", status: 429, retryAfterSeconds: 300, durationMs: 1 }, T)
    assert.strictEqual(o.nextAttemptAt! - T, 5 * MIN)
    assert.strictEqual(Delivery.parseRetryAfter("120", T), 120)
    assert.strictEqual(Delivery.parseRetryAfter(new Date(T + 90_000).toUTCString(), T), 90)
    assert.isUndefined(Delivery.parseRetryAfter("soon", T))
  })

  it("an endpoint failing for 5 days and at least 10 attempts is disabled; a success resets the count", () => {
    let h = { consecutive_failures: 0, failing_since: null as string | null }
    let disabled: string | null = null
    for (let i = 0; i < 12; i++) {
      const now = T + i * 12 * 3_600_000 // every 12 hours
      const next = Delivery.health(h, false, now)
      h = next
      disabled ??= next.disable ? `${i}` : null
    }
    assert.strictEqual(disabled, "10", "the 11th failure, 5 days after the first, with ≥ 10 attempts")
    assert.isNull(Delivery.health({ consecutive_failures: 50, failing_since: new Date(T).toISOString() }, false, T + 4 * 86_400_000).disable,
      "4 days is not enough")
    assert.isNull(Delivery.health({ consecutive_failures: 3, failing_since: new Date(T).toISOString() }, false, T + 9 * 86_400_000).disable,
      "3 attempts are not enough")
    assert.deepStrictEqual(Delivery.health({ consecutive_failures: 9, failing_since: "x" }, true, T), { consecutive_failures: 0, failing_since: null,
      disable: null })
  })

  it("headers: both sets, verifiable; property: they sign exactly the body", () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (body, type) => {
      const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
      const h = Delivery.headers({ id: "evt_1", type }, secret, body, 1_700_000_000)
      assert.isTrue(Signature.verify(secret, body, h["x-service-signature"]!))
      assert.isTrue(Signature.verifyStandard(secret, h["webhook-id"]!, Number(h["webhook-timestamp"]), body, h["webhook-signature"]!))
      assert.strictEqual(h["x-service-event-type"], type)
      assert.isFalse(Signature.verify(secret, `${body} `, h["x-service-signature"]!))
    }), { numRuns: 100 })
  })
})
