/**
 * verifyWebhook / signPayload / signStandard against @canopy/core's Signature module (what the
 * server signs deliveries with): both header sets, secrets with and without `whsec_`, rotation
 * lists, the tolerance, and what is refused.
 */
import { Delivery, Signature } from "@canopy/core"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { constantTimeEqual, signPayload, signStandard, verifyWebhook, WebhookVerificationError } from "../src/index.ts"

const event = (id: string) =>
  JSON.stringify({ id, type: "project.created", created_at: "2026-01-01T00:00:00.000Z", data: { id: "proj_1", name: "Fjäll – 北" },
    account: { id: "acc_1", name: "A" } })
const secrets = [Signature.generateSecret(), Signature.generateSecret(), "plain-secret-ünïcode", "whsec_YW Jj-_ZA==xyz", "whsec_Y"]

describe("@canopy/client: webhook verification (WebCrypto) matches the server's signing", () => {
  it("signPayload and signStandard equal @canopy/core's Signature.sign and Signature.standard", async () => {
    const ts = Math.floor(Date.now() / 1000)
    for (const [i, secret] of secrets.entries()) {
      const body = event(`evt_${i}`)
      expect(await signPayload(secret, body)).toBe(Signature.sign(secret, body))
      expect(await signStandard(secret, `evt_${i}`, ts, body)).toBe(Signature.standard(secret, `evt_${i}`, ts, body))
      expect(await signPayload(secret, new TextEncoder().encode(body))).toBe(Signature.sign(secret, body))
    }
  })

  it("accepts the server's delivery headers (Node req.headers, Headers, pairs; string, bytes, ArrayBuffer bodies)", async () => {
    for (const secret of secrets) {
      const body = event("evt_ok")
      const ts = Math.floor(Date.now() / 1000)
      const headers = Delivery.headers({ id: "evt_ok", type: "project.created" }, secret, body, ts)
      const bytes = new TextEncoder().encode(body)
      for (const raw of [body, bytes, bytes.buffer as ArrayBuffer, Buffer.from(body)]) {
        const e = await verifyWebhook(raw, headers, secret)
        expect([e.id, e.type]).toEqual(["evt_ok", "project.created"])
      }
      const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]))
      expect((await verifyWebhook(body, upper, secret)).id).toBe("evt_ok")
      expect((await verifyWebhook(body, new Headers(headers), secret)).id).toBe("evt_ok")
      expect((await verifyWebhook(body, Object.entries(headers), secret)).id).toBe("evt_ok")
    }
  })

  it("refuses a changed body, a wrong secret, a missing or partial header set, a stale timestamp; accepts a rotation list", async () => {
    const secret = secrets[0]!
    const body = event("evt_x")
    const ts = Math.floor(Date.now() / 1000)
    const h = Delivery.headers({ id: "evt_x", type: "project.created" }, secret, body, ts)
    const refused = async (raw: string, headers: Record<string, string>, s = secret, options = {}) => {
      const e = await verifyWebhook(raw, headers, s, options).catch((x: unknown) => x)
      expect(e).toBeInstanceOf(WebhookVerificationError)
      return (e as Error).message
    }
    expect(await refused(body.replace("Fjäll", "Fjell"), h)).toMatch(/X-Service-Signature does not match/)
    expect(await refused(body, h, secrets[1]!)).toMatch(/does not match/)
    expect(await refused(body, {})).toMatch(/no X-Service-Signature or webhook-signature/)
    const { "x-service-signature": _s, ...standardOnly } = h
    expect((await verifyWebhook(body, standardOnly, secret)).id).toBe("evt_x")
    expect(await refused(body.replace("Fjäll", "Fjell"), standardOnly)).toMatch(/webhook-signature does not match/)
    const { "webhook-id": _i, ...noId } = h
    expect(await refused(body, noId)).toMatch(/webhook-id/)
    // The Standard Webhooks signature covers the timestamp: moving it breaks the signature.
    expect(await refused(body, { ...standardOnly, "webhook-timestamp": String(ts + 1) })).toMatch(/webhook-signature does not match/)
    expect(await refused(body, h, secret, { now: ts + 301 })).toMatch(/timestamp/)
    expect((await verifyWebhook(body, h, secret, { now: ts + 299 })).id).toBe("evt_x")
    expect((await verifyWebhook(body, h, secret, { now: ts + 10_000, tolerance: null })).id).toBe("evt_x")
    // Secret rotation: the header lists several signatures, one matches.
    const rotated = { ...standardOnly, "webhook-signature": `${Signature.standard(secrets[1]!, "evt_x", ts, body)} ${h["webhook-signature"]}` }
    expect((await verifyWebhook(body, rotated, secret)).id).toBe("evt_x")
    expect(await refused(body, h, "")).toMatch(/no webhook secret/)
    const notJson = "not json"
    expect(await refused(notJson, Delivery.headers({ id: "evt_y", type: "t" }, secret, notJson, ts))).toMatch(/not JSON/)
  })

  it("constantTimeEqual", () => {
    expect(constantTimeEqual("sha256=ab", "sha256=ab")).toBe(true)
    expect(constantTimeEqual("sha256=ab", "sha256=ac")).toBe(false)
    expect(constantTimeEqual("a", "ab")).toBe(false)
    expect(constantTimeEqual("ä", "a\u0308")).toBe(false)
  })

  it("src has no node: imports and no Node globals (it runs in browsers)", () => {
    const dir = join(import.meta.dirname, "../src")
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts"))
    expect(files).toContain("webhooks.ts")
    for (const f of files) {
      const text = readFileSync(join(dir, f), "utf8")
      expect(text, f).not.toMatch(/from\s+["']node:|require\(|\bBuffer\b|\bprocess\./)
    }
  })
})
