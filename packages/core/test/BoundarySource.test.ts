/**
 * A boundary stored as the text it was sent as (internal/boundarySource.ts, `GeometryCheck.keepSource`):
 * the text found reads back as exactly the value `JSON.parse` gave, whatever the spelling of its
 * numbers, its whitespace or its members' order; it equals `JSON.stringify`'s when the body was
 * written by it; anything but a plain boundary sent once is left to `JSON.stringify`; and the
 * reading stays linear on hostile bodies.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Geometry from "../src/Geometry.ts"
import * as GeometryCheck from "../src/GeometryCheck.ts"
import { boundarySource } from "../src/internal/boundarySource.ts"
import { gridShape, star } from "./boundaryArbitraries.ts"

/** Ways to spell one number as JSON: all read back as the same double. */
const spellings = (x: number): ReadonlyArray<string> => {
  const shortest = JSON.stringify(x)
  const out = [shortest, x.toPrecision(17), x.toExponential(), x.toExponential().toUpperCase()]
  if (Number.isInteger(x)) out.push(`${x}.000`)
  else if (!shortest.includes("e")) out.push(`${shortest}000`)
  return out.filter((s) => Object.is(JSON.parse(s), x))
}

const spaces = ["", " ", "\n  ", "\t", "\r\n"]

/** The boundary written by hand: each number spelled by `pick`, whitespace by `gap`, members in either order. */
const write = (g: Geometry.Boundary, pick: (x: number) => string, gap: () => string, coordinatesFirst: boolean): string => {
  const array = (v: unknown): string => Array.isArray(v) ? `[${gap()}${v.map(array).join(`${gap()},${gap()}`)}${gap()}]` : pick(v as number)
  const type = `"type"${gap()}:${gap()}"${g.type}"`
  const coordinates = `"coordinates"${gap()}:${gap()}${array(g.coordinates)}`
  return `{${gap()}${coordinatesFirst ? coordinates : type}${gap()},${gap()}${coordinatesFirst ? type : coordinates}${gap()}}`
}

/** Every number of a value, in order. */
const numbers = (v: unknown): Array<number> => Array.isArray(v) ? v.flatMap(numbers) : typeof v === "number" ? [v] : []

const boundaries = fc.oneof(star(), star(0.0005, 12), gridShape)

