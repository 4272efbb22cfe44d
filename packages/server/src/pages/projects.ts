/**
 * The dashboard's projects: the list (the API's status filter, search, sort and cursor paging), a
 * project's page (its boundary and assets on a map, area, status, the lifecycle actions the
 * member's role allows, its assets, its boundary history) and the overview map of every project of
 * the account.
 *
 * Boundaries are never parsed here: a project's geometry is embedded as the stored JSON text
 * (`RawJson.text`) in a JSON data block, `<` escaped. The overview draws the account's vector
 * tiles (`/dashboard/map/tile`, the API's `GET /v1/tiles/{z}/{x}/{y}.mvt` through the session:
 * boundaries, or points where a tile holds too many), and makes one bounded request for the
 * count and the initial view (`/dashboard/map/extent.json`): the account's project total and the
 * union of the boxes of its 1,000 largest projects. The view fits the largest projects; the tiles
 * draw all of them.
 *
 * The forms these pages post (the project and asset actions, the boundary file upload) are
 * answered in projectForms.ts.
 */
import { Assets, Lifecycle, ProjectOverlaps, Projects, RawJson, type Schemas } from "@canopy/core"
import { Effect, Exit, Result } from "effect"
import { dashboardTile } from "../api/tiles.ts"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { domainError, escape } from "./html.ts"
import { can, failure, type Me, number, plain, type Shell, time } from "./shell.ts"
import type { Site } from "./site.ts"
import { overlapIds, overlapSection } from "./overlaps.ts"
import { comparedVersion, historyPage, historySection, unionBox } from "./boundaryHistory.ts"
import { boundaryUpload } from "./projectForms.ts"
import { maplibreVersion } from "./static.ts"

/** The project forms' actions, which the dashboard's action route dispatches to. */
export { type Outcome, projectAction } from "./projectForms.ts"

/** Options of the maps. */
export interface MapOptions {
  /** A raster tile URL template (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`); none: a plain background with a graticule. */
  readonly basemapUrl?: string | undefined
  /** The basemap's attribution, shown on the map. */
  readonly basemapAttribution?: string | undefined
}

/** A basemap URL template as configured: http(s), with `{z}`, `{x}` and `{y}`. Throws a readable Error otherwise. */
export const parseBasemapUrl = (raw: string | undefined): string | undefined => {
  const t = raw?.trim()
  if (!t) return undefined
  try {
    const u = new URL(t.replace(/\{[a-z]+\}/g, "0"))
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error()
  } catch {
    throw new Error(`basemap URL ${JSON.stringify(raw)} must be an http(s) tile URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png`)
  }
  if (!["{z}", "{x}", "{y}"].every((p) => t.includes(p))) throw new Error(`basemap URL ${JSON.stringify(raw)} must contain {z}, {x} and {y}`)
  return t
}

/** JSON for a `<script type="application/json">` block: nothing in it can end the block. */
const jsonBlock = (id: string, json: string) =>
  `<script type="application/json" id="${id}">${json.replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")}</script>`

const geometryText = (g: unknown) => (g === null || g === undefined ? "null" : g instanceof RawJson.RawJson ? g.text : JSON.stringify(g))

const statusBadge = (s: string) => `<span class="status ${escape(s)}">${escape(s)}</span>`

const LIST_KEYS = ["status", "search", "bbox", "point", "sort", "order", "cursor"] as const

/**
 * The API query of the list page's filters: `point` ("longitude, latitude", as a GPS shows it)
 * becomes `intersects` with a GeoJSON Point; anything not two numbers is passed on as it is, so the
 * API's own message explains it.
 */
const apiQuery = (q: Record<string, string>): Record<string, string> => {
  const { point, ...rest } = q
  if (point === undefined) return rest
  const m = /^\s*(-?[0-9.]+)\s*[,; ]\s*(-?[0-9.]+)\s*$/.exec(point)
  return { ...rest, intersects: m ? JSON.stringify({ type: "Point", coordinates: [Number(m[1]), Number(m[2])] }) : point }
}
/** API pages of 100 the overview's extent reads: the boxes of the 1,000 largest projects. */
const EXTENT_PAGES = 10

