/**
 * Resource and parameter types, all derived from the generated `paths` (src/schema.ts): when the
 * OpenAPI document changes (regenerated), these follow. Nothing here is copied by hand from the
 * server's schemas.
 */
import type { components, paths } from "./schema.ts"

/** An HTTP method the API uses. */
export type Method = "get" | "post" | "put" | "delete"
/** A path of the API (as in the OpenAPI document, with `/v1`). */
export type Path = keyof paths

/** The operation at a path and method. */
export type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M & keyof paths[P]]>

type Json<R> = R extends { content: { "application/json": infer J } } ? J : never

/** The JSON body of the 2xx response of an operation. */
export type SuccessBody<P extends Path, M extends Method> = Operation<P, M> extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? Json<R[S]> : never }[keyof R]
  : never

/** The `data` of the 2xx response of an operation. */
export type DataOf<P extends Path, M extends Method> = SuccessBody<P, M> extends { data: infer D } ? D : never

/** One element of a list response. */
export type ItemOf<P extends Path> = DataOf<P, "get"> extends ReadonlyArray<infer T> ? T : never

/** The query parameters of an operation. */
export type QueryOf<P extends Path, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } }
  ? [Q] extends [never] ? Record<string, never> : NonNullable<Q>
  : Record<string, never>

/** The JSON request body of an operation. */
export type BodyOf<P extends Path, M extends Method> = Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>>
  : never

/** A list response: `data` and `meta` (with `next_cursor` for the next page). */
export type ListOf<P extends Path> = SuccessBody<P, "get">

/** The `meta` of a list response. */
export type ListMeta<P extends Path> = ListOf<P> extends { meta: infer M } ? M : never

// Resources (as the API answers them)
export type Project = DataOf<"/v1/projects/{project_id}", "get">
export type Asset = DataOf<"/v1/projects/{project_id}/assets/{asset_id}", "get">
export type Member = ItemOf<"/v1/account/members">
export type InvitedMember = DataOf<"/v1/account/members/invite", "post">
export type Account = DataOf<"/v1/account", "get">
export type Usage = DataOf<"/v1/account/usage", "get">
export type Webhook = DataOf<"/v1/webhooks/{webhook_id}", "get">
/** What `webhooks.create` answers: the webhook and, this once, its signing secret. */
export type CreatedWebhook = DataOf<"/v1/webhooks", "post">
export type DeliveryLog = ItemOf<"/v1/webhooks/{webhook_id}/logs">
export type TokenInfo = DataOf<"/v1/auth/verify", "get">
export type Me = DataOf<"/v1/me", "get">

/** Another project of the account whose boundary overlaps a project's, with the shared geodesic hectares. */
export type ProjectOverlap = components["schemas"]["ProjectOverlap"]
/**
 * `overlaps` of a write's answer (create, update, restore, import, boundary) that set, changed or restored a
 * boundary: the account's other active and draft projects sharing at least 0.0001 ha with it, largest first.
 */
export type OverlapReport = components["schemas"]["OverlapReport"]
/** The account's `overlap_policy`: `warn` reports overlaps; `reject` refuses them with 409 (`ConflictError`). */
export type OverlapPolicy = Account["overlap_policy"]
/** The `data` of a `project.overlap_detected` event. */
export interface ProjectOverlapEventData {
  readonly project: Pick<Project, "id" | "name" | "slug" | "area_hectares" | "status">
  readonly overlaps: ReadonlyArray<ProjectOverlap>
  readonly complete: boolean
}

// Lists
export type ProjectList = ListOf<"/v1/projects">
export type AssetList = ListOf<"/v1/projects/{project_id}/assets">
export type ProjectOverlapList = ListOf<"/v1/projects/{project_id}/overlaps">
export type MemberList = ListOf<"/v1/account/members">
export type WebhookList = ListOf<"/v1/webhooks">
export type DeliveryLogList = ListOf<"/v1/webhooks/{webhook_id}/logs">
export type EventList = ListOf<"/v1/events">

// Parameters
export type ProjectListParams = QueryOf<"/v1/projects", "get">
export type ProjectCreateParams = BodyOf<"/v1/projects", "post">
export type ProjectUpdateParams = BodyOf<"/v1/projects/{project_id}", "put">
export type AssetListParams = QueryOf<"/v1/projects/{project_id}/assets", "get">
export type ProjectOverlapListParams = QueryOf<"/v1/projects/{project_id}/overlaps", "get">
export type AssetCreateParams = BodyOf<"/v1/projects/{project_id}/assets", "post">
export type AssetUpdateParams = BodyOf<"/v1/projects/{project_id}/assets/{asset_id}", "put">
export type MemberInviteParams = BodyOf<"/v1/account/members/invite", "post">
export type MemberUpdateParams = BodyOf<"/v1/account/members/{member_id}", "put">
export type AccountUpdateParams = BodyOf<"/v1/account", "put">
export type WebhookCreateParams = BodyOf<"/v1/webhooks", "post">
export type WebhookUpdateParams = BodyOf<"/v1/webhooks/{webhook_id}", "put">
export type DeliveryLogListParams = QueryOf<"/v1/webhooks/{webhook_id}/logs", "get">
export type EventListParams = QueryOf<"/v1/events", "get">

/** The error body of every error response. */
export type ErrorBody = Operation<"/v1/projects", "get"> extends { responses: { 401: infer R } } ? Json<R> : never
/** One entry of an error's `details`. */
export type ErrorDetail = ErrorBody extends { error: { details: ReadonlyArray<infer D> } } ? D : { field: string; message: string }

/** The event types a webhook can subscribe to (from the webhook create body), and `webhook.test`. */
export type EventType = Exclude<WebhookCreateParams extends { events: ReadonlyArray<infer E> } ? E : string, "*"> | "webhook.test"

/** The payload `data` of the event types whose payload is a resource (interface spec §6). */
export interface EventDataByType {
  "project.created": Project & { readonly created_by?: { readonly id: string; readonly email: string } }
  "project.updated": Project
  "project.archived": Project
  "project.restored": Project
  "asset.created": Asset
  "asset.updated": Asset
  "member.joined": Member
  "project.overlap_detected": ProjectOverlapEventData
}

/** The event envelope (interface spec §6), delivered to webhooks and listed by `GET /v1/events`. */
export interface EventEnvelope<T extends string = EventType, D = Record<string, unknown>> {
  readonly id: string
  readonly type: T
  readonly created_at: string
  readonly data: D
  readonly account: { readonly id: string; readonly name: string }
}

/**
 * A webhook event, discriminated by `type`: `if (event.type === "project.created") event.data.area_hectares`.
 * When the document describes the events list's items, that type is used instead.
 */
export type WebhookEvent = unknown extends ItemOf<"/v1/events"> ?
    | { [K in keyof EventDataByType]: EventEnvelope<K, EventDataByType[K]> }[keyof EventDataByType]
    | EventEnvelope<Exclude<EventType, keyof EventDataByType>, Record<string, unknown>>
  : ItemOf<"/v1/events">
