/**
 * The forester's dashboard in headless Chromium: the project list (filter, search, sort, next
 * page), a project page with its boundary and assets drawn by MapLibre, lifecycle and asset
 * actions (POST-redirect-GET, confirmations), a viewer seeing no write forms, axe-core on every
 * page, boundary uploads and overlaps. The overview map is in dashboardOverviewMap.test.ts.
 * Screenshots go to .test-results/screenshots/.
 */
import { assert, describe, it } from "@effect/vitest"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { submit } from "@canopy/server/testing/browser"
import { forestAccount, mapDrawn, pageTests, seriousViolations, shots } from "./dashboardBrowser.ts"
import { BOWTIE, hectares, kml, NORTH, shapefileZip, SOUTH, toUtm32n, UTM32N_PRJ } from "./gis/fixtures.ts"
import { client, squareOfHectares as square, type TestServer } from "@canopy/server/testing"

const site = pageTests()
const account = (s: TestServer = site.server, plan?: "free" | "pro" | "enterprise") => forestAccount(s, plan)
const axe = seriousViolations

const rowNames = (page: Page) => page.$$eval("#projects-table tbody tr td:first-child a", (as) => as.map((a) => a.textContent ?? ""))

describe("the forester's dashboard in headless Chromium", () => {
  it("the project list: filter by status, search, sort, next page with the API's cursor", async () => {
    const a = await account()
    const species = ["Spruce", "Oak", "Beech", "Pine", "Larch"]
    for (let i = 0; i < 27; i++) {
      const p = await site.server.canopy.projects.create(a.system, {
        name: `${species[i % 5]} stand ${String(i).padStart(2, "0")}`,
        geometry: square(10 + i * 0.01, 50, 5 + i),
        ...(i % 9 === 0 ? { status: "draft" } : {})
      })
      if (i % 7 === 3) await site.server.canopy.projects.archive(a.system, p.id)
    }
    const { context, page } = await site.signedIn(a.owner, "owner password!")
    await page.click("nav[aria-label=Dashboard] a:has-text('Projects')")
    await page.waitForSelector("#projects-table")
    assert.include(await page.textContent("#count"), "27 projects")
    assert.lengthOf(await rowNames(page), 20, "the API's default page size")

    // filter: drafts only (i = 0, 9, 18)
    await page.selectOption("#f-status", "draft")
    await submit(page, ".filters button")
    assert.sameMembers(await rowNames(page), ["Spruce stand 00", "Larch stand 09", "Pine stand 18"])
    assert.include(page.url(), "status=draft")

    // search (case-insensitive substring), sorted by name ascending
    await page.selectOption("#f-status", "")
    await page.fill("#f-search", "oak")
    await page.selectOption("#f-sort", "name")
    await submit(page, ".filters button")
    const oaks = await rowNames(page)
    assert.deepStrictEqual(oaks, ["Oak stand 01", "Oak stand 06", "Oak stand 11", "Oak stand 16", "Oak stand 21", "Oak stand 26"])

    // a search too short gets a plain sentence with the field's path
    await page.fill("#f-search", "oa")
    await submit(page, ".filters button")
    assert.include(await page.textContent("[role=alert]"), "search")
    assert.include(await page.textContent("[role=alert]"), "at least 3 characters")

    // sort by area, largest first, and walk to the next page with the cursor
    await page.fill("#f-search", "")
    await page.selectOption("#f-sort", "area_hectares")
    await page.selectOption("#f-order", "desc")
    await submit(page, ".filters button")
    const first = await rowNames(page)
    assert.strictEqual(first[0], "Oak stand 26")
    const areas = await page.$$eval("#projects-table tbody td.num", (tds) => tds.map((td) => Number((td.textContent ?? "").replace(/,/g, ""))))
    assert.deepStrictEqual(areas, [...areas].sort((x, y) => y - x), "largest first")
    await page.screenshot({ path: join(shots, "project-list.png"), fullPage: true })
    await submit(page, "#next-page")
    assert.include(page.url(), "cursor=")
    const second = await rowNames(page)
    assert.lengthOf(second, 7)
    assert.strictEqual(new Set([...first, ...second]).size, 27, "no project twice, none missed")
    // the API agrees on the order
    const api = await client(site.server.url, a.token).get("/v1/projects?sort=area_hectares&order=desc&per_page=100")
    assert.deepStrictEqual([...first, ...second], api.body.data.map((p: { name: string }) => p.name))
    await context.close()
  })

  it("a project page draws its boundary and assets on the map, with the API's area; a viewer gets no write forms; axe finds no serious violations", async () => {
    const a = await account()
    const p = await site.server.canopy.projects.create(a.system, { name: "Grove </script><script>window.pwned=1</script>", description: "Mixed broadleaf",
      geometry: square(-3.5, 56.2, 123.0907) })
    const spots: Array<[number, number]> = [[-3.499, 56.2005], [-3.497, 56.201], [-3.4955, 56.2012]]
    for (const [i, at] of spots.entries()) {
      await site.server.canopy.assets.create(a.system, p.id, { name: `Sensor ${i + 1}`, type: "sensor", location: { type: "Point", coordinates: at } })
    }
    await site.server.canopy.assets.create(a.system, p.id, { name: "Unplaced", type: "other" })
    const apiArea = (await client(site.server.url, a.token).get(`/v1/projects/${p.id}`)).body.data.area_hectares as number

    const { context, errors, page } = await site.signedIn(a.owner, "owner password!")
    await page.goto(`${site.server.url}/dashboard/project?id=${p.id}`)
    await mapDrawn(page)
    assert.strictEqual(await page.textContent("h1"), "Grove </script><script>window.pwned=1</script>", "the name is text, not markup")
    assert.isUndefined(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned))
    assert.strictEqual(await page.textContent("#project-area"), `${apiArea.toLocaleString("en-US", { maximumFractionDigits: 4 })} ha`)
    assert.match(String(apiArea), /^\d+\.\d{1,4}$/)
    const drawn = await page.evaluate(() => {
      const map = (globalThis as unknown as { canopyMap: any }).canopyMap
      return {
        boundary: map.queryRenderedFeatures({ layers: ["boundary-fill"] }).length,
        outline: map.queryRenderedFeatures({ layers: ["boundary-line"] }).length,
        assets: map.queryRenderedFeatures({ layers: ["assets"] }).map((f: any) => f.properties.name).sort(),
        zoom: map.getZoom(),
        graticule: map.getLayer("graticule") !== undefined && map.queryRenderedFeatures({ layers: ["graticule-local"] }).length > 0,
        canvas: map.getCanvas().width * map.getCanvas().height
      }
    })
    assert.isAbove(drawn.boundary, 0, "the boundary is filled")
    assert.isAbove(drawn.outline, 0, "and outlined")
    assert.deepStrictEqual(drawn.assets, ["Sensor 1", "Sensor 2", "Sensor 3"], "every placed asset is drawn")
    assert.isAbove(drawn.zoom, 10, "fitted to the project, not the world")
    assert.isTrue(drawn.graticule)
    assert.isAbove(drawn.canvas, 0)
    // the rendered canvas is not blank: pixels of the boundary's green are there
    const png = await page.locator("#map canvas").screenshot()
    assert.isAbove(png.length, 2_000)
    assert.include(await page.textContent("#assets-table"), "Unplaced")
    assert.isAbove(await page.locator("#lifecycle button:has-text('Archive')").count(), 0)
    assert.isAbove(await page.locator("#new-asset form").count(), 0)
    await page.screenshot({ path: join(shots, "project-page.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "project page")
    for (const path of ["/dashboard", "/dashboard/projects"]) {
      await page.goto(`${site.server.url}${path}`)
      assert.deepStrictEqual(await axe(page), [], path)
    }
    assert.deepStrictEqual(errors.filter((e) => /Content Security Policy|Refused/i.test(e)), [], "nothing refused by the CSP")
    await context.close()

    // the viewer: the same pages, not one write form (signing out is the only form that posts)
    const v = await site.signedIn(a.viewer, "viewer password!")
    for (const path of ["/dashboard", "/dashboard/projects", `/dashboard/project?id=${p.id}`]) {
      await v.page.goto(`${site.server.url}${path}`)
      const actions = await v.page.$$eval("form[method=post]", (fs) =>
        fs.map((f) => (f.querySelector("input[name=action]") as unknown as { value: string } | null)?.value ?? "?"))
      assert.deepStrictEqual(actions, ["sign_out"], `${path}: only the sign-out form`)
      assert.strictEqual(await v.page.locator("textarea, input[type=checkbox]").count(), 0, path)
    }
    await mapDrawn(v.page)
    assert.include(await v.page.textContent("#assets-table"), "Sensor 1", "a viewer still sees the assets")
    await v.page.screenshot({ path: join(shots, "project-page-viewer.png"), fullPage: true })
    assert.deepStrictEqual(await axe(v.page), [], "viewer's project page")
    await v.page.goto(`${site.server.url}/dashboard`)
    assert.include(await v.page.textContent("#api-keys"), "Your role does not include this")
    await v.context.close()

    // the sign-in page too
    const anon = await site.browser.newPage()
    await anon.goto(`${site.server.url}/dashboard`)
    assert.deepStrictEqual(await axe(anon), [], "sign-in page")
    // axe does find what it should: an unlabelled field is reported
    await anon.evaluate("document.querySelector('main').append(document.createElement('input'))")
    assert.include((await axe(anon)).map((v) => v.id), "label")
    await anon.close()
  })

  it("actions redirect to a page that shows the outcome once: a reload re-submits nothing; destructive actions are confirmed; errors are sentences with field paths", async () => {
    const a = await account()
    const { context, page } = await site.signedIn(a.owner, "owner password!")
    const actionPosts = () => site.server.logs.filter((l) => l.method === "POST" && l.path === "/dashboard/action").length
    const api = client(site.server.url, a.token)

    // create a project from the list page, with a boundary typed in
    await page.goto(`${site.server.url}/dashboard/projects`)
    await page.fill("#np-name", "Hillside")
    await page.fill("#np-geometry", JSON.stringify(square(24.9, 60.2, 42.5)))
    const before = actionPosts()
    await submit(page, "#new-project button")
    assert.match(new URL(page.url()).pathname, /\/dashboard\/project$/, "redirected to the new project's page")
    assert.include(await page.textContent("#notice"), "Project “Hillside” created")
    const projects = await api.get("/v1/projects")
    assert.strictEqual(projects.body.meta.total, 1)
    const id = projects.body.data[0].id as string
    assert.include(await page.textContent("#project-area"), projects.body.data[0].area_hectares.toLocaleString("en-US", { maximumFractionDigits: 4 }))

    // an asset, then reloads: no second asset, and the notice is gone
    await page.fill("#na-name", "Gate camera")
    await page.selectOption("#na-type", "equipment")
    await page.fill("#na-lon", "24.9005")
    await page.fill("#na-lat", "60.2003")
    await submit(page, "#new-asset button")
    assert.include(await page.textContent("#notice"), "Asset “Gate camera” added")
    assert.strictEqual(actionPosts() - before, 2)
    await page.reload()
    await page.reload()
    assert.strictEqual(actionPosts() - before, 2, "reloads posted nothing")
    assert.strictEqual((await api.get(`/v1/projects/${id}/assets`)).body.meta.total, 1, "still one asset")
    assert.strictEqual(await page.locator("#notice").count(), 0, "the notice was shown once")
    await mapDrawn(page)
    assert.deepStrictEqual(
      await page.evaluate(() => (globalThis as any).canopyMap.queryRenderedFeatures({ layers: ["assets"] }).map((f: any) => f.properties.name)),
      ["Gate camera"]
    )

    // a bad boundary: a sentence, and the field's path, nothing saved
    await page.click("#edit-project summary")
    await page.fill("#ep-geometry", JSON.stringify({ type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] }))
    await submit(page, "#edit-project button")
    const problem = (await page.textContent("#notice"))!
    assert.include(problem, "needs fixing; nothing was saved")
    assert.match(problem, /geometry\.coordinates/)
    await page.click("#edit-project summary")
    await page.fill("#ep-geometry", "{not json")
    await submit(page, "#edit-project button")
    assert.include(await page.textContent("#notice"), "is not valid JSON")

    // archive: styled apart and confirmed; dismissing the question does nothing
    const archive = page.locator("#lifecycle button:has-text('Archive')")
    assert.strictEqual(await archive.getAttribute("class"), "danger")
    assert.notStrictEqual(await archive.evaluate((b) => (globalThis as any).getComputedStyle(b).color),
      await page.locator("#new-asset button").evaluate((b) => (globalThis as any).getComputedStyle(b).color))
    const posted = actionPosts()
    page.once("dialog", (d) => void d.dismiss())
    await archive.click()
    await page.waitForTimeout(300)
    assert.strictEqual(actionPosts(), posted, "dismissed: nothing posted")
    assert.strictEqual((await api.get(`/v1/projects/${id}`)).body.data.status, "active")
    page.once("dialog", (d) => {
      assert.include(d.message(), "Archive “Hillside”?")
      void d.accept()
    })
    await Promise.all([page.waitForEvent("load"), archive.click()])
    assert.include(await page.textContent("#notice"), "archived")
    assert.strictEqual((await api.get(`/v1/projects/${id}`)).body.data.status, "archived")
    assert.strictEqual(await page.locator("#new-asset").count(), 0, "no asset form on an archived project")
    await page.reload()
    assert.strictEqual((await api.get("/v1/events?type=project.archived")).body.meta.total, 1, "one archive, however many reloads")

    // delete (archived only), back to the list
    page.once("dialog", (d) => void d.accept())
    await Promise.all([page.waitForEvent("load"), page.click("#lifecycle button:has-text('Delete permanently')")])
    assert.match(new URL(page.url()).pathname, /\/dashboard\/projects$/)
    assert.include(await page.textContent("#notice"), "deleted")
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, 0)
    await page.screenshot({ path: join(shots, "after-delete.png"), fullPage: true })

    // an unknown project: a sentence, not a stack
    await page.goto(`${site.server.url}/dashboard/project?id=${id}`)
    assert.include(await page.textContent("[role=alert]"), "does not exist any more")
    await context.close()
  })

  it("a boundary uploaded as KML or as a zipped Shapefile (UTM, reprojected) replaces the project's, with the file's hectares; a broken one shows the validator's path and saves nothing", async () => {
    const a = await account()
    const p = await site.server.canopy.projects.create(a.system, { name: "Upload target", geometry: square(8, 48, 1) })
    const api = client(site.server.url, a.token)
    const { context, errors, page } = await site.signedIn(a.owner, "owner password!")
    await page.goto(`${site.server.url}/dashboard/project?id=${p.id}`)
    const area = async () => (await api.get(`/v1/projects/${p.id}`)).body.data.area_hectares as number

    // KML from a GPS / Google Earth: two stands
    await page.setInputFiles("#up-file", { name: "stands.kml", mimeType: "application/vnd.google-earth.kml+xml",
      buffer: Buffer.from(kml([{ name: "North", polygon: NORTH }, { name: "South", polygon: SOUTH }])) })
    await submit(page, "#upload-boundary button")
    const expectedKml = hectares(NORTH, SOUTH)
    assert.closeTo(await area(), expectedKml, 1e-4)
    assert.include(await page.textContent("#notice"), "Boundary replaced from stands.kml (KML, 2 features")
    assert.include(await page.textContent("#project-area"), (await area()).toLocaleString("en-US", { maximumFractionDigits: 4 }))
    await mapDrawn(page)
    assert.isAbove(await page.evaluate(() => (globalThis as any).canopyMap.queryRenderedFeatures({ layers: ["boundary-fill"] }).length), 0)
    await page.screenshot({ path: join(shots, "upload-kml.png"), fullPage: true })

    // a zipped Shapefile in UTM 32N with its .prj: reprojected to WGS84
    const zip = await shapefileZip([{ name: "North", polygon: toUtm32n(NORTH) }], { prj: UTM32N_PRJ })
    await page.setInputFiles("#up-file", { name: "stands.zip", mimeType: "application/zip", buffer: Buffer.from(zip) })
    await submit(page, "#upload-boundary button")
    assert.include(await page.textContent("#notice"), "zipped Shapefile")
    assert.closeTo(await area(), hectares(NORTH), 1e-4)

    // a self-intersecting polygon: the validator's path, and the area stays
    const before = await area()
    await page.setInputFiles("#up-file", { name: "bowtie.geojson", mimeType: "application/geo+json", buffer: Buffer.from(JSON.stringify(BOWTIE)) })
    await submit(page, "#upload-boundary button")
    const notice = (await page.textContent("#notice"))!
    assert.include(notice, "cannot be used; nothing was saved")
    assert.match(notice, /geometry\.coordinates/)
    assert.strictEqual(await area(), before)
    await page.screenshot({ path: join(shots, "upload-problem.png"), fullPage: true })
    await page.reload()
    assert.strictEqual(await page.locator("#notice").count(), 0)
    assert.deepStrictEqual(errors.filter((e) => /Content Security Policy|Refused/i.test(e)), [])
    await context.close()

    // the viewer gets no upload form, and a forged upload without the session's CSRF token changes nothing
    const v = await site.signedIn(a.viewer, "viewer password!")
    await v.page.goto(`${site.server.url}/dashboard/project?id=${p.id}`)
    assert.strictEqual(await v.page.locator("#upload-boundary").count(), 0)
    await v.context.close()
    const forged = new FormData()
    forged.set("id", p.id)
    forged.set("csrf", "forged")
    forged.set("file", new Blob([JSON.stringify(square(0, 0, 5))]), "x.geojson")
    const res = await fetch(`${site.server.url}/dashboard/upload`, { method: "POST", body: forged, redirect: "manual" })
    assert.strictEqual(res.status, 303)
    assert.strictEqual(await area(), before)
  })

  it("an overlap is reported with the right hectares after a create; an owner switches the account to refuse overlaps, and the next one is refused", async () => {
    const a = await account()
    const api = client(site.server.url, a.token)
    const rect = (w: number, so: number, e: number, n: number) => ({ type: "Polygon", coordinates: [[[w, so], [e, so], [e, n], [w, n], [w, so]]] })
    const first = (await api.post("/v1/projects", { name: "Old growth", geometry: rect(14, 47, 14.01, 47.01) })).body.data
    const { context, page, errors } = await site.signedIn(a.owner, "owner password!")
    await page.goto(`${site.server.url}/dashboard/projects`)
    await page.fill("#np-name", "Regrowth")
    await page.fill("#np-geometry", JSON.stringify(rect(14.006, 47.004, 14.02, 47.02)))
    await submit(page, "#new-project button")
    const shared = Math.round(hectares(rect(14.006, 47.004, 14.01, 47.01) as Parameters<typeof hectares>[0]) * 10_000) / 10_000
    const notice = (await page.textContent("#notice"))!
    assert.include(notice, "Project “Regrowth” created")
    assert.include(notice, `Overlaps “Old growth” by ${shared.toLocaleString("en-US", { maximumFractionDigits: 4 })} ha`)
    const created = (await api.get("/v1/projects?search=regrowth")).body.data[0]
    const events = (await api.get("/v1/events?type=project.overlap_detected")).body.data
    assert.deepStrictEqual(events[0].data.overlaps, [{ project_id: first.id, name: "Old growth", overlap_hectares: shared }])
    assert.strictEqual(events[0].data.project.id, created.id)
    await page.screenshot({ path: join(shots, "overlap-reported.png"), fullPage: true })

    // the list's spatial filters: a point in the shared part finds both, one in Old growth's own part one
    await page.goto(`${site.server.url}/dashboard/projects`)
    await page.fill("#f-point", "14.008, 47.008")
    await submit(page, "form[role=search] button")
    assert.deepStrictEqual((await rowNames(page)).sort(), ["Old growth", "Regrowth"])
    await page.fill("#f-point", "14.002 47.002")
    await submit(page, "form[role=search] button")
    assert.deepStrictEqual(await rowNames(page), ["Old growth"])
    await page.fill("#f-point", "")
    await page.fill("#f-bbox", "14.015, 47.015, 14.03, 47.03")
    await submit(page, "form[role=search] button")
    assert.deepStrictEqual(await rowNames(page), ["Regrowth"])
    await page.fill("#f-bbox", "14.03, 47, 14, 47.1")
    await submit(page, "form[role=search] button")
    assert.include(await page.textContent("[role=alert]"), "west must not exceed east")

    // the policy, on the account page: an owner may change it
    await page.goto(`${site.server.url}/dashboard`)
    assert.include(await page.textContent("#overlaps"), "is saved, and the overlap is reported")
    await page.selectOption("#overlap-policy", "reject")
    await submit(page, "#overlaps button")
    assert.include(await page.textContent("#notice"), "Overlapping boundaries are now refused")
    assert.strictEqual((await api.get("/v1/account")).body.data.overlap_policy, "reject")
    assert.deepStrictEqual(await axe(page), [])
    await page.goto(`${site.server.url}/dashboard/projects`)
    await page.fill("#np-name", "Third")
    await page.fill("#np-geometry", JSON.stringify(rect(14.009, 47.009, 14.03, 47.03)))
    await submit(page, "#new-project button")
    const refused = (await page.textContent("#notice"))!
    assert.include(refused, "overlaps")
    assert.include(refused, "Old growth")
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, 2, "nothing stored")
    await page.screenshot({ path: join(shots, "overlap-refused.png"), fullPage: true })
    assert.deepStrictEqual(errors, [])
    await context.close()

    // a viewer sees the policy but no form to change it
    const v = await site.signedIn(a.viewer, "viewer password!")
    assert.include(await v.page.textContent("#overlaps"), "is refused")
    assert.strictEqual(await v.page.locator("#overlap-policy").count(), 0)
    await v.context.close()
  })
})
