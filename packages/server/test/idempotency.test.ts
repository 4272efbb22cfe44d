/**
 * `Idempotency-Key` on every POST, over a real socket: a retry replays the first response and
 * creates nothing; another request with the key is refused; concurrent requests with one key do
 * the work once; keys are per account; a 5xx frees the key; keys expire after 24 hours. The last
 * part runs two `canopy serve` processes on one PostgreSQL: the key works across instances.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { createCanopy, IdempotencyKeys, Time } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { type Reply, request, square, startServeProcess, startTestServer, type TestServer } from "@canopy/server/testing"

/** A POST with a JSON body and an optional Idempotency-Key. */
const post = (base: string, token: string, path: string, json: unknown, key?: string) =>
  request(base, "POST", path, { token, json, ...(key !== undefined ? { headers: { "idempotency-key": key } } : {}) })

const totals = async (base: string, token: string) => ({
  projects: (await request(base, "GET", "/v1/projects", { token })).body.meta.total as number,
  events: (await request(base, "GET", "/v1/events", { token })).body.meta.total as number
})

/** A closed ring of `n` positions around a point: enough to send the check to the worker pool (slow first time). */
const circle = (n: number, lon = 20) => ({
  type: "Polygon",
  coordinates: [[...Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n
    return [lon + 0.01 * Math.cos(a), 0.01 * Math.sin(a)]
  }), [lon + 0.01, 0]]]
})

const replayed = (r: Reply) => r.headers.get("idempotent-replayed") === "true"

