/**
 * Fixtures shared by the conformance suites: rows with sensible defaults, boundaries of a known
 * size, and a fresh account with an admin principal.
 */
import { Effect } from "effect"
import type { Boundary } from "../Geometry.ts"
import * as Ids from "../Ids.ts"
import type { Principal } from "../Principal.ts"
import { Accounts } from "../services/Accounts.ts"
import { Credentials } from "../services/Credentials.ts"
import type * as S from "../Storage.ts"

/** A square boundary of about `hectares` ha near the equator at longitude `lon`. */
export const squareHa = (hectares: number, lon = 10, lat = 0): Boundary => {
  const metres = Math.sqrt(hectares * 10_000)
  const dLon = metres / 111_320 // metres per degree of longitude at the equator
  const dLat = metres / 110_574 // metres per degree of latitude at the equator
  return {
    type: "Polygon",
    coordinates: [[[lon, lat], [lon + dLon, lat], [lon + dLon, lat + dLat], [lon, lat + dLat], [lon, lat]]]
  }
}

const iso = (ms = Date.UTC(2026, 0, 1)) => new Date(ms).toISOString()

/** An account row. */
export const accountRow = (over: Partial<S.AccountRow> = {}): S.AccountRow => ({
  id: Ids.make("account"),
  name: "Acme Forestry",
  slug: "acme-forestry",
  plan: "free",
  overlap_policy: "warn",
  created_at: iso(),
  updated_at: iso(),
  ...over
})

/** A project row of an account. */
export const projectRow = (accountId: string, over: Partial<S.ProjectRow> = {}): S.ProjectRow => {
  const name = over.name ?? `Project ${Ids.randomBase32(6)}`
  return {
    id: Ids.make("project"),
    account_id: accountId,
    name,
    slug: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    description: null,
    geometry: null,
    area_hectares: 0,
    bbox: null,
    status: "active",
    created_by: null,
    sort_name: name.toLowerCase(),
    search_text: name.toLowerCase(),
    created_at: iso(),
    updated_at: iso(),
    ...over
  }
}

/** An asset row of a project. */
export const assetRow = (accountId: string, projectId: string, over: Partial<S.AssetRow> = {}): S.AssetRow => ({
  id: Ids.make("asset"),
  account_id: accountId,
  project_id: projectId,
  name: "Weather station",
  type: "monitoring_station",
  location: null,
  status: "active",
  metadata: {},
  search_text: "weather station",
  created_at: iso(),
  updated_at: iso(),
  ...over
})

/** A member row of an account. */
export const memberRow = (accountId: string, over: Partial<S.MemberRow> = {}): S.MemberRow => ({
  id: Ids.make("user"),
  account_id: accountId,
  email: `${Ids.randomBase32(8)}@example.com`,
  name: "Ada",
  role: "editor",
  status: "active",
  password_hash: null,
  joined_at: iso(),
  last_active_at: null,
  created_at: iso(),
  updated_at: iso(),
  ...over
})

/** A webhook row of an account. */
export const webhookRow = (accountId: string, over: Partial<S.WebhookRow> = {}): S.WebhookRow => ({
  id: Ids.make("webhook"),
  account_id: accountId,
  url: "https://hooks.example.com/canopy",
  events: ["*"],
  description: null,
  secret: "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=",
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  consecutive_failures: 0,
  failing_since: null,
  created_at: iso(),
  updated_at: iso(),
  ...over
})

/** An event row and one pending delivery per webhook id. */
export const eventWithDeliveries = (accountId: string, webhookIds: ReadonlyArray<string>, type = "project.created") => {
  const event: S.EventRow = { id: Ids.make("event"), account_id: accountId, type, payload: JSON.stringify({ type }), created_at: iso() }
  const deliveries: Array<S.DeliveryRow> = webhookIds.map((w) => ({
    id: Ids.make("delivery"),
    account_id: accountId,
    event_id: event.id,
    webhook_id: w,
    status: "pending",
    attempts: 0,
    next_attempt_at: Date.UTC(2026, 0, 1),
    lease_owner: null,
    lease_expires_at: null,
    created_at: iso(),
    updated_at: iso()
  }))
  return { event, deliveries }
}

/** A credential row of an account. */
export const credentialRow = (accountId: string, over: Partial<S.CredentialRow> = {}): S.CredentialRow => ({
  id: Ids.make("apiKey"),
  account_id: accountId,
  kind: "api_key",
  name: "CI",
  permissions: ["projects:read"],
  token_hash: Ids.randomBase32(52),
  token_hint: "cnp_key_…abcd",
  ip_allowlist: null,
  created_by: null,
  created_at: iso(),
  last_used_at: null,
  revoked_at: null,
  ...over
})

/** A fresh account through the domain: its owner, and a principal authenticated with its admin key. */
export const newAccount = (plan: "free" | "pro" | "enterprise" = "free") =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const credentials = yield* Credentials
    const b = yield* accounts.bootstrap({ account_name: "Acme Forestry", email: `owner-${Ids.randomBase32(6)}@example.com`, name: "Olive Owner", plan })
    const admin: Principal = yield* credentials.authenticate(b.api_key.token)
    return { ...b, admin }
  })
