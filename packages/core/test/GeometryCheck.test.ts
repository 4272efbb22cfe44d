import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Result } from "effect"
import * as fc from "fast-check"
import { createCanopy, Geometry, GeometryCheck, memoryStorage, RawJson, Schemas, ValidationFailedError, RateLimitedError } from "../src/index.ts"

const square = { type: "Polygon", coordinates: [[[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01], [0, 0]]] }
const clockwise: Geometry.Polygon = { type: "Polygon", coordinates: [[[0, 0], [0, 0.01], [0.01, 0.01], [0.01, 0], [0, 0]]] }

/** Geometry values of every kind the validator distinguishes. */
const geometries: ReadonlyArray<unknown> = [
  square,
  clockwise,
  { type: "MultiPolygon", coordinates: [square.coordinates, [[[1, 1], [1.01, 1], [1.01, 1.01], [1, 1.01], [1, 1]]]] },
  { type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] },
  { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 95], [0, 1], [0, 0]]] },
  { type: "Polygon", coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]] }, // bow tie
  { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }, // not closed
  { type: "Polygon", coordinates: [[[0, 0], ["1", 0], [1, 1], [0, 1, 2, 3], [0, 0]]] },
  { type: "Polygon", coordinates: [] },
  { type: "MultiPolygon", coordinates: [] },
  { type: "Point", coordinates: [0, 0] },
  { type: "Polygon" },
  { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]], bbox: [0, 0, 1, 1] },
  "POLYGON((0 0, 1 0, 1 1, 0 0))",
  5,
  true,
  [],
  {},
  null
]

const bodyArbitrary = fc.record({
  name: fc.constantFrom("Alpha", "", "  ", "x".repeat(201), 7),
  description: fc.constantFrom("d", null, 5, "d".repeat(5001)),
  geometry: fc.oneof(fc.constantFrom(...geometries), fc.jsonValue()),
  status: fc.constantFrom("active", "draft", "archived", "bogus"),
  slug: fc.constantFrom("alpha-1", "Not A Slug", 3),
  extra: fc.jsonValue()
}, { requiredKeys: [] })

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runSyncExit(effect)

/** The decode the service did before GeometryCheck: the whole body, geometry checked in place. */
const fullCreate = Schemas.decodeRequest(Schemas.CreateProject)
const fullUpdate = Schemas.decodeRequest(Schemas.UpdateProject)
const deferredCreate = GeometryCheck.decodeBody(Schemas.CreateProjectDeferred)
const deferredUpdate = GeometryCheck.decodeBody(Schemas.UpdateProjectDeferred)

const sameAsFullDecode = (
  full: typeof fullCreate | typeof fullUpdate,
  deferred: typeof deferredCreate | typeof deferredUpdate,
  body: unknown
) => {
  const expected = full(body)
  const exit = run(deferred(body))
  if (Result.isFailure(expected)) {
    assert.isTrue(Exit.isFailure(exit), `expected a failure for ${JSON.stringify(body)}`)
    const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    assert.strictEqual(error?._tag, "Fail")
    const e = (error as { error: { _tag: string; message: string; details: unknown } }).error
    assert.strictEqual(e._tag, "ValidationError")
    assert.strictEqual(e.message, "The request body is invalid")
    assert.deepStrictEqual(e.details, expected.failure)
    return
  }
  assert.isTrue(Exit.isSuccess(exit), `expected a success for ${JSON.stringify(body)}`)
  if (!Exit.isSuccess(exit)) return
  const { geometry: checked, body: decoded } = exit.value
  const { geometry, ...rest } = expected.success as { geometry?: Geometry.Boundary | null }
  const { geometry: _unchecked, ...decodedRest } = decoded as { geometry?: unknown }
  assert.deepStrictEqual(decodedRest, rest)
  if (geometry === undefined) assert.strictEqual(checked, undefined)
  else if (geometry === null) assert.strictEqual(checked, null)
  else {
    const normalized = Geometry.normalize(geometry)
    assert.deepStrictEqual(checked, {
      geometry: RawJson.RawJson.of(normalized),
      area_hectares: Geometry.roundHectares(Geometry.areaHectares(normalized)),
      bbox: Geometry.bbox(normalized)
    })
  }
}

