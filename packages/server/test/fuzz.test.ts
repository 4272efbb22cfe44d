/**
 * A fuzzer over the API's own description: every operation of the served `/v1/openapi.json` gets
 * requests made from its schemas (valid-ish) and hostile ones (objects and arrays nested 50,000
 * deep, 10,000+ fields, long and broken strings, wrong types, huge numbers, bad query values and
 * path ids), and the form routes (the GIS import's multipart, the dashboard, sign-in, invitation
 * and OAuth forms) get part and field counts by the thousand. Every answer must be below 500, no
 * connection may be cut before its answer, and every 4xx of a JSON route carries the spec's error
 * body. Fixed seed, bounded runs: the same requests every time.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Plans } from "@canopy/core"
import * as fc from "fast-check"
import { MAX_BODY_BYTES } from "../src/http/handler.ts"
import { request, square, startTestServer, type TestServer } from "@canopy/server/testing"

const SEED = 20_261_125
const RUNS_PER_OPERATION = 40

let server: TestServer
let doc: any
let token: string
const ids: Record<string, string> = {}

beforeAll(async () => {
  // Rate limits out of the way: a 429 would stop the requests short of what they test.
  const unlimited = { requestsPerMinute: 1_000_000, requestsPerDay: null, hectares: 10_000_000, members: 1_000, apiRequestsPerPeriod: 100_000_000 }
  server = await startTestServer({ allowInsecureWebhooks: true, deliveryTimeoutMs: 500, plans: { ...Plans.defaults, enterprise: unlimited } })
  const account = await server.newAccount("enterprise")
  token = account.token
  doc = (await request(server.url, "GET", "/v1/openapi.json")).body
  const post = (path: string, json: unknown) => request(server.url, "POST", path, { token, json })
  ids.project_id = (await post("/v1/projects", { name: "Fuzzed stand", geometry: square() })).body.data.id
  ids.asset_id = (await post(`/v1/projects/${ids.project_id}/assets`, { name: "Sensor", type: "sensor" })).body.data.id
  ids.webhook_id = (await post("/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["*"] })).body.data.id
  ids.log_id = (await post(`/v1/webhooks/${ids.webhook_id}/test`, {})).body?.data?.id ?? "log_0"
  ids.member_id = account.userId
}, 60_000)
afterAll(() => server.stop())

/** One request to send. */
interface Fuzzed {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string | Uint8Array
  /** A `/v1` route: its 4xx answers carry the spec's error body. */
  readonly api: boolean
}

/** What went wrong with an answer, or undefined. */
const problemOf = async (r: Fuzzed): Promise<string | undefined> => {
  let res: Response
  let text: string
  try {
    res = await fetch(`${server.url}${r.path}`, { method: r.method, headers: r.headers, redirect: "manual", ...(r.body !== undefined ? { body: r.body } : {}) })
    text = await res.text()
  } catch (e) {
    return `connection cut: ${(e as Error & { cause?: { code?: string } }).cause?.code ?? (e as Error).message}`
  }
  if (res.status >= 500) return `status ${res.status}: ${text.slice(0, 200)}`
  if (r.api && res.status >= 400 && r.method !== "HEAD") {
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      return `status ${res.status} without a JSON body: ${text.slice(0, 120)}`
    }
    const e = body?.error
    if (typeof e?.code !== "string" || typeof e?.message !== "string" || !Array.isArray(e?.details) || typeof body?.meta?.request_id !== "string") {
      return `status ${res.status} without the spec's error body: ${text.slice(0, 200)}`
    }
  }
  return undefined
}

/** Sends every request in turn; the problems, each with its request's line. */
const sendAll = async (requests: ReadonlyArray<Fuzzed>) => {
  const problems: Array<string> = []
  for (const r of requests) {
    const p = await problemOf(r)
    if (p) problems.push(`${r.method} ${r.path.slice(0, 120)} (${typeof r.body === "string" ? r.body.length : r.body?.length ?? 0} bytes): ${p}`)
  }
  // still up and answering
  assert.strictEqual((await request(server.url, "GET", "/health")).status, 200)
  return problems
}

