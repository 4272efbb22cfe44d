/**
 * The body's own limits, over a real socket: an oversize body is answered 413 with the spec's body
 * (never a reset connection), and a JSON body nested deeper than the limit is a 422 on every JSON
 * route, however large the body.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Schemas } from "@canopy/core"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fetch as undiciFetch } from "undici"
import { MAX_BODY_BYTES } from "../src/http/handler.ts"
import { NESTING_SCAN_BYTES } from "../src/http/input.ts"
import { MAX_HEADER_BYTES } from "../src/http/node.ts"
import { client, isErrorBody, request, square, startServeProcess, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
let token: string
let projectId: string

beforeAll(async () => {
  server = await startTestServer()
  token = (await server.newAccount()).token
  projectId = (await client(server.url, token).post("/v1/projects", { name: "Stand", geometry: square() })).body.data.id
}, 60_000)
afterAll(() => server.stop())

describe("an oversize body", () => {
  // A server process of its own: a client in the server's own process never races its reset.
  let dir: string
  let serve: { child: ChildProcess; url: string }
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "canopy-body-"))
    serve = await startServeProcess(["--db", join(dir, "canopy.db")])
  }, 60_000)
  afterAll(() => {
    serve?.child.kill()
    rmSync(dir, { recursive: true, force: true })
  })
  const big = new Uint8Array(6 * 1024 * 1024).fill(0x20)

  for (const [name, send] of [["undici's fetch", undiciFetch as unknown as typeof fetch], ["Node's fetch", fetch]] as const) {
    it(`is answered 413 with the spec's body on every one of 40 tries with ${name}, never a cut connection`, async () => {
      const outcomes: Array<string> = []
      for (let i = 0; i < 40; i++) {
        try {
          const res = await send(`${serve.url}/v1/projects`, {
            method: "POST",
            body: big,
            headers: { authorization: "Bearer whatever", "content-type": "application/json" }
          })
          const body = await res.json() as { error?: { code?: string; details?: unknown } }
          outcomes.push(res.status === 413 && body.error?.code === "VALIDATION_ERROR" && Array.isArray(body.error.details) &&
              res.headers.get("connection") === "close"
            ? "413" : `status ${res.status}`)
        } catch (e) {
          outcomes.push(`network error: ${(e as Error & { cause?: { code?: string } }).cause?.code ?? (e as Error).message}`)
        }
      }
      assert.deepStrictEqual(outcomes.filter((o) => o !== "413"), [])
    }, 120_000)
  }

  it("sent chunked, without a length, is answered 413 too", async () => {
    const chunks = async function*() {
      for (let i = 0; i < 7; i++) yield new Uint8Array(1024 * 1024).fill(0x20)
    }
    const res = await fetch(`${serve.url}/v1/projects`, {
      method: "POST",
      body: ReadableStream.from(chunks()),
      duplex: "half",
      headers: { authorization: "Bearer whatever", "content-type": "application/json" }
    } as RequestInit)
    assert.strictEqual(res.status, 413)
    assert.strictEqual(((await res.json()) as { error: { code: string } }).error.code, "VALIDATION_ERROR")
  })

  it("far over the drain bound gets its 413, then the connection is closed (no unbounded read)", async () => {
    // Declares 1 GiB and keeps sending: the server answers, reads at most its drain bound, and closes.
    const outcome = await new Promise<{ status: number | undefined; sent: number }>((resolve) => {
      let sent = 0
      let status: number | undefined
      const req = httpRequest(`${serve.url}/v1/projects`, { method: "POST", headers: { "content-length": String(1024 ** 3) } }, (res) => {
        status = res.statusCode
        res.resume()
      })
      const chunk = Buffer.alloc(1024 * 1024, 0x20)
      const pump = () => {
        while (sent < 200 * 1024 * 1024) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once("drain", pump)
        }
      }
      req.on("error", () => resolve({ status, sent }))
      req.on("close", () => resolve({ status, sent }))
      pump()
    })
    assert.strictEqual(outcome.status, 413)
    assert.isBelow(outcome.sent, 200 * 1024 * 1024)
    assert.strictEqual((await request(serve.url, "GET", "/health")).status, 200)
  }, 30_000)

  it("far over the drain bound, to a client not reading for a moment: the 413 is still there to read (no reset before it)", async () => {
    // A raw connection that sends 30 MiB after a header declaring 1 GiB and reads nothing for
    // 300 ms: closing as soon as the drain bound is passed resets the connection, and the reset
    // throws away the 413 the client had not read yet.
    const { hostname, port } = new URL(serve.url)
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), hostname)
      let text = ""
      socket.pause()
      socket.on("data", (d: Buffer) => {
        text += d.toString("latin1")
      })
      socket.on("error", () => resolve(text))
      socket.on("close", () => resolve(text))
      socket.write(`POST /v1/projects HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${1024 ** 3}\r\n\r\n`)
      socket.write(Buffer.alloc(30 * 1024 * 1024, 0x20))
      setTimeout(() => socket.resume(), 300)
    })
    assert.match(answer, /^HTTP\/1\.1 413 /)
    assert.include(answer, "VALIDATION_ERROR")
  }, 30_000)

  it("just under the limit is read (answered by validation, not 413)", async () => {
    const body = JSON.stringify({ name: "x", description: "d".repeat(MAX_BODY_BYTES - 100) })
    const r = await request(server.url, "POST", "/v1/projects", { token, body, headers: { "content-type": "application/json" } })
    assert.strictEqual(r.status, 422)
  })
})

describe("deeply nested JSON", () => {
  const nestedObject = (levels: number, leaf = "1") => {
    let s = leaf
    for (let i = 0; i < levels; i++) s = `{"a":${s}}`
    return s
  }
  const nestedArray = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`
  const send = (method: string, path: string, body: string) =>
    request(server.url, method, path, { token, body, headers: { "content-type": "application/json" } })

  const routes = () =>
    [
      ["POST", "/v1/projects", "name\":\"x\",\""],
      ["PUT", `/v1/projects/${projectId}`, ""],
      ["POST", `/v1/projects/${projectId}/assets`, "name\":\"x\",\"type\":\"sensor\",\""],
      ["PUT", "/v1/account", ""],
      ["POST", "/v1/webhooks", "url\":\"https://example.com/h\",\""]
    ] as const

  for (const field of ["description", "status", "metadata", "name", "geometry"]) {
    it(`50,000 levels of objects in ${field} is a 422 on every JSON route`, async () => {
      for (const [method, path, before] of routes()) {
        const r = await send(method, path, `{"${before}${field}":${nestedObject(50_000)}}`)
        assert.strictEqual(r.status, 422, `${method} ${path}: ${r.text.slice(0, 200)}`)
        assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
        assert.match(JSON.stringify(r.body.error.details), /nests deeper than 32 levels/)
      }
    })
  }

  it("a body just under the scan's size, nested as deep as it can be, is refused naming its field", async () => {
    const levels = Math.floor((NESTING_SCAN_BYTES - 64) / 2)
    const body = `{"name":"x","metadata":{"m":${nestedArray(levels)}}}`
    assert.isBelow(Buffer.byteLength(body), NESTING_SCAN_BYTES)
    const r = await send("POST", "/v1/projects", body)
    assert.strictEqual(r.status, 422)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
    const details = r.body.error.details as ReadonlyArray<{ field: string; message: string }>
    assert.isTrue(details.some((d) => d.field.startsWith("metadata") && /nests deeper than 32 levels/.test(d.message)), JSON.stringify(details))
  })

  it("50,000 levels of arrays is a 422", async () => {
    const r = await send("POST", "/v1/projects", `{"name":"x","metadata":{"m":${nestedArray(50_000)}}}`)
    assert.strictEqual(r.status, 422)
    assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
  })

  it("a large body nested exactly to the limit is not refused for its nesting; one level more is", async () => {
    const padding = "p".repeat(300_000) // large: the body goes the large-body way
    const atLimit = `{"name":"x","description":"${padding.slice(0, 10)}","metadata":{"pad":"${padding}","m":${nestedObject(Schemas.MAX_DEPTH - 2)}}}`
    const ok = await send("POST", "/v1/projects", atLimit)
    assert.notMatch(ok.text, /nests deeper/)
    const over = `{"name":"x","metadata":{"pad":"${padding}","m":${nestedObject(Schemas.MAX_DEPTH - 1)}}}`
    const refused = await send("POST", "/v1/projects", over)
    assert.strictEqual(refused.status, 422)
    assert.match(refused.text, /nests deeper than 32 levels/)
  })

  it("brackets inside strings do not count", async () => {
    const r = await send("POST", "/v1/projects", JSON.stringify({ name: "x", description: "[{\\\"".repeat(100), metadata: { pad: `${"[".repeat(300_000)}` } }))
    assert.notMatch(r.text, /nests deeper/)
  })
})

describe("a 1,000-position intersects filter in the URL", () => {
  // A circle of 1,000 positions around a stored square, at full double precision (what
  // JSON.stringify gives computed coordinates): 40 KB of JSON, 48 KB URL-encoded.
  const circleOf = (positions: number) => {
    const ring: Array<[number, number]> = []
    for (let i = 0; i < positions - 1; i++) {
      const a = (2 * Math.PI * i) / (positions - 1)
      ring.push([10.0005 + 0.01 * Math.cos(a) + 1e-13, 0.0005 + 0.01 * Math.sin(a) + 1e-13])
    }
    return JSON.stringify({ type: "Polygon", coordinates: [[...ring, ring[0]!]] })
  }
  const circle = circleOf(1_000)

  it("is answered (not a 431), on the list and on the export, with the project it meets", async () => {
    assert.isAbove(encodeURIComponent(circle).length, 45_000)
    const list = await request(server.url, "GET", `/v1/projects?intersects=${encodeURIComponent(circle)}`, { token })
    assert.strictEqual(list.status, 200, list.text.slice(0, 300))
    assert.include(list.body.data.map((p: { id: string }) => p.id), projectId)
    const exported = await request(server.url, "GET", `/v1/projects/export?intersects=${encodeURIComponent(circle)}`, { token })
    assert.strictEqual(exported.status, 200, exported.text.slice(0, 300))
  })

  it("1,001 positions is a 400 naming the limit; a URL past the header limit is a 431 with the spec's body", async () => {
    const tooMany = await request(server.url, "GET", `/v1/projects?intersects=${encodeURIComponent(circleOf(1_001))}`, { token })
    assert.strictEqual(tooMany.status, 400)
    assert.match(JSON.stringify(tooMany.body.error.details), /at most 1000 positions/)
    const huge = await request(server.url, "GET", `/v1/projects?search=${"a".repeat(MAX_HEADER_BYTES)}`, { token })
    assert.strictEqual(huge.status, 431)
    assert.strictEqual(huge.body.error.code, "VALIDATION_ERROR")
  })
})
