/**
 * The HTML of the dashboard's import pages (imports.ts answers their routes): the upload form,
 * a preview (totals, the account's overlap policy, each feature's would-be project, problems and
 * overlaps, and the confirmation), an import's progress and results, and the script that polls a
 * running import's status and shows its results in place. Everything shown is escaped; nothing
 * here reads or writes the store.
 */
import type { ImportResource, Schemas } from "@canopy/core"
import { escape } from "./html.ts"
import { can, type Me, number, time } from "./shell.ts"
import type { Site } from "./site.ts"

/** The dashboard path of an import (or a preview), with extra query parameters. */
export const importPath = (id: string, extra: Record<string, string> = {}) => `/dashboard/imports?${new URLSearchParams({ id, ...extra }).toString()}`

/** What a preview shows beside the import: the account's overlap policy, and whether this server holds the file. */
export interface PreviewContext {
  readonly policy: Schemas.Account["overlap_policy"] | undefined
  readonly fileHeld: boolean
}

/** The import pages' styles. */
export const STYLE = `<style>progress{width:100%;height:1.25rem}.counts{display:flex;gap:2rem;margin:.5rem 0}.counts div{display:flex;gap:.5rem}
.counts dt{font-weight:600}.counts dd{margin:0;font-variant-numeric:tabular-nums}.status.refused{background:#fde8e8;color:#7a1014}.status.created,.status.valid{background:#e7f4ea}
.problems,.overlaps{margin:0;padding-left:1rem}#results-table .status{white-space:nowrap}</style>`

const OUTCOME = { created: "created", refused: "refused", valid: "would be created" } as const

