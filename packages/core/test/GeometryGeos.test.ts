/**
 * Canopy's validity against GEOS IsValid (the engine behind PostGIS ST_IsValid, QGIS and shapely)
 * on the generated corpus in fixtures/geos-corpus.json; regenerate it with
 * `/usr/bin/python3 packages/core/test/fixtures/geos-corpus.py`.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { Geometry } from "../src/index.ts"

interface Case {
  readonly kind: string
  readonly geometry: unknown
  readonly geos_valid: boolean
  readonly geos_reason: string
}

const corpus = JSON.parse(readFileSync(new URL("./fixtures/geos-corpus.json", import.meta.url), "utf8")) as {
  readonly geos: string
  readonly cases: ReadonlyArray<Case>
}

describe("Geometry.validate against GEOS", () => {
  it(`agrees with GEOS ${corpus.geos} on every case of the corpus`, () => {
    const disagreements: Array<string> = []
    const perKind = new Map<string, { cases: number; wrong: number }>()
    corpus.cases.forEach((c, index) => {
      const problems = Geometry.validate(c.geometry)
      const tally = perKind.get(c.kind) ?? { cases: 0, wrong: 0 }
      perKind.set(c.kind, tally)
      tally.cases++
      if ((problems.length === 0) === c.geos_valid) return
      tally.wrong++
      disagreements.push(
        `#${index} (${c.kind}): GEOS says ${c.geos_valid ? "valid" : JSON.stringify(c.geos_reason)}, Canopy says ${
          problems.length === 0 ? "valid" : JSON.stringify(problems[0]!.message)
        }`
      )
    })
    const summary = [...perKind].filter(([, t]) => t.wrong > 0).map(([kind, t]) => `${kind}: ${t.wrong} of ${t.cases}`)
    assert.isAbove(corpus.cases.length, 500)
    assert.strictEqual(
      disagreements.length,
      0,
      `${disagreements.length} disagreements (${summary.join("; ")}):\n${disagreements.slice(0, 20).join("\n")}`
    )
  })
})
