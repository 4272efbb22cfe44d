/**
 * The dashboard (`/dashboard`): sign-in, then the account page — usage with bars at 75/90/100%,
 * API keys, service tokens, OAuth applications, webhooks with their recent deliveries, members —
 * and the projects (`pages/projects.ts`: list, project page with its map, overview map). Every
 * action is a form POST (CSRF-checked) performed as the signed-in member, through the same domain
 * services and permission rules as the API, and answered with a redirect (POST-redirect-GET) to a
 * page that shows its outcome once (`pages/shell.ts`); values shown once (key and token values,
 * client secrets, invitation links) appear there. Forms are shown only for what the member's
 * role allows; destructive actions are styled apart and confirmed.
 */
import { Accounts, type Canopy, type CanopyClient, Credentials, Errors, Members, OAuthServer, Permissions, type Principal, Sessions, Tokens, Usage,
  Webhooks } from "@canopy/core"
import { Effect, Exit, Result } from "effect"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { ACTION_FORM, cookies, domainError, escape, formRefused, page, readForm, redirect, same, setCookie, signInForm, SMALL_FORM } from "./html.ts"
import { importPages } from "./imports.ts"
import { type MapOptions, type Outcome, projectAction, projectPages } from "./projects.ts"
import { backPath, can, failure, makeShell, type Me, number, PRE_CSRF, SESSION, time } from "./shell.ts"
import type { Site } from "./site.ts"
import { staticRoutes } from "./static.ts"

const list = (s: string | undefined) => (s ?? "").split(/[,\s]+/).map((x) => x.trim()).filter((x) => x !== "")

/** A usage bar; its class says which threshold it has reached. `pct`: the API's percentage. */
const bar = (label: string, current: number, limit: number, pct: number) => {
  const level = pct >= 100 ? "over" : pct >= 90 ? "t90" : pct >= 75 ? "t75" : "ok"
  return `<div class="usage"><span>${escape(label)}: ${number(current)} of ${number(limit)} (${number(pct, 2)}%)</span>
<div class="bar ${level}" data-level="${level}" role="meter" aria-label="${
    escape(label)
  }" aria-valuenow="${pct}" aria-valuemin="0" aria-valuemax="100"><i style="width:${
    Math.min(100, pct).toFixed(1)
  }%"></i><b style="left:75%"></b><b style="left:90%"></b></div></div>`
}

const STYLE = `<style>.usage{margin:.5rem 0}.bar{position:relative;height:.8rem;background:#e6ece7;border-radius:3px;overflow:hidden}
.bar i{display:block;height:100%;background:#2f7d4a}.bar.t75 i{background:#c9a227}.bar.t90 i{background:#d9822b}.bar.over i{background:#b3261e}
.bar b{position:absolute;top:0;width:1px;height:100%;background:#555}fieldset{border:1px solid #dde5de;margin:.75rem 0}</style>`

