/**
 * The form paths under a hostile client, over a real socket: a page that needs a session (or the
 * form's CSRF cookie) reads nothing of a body sent without one, and every form is read within its
 * caps (bytes, fields, multipart parts), so that megabytes of fields never hold the event loop.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { MAX_BODY_BYTES } from "../src/http/handler.ts"
import { TOKEN_FORM } from "../src/http/oauth.ts"
import { ACTION_FORM, SMALL_FORM } from "../src/pages/html.ts"
import { FORM_LIMITS } from "../src/gis/multipart.ts"
import { serveWithOwner, type ServeWithOwner } from "./dashboardSession.ts"
import { isErrorBody, request, square } from "@canopy/server/testing"
import { withoutStall } from "./healthProbe.ts"

// The server runs as a process of its own: the client's sending of 20 MB at once must not count
// as the server's time. Its database is made (an account, a member with a password) beforehand.
let server: ServeWithOwner
let projectId: string

beforeAll(async () => {
  server = await serveWithOwner({ name: "Forms Co", email: "forms@example.com", password: "a long enough password" })
  projectId = (await request(server.url, "POST", "/v1/projects", { token: server.apiToken, json: { name: "Stand", geometry: square() } })).body.data.id
}, 60_000)
afterAll(() => server?.close())

/** About 5 MB of distinct empty fields (what took 0.5–1.2 s to parse per request). */
const fieldBomb = (() => {
  const parts: Array<string> = []
  let size = 0
  for (let i = 0; size < MAX_BODY_BYTES - 64; i++) {
    const p = `k${i}=&`
    parts.push(p)
    size += p.length
  }
  return parts.join("").slice(0, MAX_BODY_BYTES - 64)
})()

const post = (path: string, body: string | Uint8Array, headers: Record<string, string>) =>
  fetch(`${server.url}${path}`, { method: "POST", body, redirect: "manual", headers })

const urlencoded = { "content-type": "application/x-www-form-urlencoded" }

describe("a form sent without its session or CSRF cookie", () => {
  for (const path of ["/dashboard/action", "/dashboard/sign-in", "/invitations/accept", "/oauth/sign-in", "/oauth/authorize"]) {
    it(`${path}: 5 MB of fields is refused (403) without reading them; /health answers promptly`, async () => {
      const answers = await withoutStall(server.url, () => post(path, fieldBomb, urlencoded))
      for (const a of answers) assert.strictEqual(a.status, 403, a.text.slice(0, 200))
    })
  }
})

describe("a form past its caps", () => {
  const preCsrf = { ...urlencoded, cookie: "canopy_csrf=anything" }
  for (const path of ["/dashboard/sign-in", "/invitations/accept", "/oauth/sign-in"]) {
    it(`${path}: 5 MB with the form's CSRF cookie is a 413 page; /health answers promptly`, async () => {
      const answers = await withoutStall(server.url, () => post(path, fieldBomb, preCsrf))
      for (const a of answers) {
        assert.strictEqual(a.status, 413)
        assert.match(a.headers.get("content-type") ?? "", /^text\/html/)
        assert.include(a.text, `larger than ${SMALL_FORM.bytes} bytes`)
      }
    })
    it(`${path}: more than ${SMALL_FORM.fields} fields in a small body is a 413 page`, async () => {
      const r = await post(path, `csrf=anything&${"a=1&".repeat(SMALL_FORM.fields)}`, preCsrf)
      assert.strictEqual(r.status, 413)
      assert.include(await r.text(), `more than ${SMALL_FORM.fields} fields`)
    })
  }

  it("/oauth/token: 5 MB of fields is the RFC 6749 invalid_request; /health answers promptly", async () => {
    const answers = await withoutStall(server.url, () => post("/oauth/token", fieldBomb, urlencoded))
    for (const a of answers) {
      assert.strictEqual(a.status, 400)
      const body = JSON.parse(a.text) as { error: string; error_description: string }
      assert.strictEqual(body.error, "invalid_request")
      assert.include(body.error_description, `larger than ${TOKEN_FORM.bytes} bytes`)
    }
  })

  it("/oauth/token: a small body of many fields is refused at the cap", async () => {
    const r = await post("/oauth/token", "&".repeat(TOKEN_FORM.fields * 10), urlencoded)
    assert.strictEqual(r.status, 400)
    assert.include(await r.text(), `more than ${TOKEN_FORM.fields} fields`)
  })

  it("/dashboard/action signed in: 5 MB of fields is a 413 page; /health answers promptly; nothing changed", async () => {
    const before = (await request(server.url, "GET", "/v1/account", { token: server.apiToken })).text
    const answers = await withoutStall(server.url,
      () =>
        post("/dashboard/action", `csrf=${encodeURIComponent(server.session.csrf)}&action=set_overlap_policy&overlap_policy=reject&${fieldBomb.slice(0, -200)}`,
          {
            ...urlencoded,
            cookie: server.session.cookie
          }))
    for (const a of answers) {
      assert.strictEqual(a.status, 413)
      assert.include(a.text, `more than ${ACTION_FORM.fields} fields`)
    }
    assert.strictEqual((await request(server.url, "GET", "/v1/account", { token: server.apiToken })).text.replace(/"meta":.*$/, ""),
      before.replace(/"meta":.*$/, ""))
  })

  it("/dashboard/action signed in: a form within its caps still works (repeated checkboxes kept)", async () => {
    const body = new URLSearchParams([["csrf", server.session.csrf], ["action", "create_key"], ["back", "/dashboard"], ["name", "From a form"], ["permissions",
      "projects:read"], ["permissions", "projects:write"]])
    const r = await post("/dashboard/action", body.toString(), { ...urlencoded, cookie: server.session.cookie })
    assert.strictEqual(r.status, 303)
    const page = await request(server.url, "GET", "/dashboard", { headers: { cookie: server.session.cookie } })
    assert.match(page.text, /<td>From a form<\/td><td><code>[^<]*<\/code><\/td><td>projects:read, projects:write</)
  })
})

describe("multipart forms past their part limit", () => {
  const boundary = "hostile-boundary"
  const manyParts = (() => {
    const one = `--${boundary}\r\nContent-Disposition: form-data; name="f"\r\n\r\n\r\n`
    return `${one.repeat(Math.floor((4 * 1024 * 1024) / one.length))}--${boundary}--\r\n`
  })()
  const multipart = { "content-type": `multipart/form-data; boundary=${boundary}` }

  it(`the API import: 4 MB of empty parts is refused (more than ${FORM_LIMITS.parts} parts); /health answers promptly`, async () => {
    const answers = await withoutStall(server.url, () => post("/v1/projects/import", manyParts, { ...multipart, authorization: `Bearer ${server.apiToken}` }))
    for (const a of answers) {
      assert.strictEqual(a.status, 400, a.text.slice(0, 300))
      const body = JSON.parse(a.text)
      assert.isTrue(isErrorBody({ status: a.status, headers: a.headers, body, text: a.text }, "VALIDATION_ERROR"))
      assert.include(a.text, `more than ${FORM_LIMITS.parts} parts`)
    }
  })

  it("the dashboard upload, without a session and with one: 4 MB of empty parts never holds /health", async () => {
    for (const a of await withoutStall(server.url, () => post("/dashboard/upload", manyParts, multipart))) assert.isBelow(a.status, 500)
    for (const a of await withoutStall(server.url, () => post("/dashboard/upload", manyParts, { ...multipart, cookie: server.session.cookie })))
      assert.isBelow(a.status, 500)
    assert.strictEqual((await request(server.url, "GET", `/v1/projects/${projectId}`, { token: server.apiToken })).status, 200)
  })
})
