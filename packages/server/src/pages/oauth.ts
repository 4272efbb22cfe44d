/**
 * The authorization pages: `GET /oauth/authorize` (checks the request; signs the member in if
 * needed; asks for consent, listing the scopes in plain words), `POST /oauth/sign-in` and
 * `POST /oauth/authorize` (the decision). Unknown clients and unregistered redirect URIs get an
 * error page, never a redirect; other errors go back to the application with the exact `state`.
 */
import { type Canopy, type CanopyClient, Errors, OAuth, OAuthServer, Permissions, Sessions, Tokens } from "@canopy/core"
import { Effect, Exit } from "effect"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { cookies, domainError, escape, formRefused, page, readForm, redirect, same, setCookie, signInForm, SMALL_FORM } from "./html.ts"
import type { Site } from "./site.ts"

const SESSION = "canopy_session"
const PRE_CSRF = "canopy_csrf"

const authorizeParams = (q: URLSearchParams | Record<string, string>): OAuth.AuthorizeParams => {
  const get = (k: string) => (q instanceof URLSearchParams ? q.get(k) ?? undefined : q[k])
  return {
    client_id: get("client_id"),
    redirect_uri: get("redirect_uri"),
    response_type: get("response_type"),
    scope: get("scope"),
    state: get("state"),
    code_challenge: get("code_challenge"),
    code_challenge_method: get("code_challenge_method")
  }
}

const hidden = (params: OAuth.AuthorizeParams) =>
  Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(String(v))}">`).join("")