export const dashboardPages = (canopy: CanopyClient, site: Site, mapOptions: MapOptions = {}) => {
  const shell = makeShell(canopy, site)
  const { current, layout, redirectWith, run } = shell

  const signInPage = (req: ApiRequest, status = 200, error?: string, headers: Record<string, string> = {}) => {
    const csrf = Tokens.generate("session")
    return page(status, "Sign in", `<main><h1>Sign in to Canopy</h1>${error ? `<p class="error" role="alert">${escape(error)}</p>` : ""}
${signInForm(site.path("/dashboard/sign-in"), csrf)}</main>`, {
      "set-cookie": setCookie(PRE_CSRF, csrf, { secure: site.secure(req), path: site.basePath, maxAgeS: 1800 }),
      ...headers
    })
  }

  const render = async (req: ApiRequest, me: Me) => {
    const principal: Principal.Principal = me.principal
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
    if (Exit.isFailure(exit))
      return page(500, "Dashboard", "<main><h1>Something went wrong</h1><p>The account could not be loaded; try again in a moment.</p></main>")
    const d = exit.value
    const f = shell.form(me, "/dashboard")
    const admin = can(principal, "credentials.create")
    const denied = "<p><em>Your role does not include this.</em></p>"
    const perms = (legend: string) =>
      `<fieldset><legend>${legend}</legend>${
        Permissions.all.map((p) => `<label><input type="checkbox" name="permissions" value="${p}" style="width:auto"> ${p}</label>`).join("")
      }</fieldset>`
    const credTable = (
      r: Result.Result<
        ReadonlyArray<
          { id: string; name: string; token_hint: string; permissions: ReadonlyArray<string>; revoked_at: string | null;
            ip_allowlist: ReadonlyArray<string> | null; created_at?: string }
        >,
        unknown
      >,
      kind: string,
      what: string
    ) =>
      Result.isFailure(r) ? denied :
        `<table><thead><tr><th scope="col">Name</th><th scope="col">Value</th><th scope="col">Permissions</th><th scope="col">Actions</th></tr></thead><tbody>${
          r.success.map((c) =>
            `<tr><td>${escape(c.name)}</td><td><code>${escape(c.token_hint)}</code></td><td>${escape(c.permissions.join(", "))}${
              c.ip_allowlist ? `<br>from ${escape(c.ip_allowlist.join(", "))}` : ""
            }</td><td>${
              c.revoked_at ? `revoked ${time(c.revoked_at)}`
                : f(`revoke_${kind}`, `<input type="hidden" name="id" value="${escape(c.id)}">`, "Revoke", { inline: true,
                  confirm: `Revoke the ${what} “${c.name}”? Anything using it stops working at once.`, label: `Revoke ${c.name}` })
            }</td></tr>`
          ).join("") || `<tr><td colspan="4">None yet.</td></tr>`
        }</tbody></table>`
    const usage = Result.isFailure(d.usage) ? denied : [
      bar("Hectares", d.usage.success.hectares.current, d.usage.success.hectares.limit, d.usage.success.hectares.percentage),
      bar("Members", d.usage.success.members.current, d.usage.success.members.limit,
        Usage.percentage(d.usage.success.members.current, d.usage.success.members.limit)),
      bar("API requests this period", d.usage.success.api_requests.current, d.usage.success.api_requests.limit,
        Usage.percentage(d.usage.success.api_requests.current, d.usage.success.api_requests.limit))
    ].join("")
    const apps = Result.isFailure(d.apps) ? denied :
      `<table><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Redirect URIs</th><th scope="col">Scopes</th><th scope="col">Browser origins (CORS)</th><th scope="col">Actions</th></tr></thead><tbody>${
        d.apps.success.map((a) =>
          `<tr><td>${escape(a.name)} (${a.type})</td><td><code>${escape(a.client_id)}</code></td><td>${escape(a.redirect_uris.join(" "))}</td><td>${
            escape(a.scopes.join(" "))
          }</td><td>${
            a.type === "public"
              ? f("set_origins",
                `<input type="hidden" name="id" value="${escape(a.client_id)}"><input name="allowed_origins" aria-label="Allowed origins of ${
                  escape(a.name)
                }" value="${escape(a.allowed_origins.join(" "))}">`, "Save origins", { inline: true }) : "—"
          }</td><td>${
            a.type === "confidential"
              ? f("rotate_app", `<input type="hidden" name="id" value="${escape(a.client_id)}">`, "Rotate secret", { inline: true,
                confirm: `Rotate the secret of “${a.name}”? The current secret stops working at once.` }) : ""
          } ${
            f("delete_app", `<input type="hidden" name="id" value="${escape(a.client_id)}">`, "Delete", { inline: true,
              confirm: `Delete the application “${a.name}”? Its tokens stop working.`, label: `Delete application ${a.name}` })
          }</td></tr>`
        ).join("") || `<tr><td colspan="6">None yet.</td></tr>`
      }</tbody></table>`
    const hooks = Result.isFailure(d.hooks) ? denied :
      d.hooks.success.map(({ logs, w }) =>
        `<h3><code>${escape(w.url)}</code> ${w.enabled ? "enabled" : `disabled${w.disabled_reason ? ` (${escape(w.disabled_reason)})` : ""}`} ${
          w.enabled
            ? f("toggle_webhook", `<input type="hidden" name="id" value="${escape(w.id)}"><input type="hidden" name="enabled" value="false">`, "Disable", {
              inline: true,
              confirm: `Disable the webhook to ${w.url}? Events are not delivered to it until it is enabled again.`
            })
            : f("toggle_webhook", `<input type="hidden" name="id" value="${escape(w.id)}"><input type="hidden" name="enabled" value="true">`, "Enable", {
              inline: true
            })
        }</h3>
<p>Events: ${
          escape(w.events.join(", "))
        }</p><table><thead><tr><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Status</th><th scope="col">Code</th><th scope="col">When</th></tr></thead><tbody>${
          logs.map((l) =>
            `<tr><td>${escape(l.event_type)}</td><td>${l.attempt}</td><td>${escape(l.status)}</td><td>${l.response_code ?? ""}</td><td>${
              time(l.delivered_at ?? l.next_retry_at ?? "")
            }</td></tr>`
          ).join("") || "<tr><td colspan=\"5\">No deliveries yet</td></tr>"
        }</tbody></table>`
      ).join("")
    const writeMembers = can(principal, "members.update")
    const members = Result.isFailure(d.members) ? denied :
      `<table><thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th>${
        writeMembers ? "<th scope=\"col\">Actions</th>" : ""
      }</tr></thead><tbody>${
        d.members.success.data.map((m) =>
          `<tr><td>${escape(m.name ?? "")}</td><td>${escape(m.email)}</td><td>${escape(m.role)}</td><td>${escape(m.status)}</td>${
            writeMembers
              ? `<td>${
                f("change_role",
                  `<input type="hidden" name="id" value="${escape(m.id)}"><select name="role" aria-label="Role of ${escape(m.email)}">${
                    Permissions.roles.map((r) => `<option${r === m.role ? " selected" : ""}>${r}</option>`).join("")
                  }</select>`, "Change role", { inline: true })
              } ${
                f("remove_member", `<input type="hidden" name="id" value="${escape(m.id)}">`, "Remove", { inline: true,
                  confirm: `Remove ${m.email} from the account?`, label: `Remove ${m.email}` })
              }</td>` : ""
          }</tr>`
        ).join("")
      }</tbody></table>`
    const body = `${STYLE}<h1>${escape(d.account.name)}</h1><p>Plan ${escape(d.account.plan)} · <a href="${
      escape(site.path("/dashboard/projects"))
    }">Projects</a> · <a href="${escape(site.path("/dashboard/map"))}">Map of all projects</a></p>
<section id="usage" aria-labelledby="usage-h"><h2 id="usage-h">Usage</h2>${usage}</section>
<section id="overlaps" aria-labelledby="overlaps-h"><h2 id="overlaps-h">Overlapping boundaries</h2><p>${
      d.account.overlap_policy === "reject"
        ? "A boundary that overlaps another active or draft project is <strong>refused</strong>."
        : "A boundary that overlaps another active or draft project is saved, and the overlap is reported."
    }</p>
${
      can(principal, "account.update")
        ? f("set_overlap_policy",
          `<label for="overlap-policy">When a boundary overlaps another project</label><select id="overlap-policy" name="overlap_policy"><option value="warn"${
            d.account.overlap_policy === "warn" ? " selected" : ""
          }>Save it and report the overlap</option><option value="reject"${
            d.account.overlap_policy === "reject" ? " selected" : ""
          }>Refuse it</option></select>`, "Save policy") : ""
    }</section>
<section id="api-keys" aria-labelledby="keys-h"><h2 id="keys-h">API keys</h2>${credTable(d.keys, "key", "API key")}
${
      admin
        ? f("create_key", `<label for="key-name">Name</label><input id="key-name" name="name" required>${perms("Permissions of the key")}`, "Create API key")
        : ""
    }</section>
<section id="service-tokens" aria-labelledby="svc-h"><h2 id="svc-h">Service tokens</h2>${credTable(d.tokens, "svc", "service token")}
${
      admin
        ? f("create_svc",
          `<label for="svc-name">Name</label><input id="svc-name" name="name" required>${
            perms("Permissions of the token")
          }<label for="svc-ips">IP allowlist (IPv4 addresses or CIDR ranges, comma-separated)</label><input id="svc-ips" name="ip_allowlist">`,
          "Create service token") : ""
    }</section>
<section id="applications" aria-labelledby="apps-h"><h2 id="apps-h">OAuth applications</h2>${apps}
${
      admin ?
        f("create_app",
          `<label for="app-name">Name</label><input id="app-name" name="name" required><label for="app-uris">Redirect URIs (space-separated)</label><input id="app-uris" name="redirect_uris" required>
<fieldset><legend>Scopes</legend>${
            Permissions.scopes.map((s) => `<label><input type="checkbox" name="scopes" value="${s}" style="width:auto"> ${s}</label>`).join("")
          }</fieldset>
<fieldset><legend>Type</legend><label><input type="radio" name="type" value="confidential" checked style="width:auto"> confidential (has a secret)</label><label><input type="radio" name="type" value="public" style="width:auto"> public (PKCE)</label></fieldset>
<label for="app-origins">Browser origins allowed to call the API and token endpoint (public applications; space-separated, e.g. https://app.example.com)</label><input id="app-origins" name="allowed_origins">`,
          "Register application") : ""
    }</section>
<section id="webhooks" aria-labelledby="hooks-h"><h2 id="hooks-h">Webhooks</h2>${hooks}
${
      admin
        ? f("create_webhook",
          `<label for="wh-url">URL (https://)</label><input id="wh-url" name="url" required><label for="wh-events">Events (comma-separated, or *)</label><input id="wh-events" name="events" value="*" required>`,
          "Add webhook") : ""
    }</section>
<section id="members" aria-labelledby="members-h"><h2 id="members-h">Members</h2>${members}
${
      can(principal, "members.invite")
        ? f("invite",
          `<label for="inv-email">Email</label><input id="inv-email" name="email" type="email" required><label for="inv-role">Role</label><select id="inv-role" name="role">${
            Permissions.invitableRoles.map((r) => `<option>${r}</option>`).join("")
          }</select>`, "Invite") : ""
    }</section>`
    return layout(req, me, "account", "Dashboard", body)
  }

  /** `origin`: the base of absolute links (undefined: none can be trusted, so links are paths). */
  const act = (me: Me, f: Record<string, string>, all: URLSearchParams, origin: string | undefined): Effect.Effect<Outcome, unknown, Canopy.Runtime> => {
    const principal = me.principal
    const project = projectAction(me, f)
    if (project) return project
    return Effect.gen(function*(): Generator<any, Outcome, any> {
      const credentials = yield* Credentials
      const ok = (text: string, shown?: ReadonlyArray<{ label: string; value: string; id: string }>): Outcome => ({
        notice: { ok: true, text, ...(shown ? { shown } : {}) }
      })
      switch (f.action) {
        case "create_key":
        case "create_svc": {
          const kind = f.action === "create_key" ? "api_key" : "service_token"
          const c = yield* credentials.create(principal, kind, {
            name: f.name,
            permissions: all.getAll("permissions"),
            ...(kind === "service_token" && list(f.ip_allowlist).length ? { ip_allowlist: list(f.ip_allowlist) } : {})
          })
          return ok(`${kind === "api_key" ? "API key" : "Service token"} “${c.name}” created. Copy it now: it is not shown again.`, [{ label: "Value",
            value: c.token, id: "shown-once" }])
        }
        case "revoke_key":
        case "revoke_svc":
          yield* credentials.revoke(principal, f.id ?? "")
          return ok("Revoked: it no longer works.")
        case "create_app": {
          const origins = list(f.allowed_origins)
          const a = yield* (yield* OAuthServer).register(principal, {
            name: f.name,
            redirect_uris: list(f.redirect_uris),
            scopes: all.getAll("scopes"),
            type: f.type,
            ...(origins.length ? { allowed_origins: origins } : {})
          })
          return ok(`Application “${a.name}” registered.`, [{ label: "Client id", value: a.client_id, id: "client-id" },
            ...(a.client_secret ? [{ label: "Client secret", value: a.client_secret, id: "shown-once" }] : [])])
        }
        case "set_origins": {
          const a = yield* (yield* OAuthServer).update(principal, f.id ?? "", { allowed_origins: list(f.allowed_origins) })
          return ok(`Browser origins of ${a.name}: ${a.allowed_origins.length ? a.allowed_origins.join(" ") : "none"}.`)
        }
        case "rotate_app": {
          const a = yield* (yield* OAuthServer).rotateSecret(principal, f.id ?? "")
          return ok("The secret was rotated; the previous one no longer works.", [{ label: "New client secret", value: a.client_secret, id: "shown-once" }])
        }
        case "delete_app":
          yield* (yield* OAuthServer).remove(principal, f.id ?? "")
          return ok("Application deleted.")
        case "create_webhook": {
          const w = yield* (yield* Webhooks).create(principal, { url: f.url, events: list(f.events) })
          return ok("Webhook added. Use its signing secret to verify deliveries.", [{ label: "Signing secret", value: w.secret ?? "", id: "shown-once" }])
        }
        case "toggle_webhook":
          yield* (yield* Webhooks).update(principal, f.id ?? "", { enabled: f.enabled === "true" })
          return ok(f.enabled === "true" ? "Webhook enabled." : "Webhook disabled.")
        case "invite": {
          const r = yield* (yield* Members).invite(principal, { email: f.email, role: f.role })
          const link = `${origin ?? site.basePath}/invitations/accept?token=${r.invitation.token}`
          const hint = origin === undefined ? " Put this site's address in front of the link; with a configured public URL it is shown whole." : ""
          return ok(`Invited ${r.member.email}. Send them the link.${hint}`, [{ label: "Invitation link", value: link, id: "shown-once" }])
        }
        case "change_role":
          yield* (yield* Members).update(principal, f.id ?? "", { role: f.role })
          return ok("Role changed.")
        case "remove_member":
          yield* (yield* Members).remove(principal, f.id ?? "")
          return ok("Member removed.")
        case "set_overlap_policy": {
          const a = yield* (yield* Accounts).update(principal, { overlap_policy: f.overlap_policy })
          return ok(a.overlap_policy === "reject" ? "Overlapping boundaries are now refused." : "Overlapping boundaries are now saved and reported.")
        }
        default:
          return { notice: { ok: false, text: "That action is not known; nothing was changed." } }
      }
    }) as Effect.Effect<Outcome, unknown, Canopy.Runtime>
  }

  return {
    ...staticRoutes(),
    ...projectPages(shell, site, mapOptions),
    ...importPages(shell, site),

    "GET /dashboard": async (req: ApiRequest): Promise<ApiResponse> => {
      const me = await current(req)
      return me ? render(req, me) : signInPage(req)
    },

    "POST /dashboard/sign-in": async (req: ApiRequest): Promise<ApiResponse> => {
      // The form's CSRF cookie before its body: without one nothing of the body is read.
      const expected = cookies(req)[PRE_CSRF]
      if (!expected) return signInPage(req, 403, "The form expired; try again.")
      const read = readForm(req, SMALL_FORM)
      if (!read.ok) return signInPage(req, 413, read.message)
      const f = read.fields
      if (!same(f.csrf, expected)) return signInPage(req, 403, "The form expired; try again.")
      const exit = await run(Effect.flatMap(Sessions, (s) => s.signInAnywhere(f.email ?? "", f.password ?? "", req.ip)))
      if (Exit.isFailure(exit)) {
        const err = domainError(exit)
        return err?._tag === "RateLimited"
          ? signInPage(req, 429, err.message, { "retry-after": Errors.retryAfter(err.retryAfter) })
          : signInPage(req, 401, err?.message ?? "Sign-in failed; try again.")
      }
      return redirect(site.path("/dashboard"), 303, {
        "set-cookie": setCookie(SESSION, exit.value.token, { secure: site.secure(req), path: site.basePath, maxAgeS: 12 * 3600 })
      })
    },

    "POST /dashboard/action": async (req: ApiRequest): Promise<ApiResponse> => {
      // The session before the body: without one nothing of the body is read.
      const me = await current(req)
      if (!me) return signInPage(req, 403, "Your session expired; sign in again.")
      const read = readForm(req, ACTION_FORM)
      if (!read.ok) return formRefused(read.message)
      const f = read.fields
      if (!same(f.csrf, me.session.csrf)) return signInPage(req, 403, "Your session expired; sign in again.")
      if (f.action === "sign_out") {
        await run(Effect.flatMap(Sessions, (s) => s.signOut(me.session.token)))
        return redirect(site.path("/dashboard"), 303, { "set-cookie": setCookie(SESSION, "", { secure: site.secure(req), path: site.basePath, maxAgeS: 0 }) })
      }
      const exit = await run(act(me, f, read.all, site.origin(req)))
      const back = backPath(f.back)
      // POST-redirect-GET: the page that follows is a GET (a reload never repeats the action).
      return Exit.isSuccess(exit) ? redirectWith(req, backPath(exit.value.to, back), exit.value.notice) : redirectWith(req, back, failure(exit))
    }
  }
}