/** The dashboard's project pages (list, project, overview map, its extent and tiles) and the boundary upload, by route. */
export const projectPages = (shell: Shell, site: Site, options: MapOptions = {}) => {
  const { current, form, layout, run } = shell
  const basemap = parseBasemapUrl(options.basemapUrl)
  const basemapOrigin = basemap ? ` ${new URL(basemap.replace(/\{[a-z]+\}/g, "0")).origin}` : ""
  const mapPage = {
    scripts: [site.path("/dashboard/static/map.js")],
    styles: [site.path(`/dashboard/static/maplibre-gl.css?v=${maplibreVersion}`)],
    csp: { "worker-src": "'self' blob:", "img-src": `'self' data: blob:${basemapOrigin}`, "connect-src": `'self'${basemapOrigin}` }
  }
  const mapConfig = (extra: Record<string, unknown>) =>
    jsonBlock("map-config", JSON.stringify({ basemap: basemap ?? null, attribution: options.basemapAttribution ?? null, ...extra }))
  const MAP_STYLE = "<style>#map{height:28rem;border:1px solid #c3d3c7;border-radius:4px}</style>"
  const signIn = (): ApiResponse => ({ status: 303, headers: { location: site.path("/dashboard"), "cache-control": "no-store" }, body: undefined })

  const listQuery = (req: ApiRequest) => {
    const q: Record<string, string> = {}
    for (const k of LIST_KEYS) {
      const v = req.query.get(k)?.trim()
      if (v) q[k] = v
    }
    return q
  }
  const href = (path: string, q: Record<string, string>) => {
    const s = new URLSearchParams(q).toString()
    return site.path(s ? `${path}?${s}` : path)
  }

  const list = async (req: ApiRequest, me: Me): Promise<ApiResponse> => {
    const q = listQuery(req)
    const exit = await run(Effect.flatMap(Projects, (p) => p.list(me.principal, apiQuery(q))))
    const error = Exit.isFailure(exit) ? failure(exit) : undefined
    const select = (name: string, label: string, values: ReadonlyArray<[string, string]>) =>
      `<div><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}">${
        values.map(([v, l]) => `<option value="${v}"${(q[name] ?? "") === v ? " selected" : ""}>${l}</option>`).join("")
      }</select></div>`
    const filters = `<form method="get" action="${escape(site.path("/dashboard/projects"))}" class="filters" role="search" aria-label="Filter projects">
${select("status", "Status", [["", "Any status"], ...Lifecycle.statuses.map((s): [string, string] => [s, s[0]!.toUpperCase() + s.slice(1)])])}
<div><label for="f-search">Search name or description (3 characters or more)</label><input id="f-search" name="search" type="search" value="${
      escape(q.search ?? "")
    }"></div>
<div><label for="f-point">Covering a point (longitude, latitude)</label><input id="f-point" name="point" inputmode="decimal" placeholder="8.105, 48.105" value="${
      escape(q.point ?? "")
    }"></div>
<div><label for="f-bbox">Within a box (west, south, east, north)</label><input id="f-bbox" name="bbox" inputmode="decimal" placeholder="8, 48, 8.5, 48.5" value="${
      escape(q.bbox ?? "")
    }"></div>
${select("sort", "Sort by", [["", "Created"], ["name", "Name"], ["area_hectares", "Area"]])}
${select("order", "Order", [["", "Default"], ["asc", "Ascending"], ["desc", "Descending"]])}
<div><button type="submit">Show</button></div></form>`
    let table = ""
    if (Exit.isSuccess(exit)) {
      const { data, meta } = exit.value
      const { cursor: _c, ...filtersOnly } = q
      table = `<p id="count">${meta.total_exact ? "" : "About "}${number(meta.total)} project${meta.total === 1 ? "" : "s"}</p>
<table id="projects-table"><caption class="visually-hidden">Projects</caption><thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col" class="num">Area (ha)</th><th scope="col">Created</th><th scope="col">Updated</th></tr></thead><tbody>${
        data.map((p) =>
          `<tr data-id="${escape(p.id)}"><td><a href="${escape(href("/dashboard/project", { id: p.id }))}">${escape(p.name)}</a></td><td>${
            statusBadge(p.status)
          }</td><td class="num">${number(p.area_hectares)}</td><td>${time(p.created_at)}</td><td>${time(p.updated_at)}</td></tr>`
        ).join("") ||
        "<tr><td colspan=\"5\">No projects match.</td></tr>"
      }</tbody></table>
<nav aria-label="Pages" class="pager">${q.cursor ? `<a href="${escape(href("/dashboard/projects", filtersOnly))}">First page</a> ` : ""}${
        meta.next_cursor
          ? `<a id="next-page" rel="next" href="${escape(href("/dashboard/projects", { ...filtersOnly, cursor: meta.next_cursor }))}">Next page</a>` : ""
      }</nav>`
    } else {
      table = `<div class="error" role="alert"><p>${escape(error!.text)}</p>${
        error!.details?.length ? `<ul>${error!.details.map((d) => `<li><code>${escape(d.field)}</code>: ${escape(d.message)}</li>`).join("")}</ul>` : ""
      }</div>`
    }
    const f = form(me, "/dashboard/projects")
    const create = can(me.principal, "projects.create")
      ? `<section id="new-project" aria-labelledby="new-project-h"><h2 id="new-project-h">New project</h2>${
        f("create_project", `<label for="np-name">Name</label><input id="np-name" name="name" required maxlength="200">
<label for="np-description">Description (optional)</label><input id="np-description" name="description">
<label for="np-status">Status</label><select id="np-status" name="status"><option value="active">Active</option><option value="draft">Draft</option></select>
<label for="np-geometry">Boundary (optional): GeoJSON Polygon or MultiPolygon, WGS84 longitude/latitude</label><textarea id="np-geometry" name="geometry" rows="4" spellcheck="false"></textarea>`,
          "Create project")
      }</section>`
      : ""
    return layout(req, me, "projects", "Projects",
      `<style>.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end}.filters div{min-width:9rem}.filters button{margin:0}.pager a{margin-right:1rem}</style>
<h1>Projects</h1>${filters}${table}${create}`)
  }

  const project = async (req: ApiRequest, me: Me): Promise<ApiResponse> => {
    const id = req.query.get("id") ?? ""
    const assetsCursor = req.query.get("assets_cursor") ?? undefined
    const overlapsCursor = req.query.get("overlaps_cursor") ?? undefined
    const historyCursor = req.query.get("history_cursor") ?? undefined
    const exit = await run(Effect.gen(function*() {
      const p = yield* (yield* Projects).get(me.principal, id)
      const assets = yield* Effect.result((yield* Assets).list(me.principal, id, { per_page: "100", ...(assetsCursor ? { cursor: assetsCursor } : {}) }))
      const overlaps = yield* Effect.result((yield* ProjectOverlaps).list(me.principal, id, overlapsCursor ? { cursor: overlapsCursor } : {}))
      return { p, assets, overlaps, history: yield* historyPage(me.principal, id, historyCursor),
        compared: yield* comparedVersion(me.principal, id, req.query.get("compare") ?? undefined) }
    }))
    if (Exit.isFailure(exit)) {
      const n = failure(exit)
      const notFound = domainError(exit)?._tag === "NotFound"
      return {
        ...layout(req, me, "projects", "Project",
          `<h1>Project</h1><div class="error" role="alert"><p>${escape(n.text)}</p></div><p><a href="${
            escape(site.path("/dashboard/projects"))
          }">All projects</a></p>`),
        status: notFound ? 404 : 400
      }
    }
    const { assets, overlaps, p, history, compared } = exit.value
    const back = `/dashboard/project?id=${encodeURIComponent(p.id)}`
    const f = form(me, back)
    const idField = `<input type="hidden" name="id" value="${escape(p.id)}">`
    const actions: Array<string> = []
    /** Whether the lifecycle accepts the command in the project's status. */
    const allows = (_tag: "Archive" | "Restore" | "Delete") => Result.isSuccess(Lifecycle.transition(p.status, { _tag }))
    if (allows("Archive") && can(me.principal, "projects.archive")) {
      actions.push(f("archive_project", idField, "Archive", { inline: true, confirm: `Archive “${p.name}”? Its hectares stop counting; it can be restored.` }))
    }
    if (allows("Restore") && can(me.principal, "projects.restore")) actions.push(f("restore_project", idField, "Restore", { inline: true }))
    if (allows("Delete") && can(me.principal, "projects.delete")) {
      actions.push(
        f("delete_project", `${idField}<input type="hidden" name="name" value="${escape(p.name)}">`, "Delete permanently", { inline: true,
          confirm: `Delete “${p.name}” and its assets permanently? This cannot be undone.` })
      )
    }
    const assetRows = Result.isSuccess(assets) ? assets.success : undefined
    const assetList: ReadonlyArray<Schemas.Asset> = assetRows?.data ?? []
    const writeAssets = can(me.principal, "assets.create") && p.status !== "archived"
    const assetTable = !assetRows ? `<p>${escape(plain(undefined).text)}</p>` :
      `<table id="assets-table"><caption class="visually-hidden">Assets of ${
        escape(p.name)
      }</caption><thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Location (lon, lat)</th><th scope="col">Created</th>${
        writeAssets ? "<th scope=\"col\">Actions</th>" : ""
      }</tr></thead><tbody>${
        assetList.map((a) => {
          const loc = a.location as { coordinates?: [number, number] } | null
          return `<tr><td>${escape(a.name)}</td><td>${escape(a.type.replace(/_/g, " "))}</td><td>${escape(a.status)}</td><td>${
            loc?.coordinates ? `${number(loc.coordinates[0], 6)}, ${number(loc.coordinates[1], 6)}` : "—"
          }</td><td>${time(a.created_at)}</td>${
            writeAssets
              ? `<td>${
                f("delete_asset", `${idField}<input type="hidden" name="asset_id" value="${escape(a.id)}">`, "Delete", { inline: true,
                  confirm: `Delete the asset “${a.name}”?`, label: `Delete asset ${a.name}` })
              }</td>` : ""
          }</tr>`
        }).join("") || `<tr><td colspan="${writeAssets ? 6 : 5}">No assets yet.</td></tr>`
      }</tbody></table>${
        assetRows.meta.next_cursor
          ? `<p><a href="${
            escape(href("/dashboard/project", { id: p.id, assets_cursor: assetRows.meta.next_cursor }))
          }">Next assets</a> (the map shows this page's assets)</p>` : ""
      }`
    const edit = can(me.principal, "projects.update")
      ? `<details id="edit-project"><summary>Edit project</summary>${
        f("update_project", `${idField}<label for="ep-name">Name</label><input id="ep-name" name="name" required maxlength="200" value="${escape(p.name)}">
<label for="ep-description">Description</label><input id="ep-description" name="description" value="${escape(p.description ?? "")}">
<label for="ep-status">Status</label><select id="ep-status" name="status">${
          Lifecycle.statuses.map((s) => `<option value="${s}"${s === p.status ? " selected" : ""}>${s}</option>`).join("")
        }</select>
<label for="ep-geometry">Replace the boundary (GeoJSON Polygon or MultiPolygon; leave empty to keep it)</label><textarea id="ep-geometry" name="geometry" rows="4" spellcheck="false"></textarea>`,
          "Save changes")
      }</details>`
      : ""
    const upload = can(me.principal, "projects.update")
      ? `<form id="upload-boundary" method="post" action="${
        escape(site.path("/dashboard/upload"))
      }" enctype="multipart/form-data"><input type="hidden" name="csrf" value="${escape(me.session.csrf)}">${idField}<input type="hidden" name="back" value="${
        escape(back)
      }">
