import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { FieldError, Schemas } from "../src/index.ts"

const problems = <A>(r: Result.Result<A, ReadonlyArray<FieldError.FieldError>>) => Result.isFailure(r) ? r.failure : []
const fieldsOf = <A>(r: Result.Result<A, ReadonlyArray<FieldError.FieldError>>) => problems(r).map((p) => p.field)

const square = { type: "Polygon", coordinates: [[[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01], [0, 0]]] }

describe("Schemas.decodeRequest", () => {
  const createProject = Schemas.decodeRequest(Schemas.CreateProject)

  it("accepts a valid body and ignores unknown fields", () => {
    const r = createProject({ name: "Alpha", geometry: square, extra: 1 })
    assert.isTrue(Result.isSuccess(r))
    assert.deepStrictEqual(Object.keys(Result.getOrThrow(r)).sort(), ["geometry", "name"])
  })

  it("reports every problem, with dotted and indexed paths", () => {
    const r = createProject({
      name: "",
      description: 5,
      status: "archived",
      geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] }
    })
    assert.deepStrictEqual(fieldsOf(r).sort(), ["description", "geometry.coordinates[0]", "name", "status"])
    const g = createProject({ name: "x", geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 95], [0, 1], [0, 0]]] } })
    assert.deepStrictEqual(fieldsOf(g), ["geometry.coordinates[0][2][1]"])
  })

  it("reports a missing required field by name", () => {
    const r = createProject({})
    assert.deepStrictEqual(fieldsOf(r), ["name"])
    assert.match(problems(r)[0]!.message, /missing/i)
  })

  it("enforces DECISIONS' content limits", () => {
    assert.deepStrictEqual(fieldsOf(createProject({ name: "x".repeat(201) })), ["name"])
    assert.isTrue(Result.isSuccess(createProject({ name: "x".repeat(200) })))
    assert.deepStrictEqual(fieldsOf(createProject({ name: "x", description: "d".repeat(5001) })), ["description"])
    const asset = Schemas.decodeRequest(Schemas.CreateAsset)
    assert.deepStrictEqual(fieldsOf(asset({ name: "a", type: "equipment", metadata: { blob: "x".repeat(17_000) } })), ["metadata"])
    assert.deepStrictEqual(fieldsOf(asset({ name: "a", type: "tractor", metadata: [] })).sort(), ["metadata", "type"])
    assert.deepStrictEqual(fieldsOf(asset({ name: "a", type: "sensor", location: { type: "Point", coordinates: [0, 100] } })), ["location.coordinates[1]"])
  })

  it("decodes query parameters from strings, with bounds", () => {
    const list = Schemas.decodeRequest(Schemas.ListProjects)
    assert.deepStrictEqual(Result.getOrThrow(list({ page: "2", per_page: "100", sort: "name" })), { page: 2, per_page: 100, sort: "name" })
    assert.deepStrictEqual(fieldsOf(list({ per_page: "500", page: "0", sort: "bogus" }, ["query"])).sort(), ["query.page", "query.per_page", "query.sort"])
    assert.deepStrictEqual(fieldsOf(list({ page: "1.5" })), ["page"])
    assert.deepStrictEqual(fieldsOf(list({ page: "abc" })), ["page"])
  })

  it("webhooks: events from the catalogue or *, an absolute URL, secret length", () => {
    const create = Schemas.decodeRequest(Schemas.CreateWebhook)
    assert.isTrue(Result.isSuccess(create({ url: "https://example.com/hook", events: ["*"] })))
    assert.deepStrictEqual(fieldsOf(create({ url: "nope", events: ["project.created", "bogus"], secret: "short" })).sort(), ["events[1]", "secret", "url"])
    assert.deepStrictEqual(fieldsOf(create({ url: "https://e.com", events: [] })), ["events"])
  })

  it("members: invitable roles and email", () => {
    const invite = Schemas.decodeRequest(Schemas.InviteMember)
    assert.isTrue(Result.isSuccess(invite({ email: "a@b.co", role: "editor" })))
    assert.deepStrictEqual(fieldsOf(invite({ email: "nope", role: "owner" })).sort(), ["email", "role"])
  })

  it("a body that is not an object is one problem", () => {
    assert.deepStrictEqual(problems(createProject([1, 2])), [{ field: "body", message: "must be a JSON object" }])
    assert.deepStrictEqual(fieldsOf(createProject(null)), ["body"])
  })

  it("property: never throws; every problem has a field and a message", () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      for (const p of problems(createProject(v))) {
        assert.isString(p.field)
        assert.isAbove(p.message.length, 0)
      }
    }), { numRuns: 300 })
  })
})

describe("FieldError.formatPath", () => {
  it("dots names and brackets indexes", () => {
    assert.strictEqual(FieldError.formatPath(["geometry", "coordinates", 0, 3]), "geometry.coordinates[0][3]")
    assert.strictEqual(FieldError.formatPath(["events", "1"]), "events[1]")
    assert.strictEqual(FieldError.formatPath([]), "")
  })
})
