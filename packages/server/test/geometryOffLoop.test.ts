/**
 * Large boundaries are validated off the event loop: the server keeps answering meanwhile, the
 * answers are the ones inline validation gives, a check that overruns its budget is a 422, and a
 * full queue is a 429. Figures are logged; bounds are generous (they fail if validation ran on
 * the loop, not when the machine is merely busy).
 */
import { Geometry, GeometryCheck } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { type GeometryPoolOptions, makeGeometryPool } from "../src/geometry/pool.ts"
import { type RunningServer, serve } from "../src/index.ts"
import { client, isErrorBody, request, square } from "@canopy/server/testing"
import { startHealthProbe } from "./healthProbe.ts"

type Position = [number, number] | [number, number, number]

/** A ring of `n` positions (closing one included) around (cx, cy), radius alternating per `radius(i)`. */
const ring = (n: number, radius: (i: number) => number, cx = 10, cy = 10, clockwise = false): Array<Position> => {
  const out: Array<Position> = []
  for (let i = 0; i < n - 1; i++) {
    const a = ((clockwise ? -2 : 2) * Math.PI * i) / (n - 1)
    out.push([cx + radius(i) * Math.cos(a), cy + radius(i) * Math.sin(a)])
  }
  out.push([...out[0]!] as Position)
  return out
}
/** A hostile star: valid, every edge box overlapping the others. */
const star = (n: number) => ({ type: "Polygon", coordinates: [ring(n, (i) => (i % 2 === 0 ? 1 : 0.001))] })
const circle = (n: number, r = 0.1, cx = 10, cy = 10, clockwise = false) => ({ type: "Polygon", coordinates: [ring(n, () => r, cx, cy, clockwise)] })

interface Started {
  readonly running: RunningServer
  readonly api: ReturnType<typeof client>
  readonly token: string
  readonly stop: () => Promise<void>
}

