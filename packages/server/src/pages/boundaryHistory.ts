/**
 * The boundary history section of a project's page: one page of the API's
 * `GET /v1/projects/{id}/boundaries` (version, when, who, how, hectares before → after), a link to
 * the next page, a link drawing a version on the map beside the current boundary, and — for
 * members who may change the project — a button restoring a version (the API's restore: a normal
 * boundary update). Also the dashboard action that restores.
 */
import { type BoundaryChangeSource, BoundaryHistory, type Canopy, type Errors, type Principal, type Schemas } from "@canopy/core"
import { Effect, Result } from "effect"
import { escape } from "./html.ts"
import type { Notice } from "./shell.ts"
import { number, plain, time } from "./shell.ts"

/** Versions a project page shows at a time. */
const HISTORY_PER_PAGE = 10

/** One page of the history, or why it could not be read. */
export type HistoryPage = Result.Result<{
  readonly data: ReadonlyArray<Schemas.BoundaryVersionSummary>
  readonly meta: { readonly next_cursor: string | null; readonly total: number }
}, unknown>

/** How the dashboard's own boundary writes are recorded. */
export const dashboardEdit: BoundaryChangeSource = { via: "dashboard" }

/** Reads one page of a project's history for its page (a failure is shown in the section). */
export const historyPage = (principal: Principal.Principal, projectId: string,
  cursor: string | undefined): Effect.Effect<HistoryPage, never, BoundaryHistory> =>
  Effect.result(Effect.flatMap(BoundaryHistory, (s) => s.list(principal, projectId, { per_page: String(HISTORY_PER_PAGE), ...(cursor ? { cursor } : {}) })))

/** The version `raw` names, to draw beside the current boundary; undefined when there is none such. */
export const comparedVersion = (principal: Principal.Principal, projectId: string,
  raw: string | undefined): Effect.Effect<Schemas.BoundaryVersion | undefined, never, BoundaryHistory> =>
  raw === undefined ? Effect.succeed(undefined)
    : Effect.orElseSucceed(Effect.flatMap(BoundaryHistory, (s) => s.get(principal, projectId, raw)), () => undefined)

/** The box holding both boxes (either may be absent). */
export const unionBox = (a: ReadonlyArray<number> | null, b: ReadonlyArray<number> | null): ReadonlyArray<number> | null =>
  !a ? b : !b ? a : [Math.min(a[0]!, b[0]!), Math.min(a[1]!, b[1]!), Math.max(a[2]!, b[2]!), Math.max(a[3]!, b[3]!)]

const VIA: Readonly<Record<string, string>> = {
  initial: "Before the history",
  create: "Created (API)",
  import: "File import (API)",
  update: "Update (API)",
  boundary_file: "File replace (API)",
  dashboard: "Dashboard",
  dashboard_file: "File upload (dashboard)",
  version_restore: "Restore"
}

const KIND: Readonly<Record<string, string>> = {
  api_key: "API key",
  service_token: "Service token",
  oauth: "OAuth app",
  member: "Member",
  system: "Operator"
}

/** Who made a change, as the page says it: the credential's kind, and the user (you, or their id). */
const who = (v: Schemas.BoundaryVersionSummary, me: Principal.Principal) => {
  const c = v.changed_by
  if (!c) return "—"
  const user = c.user_id === null ? "" : c.user_id === me.user_id ? " · you" : ` · <code>${escape(c.user_id)}</code>`
  return `${escape(KIND[c.kind] ?? c.kind)}${user}`
}

/** The links of the section: another page of it, and this project's page comparing a version on the map. */
export interface HistoryLinks {
  readonly page: (cursor: string) => string
  readonly compare: (version: number) => string
}

/**
 * The section's HTML. `compared`: the version drawn on the map beside the current boundary;
 * `restore(version)`: the restore button's form, when the member may change the project.
 */
export const historySection = (
  name: string,
  page: HistoryPage,
  me: Principal.Principal,
  links: HistoryLinks,
  compared: Schemas.BoundaryVersion | undefined,
  restore?: (version: number) => string
): string => {
  const head = `<section id="boundary-history" aria-labelledby="boundary-history-h"><h2 id="boundary-history-h">Boundary history</h2>`
  if (Result.isFailure(page)) {
    const n = plain(page.failure as Errors.DomainError)
    return `${head}<div class="error" role="alert"><p>${escape(n.text)}</p></div></section>`
  }
  const { data, meta } = page.success
  if (data.length === 0) return `${head}<p>The boundary has not changed since the history began.</p></section>`
  const rows = data.map((v) => {
    const how = `${escape(VIA[v.via] ?? v.via)}${v.file_format ? ` (${escape(v.file_format)})` : ""}${
      v.restored_from !== null ? ` of version ${v.restored_from}` : ""
    }`
    const shown = compared?.version === v.version
    const compare = `<a class="compare" href="${escape(links.compare(v.version))}"${
      shown ? " aria-current=\"true\"" : ""
    } aria-label="Compare version ${v.version} on the map">Compare</a>`
    return `<tr data-version="${v.version}"><td class="num">${v.version}</td><td>${time(v.created_at)}</td><td>${who(v, me)}</td><td>${how}</td>` +
      `<td class="num">${number(v.area_hectares_before)} → ${number(v.area_hectares_after)}</td><td>${compare} ${restore ? restore(v.version) : ""}</td></tr>`
  }).join("")
  const table = `<table id="history-table"><caption class="visually-hidden">Boundary versions of ${escape(name)}, newest first</caption>` +
    `<thead><tr><th scope="col">Version</th><th scope="col">When</th><th scope="col">Who</th><th scope="col">Via</th><th scope="col">Hectares (before → after)</th>` +
    `<th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table>`
  const more = meta.next_cursor ? `<p><a id="more-history" href="${escape(links.page(meta.next_cursor))}">Older versions</a></p>` : ""
  const drawn = !compared ? "" : compared.geometry === null
    ? `<p id="compared">Version ${compared.version} had no boundary: nothing to draw.</p>`
    : `<p id="compared">Version ${compared.version} (${
      number(compared.area_hectares_after)
    } ha) is drawn on the map as an amber dashed outline over the current boundary (green).</p>`
  return `${head}<p>${meta.total} version${meta.total === 1 ? "" : "s"}, newest first; the newest 50 are kept.</p>${drawn}${table}${more}</section>`
}

/** The dashboard's `restore_boundary` action: the API's restore of `f.version` on project `f.id`. */
export const restoreAction = (principal: Principal.Principal,
  f: Record<string, string>): Effect.Effect<{ readonly notice: Notice; readonly project: Schemas.Project }, unknown, Canopy.Runtime> =>
  Effect.map(Effect.flatMap(BoundaryHistory, (s) => s.restore(principal, f.id ?? "", f.version ?? "")), (p) => ({
    notice: { ok: true, text: `Boundary of version ${f.version ?? ""} restored: ${number(p.area_hectares)} ha (a new version).` },
    project: p
  }))
