/**
 * Zipped ESRI Shapefiles with shpjs: each `.shp` of the archive with its `.dbf`, `.prj` and
 * `.cpg`. The archive is inflated here, within the limits (see zip.ts), and shpjs is handed the
 * files' bytes (its object form: never a URL, so it fetches nothing). A `.prj` is read with proj4
 * first, since shpjs silently ignores one it cannot read; shpjs then reprojects to WGS84. The
 * `.shp` and `.dbf` headers are checked against the bytes present first (shapefileChecks.ts):
 * shpjs trusts them.
 */
import getShapefile from "shpjs"
import { crsName, isWgs84, toWgs84 } from "../reproject.ts"
import { featureLabel, FileProblem, type ImportLimits, type ReadResult, type SourceFeature } from "../types.ts"
import { isJunk, listZip, readZipEntries } from "../zip.ts"
import { decodeText } from "./kml.ts"
import { checkDbf, checkShp } from "./shapefileChecks.ts"

const SIDECARS = [".dbf", ".prj", ".cpg"] as const
/** Most bytes of a `.prj` (the WKT of a real CRS takes a few KB). */
const MAX_PRJ_BYTES = 64 * 1024

/** Reads every layer (`.shp` with its sidecars) of a zipped Shapefile, within `limits`. */
export const readShapefileZip = async (bytes: Uint8Array, limits: ImportLimits): Promise<ReadResult> => {
  const entries = listZip(bytes, limits.maxZipEntries).filter((e) => !isJunk(e.name))
  const byLowerName = new Map(entries.map((e) => [e.name.toLowerCase(), e]))
  const layers = entries.filter((e) => e.name.toLowerCase().endsWith(".shp")).map((e) => e.name.slice(0, -4))
  if (layers.length === 0) throw new FileProblem("the zip archive holds no .shp file (a zipped Shapefile needs .shp, .shx, .dbf and .prj)")
  const wanted = layers.flatMap((base) =>
    [".shp", ...SIDECARS].flatMap((ext) => {
      const e = byLowerName.get(`${base}${ext}`.toLowerCase())
      return e ? [e] : []
    })
  )
  const files = readZipEntries(bytes, wanted, limits.maxUncompressedBytes)
  const file = (base: string, ext: string) => {
    const e = byLowerName.get(`${base}${ext}`.toLowerCase())
    return e ? files.get(e.name) : undefined
  }
  const features: Array<SourceFeature> = []
  const warnings: Array<string> = []
  const crsNames = new Set<string>()
  for (const base of layers) {
    const layer = base.slice(base.lastIndexOf("/") + 1)
    const shp = file(base, ".shp")
    if (!shp) throw new FileProblem(`could not inflate ${layer}.shp`)
    checkShp(shp, `${layer}.shp`, limits.maxFeatures)
    const prjBytes = file(base, ".prj")
    if (prjBytes && prjBytes.length > MAX_PRJ_BYTES) throw new FileProblem(`${layer}.prj has ${prjBytes.length} bytes; at most ${MAX_PRJ_BYTES} are read`)
    const prj = prjBytes ? decodeText(prjBytes).trim() : undefined
    if (prj === undefined || prj === "") {
      warnings.push(`${layer}: no .prj file; coordinates taken as WGS84 longitude/latitude`)
      crsNames.add("EPSG:4326")
    } else {
      toWgs84(prj, `${layer}.prj`) // refuses a .prj proj4 cannot read, instead of ignoring it as shpjs would
      crsNames.add(isWgs84(prj) ? "EPSG:4326" : crsName(prj))
      if (!isWgs84(prj)) warnings.push(`${layer}: coordinates reprojected from ${crsName(prj)} to WGS84 (EPSG:4326)`)
    }
    const dbf = file(base, ".dbf")
    if (dbf) checkDbf(dbf, `${layer}.dbf`, limits.maxFeatures)
    const cpg = file(base, ".cpg")
    let collection: Awaited<ReturnType<typeof getShapefile>>
    try {
      collection = await getShapefile({
        shp,
        ...(dbf ? { dbf } : {}),
        ...(prj ? { prj } : {}),
        ...(cpg ? { cpg: decodeText(cpg).trim() } : {})
      })
    } catch (e) {
      throw new FileProblem(`could not read the Shapefile ${layer} (${e instanceof Error ? e.message : String(e)})`)
    }
    collection.features.forEach((f, i) => {
      if (features.length >= limits.maxFeatures) throw new FileProblem(`has more than ${limits.maxFeatures} features`)
      const props = f.properties ?? {}
      const name = props.name ?? props.NAME ?? props.Name
      features.push({ geometry: f.geometry ?? null, label: featureLabel(i, name, layers.length > 1 ? layer : undefined), properties: props })
    })
  }
  return { features, sourceCrs: [...crsNames].join(", "), warnings }
}
