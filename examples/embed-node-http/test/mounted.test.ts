/**
 * Canopy mounted under /canopy in a host application, walked in headless
 * Chromium: the owner's set-password link → sign in → dashboard; an invitation accepted; the OAuth
 * authorization-code flow with PKCE — every form, link, redirect and cookie staying under the
 * prefix. Plus the documents that name URLs: /docs, the OpenAPI `servers`, the OAuth metadata.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BrowserContext } from "playwright-core"
import { acceptInvitation, authorizeUrl, browserWithCallback, registerApplication, signIn, submit, tokenRequest } from "@canopy/server/testing/browser"
import { BASE_PATH, startApp } from "../src/app.ts"

const dir = mkdtempSync(join(tmpdir(), "canopy-mounted-"))
let app: Awaited<ReturnType<typeof startApp>>
/** Every path the browser asked the host for: none may fall outside the prefix. */
const HOST_404 = "not found in the host application\n"

beforeAll(async () => {
  app = await startApp({ port: 0, db: join(dir, "mounted.db") })
}, 60_000)

afterAll(async () => {
  await app?.close()
  rmSync(dir, { recursive: true, force: true })
})

// The browser, and the third-party application's callback.
const chrome = browserWithCallback()

/** Records every request the page makes to the host, and what the host answered. */
const watch = (context: BrowserContext) => {
  const seen: Array<{ url: string; status: number; method: string }> = []
  context.on("response", (r) => {
    if (r.url().startsWith(app.url)) seen.push({ url: r.url(), status: r.status(), method: r.request().method() })
  })
  return seen
}

/** Every request to the host stayed under /canopy and none hit the host's 404. */
const allUnderPrefix = (seen: ReadonlyArray<{ url: string; status: number; method: string }>) => {
  assert.isAbove(seen.length, 0)
  for (const r of seen) {
    const path = new URL(r.url).pathname
    assert.isTrue(path === BASE_PATH || path.startsWith(`${BASE_PATH}/`), `${r.method} ${r.url} is outside ${BASE_PATH}`)
    assert.notStrictEqual(r.status, 404, `${r.method} ${r.url} answered 404`)
  }
}

/** The owner of a fresh account, with the password set through the page of their set-password link. */
const ownerSignedUp = async (email: string, password: string, name: string) => {
  const b = await app.canopy.bootstrap({ account_name: `Mounted ${name}`, email, plan: "pro" })
  const context = await chrome.browser.newContext()
  const seen = watch(context)
  const page = await context.newPage()
  // The link `canopy init` prints, on the mounted site.
  await page.goto(`${app.url}${BASE_PATH}/invitations/accept?token=${encodeURIComponent(b.password_token)}`)
  assert.strictEqual(await page.getAttribute("form", "action"), `${BASE_PATH}/invitations/accept`)
  await page.fill("#name", name)
  await page.fill("#password", password)
  await submit(page, "button[type=submit]")
  assert.include(await page.textContent("h1"), `Welcome, ${name}`)
  await page.close()
  return { b, context, seen }
}

