/**
 * The public URL, over real sockets: the OAuth issuer and endpoints, the links
 * pages show and the cookies' `Secure` flag come from `--public-url`, never from a request's
 * `Host`; `X-Forwarded-Proto`/`-Host` count only from trusted proxies; without a public URL only
 * loopback hosts (development) get absolute URLs.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type RunningServer, serve } from "../src/index.ts"

const dir = mkdtempSync(join(tmpdir(), "canopy-public-url-"))
const PUBLIC = "https://canopy.example.com"
let configured: RunningServer // --public-url https://canopy.example.com
let plain: RunningServer // no public URL, no trusted proxy
let proxied: RunningServer // no public URL, behind a trusted proxy (this test process)

beforeAll(async () => {
  const start = (name: string, extra: { publicUrl?: string; trustedProxies?: Array<string> }) =>
    serve({ port: 0, host: "127.0.0.1", db: join(dir, `${name}.db`), log: false, dispatcher: false, geometry: false, ...extra })
  configured = await start("configured", { publicUrl: `${PUBLIC}/` })
  plain = await start("plain", {})
  proxied = await start("proxied", { trustedProxies: ["127.0.0.1"] })
})
afterAll(async () => {
  await Promise.all([configured?.close(), plain?.close(), proxied?.close()])
  rmSync(dir, { recursive: true, force: true })
})

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
}

/** A request with exactly these headers (fetch cannot set `Host`). */
const send = (server: RunningServer, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<Raw>((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port: server.port,
      path,
      method,
      headers: { ...headers, ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on("error", reject)
    req.end(body)
  })

const metadata = (server: RunningServer, headers: Record<string, string>) => send(server, "GET", "/.well-known/oauth-authorization-server", headers)

const cookiesOf = (r: Raw) => {
  const raw = r.headers["set-cookie"]
  return Array.isArray(raw) ? raw : raw ? [raw] : []
}
const cookie = (r: Raw, name: string) => cookiesOf(r).find((c) => c.startsWith(`${name}=`))
const valueOf = (c: string | undefined) => decodeURIComponent(c!.split(";")[0]!.split("=")[1]!)

/** Signs the owner of a fresh account in to the dashboard: the session cookie and its CSRF token. */
const signedIn = async (server: RunningServer, headers: Record<string, string>) => {
  const email = `owner-${Math.random().toString(36).slice(2)}@example.com`
  const b = await server.canopy.bootstrap({ account_name: "Public Co", email, plan: "pro" })
  await server.canopy.members.accept(b.password_token, { name: "Pat", password: "a good password" })
  const page = await send(server, "GET", "/dashboard", headers)
  const csrf = valueOf(cookie(page, "canopy_csrf"))
  const form = new URLSearchParams({ csrf, email, password: "a good password" }).toString()
  const signIn = await send(server, "POST", "/dashboard/sign-in", { ...headers, cookie: `canopy_csrf=${encodeURIComponent(csrf)}`,
    "content-type": "application/x-www-form-urlencoded" }, form)
  assert.strictEqual(signIn.status, 303, signIn.text.slice(0, 300))
  const session = cookie(signIn, "canopy_session")
  const home = await send(server, "GET", "/dashboard", { ...headers, cookie: `canopy_session=${encodeURIComponent(valueOf(session))}` })
  const token = /name="csrf" value="([^"]+)"/.exec(home.text)![1]!
  return { signIn, session, sessionValue: valueOf(session), csrf: token }
}

/** Invites someone from the dashboard and answers the link the page shows. */
const inviteLink = async (server: RunningServer, headers: Record<string, string>) => {
  const s = await signedIn(server, headers)
  const form = new URLSearchParams({ csrf: s.csrf, action: "invite", email: `new-${Math.random().toString(36).slice(2)}@example.com`, role: "viewer" })
    .toString()
  const session = `canopy_session=${encodeURIComponent(s.sessionValue)}`
  const posted = await send(server, "POST", "/dashboard/action", { ...headers, cookie: session, "content-type": "application/x-www-form-urlencoded" }, form)
  // Post-redirect-get: the action answers 303, and the page it leads to shows the link once.
  assert.strictEqual(posted.status, 303, posted.text.slice(0, 300))
  const notice = cookie(posted, "canopy_notice")!.split(";")[0]!
  const r = await send(server, "GET", String(posted.headers.location), { ...headers, cookie: `${session}; ${notice}` })
  assert.strictEqual(r.status, 200)
  const shown = /<code id="shown-once">([^<]+)<\/code>/.exec(r.text)
  assert.isNotNull(shown, r.text.slice(0, 500))
  return shown![1]!.replace(/&amp;/g, "&")
}