// ---------------------------------------------------------------------------------------------
// Values: valid-ish from a schema, and hostile

const resolve = (schema: any): any => {
  let s = schema
  for (let i = 0; s?.$ref && i < 20; i++) s = doc.components.schemas[String(s.$ref).split("/").pop()!]
  return s ?? {}
}

/** Strings with what breaks naive code: NUL, lone surrogates, right-to-left marks, quotes, markup. */
const nastyString = fc.string({
  maxLength: 40,
  unit: fc.oneof(fc.constantFrom("\u0000", "\uD800", "\uDFFF", "\u202E", "\uFEFF", "\"", "\\", "<", "%", "&", "=", "\n"),
    fc.string({ minLength: 1, maxLength: 1, unit: "grapheme" }))
})

const hugeNumberText = fc.constantFrom("1e308", "1e400", "-1e400", "123456789012345678901234567890", "-0", "0.1e-400", "9007199254740993", "1E+2")

/** A JSON value of any shape, small. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 3 }), nastyString, fc.double(), fc.constant(null))

/** A value for `schema`: usually of its type, sometimes anything. */
const fromSchema = (schema: unknown, depth = 0): fc.Arbitrary<unknown> => {
  const s = resolve(schema)
  if (depth > 6) return fc.constant(null)
  if (Array.isArray(s.enum)) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: nastyString })
  if (s.const !== undefined) return fc.constant(s.const)
  const alternatives = s.anyOf ?? s.oneOf
  if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((a: unknown) => fromSchema(a, depth + 1)))
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return fromSchema({ ...s.allOf[0], ...s, allOf: undefined }, depth + 1)
  const type = Array.isArray(s.type) ? s.type[0] : s.type
  switch (type) {
    case "object": {
      const properties = Object.entries<unknown>(s.properties ?? {})
      if (properties.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 4 })
      return fc.record(
        Object.fromEntries(properties.map(([k, v]) => [k, fc.oneof({ weight: 5, arbitrary: fromSchema(v, depth + 1) }, { weight: 1, arbitrary: anyJson })])),
        { requiredKeys: [] }
      )
    }
    case "array":
      return fc.array(fromSchema(s.items ?? {}, depth + 1), { maxLength: 5 })
    case "string":
      return fc.oneof(fc.string({ maxLength: Math.min(s.maxLength ?? 60, 60) }), nastyString)
    case "integer":
      return fc.integer({ min: s.minimum ?? -1_000, max: s.maximum ?? 1_000 })
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -200, max: 200 })
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    default:
      return anyJson
  }
}

/** JSON text nested `depth` levels in `field` (built as text: the test's own JSON.stringify would overflow). */
const nestedObjectText = (field: string, depth: number) => `{${JSON.stringify(field)}:${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}}`
const nestedArrayText = (field: string, depth: number) => `{${JSON.stringify(field)}:${"[".repeat(depth)}1${"]".repeat(depth)}}`
const manyFieldsText = (n: number) => `{${Array.from({ length: n }, (_, i) => `"f${i}":${i}`).join(",")}}`

/** Hostile JSON body texts for a route whose body has `fields`. */
const hostileBodies = (fields: ReadonlyArray<string>): fc.Arbitrary<string> => {
  const field = fc.constantFrom(...(fields.length ? fields : ["name"]))
  return fc.oneof(
    fc.tuple(field, fc.integer({ min: 30, max: 50_000 })).map(([f, d]) => nestedObjectText(f, d)),
    fc.tuple(field, fc.integer({ min: 30, max: 50_000 })).map(([f, d]) => nestedArrayText(f, d)),
    fc.integer({ min: 1_000, max: 20_000 }).map(manyFieldsText),
    fc.tuple(field, fc.integer({ min: 1_000, max: 1_000_000 }), fc.constantFrom("a", "é", "\uD800", "\u0000", "𝕏")).map(([f, n, c]) =>
      JSON.stringify({ [f]: c.repeat(n) })
    ),
    fc.tuple(field, hugeNumberText).map(([f, n]) => `{${JSON.stringify(f)}:${n}}`),
    fc.tuple(field, anyJson).map(([f, v]) => JSON.stringify({ [f]: v })),
    fc.constantFrom("", "null", "[]", "\"text\"", "{", "{\"name\":}", "\uFEFF{}", "{\"__proto__\":{\"x\":1}}", "{\"constructor\":{\"prototype\":1}}", "1e400")
  )
}

