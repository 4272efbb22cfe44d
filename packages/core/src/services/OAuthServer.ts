/**
 * The OAuth 2.0 authorization server's domain: applications (register, list, rotate secret,
 * delete), authorization decisions (code issued for an approving member, or `access_denied`), the
 * token endpoint (authorization_code and refresh_token grants, client authentication by secret in
 * the body or HTTP Basic, PKCE), and revocation (RFC 7009). Rules are `OAuth`'s; this wires them to
 * storage. The sign-in and consent pages are the server's.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { Forbidden, NotFound, ValidationError } from "../Errors.ts"
import * as Ids from "../Ids.ts"
import * as OAuth from "../OAuth.ts"
import * as Permissions from "../Permissions.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { type OAuthClientRow, Storage, type StorageError, type StorageShape } from "../Storage.ts"
import * as Time from "../Time.ts"
import * as Tokens from "../Tokens.ts"
import { conflictOnDuplicate, decode, type Fx } from "./common.ts"

/** An application as listed (never its secret). */
export interface Application {
  readonly client_id: string
  readonly name: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly scopes: ReadonlyArray<string>
  readonly type: "confidential" | "public"
  /** Browser origins whose pages may call the token endpoint and the API (CORS); public applications only. */
  readonly allowed_origins: ReadonlyArray<string>
  readonly created_at: string
}

const toApplication = (c: OAuthClientRow): Application => ({
  client_id: c.id,
  name: c.name,
  redirect_uris: [...c.redirect_uris],
  scopes: [...c.scopes],
  type: c.confidential ? "confidential" : "public",
  allowed_origins: [...c.allowed_origins],
  created_at: c.created_at
})

const RedirectUri = Schema.String.pipe(Schema.check(Schema.makeFilter((s: string) => {
  try {
    const u = new URL(s)
    if (u.hash) return "must not contain a fragment"
    const local = u.hostname === "localhost" || u.hostname === "127.0.0.1" || u.hostname === "[::1]"
    return u.protocol === "https:" || (u.protocol === "http:" && local) || "must be https:// (http:// only for localhost)"
  } catch {
    return "must be an absolute URL"
  }
})))

const Origin = Schema.String.pipe(Schema.check(Schema.makeFilter((s: string) => OAuth.checkOrigin(s))))
const RedirectUris = Schema.Array(RedirectUri).pipe(
  Schema.check(Schema.makeFilter((a: ReadonlyArray<string>) => a.length > 0 || "must list at least one redirect URI"))
)
const AllowedOrigins = Schema.Array(Origin).pipe(Schema.check(Schema.makeFilter((a: ReadonlyArray<string>) => a.length <= 20 || "at most 20 origins")))

/** Body of registering an application. */
const RegisterApplication = Schema.Struct({
  name: Schemas.Name,
  redirect_uris: RedirectUris,
  scopes: Schema.Array(Schema.Literals(Permissions.scopes)).pipe(
    Schema.check(Schema.makeFilter((a: ReadonlyArray<string>) => a.length > 0 || "must list at least one scope"))
  ),
  type: Schema.Literals(["confidential", "public"]),
  /** Public applications only (a browser cannot keep a client secret). */
  allowed_origins: Schema.optionalKey(AllowedOrigins)
})

/** Body of changing an application: any of its name, redirect URIs and allowed origins. */
const UpdateApplication = Schema.Struct({
  name: Schema.optionalKey(Schemas.Name),
  redirect_uris: Schema.optionalKey(RedirectUris),
  allowed_origins: Schema.optionalKey(AllowedOrigins)
})

const originsOnConfidential = () =>
  new ValidationError({
    message: "The request body is invalid",
    details: [{ field: "allowed_origins",
      message: "only public applications may be called from browsers; a confidential application keeps its secret on a server" }]
  })

/** The token endpoint's answer: tokens, or an RFC 6749 §5.2 error. */
export type TokenResult =
  | { readonly ok: true;
    readonly body: { readonly access_token: string; readonly token_type: "Bearer"; readonly expires_in: number; readonly refresh_token?: string;
      readonly scope: string } }
  | { readonly ok: false; readonly error: ReturnType<typeof OAuth.tokenError> }

