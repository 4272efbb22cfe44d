/**
 * The `webhooks` section of the OpenAPI document describes each event's real payload: events
 * produced over a real socket (and, for the plan and billing events, through the
 * library calls that produce them) are listed by `GET /v1/events` and each envelope is validated
 * with Ajv against its type's webhook request body; so is the `webhook.test` body a real receiver
 * got, and every example of the section.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js"
import { client, request, square, type TestServer, type startReceiver } from "@canopy/server/testing"
import { useOpenApiFixture } from "./openapiFixture.ts"

let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
let doc: any
let ajv: Ajv2020

useOpenApiFixture((f) => ({ server, receiver, doc, ajv } = f))

const validators = new Map<string, ValidateFunction>()
/** The validator of a webhook's request body (the envelope with that type's data). */
const webhookSchema = (type: string): ValidateFunction => {
  assert.isDefined(doc.webhooks[type], `the document has a webhook for ${type}`)
  let v = validators.get(type)
  if (!v) {
    v = ajv.compile({ $ref: `openapi#/webhooks/${type.replace(/~/g, "~0").replace(/\//g, "~1")}/post/requestBody/content/application~1json/schema` })
    validators.set(type, v)
  }
  return v
}
const check = (envelope: any) => {
  const validate = webhookSchema(envelope.type)
  assert.isTrue(validate(envelope), `${envelope.type}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(envelope.data)}`)
}

/** Every event type the document must describe (the catalogue and the test event). */
const allTypes = [
  "project.created",
  "project.updated",
  "project.deleted",
  "project.archived",
  "project.restored",
  "asset.created",
  "asset.updated",
  "asset.deleted",
  "asset.status_changed",
  "member.invited",
  "member.joined",
  "member.updated",
  "member.removed",
  "subscription.created",
  "subscription.updated",
  "subscription.canceled",
  "invoice.paid",
  "invoice.failed",
  "usage.threshold_reached",
  "usage.limit_exceeded",
  "project.overlap_detected",
  "import.completed",
  "webhook.test"
]

