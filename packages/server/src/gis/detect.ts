/**
 * Which format an upload is in: from its content (magic bytes, first character, what a zip holds)
 * first, its media type and file name as hints. A hint from another family of formats than the
 * content (say `.kml` on a zip) is a problem rather than a guess.
 */
import { looksLikeSqlite } from "./readers/geopackage.ts"
import { FileProblem, type GisFormat, type ImportHint } from "./types.ts"
import { isJunk, listZip, looksLikeZip } from "./zip.ts"

type Family = "json" | "xml" | "zip" | "sqlite"

const MEDIA_TYPES: Record<string, GisFormat | Family> = {
  "application/geo+json": "geojson",
  "application/vnd.geo+json": "geojson",
  "application/json": "json",
  "application/vnd.google-earth.kml+xml": "kml",
  "application/vnd.google-earth.kmz": "kmz",
  "application/geopackage+sqlite3": "geopackage",
  "application/x-sqlite3": "sqlite",
  "application/vnd.sqlite3": "sqlite",
  "application/zip": "zip",
  "application/x-zip-compressed": "zip",
  "application/x-shapefile": "shapefile",
  "application/xml": "xml",
  "text/xml": "xml"
}

const EXTENSIONS: Record<string, GisFormat | Family> = {
  geojson: "geojson",
  json: "json",
  kml: "kml",
  kmz: "kmz",
  gpkg: "geopackage",
  zip: "zip",
  shz: "shapefile",
  xml: "xml"
}

const familyOf = (f: GisFormat | Family): Family =>
  f === "geojson" ? "json" : f === "kml" ? "xml" : f === "kmz" || f === "shapefile" ? "zip" : f === "geopackage" ? "sqlite" : f

const NAMES: Record<Family, string> = { json: "JSON", xml: "XML", zip: "a zip archive", sqlite: "a SQLite database" }

const hinted = (hint: ImportHint): Array<{ readonly from: string; readonly format: GisFormat | Family }> => {
  const out: Array<{ from: string; format: GisFormat | Family }> = []
  const media = hint.mediaType?.split(";")[0]?.trim().toLowerCase()
  if (media) {
    const f = MEDIA_TYPES[media]
    if (f) out.push({ from: `media type ${media}`, format: f })
  }
  const name = hint.filename?.trim().toLowerCase()
  if (name) {
    const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : ""
    if (ext === "shp" || ext === "shx" || ext === "dbf") {
      throw new FileProblem(`a lone .${ext} file cannot be read: upload the Shapefile as a .zip holding its .shp, .shx, .dbf and .prj`)
    }
    const f = EXTENSIONS[ext]
    if (f) out.push({ from: `file name ${JSON.stringify(hint.filename)}`, format: f })
  }
  return out
}

const firstChar = (bytes: Uint8Array): string => {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++
  return i < bytes.length ? String.fromCharCode(bytes[i]!) : ""
}

/** The upload's format; a `FileProblem` when it is none of the supported ones. */
export const detectFormat = (bytes: Uint8Array, hint: ImportHint, maxZipEntries: number): GisFormat => {
  const hints = hinted(hint)
  let family: Family
  if (looksLikeZip(bytes)) family = "zip"
  else if (looksLikeSqlite(bytes)) family = "sqlite"
  else {
    const c = firstChar(bytes)
    if (c === "{" || c === "[") family = "json"
    else if (c === "<") family = "xml"
    else {
      const expected = hints[0] ? ` (its ${hints[0].from} says ${hints[0].format})` : ""
      throw new FileProblem(`unsupported format${expected}: upload GeoJSON, KML, KMZ, a zipped Shapefile or a GeoPackage`)
    }
  }
  for (const h of hints) {
    const f = familyOf(h.format)
    if (f !== family) throw new FileProblem(`the ${h.from} says ${h.format}, but the content is ${NAMES[family]}`)
  }
  switch (family) {
    case "json":
      return "geojson"
    case "xml":
      return "kml"
    case "sqlite":
      return "geopackage"
    case "zip": {
      const names = listZip(bytes, maxZipEntries).filter((e) => !isJunk(e.name)).map((e) => e.name.toLowerCase())
      const hasShp = names.some((n) => n.endsWith(".shp"))
      const hasKml = names.some((n) => n.endsWith(".kml"))
      if (hasShp && !hasKml) return "shapefile"
      if (hasKml && !hasShp) return "kmz"
      if (hasKml && hasShp) {
        const h = hints.find((x) => x.format === "kmz" || x.format === "shapefile")
        if (h) return h.format as GisFormat
        throw new FileProblem("the zip archive holds both .kml and .shp files: upload one boundary at a time, or name the file .kmz")
      }
      if (names.some((n) => n.endsWith(".gpkg"))) throw new FileProblem("the zip archive holds a GeoPackage: upload the .gpkg file itself")
      throw new FileProblem("the zip archive holds neither a .kml (KMZ) nor a .shp (zipped Shapefile)")
    }
  }
}
