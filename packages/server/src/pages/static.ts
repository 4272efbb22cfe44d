/**
 * The dashboard's static files, served by Canopy itself (no CDN): MapLibre GL JS and its worker
 * and stylesheet from node_modules, and the dashboard's two small scripts — `dashboard.js` (times
 * local and relative, confirmation of destructive actions) and `map.js` (the project and overview
 * maps). Files are read once, on first request; MapLibre's are cached by browsers for a day (their
 * URLs carry its version).
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { ApiResponse } from "../http/handler.ts"

const require = createRequire(import.meta.url)

/** MapLibre's version: part of the files' URLs, so a new version is fetched anew. */
export const maplibreVersion = (() => {
  try {
    return (require("maplibre-gl/package.json") as { version: string }).version
  } catch {
    return "0"
  }
})()

const DASHBOARD_JS = `// Canopy dashboard: times shown local and relative; destructive actions confirmed.
const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" })
const units = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]]
const relative = (d) => {
  const s = (d.getTime() - Date.now()) / 1000
  for (const [unit, size] of units) if (Math.abs(s) >= size || unit === "second") return rtf.format(Math.round(s / size), unit)
}
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })
const show = () => {
  for (const t of document.querySelectorAll("time[datetime]")) {
    const d = new Date(t.getAttribute("datetime"))
    if (Number.isNaN(d.getTime())) continue
    t.textContent = relative(d)
    t.title = absolute.format(d)
    t.setAttribute("aria-label", relative(d) + ", " + absolute.format(d))
  }
}
show()
setInterval(show, 60000)
document.addEventListener("submit", (e) => {
  const question = e.target instanceof HTMLFormElement ? e.target.dataset.confirm : undefined
  if (question && !window.confirm(question)) e.preventDefault()
})
`

