/**
 * The project page's boundary history in headless Chromium: the versions as the API lists them
 * (version, when, who, via, hectares before → after), newest first, ten a page with a link to the
 * older ones; a dashboard edit recorded as such; an owner restores a version with its button (the
 * area comes back, the restore is the newest version); a version compared is drawn on the map; a viewer sees the history without restore
 * buttons; nothing refused by the CSP; axe-core finds no serious violations.
 */
import { assert, describe, it } from "@effect/vitest"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { accountWithMembers, mapDrawn, pageTests, seriousViolations as axe, shots } from "./dashboardBrowser.ts"
import { client, squareAt as square } from "@canopy/server/testing"

const site = pageTests()

/** The history table's rows as shown. */
const rows = (page: Page) =>
  page.$$eval("#history-table tbody tr", (trs) =>
    trs.map((tr) => {
      const cells = [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim())
      return { version: Number(tr.getAttribute("data-version")), who: cells[2], via: cells[3], hectares: cells[4],
        restore: tr.querySelector("button") !== null }
    }))

/** Hectares as the page prints them (en-US, up to 4 decimals). */
const ha = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 4 })

describe("a project page's boundary history in headless Chromium", () => {
  it("lists the versions as the API does, pages to older ones, records a dashboard edit, restores with a button; a viewer only reads", async () => {
    const { bootstrapped: b } = await accountWithMembers(site.server, "History Forestry", "bh-owner@example.com", { "bh-viewer@example.com": "viewer" })
    const api = client(site.server.url, b.api_key.token)
    const p = (await api.post("/v1/projects", { name: "Spruce <stand>", geometry: square(8, 47, 0.01) })).body.data
    for (let i = 1; i <= 10; i++) assert.strictEqual((await api.put(`/v1/projects/${p.id}`, { geometry: square(8, 47, 0.01 + i * 0.001) })).status, 200)

    const { context, errors, page } = await site.signedIn("bh-owner@example.com", "owner password!")
    page.on("dialog", (d) => void d.accept()) // a restore is confirmed
    await page.goto(`${site.server.url}/dashboard/project?id=${p.id}`)
    const firstApi = (await api.get(`/v1/projects/${p.id}/boundaries?per_page=10`)).body
    const shown = await rows(page)
    assert.deepStrictEqual(shown.map((r) => r.version), firstApi.data.map((v: { version: number }) => v.version))
    assert.deepStrictEqual(shown.map((r) => r.version), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
    assert.deepStrictEqual(shown[0], {
      version: 11,
      who: "API key · you",
      via: "Update (API)",
      hectares: `${ha(firstApi.data[0].area_hectares_before)} → ${ha(firstApi.data[0].area_hectares_after)}`,
      restore: true
    })
    assert.include(await page.textContent("#boundary-history"), "11 versions")
    await Promise.all([page.waitForEvent("load"), page.click("#more-history")])
    assert.deepStrictEqual((await rows(page)).map((r) => [r.version, r.via]), [[1, "Created (API)"]])

    // An edit in the dashboard is recorded as one, by the member signed in.
    await page.goto(`${site.server.url}/dashboard/project?id=${p.id}`)
    await page.click("#edit-project summary")
    await page.fill("#ep-geometry", JSON.stringify(square(8, 47, 0.005)))
    await Promise.all([page.waitForEvent("load"), page.click("#edit-project button[type=submit]")])
    const edited = (await rows(page))[0]!
    assert.deepStrictEqual([edited.version, edited.via, edited.who], [12, "Dashboard", "Member · you"])

    // Restoring version 3 with its button: the area comes back and the restore is version 13.
    await Promise.all([page.waitForEvent("load"), page.click("#history-table tr[data-version='3'] button")])
    assert.include(await page.textContent("main"), "Boundary of version 3 restored")
    const v3 = (await api.get(`/v1/projects/${p.id}/boundaries/3`)).body.data
    const now = (await api.get(`/v1/projects/${p.id}`)).body.data
    assert.strictEqual(now.area_hectares, v3.area_hectares_after)
    assert.strictEqual(await page.textContent("#project-area"), `${ha(v3.area_hectares_after)} ha`)
    const restored = (await rows(page))[0]!
    assert.deepStrictEqual([restored.version, restored.via], [13, "Restore of version 3"])

    // Comparing version 12 (the dashboard's small square) draws it over the current boundary.
    await Promise.all([page.waitForEvent("load"), page.click("#history-table tr[data-version='12'] a.compare")])
    await mapDrawn(page)
    assert.include(await page.textContent("#compared"), "Version 12 (")
    assert.strictEqual(await page.getAttribute("#history-table tr[data-version='12'] a.compare", "aria-current"), "true")
    const drawn = await page.evaluate(() => (globalThis as unknown as { canopyMap: any }).canopyMap.queryRenderedFeatures({ layers: ["compare-line"] }).length)
    assert.isAbove(drawn, 0, "the compared version is drawn")
    await page.screenshot({ path: join(shots, "project-boundary-history.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "project page with its boundary history")
    assert.deepStrictEqual(errors, [])
    await context.close()

    // A viewer reads the same history, without restore buttons.
    const viewer = await site.signedIn("bh-viewer@example.com", "viewer password!")
    await viewer.page.goto(`${site.server.url}/dashboard/project?id=${p.id}`)
    const seen = await rows(viewer.page)
    assert.deepStrictEqual(seen.map((r) => r.version), [13, 12, 11, 10, 9, 8, 7, 6, 5, 4])
    assert.isTrue(seen.every((r) => !r.restore))
    assert.strictEqual(seen.find((r) => r.version === 11)?.who, `API key · ${b.user.id}`, "another member's change names its user")
    assert.strictEqual(await viewer.page.locator("#history-table button").count(), 0)
    assert.deepStrictEqual(viewer.errors, [])
    await viewer.context.close()
  }, 120_000)
})