describe("Canopy mounted under /canopy, in headless Chromium", () => {
  it("the owner's set-password link, then sign-in: the dashboard shows; cookies are scoped to /canopy", async () => {
    const { b, context, seen } = await ownerSignedUp("owner-mounted@example.com", "mounted owner password", "Maude Owner")
    const page = await context.newPage()
    // The host's root is the host's; /canopy/ leads to the dashboard's sign-in.
    await page.goto(`${app.url}${BASE_PATH}/`)
    assert.strictEqual(new URL(page.url()).pathname, `${BASE_PATH}/dashboard`)
    assert.strictEqual(await page.getAttribute("form", "action"), `${BASE_PATH}/dashboard/sign-in`)
    await signIn(page, "owner-mounted@example.com", "wrong password!!")
    assert.include(await page.textContent("[role=alert]"), "wrong")
    await signIn(page, "owner-mounted@example.com", "mounted owner password")
    assert.strictEqual(new URL(page.url()).pathname, `${BASE_PATH}/dashboard`)
    assert.include(await page.textContent("h1"), b.account.name)
    // every form of the dashboard posts under the prefix
    const actions = await page.$$eval("form", (forms) => forms.map((f) => f.getAttribute("action")))
    assert.isAbove(actions.length, 5)
    assert.deepStrictEqual([...new Set(actions)], [`${BASE_PATH}/dashboard/action`])
    // an action: an API key, usable on the mounted API
    await page.fill("#key-name", "Mounted robot")
    await page.check("#api-keys input[value='projects:read']")
    await submit(page, "#api-keys button:has-text('Create API key')")
    const key = (await page.textContent("#shown-once"))!.trim()
    const list = await fetch(`${app.url}${BASE_PATH}/v1/projects`, { headers: { authorization: `Bearer ${key}` } })
    assert.strictEqual(list.status, 200)
    const cookies = await context.cookies(app.url + BASE_PATH)
    assert.sameMembers(cookies.map((c) => c.name), ["canopy_csrf", "canopy_session"])
    for (const c of cookies) assert.strictEqual(c.path, BASE_PATH, c.name)
    assert.lengthOf(await context.cookies(`${app.url}/`), 0, "the host's own pages see no Canopy cookie")
    await submit(page, "button:has-text('Sign out')")
    assert.include(await page.textContent("h1"), "Sign in to Canopy")
    allUnderPrefix(seen)
    await context.close()
  })

  it("an invitation: the link the dashboard shows, accepted in another browser, under /canopy", async () => {
    const { b, context, seen } = await ownerSignedUp("owner-inviting@example.com", "inviting owner password", "Ivy Owner")
    const page = await context.newPage()
    await signIn(page, "owner-inviting@example.com", "inviting owner password", `${app.url}${BASE_PATH}/dashboard`)
    await page.fill("#inv-email", "mounted-newbie@example.com")
    await page.selectOption("#inv-role", "editor")
    await submit(page, "#members button:has-text('Invite')")
    const link = (await page.textContent("#shown-once"))!.trim()
    assert.match(link, new RegExp(`^${app.url.replace(/\./g, "\\.")}${BASE_PATH}/invitations/accept\\?token=cnp_inv_\\w+$`))
    await context.close()

    const invitee = await chrome.browser.newContext()
    const inviteeSeen = watch(invitee)
    const p = await invitee.newPage()
    await p.goto(link)
    await acceptInvitation(p, "Nell Newbie", "a long enough password")
    const members = await app.canopy.members.list(await app.canopy.asMember(b.account.id, b.user.id))
    assert.strictEqual(members.data.find((m) => m.email === "mounted-newbie@example.com")?.status, "active")
    allUnderPrefix(seen)
    allUnderPrefix(inviteeSeen)
    await invitee.close()
  })

  it("the OAuth authorization-code flow with PKCE: consent under /canopy, redirect with the code, exchange at the metadata's token endpoint, /v1/me", async () => {
    const { b, context } = await ownerSignedUp("owner-oauth@example.com", "oauth owner password", "Olive Owner")
    const { callbacks, url: callbackUrl } = chrome.receiver
    const owner = await context.newPage()
    await signIn(owner, "owner-oauth@example.com", "oauth owner password", `${app.url}${BASE_PATH}/dashboard`)
    const clientId = await registerApplication(owner, "Mounted Notes", callbackUrl, ["profile", "projects:read", "public"])
    await context.close()

    // The application discovers the endpoints from the metadata, on the mounted site.
    const metadata = await (await fetch(`${app.url}${BASE_PATH}/.well-known/oauth-authorization-server`)).json() as Record<string, string>
    assert.strictEqual(metadata.issuer, `${app.url}${BASE_PATH}`)

    const verifier = "bW91bnRlZC1jYW5vcHktcGtjZS12ZXJpZmllci0xMjM0NTY3ODkwYWJjZGVm"
    const authorize = authorizeUrl(metadata.authorization_endpoint!, { clientId, redirectUri: callbackUrl, scope: "profile projects:read",
      state: "mounted-state", verifier })
    const user = await chrome.browser.newContext()
    const seen = watch(user)
    const page = await user.newPage()
    await page.goto(authorize)
    assert.include(await page.textContent("h1"), "Sign in to continue to Mounted Notes")
    assert.strictEqual(await page.getAttribute("form", "action"), `${BASE_PATH}/oauth/sign-in`)
    await signIn(page, "owner-oauth@example.com", "oauth owner password")
    assert.strictEqual(new URL(page.url()).pathname, `${BASE_PATH}/oauth/authorize`)
    assert.include(await page.textContent("h1"), "Mounted Notes wants to access your Canopy account")
    assert.include(await page.textContent("ul"), "See your name and email address")
    assert.strictEqual(await page.getAttribute("form", "action"), `${BASE_PATH}/oauth/authorize`)
    await page.click("button[value=approve]")
    await page.waitForURL((u) => u.toString().startsWith(callbackUrl))
    const back = callbacks.at(-1)!
    assert.strictEqual(back.get("state"), "mounted-state")
    const code = back.get("code")!
    assert.match(code, /^cnp_ocd_/)
    for (const c of await user.cookies(app.url + BASE_PATH)) assert.strictEqual(c.path, BASE_PATH, c.name)
    allUnderPrefix(seen)
    await user.close()

    const exchange = await tokenRequest(metadata.token_endpoint!, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: callbackUrl,
      code_verifier: verifier })
    const tokens = await exchange.json() as { access_token: string; scope: string }
    assert.strictEqual(exchange.status, 200, JSON.stringify(tokens))
    assert.strictEqual(tokens.scope, "profile projects:read")
    const me = await fetch(`${app.url}${BASE_PATH}/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    const body = await me.json() as { data: Record<string, unknown> }
    assert.strictEqual(me.status, 200, JSON.stringify(body))
    assert.deepStrictEqual(body.data, { id: b.user.id, name: "Olive Owner", email: "owner-oauth@example.com", role: "owner", account_id: b.account.id })
  })
})

describe("the documents that name URLs, mounted", () => {
  it("/canopy/docs links the OpenAPI document under the prefix; its servers say /canopy; the OAuth metadata's issuer and endpoints carry the prefix and answer", async () => {
    const docs = await (await fetch(`${app.url}${BASE_PATH}/docs`)).text()
    // The reference (Scalar) loads the document named by its data-url; the no-script fallback links it.
    const href = /data-url="([^"]+)"/.exec(docs)?.[1]
    assert.strictEqual(href, `${BASE_PATH}/v1/openapi.json`)
    assert.strictEqual(/machine-readable document: <a href="([^"]+)"/.exec(docs)?.[1], href)
    assert.match(docs, new RegExp(`<script src="${BASE_PATH}/docs/api-reference\\.js`))
    const openapi = await fetch(new URL(href!, app.url))
    assert.strictEqual(openapi.status, 200)
    const doc = await openapi.json() as { servers: Array<{ url: string }>; paths: Record<string, Record<string, unknown>> }
    assert.deepStrictEqual(doc.servers, [{ url: BASE_PATH }])
    assert.property(doc.paths, "/v1/me")
    // a server URL plus a path is where the API answers
    const { api_key } = await app.canopy.bootstrap({ account_name: "Docs Co", email: "docs@example.com" })
    const viaServers = await fetch(new URL(`${doc.servers[0]!.url}/v1/projects`, app.url), { headers: { authorization: `Bearer ${api_key.token}` } })
    assert.strictEqual(viaServers.status, 200)

    const meta = await fetch(`${app.url}${BASE_PATH}/.well-known/oauth-authorization-server`)
    const m = await meta.json() as Record<string, string>
    assert.deepStrictEqual([m.issuer, m.authorization_endpoint, m.token_endpoint, m.revocation_endpoint], [
      `${app.url}${BASE_PATH}`,
      `${app.url}${BASE_PATH}/oauth/authorize`,
      `${app.url}${BASE_PATH}/oauth/token`,
      `${app.url}${BASE_PATH}/oauth/revoke`
    ])
    const token = await fetch(m.token_endpoint!, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=authorization_code" })
    assert.strictEqual(token.status, 401, "Canopy's token endpoint answers (no client: invalid_client)")
    assert.strictEqual(((await token.json()) as { error: string }).error, "invalid_client")
    const page = await fetch(m.authorization_endpoint!)
    assert.include(await page.text(), "Unknown application")
  })

  it("nothing outside /canopy is Canopy's: the host answers its own routes and its own 404s", async () => {
    assert.strictEqual(await (await fetch(`${app.url}/`)).text(), "the host application\n")
    for (const path of ["/dashboard", "/v1/projects", "/docs", "/v1/openapi.json", "/oauth/token", "/oauth/authorize", "/invitations/accept",
      "/.well-known/oauth-authorization-server", "/canopyx/v1/projects", "/health"]) {
      const r = await fetch(`${app.url}${path}`)
      assert.strictEqual(r.status, 404, path)
      assert.strictEqual(await r.text(), HOST_404, path)
    }
    assert.strictEqual((await fetch(`${app.url}${BASE_PATH}/health`)).status, 200)
  })
})
