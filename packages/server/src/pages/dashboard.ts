/**
 * The dashboard (`/dashboard`): sign-in, then one page with the account's settings — API keys,
 * service tokens, OAuth applications, webhooks with their recent deliveries, members, and usage
 * with bars at 75/90/100%. Every action is a form POST (CSRF-checked) performed as the signed-in
 * member, through the same domain services and permission rules as the API; values shown once
 * (key and token values, client secrets, invitation links) appear in the page that follows.
 */
import {
  Accounts, type Canopy, type CanopyClient, Credentials, Members, OAuthServer, Permissions, type Principal,
  Sessions, Tokens, Webhooks
} from "@canopy/core"
import { Effect, Exit, Result } from "effect"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { cookies, domainError, escape, form, page, redirect, same, setCookie, signInForm } from "./html.ts"
import type { Site } from "./site.ts"

const SESSION = "canopy_session"
const PRE_CSRF = "canopy_csrf"

const list = (s: string | undefined) => (s ?? "").split(/[,\s]+/).map((x) => x.trim()).filter((x) => x !== "")

/** A usage bar; its class says which threshold it has reached. */
const bar = (label: string, current: number, limit: number) => {
  const pct = limit > 0 ? (current / limit) * 100 : 0
  const level = pct >= 100 ? "over" : pct >= 90 ? "t90" : pct >= 75 ? "t75" : "ok"
  return `<div class="usage"><span>${escape(label)}: ${current.toLocaleString("en")} of ${limit.toLocaleString("en")} (${pct.toFixed(1)}%)</span>
<div class="bar ${level}" data-level="${level}" role="meter" aria-valuenow="${pct.toFixed(1)}" aria-valuemin="0" aria-valuemax="100"><i style="width:${Math.min(100, pct).toFixed(1)}%"></i><b style="left:75%"></b><b style="left:90%"></b></div></div>`
}

const STYLE = `<style>.usage{margin:.5rem 0}.bar{position:relative;height:.8rem;background:#e6ece7;border-radius:3px;overflow:hidden}
.bar i{display:block;height:100%;background:#2f7d4a}.bar.t75 i{background:#c9a227}.bar.t90 i{background:#d9822b}.bar.over i{background:#b3261e}
.bar b{position:absolute;top:0;width:1px;height:100%;background:#555}table{border-collapse:collapse;width:100%;font-size:.9rem}
td,th{border-bottom:1px solid #dde5de;padding:.3rem;text-align:left;vertical-align:top}section{margin:2rem 0}
.flash{background:#e7f4ea;border:1px solid #9ccaa8;padding:.5rem .75rem;border-radius:4px;word-break:break-all}
form.inline{display:inline}form.inline button{margin:0;padding:.2rem .6rem;font-size:.85rem}body{max-width:56rem}</style>`

