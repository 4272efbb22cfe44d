/**
 * SQLite on a full disk, over a real `canopy serve` process: reads keep working (served
 * unmetered, counted in `canopy_metering_failures_total`, logged once), writes answer 503 with
 * the spec's error body and `Retry-After` and change nothing, and once space returns writes work
 * and requests are metered again.
 *
 * The disk is a real small filesystem: a 16 MiB tmpfs mounted on a temporary folder, filled with
 * a file until ENOSPC. Where mounting is not permitted (not root), the equivalent is the server
 * process's file-size limit (RLIMIT_FSIZE, set on it with `prlimit --pid`) lowered to 0: every
 * write to a file fails (EFBIG, which SQLite reports as an I/O error), as on a full disk; raising
 * the limit is space returning.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, execFileSync, spawnSync } from "node:child_process"
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin, isErrorBody, request, square, startServeProcess } from "@canopy/server/testing"

/**
 * A small filesystem at `dir` that can be filled and emptied, by the best means the host
 * allows. `fill` is called while no server has the database open (its write-ahead log is gone):
 * once it is full, the next server finds no room for a single WAL frame, so every write of the
 * database fails, deterministically (a WAL that already holds space would take small writes).
 */
const smallDisk = (dir: string) => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", dir], { stdio: "ignore" })
  } catch {
    // Not permitted: the file-size limit of the server process (see the header comment), 0 once
    // it has opened the database: no write to a regular file can land.
    let limited: number | undefined
    return {
      kind: "RLIMIT_FSIZE" as const,
      fill: () => undefined,
      started: (pid: number) => {
        execFileSync("prlimit", ["--pid", String(pid), "--fsize=0:unlimited"])
        limited = pid
      },
      free: () => void (limited !== undefined && execFileSync("prlimit", ["--pid", String(limited), "--fsize=unlimited:unlimited"])),
      release: () => undefined
    }
  }
  const filler = join(dir, "filler")
  return {
    kind: "tmpfs" as const,
    fill: () => {
      const fd = openSync(filler, "w")
      const chunk = Buffer.alloc(64 * 1024)
      try {
        for (let size = chunk.length; size >= 512;) {
          try {
            writeSync(fd, chunk, 0, size)
          } catch (e) {
            if ((e as { code?: string }).code !== "ENOSPC") throw e
            size /= 2 // the last blocks, smaller and smaller
          }
        }
        // Room for the shared-memory index SQLite allocates on open (32 KiB) and at most one
        // more page: less than a WAL frame (4 KiB + 24 bytes).
        ftruncateSync(fd, Math.floor(fstatSync(fd).size / 4096) * 4096 - 32 * 1024)
      } finally {
        closeSync(fd)
      }
    },
    started: (_pid: number) => undefined,
    free: () => rmSync(filler, { force: true }),
    release: () => execFileSync("umount", ["-l", dir], { stdio: "ignore" })
  }
}

/** Stops a serve process with SIGTERM and waits for it to exit. */
const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

describe("SQLite refusing writes (full disk)", () => {
  it("reads are served unmetered, writes answer 503 and change nothing; once space returns, writes work and metering resumes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-full-"))
    const disk = smallDisk(dir)
    let child: ChildProcess | undefined
    try {
      const db = join(dir, "c.db")
      const init = spawnSync(process.execPath, [canopyBin, "init", "--db", db, "--email", "full@example.com", "--plan", "enterprise", "--json"], {
        encoding: "utf8"
      })
      assert.strictEqual(init.status, 0, init.stderr)
      const key = (JSON.parse(init.stdout) as { api_key: string }).api_key
      const first = await startServeProcess(["--db", db])
      child = first.child
      const auth = { authorization: `Bearer ${key}` }
      const a = await request(first.url, "POST", "/v1/projects", { headers: auth, json: { name: "Before the disk filled", geometry: square() } })
      assert.strictEqual(a.status, 201, a.text)
      const id = a.body.data.id as string
      await stop(first.child)

      disk.fill()
      const s = await startServeProcess(["--db", db], { CANOPY_METRICS: "public", CANOPY_METRICS_TOKEN: "" })
      child = s.child
      disk.started(s.child.pid!)

      // Reads: served, unmetered (no rate-limit headers: nothing could be recorded).
      for (const path of [`/v1/projects/${id}`, "/v1/projects", "/v1/account"]) {
        const r = await request(s.url, "GET", path, { headers: auth })
        assert.strictEqual(r.status, 200, `${path} (${disk.kind}): ${r.text}`)
        assert.isNull(r.headers.get("x-ratelimit-remaining"), "unmetered")
      }
      // Writes: 503, the spec's body, Retry-After; nothing changed.
      const refused = await request(s.url, "POST", "/v1/projects", { headers: auth, json: { name: "Refused", geometry: square() } })
      assert.strictEqual(refused.status, 503, refused.text)
      assert.isTrue(isErrorBody(refused, "INTERNAL_ERROR"), refused.text)
      assert.match(refused.headers.get("retry-after") ?? "", /^\d+$/)
      const rename = await request(s.url, "PUT", `/v1/projects/${id}`, { headers: auth, json: { name: "Renamed" } })
      assert.strictEqual(rename.status, 503, rename.text)
      const unchanged = await request(s.url, "GET", `/v1/projects/${id}`, { headers: auth })
      assert.deepStrictEqual([unchanged.status, unchanged.body.data.name], [200, "Before the disk filled"])

      // Counted, by reason, and logged once for the interval, without the token.
      const metrics = await (await fetch(`${s.url}/metrics`)).text()
      const failures = [...metrics.matchAll(/^canopy_metering_failures_total\{operation="meter",reason="(SQLITE_\w+)"\} (\d+)$/gm)]
      assert.strictEqual(failures.length, 1, metrics)
      assert.strictEqual(failures[0]![1], disk.kind === "tmpfs" ? "SQLITE_FULL" : "SQLITE_IOERR")
      assert.strictEqual(Number(failures[0]![2]), 6, "4 reads and 2 writes were refused their metering")
      const logged = s.stderr().split("\n").filter((l) => l.includes("\"component\":\"metering\""))
      assert.strictEqual(logged.length, 1, s.stderr())
      assert.include(logged[0], "reads are served unmetered")
      assert.notInclude(s.stderr(), key)

      disk.free()

      const b = await request(s.url, "POST", "/v1/projects", { headers: auth, json: { name: "After space returned", geometry: square(11) } })
      assert.strictEqual(b.status, 201, b.text)
      assert.isNotNull(b.headers.get("x-ratelimit-remaining"), "metered again")
      const names = (await request(s.url, "GET", "/v1/projects", { headers: auth })).body.data.map((p: { name: string }) => p.name).sort()
      assert.deepStrictEqual(names, ["After space returned", "Before the disk filled"])
    } finally {
      if (child && child.exitCode === null) await stop(child)
      disk.release()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
