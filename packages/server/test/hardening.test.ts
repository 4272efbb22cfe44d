/**
 * Hostile input, over a real socket: malformed cookies, requests Node's
 * parser refuses, webhook targets in special-purpose address ranges, and the security headers.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { inject } from "vitest"
import { type AccessLogLine, guardedLookup, makeSender, nodeHandler, openCanopy, serve } from "../src/index.ts"
import { MAX_HEADER_BYTES } from "../src/http/node.ts"
import { launchChromium } from "@canopy/server/testing/browser"
import { client, isErrorBody, request, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
let token: string

beforeAll(async () => {
  server = await startTestServer()
  token = (await server.newAccount("enterprise")).token
})
afterAll(async () => {
  await server.stop()
})

/** The value of a cookie set by a response. */
const setCookieValue = (headers: Headers, name: string) => {
  for (const c of headers.getSetCookie()) {
    const [pair] = c.split(";")
    if (pair!.startsWith(`${name}=`)) return decodeURIComponent(pair!.slice(name.length + 1))
  }
  return undefined
}

const postForm = (path: string, fields: Record<string, string>, cookie: string) =>
  request(server.url, "POST", path, {
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", cookie }
  })

describe("8. malformed cookies", () => {
  // A fresh CSRF cookie and form value (both forms share the pre-sign-in CSRF cookie).
  const csrf = async () => {
    const r = await request(server.url, "GET", "/dashboard")
    assert.strictEqual(r.status, 200)
    return setCookieValue(r.headers, "canopy_csrf")!
  }

  it("an undecodable cookie is ignored and the others still count, on every form that reads cookies", async () => {
    for (const bad of ["a=%", "a=%E0%A4%A", "x=%zz"]) {
      const value = await csrf()
      const cookie = `${bad}; canopy_csrf=${encodeURIComponent(value)}`
      // the CSRF cookie was read: a wrong password is a 401, not a 403 (form expired) or a 500
      const dashboard = await postForm("/dashboard/sign-in", { csrf: value, email: "nobody@example.com", password: "wrong password" }, cookie)
      assert.strictEqual(dashboard.status, 401, `dashboard ${bad}: ${dashboard.text.slice(0, 200)}`)
      // no authorization request: the error page for a bad request (400), past the CSRF check
      const oauth = await postForm("/oauth/sign-in", { csrf: value, email: "nobody@example.com", password: "wrong password" }, cookie)
      assert.strictEqual(oauth.status, 400, `oauth ${bad}: ${oauth.text.slice(0, 200)}`)
      // an unknown invitation token: 404, past the CSRF check
      const invitation = await postForm("/invitations/accept", { csrf: value, token: "cnp_inv_nope", name: "N", password: "a long enough password" }, cookie)
      assert.strictEqual(invitation.status, 404, `invitation ${bad}: ${invitation.text.slice(0, 200)}`)
    }
  })

  it("a malformed cookie alone is no CSRF token and no session", async () => {
    for (const path of ["/dashboard/sign-in", "/oauth/sign-in", "/invitations/accept"]) {
      const r = await postForm(path, { csrf: "%" }, "canopy_csrf=%; canopy_session=%")
      assert.strictEqual(r.status, 403, path)
    }
    const page = await request(server.url, "GET", "/dashboard", { headers: { cookie: "canopy_session=%" } })
    assert.strictEqual(page.status, 200)
    assert.include(page.text, "Sign in")
  })
})

type Raw = { status: number; headers: Record<string, string>; body: string; text: string }

/** Sends raw bytes and reads everything the server answers until it closes the connection. */
const raw = (base: string, payload: string) =>
  new Promise<Raw>((resolve, reject) => {
    const socket = connect(Number(new URL(base).port), "127.0.0.1")
    const chunks: Array<Buffer> = []
    socket.on("data", (c) => chunks.push(c))
    socket.on("error", (e) => (chunks.length > 0 ? undefined : reject(e)))
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1")
      const [head = "", body = ""] = text.split("\r\n\r\n")
      const [statusLine = "", ...lines] = head.split("\r\n")
      const headers: Record<string, string> = {}
      for (const l of lines) {
        const i = l.indexOf(":")
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body, text })
    })
    socket.write(payload)
  })