export const dashboardPages = (canopy: CanopyClient, site: Site) => {
  const run = <A, E>(e: Effect.Effect<A, E, Canopy.Runtime>) => canopy.runExit(e)

  const signInPage = (req: ApiRequest, status = 200, error?: string, headers: Record<string, string> = {}) => {
    const csrf = Tokens.generate("session")
    return page(status, "Sign in", `<h1>Sign in to Canopy</h1>${error ? `<p class="error" role="alert">${escape(error)}</p>` : ""}
${signInForm(site.path("/dashboard/sign-in"), csrf)}`, { "set-cookie": setCookie(PRE_CSRF, csrf, { secure: site.secure(req), path: site.basePath, maxAgeS: 1800 }), ...headers })
  }

  /** The signed-in member and the principal acting for them. */
  const current = async (req: ApiRequest) => {
    const exit = await run(Effect.gen(function*() {
      const session = yield* (yield* Sessions).get(cookies(req)[SESSION])
      if (!session) return undefined
      const principal = yield* (yield* Members).principalFor(session.account_id, session.member.id)
      return { session, principal }
    }))
    return Exit.isSuccess(exit) ? exit.value : undefined
  }

  const render = async (principal: Principal.Principal, csrf: string, who: string, flash?: { ok: boolean; html: string }) => {
    const section = <A>(e: Effect.Effect<A, unknown, Canopy.Runtime>) => Effect.result(e)
    const exit = await run(Effect.gen(function*() {
      const accounts = yield* Accounts
      const credentials = yield* Credentials
      const webhooks = yield* Webhooks
      return {
        account: yield* accounts.get(principal),
        usage: yield* section(accounts.usage(principal)),
        keys: yield* section(credentials.list(principal, "api_key")),
        tokens: yield* section(credentials.list(principal, "service_token")),
        apps: yield* section(Effect.flatMap(OAuthServer, (o) => o.list(principal))),
        hooks: yield* section(Effect.gen(function*() {
          const all = (yield* webhooks.list(principal)).data
          return yield* Effect.forEach(all, (w) => Effect.map(webhooks.logs(principal, w.id, { per_page: 5 }), (l) => ({ w, logs: l.data })))
        })),
        members: yield* section(Effect.flatMap(Members, (m) => m.list(principal)))
      }
    }))
    if (Exit.isFailure(exit)) return page(500, "Dashboard", "<h1>Something went wrong</h1>")
    const d = exit.value
    const f = (action: string, fields: string, button: string, inline = false) =>
      `<form method="post" action="${escape(site.path("/dashboard/action"))}"${inline ? " class=\"inline\"" : ""}><input type="hidden" name="csrf" value="${escape(csrf)}"><input type="hidden" name="action" value="${action}">${fields}<button type="submit">${escape(button)}</button></form>`
    const denied = "<p><em>Your role does not include this.</em></p>"
    const perms = Permissions.all.map((p) => `<label><input type="checkbox" name="permissions" value="${p}" style="width:auto"> ${p}</label>`).join("")
    const credTable = (r: Result.Result<ReadonlyArray<{ id: string; name: string; token_hint: string; permissions: ReadonlyArray<string>; revoked_at: string | null; ip_allowlist: ReadonlyArray<string> | null }>, unknown>, kind: string) =>
      Result.isFailure(r) ? denied : `<table><tr><th>Name</th><th>Value</th><th>Permissions</th><th></th></tr>${r.success.map((c) =>
        `<tr><td>${escape(c.name)}</td><td><code>${escape(c.token_hint)}</code></td><td>${escape(c.permissions.join(", "))}${c.ip_allowlist ? `<br>from ${escape(c.ip_allowlist.join(", "))}` : ""}</td><td>${c.revoked_at ? "revoked" : f(`revoke_${kind}`, `<input type="hidden" name="id" value="${escape(c.id)}">`, "Revoke", true)}</td></tr>`).join("")}</table>`
    const body = `${STYLE}<h1>${escape(d.account.name)}</h1><p>Signed in as ${escape(who)} · plan ${escape(d.account.plan)} ${f("sign_out", "", "Sign out", true)}</p>
${flash ? `<div class="${flash.ok ? "flash" : "error"}" role="status">${flash.html}</div>` : ""}
<section id="usage"><h2>Usage</h2>${Result.isFailure(d.usage) ? denied : [
      bar("Hectares", d.usage.success.hectares.current, d.usage.success.hectares.limit),
      bar("Members", d.usage.success.members.current, d.usage.success.members.limit),
      bar("API requests this period", d.usage.success.api_requests.current, d.usage.success.api_requests.limit)
    ].join("")}</section>
<section id="api-keys"><h2>API keys</h2>${credTable(d.keys, "key")}
${f("create_key", `<label for="key-name">Name</label><input id="key-name" name="name" required>${perms}`, "Create API key")}</section>
<section id="service-tokens"><h2>Service tokens</h2>${credTable(d.tokens, "svc")}
${f("create_svc", `<label for="svc-name">Name</label><input id="svc-name" name="name" required>${perms}<label for="svc-ips">IP allowlist (IPv4 addresses or CIDR ranges, comma-separated)</label><input id="svc-ips" name="ip_allowlist">`, "Create service token")}</section>
<section id="applications"><h2>OAuth applications</h2>${Result.isFailure(d.apps) ? denied : `<table><tr><th>Name</th><th>Client id</th><th>Redirect URIs</th><th>Scopes</th><th>Browser origins (CORS)</th><th></th></tr>${d.apps.success.map((a) =>
      `<tr><td>${escape(a.name)} (${a.type})</td><td><code>${escape(a.client_id)}</code></td><td>${escape(a.redirect_uris.join(" "))}</td><td>${escape(a.scopes.join(" "))}</td><td>${a.type === "public" ? f("set_origins", `<input type="hidden" name="id" value="${escape(a.client_id)}"><input name="allowed_origins" aria-label="Allowed origins of ${escape(a.name)}" value="${escape(a.allowed_origins.join(" "))}">`, "Save origins", true) : "—"}</td><td>${a.type === "confidential" ? f("rotate_app", `<input type="hidden" name="id" value="${escape(a.client_id)}">`, "Rotate secret", true) : ""} ${f("delete_app", `<input type="hidden" name="id" value="${escape(a.client_id)}">`, "Delete", true)}</td></tr>`).join("")}</table>`}
${f("create_app", `<label for="app-name">Name</label><input id="app-name" name="name" required><label for="app-uris">Redirect URIs (space-separated)</label><input id="app-uris" name="redirect_uris" required>
${Permissions.scopes.map((s) => `<label><input type="checkbox" name="scopes" value="${s}" style="width:auto"> ${s}</label>`).join("")}
<label><input type="radio" name="type" value="confidential" checked style="width:auto"> confidential (has a secret)</label><label><input type="radio" name="type" value="public" style="width:auto"> public (PKCE)</label>
<label for="app-origins">Browser origins allowed to call the API and token endpoint (public applications; space-separated, e.g. https://app.example.com)</label><input id="app-origins" name="allowed_origins">`, "Register application")}</section>
<section id="webhooks"><h2>Webhooks</h2>${Result.isFailure(d.hooks) ? denied : d.hooks.success.map(({ logs, w }) =>
      `<h3><code>${escape(w.url)}</code> ${w.enabled ? "enabled" : `disabled${w.disabled_reason ? ` (${escape(w.disabled_reason)})` : ""}`} ${f("toggle_webhook", `<input type="hidden" name="id" value="${escape(w.id)}"><input type="hidden" name="enabled" value="${w.enabled ? "false" : "true"}">`, w.enabled ? "Disable" : "Enable", true)}</h3>
<p>Events: ${escape(w.events.join(", "))}</p><table><tr><th>Event</th><th>Attempt</th><th>Status</th><th>Code</th><th>When</th></tr>${logs.map((l) =>
        `<tr><td>${escape(l.event_type)}</td><td>${l.attempt}</td><td>${escape(l.status)}</td><td>${l.response_code ?? ""}</td><td>${escape(l.delivered_at ?? l.next_retry_at ?? "")}</td></tr>`).join("") || "<tr><td colspan=5>No deliveries yet</td></tr>"}</table>`).join("")}
${f("create_webhook", `<label for="wh-url">URL (https://)</label><input id="wh-url" name="url" required><label for="wh-events">Events (comma-separated, or *)</label><input id="wh-events" name="events" value="*" required>`, "Add webhook")}</section>
<section id="members"><h2>Members</h2>${Result.isFailure(d.members) ? denied : `<table><tr><th>Name</th><th>Email</th><th>Role</th><th>Status</th><th></th></tr>${d.members.success.data.map((m) =>
      `<tr><td>${escape(m.name ?? "")}</td><td>${escape(m.email)}</td><td>${escape(m.role)}</td><td>${escape(m.status)}</td><td>${f("change_role", `<input type="hidden" name="id" value="${escape(m.id)}"><select name="role">${Permissions.roles.map((r) => `<option${r === m.role ? " selected" : ""}>${r}</option>`).join("")}</select>`, "Change role", true)} ${f("remove_member", `<input type="hidden" name="id" value="${escape(m.id)}">`, "Remove", true)}</td></tr>`).join("")}</table>`}
${f("invite", `<label for="inv-email">Email</label><input id="inv-email" name="email" type="email" required><label for="inv-role">Role</label><select id="inv-role" name="role">${Permissions.invitableRoles.map((r) => `<option>${r}</option>`).join("")}</select>`, "Invite")}</section>`
    return page(200, "Dashboard", body)
  }

  /** `origin`: the base of absolute links (undefined: none can be trusted, so links are paths). */
  const act = (principal: Principal.Principal, f: Record<string, string>, all: URLSearchParams, origin: string | undefined) =>
    Effect.gen(function*(): Generator<any, { ok: boolean; html: string }, any> {
      const credentials = yield* Credentials
      const shown = (label: string, value: string) => `${escape(label)} (shown only now): <code id="shown-once">${escape(value)}</code>`
      switch (f.action) {
        case "create_key": case "create_svc": {
          const kind = f.action === "create_key" ? "api_key" : "service_token"
          const c = yield* credentials.create(principal, kind, {
            name: f.name, permissions: all.getAll("permissions"), ...(kind === "service_token" && list(f.ip_allowlist).length ? { ip_allowlist: list(f.ip_allowlist) } : {})
          })
          return { ok: true, html: shown(`${kind === "api_key" ? "API key" : "Service token"} “${c.name}” created`, c.token) }
        }
        case "revoke_key": case "revoke_svc":
          yield* credentials.revoke(principal, f.id ?? "")
          return { ok: true, html: "Revoked." }
        case "create_app": {
          const origins = list(f.allowed_origins)
          const a = yield* (yield* OAuthServer).register(principal, {
            name: f.name, redirect_uris: list(f.redirect_uris), scopes: all.getAll("scopes"), type: f.type, ...(origins.length ? { allowed_origins: origins } : {})
          })
          return { ok: true, html: `Application registered: client id <code id="client-id">${escape(a.client_id)}</code>${a.client_secret ? `<br>${shown("Client secret", a.client_secret)}` : ""}` }
        }
        case "set_origins": {
          const a = yield* (yield* OAuthServer).update(principal, f.id ?? "", { allowed_origins: list(f.allowed_origins) })
          return { ok: true, html: `Browser origins of ${escape(a.name)}: ${a.allowed_origins.length ? escape(a.allowed_origins.join(" ")) : "none"}.` }
        }
        case "rotate_app": {
          const a = yield* (yield* OAuthServer).rotateSecret(principal, f.id ?? "")
          return { ok: true, html: shown("New client secret", a.client_secret) }
        }
        case "delete_app":
          yield* (yield* OAuthServer).remove(principal, f.id ?? "")
          return { ok: true, html: "Application deleted." }
        case "create_webhook": {
          const w = yield* (yield* Webhooks).create(principal, { url: f.url, events: list(f.events) })
          return { ok: true, html: shown("Webhook added; signing secret", w.secret ?? "") }
        }
        case "toggle_webhook":
          yield* (yield* Webhooks).update(principal, f.id ?? "", { enabled: f.enabled === "true" })
          return { ok: true, html: f.enabled === "true" ? "Webhook enabled." : "Webhook disabled." }
        case "invite": {
          const r = yield* (yield* Members).invite(principal, { email: f.email, role: f.role })
          const link = `${origin ?? site.basePath}/invitations/accept?token=${r.invitation.token}`
          const hint = origin === undefined ? " (put this site's address in front; with a configured public URL the link is shown whole)" : ""
          return { ok: true, html: `Invited ${escape(r.member.email)}. Send them this link (shown only now): <code id="shown-once">${escape(link)}</code>${hint}` }
        }
        case "change_role":
          yield* (yield* Members).update(principal, f.id ?? "", { role: f.role })
          return { ok: true, html: "Role changed." }
        case "remove_member":
          yield* (yield* Members).remove(principal, f.id ?? "")
          return { ok: true, html: "Member removed." }
        default:
          return { ok: false, html: "Unknown action." }
      }
    })

  return {
    "GET /dashboard": async (req: ApiRequest): Promise<ApiResponse> => {
      const me = await current(req)
      return me ? render(me.principal, me.session.csrf, me.session.member.name ?? me.session.member.email) : signInPage(req)
    },

    "POST /dashboard/sign-in": async (req: ApiRequest): Promise<ApiResponse> => {
      const f = form(req)
      if (!same(f.csrf, cookies(req)[PRE_CSRF])) return signInPage(req, 403, "The form expired; try again.")
      const exit = await run(Effect.flatMap(Sessions, (s) => s.signInAnywhere(f.email ?? "", f.password ?? "", req.ip)))
      if (Exit.isFailure(exit)) {
        const err = domainError(exit)
        return err?._tag === "RateLimited"
          ? signInPage(req, 429, err.message, { "retry-after": String(err.retryAfter) })
          : signInPage(req, 401, err?.message ?? "Sign-in failed; try again.")
      }
      return redirect(site.path("/dashboard"), 303, { "set-cookie": setCookie(SESSION, exit.value.token, { secure: site.secure(req), path: site.basePath, maxAgeS: 12 * 3600 }) })
    },

    "POST /dashboard/action": async (req: ApiRequest): Promise<ApiResponse> => {
      const me = await current(req)
      const f = form(req)
      if (!me || !same(f.csrf, me.session.csrf)) return signInPage(req, 403, "Your session expired; sign in again.")
      if (f.action === "sign_out") {
        await run(Effect.flatMap(Sessions, (s) => s.signOut(me.session.token)))
        return redirect(site.path("/dashboard"), 303, { "set-cookie": setCookie(SESSION, "", { secure: site.secure(req), path: site.basePath, maxAgeS: 0 }) })
      }
      const all = new URLSearchParams(Buffer.from(req.body ?? new Uint8Array()).toString("utf8"))
      const exit = await run(act(me.principal, f, all, site.origin(req)) as Effect.Effect<{ ok: boolean; html: string }, unknown, Canopy.Runtime>)
      let flash: { ok: boolean; html: string }
      if (Exit.isSuccess(exit)) flash = exit.value
      else {
        const err = domainError(exit)
        const details = err?._tag === "ValidationError" ? `<ul>${err.details.map((x) => `<li>${escape(x.field)}: ${escape(x.message)}</li>`).join("")}</ul>` : ""
        flash = { ok: false, html: `${escape(err?.message ?? "Something went wrong.")}${details}` }
      }
      // The member's role may have changed with the action: act as they are now.
      const again = await current(req)
      return again ? render(again.principal, again.session.csrf, again.session.member.name ?? again.session.member.email, flash) : signInPage(req)
    }
  }
}

