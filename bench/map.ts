/**
 * Overview map benchmark (`npm run bench -- map`; loopback only, stops by itself, never gates CI):
 * the dashboard's overview map (`/dashboard/map`, MapLibre drawing the account's vector tiles from
 * `/dashboard/map/tile`) in headless Chromium, signed in as an owner of an account with 1,000
 * projects (the baseline) and with 100,000 — `BENCH_MAP_SIZE` names other sizes, comma-separated
 * (e.g. `1000` for a quick check, `100000,1000000`).
 *
 * Data: the scale benchmark's (bench/scale/seed.ts: 1,000 projects through the library, then SQL
 * replicas stacked on them; method in bench/scale.ts's header), plus a second owner with a password
 * (invited and accepted through the library as the page tests do, then given the owner role). Each
 * size is served from its own copy of the SQLite file by its own packaged server
 * (bench/servers/canopy.ts), all at once.
 *
 * After one uncounted round per size (warming the server's code), each round (`BENCH_MAP_ROUNDS`,
 * default 3; the sizes in turn, the order reversed every other round) opens a fresh browser context
 * (cold caches, MapLibre's files included) already signed in, and:
 * 1. first render: navigation start → the first `idle` of the map after it has been fitted to the
 *    extent of the largest projects (one request, `/dashboard/map/extent.json`, which also gives the
 *    count; the page's own `window.canopyMapStats.firstRenderMs`), with the tiles requested before
 *    it; then waits until the page is done and the map is idle (`BENCH_MAP_TIMEOUT` seconds at most,
 *    default 900);
 * 2. three views, each with the tile source added anew under a new URL (so no tile comes from a
 *    cache): a dense region (the Pacific Northwest region of the data: a sixth of the projects),
 *    zoom 12 over a base project and its stacked replicas, and the world (zoom 1); time from the
 *    camera move to the map's next `idle`, with the tile source loaded.
 * Per step: tile requests (and distinct tiles), their bytes (total and largest), the server's time per tile (request
 * sent → first byte of the answer, as Chromium times it) and how many tiles hold points instead of
 * boundaries. Figures are the medians of the rounds, each with its ratio to the 1,000-project figure.
 */
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { createCanopy, Geometry, Principal } from "@canopy/core"
import { statSync } from "node:fs"
import { join } from "node:path"
import type { Browser, BrowserContext, Page, Request } from "playwright-core"
import { launchChromium, resolveChromium } from "@canopy/server/testing/browser"
import { projectGeometry } from "./scale/data.ts"
import { fmt, ms, say } from "./scale/format.ts"
import { big } from "./scale/seed.ts"
import { inScratchDir, type Server, startServer, stopServer } from "./scale/servers.ts"
import { growSqlite, seedSqlite } from "./scale/sqliteFiles.ts"

const BASE_SIZE = 1_000
const SIZES = (process.env.BENCH_MAP_SIZE ?? "100000").split(",").map((s) => Number(s.trim())).filter((n) => n > 0)
const ROUNDS = Number(process.env.BENCH_MAP_ROUNDS ?? 3)
/** Seconds to wait for the page's count and extent (one request: 10 list pages of 100). */
const LOAD_TIMEOUT_S = Number(process.env.BENCH_MAP_TIMEOUT ?? 900)
const OWNER = { email: "map-owner@example.com", password: "map owner password!" }

const ratio = (x: number, base: number | undefined) => (base === undefined ? "base" : base === 0 ? "—" : `${(x / base).toFixed(2)}×`)
const median = (xs: ReadonlyArray<number>) => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

// ── the steps ────────────────────────────────────────────────────────────────────────────────

/** A camera: bounds to fit, or a centre and zoom. */
type Camera = { readonly bounds: readonly [number, number, number, number] } | { readonly center: readonly [number, number]; readonly zoom: number }

const stackedCentre = (() => {
  const [x0, y0, x1, y1] = Geometry.bbox(projectGeometry(0) as Geometry.Boundary)
  return [(x0 + x1) / 2, (y0 + y1) / 2] as const
})()

/** The views after the first render. */
const VIEWS: ReadonlyArray<readonly [string, Camera]> = [
  ["dense region (Pacific NW, 1/6)", { bounds: [-124, 42, -120, 49] }],
  ["zoom 12 over stacked projects", { center: stackedCentre, zoom: 12 }],
  ["world (zoom 1)", { center: [0, 20], zoom: 1 }]
]
const FIRST = "first render (navigation → idle)"

interface TileLog {
  readonly url: string
  readonly start: number
  readonly serverMs: number
  readonly bytes: number
  readonly points: boolean
  readonly status: number
}