/** Percent-encodes text; a lone surrogate goes as the bytes it would be in WTF-8 (not UTF-8: a server must cope). */
const enc = (s: string) =>
  s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\u0001")
    .split("\u0001").map(encodeURIComponent).join("%ED%A0%80")

/** A path parameter: the real id (usually), or something else. */
const pathValue = (name: string) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(ids[name] ?? "x") }, { weight: 1, arbitrary: nastyString.filter((s) => s.length > 0) }, { weight: 1,
    arbitrary: fc.constantFrom("..", "%00", "%2F", "prj_", "a".repeat(5_000), "%ED%A0%80", "null") })

/** A query value: from the parameter's schema, or hostile. */
const queryValue = (schema: unknown) =>
  fc.oneof({ weight: 3, arbitrary: fromSchema(schema).map((v) => (typeof v === "string" ? v : JSON.stringify(v))) }, { weight: 2,
    arbitrary: fc.oneof(nastyString, hugeNumberText, fc.constantFrom("-1", "NaN", "", "0", "1.5", "a".repeat(20_000), "1,2,3,4", "POLYGON((0 0,1 1))")) })

/** Requests for one operation. */
const forOperation = (method: string, path: string, op: any): fc.Arbitrary<Fuzzed> => {
  const params: Array<any> = op.parameters ?? []
  const pathParams = params.filter((p) => p.in === "path")
  const queryParams = params.filter((p) => p.in === "query")
  const content = op.requestBody?.content ?? {}
  const jsonSchema = content["application/json"]?.schema
  const isFile = "multipart/form-data" in content
  const fieldNames = Object.keys(resolve(jsonSchema).properties ?? {})
  const body: fc.Arbitrary<{ text?: string | Uint8Array; type?: string }> = isFile
    ? multipartBodies.map((b) => ({ text: b.body, type: b.type }))
    : jsonSchema
    ? fc.oneof(
      { weight: 2, arbitrary: fromSchema(jsonSchema).map((v) => ({ text: JSON.stringify(v), type: "application/json" })) },
      { weight: 3, arbitrary: hostileBodies(fieldNames).map((t) => ({ text: t, type: "application/json" })) },
      { weight: 1,
        arbitrary: fc.tuple(fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""), fc.string()).map((
          [type, text]
        ) => ({ text, type })) }
    )
    : fc.constant({})
  const auth = fc.oneof({ weight: 8, arbitrary: fc.constant(`Bearer ${token}`) }, { weight: 1,
    arbitrary: fc.constantFrom("", "Bearer", "Bearer x", "Basic abc", `Bearer ${token}x`, `bearer  ${token}`) })
  return fc.record({
    pathValues: fc.tuple(...pathParams.map((p) => pathValue(p.name))),
    query: fc.array(fc.tuple(fc.constantFrom(...(queryParams.length ? queryParams : [{ name: "x", schema: {} }])), fc.boolean()), { maxLength: 4 }).chain((
      picked
    ) => fc.tuple(...picked.map(([p, known]) => fc.tuple(known ? fc.constant(p.name as string) : nastyString, queryValue(p.schema))))),
    body,
    auth,
    idempotency: fc.option(fc.oneof(fc.uuid(), nastyString, fc.constant("k".repeat(300))), { nil: undefined })
  }).map(({ auth, body, idempotency, pathValues, query }) => {
    let p = path
    pathParams.forEach((param, i) => {
      p = p.replace(`{${param.name}}`, enc(pathValues[i] as string))
    })
    const qs = query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&")
    const headers: Record<string, string> = {}
    if (auth) headers.authorization = auth
    if (body.type) headers["content-type"] = body.type
    if (idempotency !== undefined && method === "POST") headers["idempotency-key"] = idempotency.replace(/[^\x20-\x7e]/g, "?")
    return { method: method.toUpperCase(), path: qs ? `${p}?${qs}` : p, headers, ...(body.text !== undefined ? { body: body.text } : {}), api: true }
  })
}

