import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Canopy, NotFoundError } from "@canopy/client"
import { startApp } from "../src/app.ts"

describe("example: Canopy mounted in an existing node:http app", () => {
  it("serves the host's routes and Canopy's API under /canopy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-embed-"))
    const app = await startApp({ port: 0, db: join(dir, "embedded.db") })
    try {
      assert.strictEqual(await (await fetch(`${app.url}/`)).text(), "the host application\n")
      const { api_key } = await app.canopy.bootstrap({ account_name: "Host Co", email: "host@example.com" })
      // The mounted API through the official client, as a host application's own code would call it.
      const client = new Canopy({ apiKey: api_key.token, baseUrl: `${app.url}/canopy` })
      const created = await client.projects.create({ name: "Embedded plot" })
      assert.strictEqual(created.name, "Embedded plot")
      const names: Array<string> = []
      for await (const p of client.projects.listAll()) names.push(p.name)
      assert.deepStrictEqual(names, ["Embedded plot"])
      const gone = await client.projects.get("proj_doesnotexist").then(() => undefined, (e: unknown) => e)
      assert.instanceOf(gone, NotFoundError)
      const headers = { authorization: `Bearer ${api_key.token}` }
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
