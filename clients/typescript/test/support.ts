/**
 * Test support for the client's tests: a real `canopy serve` over a temporary SQLite file with
 * accounts made by `canopy init --json`, a loopback webhook receiver, and the browser side of
 * the OAuth consent (set a password, sign in, register an application, approve) over HTTP.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The `canopy` CLI: the `bin` of the installed @canopy/server package, found where Node finds packages. */
const canopyBin = ((): string => {
  for (const dir of createRequire(import.meta.url).resolve.paths("@canopy/server") ?? []) {
    const manifest = join(dir, "@canopy/server/package.json")
    if (existsSync(manifest)) return join(dir, "@canopy/server", JSON.parse(readFileSync(manifest, "utf8")).bin.canopy)
  }
  throw new Error("@canopy/server is not installed: run `npm ci` at the repository root")
})()

/** `canopy serve --port 0 …args` as a process of its own, once it prints the URL it serves. */
const startServeProcess = (args: ReadonlyArray<string>) =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [canopyBin, "serve", "--port", "0", ...args], { stdio: ["ignore", "ignore", "pipe"] })
    let err = ""
    child.stderr!.on("data", (d) => {
      err += d
      const m = /serving (http:\/\/[\d.:]+)/.exec(err)
      if (m) resolve({ child, url: m[1]! })
    })
    child.on("exit", (code, signal) => reject(new Error(`canopy serve exited ${code ?? signal}: ${err}`)))
  })

export interface InitAccount {
  readonly account_id: string
  readonly user_id: string
  readonly api_key: string
  readonly set_password_url: string
  readonly email: string
}

export interface LiveServer {
  readonly url: string
  readonly pro: InitAccount
  readonly free: InitAccount
  readonly child: ChildProcess
  readonly stop: () => Promise<void>
}

/** `canopy serve --allow-insecure-webhooks` with a pro and a free account. */
export const startLiveServer = async (label: string): Promise<LiveServer> => {
  const dir = mkdtempSync(join(tmpdir(), `canopy-ts-client-${label}-`))
  const db = join(dir, "canopy.db")
  const init = (email: string, plan: string, name: string): InitAccount => ({
    ...JSON.parse(
      execFileSync(process.execPath, [canopyBin, "init", "--db", db, "--email", email, "--plan", plan, "--account-name", name, "--json"], { encoding: "utf8" })
    ),
    email
  })
  const pro = init(`ts-pro-${label}@example.com`, "pro", "TS Pro")
  const free = init(`ts-free-${label}@example.com`, "free", "TS Free")
  let server: Awaited<ReturnType<typeof startServeProcess>>
  try {
    server = await startServeProcess(["--db", db, "--allow-insecure-webhooks"])
  } catch (e) {
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  const child = server.child
  return {
    url: server.url,
    pro,
    free,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        child.kill("SIGTERM")
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** One request a local server received. */
export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** A loopback HTTP server that records requests and answers with `respond`. */
export const startLocalServer = async (
  respond: (req: Received, index: number) => { status: number; body?: string; headers?: Record<string, string> }
): Promise<
  { url: string; received: Array<Received>; close: () => Promise<void>; next: (pred: (r: Received) => boolean, timeoutMs?: number) => Promise<Received> }
> => {
  const received: Array<Received> = []
  const waiters: Array<() => void> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const r: Received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) }
      received.push(r)
      const out = respond(r, received.length - 1)
      res.writeHead(out.status, { "content-type": "application/json", ...out.headers })
      res.end(out.body ?? "")
      for (const w of waiters.splice(0)) w()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const next = async (pred: (r: Received) => boolean, timeoutMs = 20_000): Promise<Received> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const hit = received.find(pred)
      if (hit) return hit
      if (Date.now() > deadline) throw new Error(`no matching request within ${timeoutMs} ms (got ${received.length})`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 200)
      })
    }
  }
  return {
    url,
    received,
    next,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

// -- the browser side of the OAuth consent ------------------------------------------------------

const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: "\"", "#39": "'" })[e]!)

/** The hidden inputs of the first form in a page. */
const hiddenInputs = (html: string): Array<[string, string]> =>
  [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [unescape(m[1]!), unescape(m[2]!)])

/** A cookie jar for one simulated browser. */
export class Browser {
  readonly #cookies = new Map<string, string>()
  readonly base: string
  constructor(base: string) {
    this.base = base
  }

