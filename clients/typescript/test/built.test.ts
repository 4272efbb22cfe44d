/**
 * The built client (tsc with tsconfig.build.json — DOM lib, no Node types — to a temporary
 * outDir, with .d.ts) imported as plain JavaScript by the machine's Node 20 (/usr/bin/node) when
 * there is one, else by the Node running the tests: webhook verification and requests against a
 * live canopy serve.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { createHmac } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LiveServer, startLiveServer } from "./support.ts"

const pkg = join(import.meta.dirname, "..")
const root = join(pkg, "../..")
const SYSTEM_NODE = "/usr/bin/node"
const node = existsSync(SYSTEM_NODE) ? SYSTEM_NODE : process.execPath
const nodeVersion = execFileSync(node, ["--version"], { encoding: "utf8" }).trim()
const which = node === SYSTEM_NODE ? `the machine's Node (${SYSTEM_NODE}, ${nodeVersion})` : `the repository's Node (${nodeVersion}; no ${SYSTEM_NODE})`

let server: LiveServer
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "canopy-ts-client-build-"))
  const tsc = join(root, "node_modules/typescript/bin/tsc")
  const r = spawnSync(process.execPath, [tsc, "-p", join(pkg, "tsconfig.build.json"), "--outDir", join(dir, "dist")], { encoding: "utf8" })
  if (r.status !== 0) throw new Error(`tsc failed: ${r.stdout}${r.stderr}`)
  // The build resolves openapi-fetch as an installed package would: from a node_modules next to it.
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir")
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }))
  server = await startLiveServer(`built${Math.random().toString(36).slice(2, 6)}`)
}, 120_000)

afterAll(async () => {
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
}, 30_000)

describe("@canopy/client: the built package", () => {
  it("emits JavaScript and declarations, with .js specifiers and no node: imports", () => {
    for (const f of ["index.js", "index.d.ts", "client.js", "webhooks.js", "oauth.js", "schema.d.ts", "types.d.ts"])
      expect(existsSync(join(dir, "dist", f)), f).toBe(true)
    const index = readFileSync(join(dir, "dist/index.js"), "utf8")
    expect(index).toMatch(/from "\.\/client\.js"/)
    expect(index).not.toMatch(/\.ts"/)
    for (const f of ["client.js", "webhooks.js", "oauth.js", "http.js", "errors.js"]) expect(readFileSync(join(dir, "dist", f), "utf8")).not.toMatch(/node:/)
  })

  it(`is imported and used by ${which}: verifyWebhook and requests to a live server`, () => {
    const secret = "whsec_" + Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")
    const body = JSON.stringify({ id: "evt_smoke", type: "project.created", created_at: new Date().toISOString(), data: { id: "proj_1" },
      account: { id: "acc_1", name: "A" } })
    const ts = Math.floor(Date.now() / 1000)
    const headers = {
      "x-service-signature": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
      "x-service-timestamp": String(ts),
      "webhook-id": "evt_smoke",
      "webhook-timestamp": String(ts),
      "webhook-signature": `v1,${createHmac("sha256", Buffer.from(secret.slice(6), "base64")).update(`evt_smoke.${ts}.${body}`).digest("base64")}`
    }
    const script = `
      import { Canopy, verifyWebhook, NotFoundError, WebhookVerificationError } from ${JSON.stringify(join(dir, "dist/index.js"))}
      const input = JSON.parse(process.env.SMOKE_INPUT)
      const out = { node: process.version }
      const event = await verifyWebhook(input.body, input.headers, input.secret)
      out.event = [event.id, event.type]
      out.tampered = await verifyWebhook(input.body.replace("proj_1", "proj_2"), input.headers, input.secret).then(() => "accepted", (e) => e instanceof WebhookVerificationError ? "refused" : String(e))
      const client = new Canopy({ apiKey: process.env.CANOPY_API_KEY, baseUrl: process.env.CANOPY_BASE_URL })
      out.verify = (await client.auth.verify()).type
      const p = await client.projects.create({ name: "Built smoke" })
      out.created = p.id
      out.found = (await client.projects.get(p.id)).name
      out.missing = await client.projects.get("proj_missing").then(() => "found", (e) => e instanceof NotFoundError ? e.code + " " + e.status : String(e))
      console.log(JSON.stringify(out))
    `
    const r = spawnSync(node, ["--input-type=module", "-e", script], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, SMOKE_INPUT: JSON.stringify({ body, headers, secret }), CANOPY_API_KEY: server.pro.api_key, CANOPY_BASE_URL: server.url }
    })
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout.trim())
    expect(out.node).toBe(nodeVersion)
    expect(out.event).toEqual(["evt_smoke", "project.created"])
    expect(out.tampered).toBe("refused")
    expect(out.verify).toBe("api_key")
    expect(out.created).toMatch(/^proj_/)
    expect(out.found).toBe("Built smoke")
    expect(out.missing).toBe("NOT_FOUND 404")
  }, 60_000)
})
