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
 *
 * A KMZ's documents may link to each other with `NetworkLink` (`<Link><href>` or `<Url><href>`),
 * as QGIS and GDAL write them (`doc.kml` → `layers/<name>.kml`). A link naming an entry of the
 * same archive, relative to the linking document's folder, is read — at most `MAX_LINK_DEPTH`
 * links deep, each entry once, every document counted against the same caps as one (bytes,
 * nodes, features, inflated bytes). Any other link (a URL scheme, an absolute path, `..` above
 * the archive's root, a missing entry) is never followed: a warning when polygons were found
 * elsewhere, else the refusal, naming the href.
 */
import { kmlGen } from "@tmcw/togeojson"
import { DOMParser } from "@xmldom/xmldom"
import { baseName, isJunk, listZip, readZipEntries, type ZipEntry } from "../zip.ts"
import { featureLabel, FileProblem, type ImportLimits, type ReadResult, type SourceFeature } from "../types.ts"

export const decodeText = (bytes: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: false }).decode(bytes)

const DECLARATION = /^<!(DOCTYPE|ENTITY)/i
/** Most attributes of one element (KML's have a few; xmldom checks each against the others). */
const MAX_ATTRIBUTES = 256

/** Nodes and end tags counted so far over the documents of one file. */
interface MarkupCount {
  nodes: number
  endTags: number
}

/**
 * One pass over the markup before parsing: refuses a DOCTYPE or entity declaration (but not the
 * same words inside a CDATA section or a comment), a `<` inside a tag, and more than `maxNodes`
 * nodes — elements (with processing instructions), attributes (each `=` outside quotes in a tag),
 * comments and CDATA sections — or more than `maxNodes` end tags (both counted on from `count`,
 * over all documents of a file), or an element of more than `MAX_ATTRIBUTES` attributes.
 */
const checkMarkup = (text: string, maxNodes: number, count: MarkupCount): void => {
  const tooMany = () => new FileProblem(`the KML document has more than ${maxNodes} XML elements, attributes and comments; at most ${maxNodes} are read`)
  let at = text.indexOf("<")
  while (at !== -1) {
    let next: number
    if (text.startsWith("<![CDATA[", at) || text.startsWith("<!--", at)) {
      const close = text.startsWith("<!--", at) ? "-->" : "]]>"
      const end = text.indexOf(close, at + 4)
      if (end === -1) return // unterminated: the parser reports it
      if (++count.nodes > maxNodes) throw tooMany()
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
        if (++count.endTags > maxNodes) throw tooMany()
      } else if ((count.nodes += 1 + attributes) > maxNodes) throw tooMany()
      next = i + 1
    }
    at = text.indexOf("<", next)
  }
}

type KmlDocument = ReturnType<DOMParser["parseFromString"]>

/** Checks and parses one KML document, its nodes counted on from `count`. */
const parseKml = (text: string, limits: ImportLimits, count: MarkupCount): KmlDocument => {
  checkMarkup(text, limits.maxXmlElements, count)
  const errors: Array<string> = []
  let doc: KmlDocument
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
  return doc
}

/** Appends a parsed document's placemarks to `features`, within `maxFeatures` over them all. */
const collectPlacemarks = (doc: KmlDocument, features: Array<SourceFeature>, maxFeatures: number, layer?: string): void => {
  let index = 0
  for (const f of kmlGen(doc)) {
    if (f.properties?.["@geometry-type"] === "networklink") continue // a link (its Region's box is no boundary)
    if (features.length >= maxFeatures) throw new FileProblem(`has more than ${maxFeatures} placemarks`)
    features.push({ geometry: f.geometry ?? null, label: featureLabel(index++, f.properties?.name, layer), properties: f.properties ?? undefined })
  }
}

/** Reads a KML document's placemarks, within `maxXmlBytes`, `maxXmlElements` and `maxFeatures`. */
export const readKml = (text: string, limits: ImportLimits): ReadResult => {
  if (text.length > limits.maxXmlBytes) {
    throw new FileProblem(`the KML document has ${text.length} characters; at most ${limits.maxXmlBytes} are read`)
  }
  const features: Array<SourceFeature> = []
  const doc = parseKml(text, limits, { nodes: 0, endTags: 0 })
  collectPlacemarks(doc, features, limits.maxFeatures)
  const refused = networkLinkHrefs(doc).map((href) =>
    `the document links to ${JSON.stringify(href)}: a .kml file's links are not followed (a KMZ's links to its own entries are)`
  )
  return { features, sourceCrs: "EPSG:4326", warnings: unfollowed(features, refused) }
}

/** Warnings for links not followed; the refusal naming them when no polygon was found elsewhere. */
const unfollowed = (features: ReadonlyArray<SourceFeature>, refused: ReadonlyArray<string>): Array<string> => {
  const hasPolygon = features.some((f) => {
    const type = (f.geometry as { type?: unknown } | null)?.type
    return type === "Polygon" || type === "MultiPolygon" || type === "GeometryCollection"
  })
  if (refused.length > 0 && !hasPolygon) throw new FileProblem(`no polygon found, and a link was not followed: ${refused.join("; ")}`)
  return refused.map((r) => `ignored a link: ${r}`)
}

/** How many links deep a KMZ's documents are followed from its main document. */
const MAX_LINK_DEPTH = 4

