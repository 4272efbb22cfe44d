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
 *
 * This module answers the routes (forms, the held files, the status); importViews.ts renders the pages.
 */
import { Accounts, Errors, type ImportResource, Schemas } from "@canopy/core"
import { Effect, Exit } from "effect"
import { formFile, type RawBody } from "../api/importFile.ts"
import { cancelImport, getImport, startImport, StartImportQuery } from "../api/imports.ts"
import { readForm as readMultipart } from "../gis/multipart.ts"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { json, refusal } from "../http/responses.ts"
import { ACTION_FORM, domainError, escape, formRefused, readForm, redirect, same } from "./html.ts"
import { importPath, importViews, IMPORTS_JS, STYLE } from "./importViews.ts"
import { can, failure, type Me, number, type Shell } from "./shell.ts"
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

/** The dashboard's import pages and their routes. */
export const importPages = (shell: Shell, site: Site) => {
  const { current, layout, run } = shell
  const held = makeHeldFiles()
  const ownerOf = (me: Me) => `${me.principal.account_id}:${me.principal.user_id ?? ""}`
  const { importView, openForm, previewView, uploadForm } = importViews(site)
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

  /** A preview's view, with the account's overlap policy and whether this server still holds its file. */
  const previewOf = async (me: Me, imp: ImportResource, after: string | undefined, settings: Record<string, string>) => {
    const account = await run(Effect.flatMap(Accounts, (a) => a.get(me.principal)))
    const policy = Exit.isSuccess(account) ? account.value.overlap_policy : undefined
    return previewView(me, imp, after, settings, { policy, fileHeld: held.get(imp.id, ownerOf(me)) !== undefined })
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
    const body = imp.dry_run ? await previewOf(me, imp, after, settings) : importView(me, imp, after)
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
