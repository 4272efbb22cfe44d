/**
 * The rows of the scale benchmark's table: how each endpoint is asked for, checked and loaded on
 * one size's server (method in bench/scale.ts's header).
 */
import { Geometry } from "@canopy/core"
import type { CursorPlan } from "./cursor.ts"
import { projectGeometry, SEARCH_TERM, thousandVertexPolygon } from "./data.ts"
import type { Facts } from "./facts.ts"
import { fmt } from "./format.ts"
import { call, idle, type Load, load, mergeRefusals, type Single, single } from "./measure.ts"

/** `BENCH_SECONDS` (default 3): how long each req/s load runs. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
/** Connections of each req/s load. */
export const CONNECTIONS = 10
/** The size every other size is compared with. */
export const BASE_SIZE = 1_000

/** One endpoint's figures on one size. */
export interface Figure {
  readonly single?: Single
  readonly load?: Load
  /** Shown instead of figures (e.g. "refused (400 VALIDATION_ERROR)", "n/a"). */
  readonly instead?: string
  readonly notes: Array<string>
}
/** One size's figures, by endpoint label. */
export type Table = Map<string, Figure>

/** One size's running server. */
export interface Target {
  readonly url: string
  readonly token: string
  readonly facts: Facts
  cursor?: CursorPlan
}

let writeCounter = 0
const geometry1000 = JSON.stringify(thousandVertexPolygon(7))
const writeBody = () => `{"name":"Scale write ${++writeCounter}","geometry":${geometry1000}}`

/** Loads run side by side as one: rates, failures and refusals added up. */
const merge = (loads: ReadonlyArray<Load>): Load => {
  const sum = (f: (l: Load) => number) => loads.reduce((a, l) => a + f(l), 0)
  return { rps: sum((l) => l.rps), non2xx: sum((l) => l.non2xx), errors: sum((l) => l.errors), refused: mergeRefusals(loads.map((l) => l.refused)) }
}

/**
 * How one endpoint is measured on one size: `prepare` once (a refusal of the first request is
 * shown instead of figures), then `round`s of sequential single requests — taken in turns with the
 * other sizes, so a machine that slows down for a while skews every size alike — then `load`.
 */
export interface Endpoint {
  readonly prepare: (t: Target) => Promise<{ readonly instead?: string; readonly notes: Array<string> }>
  readonly round: (t: Target, share: number) => Promise<Single>
  readonly load: (t: Target) => Promise<Load>
}

/** Rounds of single requests per endpoint (each size's samples split between them). */
export const ROUNDS = 4

/** A read endpoint: its first answer checked, sequential p50, then req/s. */
const read = (path: (t: Target, i: number) => string | undefined, check?: (t: Target, body: string) => string | undefined): Endpoint => ({
  prepare: async (t) => {
    const notes: Array<string> = []
    const first = path(t, 0)
    if (first === undefined) return { instead: "n/a", notes }
    const a = await call(`${t.url}${first}`, { token: t.token })
    if (a.status >= 400) {
      let code = ""
      try {
        code = ` ${(JSON.parse(a.body) as { error: { code: string } }).error.code}`
      } catch { /* no code */ }
      return { instead: `refused (${a.status}${code})`, notes }
    }
    const extra = check?.(t, a.body)
    if (extra) notes.push(extra)
    return { notes }
  },
  round: (t, share) => single((i) => ({ url: `${t.url}${path(t, i)!}`, token: t.token }), { max: 200 / share, budgetMs: 5_000 / share }),
  load: (t) => load(t.url, { seconds: SECONDS, connections: CONNECTIONS, token: t.token, requests: [{ path: (i) => path(t, i)! }] })
})

/** Checks `meta.total`: exact, or — where the server says it stopped counting — at most the true count. */
const total = (expected: (n: number) => number) => (t: Target, body: string) => {
  const meta = (JSON.parse(body) as { meta?: { total?: number; total_exact?: boolean } }).meta
  const got = meta?.total
  const want = expected(t.facts.count)
  if (meta?.total_exact === false && got !== undefined && got <= want) return `meta.total ≥ ${fmt(got)} (counting capped; true ${fmt(want)})`
  return got === want ? undefined : `meta.total ${got === undefined ? "absent" : fmt(got)}, expected ${fmt(want)}`
}

