/**
 * The write-ahead log stays bounded under writers that never pause — the library in a process of
 * its own, and `canopy serve` with several accounts over HTTP — for a minute each (run side by
 * side); each writer is then killed with SIGKILL mid-write, and the file must pass its integrity
 * check and hold every project whose create was acknowledged.
 *
 * Without the bound these runs reached 766 MiB (library, ~16,000 creates) and 137 MiB (serve, ~6,500
 * creates) in the minute. Each run must acknowledge over 1,000 creates (a floor low enough for a
 * machine busy with the whole suite).
 */
import { createCanopy } from "@canopy/core"
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { request, startServeProcess } from "@canopy/server/testing"
import { sqliteStorage } from "../src/index.ts"
import { checkAfterCrash, ring, sampleWal } from "./fixtures/walLoad.ts"

const WRITE_SECONDS = 60
const BOUND = 64 * 1024 * 1024
const MIB = 1024 * 1024
const nodeArgs = ["--conditions=source", "--disable-warning=ExperimentalWarning"]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-wal-"))
  return { filename: join(dir, "canopy.db"), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("close", () => resolve())
    child.kill("SIGKILL")
  })

/** The log stayed under `BOUND` in every sample, and after the kill the file is sound and holds every acknowledged id. */
const assertBoundedAndDurable = (filename: string, acknowledged: ReadonlyArray<string>, wal: { readonly largest: number; readonly samples: number }) => {
  assert.isAbove(wal.samples, 100)
  assert.isBelow(wal.largest, BOUND, `largest -wal ${(wal.largest / MIB).toFixed(1)} MiB after ${acknowledged.length} creates`)
  const after = checkAfterCrash(filename, acknowledged)
  assert.strictEqual(after.integrity, "ok")
  assert.deepStrictEqual(after.missing, [])
  assert.isAtLeast(after.stored, acknowledged.length)
}

describe.concurrent("SQLite write-ahead log under writers that never pause", () => {
  it("the library, one create after another for a minute: -wal under 64 MiB throughout; killed mid-write, nothing acknowledged is lost", async () => {
    const { cleanup, filename } = tempDb()
    try {
      const child = spawn(process.execPath, [...nodeArgs, join(import.meta.dirname, "fixtures/neverPausingWriter.ts"), filename], {
        cwd: import.meta.dirname,
        stdio: ["ignore", "pipe", "pipe"]
      })
      const acknowledged: Array<string> = []
      let err = ""
      let pending = ""
      child.stderr!.on("data", (d) => (err += d))
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on("data", (d: Buffer) => {
          const lines = (pending + d.toString()).split("\n")
          pending = lines.pop()!
          for (const line of lines) {
            if (line === "ready") resolve()
            else acknowledged.push(line)
          }
        })
        child.once("close", (code) => reject(new Error(`writer exited ${code}: ${err}`)))
      })
      const wal = sampleWal(filename)
      await sleep(WRITE_SECONDS * 1_000)
      await killed(child) // mid-write: the writer never pauses
      const { largest, samples } = wal.stop()
      console.log(`library: ${acknowledged.length} creates in ${WRITE_SECONDS} s, largest -wal ${(largest / MIB).toFixed(1)} MiB`)

      assert.isAbove(acknowledged.length, 1_000, `creates in ${WRITE_SECONDS} s (stderr: ${err})`)
      assertBoundedAndDurable(filename, acknowledged, { largest, samples })
    } finally {
      cleanup()
    }
  }, 150_000)

  it(
    "canopy serve, twelve accounts creating 200-vertex boundaries over HTTP for a minute: -wal under 64 MiB throughout; killed mid-write, nothing acknowledged is lost",
    async () => {
      const { cleanup, filename } = tempDb()
      try {
        const setup = await createCanopy({ storage: sqliteStorage({ filename }) })
        const tokens: Array<string> = []
        for (let i = 0; i < 12; i++) {
          const b = await setup.bootstrap({ account_name: `Account ${i}`, email: `owner${i}@example.com`, plan: "enterprise" })
          tokens.push(b.api_key.token)
        }
        await setup.close()

        const server = await startServeProcess(["--db", filename])
        const wal = sampleWal(filename)
        const acknowledged: Array<string> = []
        const refused = new Map<number, number>()
        const until = Date.now() + WRITE_SECONDS * 1_000
        // Each account at ~14 creates/s, inside its plan's 1,000 requests a minute.
        const writer = async (token: string, account: number) => {
          for (let n = 0; Date.now() < until; n++) {
            const started = Date.now()
            const r = await request(server.url, "POST", "/v1/projects", { token, json: { name: `stand ${n}`, geometry: ring(account * 100_000 + n, 200) } })
            if (r.status === 201) acknowledged.push(r.body.data.id)
            else refused.set(r.status, (refused.get(r.status) ?? 0) + 1)
            await sleep(Math.max(0, 70 - (Date.now() - started)))
          }
        }
        const writing = Promise.allSettled(tokens.map(writer)) // after the kill, in-flight requests fail
        await sleep(WRITE_SECONDS * 1_000 - 500)
        await killed(server.child) // mid-write: requests are in flight
        await writing
        const { largest, samples } = wal.stop()
        console.log(`serve: ${acknowledged.length} creates in ${WRITE_SECONDS} s, largest -wal ${(largest / MIB).toFixed(1)} MiB`)

        assert.isAbove(acknowledged.length, 1_000, `creates in ${WRITE_SECONDS} s; refusals ${JSON.stringify([...refused])}`)
        assert.deepStrictEqual([...refused], [])
        assertBoundedAndDurable(filename, acknowledged, { largest, samples })
      } finally {
        cleanup()
      }
    },
    150_000
  )
})
