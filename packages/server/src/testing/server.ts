/**
 * A real Canopy for tests: the server on a loopback port over a temporary SQLite file (in this
 * process, or as a `canopy serve` process of its own), and a small HTTP client for it.
 */
import type { Settings } from "@canopy/core"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type RunningServer, serve } from "../index.ts"
import type { AccessLogLine } from "../http/handler.ts"

/** A started server, its access log, and a cleanup. */
export interface TestServer extends RunningServer {
  readonly logs: Array<AccessLogLine>
  /** The SQLite file the server uses. */
  readonly db: string
  readonly stop: () => Promise<void>
  /** Bootstraps an account and returns its admin key and ids. */
  readonly newAccount: (plan?: "free" | "pro" | "enterprise") => Promise<{ token: string; accountId: string; userId: string }>
}

export const startTestServer = async (settings: Partial<Settings.SettingsShape> = {}, options: { dispatcher?: boolean } = {}): Promise<TestServer> => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-http-"))
  const logs: Array<AccessLogLine> = []
  // No delivery loop unless asked: these servers register webhooks on hosts that are not there.
  const db = join(dir, "canopy.db")
  const running = await serve({ port: 0, host: "127.0.0.1", db, settings, log: (l) => logs.push(l), dispatcher: options.dispatcher ?? false })
  let n = 0
  return {
    ...running,
    logs,
    db,
    stop: async () => {
      await running.close()
      rmSync(dir, { recursive: true, force: true })
    },
    newAccount: async (plan = "pro") => {
      const b = await running.canopy.bootstrap({ account_name: `Account ${++n}`, email: `owner${n}@example.com`, plan })
      return { token: b.api_key.token, accountId: b.account.id, userId: b.user.id }
    }
  }
}

/** A response with its parsed JSON body. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

/** Sends a request; a `json` body is serialised with the JSON content type. */
export const request = async (
  base: string,
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; body?: string | Uint8Array; headers?: Record<string, string> } = {}
): Promise<Reply> => {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  let body: string | Uint8Array | undefined = opts.body
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json)
    headers["content-type"] ??= "application/json"
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: res.status, headers: res.headers, body: parsed, text }
}

/** A client bound to one server and token. */
export const client = (base: string, token?: string) => ({
  get: (path: string, headers?: Record<string, string>) => request(base, "GET", path, { ...(token ? { token } : {}), ...(headers ? { headers } : {}) }),
  post: (path: string, json?: unknown) => request(base, "POST", path, { ...(token ? { token } : {}), ...(json !== undefined ? { json } : {}) }),
  put: (path: string, json?: unknown) => request(base, "PUT", path, { ...(token ? { token } : {}), ...(json !== undefined ? { json } : {}) }),
  del: (path: string) => request(base, "DELETE", path, token ? { token } : {})
})

/** Checks the spec's error body shape and returns it. */
export const isErrorBody = (r: Reply, code: string) => {
  const ok = r.body?.error?.code === code && typeof r.body?.error?.message === "string" &&
    Array.isArray(r.body?.error?.details) && r.body?.meta?.request_id === r.headers.get("x-request-id") &&
    (r.body?.meta?.request_id ?? "").startsWith("req_")
  return ok
}

/** The `canopy` command of this package. */
export const canopyBin = join(import.meta.dirname, "../../bin/canopy.js")

/**
 * Starts `canopy serve --port 0 …args` as a process of its own and resolves once it prints the URL
 * it serves; rejects if it exits first. `stderr()` answers what it has written there so far.
 */
export const startServeProcess = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  new Promise<{ child: ChildProcess; url: string; stderr: () => string }>((resolve, reject) => {
    const child = spawn(process.execPath, [canopyBin, "serve", "--port", "0", ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env }
    })
    let err = ""
    child.stderr!.on("data", (d) => {
      err += d
      const m = /serving (http:\/\/[\d.:]+)/.exec(err)
      if (m) resolve({ child, url: m[1]!, stderr: () => err })
    })
    child.on("exit", (code, signal) => reject(new Error(`serve exited ${code ?? signal}: ${err}`)))
  })
