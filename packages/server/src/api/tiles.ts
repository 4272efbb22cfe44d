/**
 * Vector tiles of an account's projects (docs/decisions.md, "Vector tiles"): one Mapbox Vector
 * Tile per z/x/y, with a `projects` layer (each boundary clipped to the tile and simplified for
 * its zoom); where the tile would hold too many, a `projects_points` layer (the centres of the
 * largest projects' boxes); and where it would hold more than a points tile, a `projects_clusters`
 * layer (the zoom grid's cells with their projects, counted by the store with every write). The
 * grid's cells under the tile decide: at most 32 × 32 of them are read, so a dense region costs
 * what its cells do, not its projects. Otherwise candidates come from the project list's `bbox`
 * filter (the spatial index) without their boundaries' text, so a tile costs what it shows. The
 * ETag is a digest of what was read (the candidates' ids and `updated_at`, or the cells' counts),
 * so a write changing the tile changes it and a revalidation (`If-None-Match`) is answered before
 * any boundary is read.
 */
import { Principal, Projects, RawJson, TileGrid, type Canopy, type Schemas, type Storage } from "@canopy/core"
import { geoJSONToTile, type GeoJSONVTTile } from "@maplibre/geojson-vt"
import { fromGeojsonVt } from "@maplibre/vt-pbf"
import { Cause, Effect, Exit } from "effect"
import { createHash } from "node:crypto"
import type { ApiRequest, ApiResponse } from "../http/handler.ts"
import { BadRequest } from "../http/input.ts"
import type { FileAnswer } from "./gis.ts"

/** The tiles' media type. */
export const MVT_MEDIA_TYPE = "application/vnd.mapbox-vector-tile"

/** Highest zoom served. */
export const MAX_ZOOM = 22

/** Most projects a tile draws as boundaries; past it the tile holds points. */
export const MAX_BOUNDARIES = 200

/**
 * Most characters of boundary text a tile draws (about 25,000 positions): the boundaries past it
 * (largest first) are drawn as points in the same tile.
 */
export const MAX_BOUNDARY_TEXT = 1024 * 1024

/** Most points a fallback tile holds: the largest projects of the tile first. Past it the tile holds clusters. */
export const MAX_POINTS = 500

/** The tile's grid, in tile units, and the margin read and drawn around it (as MapLibre's own sources). */
const EXTENT = 4096
const BUFFER = 64

/** Candidates read per page of the list (its largest page). */
const PAGE = 100

/** Boundaries read at once. */
const READ_CONCURRENCY = 4

/** Part of every ETag: a change of what a tile holds or how it is drawn changes every ETag. */
const FORMAT = "tiles-2"

/** A tile's coordinates, checked. */
export interface TileAddress {
  readonly z: number
  readonly x: number
  readonly y: number
}

/** `{z}/{x}/{y}` as given (`y` may end in `.mvt`): integers in range, else a 400 naming the parameter. */
export const parseAddress = (params: Readonly<Record<string, string | undefined>>): Effect.Effect<TileAddress, BadRequest> => {
  const integer = (raw: string | undefined) => (raw !== undefined && /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN)
  const z = integer(params.z)
  if (!(z >= 0 && z <= MAX_ZOOM)) return Effect.fail(invalid("z", `must be an integer from 0 to ${MAX_ZOOM}`))
  const size = 2 ** z
  const x = integer(params.x)
  if (!(x >= 0 && x < size)) return Effect.fail(invalid("x", `must be an integer from 0 to ${size - 1} at zoom ${z}`))
  const y = integer(params.y?.replace(/\.mvt$/, ""))
  if (!(y >= 0 && y < size)) return Effect.fail(invalid("y", `must be an integer from 0 to ${size - 1} at zoom ${z}`))
  return Effect.succeed({ z, x, y })
}

const invalid = (name: string, message: string) => new BadRequest(`Invalid tile address: ${name} ${message}`, [{ field: `path.${name}`, message }])