/** One step's figures in one round. */
interface Step {
  readonly ms: number
  readonly tiles: ReadonlyArray<TileLog>
}

/** One round on one size: the steps by label, and how long the page took to be done (count and extent loaded). */
interface Round {
  readonly steps: Map<string, Step>
  readonly doneMs: number
  readonly features: number
  readonly requests: number
  /** Milliseconds after navigation: MapLibre's script received, the extent asked for and received, the first tile requested. */
  readonly timeline: { readonly maplibre: number; readonly extentAsked: number; readonly extentReceived: number; readonly firstTile: number }
}

/** Records every finished tile request of the page (MapLibre's worker's requests included). */
const recordTiles = (page: Page) => {
  const pending: Array<Promise<TileLog>> = []
  const onFinished = (r: Request) => {
    if (!r.url().includes("/dashboard/map/tile")) return
    pending.push((async () => {
      const t = r.timing()
      const response = await r.response()
      const sizes = await r.sizes()
      return {
        url: r.url().replace(/&view=\d+$/, ""),
        start: t.startTime,
        serverMs: t.responseStart - t.requestStart,
        bytes: sizes.responseBodySize,
        points: (await response?.headerValue("x-tile-mode")) === "points",
        status: response?.status() ?? 0
      }
    })())
  }
  page.on("requestfinished", onFinished)
  return { all: () => Promise.all(pending) }
}

/** The page's clock as epoch milliseconds (Playwright's request times are epoch milliseconds). */
const epochNow = (page: Page) => page.evaluate(() => performance.timeOrigin + performance.now())

/** Moves the camera with the tile source added anew under a new URL; resolves with the time to the next idle. */
const moveTo = (page: Page, camera: Camera, k: number) =>
  page.evaluate(async ({ camera, k }) => {
    type MapLike = {
      getStyle: () => { layers: Array<{ id: string; source?: string }>; sources: Record<string, object> }
      removeLayer: (id: string) => void
      removeSource: (id: string) => void
      addSource: (id: string, source: object) => void
      addLayer: (layer: object) => void
      once: (e: string, f: () => void) => void
      jumpTo: (c: unknown) => void
      fitBounds: (b: unknown, o: unknown) => void
      isSourceLoaded: (id: string) => boolean
    }
    const map = (globalThis as unknown as { canopyMap: MapLike }).canopyMap
    const page = globalThis as unknown as { document: { getElementById: (id: string) => { textContent: string } }; location: { origin: string } }
    const config = JSON.parse(page.document.getElementById("map-config").textContent) as { tiles: string }
    // A source of the same layers under a new URL: no tile comes from MapLibre's cache or the browser's.
    const t0 = performance.now()
    const style = map.getStyle()
    const layers = style.layers.filter((l) => l.source === "tiles")
    for (const l of layers) map.removeLayer(l.id)
    map.removeSource("tiles")
    if ("bounds" in camera) {
      const [w, s, e, n] = camera.bounds
      map.fitBounds([[w, s], [e, n]], { animate: false, padding: 0 })
    } else map.jumpTo({ center: camera.center, zoom: camera.zoom })
    const idle = new Promise<void>((resolve) => map.once("idle", resolve))
    map.addSource("tiles", { ...style.sources.tiles, tiles: [`${page.location.origin}${config.tiles}&view=${k}`] })
    for (const l of layers) map.addLayer(l)
    await idle
    return { ms: performance.now() - t0, end: performance.timeOrigin + performance.now(), loaded: map.isSourceLoaded("tiles") }
  }, { camera, k })

type Stats = { features: number; batches: number; firstRenderMs: number | null; done: boolean; error: string | null }
const stats = (page: Page) => page.evaluate(() => (globalThis as unknown as { canopyMapStats: Stats }).canopyMapStats)

let viewCounter = 0

