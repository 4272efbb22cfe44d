/**
 * The overlap section of a project's page: the account's other counted projects sharing area with
 * it (the API's `GET /v1/projects/{id}/overlaps`, one page of it), each name linking to its page,
 * with the shared hectares; the map draws them from the account's vector tiles by their ids.
 */
import type { Errors, Schemas } from "@canopy/core"
import { Result } from "effect"
import { escape } from "./html.ts"
import { number, plain } from "./shell.ts"

/** One page of the overlaps, or why it could not be read. */
export type OverlapPage = Result.Result<{
  readonly data: ReadonlyArray<typeof Schemas.ProjectOverlap.Type>
  readonly meta: { readonly has_more: boolean; readonly next_cursor: string | null; readonly total_exact: boolean }
}, unknown>

/** The ids the map draws: this page's overlapping projects. */
export const overlapIds = (page: OverlapPage): ReadonlyArray<string> => (Result.isSuccess(page) ? page.success.data.map((o) => o.project_id) : [])

/**
 * The section's HTML. `href(cursor)` is the project page showing the page of overlaps after
 * `cursor`; `projectHref(id)` a neighbour's page.
 */
export const overlapSection = (
  name: string,
  counted: boolean,
  page: OverlapPage,
  href: (cursor: string) => string,
  projectHref: (id: string) => string
): string => {
  const head = `<section id="overlaps" aria-labelledby="overlaps-h"><h2 id="overlaps-h">Overlapping projects</h2>`
  if (!counted) return `${head}<p>An archived project, or one without a boundary, overlaps nothing: its hectares count toward nothing.</p></section>`
  if (Result.isFailure(page)) {
    const n = plain(page.failure as Errors.DomainError)
    return `${head}<div class="error" role="alert"><p>${escape(n.text)}</p>${
      (n.details ?? []).map((d) => `<p>${escape(d.field)}: ${escape(d.message)}</p>`).join("")
    }</div></section>`
  }
  const { data, meta } = page.success
  const rows = data.map((o) =>
    `<tr data-id="${escape(o.project_id)}"><td><a href="${escape(projectHref(o.project_id))}">${escape(o.name)}</a></td><td class="num">${
      number(o.overlap_hectares)
    }</td></tr>`
  ).join("")
  const table = data.length === 0 ? "" : `<table id="overlaps-table"><caption class="visually-hidden">Projects sharing area with ${escape(name)}</caption>` +
    `<thead><tr><th scope="col">Project</th><th scope="col">Shared area (ha)</th></tr></thead><tbody>${rows}</tbody></table>`
  const none = data.length > 0 ? "" : meta.has_more
    ? "<p>None found among the nearby projects examined so far.</p>"
    : "<p>No other active or draft project shares area with this one.</p>"
  const more = meta.next_cursor
    ? `<p><a id="more-overlaps" href="${escape(href(meta.next_cursor))}">${
      data.length ? "More overlapping projects" : "Look further"
    }</a> (the map shows this page's)</p>`
    : ""
  const shown = data.length > 0
    ? "<p>Drawn on the map in red. Shared hectares count toward both projects.</p>" : ""
  return `${head}${table}${none}${shown}${more}</section>`
}