const childElements = (node: { readonly childNodes: ArrayLike<unknown> }, localName: string) =>
  Array.from(
    node.childNodes as ArrayLike<
      { readonly nodeType: number; readonly localName?: string | null; readonly nodeName: string; readonly textContent: string | null;
        readonly childNodes: ArrayLike<unknown> }
    >
  )
    .filter((n) => n.nodeType === 1 && (n.localName ?? n.nodeName) === localName)

/** The `href` of each `NetworkLink` (in its `Link`, or the older `Url`), in document order. */
const networkLinkHrefs = (doc: KmlDocument): Array<string> => {
  const hrefs: Array<string> = []
  const links = doc.getElementsByTagNameNS("*", "NetworkLink")
  for (let i = 0; i < links.length; i++) {
    for (const link of [...childElements(links[i]!, "Link"), ...childElements(links[i]!, "Url")]) {
      for (const href of childElements(link, "href")) hrefs.push((href.textContent ?? "").trim())
    }
  }
  return hrefs
}

/**
 * The archive path an href names, relative to the folder of `from`; a string saying why not when
 * it names no place inside the archive.
 */
const resolveHref = (href: string, from: string): { readonly path: string } | { readonly refused: string } => {
  if (href === "") return { refused: "the link has no href" }
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return { refused: "Canopy follows no link outside the uploaded archive" }
  if (href.startsWith("/") || href.startsWith("\\")) return { refused: "an absolute path names no entry of the archive" }
  if (href.includes("\\") || /[?#]/.test(href)) return { refused: "not a relative path inside the archive" }
  let decoded: string
  try {
    decoded = decodeURIComponent(href)
  } catch {
    return { refused: "not a relative path inside the archive" }
  }
  const parts = from.split("/").slice(0, -1)
  for (const segment of decoded.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (parts.length === 0) return { refused: "the path leads above the archive's root" }
      parts.pop()
    } else parts.push(segment)
  }
  return { path: parts.join("/") }
}

/**
 * Reads a KMZ: its `doc.kml` (or its first .kml) and the documents of the archive it links to
 * (see the module's doc), within the caps summed over all of them.
 */
export const readKmz = (bytes: Uint8Array, limits: ImportLimits): ReadResult => {
  const listed = listZip(bytes, limits.maxZipEntries).filter((e) => !isJunk(e.name))
  const byName = new Map(listed.map((e) => [e.name.toLowerCase(), e] as const))
  const documents = listed.filter((e) => e.name.toLowerCase().endsWith(".kml"))
  const root = documents.find((e) => e.name.toLowerCase() === "doc.kml") ??
    documents.find((e) => !e.name.includes("/")) ?? documents[0]
  if (!root) throw new FileProblem("the KMZ archive holds no .kml document")

  const count: MarkupCount = { nodes: 0, endTags: 0 }
  const features: Array<SourceFeature> = []
  const refused: Array<string> = []
  const queued = new Set<string>([root.name])
  const queue: Array<{ readonly entry: ZipEntry; readonly depth: number }> = [{ entry: root, depth: 0 }]
  let declared = 0
  let inflated = 0
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { entry, depth } = next
    declared += entry.size
    if (declared > limits.maxXmlBytes) {
      throw new FileProblem(depth === 0
        ? `${JSON.stringify(entry.name)} inflates to ${entry.size} bytes; at most ${limits.maxXmlBytes} of KML are read`
        : `the KMZ's linked documents inflate to more than ${limits.maxXmlBytes} bytes (at ${
          JSON.stringify(entry.name)
        }); at most ${limits.maxXmlBytes} of KML are read`)
    }
    const data = readZipEntries(bytes, [entry], limits.maxUncompressedBytes - inflated).get(entry.name)
    if (!data) throw new FileProblem(`could not inflate ${JSON.stringify(entry.name)} from the KMZ archive`)
    inflated += data.length
    const doc = parseKml(decodeText(data), limits, count)
    collectPlacemarks(doc, features, limits.maxFeatures, depth === 0 ? undefined : entry.name)
    for (const href of networkLinkHrefs(doc)) {
      const refuse = (why: string) => refused.push(`${JSON.stringify(entry.name)} links to ${JSON.stringify(href)}: ${why}`)
      const target = resolveHref(href, entry.name)
      if ("refused" in target) {
        refuse(target.refused)
        continue
      }
      const linked = byName.get(target.path.toLowerCase())
      if (!linked) {
        refuse(`the archive holds no entry ${JSON.stringify(target.path)}`)
        continue
      }
      if (!linked.name.toLowerCase().endsWith(".kml")) {
        refuse("only .kml documents are read")
        continue
      }
      if (queued.has(linked.name)) continue // read already, or about to be: a cycle or a second link
      if (depth + 1 > MAX_LINK_DEPTH) {
        refuse(`links nest more than ${MAX_LINK_DEPTH} deep`)
        continue
      }
      queued.add(linked.name)
      queue.push({ entry: linked, depth: depth + 1 })
    }
  }
  const warnings = unfollowed(features, refused)
  const others = documents.length - queued.size
  if (others > 0) warnings.push(`read ${[...queued].map(baseName).join(", ")}; ${others} other .kml file(s) in the archive ignored`)
  return { features, sourceCrs: "EPSG:4326", warnings }
}
