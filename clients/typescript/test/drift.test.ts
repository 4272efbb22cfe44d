/**
 * The committed src/schema.ts is what openapi-typescript makes of the server's OpenAPI document
 * now: when the route table or a schema changes, this fails until `npm run generate -w @canopy/client`.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { generate, schemaFile } from "../scripts/generate.ts"

describe("@canopy/client: generated types", () => {
  it("src/schema.ts is identical to a fresh generation from the OpenAPI document (else: npm run generate -w @canopy/client)", async () => {
    const fresh = await generate()
    const committed = readFileSync(schemaFile, "utf8")
    expect(fresh.length).toBeGreaterThan(10_000)
    // Every route of the document is in the file (the generation is not vacuous).
    for (const path of ["/v1/projects", "/v1/projects/{project_id}/assets/{asset_id}", "/v1/webhooks/{webhook_id}/logs/{log_id}/redeliver",
      "/v1/auth/verify"]) {
      expect(fresh).toContain(`"${path}": {`)
    }
    expect(committed === fresh, "src/schema.ts is stale: run `npm run generate -w @canopy/client`").toBe(true)
  })
})
