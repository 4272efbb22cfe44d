/**
 * `canopy owner reset-password`: an owner who cannot sign in (the first link lost or expired, the
 * password forgotten) gets a new one-time set-password link from the CLI, on the SQLite file; the
 * link sets a new password, with which the owner signs in; the old password stops working. The
 * same on PostgreSQL (`--database-url`).
 */
import { createCanopy, Sessions } from "@canopy/core"
import { postgresStorage } from "@canopy/adapter-postgres"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { canopyBin } from "@canopy/server/testing"

const dir = mkdtempSync(join(tmpdir(), "canopy-owner-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const canopy = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [canopyBin, ...args], { encoding: "utf8", env: { ...process.env, CANOPY_DB: "", CANOPY_PUBLIC_URL: "" },
    timeout: 30_000 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!

/** Sets the password with a link's token, then answers whether `password` signs the owner in. */
const withStore = async <A>(db: string, f: (c: Awaited<ReturnType<typeof createCanopy>>) => Promise<A>) => {
  const c = await createCanopy({ storage: sqliteStorage({ filename: db, mustExist: true }) })
  try {
    return await f(c)
  } finally {
    await c.close()
  }
}
const signsIn = (db: string, accountId: string, email: string, password: string) =>
  withStore(db, (c) => c.runExit(Effect.flatMap(Sessions, (s) => s.signIn(accountId, email, password, "127.0.0.1")))).then((exit) => exit._tag === "Success")

describe("canopy owner reset-password", () => {
  it("issues a new set-password link that works, once; the owner signs in with the new password", async () => {
    const db = join(dir, "one.db")
    const init = canopy("init", "--db", db, "--email", "Owner@Example.com", "--json")
    assert.strictEqual(init.code, 0, init.err)
    const first = JSON.parse(init.out) as { account_id: string; user_id: string; set_password_url: string }
    await withStore(db, (c) => c.members.accept(tokenOf(first.set_password_url), { name: "Olive", password: "first password 123" }))
    assert.isTrue(await signsIn(db, first.account_id, "owner@example.com", "first password 123"))

    // the owner forgot it
    const reset = canopy("owner", "reset-password", "--db", db, "--json", "--public-url", "https://canopy.example.com")
    assert.strictEqual(reset.code, 0, reset.err)
    const issued = JSON.parse(reset.out) as { account_id: string; user_id: string; email: string; set_password_url: string; expires_at: string }
    assert.strictEqual(issued.user_id, first.user_id)
    assert.strictEqual(issued.email, "owner@example.com")
    assert.match(issued.set_password_url, /^https:\/\/canopy\.example\.com\/invitations\/accept\?token=cnp_inv_\w+$/)
    assert.notStrictEqual(tokenOf(issued.set_password_url), tokenOf(first.set_password_url))
    assert.isAbove(Date.parse(issued.expires_at), Date.now() + 6 * 86_400_000)

    await withStore(db, (c) => c.members.accept(tokenOf(issued.set_password_url), { name: "Olive", password: "second password 456" }))
    assert.isTrue(await signsIn(db, first.account_id, "owner@example.com", "second password 456"))
    assert.isFalse(await signsIn(db, first.account_id, "owner@example.com", "first password 123"))
    // the link is single-use
    const again = await withStore(db,
      (c) =>
        c.members.accept(tokenOf(issued.set_password_url), { name: "Mallory", password: "third password 789" }).then(() => "accepted", (e: { code?: string }) =>
          e.code))
    assert.strictEqual(again, "CONFLICT")

    // the text form prints the link and says it is shown once
    const text = canopy("owner", "reset-password", "--db", db, "--email", "OWNER@example.com")
    assert.strictEqual(text.code, 0, text.err)
    assert.match(text.out,
      /owner@example\.com sets a new password[\s\S]*http:\/\/127\.0\.0\.1:8080\/invitations\/accept\?token=cnp_inv_\w+[\s\S]*shown only now/)
  }, 90_000)

  it("on PostgreSQL too: --database-url", async () => {
    const scope = await Effect.runPromise(Scope.make())
    try {
      const url = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
      const init = canopy("init", "--database-url", url, "--email", "pg-owner@example.com", "--json")
      assert.strictEqual(init.code, 0, init.err)
      const first = JSON.parse(init.out) as { account_id: string; user_id: string }
      const reset = canopy("owner", "reset-password", "--database-url", url, "--json")
      assert.strictEqual(reset.code, 0, reset.err)
      const issued = JSON.parse(reset.out) as { user_id: string; set_password_url: string }
      assert.strictEqual(issued.user_id, first.user_id)
      const c = await createCanopy({ storage: postgresStorage({ url }) })
      try {
        await c.members.accept(tokenOf(issued.set_password_url), { name: "Pat", password: "a postgres password" })
        const exit = await c.runExit(Effect.flatMap(Sessions, (s) => s.signIn(first.account_id, "pg-owner@example.com", "a postgres password", "127.0.0.1")))
        assert.strictEqual(exit._tag, "Success")
      } finally {
        await c.close()
      }
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 90_000)

  it("refuses what it cannot do: an email that is no owner, a missing database, a wrong subcommand", () => {
    const db = join(dir, "two.db")
    assert.strictEqual(canopy("init", "--db", db, "--email", "owner@example.com").code, 0)
    const stranger = canopy("owner", "reset-password", "--db", db, "--email", "someone@example.com")
    assert.strictEqual(stranger.code, 2, stranger.err)
    assert.include(stranger.err, "someone@example.com is not an active owner")
    const missing = join(dir, "typo.db")
    const none = canopy("owner", "reset-password", "--db", missing)
    assert.strictEqual(none.code, 1, none.err)
    assert.include(none.err, `no database at ${missing}`)
    assert.isFalse(existsSync(missing))
    assert.strictEqual(canopy("owner", "reset", "--db", db).code, 2)
    assert.match(canopy("owner", "--help").out, /Usage: canopy owner reset-password/)
    assert.include(canopy("--help").out, "owner")
  }, 90_000)
})
