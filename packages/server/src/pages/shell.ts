/**
 * What every dashboard page shares: the signed-in member, the layout (navigation, one-time
 * notice), forms (CSRF, where to go back to, confirmation of destructive actions), plain-language
 * messages for the API's errors, and numbers and times formatted like the API.
 *
 * After an action the browser is redirected (POST-redirect-GET) and the outcome travels in a
 * short-lived cookie (`canopy_notice`, HttpOnly, SameSite=Lax, the site's path, 60 s) that the next
 * page shows once and clears: a reload shows the page, never the action again (docs/decisions.md).
 */
import { type Canopy, type CanopyClient, type Errors, Members, Permissions, type Principal, Sessions } from "@canopy/core"
import { Effect, Exit } from "effect"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { cookies, domainError, escape, page, type PageOptions, setCookie } from "./html.ts"
import type { Site } from "./site.ts"

export const SESSION = "canopy_session"
export const PRE_CSRF = "canopy_csrf"
const NOTICE = "canopy_notice"

/** The signed-in member, the principal acting for them, and how the page names them. */
export interface Me {
  readonly session: { readonly token: string; readonly csrf: string; readonly member: { readonly email: string; readonly name: string | null } }
  readonly principal: Principal.Principal
  readonly who: string
}

/** The outcome of an action, shown once on the page that follows. */
export interface Notice {
  readonly ok: boolean
  readonly text: string
  /** Values shown only now (key values, secrets, links): label, value, element id. */
  readonly shown?: ReadonlyArray<{ readonly label: string; readonly value: string; readonly id: string }>
  /** Field problems, with the field's path (`geometry.coordinates.0`). */
  readonly details?: ReadonlyArray<{ readonly field: string; readonly message: string }>
  /** Things worth knowing about a success (warnings of an import). */
  readonly notes?: ReadonlyArray<string>
}

/** Whether the principal may perform `operation` (what decides which forms a page shows). */
export const can = (principal: Principal.Principal, operation: Permissions.Operation) => Permissions.mayPerform(principal.permissions, operation)

/** Hectares and other measures as the API gives them: at most 4 decimals (grouped for reading). */
export const number = (n: number, decimals = 4) => n.toLocaleString("en-US", { maximumFractionDigits: decimals })

/** A time: machine-readable, shown local and relative by the dashboard's script (UTC without it). */
export const time = (iso: string | null | undefined) =>
  iso ? `<time datetime="${escape(iso)}">${escape(iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC"))}</time>` : ""

const sentence = (s: string) => {
  const t = s.trim()
  return t === "" ? t : `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}`
}

/** An API error in plain language; validation problems keep their field paths. */
export const plain = (err: Errors.DomainError | undefined): Notice => {
  if (!err) return { ok: false, text: "Something went wrong on our side; nothing was changed. Try again in a moment." }
  switch (err._tag) {
    case "ValidationError":
      return { ok: false, text: "Some of what you entered needs fixing; nothing was saved.",
        details: err.details.map((d) => ({ field: d.field, message: d.message })) }
    case "Forbidden":
      return { ok: false, text: "Your role does not allow this. An owner or admin of the account can do it for you, or give you a role that can." }
    case "NotFound":
      return { ok: false, text: `That ${err.resource} does not exist any more; it may have been deleted by someone else.` }
    case "Conflict":
      return { ok: false, text: `This cannot be done: ${sentence(err.message).replace(/^./, (c) => c.toLowerCase())}` }
    case "LimitExceeded":
      return { ok: false,
        text: `Your plan allows ${number(err.limit)} ${err.metric}; this would take the account to ${
          number(err.requested)
        }. Free some up, or move to a larger plan.` }
    case "RateLimited":
      return { ok: false, text: `Too many attempts in a short time; try again in ${err.retryAfter} seconds.` }
    case "Unauthorized":
      return { ok: false, text: "Your session has ended; sign in again." }
  }
}

/** The notice of a failed run. */
export const failure = <A, E>(exit: Exit.Exit<A, E>) => plain(domainError(exit))

const encodeNotice = (n: Notice) => {
  // A cookie holds ~4 KB: long field lists are cut.
  const cut: Notice = {
    ...n,
    ...(n.details ? { details: n.details.slice(0, 12).map((d) => ({ field: d.field.slice(0, 200), message: d.message.slice(0, 300) })) } : {}),
    ...(n.notes ? { notes: n.notes.slice(0, 5).map((x) => x.slice(0, 300)) } : {})
  }
  return Buffer.from(JSON.stringify(cut)).toString("base64url")
}

const decodeNotice = (raw: string | undefined): Notice | undefined => {
  if (!raw) return undefined
  try {
    const v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Notice
    return typeof v === "object" && v !== null && typeof v.text === "string" && typeof v.ok === "boolean" ? v : undefined
  } catch {
    return undefined
  }
}

const noticeHtml = (n: Notice) =>
  `<div class="${n.ok ? "flash" : "error"}" role="status" id="notice"><p>${escape(n.text)}</p>${
    (n.shown ?? []).map((s) => `<p>${escape(s.label)} (shown only now): <code id="${escape(s.id)}">${escape(s.value)}</code></p>`).join("")
  }${
    n.details?.length
      ? `<ul>${n.details.map((d) => `<li><code>${escape(d.field || "(body)")}</code>: ${escape(d.message)}</li>`).join("")}</ul>` : ""
  }${
    n.notes?.length
      ? `<ul>${n.notes.map((x) => `<li>${escape(String(x))}</li>`).join("")}</ul>` : ""
  }</div>`

