/**
 * The file and form paths under the variants a reviewer tried after the hardening, over a real
 * socket against `canopy serve` in a process of its own: multipart bodies made of their
 * boundary's characters (the JavaScript boundary search costs bytes × boundary length), urlencoded
 * values of millions of `+` or bad escapes, a dashboard boundary nested millions deep, a small API
 * body nested deep, files just under the readers' caps, oversize bodies sent with
 * `Expect: 100-continue` or chunked, and which refusals free an Idempotency-Key. Each stall test probes `/health` from a thread of its own.
 */
import { Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { zipSync } from "fflate"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MAX_BODY_BYTES } from "../src/http/handler.ts"
import { serve as serveInProcess } from "../src/index.ts"
import { kml, square as kmlSquare, utf8 } from "./gis/fixtures.ts"
import { isErrorBody, request, square, startServeProcess } from "@canopy/server/testing"
import { withoutStall } from "./healthProbe.ts"

let dir: string
let serve: { child: ChildProcess; url: string }
let base: string
let token: string
let owner: { cookie: string; csrf: string }
let viewer: { cookie: string; csrf: string }
let projectId: string

const cookieOf = (headers: Headers, name: string) => headers.getSetCookie().map((c) => c.split(";")[0]!).find((c) => c.startsWith(`${name}=`))

const signIn = async (email: string, password: string) => {
  const page = await fetch(`${base}/dashboard`)
  const pre = cookieOf(page.headers, "canopy_csrf")!
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: pre },
    body: new URLSearchParams({ csrf: decodeURIComponent(pre.slice("canopy_csrf=".length)), email, password }).toString()
  })
  const cookie = cookieOf(res.headers, "canopy_session")!
  const home = await (await fetch(`${base}/dashboard`, { headers: { cookie } })).text()
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(home)![1]!.replace(/&amp;/g, "&") }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "canopy-review-"))
  const db = join(dir, "canopy.db")
  const maker = await serveInProcess({ port: 0, host: "127.0.0.1", db, dispatcher: false })
  const b = await maker.canopy.bootstrap({ account_name: "Review Co", email: "review@example.com", plan: "enterprise" })
  token = b.api_key.token
  await maker.canopy.members.accept(b.password_token, { name: "Owner", password: "a long enough password" })
  const invited = await maker.canopy.members.invite(Principal.system(b.account.id), { email: "review-viewer@example.com", role: "viewer" })
  await maker.canopy.members.accept(invited.invitation.token, { name: "Viewer", password: "viewer password!" })
  await maker.close()
  serve = await startServeProcess(["--db", db])
  base = serve.url
  owner = await signIn("review@example.com", "a long enough password")
  viewer = await signIn("review-viewer@example.com", "viewer password!")
  projectId = (await request(base, "POST", "/v1/projects", { token, json: { name: "Stand", geometry: square() } })).body.data.id
}, 60_000)
afterAll(() => {
  serve?.child.kill()
  rmSync(dir, { recursive: true, force: true })
})

const post = (path: string, body: string | Uint8Array, headers: Record<string, string>) =>
  fetch(`${base}${path}`, { method: "POST", body, redirect: "manual", headers })

const projectCount = async () => (await request(base, "GET", "/v1/projects?per_page=1", { token })).body.meta.total as number

/** A multipart form whose every byte but the framing is the boundary's own character (a = 70 × "a"). */
const boundaryBytes = (() => {
  const boundary = "a".repeat(70)
  const head = (fields: Record<string, string>) =>
    Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join("")
  const body = (fields: Record<string, string>) => {
    const start = `${head(fields)}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="stand.kml"\r\n\r\n`
    const end = `\r\n--${boundary}--\r\n`
    return `${start}${"a".repeat(MAX_BODY_BYTES - start.length - end.length - 16)}${end}`
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body }
})()

