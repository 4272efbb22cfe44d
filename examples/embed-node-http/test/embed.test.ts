import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startApp } from "../src/app.ts"

describe("example: Canopy mounted in an existing node:http app", () => {
  it("serves the host's routes and Canopy's API under /canopy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-embed-"))
    const app = await startApp({ port: 0, db: join(dir, "embedded.db") })
    try {
      assert.strictEqual(await (await fetch(`${app.url}/`)).text(), "the host application\n")
      const { api_key } = await app.canopy.bootstrap({ account_name: "Host Co", email: "host@example.com" })
      const headers = { authorization: `Bearer ${api_key.token}`, "content-type": "application/json" }
      const created = await fetch(`${app.url}/canopy/v1/projects`, { method: "POST", headers, body: JSON.stringify({ name: "Embedded plot" }) })
      assert.strictEqual(created.status, 201)
      const list = await (await fetch(`${app.url}/canopy/v1/projects`, { headers })).json() as { data: Array<{ name: string }> }
      assert.deepStrictEqual(list.data.map((p) => p.name), ["Embedded plot"])
      const missing = await fetch(`${app.url}/canopy/v1/nope`, { headers })
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(((await missing.json()) as { error: { code: string } }).error.code, "NOT_FOUND")
      assert.strictEqual((await fetch(`${app.url}/canopy/docs`)).status, 200)
      assert.strictEqual((await fetch(`${app.url}/elsewhere`)).status, 404)
    } finally {
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