<label for="up-file">Replace the boundary from a file: GeoJSON, KML, KMZ, zipped Shapefile or GeoPackage (reprojected to WGS84 from its .prj or CRS)</label><input id="up-file" name="file" type="file" required accept=".geojson,.json,.kml,.kmz,.zip,.gpkg">
<button type="submit">Upload boundary</button></form>`
      : ""
    const newAsset = writeAssets
      ? `<section id="new-asset" aria-labelledby="new-asset-h"><h3 id="new-asset-h">Add an asset</h3>${
        f("create_asset", `${idField}<label for="na-name">Name</label><input id="na-name" name="name" required maxlength="200">
<label for="na-type">Type</label><select id="na-type" name="type">${
          ["equipment", "monitoring_station", "point_of_interest", "sensor", "other"].map((t) => `<option value="${t}">${t.replace(/_/g, " ")}</option>`).join(
            ""
          )
        }</select>
<label for="na-status">Status</label><select id="na-status" name="status">${
          ["active", "inactive", "maintenance", "retired"].map((t) => `<option value="${t}">${t}</option>`).join("")
        }</select>
<label for="na-lon">Longitude (−180 to 180, optional)</label><input id="na-lon" name="lon" inputmode="decimal">
<label for="na-lat">Latitude (−90 to 90, optional)</label><input id="na-lat" name="lat" inputmode="decimal">`, "Add asset")
      }</section>`
      : ""
    const bbox = p.bbox as ReadonlyArray<number> | null
    const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`
    const drawn = ["its boundary", ...(assetList.length ? [plural(assetList.length, "asset")] : []),
      ...(overlapIds(overlaps).length ? [plural(overlapIds(overlaps).length, "overlapping project")] : [])]
    const body = `${MAP_STYLE}<p><a href="${escape(site.path("/dashboard/projects"))}">← All projects</a></p>
<h1>${escape(p.name)}</h1>
<dl class="facts"><dt>Status</dt><dd id="project-status">${statusBadge(p.status)}</dd><dt>Area</dt><dd id="project-area">${number(p.area_hectares)} ha</dd>
<dt>Slug</dt><dd><code>${escape(p.slug)}</code></dd><dt>Created</dt><dd>${time(p.created_at)}</dd><dt>Updated</dt><dd>${time(p.updated_at)}</dd></dl>
${p.description ? `<p>${escape(p.description)}</p>` : ""}
${actions.length ? `<div id="lifecycle" role="group" aria-label="Project actions">${actions.join(" ")}</div>` : ""}
<div id="map" role="region" aria-label="Map of ${escape(p.name)}: ${
      escape(drawn.slice(0, -1).join(", ") + (drawn.length > 1 ? " and " : "") + drawn[drawn.length - 1])
    }"></div>
${p.geometry === null ? "<p>This project has no boundary yet.</p>" : ""}
${
      overlapSection(p.name, p.geometry !== null && p.status !== "archived", overlaps, (c) => href("/dashboard/project", { id: p.id, overlaps_cursor: c }),
        (o) => href("/dashboard/project", { id: o }))
    }
${
      historySection(p.name, history, me.principal, { page: (c) => href("/dashboard/project", { id: p.id, history_cursor: c }),
        compare: (v) => `${href("/dashboard/project", { id: p.id, compare: String(v) })}#boundary-history` }, compared, can(me.principal, "projects.update")
        ? (v) =>
          f("restore_boundary", `${idField}<input type="hidden" name="version" value="${v}">`, "Restore", { inline: true,
            confirm: `Set the boundary of “${p.name}” back to version ${v}?`, label: `Restore version ${v}` }) : undefined)
    }