describe("multipart bodies made of their boundary's characters", () => {
  it("the API import: 5 MB of them is a 422 on file, and /health answers promptly", async () => {
    const body = boundaryBytes.body({})
    const answers = await withoutStall(base,
      () => post("/v1/projects/import?name=a", body, { "content-type": boundaryBytes.contentType, authorization: `Bearer ${token}` }))
    for (const a of answers) {
      assert.strictEqual(a.status, 422, a.text.slice(0, 300))
      assert.strictEqual(JSON.parse(a.text).error.details[0].field, "file")
    }
  })

  it("the dashboard upload by a viewer: refused for the role, nothing saved, /health answers promptly", async () => {
    const before = (await request(base, "GET", `/v1/projects/${projectId}`, { token })).text.replace(/"meta":.*$/, "")
    const body = boundaryBytes.body({ csrf: viewer.csrf, id: projectId })
    for (const a of await withoutStall(base, () => post("/dashboard/upload", body, { "content-type": boundaryBytes.contentType, cookie: viewer.cookie }))) {
      assert.strictEqual(a.status, 303)
    }
    assert.strictEqual((await request(base, "GET", `/v1/projects/${projectId}`, { token })).text.replace(/"meta":.*$/, ""), before)
  })

  it("a form is still read exactly: quoted boundary, preamble, epilogue, a UTF-8 name, a file holding the delimiter less one character", async () => {
    const boundary = "rv-Boundary_0123"
    const file = kml([{ name: `Stand\r\n--${boundary.slice(0, -1)} inside`, polygon: kmlSquare(11, 0, 0.001) }])
    const body = `preamble\r\n--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nTännenweg ✓\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="stand.kml"\r\n\r\n${file}\r\n--${boundary}--\r\nepilogue\r\n--${boundary}\r\n`
    const r = await post("/v1/projects/import", body, { "content-type": `multipart/form-data; boundary="${boundary}"`, authorization: `Bearer ${token}` })
    const created = await r.json() as { data: { name: string; area_hectares: number } }
    assert.strictEqual(r.status, 201, JSON.stringify(created))
    assert.strictEqual(created.data.name, "Tännenweg ✓")
    assert.closeTo(created.data.area_hectares, 1.23, 0.01)
  })

  it("a delimiter followed by neither CRLF nor -- is a 400 naming the body; nothing stored", async () => {
    const before = await projectCount()
    const r = await request(base, "POST", "/v1/projects/import?name=junk", {
      token,
      body: `--b\r\nContent-Disposition: form-data; name="file"; filename="a.kml"\r\n\r\nx\r\n--bjunk\r\n--b--\r\n`,
      headers: { "content-type": "multipart/form-data; boundary=b" }
    })
    assert.strictEqual(r.status, 400)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
    assert.strictEqual(r.body.error.details[0].field, "body")
    assert.strictEqual(await projectCount(), before)
  })
})

describe("files just under the readers' caps", () => {
  const attributes = Array.from({ length: 255 }, (_, i) => `a${i}="${i}"`).join(" ")
  const files = [
    ["KML, 1,100 elements of 255 attributes (2.8 MB)", utf8(`<kml>${`<e ${attributes}/>`.repeat(1100)}</kml>`), "application/vnd.google-earth.kml+xml"],
    ["KMZ listing 50,000 empty entries (4.4 MB)", zipSync(Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`${i}`, new Uint8Array()]))),
      "application/vnd.google-earth.kmz"]
  ] as const
  for (const [name, bytes, contentType] of files) {
    it(`${name}: a 422 on file, /health answered promptly`, async () => {
      assert.isBelow(bytes.length, MAX_BODY_BYTES)
      for (const a of await withoutStall(base, () =>
        post("/v1/projects/import?name=capped", bytes, { "content-type": contentType, authorization: `Bearer ${token}` }))) {
        assert.strictEqual(a.status, 422, a.text.slice(0, 300))
        assert.strictEqual(JSON.parse(a.text).error.details[0].field, "file")
      }
    })
  }
})

