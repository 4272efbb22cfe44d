/**
 * docs/operating.md, run as written: Debian's nginx with the server block taken out of the doc (a
 * self-signed certificate in place of the real one, free ports in place of 80, 443 and 8080) in front
 * of `canopy serve --trusted-proxies 127.0.0.1 --public-url https://…`; /health and an authenticated
 * /v1 route over HTTPS through it; the client address Canopy sees is the one nginx forwards (a
 * service token's IP allowlist decides), and a forged `X-Forwarded-For` is not believed; a body over
 * Canopy's limit gets Canopy's 413, not nginx's. Then `canopy backup` of the live file, the restore
 * drill (a copy, integrity check, a server on it) and the in-place restore (old -wal/-shm moved away).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import Database from "better-sqlite3"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { connect, createServer, type AddressInfo } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { canopyBin, startServeProcess } from "@canopy/server/testing"

const doc = readFileSync(join(import.meta.dirname, "../../../docs/operating.md"), "utf8")
const dir = mkdtempSync(join(tmpdir(), "canopy-recipe-"))
const HOST = "canopy.example.com"
/** The address the test's client speaks from: not nginx's own (127.0.0.1), so the two can be told apart. */
const CLIENT_ADDRESS = "127.0.0.3"

/** The nginx server block of docs/operating.md (the fenced block after its marker comment). */
const nginxBlock = (markdown: string): string => {
  const m = /<!-- nginx-canopy -->\s*```nginx\n([\s\S]*?)```/.exec(markdown)
  if (!m) throw new Error("docs/operating.md has no nginx block after <!-- nginx-canopy -->")
  return m[1]!
}

/** `text` with `from` replaced by `to`, which must occur exactly once (a changed doc fails loudly). */
const replaceOnce = (text: string, from: string, to: string) => {
  const parts = text.split(from)
  if (parts.length !== 2) throw new Error(`expected "${from}" once in the doc's nginx block, found ${parts.length - 1}`)
  return parts.join(to)
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    }).on("error", reject)
  })

const canopy = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [canopyBin, ...args], { encoding: "utf8", env: { ...process.env, CANOPY_DB: "" }, timeout: 60_000 })
  if (r.status !== 0) throw new Error(`canopy ${args[0]} exited ${r.status}: ${r.stderr}`)
  return r.stdout
}

const nginxBinary = ["/usr/sbin/nginx", "/usr/bin/nginx"].find(existsSync) ?? "nginx"

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

let httpsPort = 0
let httpPort = 0
let cert = ""
let nginx: ChildProcess | undefined
let server: { child: ChildProcess; url: string } | undefined
const db = join(dir, "canopy.db")
let adminKey = ""

/** A request to nginx over HTTPS from CLIENT_ADDRESS, verifying the certificate against the test's own. */
const viaProxy = (method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) =>
  new Promise<Answer>((resolve, reject) => {
    const req = httpsRequest({
      host: "127.0.0.1",
      port: httpsPort,
      servername: HOST,
      ca: cert,
      localAddress: CLIENT_ADDRESS,
      method,
      path,
      headers: { host: `${HOST}:${httpsPort}`, ...headers }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (d) => (text += d)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on("error", reject)
    req.end(body)
  })

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const waitForPort = async (port: number) => {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1", () => (s.end(), resolve(true))).on("error", () => resolve(false))
    })
    if (open) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`nothing listens on ${port}: ${readFileSync(join(dir, "error.log"), "utf8")}`)
}

const startCanopy = async (file: string) => {
  const started = await startServeProcess(["--db", file, "--trusted-proxies", "127.0.0.1", "--public-url", `https://${HOST}:${httpsPort}`])
  return started
}

const stopCanopy = async () => {
  const child = server?.child
  server = undefined
  if (!child || child.exitCode !== null) return
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })
}

