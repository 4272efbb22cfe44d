/**
 * Credentials (API keys, service tokens) and OAuth: applications, authorization codes, tokens.
 */
import { Schema } from "effect"
import { all as permissions } from "../Permissions.ts"
import { type Duplicate, EpochMs, type Fx, type Patch, Strings, Timestamp } from "./common.ts"

export const CredentialRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  kind: Schema.Literals(["api_key", "service_token"]),
  name: Schema.String,
  permissions: Schema.Array(Schema.Literals(permissions)),
  /** SHA-256 of the token value, hex. The value itself is never stored. */
  token_hash: Schema.String,
  /** Prefix and last characters of the value, for recognising it in a list. */
  token_hint: Schema.String,
  ip_allowlist: Schema.NullOr(Strings),
  created_by: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  last_used_at: Schema.NullOr(Timestamp),
  revoked_at: Schema.NullOr(Timestamp)
})
export type CredentialRow = typeof CredentialRow.Type

/** A registered OAuth application. */
export const OAuthClientRow = Schema.Struct({
  /** The client id (`app_…`), public. */
  id: Schema.String,
  account_id: Schema.String,
  name: Schema.String,
  redirect_uris: Strings,
  scopes: Strings,
  confidential: Schema.Boolean,
  /**
   * Origins (`https://app.example.com`) whose browser pages may call the token endpoint and the
   * API (CORS); public clients only, else empty.
   */
  allowed_origins: Strings,
  /** SHA-256 of the client secret; null for public clients. */
  secret_hash: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type OAuthClientRow = typeof OAuthClientRow.Type

/** An authorization code (stored by hash). */
export const OAuthCodeRow = Schema.Struct({
  code_hash: Schema.String,
  client_id: Schema.String,
  account_id: Schema.String,
  user_id: Schema.String,
  redirect_uri: Schema.String,
  scopes: Strings,
  code_challenge: Schema.NullOr(Schema.String),
  expires_at: EpochMs,
  used_at: Schema.NullOr(EpochMs),
  created_at: Timestamp
})
export type OAuthCodeRow = typeof OAuthCodeRow.Type

/** An OAuth access or refresh token (stored by hash); `family_id` ties a grant's tokens together. */
export const OAuthTokenRow = Schema.Struct({
  id: Schema.String,
  token_hash: Schema.String,
  kind: Schema.Literals(["access", "refresh"]),
  client_id: Schema.String,
  account_id: Schema.String,
  user_id: Schema.String,
  scopes: Strings,
  family_id: Schema.String,
  expires_at: Schema.NullOr(EpochMs),
  rotated_at: Schema.NullOr(EpochMs),
  revoked_at: Schema.NullOr(EpochMs),
  last_used_at: EpochMs,
  created_at: Timestamp
})
export type OAuthTokenRow = typeof OAuthTokenRow.Type

/** The credentials-and-OAuth area of the storage contract. */
export interface CredentialsShape {
  readonly credentials: {
    readonly insert: (row: CredentialRow) => Fx<void, Duplicate>
    /** By token hash, across accounts; revoked rows included (the caller decides). */
    readonly getByHash: (tokenHash: string) => Fx<CredentialRow | undefined>
    /** Oldest first, ties by id. */
    readonly list: (accountId: string, kind: CredentialRow["kind"]) => Fx<ReadonlyArray<CredentialRow>>
    readonly get: (accountId: string, id: string) => Fx<CredentialRow | undefined>
    /** Sets `revoked_at` once; false when absent or already revoked. */
    readonly revoke: (accountId: string, id: string, at: string) => Fx<boolean>
    readonly touch: (id: string, at: string) => Fx<void>
  }

  readonly oauth: {
    readonly insertClient: (row: OAuthClientRow) => Fx<void, Duplicate>
    /** By client id, across accounts (client ids are public). */
    readonly getClient: (id: string) => Fx<OAuthClientRow | undefined>
    /** Oldest first, ties by id. */
    readonly listClients: (accountId: string) => Fx<ReadonlyArray<OAuthClientRow>>
    readonly updateClient: (accountId: string, id: string, patch: Patch<OAuthClientRow>) => Fx<OAuthClientRow | undefined>
    readonly deleteClient: (accountId: string, id: string) => Fx<boolean>
    readonly insertCode: (row: OAuthCodeRow) => Fx<void, Duplicate>
    /** A code as it is, without using it (checking who presents it before spending it). */
    readonly getCode: (codeHash: string) => Fx<OAuthCodeRow | undefined>
    /**
     * Marks a code used at `now` and answers it as it was before: exactly one caller sees
     * `used_at: null`; every later caller sees when it was first used (a replay).
     */
    readonly useCode: (codeHash: string, now: number) => Fx<OAuthCodeRow | undefined>
    readonly insertToken: (row: OAuthTokenRow) => Fx<void, Duplicate>
    readonly getToken: (tokenHash: string) => Fx<OAuthTokenRow | undefined>
    /** A token by its id (a principal's `credential_id`). */
    readonly getTokenById: (id: string) => Fx<OAuthTokenRow | undefined>
    /** Whether any application lists `origin` (exactly) in its `allowed_origins`. */
    readonly originAllowed: (origin: string) => Fx<boolean>
    /** Marks a refresh token rotated; true for exactly one caller. */
    readonly rotate: (tokenHash: string, now: number) => Fx<boolean>
    /** Revokes every token of a grant; answers how many were live. */
    readonly revokeFamily: (familyId: string, now: number) => Fx<number>
  }
}