const SHELL_STYLE =
  `<style>header.top{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;border-bottom:1px solid #dde5de;padding:.5rem 0;margin-bottom:1rem}
header.top nav a{margin-right:1rem;font-weight:600}header.top nav a[aria-current=page]{text-decoration:none;border-bottom:3px solid #2f7d4a}
header.top form{display:inline}header.top button{margin:0;padding:.25rem .75rem}
.flash{background:#e7f4ea;border:1px solid #9ccaa8;padding:.5rem .75rem;border-radius:4px;word-break:break-all}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border-bottom:1px solid #dde5de;padding:.3rem;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}section{margin:2rem 0}
form.inline{display:inline}form.inline button{margin:0;padding:.2rem .6rem;font-size:.85rem}
.status{display:inline-block;padding:0 .5rem;border-radius:1rem;font-size:.85rem;background:#e6ece7}.status.archived{background:#eee;color:#444}.status.draft{background:#fff4d6;color:#5c4400}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}</style>`

/** The dashboard's session handling and layout for one site. */
export const makeShell = (canopy: CanopyClient, site: Site) => {
  const run = <A, E>(e: Effect.Effect<A, E, Canopy.Runtime>) => canopy.runExit(e)

  /** The signed-in member and the principal acting for them, as they are now. */
  const current = async (req: ApiRequest): Promise<Me | undefined> => {
    const exit = await run(Effect.gen(function*() {
      const session = yield* (yield* Sessions).get(cookies(req)[SESSION])
      if (!session) return undefined
      const principal = yield* (yield* Members).principalFor(session.account_id, session.member.id)
      return { session, principal, who: session.member.name ?? session.member.email }
    }))
    return Exit.isSuccess(exit) ? exit.value : undefined
  }

  /** A 303 to `to` (a path of Canopy's) carrying a one-time notice. */
  const redirectWith = (req: ApiRequest, to: string, notice: Notice): ApiResponse => ({
    status: 303,
    headers: {
      location: site.path(to),
      "cache-control": "no-store",
      "set-cookie": setCookie(NOTICE, encodeNotice(notice), { secure: site.secure(req), path: site.basePath, maxAgeS: 60 })
    },
    body: undefined
  })

  /** A form posting an action. `confirm`: the question asked before a destructive action. */
  const form =
    (me: Me, back: string) =>
    (action: string, fields: string, button: string, options: { readonly inline?: boolean; readonly confirm?: string; readonly label?: string } = {}) =>
      `<form method="post" action="${escape(site.path("/dashboard/action"))}"${options.inline ? " class=\"inline\"" : ""}${
        options.confirm ? ` data-confirm="${escape(options.confirm)}"` : ""
      }>` +
      `<input type="hidden" name="csrf" value="${escape(me.session.csrf)}"><input type="hidden" name="action" value="${
        escape(action)
      }"><input type="hidden" name="back" value="${escape(back)}">${fields}` +
      `<button type="submit"${options.confirm ? " class=\"danger\"" : ""}${options.label ? ` aria-label="${escape(options.label)}"` : ""}>${
        escape(button)
      }</button></form>`

  /** A dashboard page: navigation, the one-time notice (cleared as it is shown), then `body`. */
  const layout = (req: ApiRequest, me: Me, active: "account" | "projects" | "map" | "imports", title: string, body: string,
    options: PageOptions = {}): ApiResponse => {
    const notice = decodeNotice(cookies(req)[NOTICE])
    const link = (key: typeof active, path: string, label: string) =>
      `<a href="${escape(site.path(path))}"${key === active ? " aria-current=\"page\"" : ""}>${label}</a>`
    const html = `${SHELL_STYLE}<header class="top"><nav aria-label="Dashboard">${link("account", "/dashboard", "Account")}${
      link("projects", "/dashboard/projects", "Projects")
    }${link("map", "/dashboard/map", "Map")}${link("imports", "/dashboard/imports", "Imports")}</nav>
<div>Signed in as ${escape(me.who)} ${form(me, "/dashboard")("sign_out", "", "Sign out", { inline: true })}</div></header>
<main>${notice ? noticeHtml(notice) : ""}${body}</main>`
    return page(200, title, html, notice ? { "set-cookie": setCookie(NOTICE, "", { secure: site.secure(req), path: site.basePath, maxAgeS: 0 }) } : {}, {
      wide: true,
      ...options,
      scripts: [site.path("/dashboard/static/dashboard.js"), ...(options.scripts ?? [])]
    })
  }

  return { run, current, redirectWith, form, layout }
}

export type Shell = ReturnType<typeof makeShell>

/** `back` from a form: a dashboard path to return to after the action (anything else: the dashboard). */
export const backPath = (raw: string | undefined, fallback = "/dashboard") =>
  raw !== undefined && /^\/dashboard(?:\/[a-z-]+)*(?:\?[A-Za-z0-9_.~%=&+-]*)?$/.test(raw) ? raw : fallback
