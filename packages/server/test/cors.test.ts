/**
 * CORS for browser clients, over real sockets and from pages on other origins
 * in headless Chromium: the deployment's origins (`corsOrigins`) and a public OAuth application's
 * `allowed_origins` may call the API with a bearer token and the token endpoint; any other origin
 * is refused by the browser. Preflights: 204 with the Access-Control-* headers, or 403 with the
 * spec's error body and none; `Vary: Origin`; never credentials.
 */
import { OAuth, OAuthServer, Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { inject } from "vitest"
import { type RunningServer, serve } from "../src/index.ts"
import { launchChromium } from "@canopy/server/testing/browser"
import { isErrorBody, request, startServeProcess } from "@canopy/server/testing"

const dir = mkdtempSync(join(tmpdir(), "canopy-cors-"))
let api: RunningServer
let open: RunningServer // corsOrigins: *
let browser: Browser
const pageServers: Array<Server> = []
/** Page origins: listed by the deployment, listed by a public application, and neither. */
let deploymentOrigin: string
let appOrigin: string
let strangerOrigin: string

/** A tiny site on its own port: every path answers one empty HTML page. */
const pageServer = async (host: string) => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.end("<!doctype html><title>another origin</title><h1>A browser application</h1>")
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  pageServers.push(server)
  return `http://${host}:${(server.address() as { port: number }).port}`
}

beforeAll(async () => {
  deploymentOrigin = await pageServer("127.0.0.1")
  appOrigin = await pageServer("localhost")
  strangerOrigin = await pageServer("127.0.0.1")
  api = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "api.db"), log: false, dispatcher: false, geometry: false, corsOrigins: [deploymentOrigin] })
  open = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "open.db"), log: false, dispatcher: false, geometry: false, corsOrigins: "*" })
  browser = await launchChromium(inject("chromiumPath"))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  for (const s of pageServers) s.close()
  await Promise.all([api?.close(), open?.close()])
  rmSync(dir, { recursive: true, force: true })
})

/** An account whose owner has a password, a public application listing `origins`, and an admin key. */
const setUp = async (server: RunningServer, origins: ReadonlyArray<string>) => {
  const email = `owner-${Math.random().toString(36).slice(2)}@example.com`
  const b = await server.canopy.bootstrap({ account_name: "Browser Co", email, plan: "pro" })
  await server.canopy.members.accept(b.password_token, { name: "Bea Browser", password: "browser owner password" })
  const registered = await server.canopy.oauth.register(Principal.system(b.account.id), {
    name: "Browser app",
    redirect_uris: [`${appOrigin}/callback`],
    scopes: ["profile", "projects:read"],
    type: "public",
    allowed_origins: origins
  })
  return { b, clientId: registered.client_id, key: b.api_key.token }
}

/** A fresh authorization code for the owner (as the consent page's approval issues it), with its verifier. */
const codeFor = async (server: RunningServer, clientId: string, userId: string) => {
  const verifier = `v${Math.random().toString(36).slice(2)}${"x".repeat(50)}`
  const url = await server.canopy.run(Effect.gen(function*() {
    const oauth = yield* OAuthServer
    const check = yield* oauth.check({
      client_id: clientId,
      redirect_uri: `${appOrigin}/callback`,
      response_type: "code",
      scope: "profile projects:read",
      state: "s",
      code_challenge: OAuth.challengeOf(verifier),
      code_challenge_method: "S256"
    })
    if (check.kind !== "ok") return yield* Effect.die(new Error(JSON.stringify(check)))
    return yield* oauth.approve(userId, check)
  }))
  return { code: new URL(url).searchParams.get("code")!, verifier }
}

interface Outcome {
  readonly ok: boolean
  readonly status?: number
  readonly body?: unknown
  readonly requestId?: string | null
  readonly error?: string
}