/** The views of the import pages, their links made under `site`. */
export const importViews = (site: Site) => {
  /** The upload form: the file and the import's settings, previewed first. */
  const uploadForm = (me: Me) =>
    `<section id="upload" aria-labelledby="upload-h"><h2 id="upload-h">Upload a file</h2>
<form id="upload-form" method="post" action="${
      escape(site.path("/dashboard/imports/preview"))
    }" enctype="multipart/form-data"><input type="hidden" name="csrf" value="${escape(me.session.csrf)}">
<label for="im-file">File: GeoJSON, KML, KMZ, zipped Shapefile or GeoPackage (reprojected to WGS84 from its .prj or CRS)</label><input id="im-file" name="file" type="file" required accept=".geojson,.json,.kml,.kmz,.zip,.gpkg">
<label for="im-mode">Projects</label><select id="im-mode" name="mode"><option value="per_feature">One project per feature</option><option value="merge">One project of every polygon of the file</option></select>
<label for="im-name-field">Attribute naming each project (optional; default: the feature's name)</label><input id="im-name-field" name="name_field" maxlength="100">
<label for="im-description-field">Attribute giving each project's description (optional)</label><input id="im-description-field" name="description_field" maxlength="100">
<button type="submit">Preview</button></form><p>The preview creates no project: it shows what the import would do, feature by feature.</p></section>`

  /** A form opening an import by its id. */
  const openForm = `<section id="open" aria-labelledby="open-h"><h2 id="open-h">Open an import</h2><form method="get" action="${
    escape(site.path("/dashboard/imports"))
  }">
<label for="im-id">Import id (imp_…)</label><input id="im-id" name="id" required pattern="imp_[A-Za-z0-9]+"><button type="submit">Open</button></form></section>`

  /** A preview's feature's overlaps: the projects it would share hectares with, linked, or "none". */
  const wouldOverlap = (report: NonNullable<ImportResource["results"][number]["overlaps"]>) => {
    const listed = report.overlaps.length === 0 ? "none" :
      `<ul class="overlaps">${
        report.overlaps.map((o) =>
          `<li><a href="${escape(site.path(`/dashboard/project?id=${encodeURIComponent(o.project_id)}`))}">${escape(o.name)}</a>: ${
            number(o.overlap_hectares)
          } ha</li>`
        ).join("")
      }</ul>`
    return report.complete ? listed : `${listed} <span class="incomplete">(not every nearby project could be compared in time)</span>`
  }

  /** The results table of an import: a preview's would-be projects, or an import's outcomes. */
  const resultsTable = (imp: ImportResource, after: string | undefined, settings: Record<string, string>) => {
    const preview = imp.dry_run
    const problems = (ps: ReadonlyArray<{ field: string; message: string }>) =>
      ps.length === 0 ? "" : `<ul class="problems">${ps.map((p) => `<li><code>${escape(p.field)}</code>: ${escape(p.message)}</li>`).join("")}</ul>`
    const rows = imp.results.map((r) => {
      const name = r.project_id
        ? `<a href="${escape(site.path(`/dashboard/project?id=${encodeURIComponent(r.project_id)}`))}">${escape(r.name ?? r.project_id)}</a>`
        : escape(r.name ?? "")
      const overlaps = preview
        ? (r.outcome !== "valid" ? "—" : r.overlaps ? wouldOverlap(r.overlaps) : "Checked when created")
        : r.project_id
        ? `<a href="${escape(site.path(`/dashboard/project?id=${encodeURIComponent(r.project_id)}`))}#overlaps">Overlaps<span class="visually-hidden"> of ${
          escape(r.name ?? "")
        }</span></a>` : "—"
      return `<tr data-position="${r.position}" data-outcome="${r.outcome}"${r.project_id ? ` data-project="${escape(r.project_id)}"` : ""}><th scope="row">${
        escape(r.feature)
      }</th><td>${name}</td>` +
        `<td><span class="status ${r.outcome}">${OUTCOME[r.outcome]}</span></td><td class="num">${
          r.area_hectares === null ? "—" : number(r.area_hectares)
        }</td><td>${problems(r.problems)}</td><td>${overlaps}</td></tr>`
    }).join("")
    const next = imp.next_results_after === null ? ""
      : `<p><a id="next-results" rel="next" href="${
        escape(site.path(importPath(imp.id, { ...settings, after: String(imp.next_results_after) })))
      }">Next features</a></p>`
    const first = after ? `<p><a href="${escape(site.path(importPath(imp.id, settings)))}">First features</a></p>` : ""
    return `<table id="results-table"><caption>${
      preview ? "What each feature would become" : "What became of each feature"
    }</caption><thead><tr><th scope="col">Feature</th><th scope="col">${preview ? "Name" : "Project"}</th>` +
      `<th scope="col">Outcome</th><th scope="col" class="num">Area (ha)</th><th scope="col">Problems</th><th scope="col">Overlaps</th></tr></thead><tbody>${
        rows ||
        "<tr><td colspan=\"6\">No features yet.</td></tr>"
      }</tbody></table>${first}${next}`
  }

  /** The preview: totals, the account's overlap policy, the table, and the confirmation (asking for the file again when it is not held). */
  const previewView = (me: Me, imp: ImportResource, after: string | undefined, settings: Record<string, string>, context: PreviewContext) => {
    const { policy, fileHeld: file } = context
    const valid = imp.totals.features - imp.totals.refused
    const confirm = !can(me.principal, "projects.create") || valid === 0 ? "" :
      `<form id="confirm-form" method="post" action="${escape(site.path("/dashboard/imports/confirm"))}"${file ? "" : " enctype=\"multipart/form-data\""}>
<input type="hidden" name="csrf" value="${escape(me.session.csrf)}"><input type="hidden" name="preview" value="${escape(imp.id)}">${
        Object.entries(settings).map(([k, v]) => `<input type="hidden" name="${k}" value="${escape(v)}">`).join("")
      }
${
        file ? ""
          : `<label for="cf-file">This server no longer holds ${
            escape(imp.file.name ?? "the file")
          }: choose it again</label><input id="cf-file" name="file" type="file" required accept=".geojson,.json,.kml,.kmz,.zip,.gpkg">`
      }
<button type="submit">Import ${number(valid)} feature${valid === 1 ? "" : "s"}</button></form>`
    return `<h1>Preview of ${escape(imp.file.name ?? "the file")}</h1>
<section id="import-view" data-state="preview" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<p id="preview-summary">${number(imp.totals.features)} feature${imp.totals.features === 1 ? "" : "s"} read (${escape(imp.file.format ?? "unknown format")}${
      imp.file.source_crs ? `, ${escape(imp.file.source_crs)}` : ""
    }): ${number(valid)} would become projects, ${number(imp.totals.hectares)} ha in all; ${number(imp.totals.refused)} ${
      imp.totals.refused === 1 ? "is" : "are"
    } refused and would store nothing.</p>
<p>The Overlaps column lists the account's projects each feature would share hectares with now; they are checked again as each project is created: ${
      policy === "reject" ? "a boundary overlapping another active or draft project is <strong>refused</strong> and listed with its problem"
        : policy === "warn" ? "an overlapping boundary is saved, and its project page lists what it overlaps"
        : "what happens to an overlapping boundary is the account's overlap policy"
    }. Nothing has been stored yet.</p>
${resultsTable(imp, after, settings)}${confirm}</section>`
  }

  /** An import's progress (a `<progress>` the script updates), its cancel, and its results. */
  const importView = (me: Me, imp: ImportResource, after: string | undefined) => {
    const running = imp.status === "running"
    const cancelForm = running && can(me.principal, "projects.create")
      ? `<form id="cancel-form" method="post" action="${
        escape(site.path("/dashboard/imports/cancel"))
      }" data-confirm="Stop this import? The projects already created stay."><input type="hidden" name="csrf" value="${
        escape(me.session.csrf)
      }"><input type="hidden" name="id" value="${escape(imp.id)}"><button type="submit" class="danger">Cancel the import</button></form>`
      : ""
    const p = imp.progress
    const count = (id: string, label: string, n: number) => `<div><dt>${label}</dt><dd id="${id}">${number(n)}</dd></div>`
    return `<h1>Import of ${escape(imp.file.name ?? "a file")}</h1>
<section id="import-view" data-state="${imp.status}" data-status="${
      escape(site.path(`/dashboard/imports/status.json?id=${encodeURIComponent(imp.id)}`))
    }" aria-labelledby="progress-h">
<h2 id="progress-h">Progress</h2><p>Status: <span class="status" id="import-status">${imp.status}</span> · started ${time(imp.created_at)}${
      imp.completed_at ? ` · ended ${time(imp.completed_at)}` : ""
    }</p>
${
      running ? `<noscript><p><a href="${escape(site.path(importPath(imp.id)))}">Reload</a> to see how far it has gone.</p></noscript>` : ""
    }<label for="import-progress">Features dealt with</label><progress id="import-progress" max="${
      Math.max(1, p.features_read)
    }" value="${p.done}">${p.done} of ${p.features_read}</progress>
<dl class="counts">${count("count-read", "Read", p.features_read)}${count("count-done", "Done", p.done)}${count("count-created", "Created", p.created)}${
      count("count-refused", "Refused", p.refused)
    }</dl>
${imp.error ? `<div class="error" role="alert"><p>${escape(imp.error)}</p></div>` : ""}${
      running ? ""
        : `<p id="import-outcome">${number(imp.totals.created)} project${imp.totals.created === 1 ? "" : "s"} created (${number(imp.totals.hectares)} ha), ${
          number(imp.totals.refused)
        } feature${imp.totals.refused === 1 ? "" : "s"} refused.</p>`
    }
${cancelForm}<h2 id="results-h">Features</h2>${resultsTable(imp, after, {})}</section>`
  }
  return { uploadForm, openForm, previewView, importView }
}