const MAP_JS = `// Canopy maps: a project's boundary and assets, or every project of the account (overview).
import * as maplibregl from "./maplibre-gl.mjs?v=${maplibreVersion}"

const config = JSON.parse(document.getElementById("map-config").textContent)
const data = (id) => { const el = document.getElementById(id); return el ? JSON.parse(el.textContent) : null }

// A graticule (every 10°, and every degree from zoom 4): drawn whatever the basemap, so the map has a frame offline.
const graticule = (step) => {
  const features = []
  for (let x = -180; x <= 180; x += step) features.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [[x, -85], [x, 0], [x, 85]] } })
  for (let y = -80; y <= 80; y += step) features.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [[-180, y], [0, y], [180, y]] } })
  return { type: "FeatureCollection", features }
}

const style = {
  version: 8,
  sources: {
    graticule: { type: "geojson", data: graticule(10) },
    graticuleFine: { type: "geojson", data: graticule(1) },
    ...(config.basemap ? { basemap: { type: "raster", tiles: [config.basemap], tileSize: 256, attribution: config.attribution || "" } } : {})
  },
  layers: [
    { id: "background", type: "background", paint: { "background-color": "#eef3ee" } },
    ...(config.basemap ? [{ id: "basemap", type: "raster", source: "basemap" }] : []),
    { id: "graticule", type: "line", source: "graticule", paint: { "line-color": "#9db3a2", "line-width": 1 } },
    { id: "graticule-fine", type: "line", source: "graticuleFine", minzoom: 4, paint: { "line-color": "#c3d3c7", "line-width": 0.5 } }
  ]
}

const container = document.getElementById("map")
const map = new maplibregl.Map({ container, style, center: [0, 20], zoom: 1, attributionControl: config.basemap ? { compact: true } : false, cooperativeGestures: false })
map.addControl(new maplibregl.NavigationControl({ showCompass: false }))
map.addControl(new maplibregl.ScaleControl({ unit: "metric" }))
window.canopyMap = map
const stats = window.canopyMapStats = { features: 0, batches: 0, firstRenderMs: null, done: false, error: null }

const fit = (b) => {
  if (!b) return
  const pad = (b[2] - b[0] === 0 && b[3] - b[1] === 0) ? 0.01 : 0
  map.fitBounds([[b[0] - pad, b[1] - pad], [b[2] + pad, b[3] + pad]], { padding: 40, animate: false, maxZoom: 16 })
}
const union = (a, b) => (!a ? b : !b ? a : [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])])
const firstRender = () => map.once("idle", () => { if (stats.firstRenderMs === null) stats.firstRenderMs = performance.now() })

const popup = (lngLat, title, href, lines) => {
  const box = document.createElement("div")
  const a = document.createElement(href ? "a" : "strong")
  a.textContent = title
  if (href) a.href = href
  box.append(a)
  for (const l of lines) { const p = document.createElement("div"); p.textContent = l; box.append(p) }
  new maplibregl.Popup({ closeButton: true }).setLngLat(lngLat).setDOMContent(box).addTo(map)
}
const pointer = (layer) => {
  map.on("mouseenter", layer, () => { map.getCanvas().style.cursor = "pointer" })
  map.on("mouseleave", layer, () => { map.getCanvas().style.cursor = "" })
}

map.on("load", async () => {
  if (config.mode === "project") {
    const boundary = data("boundary")
    const assets = data("assets") || []
    map.addSource("boundary", { type: "geojson", data: boundary ? { type: "Feature", properties: { name: config.name }, geometry: boundary } : { type: "FeatureCollection", features: [] } })
    map.addLayer({ id: "boundary-fill", type: "fill", source: "boundary", paint: { "fill-color": "#2f7d4a", "fill-opacity": 0.25 } })
    map.addLayer({ id: "boundary-line", type: "line", source: "boundary", paint: { "line-color": "#1f5130", "line-width": 2 } })
    // A version of the boundary chosen in the page's history, outlined over the current one.
    const compared = data("compare-boundary")
    if (compared) {
      map.addSource("compare", { type: "geojson", data: { type: "Feature", properties: {}, geometry: compared } })
      map.addLayer({ id: "compare-line", type: "line", source: "compare", paint: { "line-color": "#c77700", "line-width": 2.5, "line-dasharray": [2, 1.5] } })
    }
    stats.compared = compared ? 1 : 0
    // The projects sharing area with it (the page's list), from the account's vector tiles, by id.
    const overlaps = config.overlaps || []
    if (overlaps.length && config.tiles) {
      const only = ["in", ["get", "id"], ["literal", overlaps]]
      map.addSource("tiles", { type: "vector", tiles: [location.origin + config.tiles], minzoom: 0, maxzoom: 15 })
      map.addLayer({ id: "overlaps-fill", type: "fill", source: "tiles", "source-layer": "projects", filter: only, paint: { "fill-color": "#b3261e", "fill-opacity": 0.2 } }, "boundary-line")
      map.addLayer({ id: "overlaps-line", type: "line", source: "tiles", "source-layer": "projects", filter: only, paint: { "line-color": "#b3261e", "line-width": 1.5, "line-dasharray": [2, 1] } }, "boundary-line")
      map.addLayer({ id: "overlaps-points", type: "circle", source: "tiles", "source-layer": "projects_points", filter: only, paint: { "circle-radius": 5, "circle-color": "#b3261e", "circle-stroke-color": "#fff", "circle-stroke-width": 1 } })
      for (const layer of ["overlaps-fill", "overlaps-points"]) {
        map.on("click", layer, (e) => {
          const p = e.features[0].properties
          popup(e.lngLat, p.name, config.projectUrl + encodeURIComponent(p.id), ["overlaps " + config.name])
        })
        pointer(layer)
      }
    }
    map.addSource("assets", { type: "geojson", data: { type: "FeatureCollection", features: assets.map((a) => ({ type: "Feature", properties: { id: a.id, name: a.name, type: a.type, status: a.status }, geometry: a.location })) } })
    map.addLayer({ id: "assets", type: "circle", source: "assets", paint: { "circle-radius": 6, "circle-color": ["match", ["get", "status"], "active", "#1565c0", "maintenance", "#c77700", "#666"], "circle-stroke-color": "#fff", "circle-stroke-width": 2 } })
    map.on("click", "assets", (e) => { const f = e.features[0]; popup(f.geometry.coordinates, f.properties.name, null, [f.properties.type + " · " + f.properties.status]) })
    pointer("assets")
    stats.features = (boundary ? 1 : 0) + assets.length
    stats.overlaps = overlaps.length
    let b = config.bbox
    for (const a of assets) b = union(b, [a.location.coordinates[0], a.location.coordinates[1], a.location.coordinates[0], a.location.coordinates[1]])
    if (b) {
      // A finer graticule around the project (a round step of about a quarter of its extent), labelled by the scale bar.
      const extent = Math.max(b[2] - b[0], b[3] - b[1], 0.001)
      const k = Math.pow(10, Math.floor(Math.log10(extent / 4)))
      const step = [1, 2, 5, 10].map((m) => m * k).find((s) => s >= extent / 4)
      const lines = []
      const x0 = Math.floor((b[0] - 5 * extent) / step) * step, x1 = b[2] + 5 * extent
      const y0 = Math.floor((b[1] - 5 * extent) / step) * step, y1 = b[3] + 5 * extent
      for (let x = x0; x <= x1; x += step) lines.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [[x, Math.max(y0, -85)], [x, Math.min(y1, 85)]] } })
      for (let y = y0; y <= y1; y += step) lines.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [[x0, y], [x1, y]] } })
      map.addSource("graticuleLocal", { type: "geojson", data: { type: "FeatureCollection", features: lines } })
      map.addLayer({ id: "graticule-local", type: "line", source: "graticuleLocal", paint: { "line-color": "#c3d3c7", "line-width": 0.75 } }, "boundary-fill")
    }
    fit(b)
    firstRender()
    stats.done = true
    return
  }
  // Overview: the account's vector tiles (boundaries coloured by status; dots where a tile holds too
  // many) draw every project; one bounded request gives the count and the initial view, which fits
  // the largest projects.
  const colour = ["match", ["get", "status"], "active", "#2f7d4a", "draft", "#b8860b", "#777"]
  map.on("error", (e) => console.error("map: " + (e.error && e.error.message)))
  map.addSource("tiles", { type: "vector", tiles: [location.origin + config.tiles], minzoom: 0, maxzoom: 15 })
  map.addLayer({ id: "projects-fill", type: "fill", source: "tiles", "source-layer": "projects", paint: { "fill-color": colour, "fill-opacity": 0.35 } })
  map.addLayer({ id: "projects-line", type: "line", source: "tiles", "source-layer": "projects", paint: { "line-color": colour, "line-width": 1.5 } })
  map.addLayer({ id: "projects-points", type: "circle", source: "tiles", "source-layer": "projects_points", paint: {
    "circle-radius": ["interpolate", ["linear"], ["zoom"], 1, 3, 8, 6], "circle-stroke-color": "#fff", "circle-stroke-width": 1, "circle-color": colour } })
  // Where a tile holds more projects than points, the zoom grid's clusters: sized by their
  // projects; a click zooms in on one.
  map.addLayer({ id: "projects-clusters", type: "circle", source: "tiles", "source-layer": "projects_clusters", paint: {
    "circle-radius": ["interpolate", ["linear"], ["get", "count"], 1, 3, 100, 7, 10000, 13], "circle-color": "#2f7d4a",
    "circle-opacity": 0.7, "circle-stroke-color": "#fff", "circle-stroke-width": 1 } })
  map.on("click", "projects-clusters", (e) => map.easeTo({ center: e.lngLat, zoom: map.getZoom() + 2 }))
  pointer("projects-clusters")
  for (const layer of ["projects-fill", "projects-points"]) {
    map.on("click", layer, (e) => {
      const p = e.features[0].properties
      popup(e.lngLat, p.name, config.projectUrl + encodeURIComponent(p.id), [p.status + " · " + p.area_hectares + " ha"])
    })
    pointer(layer)
  }
  try {
    const r = await fetch(config.extent, { credentials: "same-origin", headers: { accept: "application/json" } })
    if (!r.ok) throw new Error("the projects could not be counted (" + r.status + ")")
    const overview = await r.json()
    stats.features = overview.count
    stats.batches = 1
    fit(overview.extent)
    const status = document.getElementById("map-status")
    if (status) status.textContent = overview.count.toLocaleString("en-US") + " project" + (overview.count === 1 ? "" : "s") + " on the map"
  } catch (e) {
    stats.error = String(e.message || e)
    const status = document.getElementById("map-status")
    if (status) status.textContent = "The projects could not be counted: " + stats.error
  }
  firstRender()
  stats.done = true
})
`