describe("urlencoded values that are costly to decode", () => {
  const form = (value: string) => `csrf=${encodeURIComponent(owner.csrf)}&action=none&back=%2Fdashboard&v=${value}`
  for (const [name, piece] of [["+", "+"], ["bad escapes", "%zz"], ["escaped bytes", "%C3"]] as const) {
    it(`/dashboard/action signed in: a 5 MB value of ${name} is answered without holding /health`, async () => {
      const body = form(piece.repeat(Math.floor((MAX_BODY_BYTES - 200) / piece.length)))
      for (const a of await withoutStall(base, () =>
        post("/dashboard/action", body, { "content-type": "application/x-www-form-urlencoded", cookie: owner.cookie }))) {
        assert.isBelow(a.status, 500)
      }
    })
  }

  it("values decode as URLSearchParams decodes them (a key named with + and escapes, checkboxes repeated)", async () => {
    const body = `csrf=${
      encodeURIComponent(owner.csrf)
    }&action=create_key&back=%2Fdashboard&name=Key+%C3%A9%zz%2B&permissions=projects%3Aread&permissions=projects:write`
    const r = await post("/dashboard/action", body, { "content-type": "application/x-www-form-urlencoded", cookie: owner.cookie })
    assert.strictEqual(r.status, 303)
    const page = await (await fetch(`${base}/dashboard`, { headers: { cookie: owner.cookie } })).text()
    assert.include(page, "<td>Key é%zz+</td><td><code>")
  })
})

describe("deeply nested boundaries and bodies are refused before they are parsed", () => {
  const deep = `${"[".repeat(2_600_000)}${"]".repeat(2_600_000)}`
  for (const who of ["viewer", "owner"] as const) {
    it(`the dashboard's new project form (${who}): a boundary of 2,600,000 nested brackets, /health answers promptly, nothing created`, async () => {
      const me = who === "owner" ? owner : viewer
      const before = await projectCount()
      const body = `csrf=${encodeURIComponent(me.csrf)}&action=create_project&name=Deep&geometry=${deep}`
      for (const a of await withoutStall(base, () =>
        post("/dashboard/action", body, { "content-type": "application/x-www-form-urlencoded", cookie: me.cookie }))) {
        assert.strictEqual(a.status, 303)
      }
      assert.strictEqual(await projectCount(), before)
    })
  }

  it("a 200 KB API body (parsed on the loop) nested 100,000 deep is a 422 on the body, answered before it is parsed", async () => {
    const r = await request(base, "POST", "/v1/projects", {
      token,
      body: `{"name":"x","metadata":{"m":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`,
      headers: { "content-type": "application/json" }
    })
    assert.strictEqual(r.status, 422)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
    assert.deepStrictEqual(r.body.error.details, [{ field: "body", message: "nests deeper than 32 levels" }])
  })
})

/** Sends `head`, then (after a 100 Continue when asked, or at once) `body`, raw or chunked; answers all that came back. */
const raw = (head: string, body: Buffer, options: { readonly expectContinue: boolean; readonly chunked: boolean }) =>
  new Promise<string>((resolve) => {
    const url = new URL(base)
    const socket = connect(Number(url.port), url.hostname)
    let got = ""
    let sent = false
    const send = () => {
      if (sent) return
      sent = true
      if (!options.chunked) return void socket.write(body)
      for (let i = 0; i < body.length; i += 65_536) {
        const chunk = body.subarray(i, i + 65_536)
        socket.write(`${chunk.length.toString(16)}\r\n`)
        socket.write(chunk)
        socket.write("\r\n")
      }
      socket.write("0\r\n\r\n")
    }
    socket.on("data", (d: Buffer) => {
      got += d.toString("latin1")
      if (got.includes("100 Continue")) send()
    })
    socket.on("error", (e) => {
      got += `<${e.message}>`
    })
    socket.on("close", () => resolve(got))
    socket.write(head)
    if (!options.expectContinue) send()
    setTimeout(() => socket.destroy(), 10_000).unref()
  })

