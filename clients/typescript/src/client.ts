/**
 * `Canopy`: the API client. Resource namespaces over openapi-fetch (typed by the generated
 * `paths`), the retrying transport, typed errors and auto-pagination.
 */
import createClient from "openapi-fetch"
import { CanopyError, errorFromResponse } from "./errors.ts"
import { type RetryInfo, retryingFetch } from "./http.ts"
import type { paths } from "./schema.ts"
import type { Account, AccountUpdateParams, Asset, AssetCreateParams, AssetList, AssetListParams, AssetUpdateParams, CreatedWebhook, DeliveryLog,
  DeliveryLogList, DeliveryLogListParams, EventList, EventListParams, InvitedMember, ItemOf, Me, Member, MemberInviteParams, MemberList, MemberUpdateParams,
  Project, ProjectCreateParams, ProjectList, ProjectListParams, ProjectOverlap, ProjectOverlapList, ProjectOverlapListParams, ProjectUpdateParams, TokenInfo,
  Usage, Webhook, WebhookCreateParams, WebhookList, WebhookUpdateParams } from "./types.ts"

export const VERSION = "0.1.0"

export interface CanopyOptions {
  /** An API key (`cnp_key_…`) or service token. */
  readonly apiKey?: string | undefined
  /** An OAuth access token (`cnp_oat_…`); replace it with `setAccessToken` after a refresh. */
  readonly accessToken?: string | undefined
  /** Where Canopy is: `https://canopy.example.com` (or with `/v1`; also a mount path such as `https://example.com/canopy`). */
  readonly baseUrl: string
  /** Retries of 429, 5xx and network errors (default 2). */
  readonly maxRetries?: number | undefined
  /** Per attempt (default 30 s). */
  readonly timeoutMs?: number | undefined
  /** First backoff delay, doubled per retry (default 500 ms), at most `backoffMaxMs` (default 8 s). */
  readonly backoffBaseMs?: number | undefined
  readonly backoffMaxMs?: number | undefined
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once (default 60 s). */
  readonly maxRetryAfterMs?: number | undefined
  /** Called before each retry (logging, metrics). */
  readonly onRetry?: ((info: RetryInfo) => void) | undefined
  /** The fetch to use (default `globalThis.fetch`). */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Extra headers on every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** Per-call options. */
export interface RequestOptions {
  /** Cancels the call (and its retries). */
  readonly signal?: AbortSignal | undefined
  /** POST only: the `Idempotency-Key` to send (default: a new UUID per call, kept across its retries). */
  readonly idempotencyKey?: string | undefined
}

/** The API's root (no trailing slash, no `/v1`). */
export const apiRoot = (baseUrl: string): string => {
  let url = baseUrl.trim().replace(/\/+$/, "")
  if (url.endsWith("/v1")) url = url.slice(0, -3)
  return url
}

type Api = ReturnType<typeof createClient<paths>>
type Result = { data?: unknown; error?: unknown; response: Response }

const init = (options?: RequestOptions) => ({
  ...(options?.signal ? { signal: options.signal } : {}),
  ...(options?.idempotencyKey ? { headers: { "Idempotency-Key": options.idempotencyKey } } : {})
})

/**
 * The body of a 2xx answer, or the typed error. The result is typed by the caller's declared
 * return type, derived from the generated `paths` (src/types.ts).
 */
const unwrap = async <T>(call: Promise<Result>): Promise<T> => {
  const r = await call
  if (!r.response.ok) throw errorFromResponse(r.response, r.error)
  return r.data as T
}
/** The `data` of a 2xx answer. */
const data = async <T>(call: Promise<Result>): Promise<T> => (await unwrap<{ data: T }>(call)).data
/** A 204 answer. */
const empty = async (call: Promise<Result>): Promise<void> => {
  const r = await call
  if (!r.response.ok) throw errorFromResponse(r.response, r.error)
}

/**
 * Every item of every page, following `meta.next_cursor` (filters, sort and order carry over).
 * A page may hold no rows while `has_more` is true (a projects list filtered by `intersects`
 * tests a bounded number of candidates per request): only `has_more` and `next_cursor` end the walk.
 */
async function* paginate<Q extends { cursor?: string; page?: unknown }, T>(
  query: Q | undefined,
  fetchPage: (q: Q) => Promise<{ data: ReadonlyArray<T>; meta: { next_cursor?: string | null | undefined; has_more?: boolean | undefined } }>
): AsyncGenerator<T, void, undefined> {
  let q = { ...query } as Q
  const followed = new Set<string>()
  for (;;) {
    const page = await fetchPage(q)
    yield* page.data
    const next = page.meta.next_cursor
    if (!next || page.meta.has_more === false) return
    if (followed.has(next)) {
      // the same cursor again would fetch the same pages forever
      throw new CanopyError({ status: null, code: "PAGINATION_ERROR", message: `the server answered a cursor already followed (${next}); stopping` })
    }
    followed.add(next)
    const { page: _page, ...rest } = q
    q = { ...rest, cursor: next } as Q
  }
}

export class Canopy {
  /** The openapi-fetch client underneath (typed by the generated `paths`), for anything not wrapped here. */
  readonly api: Api
  /** The API root (without `/v1`); the OAuth endpoints live here. */
  readonly baseUrl: string
  #token: string