/** The refusal has the spec's error body, a request id, nosniff, and its access-log line. */
const checkRefusal = (logs: ReadonlyArray<AccessLogLine>, r: Raw, status: number) => {
  assert.strictEqual(r.status, status, r.text.slice(0, 300))
  assert.match(r.headers["content-type"] ?? "", /^application\/json/)
  assert.strictEqual(r.headers["x-content-type-options"], "nosniff")
  assert.strictEqual(r.headers.connection, "close")
  assert.strictEqual(Number(r.headers["content-length"]), Buffer.byteLength(r.body))
  const requestId = r.headers["x-request-id"] ?? ""
  assert.match(requestId, /^req_/)
  const body = JSON.parse(r.body)
  assert.strictEqual(body.error.code, "VALIDATION_ERROR")
  assert.isString(body.error.message)
  assert.deepStrictEqual(body.error.details, [])
  assert.strictEqual(body.meta.request_id, requestId)
  const line = logs.find((l) => l.request_id === requestId)
  assert.isDefined(line, "an access-log line for the refused request")
  assert.strictEqual(line!.status, status)
  return line!
}

/** The same checks on `canopy serve`'s server and on an embedder's server with `nodeHandler(…).clientError`. */
const refusalCases = (target: () => { readonly url: string; readonly logs: ReadonlyArray<AccessLogLine> }) => {
  it("headers over the limit (96 KiB on canopy serve, Node's 16 KiB on an embedder's server): 431 with the spec's error body, a request id and an access-log line", async () => {
    const { logs, url } = target()
    const line = checkRefusal(logs, await raw(url, `GET /v1/projects?secret=x HTTP/1.1\r\nHost: a\r\nX-Big: ${"a".repeat(MAX_HEADER_BYTES + 4_000)}\r\n\r\n`),
      431)
    assert.strictEqual(line.error, "HPE_HEADER_OVERFLOW")
    assert.notInclude(JSON.stringify(line), "secret", "the query string is not logged")
  })

  it("a malformed request line or header: 400 with the spec's error body, a request id and an access-log line", async () => {
    const { logs, url } = target()
    assert.include(checkRefusal(logs, await raw(url, "GARBAGE\r\n\r\n"), 400), { method: "-", path: "-" })
    assert.include(checkRefusal(logs, await raw(url, "GET /v1/projects HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n"), 400), { method: "GET",
      path: "/v1/projects" })
    checkRefusal(logs, await raw(url, "GET /\u0001 HTTP/1.1\r\nHost: a\r\n\r\n"), 400)
  })

  it("a refusal on a kept-alive connection, after a request was answered, still gets the error body", async () => {
    const socket = connect(Number(new URL(target().url).port), "127.0.0.1")
    let text = ""
    socket.on("data", (c: Buffer) => (text += c.toString("latin1")))
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()))
    socket.write("GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
    for (let i = 0; i < 200 && !text.includes("{\"status\":\"ok\"}"); i++) await new Promise((r) => setTimeout(r, 10))
    socket.write("GARBAGE\r\n\r\n")
    await closed
    const [first, second] = text.split(/(?=HTTP\/1\.1 )/)
    assert.match(first ?? "", /^HTTP\/1\.1 200 /)
    assert.match(second ?? "", /^HTTP\/1\.1 400 Bad Request\r\n/)
    assert.include(second, "\"VALIDATION_ERROR\"")
    assert.match(second ?? "", /\r\nx-request-id: req_/i)
  })

  it("the server keeps serving", async () => {
    assert.strictEqual((await request(target().url, "GET", "/health")).status, 200)
  })
}

describe("9. requests Node's parser refuses", () => {
  describe("canopy serve", () => {
    refusalCases(() => server)
  })

  describe("an embedder's server with nodeHandler(…).clientError", () => {
    const logs: Array<AccessLogLine> = []
    let url = ""
    let close = async () => {}
    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), "canopy-embed-"))
      const { canopy, closeSender } = await openCanopy({ db: join(dir, "canopy.db") })
      const handler = nodeHandler(canopy, { log: (l) => logs.push(l) })
      const embedded = createServer({ headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 }, (req, res) => void handler(req, res))
      embedded.on("clientError", handler.clientError)
      await new Promise<void>((resolve) => embedded.listen(0, "127.0.0.1", resolve))
      url = `http://127.0.0.1:${(embedded.address() as AddressInfo).port}`
      close = async () => {
        await new Promise<void>((resolve) => {
          embedded.close(() => resolve())
          embedded.closeAllConnections()
        })
        await canopy.close()
        await closeSender()
        rmSync(dir, { recursive: true, force: true })
      }
    })
    afterAll(() => close())
    refusalCases(() => ({ url, logs }))

    it("a request too slow to arrive: 408 with the spec's error body, a request id and an access-log line", async () => {
      // the end of the headers never comes
      checkRefusal(logs, await raw(url, "GET /health HTTP/1.1\r\nHost: a\r\n"), 408)
    })
  })
})

