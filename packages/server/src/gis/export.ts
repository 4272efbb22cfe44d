/**
 * Projects out as a GeoJSON FeatureCollection (`application/geo+json`) or a KML document
 * (`application/vnd.google-earth.kml+xml`).
 *
 * GeoJSON splices each boundary's stored JSON text (`RawJson`) into the output unparsed. KML
 * needs the positions, so it parses each boundary once; every text is XML-escaped, and
 * characters XML 1.0 cannot hold are replaced by U+FFFD. A `<description>` is HTML to Google
 * Earth (which renders it in the placemark's balloon), so it holds the text escaped for HTML in a
 * CDATA section: it shows as the text, never as markup (the escaped text holds no `]]>`). Both come as chunks (one per project)
 * for streaming a long list — or as their pieces (head, one project, tail) for a writer that stops
 * at a cap and says so in the tail — and as one string.
 */
import { type ProjectExports, RawJson, type Schemas } from "@canopy/core"
import type { Geometry } from "@canopy/core"

/**
 * A project with its boundary as a value or as stored: the Project schema's attributes (its times
 * optional), any status text, and the boundary as `RawJson` or a `Geometry.Boundary`, null when
 * the project has none.
 */
export type ExportProject =
  & Pick<Schemas.Project, "id" | "name" | "slug" | "area_hectares">
  & Partial<Pick<Schemas.Project, "description" | "created_at" | "updated_at">>
  & { readonly status: string; readonly geometry: RawJson.RawJson | Geometry.Boundary | null }

/** What the writers take: a `Schemas.Project` as the services answer it (its boundary is `RawJson`), or an `ExportProject`. */
export type WritableProject = Schemas.Project | ExportProject

export const GEOJSON_MEDIA_TYPE = "application/geo+json"
export const KML_MEDIA_TYPE = "application/vnd.google-earth.kml+xml"

/** A project's exported attributes (GeoJSON properties; the binary formats' columns). */
export const exportProperties = (p: WritableProject) => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  description: p.description ?? null,
  status: p.status,
  area_hectares: p.area_hectares,
  ...(p.created_at !== undefined ? { created_at: p.created_at } : {}),
  ...(p.updated_at !== undefined ? { updated_at: p.updated_at } : {})
})

/** The head of a FeatureCollection, up to its first feature. */
export const featureCollectionHead = "{\"type\":\"FeatureCollection\",\"features\":["

/** One project as a Feature, with the comma before it unless it is the first. */
export const featureChunk = (p: WritableProject, first: boolean): string => {
  const feature = RawJson.stringify({ type: "Feature", id: p.id, geometry: p.geometry ?? null, properties: exportProperties(p) })
  return first ? feature : `,${feature}`
}

/** Whether a list export holds the whole list, and where to resume when it does not (written at the end of the file). */
export type ExportEnd = ProjectExports.ExportEnd

/**
 * The tail of a FeatureCollection; with `end`, the foreign members `truncated` and `next_cursor`
 * (RFC 7946 §6.1) after `features`.
 */
export const featureCollectionTail = (end?: ExportEnd): string =>
  end ? `],"truncated":${end.truncated},"next_cursor":${JSON.stringify(end.next_cursor)}}` : "]}"

/** The FeatureCollection as chunks: its head, one Feature per project (comma-separated), its tail. */
export function* featureCollectionChunks(projects: Iterable<WritableProject>): Generator<string> {
  yield featureCollectionHead
  let first = true
  for (const p of projects) {
    yield featureChunk(p, first)
    first = false
  }
  yield featureCollectionTail()
}

/** The projects as one GeoJSON FeatureCollection (RFC 7946) text. */
export const toFeatureCollection = (projects: Iterable<WritableProject>): string => [...featureCollectionChunks(projects)].join("")

// ---------------------------------------------------------------------------------------------
// KML

// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]; lone surrogates too.
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text for XML content or a quoted attribute: `& < > " '` escaped, non-XML characters replaced. */
const escapeXml = (text: string): string =>
  text.replace(NOT_XML_CHAR, "\uFFFD").replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : "&apos;")

const num = (n: unknown): string => {
  if (typeof n !== "number" || !Number.isFinite(n)) throw new TypeError("a boundary position is not a finite number")
  return String(n)
}

const ring = (positions: ReadonlyArray<Geometry.Position>): string =>
  `<LinearRing><coordinates>${positions.map((p) => p.map(num).join(",")).join(" ")}</coordinates></LinearRing>`

const polygon = (rings: ReadonlyArray<Geometry.Ring>): string =>
  `<Polygon><outerBoundaryIs>${ring(rings[0] ?? [])}</outerBoundaryIs>${
    rings.slice(1).map((r) => `<innerBoundaryIs>${ring(r)}</innerBoundaryIs>`).join("")
  }</Polygon>`

const kmlGeometry = (geometry: WritableProject["geometry"]): string => {
  if (geometry === null) return ""
  const g = (geometry instanceof RawJson.RawJson ? geometry.value() : geometry) as Geometry.Boundary
  if (g.type === "Polygon") return polygon(g.coordinates)
  return `<MultiGeometry>${g.coordinates.map(polygon).join("")}</MultiGeometry>`
}

const data = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined ? "" : `<Data name="${escapeXml(name)}"><value>${escapeXml(String(value))}</value></Data>`

/** The head of a KML document, up to its first Placemark. */
export const kmlHead = (options?: { readonly name?: string }): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>${escapeXml(options?.name ?? "Canopy projects")}</name>`

/** One project as a Placemark (its description as HTML-escaped text, see above). */
export const kmlPlacemark = (p: WritableProject): string => {
  const description = p.description ? `<description><![CDATA[${escapeXml(p.description)}]]></description>` : ""
  return `<Placemark id="${escapeXml(p.id)}"><name>${escapeXml(p.name)}</name>${description}<ExtendedData>${data("id", p.id)}${data("slug", p.slug)}${
    data("status", p.status)
  }${data("area_hectares", p.area_hectares)}${data("created_at", p.created_at)}${data("updated_at", p.updated_at)}</ExtendedData>${
    kmlGeometry(p.geometry)
  }</Placemark>`
}

/**
 * The tail of a KML document; with `end`, the Document's `<ExtendedData>` with `truncated` and
 * `next_cursor` (empty when complete) after the Placemarks.
 */
export const kmlTail = (end?: ExportEnd): string =>
  `${end ? `<ExtendedData>${data("truncated", String(end.truncated))}${data("next_cursor", end.next_cursor ?? "")}</ExtendedData>` : ""}</Document></kml>\n`

/** The KML document as chunks: its head, one Placemark per project, its tail. */
export function* kmlChunks(projects: Iterable<WritableProject>, options?: { readonly name?: string }): Generator<string> {
  yield kmlHead(options)
  for (const p of projects) yield kmlPlacemark(p)
  yield kmlTail()
}

/** The projects as one KML document text. */
export const toKml = (projects: Iterable<WritableProject>, options?: { readonly name?: string }): string => [...kmlChunks(projects, options)].join("")