/** The OAuth server service. */
export class OAuthServer extends Context.Service<OAuthServer, {
  readonly register: (principal: Principal, input: unknown) => Fx<Application & { readonly client_secret?: string }>
  readonly list: (principal: Principal) => Fx<ReadonlyArray<Application>>
  readonly rotateSecret: (principal: Principal, clientId: string) => Fx<Application & { readonly client_secret: string }>
  readonly remove: (principal: Principal, clientId: string) => Fx<void>
  /** Changes an application's name, redirect URIs or allowed origins (`UpdateApplication`). */
  readonly update: (principal: Principal, clientId: string, input: unknown) => Fx<Application>
  /**
   * Whether some application lists `origin` in its `allowed_origins`: its browser pages may call
   * the token endpoint and the API (CORS).
   */
  readonly allowsOrigin: (origin: string) => Effect.Effect<boolean, StorageError>
  /**
   * The member a principal acts for (`GET /v1/me`): an OAuth token's user when it was granted the
   * `profile` scope, a signed-in member, an API key's creator. Forbidden for an OAuth token
   * without `profile`; NotFound for a service token or a credential no member stands behind.
   */
  readonly me: (principal: Principal) => Fx<OAuth.Me>
  /** A registered application's name and owning account, by client id (the authorize page's). */
  readonly application: (
    clientId: string
  ) => Effect.Effect<{ readonly id: string; readonly name: string; readonly account_id: string } | undefined, StorageError>
  /** Checks an authorization request (what the authorize page does first). */
  readonly check: (params: OAuth.AuthorizeParams) => Effect.Effect<OAuth.AuthorizeCheck, StorageError>
  /** A member approved: answers the redirect URL carrying a fresh code and the exact state. */
  readonly approve: (userId: string, request: Extract<OAuth.AuthorizeCheck, { kind: "ok" }>) => Fx<string>
  /** The member refused: the redirect URL carrying `access_denied`. */
  readonly deny: (request: Extract<OAuth.AuthorizeCheck, { kind: "ok" }>) => string
  /** `POST /oauth/token` with the form fields and the Authorization header. */
  readonly token: (form: Readonly<Record<string, string>>, authorization: string | undefined) => Effect.Effect<TokenResult, StorageError>
  /** `POST /oauth/revoke` (RFC 7009): true when the client authenticated (the answer is then 200 whatever the token). */
  readonly revoke: (form: Readonly<Record<string, string>>,
    authorization: string | undefined) => Effect.Effect<TokenResult | { readonly ok: true; readonly body: null }, StorageError>
}>()("canopy/OAuthServer") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

const decodeRegister = decode(RegisterApplication)
const decodeUpdate = decode(UpdateApplication)