describe("Idempotency-Key (SQLite server)", () => {
  let server: TestServer
  let base: string
  let a: { token: string; accountId: string }
  let b: { token: string; accountId: string }

  beforeAll(async () => {
    server = await startTestServer()
    base = server.url
    a = await server.newAccount("enterprise")
    b = await server.newAccount("enterprise")
  }, 30_000)
  afterAll(() => server?.stop())

  it("a retry replays the first response byte for byte, with its own request id, and creates nothing", async () => {
    const body = { name: "Replayed", geometry: square(1) }
    const before = await totals(base, a.token)
    const first = await post(base, a.token, "/v1/projects", body, "create-1")
    assert.strictEqual(first.status, 201)
    assert.isFalse(replayed(first))
    const mid = await totals(base, a.token)
    assert.deepStrictEqual(mid, { projects: before.projects + 1, events: before.events + 1 })
    for (let i = 0; i < 3; i++) {
      const again = await post(base, a.token, "/v1/projects", body, "create-1")
      assert.strictEqual(again.status, 201)
      assert.strictEqual(again.text, first.text)
      assert.isTrue(replayed(again))
      assert.strictEqual(again.headers.get("content-type"), first.headers.get("content-type"))
      assert.strictEqual(again.headers.get("x-content-type-options"), "nosniff")
      assert.notStrictEqual(again.headers.get("x-request-id"), first.headers.get("x-request-id"))
      assert.match(again.headers.get("x-request-id")!, /^req_/)
      assert.isNotNull(again.headers.get("x-ratelimit-remaining"))
    }
    assert.deepStrictEqual(await totals(base, a.token), mid)
    // Without a key, the same body is a new request (here: its slug is taken).
    assert.strictEqual((await post(base, a.token, "/v1/projects", body)).status, 409)
  })

  it("the same key with another body, path or method is refused with 422 and does nothing", async () => {
    const first = await post(base, a.token, "/v1/projects", { name: "Mismatch", geometry: square(2) }, "mismatch-1")
    assert.strictEqual(first.status, 201)
    const before = await totals(base, a.token)
    const otherBody = await post(base, a.token, "/v1/projects", { name: "Mismatch 2", geometry: square(2) }, "mismatch-1")
    assert.strictEqual(otherBody.status, 422)
    assert.strictEqual(otherBody.body.error.code, "VALIDATION_ERROR")
    assert.deepStrictEqual(otherBody.body.error.details.map((d: { field: string }) => d.field), ["idempotency-key"])
    const otherPath = await post(base, a.token, `/v1/projects/${first.body.data.id}/archive`, { name: "Mismatch", geometry: square(2) }, "mismatch-1")
    assert.strictEqual(otherPath.status, 422)
    assert.deepStrictEqual(await totals(base, a.token), before)
    assert.strictEqual((await request(base, "GET", `/v1/projects/${first.body.data.id}`, { token: a.token })).body.data.status, first.body.data.status)
    // The first request's response is still what the key replays.
    const again = await post(base, a.token, "/v1/projects", { name: "Mismatch", geometry: square(2) }, "mismatch-1")
    assert.strictEqual(again.text, first.text)
  })

  it("of concurrent requests with one key exactly one does the work; the others get 409 (in progress) or the replay", async () => {
    const body = { name: "Raced", geometry: circle(2_000) }
    const before = await totals(base, a.token)
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(base, a.token, "/v1/projects", body, "race-1")))
    const fresh = replies.filter((r) => r.status === 201 && !replayed(r))
    assert.strictEqual(fresh.length, 1, JSON.stringify(replies.map((r) => r.status)))
    const busy = replies.filter((r) => r.status === 409)
    assert.isAbove(busy.length, 0)
    for (const r of busy) {
      assert.strictEqual(r.body.error.code, "CONFLICT")
      assert.match(r.body.error.message, /in progress/)
      assert.strictEqual(r.headers.get("retry-after"), "1")
    }
    for (const r of replies.filter((x) => replayed(x))) assert.strictEqual(r.text, fresh[0]!.text)
    assert.strictEqual(busy.length + replies.filter(replayed).length, 7)
    assert.deepStrictEqual(await totals(base, a.token), { projects: before.projects + 1, events: before.events + 1 })
    // Once done, the key replays.
    const after = await post(base, a.token, "/v1/projects", body, "race-1")
    assert.isTrue(replayed(after))
    assert.strictEqual(after.text, fresh[0]!.text)
  })

  it("keys are per account: another account's identical request with the same key does its own work", async () => {
    const body = { name: "Shared key", geometry: square(3) }
    const fromA = await post(base, a.token, "/v1/projects", body, "shared-key")
    const beforeB = await totals(base, b.token)
    const fromB = await post(base, b.token, "/v1/projects", body, "shared-key")
    assert.strictEqual(fromB.status, 201)
    assert.isFalse(replayed(fromB))
    assert.notStrictEqual(fromB.body.data.id, fromA.body.data.id)
    assert.deepStrictEqual(await totals(base, b.token), { projects: beforeB.projects + 1, events: beforeB.events + 1 })
    // And another body under that key in B is B's mismatch, not A's.
    assert.strictEqual((await post(base, b.token, "/v1/projects", { name: "Other" }, "shared-key")).status, 422)
    assert.strictEqual((await post(base, a.token, "/v1/projects", body, "shared-key")).text, fromA.text)
  })

  it("a 5xx is not kept: the same key is retried and does the work; a 4xx of the work is kept, a malformed request's 400 is not", async () => {
    const body = { name: "After outage", geometry: square(4) }
    const before = await totals(base, a.token)
    const db = new Database(server.db)
    try {
      db.exec("create trigger refuse_projects before insert on projects begin select raise(abort, 'refused for the test'); end")
      const failed = await post(base, a.token, "/v1/projects", body, "outage-1")
      assert.strictEqual(failed.status, 503) // a database refusing the write: unavailable (DECISIONS)
      assert.isFalse(replayed(failed))
    } finally {
      db.exec("drop trigger if exists refuse_projects")
      db.close()
    }
    const retried = await post(base, a.token, "/v1/projects", body, "outage-1")
    assert.strictEqual(retried.status, 201)
    assert.isFalse(replayed(retried))
    assert.deepStrictEqual(await totals(base, a.token), { projects: before.projects + 1, events: before.events + 1 })
    assert.strictEqual((await post(base, a.token, "/v1/projects", body, "outage-1")).text, retried.text)

    // A 422 from the domain is the key's answer, replayed even once the request would succeed.
    const invalid = await post(base, a.token, "/v1/projects", { name: "" }, "invalid-1")
    assert.strictEqual(invalid.status, 422)
    const invalidAgain = await post(base, a.token, "/v1/projects", { name: "" }, "invalid-1")
    assert.isTrue(replayed(invalidAgain))
    assert.strictEqual(invalidAgain.text, invalid.text)

    // Malformed JSON is refused before the key is claimed: the key is still free.
    const malformed = await request(base, "POST", "/v1/projects", {
      token: a.token,
      body: "{not json",
      headers: { "content-type": "application/json", "idempotency-key": "malformed-1" }
    })
    assert.strictEqual(malformed.status, 400)
    const ok = await post(base, a.token, "/v1/projects", { name: "Well formed", geometry: square(5) }, "malformed-1")
    assert.strictEqual(ok.status, 201)
    assert.isFalse(replayed(ok))
  })

  it("keys are checked: 1 to 255 printable characters; GET ignores the header", async () => {
    const long = await post(base, a.token, "/v1/projects", { name: "Long key" }, "k".repeat(256))
    assert.strictEqual(long.status, 400)
    assert.strictEqual(long.body.error.code, "VALIDATION_ERROR")
    assert.deepStrictEqual(long.body.error.details.map((d: { field: string }) => d.field), ["idempotency-key"])
    const empty = await post(base, a.token, "/v1/projects", { name: "Empty key" }, "")
    assert.strictEqual(empty.status, 400)
    const longest = await post(base, a.token, "/v1/projects", { name: "Longest key", geometry: square(6) }, "k".repeat(255))
    assert.strictEqual(longest.status, 201)
    const get = await request(base, "GET", "/v1/projects", { token: a.token, headers: { "idempotency-key": "k".repeat(300) } })
    assert.strictEqual(get.status, 200)
  })

  it("a key expires 24 hours after its first use (the maintenance purge), then is free for another request", async () => {
    const first = await post(base, a.token, "/v1/projects", { name: "Expiring", geometry: square(7) }, "expire-1")
    assert.strictEqual(first.status, 201)
    assert.strictEqual((await post(base, a.token, "/v1/projects", { name: "Expiring 2", geometry: square(7) }, "expire-1")).status, 422)
    const purgeAt = (ms: number) =>
      server.canopy.run(Effect.flatMap(IdempotencyKeys, (k) => k.purge).pipe(
        Effect.provideService(Time.Time, { now: () => ms })
      ))
    assert.strictEqual(await purgeAt(Date.now() + 23 * 3_600_000), 0)
    assert.isAbove(await purgeAt(Date.now() + 24 * 3_600_000 + 60_000), 0)
    const reused = await post(base, a.token, "/v1/projects", { name: "Expiring 2", geometry: square(7) }, "expire-1")
    assert.strictEqual(reused.status, 201)
    assert.isFalse(replayed(reused))
  })

  it("the OpenAPI document declares the header on every POST, and only there", async () => {
    const doc = (await request(base, "GET", "/v1/openapi.json")).body
    let posts = 0
    for (const [path, ops] of Object.entries(
      doc.paths as Record<string, Record<string, { parameters: Array<{ name: string; in: string; schema: { maxLength?: number } }> }>>
    )) {
      for (const [method, op] of Object.entries(ops)) {
        const header = op.parameters.find((p) => p.in === "header" && p.name === "Idempotency-Key")
        if (method === "post") {
          posts++
          assert.isDefined(header, `POST ${path}`)
          assert.strictEqual(header!.schema.maxLength, 255)
        } else assert.isUndefined(header, `${method} ${path}`)
      }
    }
    assert.isAbove(posts, 5)
  })
})

