/**
 * Helpers for the dashboard's page tests in headless Chromium (playwright-core): a test file's
 * server and browser, an account with its owner and members able to sign in, a context signed in
 * through the sign-in form with its console errors collected (CSP refusals among them), axe-core's
 * serious and critical violations, and waiting until a page's map has drawn.
 */
import { Principal } from "@canopy/core"
import { afterAll, beforeAll } from "@effect/vitest"
import { mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { inject } from "vitest"
import { signIn, launchChromium } from "@canopy/server/testing/browser"
import { startTestServer, type TestServer } from "@canopy/server/testing"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** Where the page tests write their screenshots. */
export const shots = join(process.cwd(), ".test-results", "screenshots")

/** A page-test file's server and browser, and pages signed in to that server (or to another one named). */
export interface PageTests {
  readonly server: TestServer
  readonly browser: Browser
  readonly signedIn: (email: string, password: string, server?: { readonly url: string }) => ReturnType<typeof signedIn>
}

/**
 * Starts a test server on SQLite and headless Chromium before the calling file's tests (and makes
 * the screenshots' folder), closes both after them; `server` and `browser` are there once started.
 */
export const pageTests = (): PageTests => {
  let server: TestServer | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true })
    server = await startTestServer()
    browser = await launchChromium(inject("chromiumPath"))
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })
  return {
    get server() {
      return server!
    },
    get browser() {
      return browser!
    },
    signedIn: (email, password, on = server!) => signedIn(browser!, on.url, email, password)
  }
}

/** An account made by `accountWithMembers`: what the bootstrap answered, and the account's system principal. */
export interface AccountWithMembers {
  readonly bootstrapped: Awaited<ReturnType<TestServer["canopy"]["bootstrap"]>>
  readonly system: Principal.Principal
}

/**
 * An account on `server` (enterprise unless `plan` says otherwise) whose owner `owner` has set the
 * password "owner password!", and a member for each email of `members` with the role given, who
 * has set "<role> password!"; answers what the bootstrap answered and the account's system principal.
 */
export const accountWithMembers = async (
  server: TestServer,
  name: string,
  owner: string,
  members: Readonly<Record<string, "editor" | "viewer">> = {},
  plan: "free" | "pro" | "enterprise" = "enterprise"
): Promise<AccountWithMembers> => {
  const bootstrapped = await server.canopy.bootstrap({ account_name: name, email: owner, plan })
  await server.canopy.members.accept(bootstrapped.password_token, { name: "Owner", password: "owner password!" })
  const system = Principal.system(bootstrapped.account.id)
  for (const [email, role] of Object.entries(members)) {
    const inv = await server.canopy.members.invite(system, { email, role })
    await server.canopy.members.accept(inv.invitation.token, { name: role === "editor" ? "Editor" : "Viewer", password: `${role} password!` })
  }
  return { bootstrapped, system }
}

/** A page of a fresh context signed in to `${baseUrl}/dashboard` as `email`, and its console errors. */
const signedIn = async (browser: Browser, baseUrl: string, email: string, password: string) => {
  const context = await browser.newContext()
  const page = await context.newPage()
  const errors: Array<string> = []
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text())
  })
  page.on("pageerror", (e) => errors.push(String(e)))
  await signIn(page, email, password, `${baseUrl}/dashboard`)
  return { context, page, errors }
}

let forestAccounts = 0

/** An account (`Forest Co <n>`) with a signed-up owner and viewer; answers the system principal, the emails and the admin key. */
export const forestAccount = async (s: TestServer, plan: "free" | "pro" | "enterprise" = "enterprise") => {
  const n = ++forestAccounts
  const owner = `map-owner${n}@example.com`
  const viewer = `map-viewer${n}@example.com`
  const { bootstrapped, system } = await accountWithMembers(s, `Forest Co ${n}`, owner, { [viewer]: "viewer" }, plan)
  return { system, owner, viewer, token: bootstrapped.api_key.token }
}

/** axe-core's serious and critical violations on the current page (with up to three elements each); the lesser ones are logged. */
export const seriousViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const found = await page.evaluate(async () => {
    const r = await (globalThis as unknown as {
      axe: { run: (o: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> }
    })
      .axe.run({ resultTypes: ["violations"] })
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) }))
  })
  const lesser = found.filter((v) => v.impact !== "serious" && v.impact !== "critical")
  if (lesser.length) console.log(`axe, ${new URL(page.url()).pathname}: minor/moderate: ${lesser.map((v) => `${v.id} (${v.impact})`).join(", ")}`)
  return found.filter((v) => v.impact === "serious" || v.impact === "critical")
}

/** Waits (at most `timeout` ms) until the page's map has drawn its data and is idle (its tiles loaded). */
export const mapDrawn = async (page: Page, timeout = 60_000) => {
  await page.waitForFunction(() => {
    const w = globalThis as unknown as { canopyMapStats?: { done: boolean; firstRenderMs: number | null } }
    return w.canopyMapStats?.done === true && w.canopyMapStats.firstRenderMs !== null
  }, undefined, { timeout })
  await page.evaluate(() =>
    new Promise<void>((resolve) => {
      const map = (globalThis as unknown as { canopyMap: { once: (e: string, f: () => void) => void; triggerRepaint: () => void } }).canopyMap
      map.once("idle", () => resolve())
      map.triggerRepaint()
    })
  )
}
