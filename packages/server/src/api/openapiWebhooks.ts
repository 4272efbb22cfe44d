/**
 * The `webhooks` of the OpenAPI document: one operation per event type Canopy sends, each with
 * the signature headers a receiver verifies, the event's data schema and an example of it built
 * with the payload builders the services use (`Events`).
 */
import { Events, Permissions, Schemas } from "@canopy/core"
import type { Schema } from "effect"

type JsonSchema = Record<string, unknown>

const webhookDescription = [
  "Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with",
  "backoff until the receiver answers 2xx. Each request is signed twice:",
  "",
  "- `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret",
  "  (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.",
  "- Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over",
  "  `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject",
  "  timestamps more than 5 minutes old to stop replays.",
  "",
  "`X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and",
  "redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards."
].join("\n")

const webhookHeaders = [
  { name: "X-Service-Signature", description: "sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret>",
    schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" } },
  { name: "X-Service-Event-Id", description: "The event's id (stable across retries)", schema: { type: "string" } },
  { name: "X-Service-Event-Type", description: "The event's type", schema: { type: "string" } },
  { name: "webhook-id", description: "Standard Webhooks: the event's id", schema: { type: "string" } },
  { name: "webhook-timestamp", description: "Standard Webhooks: seconds since the epoch when sent", schema: { type: "string", pattern: "^[0-9]+$" } },
  { name: "webhook-signature", description: "Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body>", schema: { type: "string" } }
]

// Examples of event data, built with the payload builders the services use (`Events`).
const exampleAccount = { id: "acc_cnyzgxahr83pt8h0fdr7mjgxtx", name: "Redwood Trust" }
const at = (hour: number) => `2026-01-05T${String(hour).padStart(2, "0")}:00:00.000Z`
const exampleBoundary = { type: "Polygon", coordinates: [[[-122.5, 37.7], [-122.49, 37.7], [-122.49, 37.71], [-122.5, 37.71], [-122.5, 37.7]]] }
const exampleProject = {
  id: "proj_cpn7g1n76j40zpy591rjehchc7",
  name: "Redwood Creek restoration",
  slug: "redwood-creek-restoration",
  description: "Riparian replanting along the lower creek",
  geometry: exampleBoundary,
  area_hectares: 97.8753,
  bbox: [-122.5, 37.7, -122.49, 37.71],
  status: "active",
  created_at: at(1),
  updated_at: at(3)
}
const exampleAsset = {
  id: "asset_c6we7fv2yqf4kw702f0h078t0p",
  project_id: exampleProject.id,
  name: "Weather station 3",
  type: "monitoring_station",
  location: { type: "Point", coordinates: [-122.495, 37.705] },
  status: "maintenance",
  metadata: { serial: "WS-2291" },
  created_at: at(2),
  updated_at: at(3)
}
const exampleMember = (role: Permissions.Role, status: "active" | "invited") => ({
  id: "user_gnx8ec3qsjjwwvawzk281pqeh7",
  email: "ivy@redwood.example",
  name: status === "active" ? "Ivy Chen" : null,
  role,
  permissions: [...Permissions.byRole[role]],
  status,
  joined_at: status === "active" ? at(2) : null,
  last_active_at: status === "active" ? at(3) : null
})
const eventExamples: Record<Events.EventType | typeof Events.TEST_EVENT, unknown> = {
  "project.created": Events.projectCreated(exampleProject, { id: "user_ada0sx82jar9qhk1qvqfafr1bw", email: "maya@redwood.example" }),
  "project.updated": exampleProject,
  "project.archived": { ...exampleProject, status: "archived" },
  "project.restored": exampleProject,
  "project.deleted": { ...exampleProject, status: "archived" },
  "project.overlap_detected": Events.overlapDetected(exampleProject, {
    overlaps: [{ project_id: "proj_gpzgr5j2m31px2xs6t4hrzzk28", name: "Upper Redwood Creek", overlap_hectares: 24.4689 }],
    complete: true
  }),
  "asset.created": Events.assetCreated({ ...exampleAsset, status: "active" }),
  "asset.updated": exampleAsset,
  "asset.deleted": exampleAsset,
  "asset.status_changed": Events.assetStatusChanged(exampleAsset, "active"),
  "member.invited": exampleMember("editor", "invited"),
  "member.joined": Events.memberJoined(exampleMember("editor", "active")),
  "member.updated": { ...exampleMember("admin", "active"), previous_role: "editor" },
  "member.removed": exampleMember("admin", "active"),
  // Billing events carry what the embedding application's integration passes: these are illustrations.
  "subscription.created": { plan: "pro", external_id: "sub_2026_0042" },
  "subscription.updated": { account_id: exampleAccount.id, plan: "pro", previous_plan: "free" },
  "subscription.canceled": { plan: "pro", external_id: "sub_2026_0042" },
  "invoice.paid": { amount: 4900, currency: "eur", invoice_number: "2026-0107" },
  "invoice.failed": { amount: 4900, currency: "eur", invoice_number: "2026-0107" },
  "usage.threshold_reached": Events.thresholdReached("hectares", 90, 912.4821, 1000, { start: "2026-01-01T00:00:00.000Z", end: "2026-02-01T00:00:00.000Z" }),
  "usage.limit_exceeded": Events.limitExceeded("members", 3, 4, 3),
  "import.completed": {
    id: "imp_7m2k9q4xw1c8n5r3t6v0b2d4fh",
    status: "completed",
    mode: "per_feature",
    file: { name: "stands-2026.zip", format: "shapefile", source_crs: "ETRS89 / UTM zone 32N" },
    features: 412,
    created: 409,
    refused: 3,
    hectares: 2315.0417,
    error: null,
    completed_at: at(4)
  },
  [Events.TEST_EVENT]: Events.testData("wh_jb9k69k2fj86ycgq4zftg8f7ex")
}

/**
 * The document's `webhooks`: an operation per event type (and the test event). `schemaOf` gives
 * the JSON Schema of a core schema, its named parts collected as the document's components.
 */
export const webhookOperations = (schemaOf: (s: Schema.Top) => JsonSchema): Record<string, unknown> => {
  const eventSchema = schemaOf(Schemas.Event)
  return Object.fromEntries(([...Events.types, Events.TEST_EVENT] as const).map((type) => {
    const { description, schema } = Schemas.eventData[type]
    return [type, {
      post: {
        operationId: `webhook${type.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}`,
        summary: `${type} event`,
        description: `${description}\n\n${webhookDescription}`,
        tags: ["Webhook events"],
        // Canopy authenticates itself to the receiver by the signatures, not by a credential.
        security: [],
        parameters: webhookHeaders.map((h) => ({ ...h, in: "header", required: true })),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { allOf: [eventSchema, { type: "object", properties: { type: { const: type }, data: schemaOf(schema) } }] },
              example: { id: "evt_s229rws6d8r1ef7w2kxqaqtfwj", type, created_at: at(3), data: eventExamples[type], account: exampleAccount }
            }
          }
        },
        responses: { "200": { description: "Received (any 2xx); anything else is retried" } }
      }
    }]
  }))
}
