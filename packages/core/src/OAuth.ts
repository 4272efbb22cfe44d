/**
 * OAuth 2.0 rules as pure functions (RFC 6749, RFC 7636 PKCE, RFC 9700 best current practice):
 * checking an authorization request (which errors may be redirected and which must never be),
 * scopes, PKCE S256, client authentication, the token endpoint's error responses, and the
 * lifecycle of codes and rotating refresh tokens. The endpoints and pages build on these.
 */
import { createHash } from "node:crypto"
import * as ConstantTime from "./ConstantTime.ts"
import { Schema } from "effect"
import * as Permissions from "./Permissions.ts"
import * as Schemas from "./Schemas.ts"

/** Access tokens live one hour (spec). */
export const ACCESS_TOKEN_TTL_S = 3_600
/** Authorization codes live ten minutes and work once (DECISIONS). */
export const CODE_TTL_MS = 10 * 60_000
/** Refresh tokens expire after 30 days unused (DECISIONS). */
export const REFRESH_TTL_MS = 30 * 86_400_000

/** A registered application, as far as these rules need it. */
export interface Client {
  readonly client_id: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly scopes: ReadonlyArray<Permissions.Scope>
  /** Public clients (no secret: SPAs, mobile apps) must use PKCE. */
  readonly confidential: boolean
}

/** RFC 6749 §4.1.2.1 and §5.2 error codes. */
export type ErrorCode = "invalid_request" | "unauthorized_client" | "access_denied" | "unsupported_response_type" | "invalid_scope" | "server_error"
  | "temporarily_unavailable" | "invalid_client" | "invalid_grant" | "unsupported_grant_type"

const isScope = (s: string): s is Permissions.Scope => (Permissions.scopes as ReadonlyArray<string>).includes(s)

/** Parses a space-separated scope parameter: known scopes only, at least one, no duplicates kept. */
export const parseScope = (scope: string | undefined):
  | { readonly ok: true; readonly scopes: ReadonlyArray<Permissions.Scope> }
  | { readonly ok: false; readonly description: string } => {
  const parts = (scope ?? "").split(" ").filter((s) => s !== "")
  if (parts.length === 0) return { ok: false, description: "scope is required" }
  const unknown = parts.filter((s) => !isScope(s))
  if (unknown.length > 0) return { ok: false, description: `unknown scope: ${unknown.join(" ")}` }
  return { ok: true, scopes: Permissions.scopes.filter((s) => parts.includes(s)) }
}

const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/
const PKCE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export const challengeOf = (verifier: string): string => createHash("sha256").update(verifier, "ascii").digest("base64url")

/** Whether a code verifier matches its S256 challenge (constant-time compare). */
export const verifyPkce = (verifier: string | undefined, challenge: string): boolean => {
  if (!verifier || !PKCE_VERIFIER.test(verifier)) return false
  return ConstantTime.equal(challengeOf(verifier), challenge)
}

/** An authorization request's query parameters. */
export interface AuthorizeParams {
  readonly client_id?: string | undefined
  readonly redirect_uri?: string | undefined
  readonly response_type?: string | undefined
  readonly scope?: string | undefined
  readonly state?: string | undefined
  readonly code_challenge?: string | undefined
  readonly code_challenge_method?: string | undefined
}

/** What to do with an authorization request. */
export type AuthorizeCheck =
  /** The client or redirect URI cannot be trusted: show an error page, never redirect (§4.1.2.1). */
  | { readonly kind: "error_page"; readonly message: string }
  /** Redirect back with `error` (and the exact `state`). */
  | { readonly kind: "redirect_error"; readonly redirect_uri: string; readonly error: ErrorCode; readonly description: string;
    readonly state: string | undefined }
  /** Valid: go on to sign-in and consent. */
  | {
    readonly kind: "ok"
    readonly client: Client
    readonly redirect_uri: string
    readonly scopes: ReadonlyArray<Permissions.Scope>
    readonly state: string | undefined
    readonly code_challenge: string | undefined
  }

