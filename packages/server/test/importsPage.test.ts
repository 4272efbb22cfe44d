/**
 * The dashboard's bulk import in headless Chromium, on SQLite: an editor uploads a GeoJSON
 * FeatureCollection (one feature a bow-tie), sees the preview table with the refused feature's
 * problem, confirms, watches the progress bar reach the end without the page being reloaded, and
 * sees the created projects linked (checked against the API) and the refused feature with its
 * problem; an editor cancels a running import; a viewer sees imports without any form and a POST
 * of theirs is refused (403) with nothing stored; nothing refused by the CSP; axe-core finds no
 * serious or critical violations at any step. Screenshots go to .test-results/screenshots/.
 * Also: the file asked again when the server does not hold it, the held files' bounds, and the
 * forms under a hostile client (megabytes of parts or fields) with /health probed meanwhile.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { MAX_BODY_BYTES } from "../src/http/handler.ts"
import { HELD_FILES, makeHeldFiles } from "../src/pages/imports.ts"
import { accountWithMembers, pageTests, seriousViolations as axe, shots } from "./dashboardBrowser.ts"
import { serveWithOwner, type ServeWithOwner } from "./dashboardSession.ts"
import { BOWTIE, square } from "./gis/fixtures.ts"
import { client, request } from "@canopy/server/testing"
import { withoutStall } from "./healthProbe.ts"

const site = pageTests()

/**
 * `n` small stands apart from one another, named `${prefix} n`, the second a bow-tie named
 * "Broken stand"; the first named with markup. Enough of them that the import runs for a while.
 */
const standsFile = (n: number, prefix: string, lat: number) =>
  JSON.stringify({
    type: "FeatureCollection",
    features: Array.from({ length: n }, (_, i) => ({
      type: "Feature",
      properties: { name: i === 0 ? `<b>${prefix}</b> & co` : i === 1 ? "Broken stand" : `${prefix} ${i + 1}` },
      geometry: i === 1 ? BOWTIE : square(8 + (i % 40) * 0.003, lat + Math.floor(i / 40) * 0.003, 0.002)
    }))
  })

/** The results table's rows as shown. */
const rows = (page: Page) =>
  page.$$eval("#results-table tbody tr", (trs) =>
    trs.map((tr) => {
      const cells = [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim())
      const link = tr.querySelector("td a")
      return {
        feature: (tr.querySelector("th")?.textContent ?? "").trim(),
        outcome: tr.getAttribute("data-outcome"),
        project: tr.getAttribute("data-project"),
        name: cells[0],
        href: link?.getAttribute("href") ?? null,
        hectares: cells[2],
        problems: cells[3],
        overlaps: cells[4]
      }
    }))

/** The `<progress>` bar's value and maximum as the page has them now. */
const progressBar = (page: Page) =>
  page.$eval("#import-progress", (el) => ({ value: (el as unknown as { value: number }).value, max: (el as unknown as { max: number }).max }))

/** Uploads `text` as `name` with the upload form, for a preview. */
const upload = async (page: Page, name: string, text: string) => {
  await page.goto(`${site.server.url}/dashboard/imports`)
  await page.setInputFiles("#im-file", { name, mimeType: "application/geo+json", buffer: Buffer.from(text) })
  await Promise.all([page.waitForEvent("load"), page.click("#upload-form button[type=submit]")])
}