/** Runs `fetch` in a page of `origin` (the browser enforces CORS); what the page could read. */
const fromPage = async (origin: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Outcome> => {
  const page = await browser.newPage()
  try {
    await page.goto(`${origin}/app`)
    return await page.evaluate(async ({ init, url }) => {
      try {
        const r = await fetch(url, init)
        return { ok: true, status: r.status, body: await r.json(), requestId: r.headers.get("x-request-id") }
      } catch (e) {
        return { ok: false, error: String(e) }
      }
    }, { url, init })
  } finally {
    await page.close()
  }
}

describe("CORS in headless Chromium, from pages on other origins", () => {
  it("the deployment's origin calls the API with a bearer token; the application's origin exchanges a code at the token endpoint and calls /v1/me; a stranger is blocked", async () => {
    const { b, clientId, key } = await setUp(api, [appOrigin])
    const projects = `${api.url}/v1/projects`
    const withKey = { headers: { authorization: `Bearer ${key}` } }

    const listed = await fromPage(deploymentOrigin, projects, withKey)
    assert.isTrue(listed.ok, listed.error)
    assert.strictEqual(listed.status, 200)
    assert.deepStrictEqual((listed.body as { data: Array<unknown> }).data, [])
    assert.match(listed.requestId ?? "", /^req_/, "X-Request-Id is exposed")
    const created = await fromPage(deploymentOrigin, projects, {
      method: "POST",
      headers: { ...withKey.headers, "content-type": "application/json", "idempotency-key": "browser-1" },
      body: JSON.stringify({ name: "From the browser" })
    })
    assert.strictEqual(created.status, 201, JSON.stringify(created))

    const blocked = await fromPage(strangerOrigin, projects, withKey)
    assert.isFalse(blocked.ok)
    assert.match(blocked.error!, /TypeError|Failed to fetch/)
    const blockedPost = await fromPage(strangerOrigin, projects, {
      method: "POST",
      headers: { ...withKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Should not exist" })
    })
    assert.isFalse(blockedPost.ok)
    const names = (await (await fetch(projects, withKey)).json() as { data: Array<{ name: string }> }).data.map((p) => p.name)
    assert.deepStrictEqual(names, ["From the browser"], "the refused preflight kept the POST from being sent")

    // The public application's page: the code exchange (a simple POST, no preflight) and the API.
    const { code, verifier } = await codeFor(api, clientId, b.user.id)
    const form = new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: `${appOrigin}/callback`,
      code_verifier: verifier })
    const tokenInit = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() }
    const strangerExchange = await fromPage(strangerOrigin, `${api.url}/oauth/token`, tokenInit)
    assert.isFalse(strangerExchange.ok, "a stranger's page cannot read the token endpoint's answer")
    const exchanged = await fromPage(appOrigin, `${api.url}/oauth/token`, tokenInit)
    assert.isTrue(exchanged.ok, exchanged.error)
    // The stranger's request did reach the server (a simple request) and spent the code: the
    // application's exchange is then refused as a replay, readable by the application.
    assert.strictEqual(exchanged.status, 400)
    assert.strictEqual((exchanged.body as { error: string }).error, "invalid_grant")

    const fresh = await codeFor(api, clientId, b.user.id)
    const tokens = await fromPage(appOrigin, `${api.url}/oauth/token`, {
      ...tokenInit,
      body: new URLSearchParams({ ...Object.fromEntries(form), code: fresh.code, code_verifier: fresh.verifier }).toString()
    })
    assert.strictEqual(tokens.status, 200, JSON.stringify(tokens))
    const access = (tokens.body as { access_token: string }).access_token
    const me = await fromPage(appOrigin, `${api.url}/v1/me`, { headers: { authorization: `Bearer ${access}` } })
    assert.strictEqual(me.status, 200, JSON.stringify(me))
    assert.deepStrictEqual((me.body as { data: unknown }).data, { id: b.user.id, name: "Bea Browser", email: b.user.email, role: "owner",
      account_id: b.account.id })
    assert.isFalse((await fromPage(strangerOrigin, `${api.url}/v1/me`, { headers: { authorization: `Bearer ${access}` } })).ok)
  })

  it("with corsOrigins *, any page may call the API, still without credentials", async () => {
    const { key } = await setUp(open, [])
    const r = await fromPage(strangerOrigin, `${open.url}/v1/projects`, { headers: { authorization: `Bearer ${key}` } })
    assert.strictEqual(r.status, 200, JSON.stringify(r))
    const withCookies = await (async () => {
      const page = await browser.newPage()
      try {
        await page.goto(`${strangerOrigin}/app`)
        return await page.evaluate(async (url) => {
          try {
            await fetch(url, { credentials: "include", headers: { authorization: "Bearer x" } })
            return "read"
          } catch {
            return "blocked"
          }
        }, `${open.url}/v1/projects`)
      } finally {
        await page.close()
      }
    })()
    assert.strictEqual(withCookies, "blocked", "a credentialed request is refused: Access-Control-Allow-Origin is * and credentials are never allowed")
  })
})