/** Starts `canopy serve` on PostgreSQL and resolves with its URL. */
const startInstance = (databaseUrl: string) => startServeProcess(["--database-url", databaseUrl])

describe("Idempotency-Key across two server instances on one PostgreSQL", () => {
  let scope: Scope.Closeable
  let databaseUrl: string
  let one: { child: ChildProcess; url: string }
  let two: { child: ChildProcess; url: string }
  let token: string

  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    databaseUrl = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
    ;[one, two] = await Promise.all([startInstance(databaseUrl), startInstance(databaseUrl)])
    const canopy = await createCanopy({ storage: postgresStorage({ url: databaseUrl }) })
    token = (await canopy.bootstrap({ account_name: "Idempotent", email: "idem@example.com", plan: "enterprise" })).api_key.token
    await canopy.close()
  }, 60_000)

  afterAll(async () => {
    for (const i of [one, two]) i?.child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 500))
    if (scope) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("concurrent requests with one key through both instances do the work once; either instance replays it", async () => {
    const body = { name: "Across instances", geometry: square(8) }
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => post(i % 2 === 0 ? one.url : two.url, token, "/v1/projects", body, "across-1")))
    const fresh = replies.filter((r) => r.status === 201 && !replayed(r))
    assert.strictEqual(fresh.length, 1, JSON.stringify(replies.map((r) => r.status)))
    for (const r of replies) {
      if (r === fresh[0]) continue
      assert.isTrue(r.status === 409 || (replayed(r) && r.text === fresh[0]!.text), `${r.status} ${r.text}`)
    }
    for (const url of [one.url, two.url]) {
      const again = await post(url, token, "/v1/projects", body, "across-1")
      assert.isTrue(replayed(again))
      assert.strictEqual(again.text, fresh[0]!.text)
      assert.strictEqual((await post(url, token, "/v1/projects", { ...body, name: "Other" }, "across-1")).status, 422)
    }
    assert.deepStrictEqual(await totals(one.url, token), { projects: 1, events: 1 })
  })
})
