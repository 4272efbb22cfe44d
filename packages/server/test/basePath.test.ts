/**
 * A base path: given when mounting (`basePath`), or the path of the public URL
 * for the packaged server. Everything Canopy serves names URLs under it: pages' forms and
 * redirects, cookies' `Path`, `/docs`, the OpenAPI `servers`, the OAuth metadata.
 */
import { createCanopy, memoryStorage } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { nodeHandler, type RunningServer, serve } from "../src/index.ts"
import { makeSite, parseBasePath } from "../src/pages/site.ts"
import { startServeProcess } from "@canopy/server/testing"

const dir = mkdtempSync(join(tmpdir(), "canopy-base-path-"))
const PUBLIC = "https://canopy.example.com/tools/canopy"
let behindProxy: RunningServer

beforeAll(async () => {
  behindProxy = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "proxy.db"), log: false, dispatcher: false, geometry: false, publicUrl: PUBLIC })
})
afterAll(async () => {
  await behindProxy?.close()
  rmSync(dir, { recursive: true, force: true })
})

const setCookies = (r: Response) => r.headers.getSetCookie()

describe("base path", () => {
  it("is normalised, and refused when it is not a plain path or disagrees with the public URL", () => {
    assert.deepStrictEqual(["", "/", "canopy", "/canopy/", "//canopy//", "/a/b"].map(parseBasePath), ["", "", "/canopy", "/canopy", "/canopy", "/a/b"])
    for (const bad of ["/a?b", "/a#b", "/a//b", "/../x", "/a b"]) assert.throws(() => parseBasePath(bad), /base path/, bad)
    assert.throws(() => makeSite("https://host.example.com", "/canopy"), /must end with the base path/)
    assert.strictEqual(makeSite("https://host.example.com/api/canopy", "/canopy").basePath, "/api/canopy", "a proxy's own prefix before it is fine")
    assert.strictEqual(makeSite(undefined, "canopy/").path("/dashboard"), "/canopy/dashboard")
  })

  it("the packaged server behind a proxy that keeps the public URL's path: everything under it", async () => {
    const base = `${behindProxy.url}/tools/canopy`
    const doc = await (await fetch(`${base}/v1/openapi.json`)).json() as { servers: Array<{ url: string }> }
    assert.deepStrictEqual(doc.servers, [{ url: PUBLIC }])
    assert.include(await (await fetch(`${base}/docs`)).text(), `href="/tools/canopy/v1/openapi.json"`)
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json() as Record<string, string>
    assert.deepStrictEqual([meta.issuer, meta.token_endpoint], [PUBLIC, `${PUBLIC}/oauth/token`])
    const home = await fetch(`${base}/`, { redirect: "manual" })
    assert.strictEqual(home.headers.get("location"), `${PUBLIC}/dashboard`)
    const dashboard = await fetch(`${base}/dashboard`)
    const html = await dashboard.text()
    assert.include(html, `action="/tools/canopy/dashboard/sign-in"`)
    assert.match(setCookies(dashboard)[0] ?? "", /^canopy_csrf=[^;]+; Path=\/tools\/canopy; HttpOnly; SameSite=Lax; Secure/)
    const { password_token } = await behindProxy.canopy.bootstrap({ account_name: "Proxy Co", email: "proxy@example.com" })
    const invitation = await fetch(`${base}/invitations/accept?token=${encodeURIComponent(password_token)}`)
    assert.include(await invitation.text(), `action="/tools/canopy/invitations/accept"`)
    // a proxy that strips the path instead reaches the same server
    assert.strictEqual((await fetch(`${behindProxy.url}/v1/openapi.json`)).status, 200)
  })

  it("canopy serve --public-url with a path serves under it", async () => {
    const proc = await startServeProcess(["--db", join(dir, "cli.db"), "--public-url", "https://forest.example.com/canopy"])
    try {
      const doc = await (await fetch(`${proc.url}/canopy/v1/openapi.json`)).json() as { servers: Array<{ url: string }> }
      assert.deepStrictEqual(doc.servers, [{ url: "https://forest.example.com/canopy" }])
      const page = await fetch(`${proc.url}/canopy/dashboard`)
      assert.include(await page.text(), `action="/canopy/dashboard/sign-in"`)
      assert.match(setCookies(page)[0] ?? "", /; Path=\/canopy;/)
    } finally {
      proc.child.kill()
    }
  }, 60_000)

  it("nodeHandler with basePath, mounted as a whole server: links carry the prefix, and a framework that strips it (Express) still routes", async () => {
    const canopy = await createCanopy({ storage: memoryStorage() })
    const handler = nodeHandler(canopy, { basePath: "canopy/" })
    const server = createServer((req, res) => void handler(req, res))
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    try {
      const meta = await (await fetch(`${url}/canopy/.well-known/oauth-authorization-server`)).json() as Record<string, string>
      assert.strictEqual(meta.issuer, `${url}/canopy`)
      const stripped = await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json() as Record<string, string>
      assert.strictEqual(stripped.issuer, `${url}/canopy`, "the prefix names Canopy's URLs whoever stripped it")
      const doc = await (await fetch(`${url}/canopy/v1/openapi.json`)).json() as { servers: Array<{ url: string }> }
      assert.deepStrictEqual(doc.servers, [{ url: "/canopy" }])
      const signOut = await fetch(`${url}/canopy/dashboard/action`, { method: "POST", redirect: "manual" })
      assert.include(await signOut.text(), `action="/canopy/dashboard/sign-in"`)
    } finally {
      server.close()
      await canopy.close()
    }
  })
})
