/**
 * The project page's overlaps in headless Chromium: the projects sharing area with it listed (name
 * linked to its page, shared hectares as the API answers them), drawn on its MapLibre map from the
 * account's vector tiles, the next page through the API's cursor; archived and far projects left
 * out; a viewer sees the same; nothing refused by the CSP; axe-core finds no serious violations.
 * Screenshots go to .test-results/screenshots/.
 */
import { assert, describe, it } from "@effect/vitest"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { accountWithMembers, mapDrawn, pageTests, seriousViolations as axe, shots } from "./dashboardBrowser.ts"
import { client } from "@canopy/server/testing"

/** A rectangle from (w, s) to (e, n). */
const rect = (w: number, s: number, e: number, n: number) => ({ type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] })

const site = pageTests()

/** The overlap table's rows as shown: name, link, hectares. */
const listed = (page: Page) =>
  page.$$eval("#overlaps-table tbody tr", (trs) =>
    trs.map((tr) => ({
      id: tr.getAttribute("data-id"),
      name: tr.querySelector("a")?.textContent ?? "",
      href: tr.querySelector("a")?.getAttribute("href") ?? "",
      hectares: Number((tr.querySelector("td.num")?.textContent ?? "").replace(/,/g, ""))
    })))

/** The ids of the overlapping projects the map has drawn. */
const drawnIds = (page: Page) =>
  page.evaluate(() => {
    const map = (globalThis as unknown as { canopyMap: any }).canopyMap
    return [...new Set(map.queryRenderedFeatures({ layers: ["overlaps-fill"] }).map((f: any) => f.properties.id as string))].sort()
  })

describe("a project page's overlaps in headless Chromium", () => {
  it("lists the overlapping projects with the API's hectares, links them, draws them on the map, pages with the cursor; a viewer sees them too", async () => {
    const { bootstrapped: b, system } = await accountWithMembers(site.server, "Overlap Forestry", "ov-owner@example.com", { "ov-viewer@example.com": "viewer" })
    const centre = await site.server.canopy.projects.create(system, { name: "Centre stand", geometry: rect(8, 47, 8.02, 47.01) })
    // 21 neighbours along the centre's south edge, each crossing it; the first named with markup.
    const neighbours: Array<string> = []
    for (let i = 0; i < 21; i++) {
      const w = 8 + i * 0.00095
      const name = i === 0 ? "<b>Alder</b> & co" : `Neighbour ${String(i).padStart(2, "0")}`
      neighbours.push((await site.server.canopy.projects.create(system, { name, geometry: rect(w, 46.999, w + 0.0008, 47.002 + i * 0.0001) })).id)
    }
    const archived = await site.server.canopy.projects.create(system, { name: "Archived over it", geometry: rect(8.005, 47.004, 8.015, 47.008) })
    await site.server.canopy.projects.archive(system, archived.id)
    await site.server.canopy.projects.create(system, { name: "Far away", geometry: rect(9, 47, 9.01, 47.01) })

    const api = client(site.server.url, b.api_key.token)
    const first = (await api.get(`/v1/projects/${centre.id}/overlaps`)).body
    const second = (await api.get(`/v1/projects/${centre.id}/overlaps?cursor=${first.meta.next_cursor}`)).body
    assert.lengthOf(first.data, 20)
    assert.lengthOf(second.data, 1)

    const { context, errors, page } = await site.signedIn("ov-owner@example.com", "owner password!")
    await page.goto(`${site.server.url}/dashboard/project?id=${centre.id}`)
    await mapDrawn(page)
    const shown = await listed(page)
    assert.deepStrictEqual(shown.map((r) => ({ project_id: r.id, name: r.name, overlap_hectares: r.hectares })), first.data, "the API's first page, as text")
    assert.strictEqual(shown[0]!.name, "<b>Alder</b> & co", "a name is text, not markup")
    assert.isTrue(shown.every((r) => r.href.endsWith(`/dashboard/project?id=${r.id}`)))
    assert.notInclude(await page.textContent("#overlaps"), "Archived over it")
    assert.notInclude(await page.textContent("#overlaps"), "Far away")
    assert.deepStrictEqual(await drawnIds(page), first.data.map((o: { project_id: string }) => o.project_id).sort(), "this page's overlaps are drawn")
    assert.include(await page.getAttribute("#map", "aria-label"), "20 overlapping projects")
    await page.screenshot({ path: join(shots, "project-overlaps.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "project page with overlaps")

    // The next page through the API's cursor: the 21st neighbour, drawn alone.
    await Promise.all([page.waitForEvent("load"), page.click("#more-overlaps")])
    await mapDrawn(page)
    assert.deepStrictEqual((await listed(page)).map((r) => r.id), second.data.map((o: { project_id: string }) => o.project_id))
    assert.deepStrictEqual(await drawnIds(page), [second.data[0].project_id])
    assert.strictEqual(await page.locator("#more-overlaps").count(), 0)

    // A neighbour's page lists the centre; an archived project's page says it overlaps nothing.
    await page.goto(`${site.server.url}/dashboard/project?id=${neighbours[0]}`)
    assert.include((await listed(page)).map((r) => r.name), "Centre stand")
    await page.goto(`${site.server.url}/dashboard/project?id=${archived.id}`)
    assert.include(await page.textContent("#overlaps"), "overlaps nothing")
    assert.deepStrictEqual(errors.filter((e) => /Content Security Policy|Refused/i.test(e)), [], "nothing refused by the CSP")
    await context.close()

    const viewer = await site.signedIn("ov-viewer@example.com", "viewer password!")
    await viewer.page.goto(`${site.server.url}/dashboard/project?id=${centre.id}`)
    await mapDrawn(viewer.page)
    assert.lengthOf(await listed(viewer.page), 20)
    assert.lengthOf(await drawnIds(viewer.page), 20)
    assert.deepStrictEqual(await axe(viewer.page), [], "viewer's project page with overlaps")
    await viewer.context.close()
  }, 120_000)
})
