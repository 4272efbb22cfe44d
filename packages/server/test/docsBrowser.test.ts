/**
 * `/docs` in headless Chromium: the reference is rendered by Scalar's bundle
 * served by Canopy itself (no other origin is contacted), under its Content-Security-Policy,
 * with no console error, at the root and mounted under a base path.
 */
import { createCanopy, memoryStorage } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { inject } from "vitest"
import { nodeHandler } from "../src/index.ts"
import { launchChromium } from "@canopy/server/testing/browser"
import { startTestServer, type TestServer } from "@canopy/server/testing"

/** Test output (not committed): what the reference looks like. */
const SCREENSHOTS = join(import.meta.dirname, "../../../.test-results/screenshots")

let browser: Browser
let server: TestServer
let mounted: Server
let mountedUrl: string
let closeMounted: () => Promise<void>

beforeAll(async () => {
  browser = await launchChromium(inject("chromiumPath"))
  server = await startTestServer()
  const canopy = await createCanopy({ storage: memoryStorage() })
  const handler = nodeHandler(canopy, { basePath: "/canopy" })
  mounted = createServer((req, res) => void handler(req, res))
  await new Promise<void>((r) => mounted.listen(0, "127.0.0.1", r))
  mountedUrl = `http://127.0.0.1:${(mounted.address() as { port: number }).port}`
  closeMounted = async () => {
    mounted.close()
    await canopy.close()
  }
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await closeMounted?.()
})

/** Opens a reference page; answers what it rendered and every problem the browser reported. */
const open = async (url: string, screenshot?: string) => {
  const page = await browser.newPage()
  const problems: Array<string> = []
  const origins = new Set<string>()
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`)
  })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
  page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`))
  page.on("request", (r) => origins.add(new URL(r.url()).origin))
  const response = await page.goto(url)
  await page.getByText("Create a project").first().waitFor({ timeout: 30_000 })
  await page.getByText("Invite a member").first().waitFor({ timeout: 10_000 })
  const text = await page.evaluate("document.body.innerText") as string
  if (screenshot) {
    mkdirSync(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: join(SCREENSHOTS, screenshot) })
  }
  await page.close()
  return { response, problems, origins, text }
}

describe("/docs in headless Chromium", () => {
  it("renders every tag's operations from the served document, only from Canopy, with no console errors", async () => {
    const { origins, problems, response, text } = await open(`${server.url}/docs`, "docs.png")
    assert.deepStrictEqual(problems, [])
    assert.deepStrictEqual([...origins], [server.url], "nothing is loaded from elsewhere (no CDN, no fonts)")
    const csp = response!.headers()["content-security-policy"]!
    assert.include(csp, "script-src 'self'")
    assert.notInclude(csp, "unsafe-eval")
    for (const summary of ["List projects", "Create an asset", "Get the account", "Create a webhook", "Check the presented token"])
      assert.include(text, summary)
  }, 60_000)

  it("works mounted under a base path: the bundle and the document come from below it", async () => {
    const { origins, problems, response } = await open(`${mountedUrl}/canopy/docs`)
    assert.deepStrictEqual(problems, [])
    assert.deepStrictEqual([...origins], [mountedUrl])
    assert.strictEqual(response!.status(), 200)
  }, 60_000)

  it("serves the bundle with long-lived caching under a versioned URL, revalidated by ETag", async () => {
    const html = await (await fetch(`${server.url}/docs`)).text()
    const src = /<script src="([^"]+)"/.exec(html)![1]!
    assert.match(src, /^\/docs\/api-reference\.js\?v=\d+\.\d+\.\d+/)
    const script = await fetch(`${server.url}${src}`)
    assert.strictEqual(script.status, 200)
    assert.match(script.headers.get("content-type")!, /^text\/javascript/)
    assert.include(script.headers.get("cache-control")!, "immutable")
    const etag = script.headers.get("etag")!
    assert.isAbove((await script.text()).length, 100_000)
    const again = await fetch(`${server.url}${src}`, { headers: { "if-none-match": etag } })
    assert.strictEqual(again.status, 304)
  })
})