const startNginx = async (upstreamPort: number) => {
  let block = nginxBlock(doc)
  block = replaceOnce(block, "server 127.0.0.1:8080;", `server 127.0.0.1:${upstreamPort};`)
  block = replaceOnce(block, "listen 80;", `listen 127.0.0.1:${httpPort};`)
  block = replaceOnce(block, "listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`)
  block = replaceOnce(block, `/etc/letsencrypt/live/${HOST}/fullchain.pem`, join(dir, "cert.pem"))
  block = replaceOnce(block, `/etc/letsencrypt/live/${HOST}/privkey.pem`, join(dir, "key.pem"))
  // What Debian's /etc/nginx/nginx.conf provides around sites-enabled/, with paths this test may write.
  const conf = [
    `user ${userInfo().username};`,
    "worker_processes 1;",
    `pid ${join(dir, "nginx.pid")};`,
    `error_log ${join(dir, "error.log")};`,
    "events { worker_connections 64; }",
    "http {",
    `  access_log ${join(dir, "access.log")};`,
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${join(dir, `${t}_temp`)};`),
    block,
    "}"
  ].join("\n")
  writeFileSync(join(dir, "nginx.conf"), conf)
  const check = spawnSync(nginxBinary, ["-t", "-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { encoding: "utf8" })
  expect(check.status, check.stderr).toBe(0)
  nginx = spawn(nginxBinary, ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { stdio: "ignore" })
  await waitForPort(httpsPort)
}

beforeAll(async () => {
  httpsPort = await freePort()
  httpPort = await freePort()
  const made = spawnSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    `/CN=${HOST}`,
    "-addext",
    `subjectAltName=DNS:${HOST}`,
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem")
  ], { encoding: "utf8" })
  expect(made.status, made.stderr).toBe(0)
  cert = readFileSync(join(dir, "cert.pem"), "utf8")
  adminKey =
    (JSON.parse(canopy("init", "--db", db, "--email", "owner@example.com", "--public-url", `https://${HOST}`, "--json")) as { api_key: string }).api_key
  server = await startCanopy(db)
  await startNginx(Number(new URL(server.url).port))
}, 120_000)

afterAll(async () => {
  nginx?.kill("SIGQUIT")
  await stopCanopy()
  rmSync(dir, { recursive: true, force: true })
})

describe("docs/operating.md: TLS behind nginx, backup and restore", { timeout: 120_000 }, () => {
  it("serves /health and the API over HTTPS through nginx; plain HTTP redirects to HTTPS", async () => {
    const health = await viaProxy("GET", "/health")
    expect(health.status).toBe(200)
    expect(JSON.parse(health.body)).toEqual({ status: "ok" })
    const list = await viaProxy("GET", "/v1/projects", bearer(adminKey))
    expect(list.status).toBe(200)
    expect(list.headers["x-ratelimit-limit"]).toBeDefined()
    const created = await viaProxy("POST", "/v1/projects", { ...bearer(adminKey), "content-type": "application/json", "idempotency-key": "recipe-1" },
      JSON.stringify({ name: "Before the backup" }))
    expect(created.status, created.body).toBe(201)
    const denied = await viaProxy("GET", "/v1/projects")
    expect(denied.status).toBe(401)
    expect(JSON.parse(denied.body).error.code).toBe("UNAUTHORIZED")
    // The OAuth issuer is the public URL, whatever Host the request named.
    const metadata = await viaProxy("GET", "/.well-known/oauth-authorization-server")
    expect(JSON.parse(metadata.body).issuer).toBe(`https://${HOST}:${httpsPort}`)
    const redirect = await new Promise<Answer>((resolve, reject) => {
      httpRequest({ host: "127.0.0.1", port: httpPort, path: "/health", headers: { host: HOST } }, (res) => {
        res.resume().on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: "" }))
      }).on("error", reject).end()
    })
    expect(redirect.status).toBe(301)
    expect(redirect.headers.location).toBe(`https://${HOST}/health`)
  })

  it("Canopy sees the client's address as nginx forwards it, and a forged X-Forwarded-For is not believed", async () => {
    const token = (allow: string) =>
      (JSON.parse(
        canopy("service-tokens", "create", "--db", db, "--name", `from ${allow}`, "--permissions", "projects:read", "--ip-allowlist", allow, "--json")
      ) as { token: string }).token
    const client = token(CLIENT_ADDRESS)
    const proxy = token("127.0.0.1")
    expect((await viaProxy("GET", "/v1/projects", bearer(client))).status).toBe(200)
    // nginx connects from 127.0.0.1, but the client is 127.0.0.3: a token for the proxy's address is refused,
    const refused = await viaProxy("GET", "/v1/projects", bearer(proxy))
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.body).error.code).toBe("FORBIDDEN")
    // and claiming to be the proxy in X-Forwarded-For changes nothing: nginx replaces the header.
    expect((await viaProxy("GET", "/v1/projects", { ...bearer(proxy), "x-forwarded-for": "127.0.0.1" })).status).toBe(403)
  })

  it("a body over Canopy's limit reaches Canopy and gets its 413 error body", async () => {
    const tooLarge = await viaProxy("POST", "/v1/projects", { ...bearer(adminKey), "content-type": "application/json", "idempotency-key": "recipe-big" },
      Buffer.alloc(5 * 1024 * 1024 + 100_000, 0x20))
    expect(tooLarge.status).toBe(413)
    expect(JSON.parse(tooLarge.body).error.code).toBe("VALIDATION_ERROR")
  })

  it("backs up the live file, passes the restore drill, and restores in place", async () => {
    const backups = join(dir, "backups")
    mkdirSync(backups)
    const backup = join(backups, "canopy-backup.db")
    expect(canopy("backup", "--db", db, "--to", backup)).toMatch(/integrity ok/)
    // Written after the backup: the restored database must not have it.
    const after = await viaProxy("POST", "/v1/projects", { ...bearer(adminKey), "content-type": "application/json", "idempotency-key": "recipe-2" },
      JSON.stringify({ name: "After the backup" }))
    expect(after.status, after.body).toBe(201)

    // The drill: a copy, its integrity, a server on it answering with the data.
    const drill = join(dir, "drill.db")
    copyFileSync(backup, drill)
    const check = new Database(drill, { readonly: true })
    expect(check.pragma("integrity_check", { simple: true })).toBe("ok")
    check.close()
    const drillServer = await startServeProcess(["--db", drill])
    try {
      const res = await fetch(`${drillServer.url}/v1/projects`, { headers: bearer(adminKey) })
      const names = ((await res.json()) as { data: Array<{ name: string }> }).data.map((p) => p.name)
      expect(names).toEqual(["Before the backup"])
    } finally {
      await new Promise<void>((resolve) => {
        drillServer.child.once("exit", () => resolve())
        drillServer.child.kill("SIGTERM")
      })
    }

    // The restore: server stopped, the old file and its -wal/-shm moved away, the copy in place.
    await stopCanopy()
    const replaced = join(dir, "replaced")
    mkdirSync(replaced)
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(db + suffix)) renameSync(db + suffix, join(replaced, `canopy.db${suffix}`))
    copyFileSync(backup, db)
    server = await startCanopy(db)
    nginx?.kill("SIGQUIT")
    await new Promise((r) => nginx?.once("exit", r))
    await startNginx(Number(new URL(server.url).port))
    const restored = await viaProxy("GET", "/v1/projects", bearer(adminKey))
    expect(restored.status).toBe(200)
    expect((JSON.parse(restored.body) as { data: Array<{ name: string }> }).data.map((p) => p.name)).toEqual(["Before the backup"])
  })
})
