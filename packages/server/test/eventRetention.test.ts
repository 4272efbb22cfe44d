/**
 * Event retention, over a real socket on SQLite and on PostgreSQL: the store's maintenance
 * removes events older than `Delivery.EVENT_RETENTION_MS` with their deliveries, but never one
 * whose delivery is still pending; a delivery-log entry whose event is gone cannot be redelivered
 * (404, nothing sent).
 */
import { Deliveries, Delivery, Time } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { client, startReceiver } from "@canopy/server/testing"
import { serverOnEachStore, type StoreServer, type StoreServerOptions } from "./stores.ts"

const DAY = 86_400_000

const suite = (store: string, open: (options?: StoreServerOptions) => Promise<StoreServer>) =>
  describe(`event retention (${store})`, () => {
    let server: StoreServer
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    beforeAll(async () => {
      receiver = await startReceiver()
      server = await open({ settings: { allowInsecureWebhooks: true } })
    }, 60_000)
    afterAll(async () => {
      await server?.close()
      await receiver?.close()
    })

    /** Runs the maintenance's event purge as if it were `at`; answers how many events went. */
    const purgeAt = (at: number) =>
      server.running.canopy.run(Effect.flatMap(Deliveries, (d) => d.purgeEvents).pipe(Effect.provideService(Time.Time, { now: () => at })))

    it("settled events past retention go with their deliveries; a pending one stays until settled; its log cannot be redelivered", async () => {
      const b = await server.running.canopy.bootstrap({ account_name: "Retention", email: "retention@example.com", plan: "enterprise" })
      const api = client(server.running.url, b.api_key.token)
      const hook = await api.post("/v1/webhooks", { url: receiver.url("/retention"), events: ["project.created"], secret: "s".repeat(32) })
      assert.strictEqual(hook.status, 201, hook.text)
      const webhookId = hook.body.data.id as string
      // The dispatcher is off: the project's event waits with a pending delivery.
      assert.strictEqual((await api.post("/v1/projects", { name: "Kept while pending" })).status, 201)
      // A test event is delivered at once: settled.
      const tested = await api.post(`/v1/webhooks/${webhookId}/test`, {})
      assert.strictEqual(tested.status, 200, tested.text)
      const logId = tested.body.data.id as string
      const eventTypes = async () => ((await api.get("/v1/events?limit=100")).body.data as Array<{ type: string }>).map((e) => e.type).sort()
      const before = await eventTypes()
      assert.include(before, "project.created")

      assert.strictEqual(await purgeAt(Date.now() + Delivery.EVENT_RETENTION_MS - DAY), 0, "nothing is purged within retention")
      assert.isAbove(await purgeAt(Date.now() + Delivery.EVENT_RETENTION_MS + DAY), 0)
      const after = await eventTypes()
      assert.include(after, "project.created", "an event whose delivery is pending stays")
      assert.notInclude(after, "webhook.test")
      assert.isBelow(after.length, before.length)

      const sent = receiver.received.length
      const again = await api.post(`/v1/webhooks/${webhookId}/logs/${logId}/redeliver`, {})
      assert.strictEqual(again.status, 404, again.text)
      assert.strictEqual(again.body.error.code, "NOT_FOUND")
      assert.strictEqual(receiver.received.length, sent, "nothing was sent")

      // Deleting the webhook cancels the pending delivery: the event is settled, and goes.
      assert.strictEqual((await api.del(`/v1/webhooks/${webhookId}`)).status, 204)
      assert.isAbove(await purgeAt(Date.now() + Delivery.EVENT_RETENTION_MS + DAY), 0)
      assert.notInclude(await eventTypes(), "project.created")
    })
  })

for (const [store, open] of serverOnEachStore) suite(store, open)
