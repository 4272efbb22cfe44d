/**
 * OpenTelemetry traces from a real `canopy serve` process to a real OTLP/HTTP receiver on
 * loopback: off without an endpoint; with one, every request is a server span named after its
 * route template, a client's `traceparent` is its parent, the domain services' Effect spans are
 * its descendants, the resource carries OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, and what
 * is buffered is flushed when the process is told to stop (the export interval here is a minute).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin, request, square, startServeProcess } from "@canopy/server/testing"

interface Received {
  readonly path: string
  readonly contentType: string
  readonly body: Buffer
}

interface AnyValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly boolValue?: boolean
  readonly doubleValue?: number
}
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: AnyValue }>
  readonly status: { readonly code: number }
}

/** An OTLP/HTTP receiver: records every POST (path, content type, raw body) and answers 200 `{}`. */
const startOtlpReceiver = async () => {
  const received: Array<Received> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({ path: req.url ?? "", contentType: String(req.headers["content-type"] ?? ""), body: Buffer.concat(chunks) })
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return { base: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const value = (v: AnyValue | undefined) =>
  v === undefined ? undefined : v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue)
const attr = (s: { readonly attributes: OtlpSpan["attributes"] }, key: string) => value(s.attributes.find((a) => a.key === key)?.value)

const initDb = (db: string) => {
  const r = spawnSync(process.execPath, [canopyBin, "init", "--db", db, "--email", "otel@example.com", "--plan", "enterprise", "--json"], { encoding: "utf8" })
  assert.strictEqual(r.status, 0, r.stderr)
  return (JSON.parse(r.stdout) as { api_key: string }).api_key
}

/** Stops a serve process with SIGTERM and waits for its exit code. */
const stop = (child: import("node:child_process").ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code))
    child.kill("SIGTERM")
  })

