/**
 * The mount example run as its README says (`npm start`, configured by the environment): its
 * dispatcher delivers a webhook to a local receiver, SIGTERM stops it cleanly (exit 0), and a
 * second start on the same SQLite file finds the project, the webhook and its delivery log, and
 * delivers again. The receiver is on 127.0.0.1, so the test sets the development opt-in
 * `CANOPY_ALLOW_INSECURE_WEBHOOKS=1`, as the README documents.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { canopyBin } from "@canopy/server/testing"

const example = join(import.meta.dirname, "..")
const dir = mkdtempSync(join(tmpdir(), "canopy-embed-restart-"))
const db = join(dir, "embedded.db")
let receiver: Server
let hookUrl: string
const received: Array<{ headers: IncomingHttpHeaders; body: { type: string; data: { name?: string } } }> = []

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(body) })
      res.end("ok")
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
})
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

/** `npm start` of the example, as its package.json says, with this run's `node`. */
const start = () =>
  new Promise<{ child: ChildProcess; url: string; output: () => string }>((resolve, reject) => {
    const script = (JSON.parse(readFileSync(join(example, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start
    const [command, ...args] = script.split(" ")
    assert.strictEqual(command, "node")
    const child = spawn(process.execPath, args, {
      cwd: example,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PORT: "0", CANOPY_DB: db, CANOPY_ALLOW_INSECURE_WEBHOOKS: "1" }
    })
    let out = ""
    const seen = (d: Buffer) => {
      out += d
      const m = /host app on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve({ child, url: m[1]!, output: () => out })
    }
    child.stdout!.on("data", seen)
    child.stderr!.on("data", seen)
    child.on("exit", (code) => reject(new Error(`the example exited ${code}: ${out}`)))
  })

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      resolve(code)
    })
    child.kill("SIGTERM")
  })

const waitFor = async (what: string, check: () => boolean, ms = 15_000) => {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error(`no ${what} within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const api = (base: string, token: string) => async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}/canopy/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {})
  })
  return { status: res.status, body: await res.json() as { data: any } }
}

const square = { type: "Polygon", coordinates: [[[10, 50], [10.01, 50], [10.01, 50.01], [10, 50.01], [10, 50]]] }

describe("example: the mount example delivers webhooks and survives a restart", () => {
  it("delivers a webhook, stops on SIGTERM, starts again on the same file with everything in it", async () => {
    const init = spawnSync(process.execPath, [canopyBin, "init", "--db", db, "--email", "host@example.com", "--plan", "enterprise", "--json"], {
      encoding: "utf8"
    })
    assert.strictEqual(init.status, 0, init.stderr)
    const token = (JSON.parse(init.stdout) as { api_key: string }).api_key

    const first = await start()
    const call = api(first.url, token)
    const hook = await call("POST", "/webhooks", { url: hookUrl, events: ["project.created"] })
    assert.strictEqual(hook.status, 201, JSON.stringify(hook.body))
    const project = await call("POST", "/projects", { name: "Before the restart", geometry: square })
    assert.strictEqual(project.status, 201, JSON.stringify(project.body))
    assert.isAbove(project.body.data.area_hectares, 70)
    await waitFor("delivery", () => received.length === 1)
    assert.strictEqual(received[0]!.body.type, "project.created")
    assert.match(String(received[0]!.headers["webhook-signature"]), /^v1,/)
    assert.strictEqual(await stop(first.child), 0, first.output())

    const second = await start()
    try {
      const again = api(second.url, token)
      const list = await again("GET", "/projects")
      assert.deepStrictEqual(list.body.data.map((p: { name: string }) => p.name), ["Before the restart"])
      const logs = await again("GET", `/webhooks/${hook.body.data.id}/logs`)
      assert.deepStrictEqual(logs.body.data.map((l: { status: string }) => l.status), ["success"])
      assert.strictEqual((await again("POST", "/projects", { name: "After the restart" })).status, 201)
      await waitFor("second delivery", () => received.length === 2)
      assert.strictEqual(received[1]!.body.data.name, "After the restart")
    } finally {
      assert.strictEqual(await stop(second.child), 0, second.output())
    }
  }, 90_000)
})
