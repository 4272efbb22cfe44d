/**
 * toFeatureCollection / toKml: stored boundary text spliced unparsed, XML escaped, and every
 * export re-imports (importBoundary) to the same geodesic area within 1e-9 ha.
 */
import { DOMParser } from "@xmldom/xmldom"
import { Geometry, RawJson } from "@canopy/core"
import { describe, expect, it } from "vitest"
import { type ExportProject, importBoundary, kmlChunks, toFeatureCollection, toKml } from "../../src/gis/index.ts"
import { HOLED, hectares, NORTH, SOUTH, utf8 } from "./fixtures.ts"

const multi = { type: "MultiPolygon" as const, coordinates: [SOUTH.coordinates, HOLED.coordinates] }

const project = (over: Partial<ExportProject> & Pick<ExportProject, "id" | "geometry">): ExportProject => ({
  name: "Stand",
  slug: "stand",
  status: "active",
  area_hectares: 0,
  description: null,
  created_at: "2026-11-23T10:00:00.000Z",
  updated_at: "2026-11-23T10:00:00.000Z",
  ...over
})

const projects: ReadonlyArray<ExportProject> = [
  project({ id: "proj_north", name: "North <block> & \"Ridge\" 'A'", slug: "north", geometry: new RawJson.RawJson(JSON.stringify(NORTH)),
    area_hectares: Geometry.roundHectares(hectares(NORTH)) }),
  project({ id: "proj_multi", name: "Südhang\u0001 🌲", slug: "suedhang", description: "a <b>bold</b> & odd \u0007 text", geometry: multi,
    area_hectares: Geometry.roundHectares(hectares(SOUTH, HOLED)) }),
  project({ id: "proj_none", name: "Not drawn yet", slug: "none", status: "draft", geometry: null })
]

describe("toFeatureCollection", () => {
  it("writes a FeatureCollection with the projects' properties, splicing the stored boundary text", () => {
    const text = toFeatureCollection(projects)
    expect(text).toContain(`"geometry":${JSON.stringify(NORTH)}`)
    const fc = JSON.parse(text)
    expect(fc.type).toBe("FeatureCollection")
    expect(fc.features).toHaveLength(3)
    expect(fc.features[0]).toEqual({
      type: "Feature",
      id: "proj_north",
      geometry: NORTH,
      properties: {
        id: "proj_north",
        name: projects[0]!.name,
        slug: "north",
        description: null,
        status: "active",
        area_hectares: projects[0]!.area_hectares,
        created_at: "2026-11-23T10:00:00.000Z",
        updated_at: "2026-11-23T10:00:00.000Z"
      }
    })
    expect(fc.features[1].geometry).toEqual(multi)
    expect(fc.features[2].geometry).toBeNull()
    expect(toFeatureCollection([])).toBe("{\"type\":\"FeatureCollection\",\"features\":[]}")
  })

  it("round-trips: each exported project re-imports to the same area within 1e-9 ha", async () => {
    for (const p of projects.slice(0, 2)) {
      const r = await importBoundary(utf8(toFeatureCollection([p])), { mediaType: "application/geo+json" })
      if (!r.ok) throw new Error(JSON.stringify(r.problems))
      const original = p.geometry instanceof RawJson.RawJson ? p.geometry.value() as Geometry.Boundary : p.geometry!
      expect(Math.abs(r.areaHectares - Geometry.areaHectares(original))).toBeLessThan(1e-9)
      expect(r.geometry).toEqual(Geometry.normalize(original))
    }
    // The whole list (a project without boundary is skipped with a warning) merges into one MultiPolygon.
    const all = await importBoundary(utf8(toFeatureCollection(projects)), {})
    if (!all.ok) throw new Error(JSON.stringify(all.problems))
    expect(Math.abs(all.areaHectares - hectares(NORTH, SOUTH, HOLED))).toBeLessThan(1e-9)
    expect(all.warnings.join(" ")).toMatch(/feature without geometry/)
  })
})

describe("toKml", () => {
  it("escapes every text and drops characters XML cannot hold", () => {
    const text = toKml(projects, { name: "Acme & Sons <forests>" })
    expect(text).not.toContain("<block>")
    expect(text).not.toContain("\u0001")
    const errors: Array<string> = []
    const doc = new DOMParser({ onError: (level, msg) => void (level !== "warning" && errors.push(msg)) }).parseFromString(text, "text/xml")
    expect(errors).toEqual([])
    const names = Array.from(doc.getElementsByTagName("name")).map((n) => n.textContent)
    expect(names).toEqual(["Acme & Sons <forests>", projects[0]!.name, "Südhang\uFFFD 🌲", "Not drawn yet"])
    // Google Earth renders a description as HTML: it holds the text escaped for HTML (in CDATA).
    expect(text).toContain("<description><![CDATA[a &lt;b&gt;bold&lt;/b&gt; &amp; odd \uFFFD text]]></description>")
    expect(doc.getElementsByTagName("description")[0]!.textContent).toBe("a &lt;b&gt;bold&lt;/b&gt; &amp; odd \uFFFD text")
    const data = Array.from(doc.getElementsByTagName("Data")).filter((d) => d.getAttribute("name") === "area_hectares")
    expect(data.map((d) => Number(d.textContent))).toEqual(projects.map((p) => p.area_hectares))
    expect([...kmlChunks(projects)]).toHaveLength(projects.length + 2)
  })

  it("keeps a description that tries to end its CDATA section or inject markup as plain text", () => {
    const description = "x]]><script>alert(1)</script><![CDATA["
    const text = toKml([{ ...projects[0]!, description }])
    expect(text).not.toContain("<script>")
    const errors: Array<string> = []
    const doc = new DOMParser({ onError: (level, msg) => void (level !== "warning" && errors.push(msg)) }).parseFromString(text, "text/xml")
    expect(errors).toEqual([])
    const html = doc.getElementsByTagName("description")[0]!.textContent!
    expect(html).not.toMatch(/[<>]/)
    const entities: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": "\"", "&apos;": "'" }
    expect(html.replace(/&(?:lt|gt|amp|quot|apos);/g, (e) => entities[e]!)).toBe(description)
  })

  it("round-trips: exported KML re-imports to the same area within 1e-9 ha (holes kept)", async () => {
    for (const p of projects.slice(0, 2)) {
      const r = await importBoundary(utf8(toKml([p])), { filename: "export.kml" })
      if (!r.ok) throw new Error(JSON.stringify(r.problems))
      const original = p.geometry instanceof RawJson.RawJson ? p.geometry.value() as Geometry.Boundary : p.geometry!
      expect(Math.abs(r.areaHectares - Geometry.areaHectares(original))).toBeLessThan(1e-9)
      expect(r.geometry).toEqual(Geometry.normalize(original))
    }
  })
})