describe("an oversize body with Expect: 100-continue or chunked", () => {
  const big = Buffer.alloc(MAX_BODY_BYTES + 1024 * 1024, 0x61)
  const routes = () =>
    [
      ["/v1/projects", `authorization: Bearer ${token}\r\ncontent-type: application/json\r\n`],
      ["/v1/projects/import?name=x", `authorization: Bearer ${token}\r\ncontent-type: application/vnd.google-earth.kml+xml\r\n`],
      ["/dashboard/upload", `cookie: ${owner.cookie}\r\ncontent-type: multipart/form-data; boundary=b\r\n`],
      ["/dashboard/sign-in", "content-type: application/x-www-form-urlencoded\r\n"],
      ["/oauth/token", "content-type: application/x-www-form-urlencoded\r\n"]
    ] as const
  for (const [mode, expectContinue, chunked] of [["Expect and a length", true, false], ["Expect, chunked", true, true], ["chunked", false, true]] as const) {
    it(`${mode}: every form and API route reads its 413 with the spec's body and Connection: close, never a reset`, async () => {
      for (const [path, headers] of routes()) {
        const length = chunked ? "transfer-encoding: chunked\r\n" : `content-length: ${big.length}\r\n`
        const answer = await raw(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}${length}${expectContinue ? "expect: 100-continue\r\n" : ""}\r\n`, big,
          { expectContinue, chunked })
        const final = answer.slice(answer.lastIndexOf("HTTP/1.1 "))
        assert.match(final, /^HTTP\/1\.1 413 /, `${path}: ${answer.slice(0, 200)}`)
        assert.match(final, /\r\nconnection: close\r\n/i, path)
        const body = JSON.parse(final.slice(final.indexOf("\r\n\r\n") + 4))
        assert.strictEqual(body.error.code, "VALIDATION_ERROR", path)
        assert.match(body.meta.request_id, /^req_/, path)
      }
    })
  }
})

describe("which refusals an Idempotency-Key keeps", () => {
  const valid = (lon: number) => JSON.stringify(square(lon))
  const withKey = (key: string, body: string | Uint8Array, contentType: string, name: string) =>
    request(base, "POST", `/v1/projects/import?name=${name}`, { token, body, headers: { "content-type": contentType, "idempotency-key": key } })

  it("a 413, a malformed form and a refused media type free the key: the same key with the file does the work", async () => {
    const refusals: ReadonlyArray<readonly [string, string | Uint8Array]> = [
      ["application/geo+json", new Uint8Array(MAX_BODY_BYTES + 1)],
      ["multipart/form-data; boundary=b", "--b\r\nno end"],
      ["multipart/form-data; boundary=b", "--bjunk\r\n\r\n--b--"],
      ["text/plain", "a file"]
    ]
    let lon = 20
    for (const [contentType, body] of refusals) {
      const key = `review-${lon}-${Date.now()}`
      const refused = await withKey(key, body, contentType, `free-${lon}`)
      assert.include([400, 413], refused.status, refused.text.slice(0, 200))
      const done = await withKey(key, valid(lon), "application/geo+json", `free-${lon}`)
      assert.strictEqual(done.status, 201, `${contentType}: ${done.text.slice(0, 200)}`)
      assert.isNull(done.headers.get("idempotent-replayed"))
      lon++
    }
  })

  it("a file that cannot be read (its answer does not depend on the load) is pinned: the retry is a replay", async () => {
    const key = `review-pinned-${Date.now()}`
    const first = await withKey(key, "not a boundary", "application/geo+json", "pinned")
    assert.strictEqual(first.status, 422)
    const again = await withKey(key, "not a boundary", "application/geo+json", "pinned")
    assert.strictEqual(again.status, 422)
    assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
    assert.strictEqual(again.body.error.message, first.body.error.message)
  })
})