describe("with --public-url", () => {
  it("the issuer and every endpoint in the metadata are the public URL's, whatever Host and X-Forwarded-* say", async () => {
    for (const headers of [{ host: "evil.example" }, { host: `127.0.0.1:${configured.port}` }, { host: "evil.example", "x-forwarded-host": "evil.example",
      "x-forwarded-proto": "http" }]) {
      const r = await metadata(configured, headers)
      assert.strictEqual(r.status, 200, r.text)
      const body = JSON.parse(r.text)
      assert.deepStrictEqual([body.issuer, body.authorization_endpoint, body.token_endpoint, body.revocation_endpoint], [PUBLIC, `${PUBLIC}/oauth/authorize`,
        `${PUBLIC}/oauth/token`, `${PUBLIC}/oauth/revoke`], JSON.stringify(headers))
      assert.notInclude(r.text, "evil")
    }
  })

  it("an https public URL makes every cookie Secure, even when the request itself came over plain HTTP", async () => {
    const page = await send(configured, "GET", "/dashboard", { host: "evil.example" })
    assert.match(cookie(page, "canopy_csrf") ?? "", /; Secure/)
    const s = await signedIn(configured, { host: "evil.example" })
    assert.match(s.session ?? "", /; HttpOnly; SameSite=Lax; Secure/)
  })

  it("the invitation link the dashboard shows starts with the public URL, not the request's Host", async () => {
    const link = await inviteLink(configured, { host: "evil.example" })
    assert.match(link, /^https:\/\/canopy\.example\.com\/invitations\/accept\?token=cnp_inv_\w+$/)
  })
})

describe("without a public URL", () => {
  it("a non-loopback Host gets no metadata (no issuer is made up from it), a loopback one does", async () => {
    const evil = await metadata(plain, { host: "evil.example" })
    assert.strictEqual(evil.status, 404, evil.text)
    assert.notInclude(evil.text, "evil.example")
    assert.include(evil.text, "--public-url")
    for (const host of [`127.0.0.1:${plain.port}`, `localhost:${plain.port}`, `[::1]:${plain.port}`]) {
      const r = await metadata(plain, { host })
      assert.strictEqual(r.status, 200, host)
      assert.strictEqual(JSON.parse(r.text).issuer, `http://${host}`)
    }
    // a Host that only pretends to be loopback
    for (const host of ["127.0.0.1.evil.example", "localhost@evil.example", "evil.example#.localhost", "evil.example/x:1"]) {
      assert.notStrictEqual((await metadata(plain, { host })).status, 200, host)
    }
  })

  it("X-Forwarded-Proto and -Host are ignored from an untrusted peer", async () => {
    const r = await metadata(plain, { host: `localhost:${plain.port}`, "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" })
    assert.strictEqual(JSON.parse(r.text).issuer, `http://localhost:${plain.port}`)
    const page = await send(plain, "GET", "/dashboard", { host: "canopy.internal", "x-forwarded-proto": "https" })
    assert.notMatch(cookie(page, "canopy_csrf") ?? "", /Secure/, "plain HTTP: no Secure")
    assert.notMatch((await signedIn(plain, { host: "canopy.internal", "x-forwarded-proto": "https" })).session ?? "", /Secure/)
  })

  it("from a trusted proxy, X-Forwarded-Proto: https makes cookies Secure; a forwarded non-loopback host still gets no issuer", async () => {
    const page = await send(proxied, "GET", "/dashboard", { host: "canopy.internal", "x-forwarded-proto": "https" })
    assert.match(cookie(page, "canopy_csrf") ?? "", /; Secure/)
    assert.match((await signedIn(proxied, { host: "canopy.internal", "x-forwarded-proto": "https" })).session ?? "", /; Secure/)
    const plainProxied = await send(proxied, "GET", "/dashboard", { host: "canopy.internal", "x-forwarded-proto": "http" })
    assert.notMatch(cookie(plainProxied, "canopy_csrf") ?? "", /Secure/)
    const forwarded = await metadata(proxied, { host: `127.0.0.1:${proxied.port}`, "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" })
    assert.strictEqual(forwarded.status, 404, forwarded.text)
    const local = await metadata(proxied, { host: "canopy.internal", "x-forwarded-host": `localhost:${proxied.port}`, "x-forwarded-proto": "https" })
    assert.strictEqual(JSON.parse(local.text).issuer, `https://localhost:${proxied.port}`)
  })

  it("the dashboard's invitation link: absolute on a loopback host, a bare path (no made-up origin) otherwise", async () => {
    assert.match(await inviteLink(plain, { host: `127.0.0.1:${plain.port}` }),
      new RegExp(`^http://127\\.0\\.0\\.1:${plain.port}/invitations/accept\\?token=cnp_inv_\\w+$`))
    const remote = await inviteLink(plain, { host: "evil.example" })
    assert.match(remote, /^\/invitations\/accept\?token=cnp_inv_\w+$/)
  })
})
