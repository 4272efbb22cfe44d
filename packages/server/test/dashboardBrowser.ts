/**
 * Helpers for the dashboard's page tests in headless Chromium (playwright-core): a context signed
 * in through the sign-in form with its console errors collected (CSP refusals among them),
 * axe-core's serious and critical violations, and waiting until a page's map has drawn.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Browser, Page } from "playwright-core"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** A page of a fresh context signed in to `${baseUrl}/dashboard` as `email`, and its console errors. */
export const signedIn = async (browser: Browser, baseUrl: string, email: string, password: string) => {
  const context = await browser.newContext()
  const page = await context.newPage()
  const errors: Array<string> = []
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text())
  })
  page.on("pageerror", (e) => errors.push(String(e)))
  await page.goto(`${baseUrl}/dashboard`)
  await page.fill("#email", email)
  await page.fill("#password", password)
  await Promise.all([page.waitForEvent("load"), page.click("button[type=submit]")])
  return { context, page, errors }
}

/** axe-core's serious and critical violations on the current page. */
export const seriousViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const found = await page.evaluate(async () => {
    const r = await (globalThis as unknown as { axe: { run: (o: unknown) => Promise<{ violations: Array<{ id: string; impact: string }> }> } })
      .axe.run({ resultTypes: ["violations"] })
    return r.violations.map((v) => ({ id: v.id, impact: v.impact }))
  })
  return found.filter((v) => v.impact === "serious" || v.impact === "critical")
}

/** Waits until the page's map has drawn its data and is idle (its tiles loaded). */
export const mapDrawn = async (page: Page) => {
  await page.waitForFunction(() => {
    const w = globalThis as unknown as { canopyMapStats?: { done: boolean; firstRenderMs: number | null } }
    return w.canopyMapStats?.done === true && w.canopyMapStats.firstRenderMs !== null
  }, undefined, { timeout: 60_000 })
  await page.evaluate(() =>
    new Promise<void>((resolve) => {
      const map = (globalThis as unknown as { canopyMap: { once: (e: string, f: () => void) => void; triggerRepaint: () => void } }).canopyMap
      map.once("idle", () => resolve())
      map.triggerRepaint()
    })
  )
}