const text = (body: string, type: string, cache: string): ApiResponse => ({ status: 200,
  headers: { "content-type": type, "cache-control": cache, "x-content-type-options": "nosniff" }, body })

const fromPackage = (file: string, type: string) => {
  let cached: ApiResponse | undefined
  return async (): Promise<ApiResponse> => {
    cached ??= text(readFileSync(require.resolve(`maplibre-gl/dist/${file}`), "utf8"), type, "public, max-age=86400")
    return cached
  }
}

/** The routes of the static files (`GET /dashboard/static/…`). */
export const staticRoutes = () => {
  const dashboard = text(DASHBOARD_JS, "text/javascript; charset=utf-8", "no-cache")
  const map = text(MAP_JS, "text/javascript; charset=utf-8", "no-cache")
  return {
    "GET /dashboard/static/dashboard.js": async () => dashboard,
    "GET /dashboard/static/map.js": async () => map,
    "GET /dashboard/static/maplibre-gl.mjs": fromPackage("maplibre-gl.mjs", "text/javascript; charset=utf-8"),
    "GET /dashboard/static/maplibre-gl-worker.mjs": fromPackage("maplibre-gl-worker.mjs", "text/javascript; charset=utf-8"),
    "GET /dashboard/static/maplibre-gl.css": fromPackage("maplibre-gl.css", "text/css; charset=utf-8")
  }
}
