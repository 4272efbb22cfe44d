/**
 * KML (OGC 12-007r2) with @xmldom/xmldom and @tmcw/togeojson; KMZ is a zip holding a KML
 * (`doc.kml`, or else the first .kml). KML coordinates are always WGS84 longitude/latitude.
 *
 * XML safety: documents with a DOCTYPE are refused (KML needs none), so no entity is ever
 * declared or expanded; xmldom resolves no external resource and togeojson follows no link
 * (NetworkLink, images): nothing reaches the network.
 */
import { kmlGen } from "@tmcw/togeojson"
import { DOMParser } from "@xmldom/xmldom"
import { baseName, isJunk, listZip, readZipEntries } from "../zip.ts"
import { featureLabel, FileProblem, type ImportLimits, type ReadResult, type SourceFeature } from "../types.ts"

export const decodeText = (bytes: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: false }).decode(bytes)

export const readKml = (text: string, maxFeatures: number): ReadResult => {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new FileProblem("KML with a DOCTYPE or entity declarations is not accepted")
  const errors: Array<string> = []
  let doc: ReturnType<DOMParser["parseFromString"]>
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") errors.push(message.trim())
      }
    }).parseFromString(text, "text/xml")
  } catch (e) {
    throw new FileProblem(`not well-formed XML (${errors[0] ?? (e instanceof Error ? e.message : String(e))})`)
  }
  if (errors.length > 0) throw new FileProblem(`not well-formed XML (${errors[0]})`)
  const root = doc.documentElement
  if (!root || (root.localName ?? root.nodeName) !== "kml") {
    throw new FileProblem(`not a KML document: the root element is <${root?.nodeName ?? "none"}>, not <kml>`)
  }
  const features: Array<SourceFeature> = []
  for (const f of kmlGen(doc)) {
    if (features.length >= maxFeatures) throw new FileProblem(`has more than ${maxFeatures} placemarks`)
    features.push({ geometry: f.geometry ?? null, label: featureLabel(features.length, f.properties?.name) })
  }
  return { features, sourceCrs: "EPSG:4326", warnings: [] }
}

export const readKmz = (bytes: Uint8Array, limits: ImportLimits): ReadResult => {
  const entries = listZip(bytes, limits.maxZipEntries).filter((e) => !isJunk(e.name) && e.name.toLowerCase().endsWith(".kml"))
  const entry = entries.find((e) => e.name.toLowerCase() === "doc.kml") ??
    entries.find((e) => !e.name.includes("/")) ?? entries[0]
  if (!entry) throw new FileProblem("the KMZ archive holds no .kml document")
  const data = readZipEntries(bytes, [entry], limits.maxUncompressedBytes).get(entry.name)
  if (!data) throw new FileProblem(`could not inflate ${JSON.stringify(entry.name)} from the KMZ archive`)
  const result = readKml(decodeText(data), limits.maxFeatures)
  const others = entries.length - 1
  return others > 0
    ? { ...result, warnings: [...result.warnings, `read ${baseName(entry.name)}; ${others} other .kml file(s) in the archive ignored`] }
    : result
}
