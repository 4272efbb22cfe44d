/**
 * Events: the catalogue of the spec's 20 event types and Canopy's `project.overlap_detected` and `import.completed`, the webhook envelope, the payload builders
 * for the types whose data the spec shows, and which webhooks an event goes to.
 */
/** Every event type (the spec's, then Canopy's own: docs/decisions.md, "Overlaps"; docs/gis.md, "Bulk imports"). */
export const types = [
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
  "import.completed"
] as const
/** An event type of the catalogue. */
export type EventType = (typeof types)[number]
/** The test event sent by `POST /webhooks/{id}/test`; not subscribable. */
export const TEST_EVENT = "webhook.test"

/** Whether a string is an event type of the catalogue. */
export const isEventType = (s: string): s is EventType => (types as ReadonlyArray<string>).includes(s)

/** The JSON body POSTed to a webhook (spec). */
export interface Envelope {
  readonly id: string
  readonly type: EventType | typeof TEST_EVENT
  readonly created_at: string
  readonly data: Readonly<Record<string, unknown>>
  readonly account: { readonly id: string; readonly name: string }
}

/** What a webhook subscription needs for routing. */
export interface Route {
  readonly events: ReadonlyArray<string>
  readonly enabled: boolean
}

/** Whether an event of `type` goes to a webhook: enabled and subscribed to it or to `*`. */
export const routesTo = (webhook: Route, type: string): boolean => webhook.enabled && (webhook.events.includes("*") || webhook.events.includes(type))

/** The webhooks, among `webhooks`, that receive an event of `type`. */
export const recipients = <W extends Route>(webhooks: ReadonlyArray<W>, type: string): ReadonlyArray<W> => webhooks.filter((w) => routesTo(w, type))

/** Fields of a project as they appear in project.* event data. */
export interface ProjectFields {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string | null
  readonly area_hectares: number
  readonly status: string
  readonly created_at: string
}

/** `project.created` data: the spec's project fields plus `created_by`. */
export const projectCreated = (p: ProjectFields, createdBy: { readonly id: string; readonly email: string } | null) => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  description: p.description,
  area_hectares: p.area_hectares,
  status: p.status,
  created_at: p.created_at,
  created_by: createdBy
})

/** Fields of an asset as they appear in asset.* event data. */
export interface AssetFields {
  readonly id: string
  readonly project_id: string
  readonly name: string
  readonly type: string
  readonly location: unknown
  readonly status: string
  readonly created_at: string
}

/** `asset.created` data (spec fields). */
export const assetCreated = (a: AssetFields) => ({
  id: a.id,
  project_id: a.project_id,
  name: a.name,
  type: a.type,
  location: a.location,
  status: a.status,
  created_at: a.created_at
})

/** `asset.status_changed` data: the asset plus `previous_status` (DECISIONS). */
export const assetStatusChanged = (a: AssetFields, previousStatus: string) => ({ ...assetCreated(a), previous_status: previousStatus })

/** Fields of a member as they appear in member.* event data. */
export interface MemberFields {
  readonly id: string
  readonly email: string
  readonly name: string | null
  readonly role: string
  readonly joined_at: string | null
}

/** `member.joined` data (spec fields). */
export const memberJoined = (m: MemberFields) => ({ id: m.id, email: m.email, name: m.name, role: m.role, joined_at: m.joined_at })

/** `usage.threshold_reached` data. */
export const thresholdReached = (metric: string, threshold: number, current: number, limit: number, period: { start: string; end: string }) => ({ metric,
  threshold, current, limit, period })

/** `usage.limit_exceeded` data. */
export const limitExceeded = (metric: string, current: number, requested: number, limit: number) => ({ metric, current, requested, limit })

/**
 * `project.overlap_detected` data: the project written (spec fields), the other projects it shares
 * hectares with, and whether every nearby project was compared.
 */
export const overlapDetected = (
  p: ProjectFields,
  report: { readonly overlaps: ReadonlyArray<unknown>; readonly complete: boolean }
) => ({
  project: { id: p.id, name: p.name, slug: p.slug, area_hectares: p.area_hectares, status: p.status },
  overlaps: report.overlaps,
  complete: report.complete
})

/** `webhook.test` data. */
export const testData = (webhookId: string) => ({ webhook_id: webhookId, message: "This is a test event from Canopy." })