/** Writes: 1,000-vertex polygons; p50 over up to 100 sequential creates, then writes/s. */
const create: Endpoint = {
  prepare: () => Promise.resolve({ notes: [] }),
  round: (t, share) =>
    single(() => ({ url: `${t.url}/v1/projects`, method: "POST", token: t.token, body: writeBody() }), { max: 100 / share, budgetMs: 10_000 / share,
      warmup: 5 }),
  load: (t) =>
    load(t.url, { seconds: SECONDS, connections: CONNECTIONS, token: t.token, requests: [{ method: "POST", path: () =>
      "/v1/projects", body: () => writeBody() }] })
}

/** Archive ⇄ restore: one project alternating sequentially, then one project per connection. */
const ensureActive = async (t: Target, id: string) => {
  const a = await call(`${t.url}/v1/projects/${id}`, { token: t.token })
  if ((JSON.parse(a.body) as { status?: string }).status === "archived") await call(`${t.url}/v1/projects/${id}/restore`, { method: "POST", token: t.token })
}
const archive: Endpoint = {
  prepare: () => Promise.resolve({ notes: [] }),
  round: async (t, share) => {
    const one = t.facts.active[0]!
    let k = 0
    const s = await single(() => ({ url: `${t.url}/v1/projects/${one}/${k++ % 2 === 0 ? "archive" : "restore"}`, method: "POST", token: t.token }), {
      max: 200 / share,
      budgetMs: 5_000 / share
    })
    await ensureActive(t, one)
    return s
  },
  load: async (t) => {
    const perConnection = t.facts.active.slice(1)
    const loads = await Promise.all(perConnection.slice(0, CONNECTIONS).map((id) =>
      load(t.url, {
        seconds: SECONDS,
        connections: 1,
        token: t.token,
        requests: [{ method: "POST", path: () => `/v1/projects/${id}/archive` }, { method: "POST", path: () => `/v1/projects/${id}/restore` }]
      })
    ))
    await idle(t.url)
    for (const id of perConnection) await ensureActive(t, id)
    return merge(loads)
  }
}

const CURSOR = "cursor page at n/2, per_page=100"

/** A 5°×3° corner of the Amazon region of the generated data (one region in six): ~1% of projects. */
const AMAZON_CORNER = [-70, -12, -65, -9] as const

/**
 * Vector tiles at zooms 4–14 (request i: zoom 4 + i mod 11) over the centre of base project
 * i mod 1,000 — where its replicas stack at every size past 1,000 — so tiles of every density are
 * asked for; and every tile at zooms 4–8 meeting the densest region of the data (the Pacific
 * Northwest: a sixth of the projects on 4° × 7°), where a tile holds thousands. Prepare notes the
 * largest tile and how many of each mode (`X-Tile-Mode`) among the first ones; the table adds
 * each size's p99.
 */