describe("CORS headers over HTTP", () => {
  const preflight = (server: RunningServer, path: string, origin: string, method = "GET", headers = "authorization") =>
    fetch(`${server.url}${path}`, { method: "OPTIONS",
      headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers } })

  it("an allowed origin's preflight: 204 with methods, headers, max-age and Vary; never credentials", async () => {
    await setUp(api, [appOrigin])
    for (const [origin, path] of [[deploymentOrigin, "/v1/projects"], [appOrigin, "/v1/projects/proj_x/assets"], [appOrigin, "/oauth/token"], [deploymentOrigin,
      "/v1/me"]] as const) {
      const r = await preflight(api, path, origin, "POST", "authorization, content-type, idempotency-key")
      assert.strictEqual(r.status, 204, `${origin} ${path}`)
      assert.strictEqual(r.headers.get("access-control-allow-origin"), origin)
      assert.include(r.headers.get("access-control-allow-methods") ?? "", "POST")
      assert.strictEqual(r.headers.get("access-control-allow-headers"), "Authorization, Content-Type, Idempotency-Key")
      assert.strictEqual(r.headers.get("access-control-max-age"), "600")
      assert.include(r.headers.get("vary") ?? "", "Origin")
      assert.isNull(r.headers.get("access-control-allow-credentials"))
      assert.strictEqual(await r.text(), "")
    }
  })

  it("another origin's preflight: 403 with the spec's error body and no CORS headers; near misses are other origins", async () => {
    const port = new URL(deploymentOrigin).port
    for (const origin of [strangerOrigin, `http://localhost:${port}`, `${deploymentOrigin}/`, "null", `https://127.0.0.1:${port}`]) {
      const r = await request(api.url, "OPTIONS", "/v1/projects", { headers: { origin, "access-control-request-method": "GET" } })
      assert.strictEqual(r.status, 403, origin)
      assert.isNull(r.headers.get("access-control-allow-origin"), origin)
      assert.include(r.headers.get("vary") ?? "", "Origin")
      assert.isTrue(isErrorBody(r, "FORBIDDEN"), JSON.stringify(r.body))
    }
  })

  it("actual responses: Allow-Origin and exposed headers for an allowed origin (errors included), Vary: Origin always, nothing for others", async () => {
    const { key } = await setUp(api, [appOrigin])
    const ok = await fetch(`${api.url}/v1/projects`, { headers: { origin: deploymentOrigin, authorization: `Bearer ${key}` } })
    assert.strictEqual(ok.headers.get("access-control-allow-origin"), deploymentOrigin)
    assert.include(ok.headers.get("access-control-expose-headers") ?? "", "X-RateLimit-Remaining")
    assert.include(ok.headers.get("vary") ?? "", "Origin")
    const unauthorized = await fetch(`${api.url}/v1/projects`, { headers: { origin: appOrigin } })
    assert.strictEqual(unauthorized.status, 401)
    assert.strictEqual(unauthorized.headers.get("access-control-allow-origin"), appOrigin, "the page can read why it was refused")
    const stranger = await fetch(`${api.url}/v1/projects`, { headers: { origin: strangerOrigin, authorization: `Bearer ${key}` } })
    assert.strictEqual(stranger.status, 200, "the server answers; the browser withholds it")
    assert.isNull(stranger.headers.get("access-control-allow-origin"))
    assert.include(stranger.headers.get("vary") ?? "", "Origin")
    const noOrigin = await fetch(`${api.url}/v1/projects`, { headers: { authorization: `Bearer ${key}` } })
    assert.include(noOrigin.headers.get("vary") ?? "", "Origin")
    assert.isNull(noOrigin.headers.get("access-control-allow-origin"))
    // the pages are never cross-origin
    const dashboard = await fetch(`${api.url}/dashboard`, { headers: { origin: deploymentOrigin } })
    assert.isNull(dashboard.headers.get("access-control-allow-origin"))
    const pagePreflight = await preflight(api, "/dashboard/action", deploymentOrigin, "POST")
    assert.isNull(pagePreflight.headers.get("access-control-allow-origin"))
  })

  it("an application's origins change with it: updated, removed with it; confidential applications and non-origins are refused", async () => {
    const { b, clientId } = await setUp(api, [])
    const origin = "https://spa.example.org"
    assert.strictEqual((await preflight(api, "/oauth/token", origin, "POST")).status, 403)
    const system = Principal.system(b.account.id)
    const updated = await api.canopy.run(Effect.flatMap(OAuthServer, (s) => s.update(system, clientId, { allowed_origins: [origin] })))
    assert.deepStrictEqual(updated.allowed_origins, [origin])
    assert.deepStrictEqual((await api.canopy.oauth.list(system)).find((a) => a.client_id === clientId)?.allowed_origins, [origin])
    assert.strictEqual((await preflight(api, "/oauth/token", origin, "POST")).status, 204)
    await api.canopy.oauth.remove(system, clientId)
    assert.strictEqual((await preflight(api, "/oauth/token", origin, "POST")).status, 403)

    const refused = async (input: Record<string, unknown>) => {
      try {
        await api.canopy.oauth.register(system, { name: "X", redirect_uris: ["https://x.example.com/cb"], scopes: ["profile"], type: "public", ...input })
        return undefined
      } catch (e) {
        return e as { name: string; details: ReadonlyArray<{ field: string; message: string }> }
      }
    }
    const confidential = await refused({ type: "confidential", allowed_origins: [origin] })
    assert.strictEqual(confidential?.name, "ValidationFailedError")
    assert.strictEqual(confidential?.details[0]?.field, "allowed_origins")
    for (const bad of ["https://spa.example.org/", "https://spa.example.org/app", "http://spa.example.org", "*", "spa.example.org",
      "https://SPA.example.org"]) {
      const e = await refused({ allowed_origins: [bad] })
      assert.strictEqual(e?.name, "ValidationFailedError", bad)
      assert.match(e!.details[0]!.field, /^allowed_origins/, bad)
    }
  })

  it("canopy serve --cors-origins (and CANOPY_CORS_ORIGINS): preflights answered for the listed origins; a malformed origin is a usage error", async () => {
    const proc = await startServeProcess(["--db", join(dir, "cli.db"), "--cors-origins", "https://one.example.com,https://two.example.com"])
    try {
      for (const origin of ["https://one.example.com", "https://two.example.com"]) {
        const r = await preflight({ url: proc.url } as RunningServer, "/v1/projects", origin)
        assert.strictEqual(r.status, 204, origin)
        assert.strictEqual(r.headers.get("access-control-allow-origin"), origin)
      }
      assert.strictEqual((await preflight({ url: proc.url } as RunningServer, "/v1/projects", "https://three.example.com")).status, 403)
    } finally {
      proc.child.kill()
    }
    const env = await startServeProcess(["--db", join(dir, "cli-env.db")], { CANOPY_CORS_ORIGINS: "https://env.example.com" })
    try {
      assert.strictEqual((await preflight({ url: env.url } as RunningServer, "/v1/projects", "https://env.example.com")).status, 204)
    } finally {
      env.child.kill()
    }
    const bad = await startServeProcess(["--db", join(dir, "cli-bad.db"), "--cors-origins", "https://one.example.com/path"]).then(
      (p) => {
        p.child.kill()
        return "started"
      },
      (e: Error) => e.message
    )
    assert.include(bad, "--cors-origins")
  }, 90_000)
})
