/**
 * `canopy serve --bootstrap-if-empty` under a service manager (stderr is not a terminal, so it
 * ends up in a log): the owner's one-time set-password link is a secret like the admin key. It
 * goes to `canopy-owner-link` next to the key's file, which only the user running the server can
 * read (0600), never to stderr, which names the file; a file or link already there is replaced,
 * never written through. On a terminal (a pseudo-terminal from util-linux `script`), the link is
 * shown once as well.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin, startServeProcess } from "./harness.ts"

const dir = mkdtempSync(join(tmpdir(), "canopy-ownerlink-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.exitCode !== null ? resolve() : child.on("exit", () => resolve()))
const LINK = /\/invitations\/accept\?token=(cnp_inv_\w+)$/

/** Starts a first serve, waits for its bootstrap lines, checks the link's page, stops it; answers stderr. */
const firstServe = async (args: ReadonlyArray<string>, linkFile: string, env: Readonly<Record<string, string>> = {}) => {
  const s = await startServeProcess(["--bootstrap-if-empty", "--no-dispatcher", ...args], env)
  try {
    for (let i = 0; i < 100 && !/try it/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
    const link = readFileSync(linkFile, "utf8").trim()
    assert.isTrue(link.startsWith(`${s.url}/invitations/accept?token=`), link)
    assert.strictEqual((await fetch(link)).status, 200, "the link's page opens")
    return { stderr: s.stderr(), link }
  } finally {
    s.child.kill("SIGTERM")
    await exited(s.child)
  }
}

describe("the owner's set-password link file", () => {
  it("next to the admin key's file by default: mode 0600, stderr names the file and never holds the link", async () => {
    const path = join(dir, "canopy-owner-link")
    const { stderr, link } = await firstServe(["--db", join(dir, "a.db")], path)
    assert.strictEqual(statSync(path).mode & 0o777, 0o600)
    const token = LINK.exec(link)![1]!
    assert.notInclude(stderr, token)
    assert.notMatch(stderr, /cnp_inv_|invitations\/accept/)
    assert.include(stderr, `set-password link (once, within 7 days) written to ${path} (readable by this user only)`)
  }, 60_000)

  it("follows --bootstrap-key-file; a link planted there is replaced, its target untouched", async () => {
    const keys = join(dir, "secrets")
    mkdirSync(keys)
    const target = join(dir, "someone-elses-file")
    writeFileSync(target, "precious\n", { mode: 0o644 })
    const path = join(keys, "canopy-owner-link")
    symlinkSync(target, path)
    const { stderr, link } = await firstServe(["--db", join(dir, "b.db"), "--bootstrap-key-file", join(keys, "admin-key")], path)
    assert.isFalse(lstatSync(path).isSymbolicLink())
    assert.strictEqual(statSync(path).mode & 0o777, 0o600)
    assert.match(link, LINK)
    assert.strictEqual(readFileSync(target, "utf8"), "precious\n")
    assert.notInclude(stderr, link)
    assert.include(stderr, `written to ${path}`)
  }, 60_000)

  it("a link that cannot be written: stderr says so and how to issue another, still without the link", async () => {
    const blocked = join(dir, "blocked")
    mkdirSync(join(blocked, "canopy-owner-link"), { recursive: true })
    const s = await startServeProcess(["--bootstrap-if-empty", "--no-dispatcher", "--db", join(dir, "c.db"), "--bootstrap-key-file", join(blocked, "key")])
    try {
      for (let i = 0; i < 100 && !/try it/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
      assert.match(s.stderr(), /set-password link could not be written to .*canopy-owner-link \(\w+\); issue another with canopy owner reset-password/)
      assert.notMatch(s.stderr(), /cnp_inv_/)
    } finally {
      s.child.kill("SIGTERM")
      await exited(s.child)
    }
  }, 60_000)
})

describe("on a terminal", () => {
  it("the link is shown once on the terminal, and written to the file as well", async () => {
    const db = join(dir, "tty.db")
    const command = [process.execPath, canopyBin, "serve", "--port", "0", "--db", db, "--bootstrap-if-empty", "--no-dispatcher"].join(" ")
    const child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], detached: true })
    let out = ""
    child.stdout!.on("data", (d) => (out += d))
    try {
      for (let i = 0; i < 300 && !/try it[\s\S]*projects/.test(out); i++) await new Promise((r) => setTimeout(r, 100))
      const link = readFileSync(join(dir, "canopy-owner-link"), "utf8").trim()
      assert.match(link, LINK)
      assert.include(out, `the owner sets a password (once, within 7 days) at:\r\n  ${link}`, out)
    } finally {
      process.kill(-child.pid!, "SIGTERM")
      await exited(child)
    }
  }, 60_000)
})
