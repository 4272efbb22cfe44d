/**
 * The dashboard's bulk import in headless Chromium, on SQLite: an editor uploads a GeoJSON
 * FeatureCollection (one feature a bow-tie), sees the preview table with the refused feature's
 * problem, confirms, watches the progress bar reach the end without the page being reloaded, and
 * sees the created projects linked (checked against the API) and the refused feature with its
 * problem; an editor cancels a running import; a viewer sees imports without any form and a POST
 * of theirs is refused (403) with nothing stored; nothing refused by the CSP; axe-core finds no
 * serious or critical violations at any step. Screenshots go to .test-results/screenshots/.
 */
import { Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { inject } from "vitest"
import { launchChromium } from "./chromium.ts"
import { seriousViolations as axe, signedIn as signInAs } from "./dashboardBrowser.ts"
import { BOWTIE, square } from "./gis/fixtures.ts"
import { client, startTestServer, type TestServer } from "./harness.ts"

const shots = join(process.cwd(), ".test-results", "screenshots")

let server: TestServer
let browser: Browser

beforeAll(async () => {
  mkdirSync(shots, { recursive: true })
  server = await startTestServer()
  browser = await launchChromium(inject("chromiumPath"))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

/**
 * `n` small stands apart from one another, named `${prefix} n`, the second a bow-tie named
 * "Broken stand"; the first named with markup. Enough of them that the import runs for a while.
 */
const standsFile = (n: number, prefix: string, lat: number) => JSON.stringify({
  type: "FeatureCollection",
  features: Array.from({ length: n }, (_, i) => ({
    type: "Feature",
    properties: { name: i === 0 ? `<b>${prefix}</b> & co` : i === 1 ? "Broken stand" : `${prefix} ${i + 1}` },
    geometry: i === 1 ? BOWTIE : square(8 + (i % 40) * 0.003, lat + Math.floor(i / 40) * 0.003, 0.002)
  }))
})

/** The results table's rows as shown. */
const rows = (page: Page) => page.$$eval("#results-table tbody tr", (trs) => trs.map((tr) => {
  const cells = [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim())
  const link = tr.querySelector("td a")
  return {
    feature: (tr.querySelector("th")?.textContent ?? "").trim(), outcome: tr.getAttribute("data-outcome"), project: tr.getAttribute("data-project"),
    name: cells[0], href: link?.getAttribute("href") ?? null, hectares: cells[2], problems: cells[3], overlaps: cells[4]
  }
}))

const upload = async (page: Page, name: string, text: string) => {
  await page.goto(`${server.url}/dashboard/imports`)
  await page.setInputFiles("#im-file", { name, mimeType: "application/geo+json", buffer: Buffer.from(text) })
  await Promise.all([page.waitForEvent("load"), page.click("#upload-form button[type=submit]")])
}

describe("the dashboard's bulk import in headless Chromium", () => {
  it("uploads, previews with the refused feature's problem, imports with a live progress bar, links the projects; cancels; a viewer only reads", async () => {
    const b = await server.canopy.bootstrap({ account_name: "Import Forestry", email: "im-owner@example.com", plan: "enterprise" })
    await server.canopy.members.accept(b.password_token, { name: "Owner", password: "owner password!" })
    const system = Principal.system(b.account.id)
    for (const role of ["editor", "viewer"] as const) {
      const inv = await server.canopy.members.invite(system, { email: `im-${role}@example.com`, role })
      await server.canopy.members.accept(inv.invitation.token, { name: role, password: `${role} password!` })
    }
    const api = client(server.url, b.api_key.token)
    const N = 400

    // The upload form.
    const { context, errors, page } = await signInAs(browser, server.url, "im-editor@example.com", "editor password!")
    page.on("dialog", (d) => void d.accept()) // a cancel is confirmed
    await page.goto(`${server.url}/dashboard/imports`)
    assert.strictEqual(await page.getAttribute("nav a[aria-current=page]", "href"), "/dashboard/imports")
    assert.strictEqual(await page.locator("#upload-form").count(), 1)
    await page.screenshot({ path: join(shots, "imports-upload.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "upload page")

    // The preview: every feature with its name and hectares; the bow-tie refused with its problem, named.
    await upload(page, "stands.geojson", standsFile(N, "Stand", 47))
    assert.match(page.url(), /\/dashboard\/imports\?id=imp_/)
    const previewId = new URL(page.url()).searchParams.get("id")!
    const preview = (await api.get(`/v1/imports/${previewId}`)).body.data
    assert.isTrue(preview.dry_run)
    const previewRows = await rows(page)
    assert.lengthOf(previewRows, 100, "the first page of the preview")
    assert.deepStrictEqual(previewRows.map((r) => r.outcome), preview.results.map((r: { outcome: string }) => r.outcome))
    assert.deepStrictEqual(previewRows.map((r) => r.name), preview.results.map((r: { name: string }) => r.name))
    assert.strictEqual(previewRows[0]!.name, "<b>Stand</b> & co", "a name is text, not markup")
    assert.strictEqual(previewRows[1]!.outcome, "refused")
    assert.include(previewRows[1]!.problems, preview.results[1].problems[0].message)
    assert.include(previewRows[1]!.problems, "Broken stand", "the problem names the feature")
    assert.strictEqual(previewRows[2]!.hectares, preview.results[2].area_hectares.toLocaleString("en-US", { maximumFractionDigits: 4 }))
    assert.include(await page.textContent("#preview-summary"), `${N - 1} would become projects`)
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, 0, "a preview stores no project")
    assert.strictEqual((await page.textContent("#confirm-form button"))!.trim(), `Import ${N - 1} features`)
    await page.screenshot({ path: join(shots, "imports-preview.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "preview page")

    // Confirm: the import's page, its progress bar moved by the script until the end, no reload.
    await Promise.all([page.waitForEvent("load"), page.click("#confirm-form button[type=submit]")])
    const importId = new URL(page.url()).searchParams.get("id")!
    assert.notStrictEqual(importId, previewId)
    if (await page.locator("#import-view").count() === 0) assert.fail(`${page.url()}: ${await page.textContent("main")}`)
    assert.strictEqual(await page.getAttribute("#import-view", "data-state"), "running", "the page shows the import under way")
    await page.evaluate(() => { (globalThis as unknown as { notReloaded: boolean }).notReloaded = true })
    const seen: Array<number> = []
    for (let i = 0; i < 600; i++) {
      const now = await page.evaluate(() => {
        const bar = document.getElementById("import-progress") as HTMLProgressElement | null
        return { value: bar?.value ?? 0, max: bar?.max ?? 0, state: document.getElementById("import-view")?.getAttribute("data-state") }
      })
      if (seen.at(-1) !== now.value) seen.push(now.value)
      if (now.state !== "running") break
      if (i === 2) await page.screenshot({ path: join(shots, "imports-progress.png"), fullPage: true })
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.strictEqual(await page.getAttribute("#import-view", "data-state"), "completed")
    assert.isTrue(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded === true), "the page was not reloaded")
    assert.strictEqual(await page.evaluate(() => (document.getElementById("import-progress") as HTMLProgressElement).value), N)
    assert.strictEqual(await page.evaluate(() => (document.getElementById("import-progress") as HTMLProgressElement).max), N)
    assert.isAbove(seen.length, 1, `the bar moved while the page was shown (${seen.join(", ")})`)
    assert.isTrue(server.logs.some((l) => l.path === "/dashboard/imports/status.json" && l.status === 200), "the page polled the import's status")
    assert.strictEqual((await page.textContent("#count-created"))!.trim(), String(N - 1))
    assert.strictEqual((await page.textContent("#count-refused"))!.trim(), "1")
    assert.include(await page.textContent("#import-announce"), "completed")

    // The result: the created projects linked by name, the refused feature with its problem.
    const done = (await api.get(`/v1/imports/${importId}`)).body.data
    const resultRows = await rows(page)
    assert.lengthOf(resultRows, 100)
    assert.strictEqual(resultRows[1]!.outcome, "refused")
    assert.include(resultRows[1]!.problems, "Broken stand")
    assert.isNull(resultRows[1]!.href)
    const created = resultRows.filter((r) => r.outcome === "created")
    assert.lengthOf(created, 99)
    assert.deepStrictEqual(created.map((r) => r.project), done.results.filter((r: { outcome: string }) => r.outcome === "created").map((r: { project_id: string }) => r.project_id))
    for (const r of created.slice(0, 10)) {
      assert.strictEqual(r.href, `/dashboard/project?id=${r.project}`)
      const p = (await api.get(`/v1/projects/${r.project}`)).body.data
      assert.strictEqual(p.name, r.name, "the project exists with the feature's name")
    }
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, N - 1)
    await page.screenshot({ path: join(shots, "imports-result.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "result page")
    await Promise.all([page.waitForEvent("load"), page.click(`#results-table a[href="/dashboard/project?id=${created[0]!.project}"]`)])
    assert.strictEqual((await page.textContent("h1"))!.trim(), "<b>Stand</b> & co")

    // A second import, cancelled while it runs: the projects made stay, the rest are not imported.
    await upload(page, "more.geojson", standsFile(N, "Second", 46))
    await Promise.all([page.waitForEvent("load"), page.click("#confirm-form button[type=submit]")])
    await Promise.all([page.waitForEvent("load"), page.click("#cancel-form button[type=submit]")])
    assert.include(await page.textContent("#notice"), "Import stopped")
    assert.strictEqual(await page.getAttribute("#import-view", "data-state"), "cancelled")
    const cancelled = (await api.get(`/v1/imports/${new URL(page.url()).searchParams.get("id")}`)).body.data
    assert.strictEqual(cancelled.status, "cancelled")
    assert.isBelow(cancelled.totals.created, N - 1)
    assert.deepStrictEqual(errors.filter((e) => /Content Security Policy|Refused/i.test(e)), [], "nothing refused by the CSP")
    await context.close()

    // A viewer: no upload or confirm form, the import's results readable, a POST refused.
    const viewer = await signInAs(browser, server.url, "im-viewer@example.com", "viewer password!")
    await viewer.page.goto(`${server.url}/dashboard/imports`)
    assert.strictEqual(await viewer.page.locator("#upload-form").count(), 0)
    assert.strictEqual(await viewer.page.locator("#no-upload").count(), 1)
    assert.deepStrictEqual(await axe(viewer.page), [], "viewer's imports page")
    await viewer.page.goto(`${server.url}/dashboard/imports?id=${previewId}`)
    assert.lengthOf(await rows(viewer.page), 100)
    assert.strictEqual(await viewer.page.locator("#confirm-form").count(), 0)
    await viewer.page.goto(`${server.url}/dashboard/imports?id=${importId}`)
    assert.strictEqual((await rows(viewer.page)).filter((r) => r.outcome === "created").length, 99)
    assert.strictEqual(await viewer.page.locator("#cancel-form").count(), 0)
    await viewer.page.screenshot({ path: join(shots, "imports-viewer.png"), fullPage: true })
    assert.deepStrictEqual(await axe(viewer.page), [], "viewer's import page")
    const csrf = await viewer.page.getAttribute("header form input[name=csrf]", "value")
    const before = (await api.get("/v1/projects")).body.meta.total
    const file = { name: "forged.geojson", mimeType: "application/geo+json", buffer: Buffer.from(standsFile(3, "Forged", 45)) }
    const forged = await viewer.page.request.post(`${server.url}/dashboard/imports/preview`, { multipart: { csrf: csrf!, file }, maxRedirects: 0 })
    assert.strictEqual(forged.status(), 403)
    assert.include(await forged.text(), "does not allow importing")
    const forgedConfirm = await viewer.page.request.post(`${server.url}/dashboard/imports/confirm`, { multipart: { csrf: csrf!, preview: previewId, file }, maxRedirects: 0 })
    assert.strictEqual(forgedConfirm.status(), 403)
    const forgedCancel = await viewer.page.request.post(`${server.url}/dashboard/imports/cancel`, { form: { csrf: csrf!, id: importId }, maxRedirects: 0 })
    assert.strictEqual(forgedCancel.status(), 403)
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, before, "nothing was stored")
    const status = await viewer.page.request.get(`${server.url}/dashboard/imports/status.json?id=${importId}`)
    assert.strictEqual(status.status(), 200, "a viewer may follow an import")
    assert.strictEqual((await status.json()).status, "completed")
    const missing = await viewer.page.request.get(`${server.url}/dashboard/imports/status.json?id=imp_nothere`)
    assert.strictEqual(missing.status(), 404)
    assert.strictEqual((await missing.json()).error.code, "NOT_FOUND")
    await viewer.context.close()
  }, 240_000)
})
