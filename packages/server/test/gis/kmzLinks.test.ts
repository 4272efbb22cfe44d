/**
 * KMZ archives whose documents link to each other with NetworkLink, as QGIS and GDAL write them:
 * links to entries of the same archive are read (relative to the linking document, each entry
 * once, at most four links deep, within the file's caps); any other link is never followed and
 * is named in the warning or the refusal.
 */
import { zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { type ImportLimits, type ImportResult, type ImportSuccess, importBoundary } from "../../src/gis/index.ts"
import { hectares, HOLED, kml, NORTH, type Polygon, SOUTH, square, utf8 } from "./fixtures.ts"

/** A document of NetworkLinks only, as GDAL's KMZ driver writes `doc.kml`. */
const linksOnly = (hrefs: ReadonlyArray<string>, element: "Link" | "Url" = "Link"): string =>
  `<?xml version="1.0" encoding="utf-8" ?>
<kml xmlns="http://www.opengis.net/kml/2.2">
<Document id="root_doc">
${hrefs.map((href, i) => `<NetworkLink><name>layer ${i}</name><${element}><href>${href}</href></${element}></NetworkLink>`).join("\n")}
</Document></kml>
`
/** A document with placemarks and links. */
const withLinks = (placemarks: ReadonlyArray<{ readonly name: string; readonly polygon: Polygon }>, hrefs: ReadonlyArray<string>): string =>
  kml(placemarks).replace("</Document>", `${hrefs.map((h) => `<NetworkLink><Link><href>${h}</href></Link></NetworkLink>`).join("")}</Document>`)

const archive = (files: Record<string, string>): Uint8Array => zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, utf8(text)])))

const run = (bytes: Uint8Array, limits?: Partial<ImportLimits>): Promise<ImportResult> =>
  importBoundary(bytes, { filename: "estate.kmz" }, limits ? { limits } : undefined)
const imported = async (bytes: Uint8Array, limits?: Partial<ImportLimits>): Promise<ImportSuccess> => {
  const r = await run(bytes, limits)
  if (!r.ok) throw new Error(`expected an import, got ${JSON.stringify(r.problems)}`)
  return r
}
const refusal = async (bytes: Uint8Array, limits?: Partial<ImportLimits>): Promise<string> => {
  const r = await run(bytes, limits)
  if (r.ok) throw new Error(`expected a refusal, got an import of ${r.areaHectares} ha`)
  return r.problems.map((p) => p.message).join(" | ")
}

describe("KMZ: links to entries of the same archive", () => {
  it("reads a GDAL-like KMZ: doc.kml links to layers/a.kml and layers/b.kml", async () => {
    const r = await imported(archive({
      "doc.kml": linksOnly(["layers/a.kml", "layers/b.kml"]),
      "layers/a.kml": kml([{ name: "North", polygon: NORTH }]),
      "layers/b.kml": kml([{ name: "South", polygon: SOUTH }, { name: "Holed", polygon: HOLED }])
    }))
    expect(r.format).toBe("kmz")
    expect(r.features).toBe(3)
    expect(Math.abs(r.areaHectares - hectares(NORTH, SOUTH, HOLED))).toBeLessThan(1e-6)
    expect(r.warnings.join(" ")).not.toMatch(/ignored/)
  })

  it("reads the older <Url><href> too", async () => {
    const r = await imported(archive({ "doc.kml": linksOnly(["layers/a.kml"], "Url"), "layers/a.kml": kml([{ name: "North", polygon: NORTH }]) }))
    expect(Math.abs(r.areaHectares - hectares(NORTH))).toBeLessThan(1e-6)
  })

  it("resolves nested relative links against the linking document's folder", async () => {
    const r = await imported(archive({
      "doc.kml": linksOnly(["./layers/index.kml"]),
      "layers/index.kml": linksOnly(["stands/north.kml", "stands/deep/../../south%20block.kml"]),
      "layers/stands/north.kml": withLinks([{ name: "North", polygon: NORTH }], ["../holed.kml"]),
      "layers/south block.kml": kml([{ name: "South", polygon: SOUTH }]),
      "layers/holed.kml": kml([{ name: "Holed", polygon: HOLED }])
    }))
    expect(r.features).toBe(3)
    expect(Math.abs(r.areaHectares - hectares(NORTH, SOUTH, HOLED))).toBeLessThan(1e-6)
  })

  it("reads each entry once: a link cycle and a second link to one document end", async () => {
    const r = await imported(archive({
      "doc.kml": withLinks([{ name: "North", polygon: NORTH }], ["a.kml", "a.kml", "doc.kml"]),
      "a.kml": withLinks([{ name: "South", polygon: SOUTH }], ["b.kml"]),
      "b.kml": withLinks([{ name: "Holed", polygon: HOLED }], ["a.kml", "doc.kml", "./b.kml"])
    }))
    expect(r.features).toBe(3)
    expect(Math.abs(r.areaHectares - hectares(NORTH, SOUTH, HOLED))).toBeLessThan(1e-6)
  })

  it("follows at most four links deep and says which link it did not follow", async () => {
    const files: Record<string, string> = {}
    const squares = Array.from({ length: 6 }, (_, i) => square(8 + i * 0.02, 48, 0.01))
    squares.forEach((s, i) => {
      files[i === 0 ? "doc.kml" : `l${i}.kml`] = withLinks([{ name: `S${i}`, polygon: s }], i < 5 ? [`l${i + 1}.kml`] : [])
    })
    const r = await imported(archive(files))
    expect(r.features).toBe(5)
    expect(Math.abs(r.areaHectares - hectares(...squares.slice(0, 5)))).toBeLessThan(1e-6)
    expect(r.warnings.join(" ")).toMatch(/"l4\.kml" links to "l5\.kml": links nest more than 4 deep/)
  })
})

