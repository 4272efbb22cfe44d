/**
 * The dashboard's project forms: the project and asset actions of `POST /dashboard/action`
 * (create, edit, archive, restore, delete a project, set its boundary back to a version, add and
 * delete assets) and the boundary file upload of a project's page (`POST /dashboard/upload`).
 * Each goes through the core's services as the signed-in member, and answers with the notice
 * shown on the page it returns to, the write's overlap report among its notes.
 */
import { Assets, boundaryChangeVia, type Canopy, Projects, Schemas } from "@canopy/core"
import { Effect, Exit } from "effect"
import { formFile, importFile, writeAfterRead } from "../api/importFile.ts"
import { readForm } from "../gis/multipart.ts"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { nestsDeeperThan } from "../http/input.ts"
import { dashboardEdit, restoreAction } from "./boundaryHistory.ts"
import { domainError, same } from "./html.ts"
import { backPath, failure, type Me, type Notice, number, type Shell } from "./shell.ts"

/** Each import format as a notice names it. */
const FORMAT_NAMES = { geojson: "GeoJSON", kml: "KML", kmz: "KMZ", shapefile: "zipped Shapefile", geopackage: "GeoPackage" } as const

/** A field problem of a form, as the API reports one. */
const invalid = (field: string, message: string): Notice => ({ ok: false, text: "Some of what you entered needs fixing; nothing was saved.",
  details: [{ field, message }] })

/**
 * The boundary typed into a form: undefined when left empty, else the parsed JSON (or a notice).
 * Nesting past the API's limit is refused before parsing (JSON.parse takes seconds over 2,000,000
 * nested brackets).
 */
const boundaryOf = (raw: string | undefined): { readonly value?: unknown; readonly notice?: Notice } => {
  const t = raw?.trim()
  if (!t) return {}
  if (nestsDeeperThan(Buffer.from(t), Schemas.MAX_DEPTH)) return { notice: invalid("geometry", `nests deeper than ${Schemas.MAX_DEPTH} levels`) }
  try {
    return { value: JSON.parse(t) }
  } catch (e) {
    return { notice: invalid("geometry", `is not valid JSON (${(e as Error).message})`) }
  }
}

/**
 * What a write's overlap report says, as notes of its notice: each other project sharing hectares
 * (with the API's figure), and when not every nearby project could be compared.
 */
const overlapNotes = (p: Schemas.Project): { readonly notes?: ReadonlyArray<string> } => {
  const r = p.overlaps
  if (!r) return {}
  const notes = r.overlaps.slice(0, 3).map((o) => `Overlaps “${o.name}” by ${number(o.overlap_hectares)} ha: those hectares are counted in both projects.`)
  if (r.overlaps.length > 3) notes.push(`…and ${r.overlaps.length - 3} more overlapping projects.`)
  if (!r.complete) notes.push("Not every nearby project could be compared with this boundary; overlaps may be missing.")
  return notes.length ? { notes } : {}
}

/** An outcome: the notice, and the dashboard path to go to (default: where the form came from). */
export interface Outcome {
  readonly notice: Notice
  readonly to?: string
}

