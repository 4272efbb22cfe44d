/**
 * The steps the headless-Chromium walks share, wherever Canopy is served (alone, or mounted under
 * a prefix in a host application): one browser and a third-party application's OAuth callback for
 * a test file, submitting a form, signing in, accepting an invitation (the server judging a short
 * password first), registering an OAuth application in the dashboard, and the authorization-code
 * flow's URL and token requests. The browser is the npm registry's Chromium (`@sparticuz/chromium`)
 * driven by `playwright-core`, found once per run by `resolveChromium` in a Vitest global setup
 * that provides it as `chromiumPath`.
 */
import { OAuth } from "@canopy/core"
import { afterAll, assert, beforeAll } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { inject } from "vitest"
import { type CallbackReceiver, launchChromium, startCallbackReceiver } from "./chromium.ts"

export { type CallbackReceiver, launchChromium, resolveChromium, startCallbackReceiver } from "./chromium.ts"

/** A test file's browser and OAuth callback receiver, there once its tests start. */
export interface BrowserWithCallback {
  readonly browser: Browser
  readonly receiver: CallbackReceiver
}

/** Launches headless Chromium and starts a callback receiver before the calling file's tests; closes both after them. */
export const browserWithCallback = (): BrowserWithCallback => {
  let browser: Browser | undefined
  let receiver: CallbackReceiver | undefined
  beforeAll(async () => {
    browser = await launchChromium(inject("chromiumPath"))
    receiver = await startCallbackReceiver()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    receiver?.close()
  })
  return {
    get browser() {
      return browser!
    },
    get receiver() {
      return receiver!
    }
  }
}

/** Clicks a control that submits a form, and waits for the page that answers it to load. */
export const submit = (page: Page, selector: string) => Promise.all([page.waitForEvent("load"), page.click(selector)])

/** Fills the sign-in form on the page at hand (or at `url`, opened first) and submits it. */
export const signIn = async (page: Page, email: string, password: string, url?: string) => {
  if (url !== undefined) await page.goto(url)
  await page.fill("#email", email)
  await page.fill("#password", password)
  await submit(page, "button[type=submit]")
}

/**
 * On an invitation's page: a password too short is refused by the server (the browser's own check
 * taken off) with an alert; then `password` is accepted and the page welcomes `name`.
 */
export const acceptInvitation = async (page: Page, name: string, password: string) => {
  await page.fill("#name", name)
  await page.fill("#password", "short")
  await page.evaluate("document.querySelector('#password').removeAttribute('minlength')") // let the server judge
  await submit(page, "button[type=submit]")
  assert.include(await page.textContent("[role=alert]"), "password")
  await page.fill("#name", name)
  await page.fill("#password", password)
  await submit(page, "button[type=submit]")
  assert.include(await page.textContent("h1"), `Welcome, ${name}`)
}

/** Registers an OAuth application on the dashboard page at hand; answers its client id. */
export const registerApplication = async (page: Page, name: string, redirectUri: string, scopes: ReadonlyArray<string>) => {
  await page.fill("#app-name", name)
  await page.fill("#app-uris", redirectUri)
  for (const scope of scopes) await page.check(`#applications input[value='${scope}']`)
  await submit(page, "#applications button:has-text('Register application')")
  return (await page.textContent("#client-id"))!.trim()
}

/** The authorization endpoint's URL for an authorization-code request with PKCE (S256) from `verifier`. */
export const authorizeUrl = (endpoint: string, request: {
  readonly clientId: string
  readonly redirectUri: string
  readonly scope: string
  readonly state: string
  readonly verifier: string
}) =>
  `${endpoint}?${new URLSearchParams({
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_type: "code",
    scope: request.scope,
    state: request.state,
    code_challenge: OAuth.challengeOf(request.verifier),
    code_challenge_method: "S256"
  })}`

/** Posts a form to the token endpoint. */
export const tokenRequest = (endpoint: string, form: Record<string, string>) =>
  fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) })
