/**
 * Estate benchmark (`npm run bench -- estate`): the realistic layout of overlapping boundaries.
 * An estate of 500 stands (a 25 × 20 grid of ~220 m squares, each side digitised with 8 segments;
 * neighbours share their edges position for position, so they touch but share no area) is created
 * stand by stand over HTTP, then its outline (the estate's outer boundary, the same positions:
 * it overlaps all 500), then 100 stands are redrawn (their boundary replaced) with the outline in
 * place. Every write compares its boundary with the stored ones it meets. Figures per store
 * (SQLite, then embedded PostgreSQL; `BENCH_ESTATE_STORES=sqlite` for SQLite alone):
 *
 * - a stand's create: p50 / p99 (goal p50 ≤ 50 ms), and its overlap report (none, complete);
 * - the outline's create: time (goal ≤ 1 s) and report (500 overlaps, complete, their hectares
 *   adding up to the estate's area);
 * - a stand's redraw with the outline stored: p50 / p99, report (the outline, complete).
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { Geometry } from "@canopy/core"
import { mkdtempSync, rmSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { startEmbeddedPostgres } from "../packages/adapter-postgres/test/embedded.ts"
import { type RunningServer, serve } from "../packages/server/src/index.ts"
import { estateGrid } from "../packages/server/test/estateGrid.ts"

const COLUMNS = 25
const ROWS = 20
/** Segments per stand side. */
const SEGMENTS = 8
/** A stand's side in degrees of longitude and latitude (~220 m at 60° N). */
const DX = 0.004
const DY = 0.002
const LON = 15
const LAT = 60

const grid = estateGrid({ lon: LON, lat: LAT, dx: DX, dy: DY, segments: SEGMENTS })
const stand = grid.stand
const outline = grid.outline(COLUMNS, ROWS)

interface Report {
  readonly overlaps: ReadonlyArray<{ readonly project_id: string; readonly overlap_hectares: number }>
  readonly complete: boolean
}

const send = async (url: string, token: string, method: string, path: string, body: unknown) => {
  const t0 = performance.now()
  const r = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) })
  const json = await r.json() as { data?: { id: string; overlaps?: Report }; error?: unknown }
  const ms = performance.now() - t0
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json.error)}`)
  return { ms, id: json.data!.id, report: json.data!.overlaps! }
}

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!
}

const estate = async (label: string, running: RunningServer) => {
  const { api_key } = await running.canopy.bootstrap({ account_name: "Estate", email: "forester@example.com", plan: "enterprise" })
  const token = api_key.token
  const ids: Array<string> = []
  const standMs: Array<number> = []
  let standsComplete = true
  let standsOverlapping = 0
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLUMNS; c++) {
      const created = await send(running.url, token, "POST", "/v1/projects", { name: `Stand ${r}-${c}`, geometry: stand(c, r) })
      ids.push(created.id)
      standMs.push(created.ms)
      standsComplete &&= created.report.complete
      if (created.report.overlaps.length > 0) standsOverlapping++
    }
  }
  const whole = await send(running.url, token, "POST", "/v1/projects", { name: "Estate outline", geometry: outline })
  const shared = whole.report.overlaps.reduce((sum, o) => sum + o.overlap_hectares, 0)
  const redrawMs: Array<number> = []
  let redrawsComplete = true
  let redrawsWithOutline = 0
  for (let k = 0; k < 100; k++) {
    const c = (k * 7) % COLUMNS, r = (k * 3) % ROWS
    // The same square, its positions listed from another corner: a new text, the same shape.
    const ring = stand(c, r).coordinates[0]!
    const turned = [...ring.slice(SEGMENTS, -1), ...ring.slice(0, SEGMENTS + 1)]
    const redrawn = await send(running.url, token, "PUT", `/v1/projects/${ids[r * COLUMNS + c]}`, { geometry: { type: "Polygon", coordinates: [turned] } })
    redrawMs.push(redrawn.ms)
    redrawsComplete &&= redrawn.report.complete
    if (redrawn.report.overlaps.some((o) => o.project_id === whole.id)) redrawsWithOutline++
  }
  const f = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`
  console.log(`estate: ${label}`)
  console.log(
    `  stand create (500)          p50 ${f(percentile(standMs, 0.5))}  p99 ${
      f(percentile(standMs, 0.99))
    }  (goal p50 ≤ 50 ms)  reports complete: ${standsComplete}, with overlaps: ${standsOverlapping}`
  )
  console.log(
    `  outline create              ${f(whole.ms)}  (goal ≤ 1000 ms)  overlaps ${whole.report.overlaps.length} of 500, complete: ${whole.report.complete}`
  )
  console.log(`    shared hectares summed ${shared.toFixed(4)} ha, the outline's area ${Geometry.roundHectares(Geometry.areaHectares(outline)).toFixed(4)} ha`)
  console.log(
    `  stand redraw, outline stored p50 ${f(percentile(redrawMs, 0.5))}  p99 ${
      f(percentile(redrawMs, 0.99))
    }  reports complete: ${redrawsComplete}, listing the outline: ${redrawsWithOutline} of 100`
  )
}

export const run = async () => {
  const stores = (process.env.BENCH_ESTATE_STORES ?? "sqlite,postgres").split(",")
  if (stores.includes("sqlite")) {
    const dir = mkdtempSync(join(tmpdir(), "canopy-estate-"))
    const running = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "canopy.db"), log: false, dispatcher: false })
    try {
      await estate(`SQLite (${availableParallelism()} cores)`, running)
    } finally {
      await running.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  if (stores.includes("postgres")) {
    const pg = await startEmbeddedPostgres()
    const running = await serve({ port: 0, host: "127.0.0.1", storage: postgresStorage({ url: pg.url }), log: false, dispatcher: false })
    try {
      await estate(`PostgreSQL, embedded (${availableParallelism()} cores)`, running)
    } finally {
      await running.close()
      await pg.stop()
    }
  }
}
