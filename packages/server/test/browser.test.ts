import { Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { acceptInvitation, authorizeUrl, browserWithCallback, registerApplication, signIn, submit, tokenRequest } from "@canopy/server/testing/browser"
import { client, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
}, 60_000)
afterAll(() => server?.stop())

// The browser, and the third-party application's callback.
const chrome = browserWithCallback()

describe("in headless Chromium", () => {
  it("an invitation walks from its link to member.joined", async () => {
    const { token } = await server.newAccount("pro")
    const invited = await client(server.url, token).post("/v1/account/members/invite", { email: "walker@example.com", role: "editor" })
    const page = await chrome.browser.newPage()
    await page.goto(`${server.url}/invitations/accept?token=${encodeURIComponent(invited.body.data.invitation.token)}`)
    await acceptInvitation(page, "Wanda Walker", "a long enough password")
    const events = await client(server.url, token).get("/v1/events?type=member.joined")
    assert.strictEqual(events.body.data[0].data.email, "walker@example.com")
    // the link works once
    await page.goto(`${server.url}/invitations/accept?token=${encodeURIComponent(invited.body.data.invitation.token)}`)
    await page.fill("#name", "Again")
    await page.fill("#password", "a long enough password")
    await submit(page, "button[type=submit]")
    assert.include(await page.textContent("h1"), "cannot be used")
    await page.close()
  })

  it("the OAuth flow: register in the dashboard, authorize, sign in, approve, exchange, call /v1, refresh; the rotated token works and the old one fails", async () => {
    const { callbacks, url: callbackUrl } = chrome.receiver
    // The owner registers the application in the dashboard.
    const b = await server.canopy.bootstrap({ account_name: "Field Co", email: "field-owner@example.com", plan: "pro" })
    await server.canopy.members.accept(b.password_token, { name: "Fay Owner", password: "owner password!" })
    const system = Principal.system(b.account.id)
    const dashboard = await chrome.browser.newContext()
    const owner = await dashboard.newPage()
    await signIn(owner, "field-owner@example.com", "owner password!", `${server.url}/dashboard`)
    const clientId = await registerApplication(owner, "Field Notes", callbackUrl, ["projects:read", "offline_access", "public"])
    assert.match(clientId, /^app_/)
    await dashboard.close()

    // A team member authorizes it from a browser of their own.
    const invited = await server.canopy.members.invite(system, { email: "oauth-user@example.com", role: "editor" })
    await server.canopy.members.accept(invited.invitation.token, { name: "Olga", password: "correct horse battery" })

    const verifier = "M25iVXpKU3puUjFaYWg3T1NDTDQtcW1ROUY5YXlwalNoc0hhakxifmZHag"
    const authorize = authorizeUrl(`${server.url}/oauth/authorize`, { clientId, redirectUri: callbackUrl, scope: "projects:read offline_access",
      state: "opaque-123", verifier })
    const page = await chrome.browser.newPage()
    await page.goto(authorize)
    assert.include(await page.textContent("h1"), "Sign in to continue to Field Notes")
    await signIn(page, "oauth-user@example.com", "wrong password!")
    assert.include(await page.textContent("[role=alert]"), "wrong")
    await signIn(page, "oauth-user@example.com", "correct horse battery")
    assert.include(await page.textContent("h1"), "Field Notes wants to access your Canopy account")
    assert.include(await page.textContent("ul"), "View your account's projects")
    await page.screenshot({ path: join(tmpdir(), "canopy-consent.png") })
    await page.click("button[value=approve]")
    await page.waitForURL((u) => u.toString().startsWith(callbackUrl))
    const back = callbacks.at(-1)!
    assert.strictEqual(back.get("state"), "opaque-123")
    const code = back.get("code")!
    assert.match(code, /^cnp_ocd_/)

    const token = `${server.url}/oauth/token`
    const exchange = await tokenRequest(token, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: callbackUrl,
      code_verifier: verifier })
    const tokens = await exchange.json() as { access_token: string; refresh_token: string }
    assert.strictEqual(exchange.status, 200)
    assert.strictEqual((await client(server.url, tokens.access_token).get("/v1/projects")).status, 200)
    const refresh = { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token }
    const refreshed = await tokenRequest(token, refresh)
    const rotated = await refreshed.json() as { access_token: string; refresh_token: string }
    assert.strictEqual((await client(server.url, rotated.access_token).get("/v1/projects")).status, 200)
    const reused = await tokenRequest(token, refresh)
    assert.strictEqual(reused.status, 400, "the old refresh token fails")

    // deny, and an unregistered redirect URI gets a page, not a redirect
    await page.goto(authorize.replace("opaque-123", "second"))
    await page.click("button[value=deny]")
    await page.waitForURL((u) => u.toString().startsWith(callbackUrl))
    assert.deepStrictEqual([callbacks.at(-1)!.get("error"), callbacks.at(-1)!.get("state")], ["access_denied", "second"])
    await page.goto(authorize.replace(encodeURIComponent(callbackUrl), encodeURIComponent("http://127.0.0.1:9/evil")))
    assert.include(await page.textContent("h1"), "cannot be completed")
    await page.close()
  })

  it("the dashboard: sign in, usage bars, keys (value once, revoke), service tokens, applications (secret once, rotate), webhooks, members", async () => {
    const b = await server.canopy.bootstrap({ account_name: "Dash Forestry", email: "dash-owner@example.com", plan: "free" })
    await server.canopy.members.accept(b.password_token, { name: "Dana Owner", password: "dashboard password" })
    const admin = client(server.url, b.api_key.token)
    // 800 ha of 1,000: the hectare bar passes 75%
    const side = Math.sqrt(800 * 10_000)
    await admin.post("/v1/projects", { name: "Big",
      geometry: { type: "Polygon", coordinates: [[[0, 0], [side / 111_320, 0], [side / 111_320, side / 110_574], [0, side / 110_574], [0, 0]]] } })

    const page = await chrome.browser.newPage()
    page.on("dialog", (d) => void d.accept()) // destructive actions are confirmed
    await signIn(page, "dash-owner@example.com", "dashboard password", `${server.url}/dashboard`)
    assert.include(await page.textContent("h1"), "Dash Forestry")
    assert.strictEqual(await page.getAttribute("#usage .bar >> nth=0", "data-level"), "t75")

    // an API key: value shown once, works, then revoked
    await page.fill("#key-name", "Read-only robot")
    await page.check("#api-keys input[value='projects:read']")
    await submit(page, "#api-keys button:has-text('Create API key')")
    const key = (await page.textContent("#shown-once"))!.trim()
    assert.match(key, /^cnp_key_/)
    assert.strictEqual((await client(server.url, key).get("/v1/projects")).status, 200)
    assert.strictEqual((await client(server.url, key).post("/v1/projects", { name: "x" })).status, 403)
    await page.goto(`${server.url}/dashboard`)
    assert.notInclude(await page.content(), key, "the value is not shown again")
    await submit(page, "#api-keys tr:has-text('Read-only robot') button:has-text('Revoke')")
    assert.strictEqual((await client(server.url, key).get("/v1/projects")).status, 401)

    // a service token with an IP allowlist
    await page.fill("#svc-name", "CI runner")
    await page.check("#service-tokens input[value='projects:read']")
    await page.fill("#svc-ips", "203.0.113.0/24")
    await submit(page, "#service-tokens button:has-text('Create service token')")
    const svc = (await page.textContent("#shown-once"))!.trim()
    assert.strictEqual((await client(server.url, svc).get("/v1/projects")).status, 403, "loopback is outside the allowlist")

    // an OAuth application: secret once, rotation gives a new one
    await page.fill("#app-name", "Partner portal")
    await page.fill("#app-uris", "https://partner.example.com/cb")
    await page.check("#applications input[value='projects:read']")
    await submit(page, "#applications button:has-text('Register application')")
    const secret = (await page.textContent("#shown-once"))!.trim()
    assert.match(secret, /^cnp_sec_/)
    await submit(page, "#applications tr:has-text('Partner portal') button:has-text('Rotate secret')")
    const rotated = (await page.textContent("#shown-once"))!.trim()
    assert.notStrictEqual(rotated, secret)

    // a webhook, disabled and enabled again
    await page.fill("#wh-url", "https://hooks.example.com/dash")
    await submit(page, "#webhooks button:has-text('Add webhook')")
    assert.match((await page.textContent("#shown-once"))!, /whsec_/)
    await submit(page, "#webhooks button:has-text('Disable')")
    assert.include(await page.textContent("#webhooks"), "disabled")
    await submit(page, "#webhooks button:has-text('Enable')")

    // members: invite (link shown once), change role, remove
    await page.fill("#inv-email", "newbie@example.com")
    await page.selectOption("#inv-role", "viewer")
    await submit(page, "#members button:has-text('Invite')")
    assert.match((await page.textContent("#shown-once"))!, /\/invitations\/accept\?token=cnp_inv_/)
    await page.selectOption("#members tr:has-text('newbie@example.com') select", "editor")
    await submit(page, "#members tr:has-text('newbie@example.com') button:has-text('Change role')")
    assert.include(await page.textContent("#members tr:has-text('newbie@example.com')"), "editor")
    await submit(page, "#members tr:has-text('newbie@example.com') button:has-text('Remove')")
    assert.notInclude(await page.textContent("#members"), "newbie@example.com")
    // the last owner cannot be removed: the page says why
    await submit(page, "#members tr:has-text('dash-owner@example.com') button:has-text('Remove')")
    assert.include(await page.textContent("[role=status]"), "last owner")
    await page.screenshot({ path: join(tmpdir(), "canopy-dashboard.png"), fullPage: true })
    await submit(page, "button:has-text('Sign out')")
    assert.include(await page.textContent("h1"), "Sign in to Canopy")
    await page.close()
  })
})
