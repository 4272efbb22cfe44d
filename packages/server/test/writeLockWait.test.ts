/**
 * A SQLite write lock held by someone else — another process on the same file (a `canopy` command
 * run beside the server, a backup tool) or the checkpoint thread's RESTART — is waited for off the
 * event loop: while a request waits its turn to write, the server goes on answering; past the busy
 * timeout (5 s) the request is a 503 that stored nothing.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin as bin, startServeProcess } from "@canopy/server/testing"
import { startHealthProbe } from "./healthProbe.ts"

describe("a write lock held by another process", () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-lock-"))
  const db = join(dir, "lock.db")
  let server: Awaited<ReturnType<typeof startServeProcess>>
  let other: Database.Database
  let headers: Record<string, string>
  beforeAll(async () => {
    const init = spawnSync(process.execPath, [bin, "init", "--db", db, "--email", "lock@example.com", "--plan", "enterprise", "--json"], {
      encoding: "utf8"
    })
    headers = { authorization: `Bearer ${(JSON.parse(init.stdout) as { api_key: string }).api_key}`, "content-type": "application/json" }
    server = await startServeProcess(["--db", db])
    other = new Database(db)
  })
  afterAll(() => {
    other?.close()
    server?.child.kill("SIGTERM")
    rmSync(dir, { recursive: true, force: true })
  })
  const timed = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers }).then(async (r) => ({ status: r.status, body: await r.text(), retryAfter: r.headers.get("retry-after"),
      at: performance.now() })
    )
  const projectCount = () => other.prepare("select count(*) from projects").pluck().get() as number

  it("a request waits for it without holding the server's loop, then answers", async () => {
    const created = await timed("/v1/projects", { method: "POST", body: JSON.stringify({ name: "Before" }) })
    assert.strictEqual(created.status, 201)
    const { data } = JSON.parse(created.body) as { data: { id: string } }

    const stop = await startHealthProbe(server.url, 300)
    other.exec("BEGIN IMMEDIATE")
    const heldAt = performance.now()
    const get = timed(`/v1/projects/${data.id}`)
    const post = timed("/v1/projects", { method: "POST", body: JSON.stringify({ name: "During" }) })
    await new Promise((r) => setTimeout(r, 800))
    other.exec("COMMIT")
    const [got, posted] = await Promise.all([get, post])
    const probes = (await stop()).sort((a, b) => a - b)

    assert.strictEqual(got.status, 200)
    assert.strictEqual(posted.status, 201)
    // Both waited for the lock (every request meters its account, a write)…
    assert.isAbove(got.at - heldAt, 700)
    assert.isAbove(posted.at - heldAt, 700)
    // …while /health went on answering: the wait was not held on the loop.
    assert.isAbove(probes.length, 40)
    assert.isBelow(probes.at(-1)!, 500, `slowest /health ${Math.round(probes.at(-1)!)} ms while the lock was held`)
  })

  it("held past the busy timeout: a 503 with the spec's error body, nothing stored, and the loop free meanwhile", async () => {
    const before = projectCount()
    const stop = await startHealthProbe(server.url, 300)
    other.exec("BEGIN IMMEDIATE")
    const heldAt = performance.now()
    const post = timed("/v1/projects", { method: "POST", body: JSON.stringify({ name: "Too late" }) })
    const refused = await post
    other.exec("COMMIT")
    const probes = (await stop()).sort((a, b) => a - b)

    assert.strictEqual(refused.status, 503)
    assert.isAbove(refused.at - heldAt, 4_900)
    const error = (JSON.parse(refused.body) as { error: { code: string; message: string } }).error
    assert.strictEqual(error.code, "INTERNAL_ERROR")
    assert.match(error.message, /database is unavailable/)
    assert.strictEqual(refused.retryAfter, "5")
    assert.strictEqual(projectCount(), before)
    assert.isAbove(probes.length, 200)
    assert.isBelow(probes.at(-1)!, 500, `slowest /health ${Math.round(probes.at(-1)!)} ms while the lock was held`)
    // and once the lock is free, the same request succeeds
    assert.strictEqual((await timed("/v1/projects", { method: "POST", body: JSON.stringify({ name: "After" }) })).status, 201)
  }, 20_000)
})
