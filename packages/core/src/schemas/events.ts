/**
 * The `data` of each event type as Canopy emits it (the payload builders of `Events` and the
 * services' `emit` calls), for the OpenAPI document's `webhooks` section. Where the payload is a
 * resource as returned by the API (the project after an update, the asset, the member), the
 * resource's own schema is reused; otherwise each payload is a named schema (`identifier`), so the
 * document shows it under `components.schemas`. The billing types (`subscription.created`,
 * `subscription.canceled`, `invoice.*`) are not emitted by Canopy itself: an embedding
 * application's billing integration sends them with data of its own (`eventData` documents them as
 * open objects).
 */
import { Schema, Struct } from "effect"
import * as Events from "../Events.ts"
import * as Usage from "../Usage.ts"
import { Member, Plan, Role } from "./account.ts"
import { AnyObject, Count, Measure, Timestamp } from "./common.ts"
import { Asset, AssetStatus, OverlapReport, Project } from "./projects.ts"

/** `project.created`: the spec's project fields and who created it. */
export const ProjectCreatedEventData = Schema.Struct({
  ...Struct.pick(Project.fields, ["id", "name", "slug", "description", "area_hectares", "status", "created_at"]),
  created_by: Schema.NullOr(Schema.Struct({ id: Schema.String, email: Schema.String })).annotate({
    description:
      "The member who created the project (their user id and email); null when no current member is behind the call (a library call as the system, or a credential whose creator has since left)"
  })
}).annotate({
  identifier: "ProjectCreatedEventData",
  description: "The project as created (the spec's fields; no geometry or bbox: fetch the project for them) and its creator"
})

/** `project.overlap_detected`: the project written, and the other projects it shares hectares with. */
export const ProjectOverlapDetectedEventData = Schema.Struct({
  project: Schema.Struct(Struct.pick(Project.fields, ["id", "name", "slug", "area_hectares", "status"])).annotate({
    description: "The project whose boundary was set, changed or restored"
  }),
  ...OverlapReport.fields
}).annotate({
  identifier: "ProjectOverlapDetectedEventData",
  description:
    "Sent after a create or update that set, changed or restored a boundary sharing at least 0.0001 ha with other active or draft projects of the account (never when there is no overlap)"
})

/** `asset.created`: the spec's asset fields. */
export const AssetCreatedEventData = Schema.Struct(
  Struct.pick(Asset.fields, ["id", "project_id", "name", "type", "location", "status", "created_at"])
).annotate({
  identifier: "AssetCreatedEventData",
  description: "The asset as created (the spec's fields; no metadata: fetch the asset for it)"
})

/** `asset.status_changed`: the spec's asset fields and the status before. */
export const AssetStatusChangedEventData = Schema.Struct({
  ...AssetCreatedEventData.fields,
  previous_status: AssetStatus.annotate({ description: "The asset's status before the change" })
}).annotate({
  identifier: "AssetStatusChangedEventData",
  description: "Sent with `asset.updated` when an update changed the asset's status: the asset after the change and its previous status"
})

/** `member.joined`: the member who accepted an invitation. */
export const MemberJoinedEventData = Schema.Struct(
  Struct.pick(Member.fields, ["id", "email", "name", "role", "joined_at"])
).annotate({ identifier: "MemberJoinedEventData", description: "The member who accepted their invitation" })

/** `member.updated`: the member after the change and the role before. */
export const MemberUpdatedEventData = Schema.Struct({
  ...Member.fields,
  previous_role: Role.annotate({ description: "The member's role before the change" })
}).annotate({ identifier: "MemberUpdatedEventData", description: "The member after the role change, and their previous role" })

/** `subscription.updated`: a plan change. */
export const SubscriptionUpdatedEventData = Schema.Struct({
  account_id: Schema.String,
  plan: Plan.annotate({ description: "The plan now" }),
  previous_plan: Plan.annotate({ description: "The plan before the change" })
}).annotate({ identifier: "SubscriptionUpdatedEventData", description: "The account's plan was changed (library call or `canopy account set-plan`)" })

/** `usage.threshold_reached`: a metric reached 75, 90 or 100% of the plan's limit this period. */
export const UsageThresholdReachedEventData = Schema.Struct({
  metric: Schema.Literals(["hectares", "members", "api_requests"]),
  threshold: Schema.Literals(Usage.thresholds).annotate({ description: "The percentage of the limit reached" }),
  current: Measure.annotate({ description: "The metric's value when the threshold was reached (hectares to 4 decimals)" }),
  limit: Measure.annotate({ description: "The plan's limit for the metric" }),
  period: Schema.Struct({ start: Timestamp, end: Timestamp }).annotate({ description: "The billing period (a calendar month, UTC)" })
}).annotate({
  identifier: "UsageThresholdReachedEventData",
  description: "Sent once per metric, threshold and billing period"
})

/** `usage.limit_exceeded`: a change refused because it would go over a plan limit. */
export const UsageLimitExceededEventData = Schema.Struct({
  metric: Schema.Literals(["hectares", "members"]),
  current: Measure.annotate({ description: "The metric's value before the refused change" }),
  requested: Measure.annotate({ description: "The value the change would have taken it to" }),
  limit: Measure.annotate({ description: "The plan's limit for the metric" })
}).annotate({
  identifier: "UsageLimitExceededEventData",
  description: "A create or update was refused (403) because it would take the metric over the plan's limit; nothing was changed"
})