const start = async (geometry?: GeometryPoolOptions | false): Promise<Started> => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-geometry-"))
  const running = await serve({
    port: 0,
    host: "127.0.0.1",
    db: join(dir, "canopy.db"),
    log: false,
    dispatcher: false,
    ...(geometry !== undefined ? { geometry } : {})
  })
  const b = await running.canopy.bootstrap({ account_name: "Estate", email: "owner@example.com", plan: "enterprise" })
  return {
    running,
    api: client(running.url, b.api_key.token),
    token: b.api_key.token,
    stop: async () => {
      await running.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** `/health` every 10 ms from another thread, and this loop's delay, until the returned stop. */
const probe = async (base: string) => {
  const stop = await startHealthProbe(base, 1000)
  const lag = monitorEventLoopDelay({ resolution: 10 })
  lag.enable()
  return async () => {
    lag.disable()
    const latencies = await stop()
    const sorted = [...latencies].sort((a, b) => a - b)
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0)
    return {
      requests: sorted.length,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: Math.round(sorted.at(-1) ?? 0),
      lagP99Ms: Math.round(lag.percentile(99) / 1e6),
      lagMaxMs: Math.round(lag.max / 1e6)
    }
  }
}

const fields = (r: { body: any }) => (r.body?.error?.details ?? []).map((d: { field: string }) => d.field)

describe("geometry off the event loop (default pool)", () => {
  let s: Started
  beforeAll(async () => {
    s = await start()
    // Start the worker: a boundary over the threshold goes to it (the first waits for it to load).
    const warm = await s.api.post("/v1/projects", { name: "Warm-up", geometry: circle(5_000) })
    assert.strictEqual(warm.status, 201)
    assert.strictEqual(s.running.geometry!.stats().completed, 1)
  })
  afterAll(() => s.stop())

  it("/health answers promptly while a 100,000-position hostile star is validated", async () => {
    const body = JSON.stringify({ name: "Star", geometry: star(100_000) })
    const pool = s.running.geometry!
    const before = pool.stats()
    const stop = await probe(s.running.url)
    await sleep(100)
    const started = performance.now()
    const reply = await request(s.running.url, "POST", "/v1/projects", { token: s.token, body, headers: { "content-type": "application/json" } })
    const elapsed = performance.now() - started
    const figures = await stop()
    console.log(`100,000-position star: ${reply.status} in ${Math.round(elapsed)} ms; /health ${JSON.stringify(figures)}`)
    // Valid (the validator finished within its budget) or 422 "too complex": never a run without bound.
    if (reply.status === 422) {
      assert.isTrue(isErrorBody(reply, "VALIDATION_ERROR"))
      assert.deepStrictEqual(fields(reply), ["geometry"])
      assert.match(reply.body.error.details[0].message, /too complex to validate within 1\.5 s/)
    } else {
      assert.strictEqual(reply.status, 201)
      assert.closeTo(reply.body.data.area_hectares, 3_848, 10)
    }
    assert.isBelow(elapsed, 5_000)
    // It was checked by a worker...
    const after = pool.stats()
    // (Overlap measures against the projects it meets may have run there too: not counted.)
    assert.strictEqual(after.completed + after.abandoned - after.measures - (before.completed + before.abandoned - before.measures), 1)
    // ...and meanwhile /health kept answering. On the loop, every probe issued during the check
    // would wait for its end (a median of half the check's time); off it, the loop still parses
    // and serialises the 4 MB bodies and collects their garbage (tens of ms, more on a busy
    // machine), so the bound on the worst probe is generous.
    assert.isAbove(figures.requests, 20)
    assert.isBelow(figures.p50Ms, 50)
    assert.isBelow(figures.maxMs, 1_000)
  })

  it("a large body is parsed in the worker: not JSON → 400; other fields' problems and the boundary's are listed together; a valid one keeps every field", async () => {
    const pool = s.running.geometry!
    const checks = () => {
      const t = pool.stats()
      return t.completed + t.abandoned - t.measures // not the overlap measures
    }
    const before = checks()
    const big = JSON.stringify({ name: "Parsed off the loop", description: "kept", status: "draft", geometry: circle(20_000) })
    assert.isAbove(big.length, 256 * 1024)
    const broken = await request(s.running.url, "POST", "/v1/projects", { token: s.token, body: big.slice(0, -1),
      headers: { "content-type": "application/json" } })
    assert.strictEqual(broken.status, 400)
    assert.isTrue(isErrorBody(broken, "VALIDATION_ERROR"))
    assert.deepStrictEqual(fields(broken), ["body"])
    const crossing = circle(20_000)
    crossing.coordinates[0]![100] = [10.5, 10.5]
    crossing.coordinates[0]![101] = [9.5, 9.5]
    const both = await s.api.post("/v1/projects", { name: "", status: "nope", geometry: crossing })
    assert.strictEqual(both.status, 422)
    // As a full decode lists them: name, then the geometry's, then status (the schema's order).
    assert.deepStrictEqual(fields(both)[0], "name")
    assert.isTrue(fields(both).some((f: string) => f.startsWith("geometry")))
    assert.strictEqual(fields(both).at(-1), "status")
    const created = await request(s.running.url, "POST", "/v1/projects", { token: s.token, body: big, headers: { "content-type": "application/json" } })
    assert.strictEqual(created.status, 201)
    assert.deepStrictEqual([created.body.data.name, created.body.data.description, created.body.data.status], ["Parsed off the loop", "kept", "draft"])
    const inline = GeometryCheck.evaluate(circle(20_000))
    assert.strictEqual(inline._tag, "Valid")
    if (inline._tag === "Valid") assert.deepStrictEqual(created.body.data.geometry, inline.geometry.value())
    const read = await s.api.get(`/v1/projects/${created.body.data.id}`)
    assert.strictEqual(read.text.length > 256 * 1024, true)
    assert.deepStrictEqual(read.body.data.geometry, created.body.data.geometry)
    // A plain boundary is stored as sent (docs/decisions.md, "Geometry"), from the worker too.
    const ring = circle(20_000, 0.2).coordinates[0]!.map(([x, y]) => `[${x!.toPrecision(17)},${y!.toPrecision(17)}]`)
    const sent = `{"type":"Polygon","coordinates":[[${ring.join(",")}]]}`
    const spelled = await request(s.running.url, "POST", "/v1/projects", { token: s.token, body: `{"name":"Spelled","geometry":${sent}}`,
      headers: { "content-type": "application/json" } })
    assert.strictEqual(spelled.status, 201)
    assert.include((await s.api.get(`/v1/projects/${spelled.body.data.id}`)).text, `"geometry":${sent}`)
    // Four bodies went to the worker (the broken one included); none was parsed on the loop.
    assert.strictEqual(checks() - before, 4)
  })

  it("the geometry workers run below the event loop's priority (Linux: nice 10 per thread), the loop's thread unchanged", async () => {
    // A boundary through a worker: one has started and answered.
    const pool = s.running.geometry!
    const before = pool.stats().completed
    const r = await s.api.post("/v1/projects", { name: "Priority", geometry: circle(5_000, 0.1, -60, 30) })
    assert.strictEqual(r.status, 201)
    assert.strictEqual(pool.stats().completed - before, 1)
    if (!existsSync("/proc/self/task")) return // threads have no priority of their own here
    const niceOf = (tid: string) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8")
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) // field 19, "nice"
    }
    const threads = readdirSync("/proc/self/task").map((tid) => ({ tid, nice: niceOf(tid), name: readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim() }))
    assert.strictEqual(niceOf(String(process.pid)), 0) // the main thread (the event loop)
    assert.isAtLeast(threads.filter((t) => t.nice === 10).length, 1, JSON.stringify(threads))
  })

  it("a boundary checked in the worker is answered from its UTF-8 bytes: the same text as a read, a right Content-Length, and a replay of the same bytes", async () => {
    const pool = s.running.geometry!
    const checks = () => {
      const t = pool.stats()
      return t.completed + t.abandoned - t.measures
    }
    const before = checks()
    // Away from the other tests' boundaries (no overlap measures), with a non-ASCII name around it.
    const boundary = circle(20_000, 0.1, 40, -20)
    const body = JSON.stringify({ name: "Bytes — é 🌲", description: "ünïcode", geometry: boundary })
    assert.isAbove(body.length, 256 * 1024)
    const headers = { "content-type": "application/json", "idempotency-key": `bytes-${Date.now()}` }
    const created = await request(s.running.url, "POST", "/v1/projects", { token: s.token, body, headers })
    assert.strictEqual(created.status, 201)
    assert.strictEqual(checks() - before, 1) // parsed and checked in the worker
    assert.strictEqual(Number(created.headers.get("content-length")), Buffer.byteLength(created.text))
    assert.deepStrictEqual([created.body.data.name, created.body.data.description], ["Bytes — é 🌲", "ünïcode"])
    // The boundary's text in the answer is the stored one, character for character.
    const inline = GeometryCheck.evaluate(boundary)
    assert.strictEqual(inline._tag, "Valid")
    const text = inline._tag === "Valid" ? inline.geometry.text : ""
    assert.include(created.text, `"geometry":${text},`)
    const read = await s.api.get(`/v1/projects/${created.body.data.id}`)
    assert.include(read.text, `"geometry":${text},`)
    const { overlaps: _overlaps, ...createdData } = created.body.data // (a create's own report)
    assert.deepStrictEqual(createdData, read.body.data)
    // The key's replay is the first answer, byte for byte.
    const replay = await request(s.running.url, "POST", "/v1/projects", { token: s.token, body, headers })
    assert.strictEqual(replay.status, 201)
    assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
    assert.strictEqual(replay.text, created.text)
    assert.strictEqual(Number(replay.headers.get("content-length")), Buffer.byteLength(replay.text))
    // A HEAD of the project has no body.
    const head = await fetch(`${s.running.url}/v1/projects/${created.body.data.id}`, { method: "HEAD", headers: { authorization: `Bearer ${s.token}` } })
    assert.strictEqual(head.status, 200)
    assert.strictEqual(await head.text(), "")
  })

  it("a large invalid boundary answers 422 with the inline validator's problems and paths", async () => {
    const outOfRange = circle(20_000)
    ;(outOfRange.coordinates[0]![12_345] as Position)[1] = 95
    const crossing = circle(20_000)
    const c0 = crossing.coordinates[0]!
    ;[c0[100], c0[101]] = [c0[101]!, c0[100]!]
    const malformed = circle(20_000) as { type: string; coordinates: Array<Array<unknown>> }
    malformed.coordinates[0]![777] = ["10", 10]
    // No positions, but 300,000 parts: listing their problems is work too.
    const empties = { type: "MultiPolygon", coordinates: Array.from({ length: 300_000 }, () => []) }
    const before = s.running.geometry!.stats().completed
    for (const geometry of [outOfRange, crossing, malformed, empties]) {
      const r = await s.api.post("/v1/projects", { name: "", geometry })
      assert.strictEqual(r.status, 422)
      assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
      // Other fields' problems first, as a full decode lists them; then the geometry's, verbatim.
      assert.deepStrictEqual(r.body.error.details, [
        { field: "name", message: "must not be empty" },
        ...Geometry.validate(geometry)
      ])
    }
    assert.deepStrictEqual(fields(await s.api.post("/v1/projects", { name: "x", geometry: outOfRange })), ["geometry.coordinates[0][12345][1]"])
    assert.deepStrictEqual(fields(await s.api.post("/v1/projects", { name: "x", geometry: crossing })), ["geometry.coordinates[0]"])
    assert.deepStrictEqual(fields(await s.api.post("/v1/projects", { name: "x", geometry: malformed })), ["geometry.coordinates[0][777][0]"])
    // Every one was checked by the worker (the well-formed ones packed, the others as JSON text).
    assert.strictEqual(s.running.geometry!.stats().completed - before, 7)
  })

  it("a large valid boundary is stored as inline validation would store it: winding fixed, altitudes kept", async () => {
    const shell = circle(30_000, 0.05, 20, 20, true).coordinates[0]!.map(([x, y]) => [x, y, 123] as Position)
    const second = circle(3_000, 0.01, 21, 21).coordinates[0]!
    const geometry = { type: "MultiPolygon", coordinates: [[shell], [second]] }
    const expected = GeometryCheck.evaluate(geometry)
    assert.strictEqual(expected._tag, "Valid")
    const created = await s.api.post("/v1/projects", { name: "Multi", geometry })
    assert.strictEqual(created.status, 201)
    const p = created.body.data
    if (expected._tag === "Valid") {
      assert.deepStrictEqual(p.geometry, expected.geometry.value())
      assert.strictEqual(p.area_hectares, expected.area_hectares)
      assert.deepStrictEqual(p.bbox, expected.bbox)
    }
    assert.deepStrictEqual(p.geometry.coordinates[0][0][1], [...shell.at(-2)!])
    // Update takes the same path.
    const updated = await s.api.put(`/v1/projects/${p.id}`, { geometry: circle(10_000, 0.02, 30, 30) })
    assert.strictEqual(updated.status, 200)
    assert.deepStrictEqual(updated.body.data.bbox, Geometry.bbox(circle(10_000, 0.02, 30, 30) as Geometry.Boundary))
  })
})

