import { createCanopy, Storage } from "@canopy/core"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { createServer as createTcpServer, type AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin as bin, startServeProcess } from "@canopy/server/testing"

const dir = mkdtempSync(join(tmpdir(), "canopy-cli-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const freshDb = () => join(dir, `db-${++n}.db`)

const canopy = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, CANOPY_DB: "" }, timeout: 30_000 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** The lines a failed command wrote on stderr. */
const lines = (err: string) => err.trim().split("\n")

/** Starts `canopy serve` and resolves once it prints its URL. */
const startServe = (args: Array<string>) => startServeProcess(args)

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))

// Each case spawns the CLI several times in turn (about a second each, several on a busy machine).
describe("canopy CLI", { timeout: 90_000 }, () => {
  it("--help on every command", () => {
    const top = canopy("--help")
    assert.strictEqual(top.code, 0)
    for (const command of ["serve", "init", "keys", "service-tokens", "account", "migrate", "backup"]) {
      assert.include(top.out, command)
      const h = canopy(command, "--help")
      assert.strictEqual(h.code, 0, command)
      assert.match(h.out, new RegExp(`Usage: canopy ${command}`))
    }
    const unknown = canopy("frobnicate")
    assert.strictEqual(unknown.code, 2)
    assert.match(unknown.err, /unknown command "frobnicate"/)
    assert.strictEqual(canopy("init", "--db", freshDb()).code, 2, "missing --email is a usage error")
  }, 90_000)

  it("init --json prints exactly { account_id, user_id, api_key, set_password_url }, and the key and link work", async () => {
    const db = freshDb()
    const r = canopy("init", "--db", db, "--email", "Owner@Example.com", "--name", "Olive", "--account-name", "Acme", "--plan", "pro", "--json")
    assert.strictEqual(r.code, 0, r.err)
    const out = JSON.parse(r.out) as Record<string, string>
    assert.deepStrictEqual(Object.keys(out).sort(), ["account_id", "api_key", "set_password_url", "user_id"])
    assert.match(out.account_id!, /^acc_/)
    assert.match(out.user_id!, /^user_/)
    assert.match(out.api_key!, /^cnp_key_/)
    assert.match(out.set_password_url!, /^http:\/\/127\.0\.0\.1:8080\/invitations\/accept\?token=cnp_inv_\w+$/)
    const pub = JSON.parse(canopy("init", "--db", freshDb(), "--email", "p@example.com", "--public-url", "https://canopy.example.com", "--json").out) as Record<
      string,
      string
    >
    assert.match(pub.set_password_url!, /^https:\/\/canopy\.example\.com\/invitations\/accept\?token=cnp_inv_\w+$/)
    const c = await createCanopy({ storage: sqliteStorage({ filename: db }) })
    const principal = await c.authenticate(out.api_key!)
    assert.strictEqual((await c.account.get(principal)).plan, "pro")
    await c.close()
    const human = canopy("init", "--db", db, "--email", "second@example.com")
    assert.match(human.out, /sets a password[\s\S]*\/invitations\/accept\?token=cnp_inv_\w+/)
    const bad = canopy("init", "--db", db, "--email", "not-an-email")
    assert.strictEqual(bad.code, 1)
    assert.match(bad.err, /VALIDATION_ERROR[\s\S]*email/)
  })

  it("keys and service-tokens: create (value once), list (no values), revoke", async () => {
    const db = freshDb()
    canopy("init", "--db", db, "--email", "o@example.com")
    const created = canopy("keys", "create", "--db", db, "--name", "CI deploy", "--permissions", "projects:read,assets.write", "--json")
    assert.strictEqual(created.code, 0, created.err)
    const key = JSON.parse(created.out) as { id: string; token: string; permissions: Array<string> }
    assert.deepStrictEqual(key.permissions, ["projects:read", "assets:write"])
    const listed = canopy("keys", "list", "--db", db)
    assert.include(listed.out, key.id)
    assert.include(listed.out, "CI deploy")
    assert.notInclude(listed.out, key.token)
    assert.strictEqual(canopy("keys", "revoke", key.id, "--db", db).code, 0)
    assert.match(canopy("keys", "list", "--db", db).out, /revoked/)
    const c = await createCanopy({ storage: sqliteStorage({ filename: db }) })
    assert.strictEqual(await c.authenticate(key.token).then(() => "ok", (e: { code: string }) => e.code), "UNAUTHORIZED")
    await c.close()

    const svc = canopy("service-tokens", "create", "--db", db, "--name", "runner", "--permissions", "projects:read", "--ip-allowlist", "10.0.0.0/8,192.0.2.7",
      "--json")
    assert.strictEqual(svc.code, 0, svc.err)
    const token = JSON.parse(svc.out) as { token: string; ip_allowlist: Array<string> }
    assert.match(token.token, /^cnp_svc_/)
    assert.deepStrictEqual(token.ip_allowlist, ["10.0.0.0/8", "192.0.2.7"])
    assert.include(canopy("service-tokens", "list", "--db", db).out, "runner")
    const badPerm = canopy("keys", "create", "--db", db, "--name", "x", "--permissions", "projects:delete")
    assert.strictEqual(badPerm.code, 1)
    assert.match(badPerm.err, /unknown permission/)
  })

  it("account set-plan changes the plan and emits subscription.updated; --account is needed with several accounts", async () => {
    const db = freshDb()
    const first = JSON.parse(canopy("init", "--db", db, "--email", "a@example.com", "--json").out) as { account_id: string }
    const r = canopy("account", "set-plan", "enterprise", "--db", db)
    assert.strictEqual(r.code, 0, r.err)
    assert.match(r.out, /enterprise/)
    canopy("init", "--db", db, "--email", "b@example.com")
    const ambiguous = canopy("account", "set-plan", "pro", "--db", db)
    assert.strictEqual(ambiguous.code, 2)
    assert.match(ambiguous.err, /--account/)
    assert.strictEqual(canopy("account", "set-plan", "pro", "--db", db, "--account", first.account_id).code, 0)
    assert.strictEqual(canopy("account", "set-plan", "platinum", "--db", db).code, 2)
    // The store itself (the facade runs domain services only).
    const events = await Effect.runPromise(
      Effect.flatMap(Storage.Storage, (s) => s.outbox.listEvents(first.account_id, { type: "subscription.updated", limit: 10, offset: 0 }))
        .pipe(Effect.provide(sqliteStorage({ filename: db }).layer))
    )
    assert.deepStrictEqual(events.rows.map((e) => (JSON.parse(e.payload) as { data: { plan: string } }).data.plan), ["pro", "enterprise"])
  })

  it("migrate applies pending migrations once", () => {
    const db = freshDb()
    const first = canopy("migrate", "--db", db)
    assert.strictEqual(first.code, 0, first.err)
    assert.match(first.out, /applied 1_initial/)
    assert.match(canopy("migrate", "--db", db).out, /up to date/)
  })

  it("serve --bootstrap-if-empty: writes the admin key to a file once, prints a curl line reading it; the key works", async () => {
    const db = freshDb()
    const s = await startServe(["--db", db, "--bootstrap-if-empty"])
    for (let i = 0; i < 50 && !/try it/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
    const keyFile = join(dir, "canopy-admin-key")
    const key = readFileSync(keyFile, "utf8").trim()
    assert.match(key, /^cnp_key_\w+$/)
    assert.notInclude(s.stderr(), key, "stderr is not a terminal: the key goes to the file only")
    assert.include(s.stderr(), `curl -H "Authorization: Bearer $(cat ${keyFile})" ${s.url}/v1/projects`)
    const linkFile = join(dir, "canopy-owner-link")
    const link = new RegExp(`^${s.url.replace(/[.:/]/g, "\\$&")}/invitations/accept\\?token=(cnp_inv_\\w+)$`).exec(readFileSync(linkFile, "utf8").trim())
    assert.isNotNull(link, "the owner's set-password link, in its file")
    assert.notInclude(s.stderr(), link![1]!, "stderr is not a terminal: the link goes to the file only")
    assert.include(s.stderr(), `set-password link (once, within 7 days) written to ${linkFile}`)
    assert.match(s.stderr(), /owner owner@example\.com[\s\S]*npm start -- --email you@example\.org --account-name "Your Company"/, "says how to choose them")
    assert.strictEqual((await fetch(`${s.url}/invitations/accept?token=${link![1]}`)).status, 200)
    const res = await fetch(`${s.url}/v1/projects`, { headers: { authorization: `Bearer ${key}` } })
    assert.strictEqual(res.status, 200)
    s.child.kill("SIGTERM")
    assert.strictEqual(await exited(s.child), 0)
    rmSync(keyFile)
    const again = await startServe(["--db", db, "--bootstrap-if-empty"])
    await new Promise((r) => setTimeout(r, 300))
    assert.notMatch(again.stderr(), /cnp_key_|canopy-admin-key/)
    assert.isFalse(existsSync(keyFile), "no new key for a database that has an account")
    again.child.kill("SIGTERM")
    await exited(again.child)
  })

  it("--public-url / CANOPY_PUBLIC_URL: the links init and the first serve print, and the OAuth issuer; a bad one is a usage error", async () => {
    const flag = canopy("init", "--db", freshDb(), "--email", "p@example.com", "--public-url", "https://canopy.example.com/")
    assert.strictEqual(flag.code, 0, flag.err)
    assert.match(flag.out, /https:\/\/canopy\.example\.com\/invitations\/accept\?token=cnp_inv_\w+/)
    const env = spawnSync(process.execPath, [bin, "init", "--db", freshDb(), "--email", "q@example.com"], { encoding: "utf8",
      env: { ...process.env, CANOPY_DB: "", CANOPY_PUBLIC_URL: "https://env.example.com" } })
    assert.match(env.stdout, /https:\/\/env\.example\.com\/invitations\/accept\?token=cnp_inv_\w+/)
    for (const bad of ["ftp://canopy.example.com", "canopy.example.com", "https://canopy.example.com/?x=1", "https://user:pw@canopy.example.com"]) {
      const r = canopy("init", "--db", freshDb(), "--email", "r@example.com", "--public-url", bad)
      assert.strictEqual(r.code, 2, `${bad}: ${r.err}`)
      assert.match(r.err, /public-url/)
    }
    assert.match(canopy("serve", "--help").out, /--public-url/)

    const s = await startServe(["--db", freshDb(), "--bootstrap-if-empty", "--public-url", "https://canopy.example.com"])
    for (let i = 0; i < 50 && !/try it/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
    assert.match(readFileSync(join(dir, "canopy-owner-link"), "utf8"), /^https:\/\/canopy\.example\.com\/invitations\/accept\?token=cnp_inv_\w+$/m)
    const meta = await (await fetch(`${s.url}/.well-known/oauth-authorization-server`)).json() as { issuer: string }
    assert.strictEqual(meta.issuer, "https://canopy.example.com")
    s.child.kill("SIGTERM")
    assert.strictEqual(await exited(s.child), 0)

    // bound to every interface without a public URL: the printed link is one that works on this machine
    const any = await startServe(["--db", freshDb(), "--bootstrap-if-empty", "--host", "0.0.0.0"])
    for (let i = 0; i < 50 && !/try it/.test(any.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
    assert.match(readFileSync(join(dir, "canopy-owner-link"), "utf8"), /^http:\/\/127\.0\.0\.1:\d+\/invitations\/accept\?token=cnp_inv_\w+$/m)
    any.child.kill("SIGTERM")
    assert.strictEqual(await exited(any.child), 0)
  }, 90_000)

  it("serve on a port in use, or an address not of this machine: one line naming it, exit 1 within seconds", async () => {
    const blocker = createTcpServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as AddressInfo).port
    try {
      for (const [args, expected] of [
        [["--port", String(port)], new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`)],
        [["--port", "0", "--host", "192.0.2.1"], /192\.0\.2\.1 is not an address of this machine/]
      ] as const) {
        const started = Date.now()
        const child = spawn(process.execPath, [bin, "serve", "--db", freshDb(), ...args], { stdio: ["ignore", "pipe", "pipe"] })
        let err = ""
        child.stderr!.on("data", (d) => (err += d))
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
        const code = await exited(child)
        clearTimeout(timer)
        assert.strictEqual(code, 1, err)
        assert.isBelow(Date.now() - started, 10_000)
        assert.lengthOf(lines(err), 1, err)
        assert.match(err, expected)
      }
    } finally {
      blocker.close()
    }
  })

  it("--db errors name the path and the cause, in one line", () => {
    const missing = join(dir, "no-such-folder", "canopy.db")
    for (const command of [["init", "--email", "m@example.com"], ["migrate"]]) {
      const r = canopy(...command, "--db", missing)
      assert.strictEqual(r.code, 1, r.err)
      assert.lengthOf(lines(r.err), 1, r.err)
      assert.include(r.err, missing)
      assert.match(r.err, /folder .*no-such-folder does not exist/)
    }
    const notSqlite = join(dir, "notes.txt")
    writeFileSync(notSqlite, "these are not the rows you are looking for\n".repeat(100))
    for (const command of [["keys", "list"], ["migrate"], ["init", "--email", "n@example.com"]]) {
      const r = canopy(...command, "--db", notSqlite)
      assert.strictEqual(r.code, 1, r.err)
      assert.lengthOf(lines(r.err), 1, r.err)
      assert.include(r.err, notSqlite)
      assert.match(r.err, /not a SQLite database/)
    }
    const folder = join(dir, "a-folder")
    mkdirSync(folder)
    const r = canopy("keys", "list", "--db", folder)
    assert.strictEqual(r.code, 1, r.err)
    assert.lengthOf(lines(r.err), 1, r.err)
    assert.include(r.err, folder)
  })

  it("commands on an existing account never create a database: a typo'd --db is an error", () => {
    const typo = join(dir, "typo.db")
    for (const command of [["keys", "list"], ["keys", "create", "--name", "x", "--permissions", "admin"], ["service-tokens", "list"], ["account", "set-plan",
      "pro"], ["worker"]]) {
      const r = canopy(...command, "--db", typo)
      assert.strictEqual(r.code, 1, `${command.join(" ")}: ${r.err}`)
      assert.lengthOf(lines(r.err), 1, r.err)
      assert.include(r.err, `no database at ${typo}`)
      assert.isFalse(existsSync(typo), command.join(" "))
    }
  })

  it("first serve with --email and --account-name: uses them, prints a link on the real port; GET / redirects to the dashboard", async () => {
    const db = freshDb()
    const s = await startServe(["--db", db, "--bootstrap-if-empty", "--email", "me@example.org", "--account-name", "Acme Forestry"])
    for (let i = 0; i < 50 && !/try it/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 100))
    assert.match(s.stderr(), /owner me@example\.org/)
    assert.include(s.stderr(), "Acme Forestry")
    assert.notInclude(s.stderr(), "npm start -- --email", "no hint when both were chosen")
    assert.notInclude(s.url, ":8080")
    assert.match(readFileSync(join(dir, "canopy-owner-link"), "utf8"),
      new RegExp(`^${s.url.replace(/[.:/]/g, "\\$&")}/invitations/accept\\?token=cnp_inv_\\w+\n$`))
    assert.notMatch(s.stderr(), /cnp_inv_/)
    const key = readFileSync(join(dir, "canopy-admin-key"), "utf8").trim()
    const home = await fetch(`${s.url}/`, { redirect: "manual" })
    assert.strictEqual(home.status, 302)
    assert.strictEqual(home.headers.get("location"), "/dashboard")
    s.child.kill("SIGTERM")
    assert.strictEqual(await exited(s.child), 0)
    const c = await createCanopy({ storage: sqliteStorage({ filename: db }) })
    const account = await c.account.get(await c.authenticate(key))
    assert.strictEqual(account.name, "Acme Forestry")
    await c.close()
  })

  it("serve: SIGTERM lets an in-flight request finish, then exits 0", async () => {
    const db = freshDb()
    const init = JSON.parse(canopy("init", "--db", db, "--email", "g@example.com", "--json").out) as { api_key: string }
    const s = await startServe(["--db", db])
    const url = new URL(`${s.url}/v1/projects`)
    const body = JSON.stringify({ name: "Submitted during shutdown" })
    const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "POST",
        headers: { authorization: `Bearer ${init.api_key}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
      })
      req.on("error", reject)
      req.write(body.slice(0, 10))
      setTimeout(() => {
        s.child.kill("SIGTERM")
        setTimeout(() => req.end(body.slice(10)), 300)
      }, 200)
    })
    const r = await reply
    assert.strictEqual(r.status, 201, r.text)
    assert.strictEqual(await exited(s.child), 0)
    assert.match(s.stderr(), /SIGTERM: finishing in-flight requests/)
    const c = await createCanopy({ storage: sqliteStorage({ filename: db }) })
    assert.strictEqual((await c.projects.list(await c.authenticate(init.api_key))).meta.total, 1)
    await c.close()
  })
})

describe("ownProcessDefaults (what serve and worker do to their process)", () => {
  it("stops stack trace capture unless CANOPY_STACK_TRACES=1", async () => {
    const { ownProcessDefaults } = await import("@canopy/server")
    const before = Error.stackTraceLimit
    try {
      Error.stackTraceLimit = 10
      ownProcessDefaults({ CANOPY_STACK_TRACES: "1" })
      assert.strictEqual(Error.stackTraceLimit, 10)
      ownProcessDefaults({})
      assert.strictEqual(Error.stackTraceLimit, 0)
      assert.strictEqual(new Error("x").stack, "Error: x")
    } finally {
      Error.stackTraceLimit = before
    }
  })

  it("backup copies a database that a running server keeps writing to; the copy opens with every row committed before it began; it never overwrites", async () => {
    const db = freshDb()
    const init = JSON.parse(canopy("init", "--db", db, "--email", "backup@example.com", "--plan", "enterprise", "--json").out) as { api_key: string }
    const server = await startServe(["--db", db])
    const post = (name: string) =>
      fetch(`${server.url}/v1/projects`, {
        method: "POST",
        headers: { authorization: `Bearer ${init.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ name, geometry: { type: "Polygon", coordinates: [[[10, 0], [10.01, 0], [10.01, 0.01], [10, 0.01], [10, 0]]] } })
      })
    try {
      for (let i = 0; i < 20; i++) assert.strictEqual((await post(`Before ${i}`)).status, 201)
      // Writes go on while the backup runs (it is an async child process, so the server keeps answering).
      let writing = true
      const writer = (async () => {
        for (let i = 0; writing; i++) await post(`During ${i}`)
      })()
      const target = join(dir, "copy.db")
      const out = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, "backup", "--db", db, "--to", target, "--json"], { stdio: ["ignore", "pipe", "pipe"] })
        let o = "", e = ""
        child.stdout!.on("data", (d) => {
          o += d
        })
        child.stderr!.on("data", (d) => {
          e += d
        })
        child.on("exit", (code) => resolve({ code, out: o, err: e }))
      })
      writing = false
      await writer
      assert.strictEqual(out.code, 0, out.err)
      assert.isAbove((JSON.parse(out.out) as { pages: number }).pages, 0)
      const names = await Effect.runPromise(
        Effect.flatMap(Storage.Storage, (s) =>
          Effect.flatMap(s.accounts.list, (accounts) =>
            s.projects.list(accounts[0]!.id, { sort: "name", order: "asc", limit: 100, offset: 0, search: "before" })))
          .pipe(Effect.provide(sqliteStorage({ filename: target, mustExist: true }).layer))
      )
      assert.strictEqual(names.total, 20)
      const again = canopy("backup", "--db", db, "--to", target)
      assert.strictEqual(again.code, 1)
      assert.match(again.err, /already exists/)
      assert.strictEqual(canopy("backup", "--db", db).code, 2, "--to is required")
    } finally {
      server.child.kill("SIGTERM")
      await exited(server.child)
    }
  })
})
