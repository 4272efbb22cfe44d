/**
 * `canopy serve --bootstrap-if-empty` under a service manager (stderr is not a terminal, so it
 * ends up in a log): the owner's one-time set-password link is a secret like the admin key. It
 * goes to `canopy-owner-link` next to the key's file, which only the user running the server can
 * read (0600), never to stderr, which names the file; a file or link already there is replaced,
 * never written through. On a terminal (a pseudo-terminal from util-linux `script`), the link is
 * shown once as well.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { duringFirstServe, duringFirstServeOnTerminal } from "./bootstrapServe.ts"

const dir = mkdtempSync(join(tmpdir(), "canopy-ownerlink-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const LINK = /\/invitations\/accept\?token=(cnp_inv_\w+)$/

/** Runs a first serve until its bootstrap lines are out, checks the link's page; answers stderr and the link. */
const firstServe = (args: ReadonlyArray<string>, linkFile: string, env: Readonly<Record<string, string>> = {}) =>
  duringFirstServe(args, async (s) => {
    const link = readFileSync(linkFile, "utf8").trim()
    assert.isTrue(link.startsWith(`${s.url}/invitations/accept?token=`), link)
    assert.strictEqual((await fetch(link)).status, 200, "the link's page opens")
    return { stderr: s.stderr(), link }
  }, env)

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
    await duringFirstServe(["--db", join(dir, "c.db"), "--bootstrap-key-file", join(blocked, "key")], async (s) => {
      assert.match(s.stderr(), /set-password link could not be written to .*canopy-owner-link \(\w+\); issue another with canopy owner reset-password/)
      assert.notMatch(s.stderr(), /cnp_inv_/)
    })
  }, 60_000)
})

describe("on a terminal", () => {
  it("the link is shown once on the terminal, and written to the file as well", async () => {
    await duringFirstServeOnTerminal(join(dir, "tty.db"), (out) => {
      const link = readFileSync(join(dir, "canopy-owner-link"), "utf8").trim()
      assert.match(link, LINK)
      assert.include(out, `the owner sets a password (once, within 7 days) at:\r\n  ${link}`, out)
    })
  }, 60_000)
})