describe("boundarySource", () => {
  it("reads back as exactly the parsed boundary, without whitespace, whatever the spelling", () => {
    fc.assert(
      fc.property(boundaries, fc.integer(), fc.boolean(), fc.boolean(), (g, seed, coordinatesFirst, before) => {
        let s = seed
        const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff)
        const pick = (x: number) => {
          const all = spellings(x)
          return all[next() % all.length]!
        }
        const gap = () => spaces[next() % spaces.length]!
        const boundary = write(g, pick, gap, coordinatesFirst)
        const body = before ? `{ "name" : "a \\"geometry\\": [1]", "geometry" : ${boundary} , "n": [{"x":{}}] }` : `{"geometry":${boundary},"name":"x"}`
        const parsed = JSON.parse(body) as { geometry: Geometry.Boundary }
        const text = boundarySource(body, "geometry")
        assert.isDefined(text)
        assert.isFalse(/\s/.test(text!))
        const back = JSON.parse(text!) as Geometry.Boundary
        assert.deepStrictEqual(Object.keys(back), Object.keys(parsed.geometry))
        assert.strictEqual(back.type, parsed.geometry.type)
        const want = numbers(parsed.geometry.coordinates), got = numbers(back.coordinates)
        assert.strictEqual(got.length, want.length)
        for (let i = 0; i < want.length; i++) assert.isTrue(Object.is(got[i], want[i]))
        // The same nesting, number for number.
        assert.strictEqual(JSON.stringify(back), JSON.stringify(parsed.geometry))
      }),
      { numRuns: 300 }
    )
  })

  it("equals JSON.stringify's text for a body JSON.stringify wrote", () => {
    fc.assert(
      fc.property(boundaries, (g) => {
        const body = JSON.stringify({ name: "x", geometry: g, description: null })
        assert.strictEqual(boundarySource(body, "geometry"), JSON.stringify(g))
      }),
      { numRuns: 200 }
    )
  })

  it("leaves anything but a plain boundary sent once to JSON.stringify", () => {
    const g = `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`
    const refused = [
      `{"geometry":${g},"geometry":${g}}`, // twice: JSON.parse keeps the last
      `{"geo\\u006detry":${g}}`, // an escaped name JSON.parse reads as "geometry"
      `{"x\\"":1,"geometry":${g}}`, // any escaped name at the top level
      `{"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]],"bbox":[0,0,1,1]}}`, // a foreign member
      `{"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]],"type":"Polygon"}}`,
      `{"geometry":{"typ\\u0065":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}`,
      `{"geometry":{"type":"Point","coordinates":[0,0]}}`,
      `{"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,null]]]}}`,
      `{"geometry":{"type":"Polygon","coordinates":[[["0",0],[1,0],[1,1],[0,0]]]}}`,
      `{"nested":{"geometry":${g}}}`,
      `[${g}]`,
      `{"geometry":null}`,
      `{}`
    ]
    for (const body of refused) {
      JSON.parse(body) // each is JSON
      assert.isUndefined(boundarySource(body, "geometry"), body)
    }
    assert.strictEqual(boundarySource(`{"name":"geometry","geometry":${g}}`, "geometry"), g)
  })

  it("stays linear on hostile bodies", () => {
    const n = 1_000_000
    const hostile = [
      `{"geometry":{"type":"Polygon","coordinates":[${"[".repeat(n / 2)}${" ".repeat(n / 2)}]}}`,
      `{"geometry":{"coordinates":[${"1,".repeat(n / 2)}1${" ".repeat(n / 2)}],"type":"Polygon"}}`,
      `{"geometry":{"coordinates":[${",".repeat(n)}]  ,  "type":"Polygon"  , "x": 1}}`,
      `{"a":"${"\\\\".repeat(n / 2)}","geometry":{"type":"Polygon","coordinates":[${" ".repeat(n)}0]}}`
    ]
    for (const body of hostile) {
      const started = performance.now()
      boundarySource(body, "geometry")
      assert.isBelow(performance.now() - started, 200, body.slice(0, 60))
    }
  })
})

describe("GeometryCheck.keepSource", () => {
  const ring = [[0, 0], [0.001, 0], [0.001, 0.001], [0, 0.001], [0, 0]]
  const stored = (json: string) => {
    const body = JSON.parse(json) as { geometry: unknown }
    GeometryCheck.keepSource(body, json)
    const verdict = GeometryCheck.evaluate(body.geometry)
    assert.strictEqual(verdict._tag, "Valid")
    return { text: (verdict as Extract<GeometryCheck.Verdict, { _tag: "Valid" }>).geometry.text, body }
  }

  it("stores a boundary normalising keeps as it was sent, numbers spelled as sent", () => {
    const json = `{"geometry": {"type": "Polygon", "coordinates": [[[0.0, 0], [0.00100, 0], [0.001, 1.0e-3], [0, 0.001], [0, 0]]]}}`
    assert.strictEqual(stored(json).text, `{"type":"Polygon","coordinates":[[[0.0,0],[0.00100,0],[0.001,1.0e-3],[0,0.001],[0,0]]]}`)
  })

  it("serialises a boundary whose ring normalising turned round", () => {
    const json = `{"geometry":{"type":"Polygon","coordinates":[${JSON.stringify([...ring].reverse()).replace(/0\.001/g, "0.00100")}]}}`
    const { text, body } = stored(json)
    assert.strictEqual(text, JSON.stringify(Geometry.normalize(body.geometry as Geometry.Boundary)))
    assert.notInclude(text, "0.00100")
  })

  it("serialises a boundary whose numbers take more than 80 characters a position", () => {
    const long = `0.${"0".repeat(400)}`
    const json = `{"geometry":{"type":"Polygon","coordinates":[[[${long},0],[0.001,0],[0.001,0.001],[0,0.001],[0,0]]]}}`
    assert.strictEqual(stored(json).text, JSON.stringify({ type: "Polygon", coordinates: [ring] }))
  })

  it("serialises a boundary whose body was not remembered", () => {
    const verdict = GeometryCheck.evaluate({ type: "Polygon", coordinates: [ring.map(([x, y]) => [x, y])] })
    assert.strictEqual(verdict._tag === "Valid" && verdict.geometry.text, JSON.stringify({ type: "Polygon", coordinates: [ring] }))
  })
})
