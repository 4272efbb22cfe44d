/**
 * `canopy serve --bootstrap-if-empty` under a service manager (stderr is not a terminal, so it
 * ends up in a log): the admin key goes to a file only the user running the server can read
 * (0600), never to stderr, which names the file. A file or link already at that path is replaced,
 * never written through. On a terminal (a pseudo-terminal from util-linux `script`), the key is
 * shown once as well.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin, startServeProcess } from "./harness.ts"

const dir = mkdtempSync(join(tmpdir(), "canopy-keyfile-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.exitCode !== null ? resolve() : child.on("exit", () => resolve()))

/** Starts a first serve, waits for its bootstrap lines, stops it; answers its stderr. */
const firstServe = async (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const s = await startServeProcess(["--bootstrap-if-empty", "--no-dispatcher", ...args], env)
  try {
    for (let i = 0; i < 100 && !/try it/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
    const key = (path: string) => readFileSync(path, "utf8").trim()
    const works = async (token: string) => (await fetch(`${s.url}/v1/projects`, { headers: { authorization: `Bearer ${token}` } })).status
    return { stderr: s.stderr(), key, works }
  } finally {
    s.child.kill("SIGTERM")
    await exited(s.child)
  }
}

describe("the bootstrap key file", () => {
  it("next to the SQLite file by default: mode 0600, the key works, stderr names the file and never holds the key", async () => {
    const db = join(dir, "a.db")
    const s = await startServeProcess(["--db", db, "--bootstrap-if-empty", "--no-dispatcher"])
    try {
      for (let i = 0; i < 100 && !/try it/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
      const path = join(dir, "canopy-admin-key")
      assert.strictEqual(statSync(path).mode & 0o777, 0o600)
      const key = readFileSync(path, "utf8").trim()
      assert.match(key, /^cnp_key_\w+$/)
      assert.notInclude(s.stderr(), key)
      assert.notMatch(s.stderr(), /cnp_key_/)
      assert.include(s.stderr(), `admin API key written to ${path}`)
      assert.strictEqual((await fetch(`${s.url}/v1/projects`, { headers: { authorization: `Bearer ${key}` } })).status, 200)
    } finally {
      s.child.kill("SIGTERM")
      await exited(s.child)
    }
  }, 60_000)

  it("--bootstrap-key-file and CANOPY_BOOTSTRAP_KEY_FILE choose the path; a link planted there is replaced, its target untouched", async () => {
    const chosen = join(dir, "chosen-key")
    const flag = await firstServe(["--db", join(dir, "b.db"), "--bootstrap-key-file", chosen])
    assert.strictEqual(statSync(chosen).mode & 0o777, 0o600)
    assert.notInclude(flag.stderr, flag.key(chosen))
    assert.include(flag.stderr, `written to ${chosen}`)

    const target = join(dir, "someone-elses-file")
    writeFileSync(target, "precious\n", { mode: 0o644 })
    const planted = join(dir, "env-key")
    symlinkSync(target, planted)
    const env = await firstServe(["--db", join(dir, "c.db")], { CANOPY_BOOTSTRAP_KEY_FILE: planted })
    assert.isFalse(lstatSync(planted).isSymbolicLink())
    assert.strictEqual(statSync(planted).mode & 0o777, 0o600)
    assert.match(env.key(planted), /^cnp_key_\w+$/)
    assert.strictEqual(readFileSync(target, "utf8"), "precious\n")
    assert.notInclude(env.stderr, env.key(planted))
    assert.isFalse(existsSync(join(dir, "canopy-admin-key")) && readFileSync(join(dir, "canopy-admin-key"), "utf8").trim() === env.key(planted))
  }, 60_000)
})

describe("on a terminal", () => {
  it("the key is shown once on the terminal, and written to the file as well", async () => {
    const db = join(dir, "tty.db")
    const command = [process.execPath, canopyBin, "serve", "--port", "0", "--db", db, "--bootstrap-if-empty", "--no-dispatcher"].join(" ")
    const child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], detached: true })
    let out = ""
    child.stdout!.on("data", (d) => (out += d))
    try {
      for (let i = 0; i < 300 && !/try it[\s\S]*projects/.test(out); i++) await new Promise((r) => setTimeout(r, 100))
      const key = readFileSync(join(dir, "canopy-admin-key"), "utf8").trim()
      assert.match(key, /^cnp_key_\w+$/)
      assert.include(out, `  ${key}`, out)
      assert.include(out, `curl -H "Authorization: Bearer ${key}"`)
    } finally {
      process.kill(-child.pid!, "SIGTERM")
      await exited(child)
    }
  }, 60_000)
})