  constructor(options: CanopyOptions) {
    const token = options.apiKey ?? options.accessToken
    if (!token)
      throw new CanopyError({ status: null, code: "CONFIGURATION_ERROR", message: "new Canopy({ apiKey }) or ({ accessToken }): a token is required" })
    if (!options.baseUrl)
      throw new CanopyError({ status: null, code: "CONFIGURATION_ERROR", message: "new Canopy({ baseUrl }): the address of Canopy is required" })
    this.#token = token
    this.baseUrl = apiRoot(options.baseUrl)
    const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: retryingFetch({
        fetch: baseFetch,
        maxRetries: options.maxRetries ?? 2,
        timeoutMs: options.timeoutMs ?? 30_000,
        backoffBaseMs: options.backoffBaseMs ?? 500,
        backoffMaxMs: options.backoffMaxMs ?? 8_000,
        maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
        onRetry: options.onRetry
      }),
      headers: { ...options.headers, accept: "application/json" }
    })
    this.api.use({
      onRequest: ({ request }) => {
        request.headers.set("authorization", `Bearer ${this.#token}`)
        return request
      }
    })
  }

  /** Uses another token from now on (e.g. a refreshed OAuth access token). */
  setAccessToken(token: string): void {
    this.#token = token
  }

  readonly projects = {
    /**
     * One page of projects (`per_page`, `status`, `search`, `bbox` as `"west,south,east,north"`, `intersects` as
     * GeoJSON text — `JSON.stringify({ type: "Point", coordinates: [lon, lat] })`, or a Polygon or MultiPolygon —,
     * `sort`, `order`, `page` or `cursor`). With `intersects`, a page may hold fewer rows than `per_page`, even
     * none, while `meta.has_more` is true: walk it with `listAll` or `cursor` (`page` > 1 is refused).
     */
    list: (query?: ProjectListParams, options?: RequestOptions): Promise<ProjectList> =>
      unwrap(this.api.GET("/v1/projects", { params: { query: query ?? {} }, ...init(options) })),
    /** Every matching project, page after page: `for await (const p of client.projects.listAll({ status: "active" }))`. */
    listAll: (query?: ProjectListParams, options?: RequestOptions): AsyncGenerator<Project, void, undefined> =>
      paginate(query, (q) => this.projects.list(q, options)),
    get: (projectId: string, options?: RequestOptions): Promise<Project> =>
      data(this.api.GET("/v1/projects/{project_id}", { params: { path: { project_id: projectId } }, ...init(options) })),
    /**
     * One page of the projects sharing area with this one, with the shared hectares, by name (`per_page`, `cursor`).
     * A page may hold fewer rows than `per_page`, even none, while `meta.has_more` is true: walk it with `overlapsAll`.
     */
    overlaps: (projectId: string, query?: ProjectOverlapListParams, options?: RequestOptions): Promise<ProjectOverlapList> =>
      unwrap(this.api.GET("/v1/projects/{project_id}/overlaps", { params: { path: { project_id: projectId }, query: query ?? {} }, ...init(options) })),
    /** Every project sharing area with this one, page after page. */
    overlapsAll: (projectId: string, query?: ProjectOverlapListParams, options?: RequestOptions): AsyncGenerator<ProjectOverlap, void, undefined> =>
      paginate(query, (q) => this.projects.overlaps(projectId, q, options)),
    /**
     * With a boundary the answer carries `overlaps` (the account's other projects sharing area with it); under the
     * account's `overlap_policy: "reject"` an overlap is a `ConflictError` and nothing is stored.
     */
    create: (body: ProjectCreateParams, options?: RequestOptions): Promise<Project> => data(this.api.POST("/v1/projects", { body, ...init(options) })),
    /** Partial update: omitted fields stay; `null` clears a nullable one. */
    update: (projectId: string, body: ProjectUpdateParams, options?: RequestOptions): Promise<Project> =>
      data(this.api.PUT("/v1/projects/{project_id}", { params: { path: { project_id: projectId } }, body, ...init(options) })),
    archive: (projectId: string, options?: RequestOptions): Promise<Project> =>
      data(this.api.POST("/v1/projects/{project_id}/archive", { params: { path: { project_id: projectId } }, ...init(options) })),
    restore: (projectId: string, options?: RequestOptions): Promise<Project> =>
      data(this.api.POST("/v1/projects/{project_id}/restore", { params: { path: { project_id: projectId } }, ...init(options) })),
    /** Only archived projects can be deleted (else `ConflictError`). */
    delete: (projectId: string, options?: RequestOptions): Promise<void> =>
      empty(this.api.DELETE("/v1/projects/{project_id}", { params: { path: { project_id: projectId } }, ...init(options) }))
  }

  readonly assets = {
    list: (projectId: string, query?: AssetListParams, options?: RequestOptions): Promise<AssetList> =>
      unwrap(this.api.GET("/v1/projects/{project_id}/assets", { params: { path: { project_id: projectId }, query: query ?? {} }, ...init(options) })),
    listAll: (projectId: string, query?: AssetListParams, options?: RequestOptions): AsyncGenerator<Asset, void, undefined> =>
      paginate(query, (q) => this.assets.list(projectId, q, options)),
    get: (projectId: string, assetId: string, options?: RequestOptions): Promise<Asset> =>
      data(this.api.GET("/v1/projects/{project_id}/assets/{asset_id}", { params: { path: { project_id: projectId, asset_id: assetId } }, ...init(options) })),
    create: (projectId: string, body: AssetCreateParams, options?: RequestOptions): Promise<Asset> =>
      data(this.api.POST("/v1/projects/{project_id}/assets", { params: { path: { project_id: projectId } }, body, ...init(options) })),
    update: (projectId: string, assetId: string, body: AssetUpdateParams, options?: RequestOptions): Promise<Asset> =>
      data(
        this.api.PUT("/v1/projects/{project_id}/assets/{asset_id}", { params: { path: { project_id: projectId, asset_id: assetId } }, body, ...init(options) })
      ),
    delete: (projectId: string, assetId: string, options?: RequestOptions): Promise<void> =>
      empty(
        this.api.DELETE("/v1/projects/{project_id}/assets/{asset_id}", { params: { path: { project_id: projectId, asset_id: assetId } }, ...init(options) })
      )
  }

  readonly members = {
    list: (options?: RequestOptions): Promise<MemberList> => unwrap(this.api.GET("/v1/account/members", init(options))),
    /** Invites by email with a role; answers the member and the invitation (its token is shown only here). */
    invite: (body: MemberInviteParams, options?: RequestOptions): Promise<InvitedMember> =>
      data(this.api.POST("/v1/account/members/invite", { body, ...init(options) })),
    update: (memberId: string, body: MemberUpdateParams, options?: RequestOptions): Promise<Member> =>
      data(this.api.PUT("/v1/account/members/{member_id}", { params: { path: { member_id: memberId } }, body, ...init(options) })),
    remove: (memberId: string, options?: RequestOptions): Promise<void> =>
      empty(this.api.DELETE("/v1/account/members/{member_id}", { params: { path: { member_id: memberId } }, ...init(options) }))
  }

  readonly account = {
    get: (options?: RequestOptions): Promise<Account> => data(this.api.GET("/v1/account", init(options))),
    /** Changes the fields given: `name`, `overlap_policy` (`"warn"` or `"reject"`). */
    update: (body: AccountUpdateParams, options?: RequestOptions): Promise<Account> => data(this.api.PUT("/v1/account", { body, ...init(options) })),
    /** Usage statistics of the billing period. */
    usage: (options?: RequestOptions): Promise<Usage> => data(this.api.GET("/v1/account/usage", init(options)))
  }

  readonly webhooks = {
    list: (options?: RequestOptions): Promise<WebhookList> => unwrap(this.api.GET("/v1/webhooks", init(options))),
    get: (webhookId: string, options?: RequestOptions): Promise<Webhook> =>
      data(this.api.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: webhookId } }, ...init(options) })),
    /** Registers an endpoint; the answer holds the signing `secret`, shown only here. */
    create: (body: WebhookCreateParams, options?: RequestOptions): Promise<CreatedWebhook> => data(this.api.POST("/v1/webhooks", { body, ...init(options) })),
    update: (webhookId: string, body: WebhookUpdateParams, options?: RequestOptions): Promise<Webhook> =>
      data(this.api.PUT("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: webhookId } }, body, ...init(options) })),
    delete: (webhookId: string, options?: RequestOptions): Promise<void> =>
      empty(this.api.DELETE("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: webhookId } }, ...init(options) })),
    /** Sends a signed `webhook.test` event now; answers its delivery log entry. */
    test: (webhookId: string, options?: RequestOptions): Promise<DeliveryLog> =>
      data(this.api.POST("/v1/webhooks/{webhook_id}/test", { params: { path: { webhook_id: webhookId } }, ...init(options) })),
    /** The delivery log, newest first. */
    logs: (webhookId: string, query?: DeliveryLogListParams, options?: RequestOptions): Promise<DeliveryLogList> =>
      unwrap(this.api.GET("/v1/webhooks/{webhook_id}/logs", { params: { path: { webhook_id: webhookId }, query: query ?? {} }, ...init(options) })),
    logsAll: (webhookId: string, query?: DeliveryLogListParams, options?: RequestOptions): AsyncGenerator<DeliveryLog, void, undefined> =>
      paginate(query, (q) => this.webhooks.logs(webhookId, q, options)),
    /** Delivers a logged event again now (same event id); answers the new log entry. */
    redeliver: (webhookId: string, logId: string, options?: RequestOptions): Promise<DeliveryLog> =>
      data(this.api.POST("/v1/webhooks/{webhook_id}/logs/{log_id}/redeliver", { params: { path: { webhook_id: webhookId, log_id: logId } }, ...init(options) }))
  }

  readonly events = {
    /** The account's events, newest first (`type`, `created_after`, `created_before`). */
    list: (query?: EventListParams, options?: RequestOptions): Promise<EventList> =>
      unwrap(this.api.GET("/v1/events", { params: { query: query ?? {} }, ...init(options) })),
    listAll: (query?: EventListParams, options?: RequestOptions): AsyncGenerator<ItemOf<"/v1/events">, void, undefined> =>
      paginate(query, (q) => this.events.list(q, options))
  }

  readonly auth = {
    /** What the presented token is: `{ valid, type, permissions, account_id, expires_at }`. */
    verify: (options?: RequestOptions): Promise<TokenInfo> => data(this.api.GET("/v1/auth/verify", init(options))),
    /** The member the credential acts for (OAuth tokens need the `profile` scope). */
    me: (options?: RequestOptions): Promise<Me> => data(this.api.GET("/v1/me", init(options)))
  }
}
