/**
 * The dashboard's bulk import (`/dashboard/imports`): upload a file, see the preview (the API's
 * `dry_run=true`: each feature's name, hectares and problems), confirm, watch the progress, and
 * see the result — the created projects linked, the refused features with the validator's
 * problems. Every step goes through the API's own handlers (`api/imports.ts`) and the core's
 * Imports service as the signed-in member: permissions, limits and the rules of the import are
 * theirs, not the page's.
 *
 * - Forms are shown for what the member's role allows (`projects.create`); a POST of a member
 *   without it is answered 403 before its body is read; every POST carries the session's CSRF token.
 * - The previewed file is held by this server for its confirmation (`HELD_FILES`: one per member,
 *   for 15 minutes, at most 1,000 files and 32 MiB, the oldest dropped first); when it is not
 *   (another server answered, or it expired), the confirmation asks for the file again.
 * - A running import's page polls `/dashboard/imports/status.json` (the import's progress, no
 *   results) and, once it has ended, shows its results in place; without JavaScript a reload does.
 */
import { Accounts, Errors, type ImportResource, Schemas } from "@canopy/core"
import { Effect, Exit } from "effect"
import { formFile, type RawBody } from "../api/importFile.ts"
import { cancelImport, getImport, startImport, StartImportQuery } from "../api/imports.ts"
import { readForm as readMultipart } from "../gis/multipart.ts"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { json, refusal } from "../http/responses.ts"
import { ACTION_FORM, domainError, escape, formRefused, readForm, redirect, same } from "./html.ts"
import { can, failure, type Me, number, type Shell, time } from "./shell.ts"
import type { Site } from "./site.ts"

/** How long, how much and how many of the previewed files this server holds for their confirmation. */
export const HELD_FILES = { ttlMs: 15 * 60_000, maxBytes: 32 * 1024 * 1024, maxFiles: 1_000 } as const

/**
 * Previewed files by preview id: one per member, dropped after `HELD_FILES.ttlMs`, the oldest
 * first past the budget. The map's order is the files' age, so a sweep stops at the first one
 * still in time.
 */
export const makeHeldFiles = (now: () => number = Date.now) => {
  const files = new Map<string, { readonly owner: string; readonly file: RawBody; readonly at: number }>()
  let bytes = 0
  const drop = (id: string) => {
    const held = files.get(id)
    if (held) bytes -= held.file.bytes.length
    files.delete(id)
  }
  const sweep = (at: number) => {
    for (const [id, held] of files) {
      if (at - held.at <= HELD_FILES.ttlMs) return
      drop(id)
    }
  }
  return {
    keep: (id: string, owner: string, file: RawBody) => {
      const at = now()
      sweep(at)
      for (const [other, held] of files) if (held.owner === owner) drop(other)
      if (file.bytes.length > HELD_FILES.maxBytes) return
      for (const oldest of files.keys()) {
        if (bytes + file.bytes.length <= HELD_FILES.maxBytes && files.size < HELD_FILES.maxFiles) break
        drop(oldest)
      }
      files.set(id, { owner, file, at })
      bytes += file.bytes.length
    },
    get: (id: string, owner: string): RawBody | undefined => {
      sweep(now())
      const held = files.get(id)
      return held?.owner === owner ? held.file : undefined
    },
    /** Drops the member's file of that preview (once imported). */
    release: (id: string, owner: string) => {
      if (files.get(id)?.owner === owner) drop(id)
    },
    /** Bytes held. */
    bytes: () => bytes
  }
}

/** The import settings a form carries (the API's query), empty values left out. */
const settingsOf = (fields: Readonly<Record<string, string>>) => {
  const out: Record<string, string> = {}
  for (const k of ["mode", "name_field", "description_field"] as const) {
    const v = fields[k]?.trim()
    if (v) out[k] = v
  }
  return out
}

const STYLE = `<style>progress{width:100%;height:1.25rem}.counts{display:flex;gap:2rem;margin:.5rem 0}.counts div{display:flex;gap:.5rem}
.counts dt{font-weight:600}.counts dd{margin:0;font-variant-numeric:tabular-nums}.status.refused{background:#fde8e8;color:#7a1014}.status.created,.status.valid{background:#e7f4ea}
.problems,.overlaps{margin:0;padding-left:1rem}#results-table .status{white-space:nowrap}</style>`

const OUTCOME = { created: "created", refused: "refused", valid: "would be created" } as const