describe("geometry time budget and queue", () => {
  it("a check over its budget answers 422 on geometry; the worker is replaced; small boundaries are unaffected", async () => {
    const s = await start({ budgetMs: 1, workers: 1 })
    try {
      for (const n of [1, 2]) {
        const r = await s.api.post("/v1/projects", { name: "Big", geometry: circle(100_000) })
        assert.strictEqual(r.status, 422)
        assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"))
        assert.deepStrictEqual(r.body.error.details, [{
          field: "geometry",
          message: "is too complex to validate within 0.001 s; simplify the boundary (fewer positions, or fewer edges passing close to one another)"
        }])
        assert.strictEqual(s.running.geometry!.stats().abandoned, n)
      }
      assert.strictEqual((await s.api.post("/v1/projects", { name: "Small", geometry: square(10) })).status, 201)
    } finally {
      await s.stop()
    }
  })

  it("when the queue is full, a large boundary answers 429 RATE_LIMITED with the spec's body", async () => {
    const s = await start({ budgetMs: 1, workers: 1, queuedPositions: 20_000 })
    try {
      const geometry = circle(20_000)
      const replies = await Promise.all([1, 2, 3, 4].map((i) => s.api.post("/v1/projects", { name: `P${i}`, geometry })))
      const statuses = replies.map((r) => r.status).sort()
      // The worker is still loading when the four arrive: one waits for it, the rest are refused.
      assert.deepStrictEqual(statuses, [422, 429, 429, 429])
      for (const r of replies.filter((x) => x.status === 429)) {
        assert.isTrue(isErrorBody(r, "RATE_LIMITED"))
        assert.match(r.body.error.message, /retry after 1 s/)
        assert.strictEqual(r.headers.get("retry-after"), "1")
      }
    } finally {
      await s.stop()
    }
  })
})

