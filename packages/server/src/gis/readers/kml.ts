/**
 * KML (OGC 12-007r2) with @xmldom/xmldom and @tmcw/togeojson; KMZ is a zip holding a KML
 * (`doc.kml`, or else the first .kml). KML coordinates are always WGS84 longitude/latitude.
 *
 * XML safety: documents with a DOCTYPE are refused (KML needs none), so no entity is ever
 * declared or expanded; xmldom resolves no external resource and togeojson follows no link
 * (NetworkLink, images): nothing reaches the network.
 *
 * Bounded work: xmldom has no limits of its own and costs a few µs per node, so before it
 * runs, the text is measured (`maxXmlBytes`; a KMZ's document by its declared size, before it is
 * inflated) and its nodes (elements, attributes, comments) are counted in one pass
 * (`maxXmlElements`; the same pass finds a DOCTYPE or entity declaration outside CDATA sections
 * and comments).
 */
import { kmlGen } from "@tmcw/togeojson"
import { DOMParser } from "@xmldom/xmldom"
import { baseName, isJunk, listZip, readZipEntries } from "../zip.ts"
import { featureLabel, FileProblem, type ImportLimits, type ReadResult, type SourceFeature } from "../types.ts"

export const decodeText = (bytes: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: false }).decode(bytes)

const DECLARATION = /^<!(DOCTYPE|ENTITY)/i
/** Most attributes of one element (KML's have a few; xmldom checks each against the others). */
const MAX_ATTRIBUTES = 256

/**
 * One pass over the markup before parsing: refuses a DOCTYPE or entity declaration (but not the
 * same words inside a CDATA section or a comment), a `<` inside a tag, and more than `maxNodes`
 * nodes — elements (with processing instructions), attributes (each `=` outside quotes in a tag),
 * comments and CDATA sections — or more than `maxNodes` end tags, or an element of more than
 * `MAX_ATTRIBUTES` attributes.
 */
const checkMarkup = (text: string, maxNodes: number): void => {
  let nodes = 0
  let endTags = 0
  const tooMany = () => new FileProblem(`the KML document has more than ${maxNodes} XML elements, attributes and comments; at most ${maxNodes} are read`)
  let at = text.indexOf("<")
  while (at !== -1) {
    let next: number
    if (text.startsWith("<![CDATA[", at) || text.startsWith("<!--", at)) {
      const close = text.startsWith("<!--", at) ? "-->" : "]]>"
      const end = text.indexOf(close, at + 4)
      if (end === -1) return // unterminated: the parser reports it
      if (++nodes > maxNodes) throw tooMany()
      next = end + close.length
    } else if (text.charCodeAt(at + 1) === 0x21 && DECLARATION.test(text.slice(at, at + 9))) {
      throw new FileProblem("KML with a DOCTYPE or entity declarations is not accepted")
    } else {
      let i = at + 1
      let quote = 0
      let attributes = 0
      for (; i < text.length; i++) {
        const c = text.charCodeAt(i)
        if (c === 0x3c) throw new FileProblem(`not well-formed XML (a "<" inside the tag at character ${at})`)
        if (quote !== 0) {
          if (c === quote) quote = 0
        } else if (c === 0x22 || c === 0x27) quote = c
        else if (c === 0x3d) attributes++
        else if (c === 0x3e) break
      }
      if (attributes > MAX_ATTRIBUTES) throw new FileProblem(`the KML element at character ${at} has more than ${MAX_ATTRIBUTES} attributes`)
      if (text.charCodeAt(at + 1) === 0x2f) {
        if (++endTags > maxNodes) throw tooMany()
      } else if ((nodes += 1 + attributes) > maxNodes) throw tooMany()
      next = i + 1
    }
    at = text.indexOf("<", next)
  }
}

/** Reads a KML document's placemarks, within `maxXmlBytes`, `maxXmlElements` and `maxFeatures`. */
export const readKml = (text: string, limits: ImportLimits): ReadResult => {
  if (text.length > limits.maxXmlBytes) {
    throw new FileProblem(`the KML document has ${text.length} characters; at most ${limits.maxXmlBytes} are read`)
  }
  checkMarkup(text, limits.maxXmlElements)
  const maxFeatures = limits.maxFeatures
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

/** Reads a KMZ's `doc.kml` (or its first .kml), refusing one that declares more than `maxXmlBytes`. */
export const readKmz = (bytes: Uint8Array, limits: ImportLimits): ReadResult => {
  const entries = listZip(bytes, limits.maxZipEntries).filter((e) => !isJunk(e.name) && e.name.toLowerCase().endsWith(".kml"))
  const entry = entries.find((e) => e.name.toLowerCase() === "doc.kml") ??
    entries.find((e) => !e.name.includes("/")) ?? entries[0]
  if (!entry) throw new FileProblem("the KMZ archive holds no .kml document")
  if (entry.size > limits.maxXmlBytes) {
    throw new FileProblem(`${JSON.stringify(entry.name)} inflates to ${entry.size} bytes; at most ${limits.maxXmlBytes} of KML are read`)
  }
  const data = readZipEntries(bytes, [entry], limits.maxUncompressedBytes).get(entry.name)
  if (!data) throw new FileProblem(`could not inflate ${JSON.stringify(entry.name)} from the KMZ archive`)
  const result = readKml(decodeText(data), limits)
  const others = entries.length - 1
  return others > 0
    ? { ...result, warnings: [...result.warnings, `read ${baseName(entry.name)}; ${others} other .kml file(s) in the archive ignored`] }
    : result
}
