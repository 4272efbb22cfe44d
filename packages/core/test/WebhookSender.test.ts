/**
 * `createCanopy`'s default webhook sender checks where a host name resolves, not only the URL as
 * written: a webhook whose name resolves (or rebinds) to 127.0.0.1 is refused at delivery and
 * nothing reaches the local receiver; with the development setting `allowInsecureWebhooks`, the
 * same receiver gets the signed delivery. Over real sockets, with a receiver on 127.0.0.1.
 */
import { type CanopyClient, createCanopy, memoryStorage, WebhookSender } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"

let receiver: Server
let port: number
const received: Array<IncomingHttpHeaders> = []

beforeAll(async () => {
  receiver = createServer((req, res) => {
    received.push(req.headers)
    req.resume()
    req.on("end", () => res.end("ok"))
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  port = (receiver.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

/** A resolver under the test's control: every name it is asked for answers 127.0.0.1 (a rebinding). */
const toLoopback: WebhookSender.Lookup = (_hostname, _options, callback) => callback(null, [{ address: "127.0.0.1", family: 4 }])

/** Creates a webhook at `url` on a fresh account and sends it the test event; answers the log entry. */
const testDelivery = async (canopy: CanopyClient, url: string) => {
  const boot = await canopy.bootstrap({ account_name: "Hooks", email: "hooks@example.com", plan: "enterprise" })
  const principal = await canopy.authenticate(boot.api_key.token)
  const hook = await canopy.webhooks.create(principal, { url, events: ["*"] })
  return canopy.deliveries.test(principal, hook.id)
}

describe("createCanopy's default webhook sender", () => {
  it("refuses a name that resolves to a loopback address, by default: blocked, nothing received", async () => {
    const canopy = await createCanopy({ storage: memoryStorage(), webhookLookup: toLoopback })
    try {
      const before = received.length
      const log = await testDelivery(canopy, `https://hooks.example.com:${port}/in`)
      assert.strictEqual(log.status, "failed")
      assert.strictEqual(log.error_class, "blocked")
      assert.match(log.error ?? "", /hooks\.example\.com resolves to a loopback address/)
      assert.strictEqual(received.length, before)
    } finally {
      await canopy.close()
    }
  })

  it("refuses a URL naming a local address as written, by default", async () => {
    const canopy = await createCanopy({ storage: memoryStorage() })
    try {
      const boot = await canopy.bootstrap({ account_name: "Hooks", email: "hooks@example.com", plan: "enterprise" })
      const principal = await canopy.authenticate(boot.api_key.token)
      const refused = await canopy.webhooks.create(principal, { url: `https://localhost:${port}/in`, events: ["*"] }).then(() => "created",
        (e: { code?: string }) => e.code)
      assert.strictEqual(refused, "VALIDATION_ERROR")
    } finally {
      await canopy.close()
    }
  })

  it("with allowInsecureWebhooks (development), delivers to the local receiver, by address or through the lookup", async () => {
    const canopy = await createCanopy({ storage: memoryStorage(), settings: { allowInsecureWebhooks: true }, webhookLookup: toLoopback })
    try {
      for (const host of ["127.0.0.1", "receiver.example.com"]) {
        const before = received.length
        const log = await testDelivery(canopy, `http://${host}:${port}/in`)
        assert.strictEqual(log.status, "success", `${host}: ${log.error}`)
        assert.strictEqual(log.response_code, 200)
        assert.strictEqual(received.length, before + 1)
        assert.match(String(received.at(-1)!["webhook-signature"]), /^v1,/)
      }
    } finally {
      await canopy.close()
    }
  })
})

describe("the guarded lookup", () => {
  const answering = (addresses: ReadonlyArray<string>): WebhookSender.Lookup => (_h, _o, callback) =>
    callback(null, addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })))
  const resolve = (addresses: ReadonlyArray<string>, allowLocal = false) =>
    new Promise<string>((done) =>
      WebhookSender.guardedLookup(answering(addresses), allowLocal)("hooks.example.com", { all: true }, (err, out) =>
        done(err ? `refused: ${err.message}` : (out as Array<{ address: string }>).map((a) => a.address).join(",")))
    )

  it("answers only the addresses that pass; a name with none is refused, naming why", async () => {
    assert.strictEqual(await resolve(["93.184.215.14", "127.0.0.1", "10.0.0.5"]), "93.184.215.14")
    assert.strictEqual(await resolve(["169.254.169.254"]), "refused: hooks.example.com resolves to a link-local or cloud metadata address")
    assert.strictEqual(await resolve(["::1", "fd00::1"]), "refused: hooks.example.com resolves to a loopback address")
    assert.strictEqual(await resolve(["127.0.0.1"], true), "127.0.0.1")
  })
})
