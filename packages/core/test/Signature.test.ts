import { assert, describe, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
import * as fc from "fast-check"
import { Signature } from "../src/index.ts"

describe("Signature", () => {
  it("is sha256=<lowercase hex HMAC-SHA256 of the raw body>, keyed by the secret's UTF-8 bytes", () => {
    const body = "{\"id\":\"evt_1\",\"type\":\"project.created\"}"
    const expected = createHmac("sha256", Buffer.from("whsec_test", "utf8")).update(body).digest("hex")
    assert.strictEqual(Signature.sign("whsec_test", body), `sha256=${expected}`)
    assert.match(Signature.sign("k", body), /^sha256=[0-9a-f]{64}$/)
    // RFC 4231 test case 2
    assert.strictEqual(Signature.sign("Jefe", "what do ya want for nothing?"), "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  })

  it("signs raw bytes, not re-serialised JSON", () => {
    const a = Signature.sign("s", "{\"a\":1,\"b\":2}")
    const b = Signature.sign("s", "{\"b\":2,\"a\":1}")
    assert.notStrictEqual(a, b)
  })

  it("property: verify(sign(b)) holds; flipping any byte of body, secret or header fails", () => {
    fc.assert(fc.property(
      fc.uint8Array({ minLength: 1, maxLength: 200 }),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.nat(),
      fc.integer({ min: 1, max: 255 }),
      (body, secret, pos, flip) => {
        const header = Signature.sign(secret, body)
        assert.isTrue(Signature.verify(secret, body, header))
        const badBody = Uint8Array.from(body)
        badBody[pos % body.length]! ^= flip
        assert.isFalse(Signature.verify(secret, badBody, header))
        const sb = Buffer.from(secret, "utf8")
        sb[pos % sb.length]! ^= flip
        if (!sb.equals(Buffer.from(secret, "utf8"))) {
          assert.isFalse(Signature.verify(sb.toString("latin1"), body, header) && sb.toString("latin1") !== secret)
          assert.isFalse(Signature.verify("x" + secret, body, header))
        }
        const hb = Buffer.from(header, "utf8")
        hb[pos % hb.length]! ^= flip
        assert.isFalse(Signature.verify(secret, body, hb.toString("latin1")))
      }
    ), { numRuns: 300 })
  })

  it("Standard Webhooks: v1,<base64> over id.timestamp.body with the base64 key of whsec_", () => {
    // Example from the Standard Webhooks specification's reference libraries.
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    const id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    const ts = 1614265330
    const body = "{\"test\": 2432232314}"
    assert.strictEqual(Signature.standard(secret, id, ts, body), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    assert.isTrue(Signature.verifyStandard(secret, id, ts, body, "v1,bogus v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="))
    assert.isFalse(Signature.verifyStandard(secret, id, ts + 1, body, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="))
  })

  it("generates whsec_ secrets with 256 random bits", () => {
    const s = Signature.generateSecret()
    assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.notStrictEqual(s, Signature.generateSecret())
  })
})