describe("the webhooks section of the OpenAPI document", () => {
  it("names a data schema for each event type, and every example validates against its type's schema", () => {
    assert.sameMembers(Object.keys(doc.webhooks), allTypes)
    const schemas = doc.components.schemas
    for (const name of [
      "ProjectCreatedEventData",
      "ProjectOverlapDetectedEventData",
      "AssetCreatedEventData",
      "AssetStatusChangedEventData",
      "MemberJoinedEventData",
      "MemberUpdatedEventData",
      "SubscriptionUpdatedEventData",
      "UsageThresholdReachedEventData",
      "UsageLimitExceededEventData",
      "WebhookTestEventData",
      "BillingEventData",
      "ImportCompletedEventData"
    ]) assert.isDefined(schemas[name], name)
    const dataRef = (type: string) => doc.webhooks[type].post.requestBody.content["application/json"].schema.allOf[1].properties.data.$ref
    assert.strictEqual(dataRef("project.updated"), "#/components/schemas/Project")
    assert.strictEqual(dataRef("asset.deleted"), "#/components/schemas/Asset")
    assert.strictEqual(dataRef("member.invited"), "#/components/schemas/Member")
    assert.strictEqual(dataRef("asset.status_changed"), "#/components/schemas/AssetStatusChangedEventData")
    assert.strictEqual(dataRef("invoice.paid"), "#/components/schemas/BillingEventData")
    assert.include(schemas.BillingEventData.description, "Not emitted by Canopy itself")
    assert.include(doc.webhooks["invoice.failed"].post.description, "Not emitted by Canopy itself")
    assert.include(doc.webhooks["project.created"].post.description, "X-Service-Signature")
    assert.deepStrictEqual(schemas.AssetStatusChangedEventData.properties.previous_status.enum, ["active", "inactive", "maintenance", "retired"])

    const prefixes: Record<string, RegExp> = { id: /^evt_[0-9a-z]{26}$/ }
    for (const type of allTypes) {
      const example = doc.webhooks[type].post.requestBody.content["application/json"].example
      assert.strictEqual(example.type, type)
      assert.match(example.id, prefixes.id!)
      assert.match(example.account.id, /^acc_[0-9a-z]{26}$/)
      check(example)
      // The envelope's type is fixed per webhook: the example under another type's schema fails.
      assert.isFalse(webhookSchema(type === "webhook.test" ? "project.created" : "webhook.test")(example), `${type}'s example is not another type's`)
    }
    const ex = (type: string) => doc.webhooks[type].post.requestBody.content["application/json"].example.data
    assert.match(ex("project.updated").id, /^proj_[0-9a-z]{26}$/)
    assert.match(ex("asset.created").id, /^asset_[0-9a-z]{26}$/)
    assert.match(ex("member.joined").id, /^user_[0-9a-z]{26}$/)
    assert.match(ex("webhook.test").webhook_id, /^wh_[0-9a-z]{26}$/)
  })

  it("validates the real envelope of every event type the API produces, and rejects altered payloads", async () => {
    const { token, accountId } = await server.newAccount("free")
    const api = client(server.url, token)
    const ok = (r: { status: number; text: string }, status: number, what: string) => assert.strictEqual(r.status, status, `${what}: ${r.text}`)

    const hook = await api.post("/v1/webhooks", { url: receiver.url("/schemas"), events: ["*"] })
    ok(hook, 201, "webhook")

    // Projects: two small overlapping ones (created, overlap_detected), then update, archive, restore.
    const p1 = await api.post("/v1/projects", { name: "North block", geometry: square(10, 0.002) })
    ok(p1, 201, "project 1")
    const p2 = await api.post("/v1/projects", { name: "North block overlap", geometry: square(10.001, 0.002) })
    ok(p2, 201, "project 2")
    assert.isAbove(p2.body.data.overlaps.overlaps.length, 0)
    const p1Id = p1.body.data.id as string
    const p2Id = p2.body.data.id as string
    ok(await api.put(`/v1/projects/${p1Id}`, { description: "Replanted in 2025" }), 200, "update")
    ok(await api.post(`/v1/projects/${p2Id}/archive`), 200, "archive")
    ok(await api.post(`/v1/projects/${p2Id}/restore`), 200, "restore")

    // Assets: created, updated, status changed (with its update), deleted.
    const asset = await api.post(`/v1/projects/${p1Id}/assets`, { name: "Weather station", type: "monitoring_station",
      location: { type: "Point", coordinates: [10.001, 0.001] } })
    ok(asset, 201, "asset")
    const assetPath = `/v1/projects/${p1Id}/assets/${asset.body.data.id}`
    ok(await api.put(assetPath, { name: "Weather station 3", metadata: { serial: "WS-2291" } }), 200, "asset update")
    ok(await api.put(assetPath, { status: "maintenance" }), 200, "asset status")
    ok(await api.del(assetPath), 204, "asset delete")

    // Members (free plan: 3): invited, joined, updated; a third member reaches 100%; a fourth is refused.
    const ivy = await api.post("/v1/account/members/invite", { email: "ivy@example.com", role: "editor" })
    ok(ivy, 201, "invite")
    await server.canopy.members.accept(ivy.body.data.invitation.token, { name: "Ivy Chen", password: "a long password 123" })
    ok(await api.put(`/v1/account/members/${ivy.body.data.id}`, { role: "viewer" }), 200, "member update")
    const jo = await api.post("/v1/account/members/invite", { email: "jo@example.com", role: "viewer" })
    ok(jo, 201, "invite 2")
    ok(await api.post("/v1/account/members/invite", { email: "kim@example.com", role: "viewer" }), 403, "invite over the limit")
    ok(await api.del(`/v1/account/members/${jo.body.data.id}`), 204, "member remove")

    // Hectares (free plan: 1,000 ha): a project taking usage past 90%, then one over the limit.
    ok(await api.post("/v1/projects", { name: "Big block", geometry: square(20, 0.028) }), 201, "big project")
    ok(await api.post("/v1/projects", { name: "Too big", geometry: square(30, 0.01) }), 403, "over the hectare limit")

    // Only an archived project can be deleted.
    ok(await api.post(`/v1/projects/${p2Id}/archive`), 200, "archive before delete")
    ok(await api.del(`/v1/projects/${p2Id}`), 204, "project delete")
    const tested = await api.post(`/v1/webhooks/${hook.body.data.id}/test`)
    ok(tested, 200, "webhook test")

    // The plan change and the billing port are library calls (the CLI's `account set-plan`, an embedding application).
    await server.canopy.account.setPlan(accountId, "pro")
    await server.canopy.account.billingEvent(accountId, "subscription.created", { plan: "pro", external_id: "sub_1" })
    await server.canopy.account.billingEvent(accountId, "subscription.canceled", { plan: "pro" })
    await server.canopy.account.billingEvent(accountId, "invoice.paid", { amount: 4900, currency: "eur" })
    await server.canopy.account.billingEvent(accountId, "invoice.failed", { amount: 4900, currency: "eur", reason: "card_declined" })

    // A bulk import of one small stand: import.completed once it ends.
    const stands = { type: "FeatureCollection", features: [{ type: "Feature", properties: { name: "Stand 1" }, geometry: square(40, 0.0005) }] }
    const imported = await request(server.url, "POST", "/v1/imports", { token, body: JSON.stringify(stands),
      headers: { "content-type": "application/geo+json" } })
    ok(imported, 202, "import")
    for (let i = 0; i < 200 && (await api.get(`/v1/imports/${imported.body.data.id}`)).body.data.status === "running"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }

    const listed = await api.get("/v1/events?per_page=100")
    ok(listed, 200, "events")
    const events = listed.body.data as Array<any>
    assert.isFalse(listed.body.meta.has_more)
    for (const e of events) check(e)
    assert.sameMembers([...new Set(events.map((e) => e.type))], allTypes)

    const byType = (type: string) => events.filter((e) => e.type === type)
    assert.sameMembers(byType("usage.threshold_reached").map((e) => `${e.data.metric} ${e.data.threshold}`), ["members 75", "members 90", "members 100",
      "hectares 75", "hectares 90"])
    assert.sameMembers(byType("usage.limit_exceeded").map((e) => e.data.metric), ["members", "hectares"])
    assert.strictEqual(byType("asset.status_changed")[0].data.previous_status, "active")
    assert.strictEqual(byType("member.updated")[0].data.previous_role, "editor")
    assert.strictEqual(byType("project.created").find((e) => e.data.id === p1Id).data.created_by.email, "owner1@example.com")

    // The real body delivered to the receiver by the test endpoint matches too.
    const delivered = receiver.received.filter((r) => r.path === "/schemas" && r.json?.type === "webhook.test")
    assert.lengthOf(delivered, 1)
    check(delivered[0]!.json)

    // The schemas are precise: altered real payloads are rejected.
    const altered = (e: any, data: Record<string, unknown>) => ({ ...e, data: { ...e.data, ...data } })
    const without = (e: any, key: string) => {
      const { [key]: _drop, ...data } = e.data
      return { ...e, data }
    }
    const reject = (e: any, what: string) => assert.isFalse(webhookSchema(e.type)(e), what)
    const created = byType("project.created")[0]
    reject(without(created, "created_by"), "project.created without created_by")
    reject(altered(created, { area_hectares: "12" }), "project.created with a string area")
    reject(altered(byType("asset.status_changed")[0], { previous_status: "lost" }), "an unknown previous status")
    reject(without(byType("project.overlap_detected")[0], "overlaps"), "an overlap event without overlaps")
    reject(altered(byType("usage.threshold_reached")[0], { threshold: 80 }), "a threshold that is not 75, 90 or 100")
    reject(altered(byType("member.updated")[0], { previous_role: "superuser" }), "an unknown previous role")
    reject(without(byType("subscription.updated")[0], "previous_plan"), "a plan change without the previous plan")
    reject(without(byType("webhook.test")[0], "webhook_id"), "a test event without the webhook id")
    reject({ ...byType("project.updated")[0], type: "project.deleted", data: byType("asset.created")[0].data }, "an asset as a project")
  }, 60_000)
})