describe("the dashboard's bulk import in headless Chromium", () => {
  it("uploads, previews with the refused feature's problem, imports with a live progress bar, links the projects; cancels; a viewer only reads", async () => {
    const { bootstrapped: b } = await accountWithMembers(site.server, "Import Forestry", "im-owner@example.com", { "im-editor@example.com": "editor",
      "im-viewer@example.com": "viewer" })
    const api = client(site.server.url, b.api_key.token)
    const N = 800 // enough that the import runs for a few seconds: its progress is seen, and it can be cancelled

    // The upload form.
    const { context, errors, page } = await site.signedIn("im-editor@example.com", "editor password!")
    page.on("dialog", (d) => void d.accept()) // a cancel is confirmed
    await page.goto(`${site.server.url}/dashboard/imports`)
    assert.strictEqual(await page.getAttribute("nav a[aria-current=page]", "href"), "/dashboard/imports")
    assert.strictEqual(await page.locator("#upload-form").count(), 1)
    await page.screenshot({ path: join(shots, "imports-upload.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "upload page")

    // The preview: every feature with its name and hectares; the bow-tie refused with its problem, named;
    // the first stand's overlap with a project of the account (removed once seen), the others' none.
    const old = (await api.post("/v1/projects", { name: "Old block", geometry: square(8.001, 47.001, 0.002) })).body.data
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
    const [overlap] = preview.results[0].overlaps.overlaps
    assert.include(overlap, { project_id: old.id, name: "Old block" })
    assert.strictEqual(previewRows[0]!.overlaps, `Old block: ${overlap.overlap_hectares.toLocaleString("en-US", { maximumFractionDigits: 4 })} ha`)
    assert.strictEqual(await page.getAttribute("#results-table tbody tr:first-child ul.overlaps a", "href"), `/dashboard/project?id=${old.id}`)
    assert.strictEqual(previewRows[2]!.overlaps, "none")
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, 1, "a preview stores no project")
    assert.strictEqual((await api.post(`/v1/projects/${old.id}/archive`)).status, 200)
    assert.strictEqual((await api.del(`/v1/projects/${old.id}`)).status, 204)
    assert.strictEqual((await page.textContent("#confirm-form button"))!.trim(), `Import ${N - 1} features`)
    await page.screenshot({ path: join(shots, "imports-preview.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "preview page")

    // Confirm: the import's page, its progress bar moved by the script until the end, no reload.
    await Promise.all([page.waitForEvent("load"), page.click("#confirm-form button[type=submit]")])
    const importId = new URL(page.url()).searchParams.get("id")!
    assert.notStrictEqual(importId, previewId)
    assert.strictEqual(await page.locator("#import-view").count(), 1, `the import's page, not: ${await page.textContent("main")}`)
    assert.strictEqual(await page.getAttribute("#import-view", "data-state"), "running", "the page shows the import under way")
    await page.evaluate(() => {
      ;(globalThis as unknown as { notReloaded: boolean }).notReloaded = true
    })
    const seen: Array<number> = []
    for (let i = 0; i < 600; i++) {
      const now = { ...await progressBar(page), state: await page.getAttribute("#import-view", "data-state") }
      if (seen.at(-1) !== now.value) seen.push(now.value)
      if (now.state !== "running") break
      if (i === 2) await page.screenshot({ path: join(shots, "imports-progress.png"), fullPage: true })
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.strictEqual(await page.getAttribute("#import-view", "data-state"), "completed")
    assert.isTrue(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded === true), "the page was not reloaded")
    assert.deepStrictEqual(await progressBar(page), { value: N, max: N })
    assert.isAbove(seen.length, 1, `the bar moved while the page was shown (${seen.join(", ")})`)
    assert.isTrue(site.server.logs.some((l) => l.path === "/dashboard/imports/status.json" && l.status === 200), "the page polled the import's status")
    assert.strictEqual((await page.textContent("#count-created"))!.trim(), String(N - 1))
    assert.strictEqual((await page.textContent("#count-refused"))!.trim(), "1")
    assert.include(await page.textContent("#import-announce"), "completed")
    const ms = (path: string) => site.server.logs.filter((l) => l.path === path).map((l) => l.duration_ms).sort((a, b) => a - b)
    const polls = ms("/dashboard/imports/status.json")
    console.log(
      `[sqlite] dashboard import of ${N} features: preview POST ${ms("/dashboard/imports/preview")[0]} ms, confirm POST ${
        ms("/dashboard/imports/confirm")[0]
      } ms, ` +
        `${polls.length} status polls (median ${polls[Math.floor(polls.length / 2)]} ms, max ${polls.at(-1)} ms), pages of 100 features ${
          ms("/dashboard/imports").at(-1)
        } ms at most`
    )

    // The result: the created projects linked by name, the refused feature with its problem.
    const done = (await api.get(`/v1/imports/${importId}`)).body.data
    const resultRows = await rows(page)
    assert.lengthOf(resultRows, 100)
    assert.strictEqual(resultRows[1]!.outcome, "refused")
    assert.include(resultRows[1]!.problems, "Broken stand")
    assert.isNull(resultRows[1]!.href)
    const created = resultRows.filter((r) => r.outcome === "created")
    assert.lengthOf(created, 99)
    assert.deepStrictEqual(created.map((r) => r.project),
      done.results.filter((r: { outcome: string }) => r.outcome === "created").map((r: { project_id: string }) => r.project_id))
    for (const r of created.slice(0, 10)) {
      assert.strictEqual(r.href, `/dashboard/project?id=${r.project}`)
      const p = (await api.get(`/v1/projects/${r.project}`)).body.data
      assert.strictEqual(p.name, r.name, "the project exists with the feature's name")
    }
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, N - 1)
    await page.screenshot({ path: join(shots, "imports-result.png"), fullPage: true })
    assert.deepStrictEqual(await axe(page), [], "result page")
    // (The project page's HTML, without drawing its map: on a starved CPU the map can hold the renderer.)
    const linked = await page.request.get(`${site.server.url}${created[0]!.href}`)
    assert.strictEqual(linked.status(), 200)
    assert.include(await linked.text(), "<h1>&lt;b&gt;Stand&lt;/b&gt; &amp; co</h1>", "the link opens the project")

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
    const viewer = await site.signedIn("im-viewer@example.com", "viewer password!")
    await viewer.page.goto(`${site.server.url}/dashboard/imports`)
    assert.strictEqual(await viewer.page.locator("#upload-form").count(), 0)
    assert.strictEqual(await viewer.page.locator("#no-upload").count(), 1)
    assert.deepStrictEqual(await axe(viewer.page), [], "viewer's imports page")
    await viewer.page.goto(`${site.server.url}/dashboard/imports?id=${previewId}`)
    assert.lengthOf(await rows(viewer.page), 100)
    assert.strictEqual(await viewer.page.locator("#confirm-form").count(), 0)
    await viewer.page.goto(`${site.server.url}/dashboard/imports?id=${importId}`)
    assert.strictEqual((await rows(viewer.page)).filter((r) => r.outcome === "created").length, 99)
    assert.strictEqual(await viewer.page.locator("#cancel-form").count(), 0)
    await viewer.page.screenshot({ path: join(shots, "imports-viewer.png"), fullPage: true })
    assert.deepStrictEqual(await axe(viewer.page), [], "viewer's import page")
    const csrf = await viewer.page.getAttribute("header form input[name=csrf]", "value")
    const before = (await api.get("/v1/projects")).body.meta.total
    const file = { name: "forged.geojson", mimeType: "application/geo+json", buffer: Buffer.from(standsFile(3, "Forged", 45)) }
    const forged = await viewer.page.request.post(`${site.server.url}/dashboard/imports/preview`, { multipart: { csrf: csrf!, file }, maxRedirects: 0 })
    assert.strictEqual(forged.status(), 403)
    assert.include(await forged.text(), "does not allow importing")
    const forgedConfirm = await viewer.page.request.post(`${site.server.url}/dashboard/imports/confirm`, { multipart: { csrf: csrf!, preview: previewId, file },
      maxRedirects: 0 })
    assert.strictEqual(forgedConfirm.status(), 403)
    const forgedCancel = await viewer.page.request.post(`${site.server.url}/dashboard/imports/cancel`, { form: { csrf: csrf!, id: importId }, maxRedirects: 0 })
    assert.strictEqual(forgedCancel.status(), 403)
    assert.strictEqual((await api.get("/v1/projects")).body.meta.total, before, "nothing was stored")
    const status = await viewer.page.request.get(`${site.server.url}/dashboard/imports/status.json?id=${importId}`)
    assert.strictEqual(status.status(), 200, "a viewer may follow an import")
    assert.strictEqual((await status.json()).status, "completed")
    assert.strictEqual((await viewer.page.goto(`${site.server.url}/dashboard/imports?id=imp_nothere`))?.status(), 404)
    assert.include(await viewer.page.textContent("main .error"), "does not exist")
    const missing = await viewer.page.request.get(`${site.server.url}/dashboard/imports/status.json?id=imp_nothere`)
    assert.strictEqual(missing.status(), 404)
    assert.strictEqual((await missing.json()).error.code, "NOT_FOUND")
    await viewer.context.close()
  }, 240_000)

  it("asks for the file again when this server does not hold it; refuses a bad form, a file it cannot read and a second import at once, storing nothing",
    async () => {
      const { bootstrapped: b } = await accountWithMembers(site.server, "Import Edges", "ie-owner@example.com", { "ie-editor@example.com": "editor" })
      const api = client(site.server.url, b.api_key.token)
      const total = async () => (await api.get("/v1/projects")).body.meta.total as number
      const M = 1_500 // enough that the owner's import still runs when the editor confirms
      const text = standsFile(M, "Edge", 45)

      // The editor previews; the owner, who did not upload it, is asked for the file with the confirmation.
      const editor = await site.signedIn("ie-editor@example.com", "editor password!")
      await upload(editor.page, "edges.geojson", text)
      const previewUrl = editor.page.url()
      const owner = await site.signedIn("ie-owner@example.com", "owner password!")
      await owner.page.goto(previewUrl)
      assert.strictEqual(await owner.page.getAttribute("#confirm-form", "enctype"), "multipart/form-data")
      assert.strictEqual(await owner.page.locator("#cf-file").count(), 1)
      assert.deepStrictEqual(await axe(owner.page), [], "a preview asking for the file again")
      // Without the file the browser refuses to send; a confirmation sent without it changes nothing.
      const csrf = (await owner.page.getAttribute("#confirm-form input[name=csrf]", "value"))!
      const previewId = new URL(previewUrl).searchParams.get("id")!
      const bare = await owner.page.request.post(`${site.server.url}/dashboard/imports/confirm`, { form: { csrf, preview: previewId }, maxRedirects: 0 })
      assert.strictEqual(bare.status(), 303)
      assert.strictEqual(await total(), 0)
      await owner.page.setInputFiles("#cf-file", { name: "edges.geojson", mimeType: "application/geo+json", buffer: Buffer.from(text) })
      await Promise.all([owner.page.waitForEvent("load"), owner.page.click("#confirm-form button[type=submit]")])
      const running = new URL(owner.page.url()).searchParams.get("id")!
      assert.match(running, /^imp_/)
      assert.notStrictEqual(running, previewId)

      // While it runs, the editor's confirmation (the file held for them) is refused: one import of an account at a time.
      await Promise.all([editor.page.waitForEvent("load"), editor.page.click("#confirm-form button[type=submit]")])
      assert.include(await editor.page.textContent("#notice"), "Another import of this account is running", "the API's 429, in plain words")
      assert.strictEqual(editor.page.url(), previewUrl, "back to the preview")
      await owner.page.waitForSelector("#import-view[data-state=completed]", { timeout: 120_000 })
      assert.strictEqual(await total(), M - 1)

      // A form with another session's token: 403, nothing stored.
      const forged = await editor.page.request.post(`${site.server.url}/dashboard/imports/preview`, {
        multipart: { csrf, file: { name: "x.geojson", mimeType: "application/geo+json", buffer: Buffer.from(standsFile(3, "Forged", 44)) } },
        maxRedirects: 0
      })
      assert.strictEqual(forged.status(), 403)
      // No session: back to the sign-in, nothing read.
      const anonymous = await fetch(`${site.server.url}/dashboard/imports/preview`, { method: "POST", body: new FormData(), redirect: "manual" })
      assert.strictEqual(anonymous.status, 303)
      assert.strictEqual((await fetch(`${site.server.url}/dashboard/imports/status.json?id=${running}`)).status, 401)

      // A file that is not a set of boundaries, and an attribute no feature has: the problems shown, nothing stored.
      await upload(editor.page, "notes.geojson", "{\"type\": \"Feature\"")
      assert.include(await editor.page.textContent("#notice"), "cannot be imported")
      await editor.page.goto(`${site.server.url}/dashboard/imports`)
      await editor.page.fill("#im-name-field", "compartment")
      await editor.page.setInputFiles("#im-file", { name: "more.geojson", mimeType: "application/geo+json", buffer: Buffer.from(standsFile(3, "More", 44)) })
      await Promise.all([editor.page.waitForEvent("load"), editor.page.click("#upload-form button[type=submit]")])
      assert.include(await editor.page.textContent("#notice"), "query.name_field")
      assert.deepStrictEqual(await axe(editor.page), [], "the upload page with a notice")
      await editor.page.screenshot({ path: join(shots, "imports-refused.png"), fullPage: true })
      assert.strictEqual(await total(), M - 1)
      assert.deepStrictEqual([...editor.errors, ...owner.errors].filter((e) => /Content Security Policy|Refused/i.test(e)), [])
      await editor.context.close()
      await owner.context.close()
    }, 240_000)

  it("holds one previewed file per member, drops them after their time and the oldest past the byte and count budgets", () => {
    let clock = 0
    const held = makeHeldFiles(() => clock)
    const file = (mib: number) => ({ bytes: new Uint8Array(mib * 1024 * 1024), mediaType: "" })
    held.keep("imp_a", "acc:alice", file(12))
    assert.isDefined(held.get("imp_a", "acc:alice"))
    assert.isUndefined(held.get("imp_a", "acc:bob"), "another member's preview is not theirs to confirm")
    held.keep("imp_a2", "acc:alice", file(12))
    assert.isUndefined(held.get("imp_a", "acc:alice"), "a new preview replaces the member's previous one")
    held.keep("imp_b", "acc:bob", file(12))
    held.keep("imp_c", "acc:carol", file(12))
    assert.isAtMost(held.bytes(), HELD_FILES.maxBytes)
    assert.isUndefined(held.get("imp_a2", "acc:alice"), "the oldest dropped past the budget")
    assert.isDefined(held.get("imp_b", "acc:bob"))
    assert.isDefined(held.get("imp_c", "acc:carol"))
    clock += HELD_FILES.ttlMs + 1
    assert.isUndefined(held.get("imp_c", "acc:carol"), "dropped after its time")
    assert.strictEqual(held.bytes(), 0)
    held.keep("imp_big", "acc:dave", file(33))
    assert.strictEqual(held.bytes(), 0, "a file past the budget is not held")
    for (let i = 0; i <= HELD_FILES.maxFiles; i++) held.keep(`imp_${i}`, `acc:m${i}`, { bytes: new Uint8Array(1), mediaType: "" })
    assert.strictEqual(held.bytes(), HELD_FILES.maxFiles, "at most maxFiles held")
    assert.isUndefined(held.get("imp_0", "acc:m0"), "the oldest dropped past the count")
    assert.isDefined(held.get(`imp_${HELD_FILES.maxFiles}`, `acc:m${HELD_FILES.maxFiles}`))
  })
})

// The server as a process of its own: the client's sending of megabytes must not count as its time.
describe("the import forms under a hostile client", () => {
  let proc: ServeWithOwner
  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${proc.url}${path}`, { method: "POST", body, redirect: "manual", headers })

  beforeAll(async () => {
    proc = await serveWithOwner({ name: "Hostile Imports", email: "hi@example.com", password: "a long enough password" }, "/dashboard/imports")
  }, 60_000)
  afterAll(() => proc?.close())

  it(
    "4 MB of empty multipart parts and 5 MB of urlencoded fields, with and without a session: refused within the forms' caps, /health answers promptly, nothing stored",
    async () => {
      const boundary = "hostile-boundary"
      const one = `--${boundary}\r\nContent-Disposition: form-data; name="f"\r\n\r\n\r\n`
      const manyParts = `${one.repeat(Math.floor((4 * 1024 * 1024) / one.length))}--${boundary}--\r\n`
      const multipart = { "content-type": `multipart/form-data; boundary=${boundary}` }
      const fields: Array<string> = []
      for (let i = 0, size = 0; size < MAX_BODY_BYTES - 64; i++) {
        fields.push(`k${i}=&`)
        size += `k${i}=&`.length
      }
      const fieldBomb = `csrf=${encodeURIComponent(proc.session.csrf)}&preview=imp_x&${fields.join("")}`.slice(0, MAX_BODY_BYTES - 64)
      const urlencoded = { "content-type": "application/x-www-form-urlencoded" }
      for (const path of ["/dashboard/imports/preview", "/dashboard/imports/confirm"]) {
        for (const a of await withoutStall(proc.url, () => post(path, manyParts, multipart))) assert.strictEqual(a.status, 303, "no session: to the sign-in")
        for (const a of await withoutStall(proc.url, () => post(path, manyParts, { ...multipart, cookie: proc.session.cookie }))) {
          assert.strictEqual(a.status, 303, "back to the form with the problem")
          assert.match(a.headers.get("location") ?? "", /\/dashboard\/imports$/)
        }
      }
      for (const path of ["/dashboard/imports/confirm", "/dashboard/imports/cancel"]) {
        for (const a of await withoutStall(proc.url, () => post(path, fieldBomb, { ...urlencoded, cookie: proc.session.cookie }))) {
          assert.strictEqual(a.status, 413, "the form refused by its caps")
          assert.include(a.text, "Nothing was changed")
        }
      }
      assert.strictEqual((await request(proc.url, "GET", "/v1/projects", { token: proc.apiToken })).body.meta.total, 0)
    },
    180_000
  )
})