/** `import.completed`: a bulk import ended (its totals; its per-feature results are read from the API). */
export const ImportCompletedEventData = Schema.Struct({
  id: Schema.String.annotate({ description: "The import (`GET /v1/imports/{id}` lists its per-feature results)" }),
  status: Schema.Literals(["completed", "failed", "cancelled"]),
  mode: Schema.Literals(["per_feature", "merge"]),
  file: Schema.Struct({ name: Schema.NullOr(Schema.String), format: Schema.NullOr(Schema.String), source_crs: Schema.NullOr(Schema.String) }),
  features: Count.annotate({ description: "Features read from the file" }),
  created: Count.annotate({ description: "Projects created" }),
  refused: Count.annotate({ description: "Features refused (nothing stored for them)" }),
  hectares: Measure.annotate({ description: "Hectares of the projects created" }),
  error: Schema.NullOr(Schema.String).annotate({ description: "Why the import failed, when it did" }),
  completed_at: Schema.NullOr(Timestamp)
}).annotate({ identifier: "ImportCompletedEventData", description: "A bulk import ended: completed, failed (with the reason) or cancelled" })

/** `webhook.test`: the event `POST /webhooks/{id}/test` sends. */
export const WebhookTestEventData = Schema.Struct({
  webhook_id: Schema.String.annotate({ description: "The webhook tested" }),
  message: Schema.String
}).annotate({ identifier: "WebhookTestEventData", description: "Sent only to the webhook tested; not subscribable" })

/** A billing event's data: whatever the billing integration that sent it passes. */
const billingDescription = "Not emitted by Canopy itself: an embedding application's billing integration sends this event through Canopy's " +
  "billing port (`canopy.account.billingEvent`) with data of its own (for example an amount and currency), delivered as given"
export const BillingEventData = AnyObject(billingDescription).annotate({ identifier: "BillingEventData" })

/** Each event type's `data` schema, and what the event means. */
export const eventData: Readonly<Record<Events.EventType | typeof Events.TEST_EVENT, { readonly schema: Schema.Top; readonly description: string }>> = {
  "project.created": { schema: ProjectCreatedEventData, description: "A project was created." },
  "project.updated": { schema: Project,
    description: "A project's name, description, slug, status or boundary changed; `data` is the project after the change." },
  "project.archived": { schema: Project,
    description: "A project was archived (its hectares stop counting toward usage); `data` is the project after the change." },
  "project.restored": { schema: Project, description: "An archived project was restored; `data` is the project after the change." },
  "project.deleted": { schema: Project, description: "A project (and its assets) was deleted; `data` is the project as it was before." },
  "project.overlap_detected": {
    schema: ProjectOverlapDetectedEventData,
    description: "Canopy's own event: a project's boundary overlaps other projects of the account (sent after its `project.created` or `project.updated`)."
  },
  "asset.created": { schema: AssetCreatedEventData, description: "An asset was added to a project." },
  "asset.updated": { schema: Asset, description: "An asset changed; `data` is the asset after the change." },
  "asset.deleted": { schema: Asset, description: "An asset was deleted; `data` is the asset as it was before." },
  "asset.status_changed": { schema: AssetStatusChangedEventData, description: "An asset's status changed (sent with its `asset.updated`)." },
  "member.invited": { schema: Member, description: "A member was invited; `data` is the member (status `invited`), without the invitation token." },
  "member.joined": { schema: MemberJoinedEventData, description: "An invited member accepted the invitation." },
  "member.updated": { schema: MemberUpdatedEventData, description: "A member's role changed." },
  "member.removed": { schema: Member, description: "A member (or a pending invitation) was removed; `data` is the member as they were." },
  "subscription.created": { schema: BillingEventData,
    description: "Not emitted by Canopy itself: a billing integration may send it when a subscription starts." },
  "subscription.updated": { schema: SubscriptionUpdatedEventData, description: "The account's plan changed." },
  "subscription.canceled": { schema: BillingEventData,
    description: "Not emitted by Canopy itself: a billing integration may send it when a subscription ends." },
  "invoice.paid": { schema: BillingEventData, description: "Not emitted by Canopy itself: a billing integration may send it when an invoice is paid." },
  "invoice.failed": { schema: BillingEventData, description: "Not emitted by Canopy itself: a billing integration may send it when a payment fails." },
  "usage.threshold_reached": { schema: UsageThresholdReachedEventData,
    description: "Usage of hectares, members or API requests reached 75%, 90% or 100% of the plan's limit." },
  "usage.limit_exceeded": { schema: UsageLimitExceededEventData,
    description: "A change was refused because it would go over the plan's hectare or member limit." },
  "import.completed": {
    schema: ImportCompletedEventData,
    description: "Canopy's own event: a bulk import (`POST /v1/imports`) ended — completed, failed or cancelled — with its totals (not sent for a preview)."
  },
  [Events.TEST_EVENT]: { schema: WebhookTestEventData, description: "A test event, sent by `POST /webhooks/{webhook_id}/test` to that webhook only." }
}
