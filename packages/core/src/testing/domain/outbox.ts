/** The domain cases for webhooks and the outbox, atomicity of a write and its event. */
import { assert } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as Canopy from "../../Canopy.ts"
import { Assets } from "../../services/Assets.ts"
import { Projects } from "../../services/Projects.ts"
import { Webhooks } from "../../services/Webhooks.ts"
import { Settings, defaults as defaultSettings } from "../../Settings.ts"
import { Storage } from "../../Storage.ts"
import { newAccount, squareHa } from "../fixtures.ts"
import { type DomainIt, eventsOf, eventTypes, failure, type SuiteClock, withPermissions } from "./helpers.ts"

export const outboxCases = (it: DomainIt, _clock: SuiteClock): void => {
  it.effect("webhooks: create with a generated secret shown once, list, update, delete, 25 at most, URL rules", () =>
    Effect.gen(function*() {
      const { admin } = yield* newAccount()
      const webhooks = yield* Webhooks
      const w = yield* webhooks.create(admin, { url: "https://hooks.example.com/a", events: ["project.created", "project.created"], description: "main" })
      assert.match(w.secret ?? "", /^whsec_/)
      assert.deepStrictEqual(w.events, ["project.created"])
      const listed = yield* webhooks.list(admin)
      assert.strictEqual(listed.meta.total, 1)
      assert.notProperty(listed.data[0], "secret")
      const given = yield* webhooks.create(admin, { url: "https://hooks.example.com/b", events: ["*"], secret: "my-own-secret-value" })
      assert.strictEqual(given.secret, "my-own-secret-value")
      const u = yield* webhooks.update(admin, w.id, { enabled: false })
      assert.deepStrictEqual([u.enabled, u.disabled_reason], [false, "disabled by a user"])
      const again = yield* webhooks.update(admin, w.id, { enabled: true, events: ["*"] })
      assert.deepStrictEqual([again.enabled, again.disabled_reason, again.events], [true, null, ["*"]])
      for (const url of ["http://hooks.example.com/x", "https://localhost/x", "https://127.0.0.1/x", "https://10.1.2.3/x", "https://169.254.169.254/latest",
        "https://[::1]/x", "notaurl"]) {
        assert.strictEqual((yield* failure(webhooks.create(admin, { url, events: ["*"] }))).tag, "ValidationError", url)
      }
      const local = yield* webhooks.create(admin, { url: "http://127.0.0.1:9/x", events: ["*"] }).pipe(
        Effect.provideService(Settings, { ...defaultSettings, allowInsecureWebhooks: true })
      )
      assert.strictEqual(local.url, "http://127.0.0.1:9/x")
      yield* webhooks.delete(admin, local.id)
      assert.strictEqual((yield* failure(webhooks.get(admin, local.id))).tag, "NotFound")
      for (let i = 0; i < 23; i++) yield* webhooks.create(admin, { url: `https://hooks.example.com/${i}`, events: ["*"] })
      assert.strictEqual((yield* failure(webhooks.create(admin, { url: "https://hooks.example.com/26", events: ["*"] }))).tag, "LimitExceeded")
      assert.strictEqual((yield* webhooks.logs(admin, w.id)).meta.total, 0)
      assert.strictEqual((yield* failure(webhooks.create(withPermissions(admin, ["projects:write"]), { url: "https://e.com", events: ["*"] }))).tag,
        "Forbidden")
    }))

  it.effect("outbox: an event gets one pending delivery per enabled, subscribed webhook; disabling cancels them", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const webhooks = yield* Webhooks
      const projects = yield* Projects
      const s = yield* Storage
      const onProjects = yield* webhooks.create(admin, { url: "https://a.example.com/h", events: ["project.created"] })
      const onAll = yield* webhooks.create(admin, { url: "https://b.example.com/h", events: ["*"] })
      yield* webhooks.create(admin, { url: "https://c.example.com/h", events: ["*"], enabled: false })
      yield* projects.create(admin, { name: "Routed" })
      const [event] = yield* eventsOf(account.id, "project.created")
      const deliveries = yield* s.outbox.listDeliveries(account.id, event!.id)
      assert.deepStrictEqual(deliveries.map((d) => d.webhook_id).sort(), [onProjects.id, onAll.id].sort())
      assert.isTrue(deliveries.every((d) => d.status === "pending" && d.attempts === 0))
      yield* webhooks.update(admin, onAll.id, { enabled: false })
      const after = yield* s.outbox.listDeliveries(account.id, event!.id)
      assert.strictEqual(after.find((d) => d.webhook_id === onAll.id)?.status, "canceled")
      assert.strictEqual(after.find((d) => d.webhook_id === onProjects.id)?.status, "pending")
      const assetsSvc = yield* Assets
      const p = yield* projects.list(admin)
      yield* assetsSvc.create(admin, p.data[0]!.id, { name: "Unrouted", type: "other" })
      const [assetEvent] = yield* eventsOf(account.id, "asset.created")
      assert.lengthOf(yield* s.outbox.listDeliveries(account.id, assetEvent!.id), 0)
    }))

  it.effect("atomicity: a failure injected after the row write, before commit, leaves neither the row nor its event", () =>
    Effect.gen(function*() {
      const { account, admin } = yield* newAccount()
      const real = yield* Storage
      const failingOutbox = Layer.succeed(Storage, {
        ...real,
        outbox: { ...real.outbox, append: () => Effect.die(new Error("injected: process killed before commit")) }
      })
      const attempt = Effect.gen(function*() {
        const projects = yield* Projects
        return yield* projects.create(admin, { name: "Half-written", geometry: squareHa(3) })
      }).pipe(Effect.provide(Layer.fresh(Canopy.layer).pipe(Layer.provide(failingOutbox))))
      const exit = yield* Effect.exit(attempt)
      assert.isTrue(Exit.isFailure(exit))
      const projects = yield* Projects
      assert.strictEqual((yield* projects.list(admin)).meta.total, 0)
      assert.deepStrictEqual(yield* eventTypes(account.id), [])
      assert.deepStrictEqual(yield* real.projects.stats(account.id), { active: 0, archived: 0, draft: 0, hectares: 0 })
      yield* projects.create(admin, { name: "Half-written", geometry: squareHa(3) })
      assert.deepStrictEqual(yield* eventTypes(account.id), ["project.created"])
    }))
}
