/**
 * OAuth 2.0 helpers (authorization code flow with PKCE, RFC 7636 S256): the authorization URL,
 * the code exchange and the refresh, against `{api root}/oauth/token`
 * (`application/x-www-form-urlencoded`). WebCrypto only.
 *
 * Token requests are never retried: a refresh token is single-use (rotated on each refresh, and
 * presenting a used one revokes the whole grant), so a blind retry could lock the user out.
 */
import { apiRoot } from "./client.ts"
import { APIConnectionError, OAuthError } from "./errors.ts"

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string
  readonly token_type: string
  /** Seconds (3600). */
  readonly expires_in: number
  /** With the `offline_access` scope. */
  readonly refresh_token?: string
  /** Space-separated scopes granted. */
  readonly scope?: string
}

export interface AuthorizationUrlOptions {
  /** Where Canopy is (as for `new Canopy`). */
  readonly baseUrl: string
  /** Where the authorization page is, when not on `baseUrl` ({auth_url} of the spec). */
  readonly authUrl?: string | undefined
  readonly clientId: string
  readonly redirectUri: string
  readonly scopes: ReadonlyArray<string>
  /** CSRF protection; default: 32 random bytes, base64url. Check it on the callback. */
  readonly state?: string | undefined
}

export interface AuthorizationRequest {
  /** Send the user here. */
  readonly url: string
  /** Keep it (server session, not a cookie readable by scripts) and pass it to `exchangeCode`. */
  readonly codeVerifier: string
  readonly codeChallenge: string
  readonly state: string
}

const base64url = (bytes: Uint8Array): string => {
  let s = ""
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const random = (n: number): string => base64url(globalThis.crypto.getRandomValues(new Uint8Array(n)))

/** The S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export const codeChallengeOf = async (verifier: string): Promise<string> =>
  base64url(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))))

/** The URL of the authorization page, with a fresh PKCE verifier (S256) and state. */
export const authorizationUrl = async (options: AuthorizationUrlOptions): Promise<AuthorizationRequest> => {
  const codeVerifier = random(32) // 43 characters, within RFC 7636's 43..128
  const codeChallenge = await codeChallengeOf(codeVerifier)
  const state = options.state ?? random(32)
  const url = new URL(`${apiRoot(options.authUrl ?? options.baseUrl)}/oauth/authorize`)
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scopes.join(" "),
    state,
    code_challenge: codeChallenge,
    code_challenge_method: "S256"
  }).toString()
  return { url: url.toString(), codeVerifier, codeChallenge, state }
}

interface ClientCredentials {
  readonly baseUrl: string
  readonly clientId: string
  /** Confidential applications only (sent as `client_secret` in the form). */
  readonly clientSecret?: string | undefined
  readonly fetch?: typeof globalThis.fetch | undefined
  readonly signal?: AbortSignal | undefined
}

const tokenRequest = async (options: ClientCredentials, fields: Record<string, string | undefined>): Promise<TokenResponse> => {
  const form = new URLSearchParams()
  for (const [k, v] of Object.entries({ ...fields, client_id: options.clientId, client_secret: options.clientSecret })) {
    if (v !== undefined) form.set(k, v)
  }
  const url = `${apiRoot(options.baseUrl)}/oauth/token`
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  let response: Response
  try {
    response = await doFetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
      ...(options.signal ? { signal: options.signal } : {})
    })
  } catch (e) {
    throw new APIConnectionError({ status: null, code: "CONNECTION_ERROR", message: `POST ${url}: ${e instanceof Error ? e.message : String(e)}`, cause: e })
  }
  const text = await response.text()
  let body: Record<string, unknown> = {}
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === "object" && parsed !== null) body = parsed as Record<string, unknown>
  } catch { /* not JSON: reported below */ }
  if (!response.ok || typeof body.access_token !== "string") {
    throw new OAuthError({
      status: response.status,
      code: typeof body.error === "string" ? body.error : "invalid_response",
      message: typeof body.error_description === "string" ? body.error_description : `token endpoint answered HTTP ${response.status}`,
      requestId: response.headers.get("x-request-id"),
      headers: response.headers
    })
  }
  return body as unknown as TokenResponse
}

/** Exchanges the code of the callback (`?code=…&state=…`; check `state` first) for tokens. */
export const exchangeCode = (options: ClientCredentials & {
  readonly code: string
  readonly redirectUri: string
  /** The `codeVerifier` from `authorizationUrl`. */
  readonly codeVerifier?: string | undefined
}): Promise<TokenResponse> =>
  tokenRequest(options, { grant_type: "authorization_code", code: options.code, redirect_uri: options.redirectUri, code_verifier: options.codeVerifier })

/** A new access token (and a new refresh token: the old one is used up). */
export const refreshToken = (options: ClientCredentials & { readonly refreshToken: string; readonly scope?: string | undefined }): Promise<TokenResponse> =>
  tokenRequest(options, { grant_type: "refresh_token", refresh_token: options.refreshToken, scope: options.scope })