  async send(method: "GET" | "POST", path: string, fields?: Array<[string, string]>): Promise<{ status: number; headers: Headers; text: string }> {
    const headers: Record<string, string> = {}
    if (this.#cookies.size) headers.cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ")
    if (fields) headers["content-type"] = "application/x-www-form-urlencoded"
    const res = await fetch(path.startsWith("http") ? path : `${this.base}${path}`, {
      method,
      headers,
      redirect: "manual",
      ...(fields ? { body: new URLSearchParams(fields).toString() } : {})
    })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";")
      const i = pair!.indexOf("=")
      this.#cookies.set(pair!.slice(0, i), pair!.slice(i + 1))
    }
    return { status: res.status, headers: res.headers, text: await res.text() }
  }

  /** Sets the owner's password through the set-password (invitation) link `canopy init` printed. */
  async setPassword(setPasswordUrl: string, name: string, password: string): Promise<void> {
    const token = new URL(setPasswordUrl).searchParams.get("token")!
    const page = await this.send("GET", `/invitations/accept?token=${encodeURIComponent(token)}`)
    if (page.status !== 200) throw new Error(`invitation page: ${page.status}`)
    const done = await this.send("POST", "/invitations/accept", [...hiddenInputs(page.text), ["name", name], ["password", password]])
    if (done.status !== 200 || !done.text.includes("Welcome")) throw new Error(`set password: ${done.status} ${done.text.slice(0, 300)}`)
  }

  /** Signs in to the dashboard; answers the dashboard's CSRF token. */
  async signIn(email: string, password: string): Promise<void> {
    const page = await this.send("GET", "/dashboard")
    const r = await this.send("POST", "/dashboard/sign-in", [...hiddenInputs(page.text), ["email", email], ["password", password]])
    if (r.status !== 303) throw new Error(`dashboard sign-in: ${r.status} ${r.text.slice(0, 300)}`)
  }

  /** Registers an OAuth application from the dashboard; answers its client id (and secret, if confidential). */
  async registerApp(name: string, redirectUri: string, scopes: ReadonlyArray<string>,
    type: "public" | "confidential"): Promise<{ clientId: string; clientSecret?: string }> {
    const page = await this.send("GET", "/dashboard")
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1]
    if (!csrf) throw new Error(`no dashboard CSRF token: ${page.status}`)
    let r = await this.send("POST", "/dashboard/action", [
      ["csrf", unescape(csrf)],
      ["action", "create_app"],
      ["name", name],
      ["redirect_uris", redirectUri],
      ["type", type],
      ...scopes.map((s): [string, string] => ["scopes", s])
    ])
    // The dashboard answers an action with a redirect (post-redirect-get); the page it leads to
    // shows the new application's id and secret once.
    if (r.status === 303) r = await this.send("GET", r.headers.get("location")!)
    const clientId = /<code id="client-id">([^<]+)<\/code>/.exec(r.text)?.[1]
    if (!clientId) throw new Error(`register application: ${r.status} ${r.text.slice(0, 500)}`)
    const secret = /<code id="shown-once">([^<]+)<\/code>/.exec(r.text)?.[1]
    return { clientId: unescape(clientId), ...(secret ? { clientSecret: unescape(secret) } : {}) }
  }

  /** Opens an authorization URL (signed in), approves, and answers the redirect's URL. */
  async approve(authorizationUrl: string): Promise<URL> {
    const consent = await this.send("GET", authorizationUrl)
    if (consent.status !== 200 || !consent.text.includes("value=\"approve\"")) throw new Error(`consent page: ${consent.status} ${consent.text.slice(0, 500)}`)
    const r = await this.send("POST", "/oauth/authorize", [...hiddenInputs(consent.text), ["decision", "approve"]])
    const location = r.headers.get("location")
    if (r.status < 300 || r.status > 399 || !location) throw new Error(`approve: ${r.status} ${r.text.slice(0, 300)}`)
    return new URL(location)
  }
}

/** A fetch that records each request it sends (method, URL, headers) before sending it for real. */
export const recordingFetch = (log: Array<{ method: string; url: string; headers: Headers }>): typeof fetch => async (input, init) => {
  const req = new Request(input, init)
  log.push({ method: req.method, url: req.url, headers: new Headers(req.headers) })
  return fetch(req)
}
