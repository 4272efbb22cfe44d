/**
 * Writes the GIS fixtures (the ones the tests make in memory) to a folder, with their expected
 * geodesic areas in expected.json — for trying the import by hand or from browser tests.
 *
 *   node --conditions=source packages/server/test/gis/generate-fixtures.ts OUT_DIR
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BOWTIE, geopackage, HOLED, hectares, kml, kmz, NORTH, shapefileZip, SOUTH, toUtm32n, utf8, UTM32N_PRJ } from "./fixtures.ts"

export const writeFixtures = async (dir: string): Promise<Record<string, number | null>> => {
  mkdirSync(dir, { recursive: true })
  const stands = [{ name: "North", polygon: NORTH }, { name: "Holed", polygon: HOLED }]
  const files: Record<string, [Uint8Array, number | null]> = {
    "north.geojson": [utf8(JSON.stringify({ type: "Feature", properties: { name: "North" }, geometry: NORTH })), hectares(NORTH)],
    "stands.kml": [utf8(kml(stands, { withPoint: true })), hectares(NORTH, HOLED)],
    "south.kmz": [kmz(kml([{ name: "South", polygon: SOUTH }])), hectares(SOUTH)],
    "stands_wgs84.zip": [await shapefileZip(stands), hectares(NORTH, HOLED)],
    "stands_utm32n.zip": [await shapefileZip(stands.map((s) => ({ ...s, polygon: toUtm32n(s.polygon) })), { prj: UTM32N_PRJ }), hectares(NORTH, HOLED)],
    "stands.gpkg": [await geopackage(stands.map((s) => ({ name: s.name, geometry: s.polygon }))), hectares(NORTH, HOLED)],
    "bowtie.kml": [utf8(kml([{ name: "Bow tie", polygon: BOWTIE }])), null]
  }
  const expected: Record<string, number | null> = {}
  for (const [name, [bytes, ha]] of Object.entries(files)) {
    writeFileSync(join(dir, name), bytes)
    expected[name] = ha
  }
  writeFileSync(join(dir, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`)
  return expected
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2]
  if (!dir) {
    process.stderr.write("usage: generate-fixtures.ts OUT_DIR\n")
    process.exit(2)
  }
  const expected = await writeFixtures(dir)
  process.stdout.write(`${JSON.stringify(expected, null, 2)}\n`)
}
