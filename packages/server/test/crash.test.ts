import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin as bin, startServeProcess, startReceiver } from "@canopy/server/testing"

const startServe = (db: string) =>
  startServeProcess(["--db", db], { CANOPY_ALLOW_INSECURE_WEBHOOKS: "1", CANOPY_DELIVERY_LEASE_MS: "2000", CANOPY_DELIVERY_TIMEOUT_MS: "1000" })

describe("crash safety of webhook delivery", () => {
  it("a server SIGKILLed under a stream of writes delivers, after restart, every event committed before the kill", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-crash-"))
    const db = join(dir, "crash.db")
    const receiver = await startReceiver()
    receiver.on("/sink", () => ({ status: 200, delayMs: 30 }))
    try {
      const init = spawnSync(process.execPath, [bin, "init", "--db", db, "--email", "crash@example.com", "--plan", "enterprise", "--json"], {
        encoding: "utf8"
      })
      const { api_key } = JSON.parse(init.stdout) as { api_key: string }
      const headers = { authorization: `Bearer ${api_key}`, "content-type": "application/json" }
      const first = await startServe(db)
      const hook = await fetch(`${first.url}/v1/webhooks`, { method: "POST", headers,
        body: JSON.stringify({ url: receiver.url("/sink"), events: ["project.created"] }) })
      assert.strictEqual(hook.status, 201)

      // A stream of writes from 4 clients; the server is killed while they run.
      const committed = new Set<string>()
      let stop = false
      const writer = async (k: number) => {
        for (let i = 0; !stop; i++) {
          try {
            const r = await fetch(`${first.url}/v1/projects`, { method: "POST", headers, body: JSON.stringify({ name: `Crash ${k}-${i}` }) })
            if (r.status === 201) committed.add(((await r.json()) as { data: { id: string } }).data.id)
          } catch {
            return // the server is gone
          }
        }
      }
      const writers = [0, 1, 2, 3].map(writer)
      while (committed.size < 60) await new Promise((r) => setTimeout(r, 10))
      first.child.kill("SIGKILL")
      stop = true
      await Promise.all(writers)
      const beforeRestart = new Set(receiver.at("/sink").map((r) => r.json.data.id as string))
      assert.isBelow(beforeRestart.size, committed.size + 1)

      const second = await startServe(db)
      try {
        const deadline = Date.now() + 20_000
        const delivered = () => new Set(receiver.at("/sink").map((r) => r.json.data.id as string))
        while ([...committed].some((id) => !delivered().has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
        const missing = [...committed].filter((id) => !delivered().has(id))
        assert.deepStrictEqual(missing, [], `${missing.length} of ${committed.size} committed events never delivered`)
        // and nothing is left stuck: every delivery ends delivered — including those of events whose
        // requests were cut by the kill after their commit, once the dead server's leases expire.
        const states = () => {
          const sqlite = new Database(db, { readonly: true })
          try {
            return sqlite.prepare("select status, count(*) as n from deliveries group by status").all() as Array<{ status: string; n: number }>
          } finally {
            sqlite.close()
          }
        }
        while (states().some((s) => s.status !== "success") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
        assert.deepStrictEqual(states().map((s) => s.status), ["success"], JSON.stringify(states()))
        // at-least-once: duplicates are allowed, and each carries the same event id
        const byProject = new Map<string, Set<string>>()
        for (const r of receiver.at("/sink")) byProject.set(r.json.data.id, (byProject.get(r.json.data.id) ?? new Set()).add(r.json.id))
        assert.isTrue([...byProject.values()].every((ids) => ids.size === 1))
      } finally {
        second.child.kill("SIGTERM")
        await new Promise((r) => second.child.on("exit", r))
      }
    } finally {
      await receiver.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