/** Checks an authorization request against the client it names (undefined: unknown client). */
export const checkAuthorize = (p: AuthorizeParams, client: Client | undefined): AuthorizeCheck => {
  if (!p.client_id || !client) return { kind: "error_page", message: "Unknown application (client_id)." }
  if (!p.redirect_uri || !client.redirect_uris.includes(p.redirect_uri)) {
    return { kind: "error_page", message: "This redirect URI is not registered for the application; it must match exactly." }
  }
  const fail = (error: ErrorCode, description: string): AuthorizeCheck => ({ kind: "redirect_error", redirect_uri: p.redirect_uri!, error, description,
    state: p.state })
  if (p.response_type !== "code") return fail("unsupported_response_type", "response_type must be code")
  const scope = parseScope(p.scope)
  if (!scope.ok) return fail("invalid_scope", scope.description)
  const notAllowed = scope.scopes.filter((s) => !client.scopes.includes(s))
  if (notAllowed.length > 0) return fail("invalid_scope", `not registered for this application: ${notAllowed.join(" ")}`)
  if (p.code_challenge_method !== undefined && p.code_challenge_method !== "S256") {
    return fail("invalid_request", "code_challenge_method must be S256")
  }
  if (p.code_challenge !== undefined && !PKCE_CHALLENGE.test(p.code_challenge)) {
    return fail("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters)")
  }
  if (p.code_challenge !== undefined && p.code_challenge_method === undefined) {
    return fail("invalid_request", "code_challenge_method=S256 is required with code_challenge")
  }
  if (!client.confidential && p.code_challenge === undefined) return fail("invalid_request", "PKCE (S256) is required for public clients")
  return { kind: "ok", client, redirect_uri: p.redirect_uri, scopes: scope.scopes, state: p.state, code_challenge: p.code_challenge }
}

/** `uri` with query parameters added (existing ones kept); undefined values are left out. */
export const withQuery = (uri: string, params: Readonly<Record<string, string | undefined>>): string => {
  const u = new URL(uri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.append(k, v)
  return u.toString()
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: form-urlencoded, then base64). */
export const parseBasic = (header: string | undefined): { readonly client_id: string; readonly client_secret: string } | undefined => {
  const m = header && /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (!m) return undefined
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 0) return undefined
  try {
    return {
      client_id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      client_secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "))
    }
  } catch {
    return undefined
  }
}

/** A token-endpoint error response (RFC 6749 §5.2), never cached. */
export const tokenError = (error: ErrorCode, description: string, viaBasic = false) => ({
  status: error === "invalid_client" ? 401 : 400,
  headers: {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    pragma: "no-cache",
    ...(error === "invalid_client" && viaBasic ? { "www-authenticate": "Basic realm=\"canopy\"" } : {})
  },
  body: { error, error_description: description }
})

/** What an authorization code remembers. */
export interface CodeState {
  readonly client_id: string
  readonly redirect_uri: string
  readonly code_challenge: string | null
  readonly expires_at: number
  readonly used_at: number | null
}

/** Checks a code exchange. A replayed code is `replayed`: the caller revokes what it issued. */
export const checkCodeExchange = (
  code: CodeState | undefined,
  request: { readonly client_id: string; readonly redirect_uri: string | undefined; readonly code_verifier: string | undefined },
  now: number
): { readonly ok: true } | { readonly ok: false; readonly replayed: boolean; readonly description: string } => {
  if (!code) return { ok: false, replayed: false, description: "unknown authorization code" }
  if (code.used_at !== null) return { ok: false, replayed: true, description: "authorization code already used; the tokens issued from it are revoked" }
  if (code.client_id !== request.client_id) return { ok: false, replayed: false, description: "authorization code was issued to another client" }
  if (now >= code.expires_at) return { ok: false, replayed: false, description: "authorization code expired" }
  if (request.redirect_uri !== code.redirect_uri) return { ok: false, replayed: false, description: "redirect_uri does not match the authorization request" }
  if (code.code_challenge !== null && !verifyPkce(request.code_verifier, code.code_challenge)) {
    return { ok: false, replayed: false, description: "code_verifier does not match the code_challenge" }
  }
  return { ok: true }
}