/** The import page's script: a running import's progress polled until it ends, then its results shown in place. */
export const IMPORTS_JS = `// Canopy imports: a running import's progress polled until it ends, then its results shown in place.
const view = document.getElementById("import-view")
const announce = document.getElementById("import-announce")
const set = (id, n) => { const el = document.getElementById(id); if (el) el.textContent = n.toLocaleString("en-US") }
const poll = async () => {
  try {
    const r = await fetch(view.dataset.status, { credentials: "same-origin", headers: { accept: "application/json" } })
    if (r.ok) {
      const s = await r.json()
      const bar = document.getElementById("import-progress")
      bar.max = Math.max(1, s.progress.features_read)
      bar.value = s.progress.done
      bar.textContent = s.progress.done + " of " + s.progress.features_read
      set("count-read", s.progress.features_read); set("count-done", s.progress.done)
      set("count-created", s.progress.created); set("count-refused", s.progress.refused)
      document.getElementById("import-status").textContent = s.status
      if (s.status !== "running") {
        const page = await fetch(location.href, { credentials: "same-origin" })
        const fresh = new DOMParser().parseFromString(await page.text(), "text/html").getElementById("import-view")
        if (fresh) view.replaceWith(document.importNode(fresh, true))
        if (announce) announce.textContent = "Import " + s.status + ": " + s.totals.created + " created, " + s.totals.refused + " refused."
        return
      }
    }
  } catch {
    // the next poll tries again
  }
  setTimeout(poll, 1000)
}
if (view && view.dataset.state === "running" && view.dataset.status) setTimeout(poll, 500)
`