describe("GeometryCheck.decodeBody", () => {
  it("property: the same problems, in the same order, as decoding with the checked Boundary", () => {
    fc.assert(fc.property(bodyArbitrary, (body) => {
      sameAsFullDecode(fullCreate, deferredCreate, body)
      sameAsFullDecode(fullUpdate, deferredUpdate, body)
    }), { numRuns: 500 })
  })

  it("property: any JSON value whatever", () => {
    fc.assert(fc.property(fc.jsonValue(), (body) => {
      sameAsFullDecode(fullCreate, deferredCreate, body)
      sameAsFullDecode(fullUpdate, deferredUpdate, body)
    }), { numRuns: 300 })
  })

  it("a geometry key holding undefined is reported as the checked schema reports it", () => {
    sameAsFullDecode(fullCreate, deferredCreate, { name: "x", geometry: undefined })
    sameAsFullDecode(fullUpdate, deferredUpdate, { geometry: undefined, status: "nope" })
  })

  it("geometry problems sit between description's and status's, as before", () => {
    const exit = run(
      deferredCreate({ status: "archived", slug: "Bad Slug", geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] }, description: 5, name: "" })
    )
    assert.isTrue(Exit.isFailure(exit))
    const e = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: { details: ReadonlyArray<{ field: string }> } }).error : undefined
    assert.deepStrictEqual(e?.details.map((d) => d.field), ["name", "description", "geometry.coordinates[0]", "status", "slug"])
  })

  it("uses the provided check: its verdict, its budget answer, its saturation", () => {
    const seen: Array<unknown> = []
    const tooComplex: GeometryCheck.GeometryCheckShape = { check: (v) => Effect.sync(() => (seen.push(v), GeometryCheck.tooComplex(1_500))) }
    const exit = run(deferredCreate({ name: "x", geometry: square }).pipe(Effect.provide(GeometryCheck.layer(tooComplex))))
    assert.deepStrictEqual(seen, [square])
    assert.isTrue(Exit.isFailure(exit))
    const e = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: { details: unknown } }).error : undefined
    const verdict = GeometryCheck.tooComplex(1_500)
    assert.deepStrictEqual(e?.details, [{ field: "geometry", message: verdict._tag === "Invalid" ? verdict.problems[0]!.message : "" }])
    assert.match(JSON.stringify(e?.details), /too complex to validate within 1\.5 s/)

    const saturated: GeometryCheck.GeometryCheckShape = { check: () => Effect.fail(GeometryCheck.busy(2)) }
    const busy = run(deferredCreate({ name: "x", geometry: square }).pipe(Effect.provide(GeometryCheck.layer(saturated))))
    assert.isTrue(Exit.isFailure(busy))
    const b = Exit.isFailure(busy) ? (busy.cause.reasons[0] as { error: { _tag: string; retryAfter: number } }).error : undefined
    assert.strictEqual(b?._tag, "RateLimited")
    assert.strictEqual(b?.retryAfter, 2)

    // No geometry, or null: the check is not consulted.
    const never: GeometryCheck.GeometryCheckShape = { check: () => Effect.die("not called") }
    for (const body of [{ name: "x" }, { name: "x", geometry: null }]) {
      assert.isTrue(Exit.isSuccess(run(deferredCreate(body).pipe(Effect.provide(GeometryCheck.layer(never))))))
    }
  })
})

describe("a checked boundary's text and its value for the measures", () => {
  it("a boundary checked here is measured from its checked value, never parsed back; a stored text is parsed once", () => {
    const verdict = GeometryCheck.evaluate(clockwise)
    assert.strictEqual(verdict._tag, "Valid")
    if (verdict._tag !== "Valid") return
    const kept = GeometryCheck.parsedBoundary(verdict.geometry)
    // The normalised value itself (its winding turned), equal to what its text parses to.
    assert.deepStrictEqual(kept, JSON.parse(verdict.geometry.text))
    assert.notDeepEqual(kept, clockwise)
    // Not parsed back: its positions are the checked value's own arrays.
    const positions = (kept as Geometry.Polygon).coordinates[0]!
    assert.isTrue(positions.every((p) => clockwise.coordinates[0]!.includes(p)))
    assert.strictEqual(GeometryCheck.parsedBoundary(verdict.geometry), kept)
    // A text read from a store: parsed on first use, the same value after.
    const stored = new RawJson.RawJson(verdict.geometry.text)
    const parsed = GeometryCheck.parsedBoundary(stored)
    assert.notStrictEqual(parsed, kept)
    assert.deepStrictEqual(parsed, kept)
    assert.strictEqual(GeometryCheck.parsedBoundary(stored), parsed)
    // Both measure the same.
    const square2 = GeometryCheck.evaluate(square)
    if (square2._tag !== "Valid") return assert.fail("square is valid")
    assert.deepStrictEqual(GeometryCheck.measureShared(verdict.geometry, square2.geometry), GeometryCheck.measureShared(stored, square2.geometry))
  })
})

describe("createCanopy with a geometryCheck", () => {
  it("the Projects service validates and measures through it", async () => {
    let calls = 0
    const counting: GeometryCheck.GeometryCheckShape = {
      check: (v) => Effect.suspend(() => (calls++, GeometryCheck.inline.check(v)))
    }
    const canopy = await createCanopy({ storage: memoryStorage(), geometryCheck: counting })
    try {
      const b = await canopy.bootstrap({ account_name: "A", email: "a@example.com", plan: "pro" })
      const principal = await canopy.authenticate(b.api_key.token)
      const p = await canopy.projects.create(principal, { name: "Alpha", geometry: clockwise })
      assert.strictEqual(calls, 1)
      assert.deepStrictEqual(p.geometry, Geometry.normalize(clockwise))
      assert.isAbove(p.area_hectares, 100)
      assert.deepStrictEqual(p.bbox, [0, 0, 0.01, 0.01])
      const cleared = await canopy.projects.update(principal, p.id, { geometry: null })
      assert.strictEqual(calls, 1)
      assert.deepStrictEqual([cleared.geometry, cleared.area_hectares, cleared.bbox], [null, 0, null])
      const renamed = await canopy.projects.update(principal, p.id, { name: "Beta" })
      assert.strictEqual(calls, 1)
      assert.strictEqual(renamed.name, "Beta")
      const error = await canopy.projects.update(principal, p.id, { geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]] } })
        .then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, ValidationFailedError)
      assert.deepStrictEqual((error as ValidationFailedError).details.map((d) => d.field), ["geometry.coordinates[0]"])
      assert.strictEqual(calls, 2)
    } finally {
      await canopy.close()
    }
  })

  it("a saturated check is a RateLimitedError", async () => {
    const canopy = await createCanopy({ storage: memoryStorage(), geometryCheck: { check: () => Effect.fail(GeometryCheck.busy()) } })
    try {
      const b = await canopy.bootstrap({ account_name: "A", email: "a@example.com", plan: "pro" })
      const principal = await canopy.authenticate(b.api_key.token)
      const error = await canopy.projects.create(principal, { name: "Alpha", geometry: square }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, RateLimitedError)
    } finally {
      await canopy.close()
    }
  })
})
