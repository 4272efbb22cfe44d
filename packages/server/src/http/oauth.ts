/**
 * The OAuth protocol endpoints over HTTP: `POST /oauth/token`, `POST /oauth/revoke` (both
 * `application/x-www-form-urlencoded`, never cached) and the RFC 8414 metadata document. The rules
 * are the core's `OAuthServer`; this reads forms and writes RFC 6749 §5.1/§5.2 responses.
 */
import { type CanopyClient, OAuth, OAuthServer, Permissions } from "@canopy/core"
import { Effect } from "effect"
import { type FormCaps, readUrlencoded } from "./forms.ts"
import type { ApiRequest, ApiResponse } from "./types.ts"

const NO_STORE = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", pragma: "no-cache" }

const json = (status: number, body: unknown, headers: Record<string, string> = NO_STORE): ApiResponse => ({ status, headers,
  body: body === null ? "" : JSON.stringify(body) })

/** What a token or revocation request's form may hold (a few parameters, a refresh token, a PKCE verifier). */
export const TOKEN_FORM: FormCaps = { bytes: 16 * 1024, fields: 32 }

/** Reads a form body within `TOKEN_FORM`; repeated parameters are an error (RFC 6749 §3.1). */
const readForm = (req: ApiRequest): Record<string, string> | string => {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  if (type !== "application/x-www-form-urlencoded") return "the body must be application/x-www-form-urlencoded"
  const read = readUrlencoded(req.body, TOKEN_FORM)
  if (!read.ok) return read.message
  const form: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [k, v] of read.pairs) {
    if (Object.hasOwn(form, k)) return `parameter ${k} is repeated`
    form[k] = v
  }
  return form
}

/**
 * The OAuth routes, given the issuer's public base URL for a request (for the metadata document):
 * undefined when there is none to trust (no public URL configured and a host that is not
 * loopback), and the metadata is then a 404 saying how to configure one.
 */
export const oauthRoutes = (canopy: CanopyClient, issuer: (req: ApiRequest) => string | undefined) => {
  const endpoint =
    (call: (s: OAuthServer["Service"], form: Record<string, string>, auth: string | undefined) => Effect.Effect<unknown, unknown>) =>
    async (req: ApiRequest): Promise<ApiResponse> => {
      const form = readForm(req)
      if (typeof form === "string") {
        const e = OAuth.tokenError("invalid_request", form)
        return json(e.status, e.body, e.headers)
      }
      const result = await canopy.run(Effect.flatMap(OAuthServer, (s) => call(s, form, req.headers.authorization))) as { ok: true; body: unknown } | {
        ok: false
        error: ReturnType<typeof OAuth.tokenError>
      }
      return result.ok ? json(200, result.body) : json(result.error.status, result.error.body, result.error.headers)
    }
  return {
    "POST /oauth/token": endpoint((s, form, auth) => s.token(form, auth)),
    "POST /oauth/revoke": endpoint((s, form, auth) => s.revoke(form, auth)),
    "GET /.well-known/oauth-authorization-server": async (req: ApiRequest): Promise<ApiResponse> => {
      const base = issuer(req)
      if (base === undefined) {
        return json(404, {
          error: "issuer_not_configured",
          error_description:
            "This server has no public URL, so it cannot name its OAuth issuer for this host: start it with --public-url https://… (or CANOPY_PUBLIC_URL)."
        })
      }
      return json(200, {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
        revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
        scopes_supported: [...Permissions.scopes]
      }, { "content-type": "application/json; charset=utf-8" })
    }
  }
}