describe("OpenTelemetry traces over OTLP/HTTP", () => {
  it("a span per request, named by route template; traceparent honoured; service spans as descendants; resource from OTEL_*; flushed on shutdown", async () => {
    const otlp = await startOtlpReceiver()
    const dir = mkdtempSync(join(tmpdir(), "canopy-otel-"))
    try {
      const db = join(dir, "otel.db")
      const key = initDb(db)
      const s = await startServeProcess(["--db", db], {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${otlp.base}/`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "canopy-otel-test",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test,team=forest%20ops",
        // a minute: nothing is sent before the shutdown, which must flush it all
        OTEL_BSP_SCHEDULE_DELAY: "60000"
      })
      const auth = { authorization: `Bearer ${key}` }
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
      const callerSpan = "00f067aa0ba902b7"
      const created = await request(s.url, "POST", "/v1/projects", {
        headers: { ...auth, traceparent: `00-${traceId}-${callerSpan}-01` },
        json: { name: "Traced", geometry: square() }
      })
      assert.strictEqual(created.status, 201, created.text)
      const id = created.body.data.id as string
      assert.strictEqual((await request(s.url, "GET", `/v1/projects/${id}`, { headers: auth })).status, 200)
      assert.strictEqual((await request(s.url, "GET", "/v1/projects/proj_00000000000000000000000000", { headers: auth })).status, 404)
      assert.strictEqual((await request(s.url, "GET", "/health")).status, 200)
      await new Promise((r) => setTimeout(r, 300))
      assert.strictEqual(otlp.received.length, 0, "nothing exported before the batch interval or the shutdown")

      assert.strictEqual(await stop(s.child), 0)
      assert.isAbove(otlp.received.length, 0, "the shutdown flushed the buffered spans")
      for (const r of otlp.received) {
        assert.strictEqual(r.path, "/v1/traces")
        assert.match(r.contentType, /^application\/json/)
      }
      const payloads = otlp.received.map((r) =>
        JSON.parse(r.body.toString("utf8")) as {
          resourceSpans: Array<{ resource: { attributes: OtlpSpan["attributes"] }; scopeSpans: Array<{ spans: Array<OtlpSpan> }> }>
        }
      )
      const resources = payloads.flatMap((p) => p.resourceSpans.map((r) => r.resource))
      for (const resource of resources) {
        assert.strictEqual(attr(resource, "service.name"), "canopy-otel-test")
        assert.strictEqual(attr(resource, "deployment.environment"), "test")
        assert.strictEqual(attr(resource, "team"), "forest ops")
      }
      const spans = payloads.flatMap((p) => p.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((x) => x.spans)))
      const byId = new Map(spans.map((x) => [x.spanId, x]))
      const server = (name: string, status: number) => {
        const found = spans.filter((x) => x.name === name && attr(x, "http.response.status_code") === status)
        assert.strictEqual(found.length, 1, `one ${name} ${status} span among ${spans.map((x) => x.name).join(", ")}`)
        return found[0]!
      }

      // POST: a server span (kind 2) in the caller's trace, child of the caller's span.
      const post = server("POST /v1/projects", 201)
      assert.strictEqual(post.kind, 2)
      assert.strictEqual(post.traceId, traceId)
      assert.strictEqual(post.parentSpanId, callerSpan)
      assert.strictEqual(attr(post, "http.route"), "/v1/projects")
      assert.strictEqual(attr(post, "http.request.method"), "POST")
      assert.match(String(attr(post, "canopy.request_id")), /^req_/)
      assert.strictEqual(created.headers.get("x-request-id"), attr(post, "canopy.request_id"))
      // The Effect spans of the services it ran through descend from it.
      const descendsFrom = (x: OtlpSpan, ancestor: OtlpSpan) => {
        for (let p = x.parentSpanId ? byId.get(x.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) {
          if (p.spanId === ancestor.spanId) return true
        }
        return false
      }
      const inPost = spans.filter((x) => x.traceId === traceId && x !== post)
      for (const name of ["Credentials.authenticate", "Accounts.meterRequest", "Projects.create"]) {
        const child = inPost.find((x) => x.name === name)
        assert.isDefined(child, `${name} in the POST's trace (spans: ${inPost.map((x) => x.name).join(", ")})`)
        assert.isTrue(descendsFrom(child!, post), `${name} descends from the request's span`)
      }
      assert.strictEqual(byId.get(inPost.find((x) => x.name === "Credentials.authenticate")!.parentSpanId!), post, "authenticate is a direct child")

      // GET without traceparent: a trace of its own, rooted at its server span; a 404 is not an error.
      const get = server("GET /v1/projects/{project_id}", 200)
      assert.notStrictEqual(get.traceId, traceId)
      assert.isTrue(get.parentSpanId === undefined || get.parentSpanId === "", "a root span")
      assert.strictEqual(attr(get, "url.path"), `/v1/projects/${id}`)
      assert.isTrue(spans.some((x) => x.traceId === get.traceId && x.name === "Projects.get" && descendsFrom(x, get)))
      const missing = server("GET /v1/projects/{project_id}", 404)
      assert.notStrictEqual(missing.status.code, 2, "a 4xx leaves the span's status unset")
      // Pages outside the API are traced too.
      server("GET /health", 200)
    } finally {
      await otlp.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("off without an endpoint; the default protocol is http/protobuf; a bad endpoint stops the start with one line", async () => {
    const otlp = await startOtlpReceiver()
    const dir = mkdtempSync(join(tmpdir(), "canopy-otel-"))
    try {
      const db = join(dir, "otel.db")
      initDb(db)
      const off = await startServeProcess(["--db", db], { OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "" })
      assert.strictEqual((await request(off.url, "GET", "/health")).status, 200)
      assert.strictEqual(await stop(off.child), 0)

      const proto = await startServeProcess(["--db", db], {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.base}/custom/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "",
        OTEL_BSP_SCHEDULE_DELAY: "100"
      })
      assert.strictEqual((await request(proto.url, "GET", "/health")).status, 200)
      const deadline = Date.now() + 5_000
      while (otlp.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      assert.strictEqual(await stop(proto.child), 0)
      assert.isAbove(otlp.received.length, 0, "sent within the 100 ms batch interval")
      assert.strictEqual(otlp.received[0]!.path, "/custom/traces", "a traces endpoint is used as it is")
      assert.strictEqual(otlp.received[0]!.contentType, "application/x-protobuf")
      assert.include(otlp.received[0]!.body.toString("latin1"), "GET /health", "the span's name is in the protobuf body")

      const bad = spawnSync(process.execPath, [canopyBin, "serve", "--db", db, "--port", "0"], {
        encoding: "utf8",
        timeout: 20_000,
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }
      })
      assert.notStrictEqual(bad.status, 0)
      assert.match(bad.stderr, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/)
    } finally {
      await otlp.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