describe("10. webhook targets in special-purpose address ranges", () => {
  const urls = [
    "https://[::127.0.0.1]/x",
    "https://[::ffff:0:127.0.0.1]/x",
    "https://[64:ff9b::127.0.0.1]/x",
    "https://[64:ff9b::a00:1]/x",
    "https://[64:ff9b:1::1]/x",
    "https://[2002:7f00:1::1]/x",
    "https://[2002:a00:1::]/x",
    "https://[2001::1]/x",
    "https://[fec0::1]/x",
    "https://[feff::1]/x",
    "https://[100::1]/x",
    "https://[2001:db8::1]/x",
    "https://[3fff::1]/x",
    "https://[5f00::1]/x",
    "https://[4000::1]/x",
    "https://198.18.0.1/x",
    "https://198.19.255.254/x",
    "https://192.0.0.192/x",
    "https://192.0.2.1/x",
    "https://192.88.99.1/x",
    "https://198.51.100.1/x",
    "https://203.0.113.1/x",
    "https://240.0.0.1/x",
    "https://255.255.255.255/x",
    "https://localhost./x",
    "https://LOCALHOST./x",
    "https://app.localhost./x",
    "https://metadata.google.internal./x",
    "https://127.0.0.1./x"
  ]

  it("registration answers 422 with the spec's error body naming the url", async () => {
    const api = client(server.url, token)
    for (const url of urls) {
      const r = await api.post("/v1/webhooks", { url, events: ["*"] })
      assert.strictEqual(r.status, 422, `${url}: ${r.text}`)
      assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"), r.text)
      assert.strictEqual(r.body.error.details[0].field, "url", url)
      assert.match(r.body.error.details[0].message, /^must not point at /, url)
    }
    // a public address is still accepted
    const ok = await api.post("/v1/webhooks", { url: "https://[2606:4700:4700::1111]/x", events: ["*"] })
    assert.strictEqual(ok.status, 201, ok.text)
  })

  it("the sender refuses them with error_class blocked, before any connection", async () => {
    const strict = makeSender({ allowLocal: false })
    try {
      for (const url of urls) {
        const r = await Effect.runPromise(strict.send({ url, headers: {}, body: "{}", timeoutMs: 1000 }))
        assert.deepStrictEqual([r.kind, r.kind === "error" ? r.errorClass : ""], ["error", "blocked"], url)
      }
    } finally {
      await strict.close()
    }
  })

  it("the address check after resolution refuses them too", async () => {
    const lookup = (host: string) =>
      new Promise<string>((resolve) =>
        guardedLookup(false)(host, { all: true }, (err, addresses) =>
          resolve(err ? String((err as { code?: string }).code) : (addresses as Array<{ address: string }>).map((a) =>
            a.address
          ).join(",")))
      )
    // an IP literal resolves to itself, so this is the check the socket's lookup makes on a resolved name
    for (const address of ["::127.0.0.1", "::ffff:0:127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::1", "fec0::1", "198.18.0.1", "192.0.0.192", "100::1"]) {
      assert.strictEqual(await lookup(address), "CANOPY_BLOCKED_ADDRESS", address)
    }
    assert.strictEqual(await lookup("8.8.8.8"), "8.8.8.8")
    assert.strictEqual(await lookup("2606:4700:4700::1111"), "2606:4700:4700::1111")
  })

  it("a webhook stored before the check was tightened is refused at delivery, logged with error_class blocked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-hardening-"))
    const db = join(dir, "canopy.db")
    try {
      // a database written by a permissive (development) server …
      const loose = await serve({ port: 0, host: "127.0.0.1", db, settings: { allowInsecureWebhooks: true }, log: false, dispatcher: false, geometry: false })
      const boot = await loose.canopy.bootstrap({ account_name: "Old hooks", email: "old@example.com", plan: "enterprise" })
      const ids: Array<[string, string]> = []
      for (const url of ["https://[::127.0.0.1]/x", "https://[64:ff9b::7f00:1]/x", "https://198.18.0.1/x", "https://localhost./x"]) {
        const r = await client(loose.url, boot.api_key.token).post("/v1/webhooks", { url, events: ["*"] })
        assert.strictEqual(r.status, 201, r.text)
        ids.push([url, r.body.data.id])
      }
      await loose.close()
      // … served again with the guard on
      const strict = await serve({ port: 0, host: "127.0.0.1", db, log: false, dispatcher: false, geometry: false })
      try {
        for (const [url, id] of ids) {
          const r = await client(strict.url, boot.api_key.token).post(`/v1/webhooks/${id}/test`)
          assert.strictEqual(r.status, 200, r.text)
          assert.strictEqual(r.body.data.status, "failed", url)
          assert.strictEqual(r.body.data.error_class, "blocked", url)
        }
      } finally {
        await strict.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("11. security headers", () => {
  it("X-Content-Type-Options: nosniff on every response", async () => {
    const replies = [
      await request(server.url, "GET", "/health"),
      await request(server.url, "GET", "/docs"),
      await request(server.url, "GET", "/v1/openapi.json"),
      await request(server.url, "GET", "/v1/projects"),
      await request(server.url, "GET", "/v1/projects", { token }),
      await request(server.url, "GET", "/nowhere"),
      await request(server.url, "DELETE", "/v1/projects"),
      await request(server.url, "HEAD", "/health"),
      await request(server.url, "GET", "/dashboard"),
      await request(server.url, "GET", "/oauth/authorize"),
      await request(server.url, "GET", "/invitations/accept"),
      await request(server.url, "GET", "/.well-known/oauth-authorization-server"),
      await request(server.url, "POST", "/oauth/token", { body: "grant_type=nope", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      await postForm("/dashboard/action", { action: "sign_out" }, "")
    ]
    for (const r of replies) assert.strictEqual(r.headers.get("x-content-type-options"), "nosniff", `${r.status} ${r.text.slice(0, 80)}`)
  })

  it("every HTML page forbids framing and carries a restrictive Content-Security-Policy, /docs included", async () => {
    for (const path of ["/docs", "/dashboard", "/oauth/authorize", "/invitations/accept"]) {
      const r = await request(server.url, "GET", path)
      assert.match(r.headers.get("content-type") ?? "", /^text\/html/, path)
      assert.strictEqual(r.headers.get("x-frame-options"), "DENY", path)
      const csp = r.headers.get("content-security-policy") ?? ""
      assert.match(csp, /(^|;\s*)default-src 'none'/, `${path}: ${csp}`)
      assert.match(csp, /(^|;\s*)frame-ancestors 'none'/, `${path}: ${csp}`)
      // The API reference runs one script, its bundle served by Canopy (no inline script, no eval).
      if (path === "/docs") assert.match(csp, /(^|;\s*)script-src 'self'(;|$)/, `${path}: ${csp}`)
      else assert.notMatch(csp, /script-src/, `${path}: no script may run: ${csp}`)
    }
  })

  describe("in headless Chromium", () => {
    let browser: Browser
    beforeAll(async () => {
      browser = await launchChromium(inject("chromiumPath"))
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
    })

    it("/docs renders under its policy (the reference draws its operations, nothing is refused) and cannot be framed", async () => {
      const page = await browser.newPage()
      const refused: Array<string> = []
      page.on("console", (m) => {
        if (/Content Security Policy|Refused/i.test(m.text())) refused.push(m.text())
      })
      await page.goto(`${server.url}/docs`)
      await page.getByText("Create a project").first().waitFor({ timeout: 30_000 })
      assert.match(await page.textContent("h1") ?? "", /Canopy API/)
      assert.deepStrictEqual(refused, [])
      await page.close()
      // framed by another page: the browser refuses to render it
      const host = await browser.newPage()
      await host.setContent(`<iframe src="${server.url}/docs"></iframe>`)
      await host.waitForTimeout(500)
      const frames = host.frames().filter((f) => f !== host.mainFrame())
      assert.lengthOf(frames, 1)
      const heading = await frames[0]!.evaluate("document.querySelector('h1')?.textContent ?? null").catch(() => null)
      assert.isNull(heading, "the reference did not render inside a frame")
      await host.close()
    })
  })
})