/** What a refresh token remembers. */
export interface RefreshState {
  readonly client_id: string
  readonly scopes: ReadonlyArray<Permissions.Scope>
  /** Set when the token was exchanged for a new one: using it again is reuse. */
  readonly rotated_at: number | null
  readonly revoked_at: number | null
  readonly last_used_at: number
}

/**
 * Checks a refresh. Reuse of a rotated token revokes the whole family (RFC 9700 §4.14.2); a
 * refresh may narrow the scope, never widen it.
 */
export const checkRefresh = (
  token: RefreshState | undefined,
  request: { readonly client_id: string; readonly scope: string | undefined },
  now: number
):
  | { readonly ok: true; readonly scopes: ReadonlyArray<Permissions.Scope> }
  | { readonly ok: false; readonly error: ErrorCode; readonly revokeFamily: boolean; readonly description: string } => {
  if (!token) return { ok: false, error: "invalid_grant", revokeFamily: false, description: "unknown refresh token" }
  if (token.client_id !== request.client_id)
    return { ok: false, error: "invalid_grant", revokeFamily: false, description: "refresh token was issued to another client" }
  if (token.revoked_at !== null) return { ok: false, error: "invalid_grant", revokeFamily: false, description: "refresh token revoked" }
  if (token.rotated_at !== null)
    return { ok: false, error: "invalid_grant", revokeFamily: true, description: "refresh token already used; every token of this grant is revoked" }
  if (now - token.last_used_at >= REFRESH_TTL_MS) return { ok: false, error: "invalid_grant", revokeFamily: false, description: "refresh token expired" }
  if (request.scope === undefined) return { ok: true, scopes: token.scopes }
  const asked = parseScope(request.scope)
  if (!asked.ok) return { ok: false, error: "invalid_scope", revokeFamily: false, description: asked.description }
  const wider = asked.scopes.filter((s) => !token.scopes.includes(s))
  if (wider.length > 0) return { ok: false, error: "invalid_scope", revokeFamily: false, description: `a refresh cannot add scopes: ${wider.join(" ")}` }
  return { ok: true, scopes: asked.scopes }
}

/** Whether a grant may carry a refresh token: only with `offline_access` (DECISIONS). */
export const issuesRefreshToken = (scopes: ReadonlyArray<Permissions.Scope>): boolean => scopes.includes("offline_access")

/**
 * Whether `s` is a browser origin an application may list in `allowed_origins`: exactly
 * `scheme://host[:port]` as browsers send it in `Origin` (no path, no trailing slash, lowercase
 * host, no default port), `https://`, or `http://` for a loopback host (development). Answers
 * true, or what is wrong.
 */
export const checkOrigin = (s: string): true | string => {
  let u: URL
  try {
    u = new URL(s)
  } catch {
    return "must be an origin such as https://app.example.com"
  }
  if (u.origin === "null" || u.origin !== s)
    return `must be exactly an origin (scheme://host[:port], no path or trailing slash)${u.origin !== "null" ? `: ${u.origin}` : ""}`
  const local = u.hostname === "localhost" || u.hostname === "127.0.0.1" || u.hostname === "[::1]"
  return u.protocol === "https:" || (u.protocol === "http:" && local) || "must be https:// (http:// only for localhost)"
}

/**
 * The member a credential acts for, as `GET /v1/me` answers it (what the `profile` scope's
 * consent text promises: name and email; with the member's id, role and account).
 */
export const Me = Schema.Struct({
  id: Schema.String,
  name: Schema.NullOr(Schema.String),
  email: Schema.String,
  role: Schemas.Role,
  account_id: Schema.String
})
export type Me = typeof Me.Type