const lonOf = (x: number, z: number) => (x / 2 ** z) * 360 - 180
const latOf = (y: number, z: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI

/** The tile's box in degrees (`west,south,east,north`), widened by its buffer. */
export const tileBox = ({ x, y, z }: TileAddress): readonly [number, number, number, number] => {
  const margin = BUFFER / EXTENT
  const clampLat = (lat: number) => Math.max(-90, Math.min(90, lat))
  return [
    Math.max(-180, lonOf(x - margin, z)),
    clampLat(latOf(y + 1 + margin, z)),
    Math.min(180, lonOf(x + 1 + margin, z)),
    clampLat(latOf(y - margin, z))
  ]
}

/** What a tile shows: its projects as boundaries, as points (too many, or too heavy), or as clusters (more). */
export type TileMode = "boundaries" | "points" | "clusters"

/** A tile: its ETag and, read only when pulled, its bytes. */
export interface Tile {
  readonly etag: string
  readonly mode: TileMode
  readonly projects: number
  /** Reads the boundaries (boundaries mode) and encodes the tile. */
  readonly bytes: Effect.Effect<Uint8Array, unknown, Canopy.Services>
}

/** A candidate with its boundary's text, when it was read. */
interface Read {
  readonly row: Schemas.Project
  readonly raw: string | undefined
}

const properties = (p: Schemas.Project) => ({ id: p.id, name: p.name, status: p.status, area_hectares: p.area_hectares })

const digest = (address: TileAddress, mode: TileMode, lines: ReadonlyArray<string>) => {
  const h = createHash("sha256").update(`${FORMAT}/${address.z}/${address.x}/${address.y}/${mode}`)
  for (const line of lines) h.update(`\n${line}`)
  return `"${h.digest("base64url").slice(0, 32)}"`
}

const versions = (rows: ReadonlyArray<Schemas.Project>) => rows.map((p) => `${p.id} ${p.updated_at}`)

const encode = (layers: Record<string, GeoJSON.FeatureCollection>, { x, y, z }: TileAddress): Uint8Array => {
  const tiles: Record<string, GeoJSONVTTile> = {}
  for (const [name, collection] of Object.entries(layers)) {
    if (collection.features.length === 0) continue
    const tile = geoJSONToTile(collection, z, x, y, { extent: EXTENT, buffer: BUFFER, clip: true, maxZoom: MAX_ZOOM, tolerance: 3 })
    if (tile && tile.features.length > 0) tiles[name] = tile
  }
  return fromGeojsonVt(tiles, { version: 2, extent: EXTENT })
}

/** The fallback: each project as its box's centre (a cluster of one). */
const pointsOf = (rows: ReadonlyArray<Schemas.Project>): GeoJSON.FeatureCollection => ({
  type: "FeatureCollection",
  features: rows.flatMap((p) => {
    const b = p.bbox
    return b
      ? [{ type: "Feature" as const, properties: { ...properties(p), count: 1 },
        geometry: { type: "Point" as const, coordinates: [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] } }] : []
  })
})

/**
 * The dense fallback: each cell of the zoom grid as a point at its centre, with its projects and
 * hectares, placed in tile units directly (no clipping or simplification to do).
 */
const encodeClusters = (level: number, cells: ReadonlyArray<Storage.ZoomCell>, address: TileAddress): Uint8Array => {
  const features = cells.map((c) => ({
    type: 1 as const,
    tags: { count: c.projects, area_hectares: Math.round(c.hectares * 100) / 100 },
    geometry: [TileGrid.cellInTile(level, c.cell, address, EXTENT) as [number, number]]
  }))
  return fromGeojsonVt({ projects_clusters: { ...address, transformed: true, features, source: null } }, { version: 2, extent: EXTENT })
}

/**
 * The tile of `address` for the principal's account: permission first (`projects:read`), then the
 * zoom grid's cells under it (at most 32 × 32); past `MAX_POINTS` projects under it, those cells
 * are the tile; otherwise at most `MAX_POINTS` candidates from the spatial index, largest first,
 * without boundary text.
 */
export const tile = (principal: Principal.Principal, address: TileAddress): Effect.Effect<Tile, unknown, Canopy.Services> =>
  Effect.gen(function*() {
    yield* Principal.authorize(principal, "projects.list")
    const projects = yield* Projects
    const { level, cells } = yield* projects.zoomCells(principal, address)
    const under = cells.reduce((n, c) => n + c.projects, 0)
    // The cells lie within the tile while their level is finer than its zoom (every zoom to 18).
    if (level > address.z && under > MAX_POINTS) {
      return {
        etag: digest(address, "clusters", cells.map((c) => `${c.cell} ${c.projects} ${c.hectares}`)),
        mode: "clusters",
        projects: under,
        bytes: Effect.sync(() => encodeClusters(level, cells, address))
      } satisfies Tile
    }
    const bbox = tileBox(address).join(",")
    const rows: Array<Schemas.Project> = []
    let cursor: string | undefined
    // The first page's count (capped by the store, from the spatial index) decides what is read.
    let wanted = MAX_POINTS
    do {
      const page = yield* projects.list(principal, {
        bbox,
        sort: "area_hectares",
        order: "desc",
        per_page: String(PAGE),
        ...(cursor ? { cursor } : {})
      }, { boundaries: false })
      if (rows.length === 0 && page.meta.total_exact && page.meta.total <= MAX_BOUNDARIES) wanted = MAX_BOUNDARIES + 1
      rows.push(...page.data)
      cursor = page.meta.next_cursor ?? undefined
    } while (cursor && rows.length < wanted)
    if (rows.length > MAX_BOUNDARIES) {
      return {
        etag: digest(address, "points", versions(rows)),
        mode: "points",
        projects: rows.length,
        bytes: Effect.sync(() => encode({ projects_points: pointsOf(rows) }, address))
      } satisfies Tile
    }
    return {
      etag: digest(address, "boundaries", versions(rows)),
      mode: "boundaries",
      projects: rows.length,
      bytes: Effect.gen(function*() {
        // Boundaries are read in the candidates' order (largest first), a few at once, until the text
        // read passes twice the cap; which are read, and so drawn, depends on the rows alone (the ETag holds).
        let text = 0
        const read: Array<Read | undefined> = []
        for (let i = 0; i < rows.length; i += READ_CONCURRENCY) {
          const batch = rows.slice(i, i + READ_CONCURRENCY)
          if (text > 2 * MAX_BOUNDARY_TEXT) {
            read.push(...batch.map((row) => ({ row, raw: undefined })))
            continue
          }
          const part = yield* Effect.forEach(batch, (p) =>
            Effect.map(Effect.catchTag(projects.get(principal, p.id), "NotFound", () => Effect.succeed(undefined)), (full): Read | undefined => {
              const g = full?.geometry
              if (!full || !g) return undefined
              const raw = g instanceof RawJson.RawJson ? g.text : JSON.stringify(g)
              text += raw.length
              return { row: full, raw }
            }), { concurrency: READ_CONCURRENCY })
          read.push(...part)
        }
        // Drawn while their text fits the cap; the others (too heavy, or not read) as points.
        const drawn: Array<GeoJSON.Feature> = []
        const heavy: Array<Schemas.Project> = []
        let parsed = 0
        for (const r of read) {
          if (!r) continue
          if (r.raw !== undefined && parsed + r.raw.length <= MAX_BOUNDARY_TEXT) {
            parsed += r.raw.length
            drawn.push({ type: "Feature", properties: properties(r.row), geometry: JSON.parse(r.raw) as GeoJSON.Geometry })
          } else heavy.push(r.row)
        }
        return encode({ projects: { type: "FeatureCollection", features: drawn }, projects_points: pointsOf(heavy) }, address)
      })
    }
  })

/** The tile as an API file answer: its bytes are read and encoded only when the answer is written (not for a 304). */
export const tileAnswer = (principal: Principal.Principal, params: Readonly<Record<string, string>>): Effect.Effect<FileAnswer, unknown, Canopy.Services> =>
  Effect.gen(function*() {
    const address = yield* parseAddress(params)
    const t = yield* tile(principal, address)
    return {
      contentType: MVT_MEDIA_TYPE,
      filename: `${address.z}-${address.x}-${address.y}.mvt`,
      headers: tileHeaders(t),
      stream: (run) =>
        (async function*() {
          yield await run(t.bytes)
        })()
    }
  })

/** A tile answer's caching headers: revalidated on each use (`no-cache`), by its ETag. */
export const tileHeaders = (t: Tile): Record<string, string> => ({
  etag: t.etag,
  "cache-control": "private, no-cache",
  vary: "authorization, cookie",
  "x-tile-mode": t.mode
})

/** Runs an effect with the server's runtime (the dashboard's `run`). */
export type RunExit = <A, E>(effect: Effect.Effect<A, E, Canopy.Services>) => Promise<Exit.Exit<A, E>>

const NO_STORE = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" }

/**
 * The dashboard's tile (`/dashboard/map/tile?z=&x=&y=`, the session's member): the API route's
 * tile, its ETag and 304; a bad address or a refusal is a small JSON error for the map.
 */
export const dashboardTile = async (req: ApiRequest, principal: Principal.Principal, run: RunExit): Promise<ApiResponse> => {
  const params = { z: req.query.get("z") ?? undefined, x: req.query.get("x") ?? undefined, y: req.query.get("y") ?? undefined }
  const found = await run(Effect.flatMap(parseAddress(params), (address) => tile(principal, address)))
  if (Exit.isFailure(found)) {
    const e = Cause.findErrorOption(found.cause)
    const bad = e._tag === "Some" && e.value instanceof BadRequest
    return { status: bad ? 400 : 500, headers: NO_STORE,
      body: JSON.stringify({ error: bad ? (e.value as BadRequest).message : "The tile could not be drawn." }) }
  }
  const t = found.value
  const headers = tileHeaders(t)
  if (req.headers["if-none-match"]?.split(",").some((v) => v.trim() === t.etag)) return { status: 304, headers, body: undefined }
  const bytes = await run(t.bytes)
  if (Exit.isFailure(bytes)) return { status: 500, headers: NO_STORE, body: JSON.stringify({ error: "The tile could not be drawn." }) }
  return { status: 200, headers: { ...headers, "content-type": MVT_MEDIA_TYPE }, body: undefined, chunks: [bytes.value] }
}

// ---------------------------------------------------------------------------------------------
// The OpenAPI document's parts for the tile route (api/openapi.ts).

/** The tile route's `If-None-Match` parameter. */
export const openapiParameters = [{
  name: "If-None-Match",
  in: "header",
  required: false,
  schema: { type: "string" },
  description: "The `ETag` of a copy held: answered 304 without a body while it is current"
}]

/** The tile route's answers: the tile (200), 304 when the copy held is current, 400 for an address out of range. */
export const openapiResponses = (commonHeaders: Record<string, unknown>) => {
  const etag = { ETag: { description: "Changes with any write to a project of the tile", schema: { type: "string" } } }
  return {
    "200": {
      description: "The tile (without layers when no project meets it)",
      headers: {
        ...commonHeaders,
        ...etag,
        "X-Tile-Mode": {
          description: "`boundaries` (the `projects` layer), `points` (the `projects_points` layer) or `clusters` (the `projects_clusters` layer)",
          schema: { type: "string", enum: ["boundaries", "points", "clusters"] }
        }
      },
      content: { [MVT_MEDIA_TYPE]: { schema: { type: "string", contentMediaType: MVT_MEDIA_TYPE } } }
    },
    "304": { description: "Not modified: the copy of the `If-None-Match` ETag is current", headers: { ...commonHeaders, ...etag } },
    "400": { $ref: "#/components/responses/BadRequest" }
  }
}
