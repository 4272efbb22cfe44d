/**
 * The fixture generator script, run as a real process: every file it writes imports (read back
 * from disk, by file name) to the area its expected.json gives, and the bow tie is refused.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { importBoundary } from "../../src/gis/index.ts"

const script = fileURLToPath(new URL("./generate-fixtures.ts", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "canopy-gis-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("generate-fixtures.ts", () => {
  it("writes fixtures that import to their expected hectares", async () => {
    const stdout = execFileSync(process.execPath, ["--conditions=source", script, dir], { encoding: "utf8" })
    const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Record<string, number | null>
    expect(JSON.parse(stdout)).toEqual(expected)
    expect(Object.keys(expected).sort()).toEqual(
      ["bowtie.kml", "north.geojson", "south.kmz", "stands.gpkg", "stands.kml", "stands_utm32n.zip", "stands_wgs84.zip"]
    )
    for (const [name, hectares] of Object.entries(expected)) {
      const bytes = readFileSync(join(dir, name))
      // Also as a view into a larger buffer, as a multipart parser may hand it over.
      const padded = Buffer.concat([Buffer.alloc(7, 1), bytes, Buffer.alloc(5, 2)]).subarray(7, 7 + bytes.length)
      for (const input of [bytes, padded]) {
        const r = await importBoundary(input, { filename: name })
        if (hectares === null) {
          expect(r.ok).toBe(false)
          continue
        }
        if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.problems)}`)
        expect(Math.abs(r.areaHectares - hectares), name).toBeLessThan(1e-6)
      }
    }
  })
})