const make = (storage: StorageShape) => {
  const toClient = (c: OAuthClientRow): OAuth.Client => ({
    client_id: c.id,
    redirect_uris: c.redirect_uris,
    scopes: c.scopes as ReadonlyArray<Permissions.Scope>,
    confidential: c.confidential
  })

  /** Authenticates the client of a token/revoke request (RFC 6749 §2.3). */
  const authenticateClient = (form: Readonly<Record<string, string>>, authorization: string | undefined) =>
    Effect.gen(function*() {
      const basic = OAuth.parseBasic(authorization)
      const clientId = basic?.client_id ?? form.client_id
      const secret = basic?.client_secret ?? form.client_secret
      const fail = (d: string) => ({ ok: false as const, error: OAuth.tokenError("invalid_client", d, basic !== undefined) })
      if (!clientId) return fail("client authentication is required")
      if (basic && form.client_secret) return fail("use one client authentication method, not two")
      const client = yield* storage.oauth.getClient(clientId)
      if (!client) return fail("unknown client")
      if (client.confidential) {
        if (!secret || Tokens.kindOf(secret) !== "client_secret" || !client.secret_hash || Tokens.hash(secret) !== client.secret_hash) {
          return fail("client authentication failed")
        }
      }
      return { ok: true as const, client }
    })

  /** Issues an access token (and a refresh token with offline_access) for a grant. */
  const issue = (client: OAuthClientRow, accountId: string, userId: string, scopes: ReadonlyArray<Permissions.Scope>, familyId: string, now: number) =>
    Effect.gen(function*() {
      const iso = new Date(now).toISOString()
      const access = Tokens.generate("oauth_access")
      const row = (kind: "access" | "refresh", value: string) => ({
        id: Ids.make("oauthToken"),
        token_hash: Tokens.hash(value),
        kind,
        client_id: client.id,
        account_id: accountId,
        user_id: userId,
        scopes: [...scopes],
        family_id: familyId,
        expires_at: kind === "access" ? now + OAuth.ACCESS_TOKEN_TTL_S * 1000 : null,
        rotated_at: null,
        revoked_at: null,
        last_used_at: now,
        created_at: iso
      })
      yield* storage.oauth.insertToken(row("access", access)).pipe(Effect.orDie)
      const refresh = OAuth.issuesRefreshToken(scopes) ? Tokens.generate("oauth_refresh") : undefined
      if (refresh) yield* storage.oauth.insertToken(row("refresh", refresh)).pipe(Effect.orDie)
      return {
        ok: true as const,
        body: {
          access_token: access,
          token_type: "Bearer" as const,
          expires_in: OAuth.ACCESS_TOKEN_TTL_S,
          ...(refresh ? { refresh_token: refresh } : {}),
          scope: scopes.join(" ")
        }
      }
    })

  const bad = (error: OAuth.ErrorCode, description: string) => ({ ok: false as const, error: OAuth.tokenError(error, description) })

  return OAuthServer.of({
    register: Effect.fn("OAuthServer.register")(function*(principal, input) {
      yield* authorize(principal, "credentials.create")
      const body = yield* decodeRegister(input)
      const now = yield* Time.nowIso
      const confidential = body.type === "confidential"
      if (confidential && (body.allowed_origins?.length ?? 0) > 0) return yield* originsOnConfidential()
      const secret = confidential ? Tokens.generate("client_secret") : undefined
      const row: OAuthClientRow = {
        id: Ids.make("oauthClient"),
        account_id: principal.account_id,
        name: body.name,
        redirect_uris: [...new Set(body.redirect_uris)],
        scopes: Permissions.scopes.filter((s) => body.scopes.includes(s)),
        confidential,
        allowed_origins: [...new Set(body.allowed_origins ?? [])],
        secret_hash: secret ? Tokens.hash(secret) : null,
        created_at: now,
        updated_at: now
      }
      yield* storage.oauth.insertClient(row).pipe(conflictOnDuplicate(() => "client id collision; try again"))
      return { ...toApplication(row), ...(secret ? { client_secret: secret } : {}) }
    }),

    list: Effect.fn("OAuthServer.list")(function*(principal) {
      yield* authorize(principal, "credentials.list")
      return (yield* storage.oauth.listClients(principal.account_id)).map(toApplication)
    }),

    rotateSecret: Effect.fn("OAuthServer.rotateSecret")(function*(principal, clientId) {
      yield* authorize(principal, "credentials.create")
      const client = yield* storage.oauth.getClient(clientId)
      if (!client || client.account_id !== principal.account_id) return yield* new NotFound({ resource: "application", id: clientId })
      if (!client.confidential) return yield* new Forbidden({ message: "public applications have no secret" })
      const secret = Tokens.generate("client_secret")
      const saved = yield* storage.oauth.updateClient(principal.account_id, clientId, { secret_hash: Tokens.hash(secret), updated_at: yield* Time.nowIso })
      if (!saved) return yield* new NotFound({ resource: "application", id: clientId })
      return { ...toApplication(saved), client_secret: secret }
    }),

    remove: Effect.fn("OAuthServer.remove")(function*(principal, clientId) {
      yield* authorize(principal, "credentials.revoke")
      if (!(yield* storage.oauth.deleteClient(principal.account_id, clientId))) return yield* new NotFound({ resource: "application", id: clientId })
    }),

    update: Effect.fn("OAuthServer.update")(function*(principal, clientId, input) {
      yield* authorize(principal, "credentials.create")
      const body = yield* decodeUpdate(input)
      const client = yield* storage.oauth.getClient(clientId)
      if (!client || client.account_id !== principal.account_id) return yield* new NotFound({ resource: "application", id: clientId })
      if (client.confidential && (body.allowed_origins?.length ?? 0) > 0) return yield* originsOnConfidential()
      const saved = yield* storage.oauth.updateClient(principal.account_id, clientId, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.redirect_uris !== undefined ? { redirect_uris: [...new Set(body.redirect_uris)] } : {}),
        ...(body.allowed_origins !== undefined ? { allowed_origins: [...new Set(body.allowed_origins)] } : {}),
        updated_at: yield* Time.nowIso
      })
      if (!saved) return yield* new NotFound({ resource: "application", id: clientId })
      return toApplication(saved)
    }),

    allowsOrigin: (origin) => OAuth.checkOrigin(origin) === true ? storage.oauth.originAllowed(origin) : Effect.succeed(false),

    me: Effect.fn("OAuthServer.me")(function*(principal) {
      // No member to show is a 404 (403 stays what it is everywhere: a grant the credential lacks).
      const none = (why: string) => new NotFound({ resource: "member", id: `(none: ${why})` })
      if (principal.kind === "service_token") return yield* none("a service token acts for no member; use an OAuth token with the profile scope or an API key")
      if (principal.kind === "system" || principal.user_id === null) return yield* none("this credential acts for no member")
      if (principal.kind === "oauth") {
        const token = principal.credential_id === null ? undefined : yield* storage.oauth.getTokenById(principal.credential_id)
        if (!token?.scopes.includes("profile")) return yield* new Forbidden({ message: "this access token was not granted the profile scope" })
      }
      const member = yield* storage.members.get(principal.account_id, principal.user_id)
      if (!member) return yield* new NotFound({ resource: "member", id: principal.user_id })
      return { id: member.id, name: member.name, email: member.email, role: member.role, account_id: principal.account_id }
    }),

    application: (clientId) => Effect.map(storage.oauth.getClient(clientId), (c) => c && { id: c.id, name: c.name, account_id: c.account_id }),

    check: (params) =>
      Effect.map(params.client_id ? storage.oauth.getClient(params.client_id) : Effect.succeed(undefined), (c) =>
        OAuth.checkAuthorize(params, c ? toClient(c) : undefined)),

    approve: Effect.fn("OAuthServer.approve")(function*(userId, request) {
      const client = yield* storage.oauth.getClient(request.client.client_id)
      if (!client) return yield* new NotFound({ resource: "application", id: request.client.client_id })
      const member = yield* storage.members.get(client.account_id, userId)
      if (!member || member.status !== "active") return yield* new Forbidden({ message: "only active members of the application's account can authorize it" })
      const now = yield* Time.nowMillis
      const code = Tokens.generate("oauth_code")
      yield* storage.oauth.insertCode({
        code_hash: Tokens.hash(code),
        client_id: client.id,
        account_id: client.account_id,
        user_id: userId,
        redirect_uri: request.redirect_uri,
        scopes: [...request.scopes],
        code_challenge: request.code_challenge ?? null,
        expires_at: now + OAuth.CODE_TTL_MS,
        used_at: null,
        created_at: new Date(now).toISOString()
      }).pipe(conflictOnDuplicate(() => "code collision; try again"))
      return OAuth.withQuery(request.redirect_uri, { code, state: request.state })
    }),

    deny: (request) =>
      OAuth.withQuery(request.redirect_uri, { error: "access_denied", error_description: "the user denied the request", state: request.state }),

    token: (form, authorization) =>
      Effect.gen(function*() {
        const auth = yield* authenticateClient(form, authorization)
        if (!auth.ok) return auth
        const client = auth.client
        const now = yield* Time.nowMillis
        if (form.grant_type === "authorization_code") {
          if (!form.code) return bad("invalid_request", "code is required")
          const codeHash = Tokens.hash(form.code)
          const exchange = { client_id: client.id, redirect_uri: form.redirect_uri, code_verifier: form.code_verifier }
          // First read the code without spending it. Presented by another client, it is refused
          // and nothing changes (it is neither spent nor are its tokens revoked); an unused code
          // presented with another redirect_uri, or expired, is refused unspent too. What is
          // checked here is what the code recorded at issue, which never changes. A wrong PKCE
          // verifier does spend it (below): whoever holds a code without its verifier gets one guess.
          const peek = yield* storage.oauth.getCode(codeHash)
          if (!peek) return bad("invalid_grant", "unknown authorization code")
          if (peek.client_id !== client.id) return bad("invalid_grant", "authorization code was issued to another client")
          if (peek.used_at === null) {
            if (now >= peek.expires_at) return bad("invalid_grant", "authorization code expired")
            if (form.redirect_uri !== peek.redirect_uri) return bad("invalid_grant", "redirect_uri does not match the authorization request")
          }
          // Spending the code and writing its tokens commit together: a replay waits for the
          // winner's commit (the code's row is locked), so its revocation sees those tokens.
          return yield* storage.transaction(Effect.gen(function*() {
            const code = yield* storage.oauth.useCode(codeHash, now)
            const verdict = OAuth.checkCodeExchange(code, exchange, now)
            if (!verdict.ok) {
              if (verdict.replayed) yield* storage.oauth.revokeFamily(codeHash, now)
              return bad("invalid_grant", verdict.description)
            }
            if (!client.confidential && code!.code_challenge === null) return bad("invalid_grant", "PKCE is required for public clients")
            return yield* issue(client, code!.account_id, code!.user_id, code!.scopes as ReadonlyArray<Permissions.Scope>, codeHash, now)
          }))
        }
        if (form.grant_type === "refresh_token") {
          if (!form.refresh_token) return bad("invalid_request", "refresh_token is required")
          const hash = Tokens.hash(form.refresh_token)
          const stored = yield* storage.oauth.getToken(hash)
          const token = stored && stored.kind === "refresh" ? stored : undefined
          const verdict = OAuth.checkRefresh(token && {
            client_id: token.client_id,
            scopes: token.scopes as ReadonlyArray<Permissions.Scope>,
            rotated_at: token.rotated_at,
            revoked_at: token.revoked_at,
            last_used_at: token.last_used_at
          }, { client_id: client.id, scope: form.scope }, now)
          if (!verdict.ok) {
            if (verdict.revokeFamily && token) yield* storage.oauth.revokeFamily(token.family_id, now)
            return bad(verdict.error, verdict.description)
          }
          // Rotation and the new tokens commit together. A concurrent reuse's rotation waits on the
          // old token's row until then, fails, and its revocation (a later statement) sees them.
          const rotated = yield* storage.transaction(Effect.gen(function*() {
            if (!(yield* storage.oauth.rotate(hash, now))) return undefined
            return yield* issue(client, token!.account_id, token!.user_id, verdict.scopes, token!.family_id, now)
          }))
          if (rotated) return rotated
          yield* storage.oauth.revokeFamily(token!.family_id, now)
          return bad("invalid_grant", "refresh token already used; every token of this grant is revoked")
        }
        return bad("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
      }),

    revoke: (form, authorization) =>
      Effect.gen(function*() {
        const auth = yield* authenticateClient(form, authorization)
        if (!auth.ok) return auth
        if (!form.token) return bad("invalid_request", "token is required")
        const token = yield* storage.oauth.getToken(Tokens.hash(form.token))
        // RFC 7009 §2.2: an unknown token, or another client's, is answered 200 all the same.
        if (token && token.client_id === auth.client.id) {
          const now = yield* Time.nowMillis
          // Revoking a refresh token ends the grant; an access token, just itself and its grant.
          yield* storage.oauth.revokeFamily(token.family_id, now)
        }
        return { ok: true as const, body: null }
      })
  })
}
