/**
 * What the bulk-import tests share: a zipped Shapefile of square stands in UTM 32N written by the
 * export's writer, posting a file, and walking an import's results.
 */
import { assert } from "@effect/vitest"
import { unzipSync, zipSync } from "fflate"
import { type client, request } from "@canopy/server/testing"
import { type ExportRecord, toShapefileZip } from "../src/gis/shapefileWriter.ts"
import { UTM32N_PRJ } from "./gis/fixtures.ts"

/** The UTM 32N ring of stand `i` of `n` (`sideM` metres square, 250 m apart: no two boxes meet); a bow-tie when `broken`. */
export const standRing = (i: number, n: number, sideM = 100, broken = false): Array<[number, number]> => {
  const cols = Math.ceil(Math.sqrt(n))
  const x = 480_000 + (i % cols) * 250
  const y = 5_300_000 + Math.floor(i / cols) * 250
  return broken
    ? [[x, y], [x + sideM, y + sideM], [x + sideM, y], [x, y + sideM], [x, y]]
    : [[x, y], [x + sideM, y], [x + sideM, y + sideM], [x, y + sideM], [x, y]]
}

/**
 * `n` square stands (`standRing`) as a zipped Shapefile written by the export's writer with a UTM
 * .prj; the stands at `broken` are bow-ties.
 */
export const standsZip = (n: number, options: { readonly sideM?: number; readonly broken?: ReadonlyArray<number> } = {}) => {
  const records: Array<ExportRecord> = []
  for (let i = 0; i < n; i++) {
    records.push({
      id: `s${i}`,
      name: `Stand ${i + 1}`,
      slug: `stand-${i + 1}`,
      description: `Compartment ${i + 1}`,
      status: "active",
      area_hectares: 0,
      geometry: { type: "Polygon", coordinates: [standRing(i, n, options.sideM, options.broken?.includes(i))] }
    })
  }
  const files = unzipSync(toShapefileZip(records, { baseName: "stands" }))
  files["stands.prj"] = new TextEncoder().encode(UTM32N_PRJ)
  return zipSync(files)
}

/** POSTs a file to the API with its media type. */
export const post = (base: string, token: string, path: string, body: Uint8Array, type = "application/zip") =>
  request(base, "POST", path, { token, body, headers: { "content-type": type } })

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Every result of an import, walking its pages. */
export const allResults = async (api: ReturnType<typeof client>, id: string) => {
  const out: Array<any> = []
  let after = -1
  for (;;) {
    const r = await api.get(`/v1/imports/${id}?results_after=${after}&results_per_page=1000`)
    assert.strictEqual(r.status, 200, r.text)
    out.push(...r.body.data.results)
    if (r.body.data.next_results_after === null) return out
    after = r.body.data.next_results_after
  }
}