/** The project and asset actions of `POST /dashboard/action`, or undefined when `f.action` is none of them. */
export const projectAction = (me: Me, f: Record<string, string>): Effect.Effect<Outcome, unknown, Canopy.Runtime> | undefined => {
  const id = f.id ?? ""
  const projectPath = (pid: string) => `/dashboard/project?id=${encodeURIComponent(pid)}`
  switch (f.action) {
    case "create_project": {
      const g = boundaryOf(f.geometry)
      if (g.notice) return Effect.succeed({ notice: g.notice })
      return Effect.map(Effect.flatMap(Projects, (s) =>
        s.create(me.principal, {
          name: f.name ?? "",
          ...(f.description ? { description: f.description } : {}),
          ...(f.status ? { status: f.status } : {}),
          ...(g.value !== undefined ? { geometry: g.value } : {})
        }).pipe(boundaryChangeVia(dashboardEdit))),
        (p) => ({ notice: { ok: true, text: `Project “${p.name}” created (${number(p.area_hectares)} ha).`, ...overlapNotes(p) }, to: projectPath(p.id) }))
    }
    case "update_project": {
      const g = boundaryOf(f.geometry)
      if (g.notice) return Effect.succeed({ notice: g.notice })
      return Effect.map(Effect.flatMap(Projects, (s) =>
        s.update(me.principal, id, {
          ...(f.name !== undefined ? { name: f.name } : {}),
          ...(f.description !== undefined ? { description: f.description === "" ? null : f.description } : {}),
          ...(f.status ? { status: f.status } : {}),
          ...(g.value !== undefined ? { geometry: g.value } : {})
        }).pipe(boundaryChangeVia(dashboardEdit))),
        (p) => ({ notice: { ok: true, text: `Saved. ${p.name} is ${p.status}, ${number(p.area_hectares)} ha.`, ...overlapNotes(p) } }))
    }
    case "restore_boundary":
      return Effect.map(restoreAction(me.principal, f), (r) => ({ notice: { ...r.notice, ...overlapNotes(r.project) } }))
    case "archive_project":
      return Effect.map(Effect.flatMap(Projects, (s) => s.archive(me.principal, id)), (p) => ({ notice: { ok: true, text: `Project “${p.name}” archived.` } }))
    case "restore_project":
      return Effect.map(Effect.flatMap(Projects, (s) => s.restore(me.principal, id)),
        (p) => ({ notice: { ok: true, text: `Project “${p.name}” restored.`, ...overlapNotes(p) } }))
    case "delete_project":
      return Effect.map(Effect.flatMap(Projects, (s) => s.delete(me.principal, id)),
        () => ({ notice: { ok: true, text: `Project “${f.name ?? id}” deleted.` }, to: "/dashboard/projects" }))
    case "create_asset": {
      const lon = f.lon?.trim() ?? ""
      const lat = f.lat?.trim() ?? ""
      if ((lon === "") !== (lat === ""))
        return Effect.succeed({
          notice: invalid(lon === "" ? "location.coordinates.0" : "location.coordinates.1", "give both longitude and latitude, or neither")
        })
      const coords = [Number(lon), Number(lat)]
      if (lon !== "" && coords.some((c) => !Number.isFinite(c)))
        return Effect.succeed({ notice: invalid("location.coordinates", "longitude and latitude must be numbers") })
      return Effect.map(Effect.flatMap(Assets, (s) =>
        s.create(me.principal, id, {
          name: f.name ?? "",
          type: f.type ?? "",
          ...(f.status ? { status: f.status } : {}),
          ...(lon !== "" ? { location: { type: "Point", coordinates: coords } } : {})
        })), (a) => ({ notice: { ok: true, text: `Asset “${a.name}” added.` } }))
    }
    case "delete_asset":
      return Effect.map(Effect.flatMap(Assets, (s) => s.delete(me.principal, id, f.asset_id ?? "")), () => ({ notice: { ok: true, text: "Asset deleted." } }))
    default:
      return undefined
  }
}

/**
 * A boundary file for a project (multipart), through the API's import path (`importFile`): the
 * session and its CSRF token, then the role and the project, then the import workers; every
 * problem is shown before anything is saved. Without a session nothing of the body is read.
 */
export const boundaryUpload = (shell: Shell, signIn: () => ApiResponse) => async (req: ApiRequest): Promise<ApiResponse> => {
  const { current, run } = shell
  const me = await current(req)
  if (!me) return signIn()
  const form = readForm(req.headers["content-type"] ?? "", req.body ?? new Uint8Array())
  if (!form.ok || form.fields.csrf === undefined || !same(form.fields.csrf, me.session.csrf)) return signIn()
  const id = form.fields.id ?? ""
  const back = backPath(form.fields.back ?? "", `/dashboard/project?id=${encodeURIComponent(id)}`)
  const file = formFile(form.file)
  const name = file.filename || "the file"
  if (file.bytes.length === 0) return shell.redirectWith(req, back, invalid("file", "choose a file to upload"))
  const exit = await run(Effect.gen(function*() {
    const read = yield* importFile(me.principal, { projectId: id }, file)
    const saved = yield* writeAfterRead((yield* Projects).update(me.principal, id, { geometry: read.geometry }))
      .pipe(boundaryChangeVia({ via: "dashboard_file", file_format: read.format }))
    return { read, saved }
  }))
  if (Exit.isFailure(exit)) {
    const error = domainError(exit)
    if (error?._tag !== "ValidationError") return shell.redirectWith(req, back, failure(exit))
    return shell.redirectWith(req, back, { ok: false, text: `The boundary in ${name} cannot be used; nothing was saved.`, details: error.details })
  }
  const { read, saved } = exit.value
  return shell.redirectWith(req, back, {
    ok: true,
    text: `Boundary replaced from ${name} (${FORMAT_NAMES[read.format]}, ${read.features} feature${read.features === 1 ? "" : "s"}, ${read.sourceCrs}): ${
      number(saved.area_hectares)
    } ha.`,
    ...((notes) => (notes.length ? { notes } : {}))([...read.warnings, ...(overlapNotes(saved).notes ?? [])])
  })
}