describe("KMZ: links that are not followed", () => {
  const north = kml([{ name: "North", polygon: NORTH }])
  const cases: ReadonlyArray<readonly [string, RegExp]> = [
    ["http://example.com/stands.kml", /outside the uploaded archive/],
    ["https://example.com/stands.kml", /outside the uploaded archive/],
    ["file:///etc/passwd", /outside the uploaded archive/],
    ["C:\\stands\\a.kml", /outside the uploaded archive/],
    ["/layers/a.kml", /absolute path/],
    ["../a.kml", /above the archive's root/],
    ["layers/../../a.kml", /above the archive's root/],
    ["layers\\a.kml", /not a relative path/],
    ["layers/missing.kml", /the archive holds no entry "layers\/missing\.kml"/],
    ["files/icon.png", /only \.kml documents are read/]
  ]
  for (const [href, why] of cases) {
    it(`refuses a KMZ whose only content is a link to ${href}, naming it`, async () => {
      const bytes = archive({ "doc.kml": linksOnly([href]), "layers/a.kml": north, "files/icon.png": "PNG" })
      const message = await refusal(bytes)
      expect(message).toContain(`"doc.kml" links to ${JSON.stringify(href)}`)
      expect(message).toMatch(why)
    })
  }

  it("imports the polygons it has and warns of a link it did not follow", async () => {
    const r = await imported(archive({ "doc.kml": withLinks([{ name: "North", polygon: NORTH }], ["https://example.com/more.kml", "gone.kml"]) }))
    expect(Math.abs(r.areaHectares - hectares(NORTH))).toBeLessThan(1e-6)
    expect(r.warnings.join(" ")).toMatch(/ignored a link: "doc\.kml" links to "https:\/\/example\.com\/more\.kml"/)
    expect(r.warnings.join(" ")).toMatch(/ignored a link: "doc\.kml" links to "gone\.kml": the archive holds no entry/)
  })
})

describe("KMZ: the caps count every linked document", () => {
  const files = {
    "doc.kml": linksOnly(["layers/a.kml", "layers/b.kml"]),
    "layers/a.kml": kml([{ name: "North", polygon: NORTH }]),
    "layers/b.kml": kml([{ name: "South", polygon: SOUTH }])
  }
  const bytes = archive(files)
  const texts = Object.values(files)
  const nodesOf = (t: string) => (t.match(/<[^/!]/g) ?? []).length + (t.match(/=/g) ?? []).length

  it("XML nodes: the sum over the documents, not each one's", async () => {
    const total = texts.reduce((n, t) => n + nodesOf(t), 0)
    await imported(bytes, { maxXmlElements: total })
    expect(await refusal(bytes, { maxXmlElements: total - 1 })).toMatch(`more than ${total - 1} XML elements`)
  })

  it("XML bytes: the sum of the documents' declared sizes", async () => {
    const total = texts.reduce((n, t) => n + utf8(t).length, 0)
    await imported(bytes, { maxXmlBytes: total })
    expect(await refusal(bytes, { maxXmlBytes: total - 1 })).toMatch(/linked documents inflate to more than \d+ bytes \(at "layers\/b\.kml"\)/)
  })

  it("placemarks and inflated bytes: over all documents", async () => {
    expect(await refusal(bytes, { maxFeatures: 1 })).toMatch(/more than 1 placemarks/)
    const inflated = texts.reduce((n, t) => n + utf8(t).length, 0)
    await imported(bytes, { maxUncompressedBytes: inflated })
    expect(await refusal(bytes, { maxUncompressedBytes: inflated - 1 })).toMatch(/inflate to \d+ bytes; at most \d+ are allowed/)
  })
})

describe("KML: links are not features", () => {
  it("a .kml file's NetworkLink is named, not followed, and its Region's box is no boundary", async () => {
    const region = "<Region><LatLonAltBox><north>48.2</north><south>48.1</south><east>8.2</east><west>8.1</west></LatLonAltBox></Region>"
    const text = linksOnly(["https://example.com/stands.kml"]).replace("<NetworkLink>", `<NetworkLink>${region}`)
    const r = await importBoundary(utf8(text), { filename: "links.kml" })
    if (r.ok) throw new Error(`expected a refusal, got an import of ${r.areaHectares} ha`)
    expect(r.problems[0]!.message).toMatch(/links to "https:\/\/example\.com\/stands\.kml": a \.kml file's links are not followed/)
  })
})

describe("KMZ: links cannot multiply the work", () => {
  it("5,000 links to one entry and 99 documents all linking to each other: each document read once, quickly", async () => {
    const fanOut = archive({ "doc.kml": linksOnly(Array.from({ length: 5_000 }, () => "layers/a.kml")),
      "layers/a.kml": kml([{ name: "North", polygon: NORTH }]) })
    let started = performance.now()
    const one = await imported(fanOut)
    expect(one.features).toBe(1)
    expect(performance.now() - started).toBeLessThan(1_000)

    const names = Array.from({ length: 99 }, (_, i) => `d${i}.kml`)
    const files: Record<string, string> = { "doc.kml": linksOnly(names) }
    names.forEach((name, i) => {
      files[name] = withLinks([{ name: `S${i}`, polygon: square(8 + (i % 10) * 0.02, 48 + Math.floor(i / 10) * 0.02, 0.01) }], names)
    })
    started = performance.now()
    const all = await imported(archive(files))
    expect(all.features).toBe(99)
    expect(performance.now() - started).toBeLessThan(2_000)
  })
})
