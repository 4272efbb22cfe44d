/**
 * Identifiers: a type prefix, an underscore, then 26 characters of Crockford base32 carrying 130
 * random bits (`proj_8x4k…`). Each kind has a branded schema that rejects every other prefix.
 */
import { Schema } from "effect"

/** The prefix of each kind of id. */
export const prefixes = {
  project: "proj",
  asset: "asset",
  user: "user",
  account: "acc",
  event: "evt",
  request: "req",
  log: "log",
  webhook: "wh",
  apiKey: "key",
  serviceToken: "svc",
  invitation: "inv",
  delivery: "dlv",
  oauthClient: "app",
  oauthToken: "otk",
  session: "ses"
} as const

/** A kind of id. */
export type Kind = keyof typeof prefixes

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
const BODY_LENGTH = 26

// Random bytes are drawn from the CSPRNG 4 KiB at a time (one call per ~240 ids instead of one per
// id: the call, not the bytes, is what costs), and each byte is handed out once.
const pool = new Uint8Array(4096)
let poolOffset = pool.length

const randomBytes = (size: number): Uint8Array => {
  if (size > pool.length) return crypto.getRandomValues(new Uint8Array(size))
  if (poolOffset + size > pool.length) {
    crypto.getRandomValues(pool)
    poolOffset = 0
  }
  const out = pool.slice(poolOffset, poolOffset + size)
  poolOffset += size
  return out
}

/** `n` characters of Crockford base32 (lowercase), 5 random bits each. */
export const randomBase32 = (n: number): string => {
  const bytes = randomBytes(Math.ceil((n * 5) / 8))
  let out = ""
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5 && out.length < n) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  return out
}

const pattern = (kind: Kind) => new RegExp(`^${prefixes[kind]}_[${ALPHABET}]{${BODY_LENGTH}}$`)

/** Whether a string is a well-formed id of the given kind. */
export const isId = (kind: Kind, value: unknown): boolean => typeof value === "string" && pattern(kind).test(value)

const idString = (kind: Kind) =>
  Schema.String.pipe(Schema.check(Schema.isPattern(pattern(kind), { message: `must be an id of the form ${prefixes[kind]}_<id>` })))

/** proj_<id> */
export const ProjectId = idString("project").pipe(Schema.brand("ProjectId"))
export type ProjectId = typeof ProjectId.Type
/** asset_<id> */
export const AssetId = idString("asset").pipe(Schema.brand("AssetId"))
export type AssetId = typeof AssetId.Type
/** user_<id> */
export const UserId = idString("user").pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type
/** acc_<id> */
export const AccountId = idString("account").pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type
/** evt_<id> */
export const EventId = idString("event").pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type
/** req_<id> */
export const RequestId = idString("request").pipe(Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type
/** log_<id> */
export const LogId = idString("log").pipe(Schema.brand("LogId"))
export type LogId = typeof LogId.Type
/** wh_<id> */
export const WebhookId = idString("webhook").pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
/** key_<id>: an API key's record (not its secret value). */
export const ApiKeyId = idString("apiKey").pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type
/** svc_<id>: a service token's record (not its secret value). */
export const ServiceTokenId = idString("serviceToken").pipe(Schema.brand("ServiceTokenId"))
export type ServiceTokenId = typeof ServiceTokenId.Type
/** inv_<id>: an invitation. */
export const InvitationId = idString("invitation").pipe(Schema.brand("InvitationId"))
export type InvitationId = typeof InvitationId.Type

/** dlv_<id>: one event's delivery to one webhook. */
export const DeliveryId = idString("delivery").pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

/** app_<id>: an OAuth application's client id. */
export const OAuthClientId = idString("oauthClient").pipe(Schema.brand("OAuthClientId"))
export type OAuthClientId = typeof OAuthClientId.Type

/** A fresh id of the given kind, typed with its brand. */
export const make: {
  (kind: "project"): ProjectId
  (kind: "asset"): AssetId
  (kind: "user"): UserId
  (kind: "account"): AccountId
  (kind: "event"): EventId
  (kind: "request"): RequestId
  (kind: "log"): LogId
  (kind: "webhook"): WebhookId
  (kind: "apiKey"): ApiKeyId
  (kind: "serviceToken"): ServiceTokenId
  (kind: "invitation"): InvitationId
  (kind: "delivery"): DeliveryId
  (kind: "oauthClient"): OAuthClientId
  (kind: "oauthToken" | "session"): string
} = ((kind: Kind) => `${prefixes[kind]}_${randomBase32(BODY_LENGTH)}`) as never