/** One round on one size's server, in a fresh context signed in with `storageState`. */
const round = async (browser: Browser, url: string, storageState: Awaited<ReturnType<BrowserContext["storageState"]>>): Promise<Round> => {
  const context = await browser.newContext({ storageState, viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(String(e)))
    const tiles = recordTiles(page)
    await page.goto(`${url}/dashboard/map`, { waitUntil: "commit" })
    await page.waitForFunction(() => (globalThis as unknown as { canopyMapStats?: Stats }).canopyMapStats?.firstRenderMs != null, undefined, { timeout: 120_000,
      polling: 50 })
    const timeOrigin = await page.evaluate(() => performance.timeOrigin)
    const first = (await stats(page)).firstRenderMs!
    await page.waitForFunction(() => (globalThis as unknown as { canopyMapStats: Stats }).canopyMapStats.done, undefined, { timeout: LOAD_TIMEOUT_S * 1000,
      polling: 100 })
    const doneMs = await page.evaluate(() => performance.now())
    const s = await stats(page)
    if (s.error) throw new Error(`the map's count and extent did not load: ${s.error}`)
    await page.evaluate(() =>
      new Promise<void>((resolve) => {
        const map = (globalThis as unknown as { canopyMap: { loaded: () => boolean; once: (e: string, f: () => void) => void } }).canopyMap
        if (map.loaded()) resolve()
        else map.once("idle", () => resolve())
      })
    )
    const windows: Array<readonly [string, number, number, number]> = [[FIRST, timeOrigin, timeOrigin + first, first]]
    for (const [label, camera] of VIEWS) {
      const from = await epochNow(page)
      const moved = await moveTo(page, camera, ++viewCounter)
      if (!moved.loaded) throw new Error(`${label}: the tile source was not loaded at idle`)
      windows.push([label, from, moved.end, moved.ms])
    }
    await page.waitForTimeout(200) // the last requestfinished events
    const logged = await tiles.all()
    if (errors.length) throw new Error(`page errors: ${errors.join("; ")}`)
    const received = await page.evaluate(() => {
      const entries = performance.getEntriesByType("resource") as unknown as Array<{ name: string; startTime: number; responseEnd: number }>
      const find = (part: string) => entries.find((e) => e.name.includes(part))
      return { maplibre: find("maplibre-gl.mjs")?.responseEnd ?? Number.NaN, extentAsked: find("extent.json")?.startTime ?? Number.NaN,
        extentReceived: find("extent.json")?.responseEnd ?? Number.NaN }
    })
    const firstTile = Math.min(...logged.map((t) => t.start)) - timeOrigin
    const steps = new Map<string, Step>()
    for (const [label, from, to, took] of windows) steps.set(label, { ms: took, tiles: logged.filter((t) => t.start >= from - 1 && t.start <= to) })
    return { steps, doneMs, features: s.features, requests: s.batches, timeline: { ...received, firstTile } }
  } finally {
    await context.close()
  }
}

// ── printing ─────────────────────────────────────────────────────────────────────────────────

interface Figures {
  readonly ms: number
  readonly tiles: number
  readonly unique: number
  readonly kib: number
  readonly largestKib: number
  readonly serverP50: number
  readonly serverMax: number
  readonly points: number
  readonly failed: number
}

const figures = (rounds: ReadonlyArray<Round>, label: string): Figures => {
  const steps = rounds.map((r) => r.steps.get(label)!)
  const per = (f: (s: Step) => number) => median(steps.map(f))
  const kib = (b: number) => b / 1024
  return {
    ms: per((s) => s.ms),
    tiles: per((s) => s.tiles.length),
    unique: per((s) => new Set(s.tiles.map((t) => t.url)).size),
    kib: per((s) => kib(s.tiles.reduce((a, t) => a + t.bytes, 0))),
    largestKib: per((s) => kib(Math.max(0, ...s.tiles.map((t) => t.bytes)))),
    serverP50: per((s) => median(s.tiles.map((t) => t.serverMs))),
    serverMax: per((s) => Math.max(0, ...s.tiles.map((t) => t.serverMs))),
    points: per((s) => s.tiles.filter((t) => t.points).length),
    failed: Math.max(...steps.map((s) => s.tiles.filter((t) => t.status !== 200).length))
  }
}

const printSize = (size: number, fileMiB: number, rounds: ReadonlyArray<Round>, base: ReadonlyArray<Round> | undefined) => {
  const done = median(rounds.map((r) => r.doneMs))
  say(`  ${fmt(size)} projects (file ${fmt(fileMiB)} MiB): count and extent loaded, page done in ${fmt(done / 1000, 1)} s` +
    ` (${fmt(rounds[0]!.requests)} request, ${fmt(rounds[0]!.features)} projects counted; ${base ? ratio(done, median(base.map((r) => r.doneMs))) : "base"})`)
  const at = (f: (t: Round["timeline"]) => number) => fmt(median(rounds.map((r) => f(r.timeline))))
  say(
    `    before the first render (ms after navigation): MapLibre's script received ${at((t) => t.maplibre)}, the extent asked for ${at((t) => t.extentAsked)}` +
      ` and received ${at((t) => t.extentReceived)},` +
      ` the first tile requested ${at((t) => t.firstTile)}`
  )
  say(
    `    ${"step".padEnd(34)} ${"ms".padStart(7)} ${"×1k".padStart(7)} ${"tiles".padStart(7)} ${"KiB".padStart(7)} ${"×1k".padStart(7)} ${
      "max KiB".padStart(7)
    } ` +
      `${"srv p50".padStart(7)} ${"×1k".padStart(7)} ${"srv max".padStart(7)} ${"points".padStart(6)}`
  )
  for (const label of [FIRST, ...VIEWS.map(([l]) => l)]) {
    const f = figures(rounds, label)
    const b = base ? figures(base, label) : undefined
    say(
      `    ${label.padEnd(34)} ${ms(f.ms).padStart(7)} ${ratio(f.ms, b?.ms).padStart(7)} ${`${fmt(f.tiles)} (${fmt(f.unique)})`.padStart(7)} ${
        fmt(f.kib, 1).padStart(7)
      } ` +
        `${ratio(f.kib, b?.kib).padStart(7)} ${fmt(f.largestKib, 1).padStart(7)} ${ms(f.serverP50).padStart(7)} ${
          ratio(f.serverP50, b?.serverP50).padStart(7)
        } ` +
        `${ms(f.serverMax).padStart(7)} ${fmt(f.points).padStart(6)}${f.failed ? `  ${f.failed} tiles not 200` : ""}`
    )
  }
}