describe("the pool's verdicts are the inline check's", () => {
  const pool = makeGeometryPool({ threshold: 0, workers: 1 })
  afterAll(() => pool.close())

  // Positions on a 0.001° grid: plenty of touching, collinear and crossing edges.
  const position = fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 })).map(([x, y]) => [x / 1000, y / 1000])
  const polygon = fc.array(position, { minLength: 3, maxLength: 12 }).map((ps) => [[...ps, ps[0]!]])
  const boundary = fc.oneof(
    polygon.map((coordinates) => ({ type: "Polygon", coordinates })),
    fc.array(polygon, { minLength: 1, maxLength: 3 }).map((coordinates) => ({ type: "MultiPolygon", coordinates })),
    // Malformed somewhere (these travel as JSON text).
    fc.record({ type: fc.constantFrom("Polygon", "MultiPolygon"), coordinates: fc.array(fc.jsonValue(), { maxLength: 4 }) })
  )

  it("property: random small polygons and multipolygons, well formed or not, all through the worker", async () => {
    const samples = fc.sample(boundary, { numRuns: 150, seed: 13 })
    for (const b of [...samples, circle(50), star(50), { type: "Polygon", coordinates: [] }]) {
      assert.deepStrictEqual(await Effect.runPromise(pool.check(b)), GeometryCheck.evaluate(b))
    }
    assert.strictEqual(pool.stats().completed, samples.length + 3)
  })
})