// ---------------------------------------------------------------------------------------------
// Forms

const BOUNDARY = "fuzz-boundary"

/** Multipart bodies: thousands of parts, many fields, no file, two files, broken framing. */
const multipartBodies: fc.Arbitrary<{ body: string | Uint8Array; type: string }> = (() => {
  const part = (name: string, value: string, filename?: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename !== undefined ? `; filename="${filename}"` : ""}\r\n\r\n${value}\r\n`
  const end = `--${BOUNDARY}--\r\n`
  const type = `multipart/form-data; boundary=${BOUNDARY}`
  const polygon = JSON.stringify({ type: "Feature", properties: {}, geometry: square(20) })
  return fc.oneof(
    fc.integer({ min: 65, max: 60_000 }).map((n) => ({ body: `${part("f", "").repeat(n)}${end}`, type })),
    fc.integer({ min: 33, max: 10_000 }).map((n) => ({
      body: `${Array.from({ length: Math.min(n, 60) }, (_, i) => part(`f${i}`, "v")).join("")}${part("file", polygon, "a.geojson")}${end}`,
      type
    })),
    fc.constant({ body: `${part("file", polygon, "a.geojson")}${part("file", polygon, "b.geojson")}${end}`, type }),
    fc.constant({ body: `${part("name", "no file")}${end}`, type }),
    fc.tuple(nastyString, fc.integer({ min: 0, max: 300_000 })).map(([name, n]) => ({ body: `${part("file", "x".repeat(n), name)}${end}`, type })),
    fc.constant({ body: `${part("file", polygon, "a.geojson")}`, type }), // no closing boundary
    fc.constant({ body: "garbage", type: "multipart/form-data" }), // no boundary parameter
    fc.constant({ body: part("file", polygon, "a.geojson") + end, type: `multipart/form-data; boundary=${"b".repeat(200)}` })
  )
})()

/** Urlencoded bodies: field counts up to the body limit, long fields, broken escapes. */
const formBodies: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 10, max: 500_000 }).map((n) => Array.from({ length: n }, (_, i) => `k${i}=`).join("&").slice(0, MAX_BODY_BYTES - 1_000)),
  fc.integer({ min: 10, max: 2_000_000 }).map((n) => "&".repeat(n)),
  fc.integer({ min: 1, max: 4_000_000 }).map((n) => `csrf=x&email=${"a".repeat(n)}`),
  fc.array(fc.tuple(nastyString, nastyString), { maxLength: 20 }).map((pairs) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&")),
  fc.constantFrom("%", "%zz=%", "a=%E0%A4%A", "=&=&=", "csrf", "grant_type=client_credentials&grant_type=x", "\u0000=\u0000")
)

const formRoutes = ["/dashboard/sign-in", "/dashboard/action", "/dashboard/upload", "/invitations/accept", "/oauth/sign-in", "/oauth/authorize", "/oauth/token",
  "/oauth/revoke"]

const formRequests: fc.Arbitrary<Fuzzed> = fc.record({
  path: fc.constantFrom(...formRoutes),
  body: fc.oneof(formBodies.map((b) => ({ body: b as string | Uint8Array, type: "application/x-www-form-urlencoded" })), multipartBodies),
  cookie: fc.constantFrom(undefined, "canopy_csrf=x", "canopy_session=ses_x; canopy_csrf=x", "canopy_csrf=%", `canopy_csrf=${"c".repeat(3_000)}`)
}).map(({ body, cookie, path }) => ({
  method: "POST",
  path,
  body: body.body,
  api: false,
  headers: { "content-type": body.type, ...(cookie ? { cookie } : {}) }
}))

// ---------------------------------------------------------------------------------------------

const operations = () => {
  const out: Array<{ method: string; path: string; op: any }> = []
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) if (op && typeof op === "object" && op.responses) out.push({ method, path, op })
  }
  return out
}

describe("fuzzing from the OpenAPI document", () => {
  it("covers every operation of the document", () => {
    assert.isAtLeast(operations().length, 30)
  })

  it("every operation, valid-ish and hostile requests: no 500, no cut connection, the spec's error body on every 4xx", async () => {
    const requests = operations().flatMap(({ method, op, path }, i) =>
      fc.sample(forOperation(method, path, op), { seed: SEED + i, numRuns: RUNS_PER_OPERATION })
    )
    const problems = await sendAll(requests)
    assert.deepStrictEqual(problems, [])
  }, 120_000)

  it("every JSON body route, at the extremes: 50,000 levels of objects and arrays, 20,000 fields, a megabyte string, huge numbers", async () => {
    const extremes = (fields: ReadonlyArray<string>) => {
      const f = fields[0] ?? "name"
      return [nestedObjectText(f, 50_000), nestedArrayText(f, 50_000), manyFieldsText(20_000), JSON.stringify({ [f]: "\uD800".repeat(1_000_000) }),
        `{${JSON.stringify(f)}:1e400}`, nestedObjectText("metadata", 50_000), nestedObjectText("geometry", 50_000), `${"[".repeat(1_000_000)}`]
    }
    const requests: Array<Fuzzed> = []
    for (const { method, op, path } of operations()) {
      const schema = op.requestBody?.content?.["application/json"]?.schema
      if (!schema || "multipart/form-data" in op.requestBody.content) continue
      const target = path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? "x")
      for (const body of extremes(Object.keys(resolve(schema).properties ?? {}))) {
        requests.push({ method: method.toUpperCase(), path: target, body, api: true,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } })
      }
    }
    assert.isAtLeast(requests.length, 8 * 8)
    assert.deepStrictEqual(await sendAll(requests), [])
  }, 120_000)

  it("the import routes: part counts up to 60,000, many fields, no file or two, broken framing", async () => {
    const requests = fc.sample(multipartBodies, { seed: SEED, numRuns: 60 }).flatMap((b, i) => [
      { method: "POST", path: "/v1/projects/import?name=Fuzzed", body: b.body, api: true,
        headers: { authorization: `Bearer ${token}`, "content-type": b.type, "idempotency-key": `fuzz-import-${i}` } },
      { method: "PUT", path: `/v1/projects/${ids.project_id}/boundary`, body: b.body, api: true,
        headers: { authorization: `Bearer ${token}`, "content-type": b.type } }
    ])
    assert.deepStrictEqual(await sendAll(requests), [])
  }, 120_000)

  it("the forms (dashboard, sign-in, invitation, OAuth): field and part counts by the thousand, with and without cookies", async () => {
    const requests = fc.sample(formRequests, { seed: SEED, numRuns: 200 })
    assert.deepStrictEqual(await sendAll(requests), [])
  }, 120_000)

  it("oversize bodies on every kind of route are answered 413 (never a cut connection)", async () => {
    const big = new Uint8Array(MAX_BODY_BYTES + 1).fill(0x20)
    const requests: Array<Fuzzed> = [
      { method: "POST", path: "/v1/projects", body: big, api: true, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } },
      { method: "POST", path: "/v1/projects/import", body: big, api: true,
        headers: { authorization: `Bearer ${token}`, "content-type": "multipart/form-data; boundary=x" } },
      { method: "POST", path: "/dashboard/sign-in", body: big, api: false, headers: { "content-type": "application/x-www-form-urlencoded" } },
      { method: "POST", path: "/oauth/token", body: big, api: false, headers: { "content-type": "application/x-www-form-urlencoded" } }
    ]
    assert.deepStrictEqual(await sendAll(requests), [])
  }, 60_000)
})
