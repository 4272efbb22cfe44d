/**
 * The dashboard's overview map in headless Chromium: 10,000 projects (time to first render, one
 * request for the count and the view), the account's vector tiles (boundaries coloured by status,
 * points where a tile holds too many, a click opening the project), and a configured basemap.
 * Screenshots go to .test-results/screenshots/.
 */
import { assert, describe, it } from "@effect/vitest"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import type { BrowserContext } from "playwright-core"
import { squareOfHectares as square, startTestServer, type TestServer } from "@canopy/server/testing"
import { forestAccount, mapDrawn, pageTests, seriousViolations, shots } from "./dashboardBrowser.ts"

const site = pageTests()
const account = (s: TestServer = site.server, plan?: "free" | "pro" | "enterprise") => forestAccount(s, plan)
const axe = seriousViolations

describe("the dashboard's overview map in headless Chromium", () => {
  it("the overview map draws 10,000 projects with one bounded request for the count, fitted to the largest projects", async () => {
    const a = await account()
    const started = Date.now()
    // 100 × 100 projects over Central Europe, and one tiny plot far away: not among the largest, so
    // outside the initial view, but counted (and drawn by the tiles when the map goes there)
    for (let i = 0; i < 10_000; i++) {
      await site.server.canopy.projects.create(a.system, { name: `Plot ${i}`,
        geometry: square(5 + (i % 100) * 0.15, 45 + Math.floor(i / 100) * 0.1, 2 + (i % 13)) })
    }
    await site.server.canopy.projects.create(a.system, { name: "Far plot", geometry: square(-60, -10, 0.1) })
    console.log(`seeded 10,001 projects in ${Date.now() - started} ms`)
    const { context, errors, page } = await site.signedIn(a.owner, "owner password!")
    const extentRequests = () => site.server.logs.filter((l) => l.path === "/dashboard/map/extent.json").length
    const before = extentRequests()
    const t0 = Date.now()
    await page.goto(`${site.server.url}/dashboard/map`)
    await mapDrawn(page, 120_000)
    const wall = Date.now() - t0
    const stats = await page.evaluate(() =>
      (globalThis as unknown as { canopyMapStats: { features: number; batches: number; firstRenderMs: number; error: string | null } }).canopyMapStats
    )
    const view = await page.evaluate(() => {
      const map = (globalThis as any).canopyMap
      const b = map.getBounds()
      const rendered: Array<{ layer: { id: string }; properties: { count?: number } }> = map.queryRenderedFeatures({
        layers: ["projects-fill", "projects-points", "projects-clusters"]
      })
      // a cluster stands for its projects; a boundary or a point for one
      const projects = rendered.reduce((n, f) => n + (f.layer.id === "projects-clusters" ? Number(f.properties.count) : 1), 0)
      return { west: b.getWest(), east: b.getEast(), south: b.getSouth(), north: b.getNorth(), projects }
    })
    console.log(
      `overview map, 10,001 projects: first render ${Math.round(stats.firstRenderMs)} ms after navigation; drawn in ${wall} ms (${stats.batches} request)`
    )
    assert.isNull(stats.error)
    assert.strictEqual(stats.features, 10_001, "the exact total")
    assert.strictEqual(stats.batches, 1)
    assert.strictEqual(extentRequests() - before, 1, "one request a view")
    assert.strictEqual(await page.textContent("#map-status"), "10,001 projects on the map")
    assert.isBelow(stats.firstRenderMs, 15_000, "first render within 15 s")
    assert.isBelow(wall, 60_000)
    assert.isTrue(view.west <= 5 && view.east >= 19.85 && view.south <= 45 && view.north >= 54.9, `fitted around the projects: ${JSON.stringify(view)}`)
    assert.isTrue(view.west > -60 && view.south > -10, `the far small plot is not among the largest: ${JSON.stringify(view)}`)
    assert.isAtLeast(view.projects, 9_000, "the tiles draw the projects in view: as boundaries, points, or counted in clusters")
    await page.screenshot({ path: join(shots, "overview-10000.png") })
    assert.deepStrictEqual(await axe(page), [], "overview map")
    assert.deepStrictEqual(errors.filter((e) => /Content Security Policy|Refused/i.test(e)), [])
    await page.reload()
    await mapDrawn(page, 120_000)
    assert.strictEqual(extentRequests() - before, 2, "one more on the next view")

    // the answer: the exact count and the box of the largest projects; it needs a session
    const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ")
    const answer = await (await fetch(`${site.server.url}/dashboard/map/extent.json`, { headers: { cookie: cookies } })).json() as { count: number;
      extent: Array<number> }
    assert.strictEqual(answer.count, 10_001)
    const [w, s, e, n] = answer.extent
    assert.isTrue(w! >= 5 && w! < 5.01 && s! >= 45 && s! < 45.01 && e! > 19.85 && e! < 19.9 && n! > 54.9 && n! < 55, JSON.stringify(answer.extent))
    const anon = await fetch(`${site.server.url}/dashboard/map/extent.json`)
    assert.strictEqual(anon.status, 401)
    assert.match(((await anon.json()) as { error: string }).error, /sign in/)
    await context.close()
  }, 600_000)

  it("the overview map draws the account's vector tiles: boundaries coloured by status, points where a tile holds too many, a click opens the project",
    async () => {
      const a = await account()
      const other = await account()
      const oak = await site.server.canopy.projects.create(a.system, { name: "Tile oak", geometry: square(8.5, 47.2, 40) })
      await site.server.canopy.projects.create(a.system, { name: "Tile beech", status: "draft", geometry: square(8.52, 47.2, 30) })
      await site.server.canopy.projects.create(other.system, { name: "Someone else's", geometry: square(8.51, 47.21, 30) })
      const { context, errors, page } = await site.signedIn(a.owner, "owner password!")
      const tileRequests: Array<{ url: string; status: number }> = []
      page.on("response", (r) => {
        if (r.url().includes("/dashboard/map/tile")) tileRequests.push({ url: r.url(), status: r.status() })
      })
      await page.goto(`${site.server.url}/dashboard/map`)
      await mapDrawn(page)
      const drawn = await page.evaluate(() => {
        const map = (globalThis as any).canopyMap
        const fill = map.queryRenderedFeatures({ layers: ["projects-fill"] })
        return { names: [...new Set(fill.map((f: any) => f.properties.name))].sort(), statuses: [...new Set(fill.map((f: any) => f.properties.status))].sort(),
          zoom: map.getZoom() }
      })
      assert.deepStrictEqual(drawn.names, ["Tile beech", "Tile oak"], JSON.stringify({ drawn, tileRequests, errors }))
      assert.deepStrictEqual(drawn.statuses, ["active", "draft"])
      assert.isAbove(tileRequests.length, 0)
      assert.isTrue(tileRequests.every((t) => t.status === 200 || t.status === 304), JSON.stringify(tileRequests))
      await page.screenshot({ path: join(shots, "overview-tiles.png") })
      assert.deepStrictEqual(await axe(page), [], "overview map with tiles")

      // a click on a boundary opens its popup, whose link opens the project
      const at = await page.evaluate(() => {
        const map = (globalThis as any).canopyMap
        const f = map.queryRenderedFeatures({ layers: ["projects-fill"] }).find((x: any) => x.properties.name === "Tile oak")
        const ring = f.geometry.type === "Polygon" ? f.geometry.coordinates[0] : f.geometry.coordinates[0][0]
        const lon = ring.reduce((s: number, p: Array<number>) => s + p[0]!, 0) / ring.length
        const lat = ring.reduce((s: number, p: Array<number>) => s + p[1]!, 0) / ring.length
        const pt = map.project([lon, lat])
        const box = map.getCanvas().getBoundingClientRect()
        return { x: box.left + pt.x, y: box.top + pt.y }
      })
      await page.mouse.click(at.x, at.y)
      await page.waitForSelector(".maplibregl-popup a")
      assert.strictEqual(await page.textContent(".maplibregl-popup a"), "Tile oak")
      await Promise.all([page.waitForEvent("load"), page.click(".maplibregl-popup a")])
      assert.include(page.url(), `/dashboard/project?id=${encodeURIComponent(oak.id)}`)

      // the tile needs a session; a bad address is a 400
      const tile = tileRequests.find((t) => t.status === 200)!
      assert.strictEqual((await fetch(tile.url)).status, 401)
      const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ")
      const bad = await fetch(`${site.server.url}/dashboard/map/tile?z=30&x=0&y=0`, { headers: { cookie: cookies } })
      assert.strictEqual(bad.status, 400)
      const again = await fetch(tile.url, { headers: { cookie: cookies } })
      assert.strictEqual(again.status, 200)
      assert.strictEqual((await fetch(tile.url, { headers: { cookie: cookies, "if-none-match": again.headers.get("etag")! } })).status, 304)
      assert.deepStrictEqual(errors.filter((e) => /Content Security Policy|Refused|Error/i.test(e)), [])
      await context.close()
    }, 120_000)

  it("a configured basemap (CANOPY_BASEMAP_URL) is drawn from its tile server, allowed by the page's CSP", async () => {
    const tiles: Array<string> = []
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64")
    const tileServer: Server = createServer((req, res) => {
      tiles.push(req.url ?? "")
      res.writeHead(200, { "content-type": "image/png", "access-control-allow-origin": "*" })
      res.end(png)
    })
    await new Promise<void>((r) => tileServer.listen(0, "127.0.0.1", r))
    const port = (tileServer.address() as { port: number }).port
    process.env.CANOPY_BASEMAP_URL = `http://127.0.0.1:${port}/tiles/{z}/{x}/{y}.png`
    process.env.CANOPY_BASEMAP_ATTRIBUTION = "Test tiles"
    let other: TestServer | undefined
    let context: BrowserContext | undefined
    try {
      other = await startTestServer()
      const a = await account(other)
      const p = await other.canopy.projects.create(a.system, { name: "Tiled", geometry: square(2.35, 48.85, 10) })
      const s = await site.signedIn(a.owner, "owner password!", other)
      context = s.context
      const res = await s.page.goto(`${other.url}/dashboard/project?id=${p.id}`)
      assert.include(res!.headers()["content-security-policy"], `connect-src 'self' http://127.0.0.1:${port}`)
      await mapDrawn(s.page)
      assert.isAbove(tiles.length, 0, "tiles were fetched")
      assert.match(tiles[0]!, /^\/tiles\/\d+\/\d+\/\d+\.png/)
      assert.isTrue(await s.page.evaluate(() => (globalThis as any).canopyMap.getLayer("basemap") !== undefined))
      assert.include(await s.page.textContent(".maplibregl-ctrl-attrib"), "Test tiles")
      assert.deepStrictEqual(s.errors.filter((e) => /Content Security Policy|Refused/i.test(e)), [])
    } finally {
      delete process.env.CANOPY_BASEMAP_URL
      delete process.env.CANOPY_BASEMAP_ATTRIBUTION
      await context?.close()
      await other?.stop()
      tileServer.close()
    }
  })
})