${compared?.geometry ? jsonBlock("compare-boundary", geometryText(compared.geometry)) : ""}${
      mapConfig({ mode: "project", name: p.name, bbox: unionBox(bbox, compared?.bbox ?? null), overlaps: overlapIds(overlaps),
        tiles: `${site.path("/dashboard/map/tile")}?z={z}&x={x}&y={y}`, projectUrl: `${site.path("/dashboard/project")}?id=` })
    }${jsonBlock("boundary", geometryText(p.geometry))}${
      jsonBlock("assets", JSON.stringify(assetList.filter((a) =>
        a.location !== null
      ).map((a) => ({ id: a.id, name: a.name, type: a.type, status: a.status, location: a.location }))))
    }
${upload}${edit}<section id="assets" aria-labelledby="assets-h"><h2 id="assets-h">Assets</h2>${assetTable}${newAsset}</section>`
    return layout(req, me, "projects", p.name,
      `<style>.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}.facts dd{margin:0}#lifecycle{margin:1rem 0}</style>${body}`, mapPage)
  }

  const overview = (req: ApiRequest, me: Me): ApiResponse =>
    layout(req, me, "map", "Map", `${MAP_STYLE.replace("28rem", "36rem")}<h1>All projects on the map</h1>
<p id="map-status" role="status" aria-live="polite">Loading projects…</p>
<div id="map" role="region" aria-label="Map of the account's projects"></div>
<p>Each project is drawn with its boundary, coloured by status (green active, amber draft, grey archived); where an area holds too many to draw, as dots at their centres — zoom in to see their boundaries. Select one to open it. <a href="${
      escape(site.path("/dashboard/projects"))
    }">The same projects as a list</a>.</p>
${
      mapConfig({ mode: "overview", extent: site.path("/dashboard/map/extent.json"), tiles: `${site.path("/dashboard/map/tile")}?z={z}&x={x}&y={y}`,
        projectUrl: `${site.path("/dashboard/project")}?id=` })
    }`, mapPage)

  /**
   * The overview's count and initial view: the account's project total (the list's exact total)
   * and `[w, s, e, n]`, the union of the boxes of at most the 1,000 largest projects (null when
   * none has a boundary). Ten API pages by area, largest first, without the boundaries' text.
   */
  const extent = async (me: Me): Promise<ApiResponse> => {
    const exit = await run(Effect.gen(function*() {
      const projects = yield* Projects
      let box: ReadonlyArray<number> | null = null
      let count = 0
      let cursor: string | undefined
      for (let i = 0; i < EXTENT_PAGES; i++) {
        const page = yield* projects.list(me.principal, { per_page: "100", sort: "area_hectares", order: "desc", ...(cursor ? { cursor } : {}) }, {
          boundaries: false
        })
        if (i === 0) count = page.meta.total
        for (const p of page.data) box = unionBox(box, p.bbox)
        cursor = page.meta.next_cursor ?? undefined
        if (!cursor) break
      }
      return { count, extent: box }
    }))
    const headers = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" }
    if (Exit.isFailure(exit)) return { status: 500, headers, body: JSON.stringify({ error: failure(exit).text }) }
    return { status: 200, headers, body: JSON.stringify(exit.value) }
  }

  const signedIn = (handler: (req: ApiRequest, me: Me) => ApiResponse | Promise<ApiResponse>) => async (req: ApiRequest): Promise<ApiResponse> => {
    const me = await current(req)
    return me ? handler(req, me) : signIn()
  }

  return {
    "POST /dashboard/upload": boundaryUpload(shell, signIn),
    "GET /dashboard/projects": signedIn(list),
    "GET /dashboard/project": signedIn(project),
    "GET /dashboard/map": signedIn(overview),
    "GET /dashboard/map/extent.json": async (req: ApiRequest): Promise<ApiResponse> => {
      const me = await current(req)
      return me ? extent(me)
        : { status: 401, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
          body: JSON.stringify({ error: "Your session has ended; sign in again." }) }
    },
    "GET /dashboard/map/tile": async (req: ApiRequest): Promise<ApiResponse> => {
      const me = await current(req)
      return me ? dashboardTile(req, me.principal, run)
        : { status: 401, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
          body: JSON.stringify({ error: "Your session has ended; sign in again." }) }
    }
  }
}
