/**
 * Server-rendered pages: one layout, escaping, cookies and the forms' CSRF checks. No external
 * scripts or stylesheets: the dashboard's scripts (times, confirmations, maps) are Canopy's own,
 * served from its node_modules; every page but the maps works without JavaScript.
 */
import { ConstantTime, Errors } from "@canopy/core"
import { Cause, Exit } from "effect"
import { type FormCaps, readUrlencoded } from "../http/forms.ts"
import { type ApiRequest, type ApiResponse, MAX_BODY_BYTES } from "../http/handler.ts"

/** Escapes text for HTML. */
export const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** Extra parts of a page: scripts of Canopy's own (paths), stylesheets, Content-Security-Policy additions, width. */
export interface PageOptions {
  /** Module scripts to load, as browsers reach them (`site.path("/dashboard/static/dashboard.js")`). */
  readonly scripts?: ReadonlyArray<string>
  /** Stylesheets of Canopy's own, as browsers reach them. */
  readonly styles?: ReadonlyArray<string>
  /** CSP directives added to (or widening) the default ones: `{ "worker-src": "'self' blob:" }`. */
  readonly csp?: Readonly<Record<string, string>>
  /** A page wider than a form (the dashboard). */
  readonly wide?: boolean
}

const BASE_CSP: Readonly<Record<string, string>> = {
  "default-src": "'none'",
  "style-src": "'unsafe-inline'",
  "form-action": "'self' https: http://localhost:* http://127.0.0.1:*",
  "frame-ancestors": "'none'"
}

/** The Content-Security-Policy of a page: none of anything but what it names. */
const contentSecurityPolicy = (options: PageOptions = {}) => {
  const d: Record<string, string> = { ...BASE_CSP }
  if (options.scripts?.length) d["script-src"] = "'self'"
  if (options.styles?.length) d["style-src"] = "'self' 'unsafe-inline'"
  for (const [k, v] of Object.entries(options.csp ?? {})) d[k] = v
  return Object.entries(d).map(([k, v]) => `${k} ${v}`).join("; ")
}

/** A full page. */
export const page = (status: number, title: string, body: string, headers: Record<string, string> = {}, options: PageOptions = {}): ApiResponse => ({
  status,
  headers: {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-frame-options": "DENY",
    "content-security-policy": contentSecurityPolicy(options),
    "referrer-policy": "no-referrer",
    ...headers
  },
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Canopy</title>${(options.styles ?? []).map((s) => `<link rel="stylesheet" href="${escape(s)}">`).join("")}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:${options.wide ? "72rem" : "32rem"};margin:${
    options.wide ? "1rem" : "3rem"
  } auto;padding:0 1rem;color:#1b2b1e}
h1{color:#1f5130;font-size:1.5rem}label{display:block;margin:.75rem 0 .25rem}input,select,textarea{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1.25rem;font:inherit;border:0;border-radius:4px;background:#2f7d4a;color:#fff;cursor:pointer}
button.secondary{background:#595959}button.danger{background:#fff;color:#a4161a;border:2px solid #a4161a}button.danger:hover,button.danger:focus{background:#a4161a;color:#fff}
:focus-visible{outline:3px solid #1f5130;outline-offset:2px}.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.5rem .75rem;border-radius:4px}
a{color:#1f5130}ul{padding-left:1.25rem}</style>${
    (options.scripts ?? []).map((s) => `<script type="module" src="${escape(s)}"></script>`).join("")
  }</head><body>${body}</body></html>`
})

/**
 * Parses the Cookie header. A cookie whose value does not percent-decode (`a=%`) is ignored, as
 * if it had not been sent: it is none of ours, or a forged one.
 */
export const cookies = (req: ApiRequest): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const i = part.indexOf("=")
    if (i <= 0) continue
    try {
      out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim())
    } catch {
      // undecodable: ignored
    }
  }
  return out
}

/**
 * A Set-Cookie value: HttpOnly, SameSite=Lax, Secure unless the site is plain HTTP; `Path` is the
 * base path Canopy is reached under (`/canopy` when mounted there), so a host application's other
 * pages never see Canopy's cookies.
 */
export const setCookie = (name: string, value: string, options: { readonly secure: boolean; readonly path?: string; readonly maxAgeS?: number }) =>
  `${name}=${encodeURIComponent(value)}; Path=${options.path || "/"}; HttpOnly; SameSite=Lax${options.secure ? "; Secure" : ""}${
    options.maxAgeS !== undefined ? `; Max-Age=${options.maxAgeS}` : ""
  }`

/** A sign-in, invitation or consent form: a few short fields. */
export const SMALL_FORM: FormCaps = { bytes: 16 * 1024, fields: 32 }

/** A dashboard action: it may carry a typed boundary (up to the body limit) and many checkboxes. */
export const ACTION_FORM: FormCaps = { bytes: MAX_BODY_BYTES, fields: 256 }

/** A form read within its caps: each field's last value, and every pair in order; or why not. */
export type FormRead =
  | { readonly ok: true; readonly fields: Readonly<Record<string, string>>; readonly all: URLSearchParams }
  | { readonly ok: false; readonly message: string }

/** Reads an urlencoded form body within `caps` (`http/forms.ts`). */
export const readForm = (req: ApiRequest, caps: FormCaps): FormRead => {
  const read = readUrlencoded(req.body, caps)
  if (!read.ok) return read
  const fields: Record<string, string> = Object.create(null) as Record<string, string> // a field may be named __proto__
  for (const [k, v] of read.pairs) fields[k] = v
  return { ok: true, fields, all: new URLSearchParams(read.pairs as Array<[string, string]>) }
}

/** The page answering a form refused by its caps (413): nothing of it was read or done. */
export const formRefused = (message: string) =>
  page(413, "Form too large", `<main><h1>This form cannot be sent</h1><p class="error" role="alert">${escape(message)} Nothing was changed.</p></main>`)

/** Constant-time equality of two form values; false when either is missing or empty. */
export const same = (a: string | undefined, b: string | undefined): boolean => !!a && !!b && ConstantTime.equal(a, b)

/** A 303 redirect (after a POST) or 302. */
export const redirect = (location: string, status = 303, headers: Record<string, string> = {}): ApiResponse => ({ status,
  headers: { location, "cache-control": "no-store", ...headers }, body: undefined })

/** The domain error a failed run ended with, if it was one. */
export const domainError = <A, E>(exit: Exit.Exit<A, E>): Errors.DomainError | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const e = Cause.findErrorOption(exit.cause)
  return e._tag === "Some" && Errors.isDomainError(e.value) ? e.value : undefined
}

/** The sign-in form, posting to `action` with extra hidden fields and a CSRF token. */
export const signInForm = (action: string, csrf: string, hiddenFields = "") =>
  `<form method="post" action="${escape(action)}">${hiddenFields}<input type="hidden" name="csrf" value="${escape(csrf)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`