const TILE_ZOOMS = 11
const tileAt = (lon: number, latDeg: number, z: number) => {
  const n = 2 ** z
  const lat = latDeg * Math.PI / 180
  return [Math.floor(((lon + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan(lat) + 1 / Math.cos(lat)) / Math.PI) / 2) * n)] as const
}
const tilePath = (i: number) => {
  const [x0, y0, x1, y1] = Geometry.bbox(projectGeometry(i % BASE_SIZE) as Geometry.Boundary)
  const z = 4 + (i % TILE_ZOOMS)
  const [x, y] = tileAt((x0 + x1) / 2, (y0 + y1) / 2, z)
  return `/v1/tiles/${z}/${x}/${y}.mvt`
}
/** The Pacific Northwest region of bench/scale/data.ts, `[west, south, east, north]`. */
const DENSE_REGION = [-124, 42, -120, 49] as const
const DENSE_TILES = [4, 5, 6, 7, 8].flatMap((z) => {
  const [xw, yn] = tileAt(DENSE_REGION[0], DENSE_REGION[3], z)
  const [xe, ys] = tileAt(DENSE_REGION[2], DENSE_REGION[1], z)
  const out: Array<string> = []
  for (let x = xw; x <= xe; x++) for (let y = yn; y <= ys; y++) out.push(`/v1/tiles/${z}/${x}/${y}.mvt`)
  return out
})
const tileEndpoint = (path: (i: number) => string, first: number): Endpoint => ({
  ...read((_, i) => path(i)),
  prepare: async (t) => {
    let largest = 0
    const modes = new Map<string, number>()
    for (let i = 0; i < first; i++) {
      const a = await call(`${t.url}${path(i)}`, { token: t.token })
      if (a.status !== 200) return { instead: `refused (${a.status})`, notes: [] }
      largest = Math.max(largest, a.bytes)
      const mode = String(a.headers?.["x-tile-mode"])
      modes.set(mode, (modes.get(mode) ?? 0) + 1)
    }
    return { notes: [`largest tile ${fmt(largest / 1024, 1)} KiB`, [...modes].map(([m, k]) => `${k} ${m}`).join(", ")] }
  }
})
const tiles = tileEndpoint(tilePath, 10 * TILE_ZOOMS)
const denseTiles = tileEndpoint((i) => DENSE_TILES[i % DENSE_TILES.length]!, DENSE_TILES.length)
/** The labels of the tile rows (the table adds their p99). */
export const TILES = "tile z4–14 over stacked projects"
export const DENSE = `tile z4–8 over the dense region (${DENSE_TILES.length})`

/** Every endpoint of the table, in order. */
export const endpoints: ReadonlyArray<readonly [string, Endpoint]> = [
  ["GET /v1/projects/{id}", read((t, i) => `/v1/projects/${t.facts.ids[i % t.facts.ids.length]}`)],
  ["list page 1 (default sort)", read(() => "/v1/projects", total((n) => n))],
  ["sort=area_hectares&order=desc", read(() => "/v1/projects?sort=area_hectares&order=desc", total((n) => n))],
  [`search=${SEARCH_TERM} (1% of names)`, read(() => `/v1/projects?search=${SEARCH_TERM}`, total((n) => n / 100))],
  // Boxes through the spatial index: a 5°×3° corner of the Amazon region (~1% of projects), and
  // base project 1's own box (its replicas: 0.1% of projects at every size, found by the index).
  ["bbox=Amazon corner (~1%)", read(() => `/v1/projects?bbox=${AMAZON_CORNER.join(",")}`)],
  ["bbox=one project's box (0.1%)", read(() => `/v1/projects?bbox=${Geometry.bbox(projectGeometry(1) as Geometry.Boundary).join(",")}`)],
  ["page at offset n/2, per_page=100", read((t) => `/v1/projects?page=${Math.floor(t.facts.count / 2 / 100) + 1}&per_page=100`)],
  [CURSOR, {
    ...read((t) => (t.cursor!.kind === "none" ? undefined : t.cursor!.path)),
    prepare: async (t) => {
      const plan = t.cursor!
      if (plan.kind === "none") return { instead: "n/a", notes: [plan.note] }
      const f = await read(() => plan.path).prepare(t)
      return { ...f, notes: [...f.notes, plan.kind === "next" ? plan.note : `${plan.how}${plan.verified ? ", position checked" : ", POSITION NOT CONFIRMED"}`] }
    }
  }],
  ["GET /v1/account/usage", read(() => "/v1/account/usage")],
  [TILES, tiles],
  [DENSE, denseTiles],
  ["POST /v1/projects (1,000 vertices)", create],
  ["POST …/archive ⇄ …/restore", archive]
]

/** `BENCH_ENDPOINTS` (a case-insensitive substring of the rows' labels, e.g. `tile`): only those rows, and no stars. */
export const ENDPOINTS = process.env.BENCH_ENDPOINTS?.toLowerCase()
/** Whether the row `label` is measured. */
export const chosen = (label: string) => ENDPOINTS === undefined || label.toLowerCase().includes(ENDPOINTS)
