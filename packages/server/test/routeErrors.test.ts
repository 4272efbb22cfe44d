/**
 * Errors declared once, per route: a route's `run` compiles only when every error it may fail
 * with is declared (or answered by every route), and the OpenAPI document gives each operation a
 * response, with the row's code and message, for every error its route answers — and no other.
 */
import { Errors, Projects } from "@canopy/core"
import { Effect } from "effect"
import { assert, describe, expectTypeOf, it } from "vitest"
import { document } from "../src/api/openapi.ts"
import { answers, type Route, route, type RouteContext, routes, SERVICE_ERRORS } from "../src/api/routes.ts"

const common = { method: "GET", path: "/example/{id}", operation: "projects.get", tag: "Projects", summary: "An example" } as const

describe("route(): run fails only with declared errors", () => {
  it("a run failing with a declared error, or one every route answers, compiles; an undeclared one does not", () => {
    const declared = route({
      ...common,
      status: 204,
      envelope: "empty",
      errors: ["NotFound"],
      run: ({ params }) => Effect.fail(new Errors.NotFound({ resource: "Example", id: params.id! }))
    })
    expectTypeOf(declared).toEqualTypeOf<Route>()
    assert.deepStrictEqual(declared.errors, ["NotFound"])

    // Forbidden, Unauthorized, RateLimited and storage failures are answered on every route: no declaration needed.
    route({ ...common, status: 204, envelope: "empty", errors: [], run: () => Effect.fail(new Errors.Forbidden({ message: "no" })) })

    /** A run calling a domain service: its type says it may fail with any domain error. */
    const getProject = ({ principal, params }: RouteContext) => Effect.asVoid(Effect.flatMap(Projects, (s) => s.get(principal, params.id!)))

    // @ts-expect-error Conflict is not among the route's errors
    route({ ...common, status: 204, envelope: "empty", errors: ["NotFound"], run: () => Effect.fail(new Errors.Conflict({ message: "taken" })) })
    // @ts-expect-error a domain service may fail with NotFound, Conflict, ValidationError, LimitExceeded: undeclared here
    route({ ...common, status: 204, envelope: "empty", errors: ["NotFound"], run: getProject })
    route({ ...common, status: 204, envelope: "empty", errors: SERVICE_ERRORS, run: getProject })
  })
})

describe("the OpenAPI responses come from the routes' errors", () => {
  const doc = document() as {
    paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>
    components: { responses: Record<string, any>; headers: Record<string, unknown> }
  }
  const deref = (r: { $ref?: string }) => (r.$ref ? doc.components.responses[r.$ref.split("/").at(-1)!] : r)
  /** The example bodies of a response: its one `example`, or each of its `examples`. */
  const examples = (response: any): Array<{ error: { code: string; message: string } }> => {
    const json = response.content["application/json"]
    return json.example ? [json.example] : Object.values(json.examples).map((e: any) => e.value)
  }

  it("every row a route answers is documented on its operation: the row's status, code, example message and headers", () => {
    let checked = 0
    for (const r of routes) {
      const operation = doc.paths[`/v1${r.path}`]![r.method.toLowerCase()]!
      for (const tag of answers(r)) {
        const row = Errors.table[tag] as Errors.Row<Errors.AnyError>
        const ref = operation.responses[String(row.status)]
        assert.isDefined(ref, `${r.method} ${r.path} documents ${row.status} (${tag})`)
        const response = deref(ref!)
        assert.include(response.description, row.description, `${r.method} ${r.path} ${row.status} says what ${tag} means`)
        assert.isTrue(examples(response).some((e) => e.error.code === row.code && e.error.message === row.example),
          `${r.method} ${r.path} ${row.status} shows ${tag}'s code ${row.code}`)
        const sameStatus = answers(r).filter((t) => Errors.table[t].status === row.status)
        for (const header of Object.keys(row.headers ?? {})) {
          // a header is documented when every error of the status carries it
          if (sameStatus.every((t) => (Errors.table[t] as Errors.Row<Errors.AnyError>).headers?.[header])) {
            assert.isDefined(response.headers[header], `${r.method} ${r.path} ${row.status} documents ${header}`)
            assert.isDefined(doc.components.headers[header])
          }
        }
        checked++
      }
    }
    assert.isAbove(checked, routes.length * 6)
  })

  it("an operation documents no error status its route does not answer", () => {
    for (const r of routes) {
      const statuses = new Set(answers(r).map((t) => String(Errors.table[t].status)))
      const documented = Object.keys(doc.paths[`/v1${r.path}`]![r.method.toLowerCase()]!.responses).filter((s) => Number(s) >= 400)
      assert.deepStrictEqual(documented.filter((s) => !statuses.has(s)), [], `${r.method} ${r.path}`)
    }
  })

  it("declarations differ where the code does: the export list may answer 400 from its run, the token check answers no 404", () => {
    const byPath = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!
    assert.include(byPath("GET", "/projects/export").errors, "BadRequest")
    assert.deepStrictEqual(byPath("GET", "/auth/verify").errors, [])
    assert.notProperty(doc.paths["/v1/auth/verify"]!.get!.responses, "404")
    assert.property(doc.paths["/v1/projects/{project_id}"]!.get!.responses, "404")
  })
})
