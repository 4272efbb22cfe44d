/**
 * The multi-instance cases: two `canopy serve` processes on one PostgreSQL — directly, or through
 * a connection pooler — share rate limits, see each other's revocations, deliver every webhook
 * event exactly once, and agree on unique names and idempotency keys. The library (bootstrap,
 * revocation) talks to the database directly.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { createCanopy, Idempotency, Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { client, request, startServeProcess, startReceiver } from "@canopy/server/testing"

/** How the instances reach the database: the URL they are given for it, their environment, and a stop. */
export interface Connections {
  readonly serveUrl: (databaseUrl: string) => string
  readonly env?: Readonly<Record<string, string>>
  readonly stop?: () => Promise<void>
}

/** Starts `canopy serve` on PostgreSQL and resolves with its URL. */
const startInstance = (databaseUrl: string, env: Readonly<Record<string, string>> = {}) =>
  startServeProcess(["--database-url", databaseUrl], { CANOPY_ALLOW_INSECURE_WEBHOOKS: "1", ...env })

/** The cases, against two instances started by `connect`'s settings on a fresh database. */
export const multiInstanceSuite = (label: string, connect: () => Promise<Connections>): void => {
  let scope: Scope.Closeable
  let databaseUrl: string
  let a: { child: ChildProcess; url: string }
  let b: { child: ChildProcess; url: string }
  let stop: (() => Promise<void>) | undefined

  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    databaseUrl = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
    const c = await connect()
    stop = c.stop
    const serveUrl = c.serveUrl(databaseUrl)
    ;[a, b] = await Promise.all([startInstance(serveUrl, c.env), startInstance(serveUrl, c.env)])
  }, 60_000)

  afterAll(async () => {
    for (const i of [a, b]) i?.child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 500))
    await stop?.()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const library = () => createCanopy({ storage: postgresStorage({ url: databaseUrl }) })

  describe(label, () => {
    it("rate limits are shared: a 60/min plan gets exactly 60 successes across both", async () => {
      const canopy = await library()
      const { api_key } = await canopy.bootstrap({ account_name: "Limited", email: "limited@example.com", plan: "free" })
      await canopy.close()
      const viaA = client(a.url, api_key.token)
      const viaB = client(b.url, api_key.token)
      const started = Date.now()
      const replies = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? viaA : viaB).get("/v1/projects")))
      // The bucket refills one token a second: requests answered within the first second see exactly
      // 60; a slower run may see one more per second elapsed. Separate buckets would let all 80 through.
      const refill = Math.floor((Date.now() - started) / 1000)
      const statuses = replies.map((r) => r.status)
      const ok = statuses.filter((s) => s === 200).length
      assert.isTrue(ok >= 60 && ok <= 60 + refill, `${ok} successes in ${Date.now() - started} ms: ${JSON.stringify(statuses)}`)
      assert.strictEqual(statuses.filter((s) => s === 429).length, 80 - ok)
      assert.isTrue(replies.filter((r) => r.status === 429).every((r) => r.headers.get("retry-after") !== null))
    })

    it("a key revoked through one instance is refused by the other on its next request", async () => {
      const canopy = await library()
      const { account } = await canopy.bootstrap({ account_name: "Revoker", email: "revoker@example.com", plan: "pro" })
      const key = await canopy.credentials.create(Principal.system(account.id), "api_key", { name: "soon revoked", permissions: ["projects:read"] })
      const admin = await canopy.credentials.create(Principal.system(account.id), "api_key", { name: "admin", permissions: ["admin"] })
      await canopy.close()
      assert.strictEqual((await client(a.url, key.token).get("/v1/projects")).status, 200)
      assert.strictEqual((await client(b.url, key.token).get("/v1/projects")).status, 200)
      // Revoke through instance A's process: the library shares nothing with B but the database.
      const revoker = await library()
      await revoker.credentials.revoke(await revoker.authenticate(admin.token), key.id)
      await revoker.close()
      assert.strictEqual((await client(b.url, key.token).get("/v1/projects")).status, 401)
      assert.strictEqual((await client(a.url, key.token).get("/v1/projects")).status, 401)
    })

    it("two dispatchers on one outbox: every attempt is sent exactly once", async () => {
      const receiver = await startReceiver()
      receiver.on("/both", () => ({ status: 200, delayMs: 5 }))
      try {
        const canopy = await library()
        const { api_key } = await canopy.bootstrap({ account_name: "Fan-out", email: "fanout@example.com", plan: "enterprise" })
        await canopy.close()
        const viaA = client(a.url, api_key.token)
        assert.strictEqual((await viaA.post("/v1/webhooks", { url: receiver.url("/both"), events: ["project.created"] })).status, 201)
        const writes = await Promise.all(
          Array.from({ length: 120 }, (_, i) => client(i % 2 ? a.url : b.url, api_key.token).post("/v1/projects", { name: `Fan ${i}` }))
        )
        assert.isTrue(writes.every((w) => w.status === 201))
        const got = await receiver.waitFor("/both", 120, 20_000)
        await new Promise((r) => setTimeout(r, 1_000)) // room for any duplicate to show up
        const ids = receiver.at("/both").map((r) => r.json.id as string)
        assert.strictEqual(ids.length, 120, `received ${ids.length} requests for 120 events`)
        assert.strictEqual(new Set(ids).size, 120)
        assert.deepStrictEqual(new Set(got.map((r) => r.json.data.name)).size, 120)
      } finally {
        await receiver.close()
      }
    })

    it("concurrent duplicate-slug creates through both instances: exactly one 201, the rest 409", async () => {
      const canopy = await library()
      const { api_key } = await canopy.bootstrap({ account_name: "Racers", email: "racers@example.com", plan: "enterprise" })
      await canopy.close()
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => client(i % 2 ? a.url : b.url, api_key.token).post("/v1/projects", { name: "Contested Plot" }))
      )
      const statuses = replies.map((r) => r.status).sort()
      assert.deepStrictEqual(statuses, [201, ...Array(11).fill(409)])
      assert.strictEqual((await client(a.url, api_key.token).get("/v1/projects")).body.meta.total, 1)
    })

    it("one Idempotency-Key sent concurrently through both instances: the work is done once, every answer names that one project", async () => {
      const canopy = await library()
      const { api_key } = await canopy.bootstrap({ account_name: "Retriers", email: "retriers@example.com", plan: "enterprise" })
      await canopy.close()
      const send = (i: number) =>
        request(i % 2 ? a.url : b.url, "POST", "/v1/projects", {
          token: api_key.token,
          json: { name: "Retried Plot" },
          headers: { "idempotency-key": "retry-1" }
        })
      const first = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i)))
      // One request does the work; the others replay its answer or, while it runs, are told to retry.
      assert.strictEqual(first.filter((r) => r.status === 201 && r.headers.get(Idempotency.REPLAYED_HEADER) === null).length, 1)
      assert.isTrue(first.every((r) => r.status === 201 || r.status === 409), JSON.stringify(first.map((r) => r.status)))
      const again = await Promise.all([send(0), send(1)])
      const ids = new Set([...first, ...again].filter((r) => r.status === 201).map((r) => r.body.data.id as string))
      assert.strictEqual(ids.size, 1)
      assert.isTrue(again.every((r) => r.status === 201 && r.headers.get(Idempotency.REPLAYED_HEADER) === "true"))
      assert.strictEqual((await client(a.url, api_key.token).get("/v1/projects")).body.meta.total, 1)
    })
  })
}
