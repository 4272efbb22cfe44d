/**
 * `canopy serve --bootstrap-if-empty` under a service manager (stderr is not a terminal, so it
 * ends up in a log): the admin key goes to a file only the user running the server can read
 * (0600), never to stderr, which names the file. A file or link already at that path is replaced,
 * never written through. On a terminal (a pseudo-terminal from util-linux `script`), the key is
 * shown once as well.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { duringFirstServe, duringFirstServeOnTerminal } from "./bootstrapServe.ts"

const dir = mkdtempSync(join(tmpdir(), "canopy-keyfile-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs a first serve until its bootstrap lines are out; answers its stderr. */
const firstServe = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  duringFirstServe(args, async (s) => ({ stderr: s.stderr(), key: (path: string) => readFileSync(path, "utf8").trim() }), env)

describe("the bootstrap key file", () => {
  it("next to the SQLite file by default: mode 0600, the key works, stderr names the file and never holds the key", async () => {
    const db = join(dir, "a.db")
    await duringFirstServe(["--db", db], async (s) => {
      const path = join(dir, "canopy-admin-key")
      assert.strictEqual(statSync(path).mode & 0o777, 0o600)
      const key = readFileSync(path, "utf8").trim()
      assert.match(key, /^cnp_key_\w+$/)
      assert.notInclude(s.stderr(), key)
      assert.notMatch(s.stderr(), /cnp_key_/)
      assert.include(s.stderr(), `admin API key written to ${path}`)
      assert.strictEqual((await fetch(`${s.url}/v1/projects`, { headers: { authorization: `Bearer ${key}` } })).status, 200)
    })
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
    await duringFirstServeOnTerminal(join(dir, "tty.db"), (out) => {
      const key = readFileSync(join(dir, "canopy-admin-key"), "utf8").trim()
      assert.match(key, /^cnp_key_\w+$/)
      assert.include(out, `  ${key}`, out)
      assert.include(out, `curl -H "Authorization: Bearer ${key}"`)
    })
  }, 60_000)
})