// ── the run ──────────────────────────────────────────────────────────────────────────────────

/** Adds an owner with a password (invited, accepted and made owner through the library) to the seeded account. */
const addOwner = async (file: string, accountId: string) => {
  const canopy = await createCanopy({ storage: sqliteStorage({ filename: file }), settings: { plans: { free: big, pro: big, enterprise: big } } })
  try {
    const system = Principal.system(accountId)
    const invited = await canopy.members.invite(system, { email: OWNER.email, role: "admin" })
    const member = await canopy.members.accept(invited.invitation.token, { name: "Map Owner", password: OWNER.password })
    await canopy.members.update(system, member.id, { role: "owner" }) // an invitation grants at most admin
  } finally {
    await canopy.close()
  }
}

/** Signs in through the dashboard's form once; answers the session's cookies. */
const signIn = async (browser: Browser, url: string) => {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(`${url}/dashboard`)
    await page.fill("#email", OWNER.email)
    await page.fill("#password", OWNER.password)
    await Promise.all([page.waitForEvent("load"), page.click("button[type=submit]")])
    if (!(await page.$("nav[aria-label=Dashboard]"))) throw new Error("signing in failed")
    return await context.storageState()
  } finally {
    await context.close()
  }
}

export const run = () =>
  inScratchDir("canopy-map-", async (dir) => {
    const sizes = [BASE_SIZE, ...SIZES.filter((s) => s > BASE_SIZE).sort((a, b) => a - b)]
    let browser: Browser | undefined
    const servers: Array<Server> = []
    try {
      say(
        `map (SQLite, headless Chromium): sizes ${
          sizes.map((s) => fmt(s)).join(", ")
        }; medians of ${ROUNDS} rounds; ×1k = figure ÷ the 1,000-project figure of this run`
      )
      say("  tiles: requests in the step (distinct tiles: MapLibre asks again for a tile the view shows twice, the world repeated side by side);")
      say("  KiB: their bodies; srv: request sent → first byte (ms), per tile; points: tiles holding points, not boundaries")
      const seedFile = join(dir, "seed.db")
      const t0 = performance.now()
      const base = await seedSqlite(seedFile, BASE_SIZE, () => undefined, (b) => addOwner(seedFile, b.accountId))
      say(`  seeded ${fmt(BASE_SIZE)} projects through the library in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      const files = growSqlite(seedFile, base, sizes, dir, () => undefined,
        (from, to, seconds) => say(`  replicated ${fmt(from)} → ${fmt(to)} projects by SQL in ${seconds.toFixed(1)} s`))
      for (const f of files) servers.push(await startServer(f))
      browser = await launchChromium(await resolveChromium())
      const states = []
      for (const s of servers) states.push(await signIn(browser, s.url))
      // One round per server first, not counted: the server's and the browser's code warmed as in use.
      for (const [k, s] of servers.entries()) await round(browser, s.url, states[k]!)
      const rounds = sizes.map((): Array<Round> => [])
      for (let r = 0; r < ROUNDS; r++) {
        const order = [...sizes.keys()]
        if (r % 2 === 1) order.reverse()
        for (const k of order) rounds[k]!.push(await round(browser, servers[k]!.url, states[k]!))
      }
      sizes.forEach((size, k) => printSize(size, statSync(files[k]!).size / 1024 / 1024, rounds[k]!, k === 0 ? undefined : rounds[0]))
    } finally {
      await browser?.close()
      for (const s of servers) await stopServer(s.child)
    }
  })