/** The pages, over a running Canopy; the site says whether cookies are Secure. */
export const authorizePages = (canopy: CanopyClient, site: Site) => {
  const run = <A, E>(e: Effect.Effect<A, E, Canopy.Runtime>) => canopy.runExit(e)

  const errorPage = (message: string, status = 400) =>
    page(status, "Cannot authorize",
      `<h1>This authorization request cannot be completed</h1><p class="error">${escape(message)}</p><p>Return to the application and try again.</p>`)

  const signInPage = (req: ApiRequest, params: OAuth.AuthorizeParams, appName: string, status = 200, error?: string, headers: Record<string, string> = {}) => {
    const csrf = Tokens.generate("session")
    return page(status, "Sign in", `<h1>Sign in to continue to ${escape(appName)}</h1>
${error ? `<p class="error" role="alert">${escape(error)}</p>` : ""}
${signInForm(site.path("/oauth/sign-in"), csrf, hidden(params))}`, {
      "set-cookie": setCookie(PRE_CSRF, csrf, { secure: site.secure(req), path: site.basePath, maxAgeS: 1800 }),
      ...headers
    })
  }

  const consentPage = (params: OAuth.AuthorizeParams, appName: string, scopes: ReadonlyArray<string>, csrf: string, who: string) =>
    page(200, "Authorize", `<h1>${escape(appName)} wants to access your Canopy account</h1>
<p>Signed in as ${escape(who)}. If you allow it, ${escape(appName)} will be able to:</p>
<ul>${scopes.map((s) => `<li>${escape(Permissions.describeScope(s))}</li>`).join("")}</ul>
<form method="post" action="${escape(site.path("/oauth/authorize"))}">${hidden(params)}<input type="hidden" name="csrf" value="${escape(csrf)}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`)

  /** The request, checked, with the application's row. */
  const examine = (params: OAuth.AuthorizeParams) =>
    run(Effect.gen(function*() {
      const oauth = yield* OAuthServer
      const check = yield* oauth.check(params)
      const app = check.kind === "ok" ? yield* oauth.application(check.client.client_id) : undefined
      return { check, app }
    }))

  const respond = async (params: OAuth.AuthorizeParams, req: ApiRequest, afterSignIn?: () => Promise<ApiResponse | undefined>): Promise<ApiResponse> => {
    const exit = await examine(params)
    if (Exit.isFailure(exit)) return errorPage("Something went wrong; try again.", 500)
    const { app, check } = exit.value
    if (check.kind === "error_page") return errorPage(check.message)
    if (check.kind === "redirect_error") {
      return redirect(OAuth.withQuery(check.redirect_uri, { error: check.error, error_description: check.description, state: check.state }), 302)
    }
    if (afterSignIn) {
      const r = await afterSignIn()
      if (r) return r
    }
    const session = await run(Effect.flatMap(Sessions, (s) => s.get(cookies(req)[SESSION])))
    const live = Exit.isSuccess(session) ? session.value : undefined
    if (!live || live.account_id !== app!.account_id) return signInPage(req, params, app!.name)
    return consentPage(params, app!.name, check.scopes, live.csrf, live.member.name ?? live.member.email)
  }

  return {
    "GET /oauth/authorize": (req: ApiRequest) => respond(authorizeParams(req.query), req),

    "POST /oauth/sign-in": async (req: ApiRequest): Promise<ApiResponse> => {
      // The form's CSRF cookie before its body: without one nothing of the body is read.
      const expected = cookies(req)[PRE_CSRF]
      if (!expected) return errorPage("The form expired; go back and try again.", 403)
      const read = readForm(req, SMALL_FORM)
      if (!read.ok) return formRefused(read.message)
      const f = read.fields
      const params = authorizeParams(f)
      if (!same(f.csrf, expected)) return errorPage("The form expired; go back and try again.", 403)
      const exit = await examine(params)
      if (Exit.isFailure(exit) || exit.value.check.kind !== "ok") return respond(params, req)
      const app = exit.value.app!
      const signedIn = await run(Effect.flatMap(Sessions, (s) => s.signIn(app.account_id, f.email ?? "", f.password ?? "", req.ip)))
      if (Exit.isFailure(signedIn)) {
        const err = domainError(signedIn)
        return err?._tag === "RateLimited"
          ? signInPage(req, params, app.name, 429, err.message, { "retry-after": Errors.retryAfter(err.retryAfter) })
          : signInPage(req, params, app.name, 401, err?.message ?? "Sign-in failed; try again.")
      }
      const back = OAuth.withQuery(`http://x${site.path("/oauth/authorize")}`, params as Record<string, string | undefined>)
      return redirect(back.slice("http://x".length), 303, {
        "set-cookie": setCookie(SESSION, signedIn.value.token, { secure: site.secure(req), path: site.basePath, maxAgeS: 12 * 3600 })
      })
    },

    "POST /oauth/authorize": async (req: ApiRequest): Promise<ApiResponse> => {
      // The session before the body: without one nothing of the body is read.
      const session = await run(Effect.flatMap(Sessions, (s) => s.get(cookies(req)[SESSION])))
      const live = Exit.isSuccess(session) ? session.value : undefined
      if (!live) return errorPage("Your session expired or the form is stale; start again from the application.", 403)
      const read = readForm(req, SMALL_FORM)
      if (!read.ok) return formRefused(read.message)
      const f = read.fields
      const params = authorizeParams(f)
      if (!same(f.csrf, live.csrf)) return errorPage("Your session expired or the form is stale; start again from the application.", 403)
      const exit = await examine(params)
      if (Exit.isFailure(exit)) return errorPage("Something went wrong; try again.", 500)
      const { app, check } = exit.value
      if (check.kind !== "ok") return respond(params, req)
      if (app!.account_id !== live.account_id) return errorPage("Sign in with an account that owns this application.", 403)
      if (f.decision !== "approve") return redirect(await canopy.run(Effect.map(OAuthServer, (s) => s.deny(check))))
      const approved = await run(Effect.flatMap(OAuthServer, (s) => s.approve(live.member.id, check)))
      return Exit.isSuccess(approved) ? redirect(approved.value) : errorPage("You cannot authorize this application.", 403)
    }
  }
}
