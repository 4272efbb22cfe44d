import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Events } from "../src/index.ts"

describe("Events", () => {
  it("has the spec's 20 event types and Canopy's own", () => {
    assert.strictEqual(Events.types.length, 22)
    assert.strictEqual(new Set(Events.types).size, 22)
    assert.isTrue(Events.isEventType("import.completed"))
    assert.isTrue(Events.isEventType("project.overlap_detected"))
    assert.isTrue(Events.isEventType("asset.status_changed"))
    assert.isFalse(Events.isEventType(Events.TEST_EVENT))
  })

  it("builds the spec's payloads", () => {
    const created = Events.projectCreated(
      { id: "proj_1", name: "A", slug: "a", description: null, area_hectares: 1.5, status: "active", created_at: "t" },
      { id: "user_1", email: "a@b.co" }
    )
    assert.deepStrictEqual(Object.keys(created).sort(), ["area_hectares", "created_at", "created_by", "description", "id", "name", "slug", "status"])
    const asset = { id: "asset_1", project_id: "proj_1", name: "S", type: "sensor", location: null, status: "active", created_at: "t" }
    assert.deepStrictEqual(Object.keys(Events.assetCreated(asset)).sort(), ["created_at", "id", "location", "name", "project_id", "status", "type"])
    assert.strictEqual(Events.assetStatusChanged(asset, "inactive").previous_status, "inactive")
    assert.deepStrictEqual(Object.keys(Events.memberJoined({ id: "u", email: "e", name: "n", role: "editor", joined_at: "t" })).sort(), ["email", "id",
      "joined_at", "name", "role"])
  })

  it("routes to enabled webhooks subscribed to the type or to *", () => {
    const hooks = [
      { id: 1, events: ["project.created"], enabled: true },
      { id: 2, events: ["*"], enabled: true },
      { id: 3, events: ["*"], enabled: false },
      { id: 4, events: ["asset.created"], enabled: true }
    ]
    assert.deepStrictEqual(Events.recipients(hooks, "project.created").map((h) => h.id), [1, 2])
    assert.deepStrictEqual(Events.recipients(hooks, "asset.created").map((h) => h.id), [2, 4])
  })

  it("property: a disabled webhook never receives; * receives every type", () => {
    fc.assert(fc.property(fc.subarray([...Events.types, "*"]), fc.boolean(), fc.constantFrom(...Events.types), (events, enabled, type) => {
      const got = Events.routesTo({ events, enabled }, type)
      assert.strictEqual(got, enabled && (events.includes("*") || events.includes(type)))
    }))
  })
})
