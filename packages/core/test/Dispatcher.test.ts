import { assert, describe, it } from "@effect/vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createCanopy, memoryStorage, Signature, startDispatcher } from "../src/index.ts"
import { squareHa } from "../src/testing/fixtures.ts"

describe("startDispatcher (a library user's outbox is drained)", () => {
  it("delivers the events written through createCanopy to a webhook, signed, and stops cleanly", async () => {
    const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = []
    const receiver = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => (body += c))
      req.on("end", () => {
        received.push({ headers: req.headers, body })
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r))
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    const canopy = await createCanopy({ storage: memoryStorage(), settings: { allowInsecureWebhooks: true } })
    const dispatcher = startDispatcher(canopy, { name: "library", pollMs: 20 })
    try {
      const b = await canopy.bootstrap({ account_name: "Estate", email: "owner@example.com", plan: "pro" })
      const principal = await canopy.authenticate(b.api_key.token)
      const hook = await canopy.webhooks.create(principal, { url, events: ["project.created"] })
      const project = await canopy.projects.create(principal, { name: "Oak stand", geometry: squareHa(3) })
      const deadline = Date.now() + 5_000
      while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      assert.strictEqual(received.length, 1)
      const event = JSON.parse(received[0]!.body)
      assert.strictEqual(event.type, "project.created")
      assert.strictEqual(event.data.id, project.id)
      const signature = received[0]!.headers["x-service-signature"]
      assert.strictEqual(signature, Signature.sign((hook as { secret: string }).secret, received[0]!.body))
      assert.match(dispatcher.owner, /^library-/)
    } finally {
      await dispatcher.stop()
      assert.strictEqual(dispatcher.inFlight(), 0)
      await canopy.close()
      await new Promise((r) => receiver.close(r))
    }
  })
})