/** The dashboard's import pages and their routes. */
export const importPages = (shell: Shell, site: Site) => {
  const { current, layout, run } = shell
  const held = makeHeldFiles()
  const ownerOf = (me: Me) => `${me.principal.account_id}:${me.principal.user_id ?? ""}`
  const importPath = (id: string, extra: Record<string, string> = {}) => `/dashboard/imports?${new URLSearchParams({ id, ...extra }).toString()}`
  const signIn = () => redirect(site.path("/dashboard"))
  const refusedPage = (req: ApiRequest, me: Me, text: string): ApiResponse => ({
    ...layout(req, me, "imports", "Imports", `<h1>Imports</h1><div class="error" role="alert"><p>${escape(text)} Nothing was changed.</p></div>`),
    status: 403
  })

  /** The member of a POST allowed to import, or the answer: sign in (no session), 403 (role). */
  const writer = async (req: ApiRequest): Promise<Me | ApiResponse> => {
    const me = await current(req)
    if (!me) return signIn()
    if (!can(me.principal, "projects.create")) return refusedPage(req, me, "Your role does not allow importing projects.")
    return me
  }

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

  /** The preview: totals, the account's overlap policy, the table, and the confirmation. */
  const previewView = async (me: Me, imp: ImportResource, after: string | undefined, settings: Record<string, string>) => {
    const account = await run(Effect.flatMap(Accounts, (a) => a.get(me.principal)))
    const policy = Exit.isSuccess(account) ? account.value.overlap_policy : undefined
    const valid = imp.totals.features - imp.totals.refused
    const file = held.get(imp.id, ownerOf(me))
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

  const importsPage = async (req: ApiRequest, me: Me): Promise<ApiResponse> => {
    const id = req.query.get("id")?.trim()
    const scripts = { scripts: [site.path("/dashboard/static/imports.js")], csp: { "connect-src": "'self'" } }
    const announce = "<p id=\"import-announce\" class=\"visually-hidden\" role=\"status\" aria-live=\"polite\"></p>"
    if (!id) {
      const body = can(me.principal, "projects.create") ? uploadForm(me)
        : "<p id=\"no-upload\">Your role can see imports, not start them: an editor, admin or owner of the account can.</p>"
      return layout(req, me, "imports", "Imports", `${STYLE}<h1>Import projects from a file</h1>${body}${openForm}`)
    }
    const after = req.query.get("after") ?? undefined
    const exit = await run(getImport(me.principal, id, { results_per_page: "100", ...(after ? { results_after: after } : {}) }))
    if (Exit.isFailure(exit)) {
      const n = failure(exit)
      const status = domainError(exit) ? Errors.statusOf(domainError(exit)!) : 500
      return {
        ...layout(req, me, "imports", "Import", `<h1>Import</h1><div class="error" role="alert"><p>${escape(n.text)}</p>${
          (n.details ?? []).map((d) => `<p><code>${escape(d.field)}</code>: ${escape(d.message)}</p>`).join("")
        }</div>${openForm}`),
        status
      }
    }
    const imp = exit.value
    const settings = settingsOf(Object.fromEntries(req.query))
    const body = imp.dry_run ? await previewView(me, imp, after, settings) : importView(me, imp, after)
    return layout(req, me, "imports", imp.dry_run ? "Import preview" : "Import",
      `${STYLE}${announce}${body}<p><a href="${escape(site.path("/dashboard/imports"))}">Import another file</a></p>`, scripts)
  }

  /** The uploaded file and settings previewed (`dry_run=true`); the file held for the confirmation. */
  const preview = async (req: ApiRequest): Promise<ApiResponse> => {
    const me = await writer(req)
    if (!("principal" in me)) return me
    const form = readMultipart(req.headers["content-type"] ?? "", req.body ?? new Uint8Array())
    if (form.ok && !same(form.fields.csrf, me.session.csrf)) return refusedPage(req, me, "The form expired; reload the page and try again.")
    if (!form.ok)
      return shell.redirectWith(req, "/dashboard/imports", { ok: false, text: "The upload could not be read; nothing was saved.",
        details: [{ field: form.field, message: form.detail }] })
    const settings = settingsOf(form.fields)
    const file = formFile(form.file)
    const exit = await run(Effect.gen(function*() {
      const query = yield* decodeSettings(settings)
      return yield* startImport(me.principal, { ...query, dry_run: "true" }, file)
    }))
    if (Exit.isFailure(exit)) {
      const error = domainError(exit)
      const notice = error?._tag === "ValidationError"
        ? { ok: false, text: `${file.filename ?? "The file"} cannot be imported; nothing was saved.`, details: error.details }
        : failure(exit)
      return shell.redirectWith(req, "/dashboard/imports", notice)
    }
    held.keep(exit.value.id, ownerOf(me), file)
    return redirect(site.path(importPath(exit.value.id, settings)))
  }

  /**
   * The previewed file imported, with the preview's settings: the file this server holds (the
   * form is urlencoded), or the one chosen again (multipart).
   */
  const confirm = async (req: ApiRequest): Promise<ApiResponse> => {
    const me = await writer(req)
    if (!("principal" in me)) return me
    const multipart = /^multipart\/form-data\b/i.test(req.headers["content-type"] ?? "")
    const read = multipart ? readMultipart(req.headers["content-type"] ?? "", req.body ?? new Uint8Array()) : readForm(req, ACTION_FORM)
    if (read.ok && !same(read.fields.csrf, me.session.csrf)) return refusedPage(req, me, "The form expired; reload the page and try again.")
    if (!read.ok)
      return multipart
        ? shell.redirectWith(req, "/dashboard/imports", { ok: false, text: `The confirmation could not be read; nothing was saved. ${read.message}` })
        : formRefused(read.message)
    const form = { fields: read.fields, file: "file" in read ? read.file : undefined }
    const previewId = form.fields.preview ?? ""
    const settings = settingsOf(form.fields)
    const back = importPath(previewId, settings)
    const file = form.file && form.file.bytes.length > 0 ? formFile(form.file) : held.get(previewId, ownerOf(me))
    if (!file)
      return shell.redirectWith(req, back, { ok: false, text: "This server no longer holds the file previewed; choose it again.",
        details: [{ field: "file", message: "choose the file again" }] })
    const exit = await run(Effect.gen(function*() {
      return yield* startImport(me.principal, yield* decodeSettings(settings), file)
    }))
    if (Exit.isFailure(exit)) {
      return shell.redirectWith(req, back, domainError(exit)?._tag === "RateLimited"
        ? { ok: false,
          text:
            "Another import of this account is running (or this server is running as many as it can): wait for it to end, then confirm again. Nothing was imported." }
        : failure(exit))
    }
    held.release(previewId, ownerOf(me))
    return redirect(site.path(importPath(exit.value.id)))
  }

  const cancel = async (req: ApiRequest): Promise<ApiResponse> => {
    const me = await writer(req)
    if (!("principal" in me)) return me
    const read = readForm(req, ACTION_FORM)
    if (read.ok && !same(read.fields.csrf, me.session.csrf)) return refusedPage(req, me, "The form expired; reload the page and try again.")
    if (!read.ok) return formRefused(read.message)
    const id = read.fields.id ?? ""
    const exit = await run(cancelImport(me.principal, id))
    return shell.redirectWith(req, importPath(id), Exit.isSuccess(exit)
      ? { ok: true,
        text: `Import stopped: ${number(exit.value.totals.created)} project${exit.value.totals.created === 1 ? "" : "s"} created before it stopped stay.` }
      : failure(exit))
  }

  /** An import's status and progress, without its results (the page's script polls it). */
  const status = async (req: ApiRequest, requestId: string): Promise<ApiResponse> => {
    const me = await current(req)
    const noStore = { "cache-control": "no-store" }
    if (!me) return refusal(requestId, new Errors.CredentialsMissing({ message: "Your session has ended; sign in again", malformed: false }), noStore)
    const exit = await run(getImport(me.principal, req.query.get("id") ?? "", { results_per_page: "0" }))
    if (Exit.isFailure(exit)) {
      const e = domainError(exit)
      return refusal(requestId, e ?? new Errors.Unexpected({ message: "An unexpected error occurred" }), noStore)
    }
    const { completed_at, error, id, progress, status: state, totals } = exit.value
    return json(200, requestId, { id, status: state, progress, totals, error, completed_at }, { "cache-control": "no-store" })
  }

  const script = { status: 200, headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" }, body: IMPORTS_JS }
  return {
    "GET /dashboard/imports": async (req: ApiRequest) => {
      const me = await current(req)
      return me ? importsPage(req, me) : signIn()
    },
    "POST /dashboard/imports/preview": preview,
    "POST /dashboard/imports/confirm": confirm,
    "POST /dashboard/imports/cancel": cancel,
    "GET /dashboard/imports/status.json": status,
    "GET /dashboard/static/imports.js": async (): Promise<ApiResponse> => script
  }
}

/** The form's settings checked as the API checks its query. */
const decodeSettings = (settings: Record<string, string>) => {
  const r = Schemas.decodeRequest(StartImportQuery)(settings)
  return r._tag === "Success"
    ? Effect.succeed(r.success as Record<string, string>)
    : Effect.fail(new Errors.ValidationError({ message: "The import settings are invalid", details: [...r.failure] }))
}

const IMPORTS_JS = `// Canopy imports: a running import's progress polled until it ends, then its results shown in place.
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
