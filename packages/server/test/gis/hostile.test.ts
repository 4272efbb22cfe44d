/**
 * importBoundary over the hostile corpus (hostileCorpus.ts): every file is refused with a problem
 * naming its cause, in well under a second, before the reader does the work the file asks for.
 */
import { describe, expect, it } from "vitest"
import { importBoundary } from "../../src/gis/index.ts"
import { hostileFiles } from "./hostileCorpus.ts"

/** Each refusal must come this fast (measured: a few ms to ~100 ms on a busy 2-core machine). */
const REFUSAL_MS = 500

describe("hostile files are refused quickly, naming the cause", () => {
  for (const file of hostileFiles) {
    it(`${file.name}: ${file.description}`, async () => {
      const bytes = await file.bytes()
      const started = performance.now()
      const result = await importBoundary(bytes, { filename: file.name })
      const elapsed = performance.now() - started
      if (result.ok) throw new Error(`${file.name} was imported (${result.areaHectares} ha)`)
      expect(result.problems[0]).toMatchObject({ field: file.expect.field })
      expect(result.problems[0]!.message).toMatch(file.expect.problem)
      expect(elapsed).toBeLessThan(REFUSAL_MS)
    })
  }
})
