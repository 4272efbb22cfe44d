/**
 * The OpenAPI document as served: it lints clean with Redocly's recommended
 * rules, openapi-typescript turns it into types, and the real answers of every operation of the
 * route table, a success and errors, over a real socket, match the document's response schemas
 * and headers (Ajv, JSON Schema 2020-12).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Ajv2020 } from "ajv/dist/2020.js"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import openapiTS, { astToString } from "openapi-typescript"
import { routes } from "../src/api/routes.ts"
import { BOWTIE, kml, NORTH, shapefileZip, square as squareAt, utf8 } from "./gis/fixtures.ts"
import { type Reply, request, square, type TestServer, type startReceiver } from "@canopy/server/testing"
import { useOpenApiFixture } from "./openapiFixture.ts"

const run = promisify(execFile)
const redocly = join(import.meta.dirname, "../../../node_modules/.bin/redocly")

let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
let doc: any
let ajv: Ajv2020

useOpenApiFixture((f) => ({ server, receiver, doc, ajv } = f))

const pointer = (...parts: Array<string>) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")

/** A `$ref` inside the document, followed. */
const deref = (node: any): any => {
  if (!node?.$ref) return node
  return deref((node.$ref as string).slice(2).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).reduce((n: any, k) => n?.[k], doc))
}

/** What was checked: `METHOD template` → statuses seen. */
const seen = new Map<string, Set<number>>()

/**
 * Sends a request to an operation (`template` as in the route table, `path` filled in) and
 * checks its answer against the document: the status is documented, the body matches that
 * response's schema, and the documented headers are there.
 */
const call = async (
  method: string,
  template: string,
  path: string,
  opts: { token?: string; json?: unknown; body?: Uint8Array; headers?: Record<string, string> } = {},
  expected?: number
): Promise<Reply> => {
  const r = await request(server.url, method, path, opts)
  if (expected !== undefined) assert.strictEqual(r.status, expected, `${method} ${path}: ${r.text}`)
  const operation = doc.paths[`/v1${template}`]?.[method.toLowerCase()]
  assert.isDefined(operation, `${method} /v1${template} is in the document`)
  const ref = operation.responses[String(r.status)]
  assert.isDefined(ref, `${method} ${template} documents status ${r.status} (${r.text.slice(0, 200)})`)
  const response = deref(ref)
  for (const name of Object.keys(response.headers ?? {})) {
    // Rate-limit headers are absent when the request was refused before it was metered (401).
    if (name.startsWith("X-RateLimit") && (r.status === 401 || r.status === 400 && !opts.token)) continue
    if (name === "WWW-Authenticate") continue
    assert.isNotNull(r.headers.get(name), `${method} ${template} ${r.status} carries ${name}`)
  }
  const content = response.content?.["application/json"]
  // A file answer (the GIS exports): its media type is documented; GeoJSON is checked against its schema.
  const fileType = !content && Object.keys(response.content ?? {}).find((t) => (r.headers.get("content-type") ?? "").startsWith(t))
  if (fileType) {
    if (fileType === "application/geo+json") {
      const key = `#/paths/${pointer(`/v1${template}`, method.toLowerCase())}/responses/${r.status}`
      const validate = ajv.compile({ $ref: `openapi${key}/content/application~1geo+json/schema` })
      assert.isTrue(validate(r.body), `${method} ${template} ${r.status}: ${ajv.errorsText(validate.errors)}\n${r.text.slice(0, 500)}`)
    } else if (fileType === "application/vnd.mapbox-vector-tile") assert.isString(r.headers.get("etag"))
    else assert.match(r.text, /^<\?xml/)
  } else if (content) {
    assert.match(r.headers.get("content-type") ?? "", /^application\/json/)
    const key = `#/paths/${pointer(`/v1${template}`, method.toLowerCase())}/responses/${r.status}`
    const schemaRef = ref.$ref ? `openapi${ref.$ref}/content/application~1json/schema` : `openapi${key}/content/application~1json/schema`
    const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef })
    assert.isTrue(validate(r.body), `${method} ${template} ${r.status}: ${ajv.errorsText(validate.errors)}\n${r.text.slice(0, 500)}`)
  } else {
    assert.strictEqual(r.text, "", `${method} ${template} ${r.status} has no body`)
  }
  const k = `${method} ${template}`
  seen.set(k, (seen.get(k) ?? new Set()).add(r.status))
  return r
}

describe("the OpenAPI document", () => {
  it("lints clean with Redocly's recommended rules (0 errors, 0 warnings)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-openapi-"))
    try {
      const file = join(dir, "openapi.json")
      writeFileSync(file, JSON.stringify(doc))
      const out = await run(redocly, ["lint", "--extends=recommended", "--format=json", file], { timeout: 60_000 }).catch((e) => e)
      const report = JSON.parse(out.stdout)
      assert.deepStrictEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 }, JSON.stringify(report.problems?.slice(0, 5), null, 2))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 90_000)

  it("is precise: named schemas, GeoJSON, finite numbers, integer bounds, open metadata, security, webhooks", async () => {
    const text = JSON.stringify(doc)
    assert.notInclude(text, "NaN")
    assert.notInclude(text, "Infinity")
    const schemas = doc.components.schemas
    for (const name of ["Project", "Asset", "Member", "InvitedMember", "Account", "UsageStatistics", "Webhook", "DeliveryLog", "Event", "Verification", "Me",
      "Error", "GeoJsonPolygon", "GeoJsonMultiPolygon", "GeoJsonPoint"]) {
      assert.isDefined(schemas[name], name)
    }
    assert.deepStrictEqual(schemas.Project.properties.area_hectares.type, "number")
    assert.include(JSON.stringify(schemas.Project.properties.geometry), "#/components/schemas/GeoJsonPolygon")
    assert.include(JSON.stringify(schemas.Asset.properties.location), "#/components/schemas/GeoJsonPoint")
    assert.strictEqual(schemas.Asset.properties.metadata.additionalProperties, true)
    const list = doc.paths["/v1/projects"].get
    const perPage = list.parameters.find((p: any) => p.name === "per_page")
    assert.deepStrictEqual(perPage.schema, { type: "integer", minimum: 1, maximum: 100 })
    assert.strictEqual(list.responses["200"].content["application/json"].schema.properties.data.items.$ref, "#/components/schemas/Project")
    assert.strictEqual(doc.components.securitySchemes.bearer.scheme, "bearer")
    const code = doc.components.securitySchemes.oauth2.flows.authorizationCode
    assert.strictEqual(code.authorizationUrl, "/oauth/authorize")
    assert.strictEqual(code.tokenUrl, "/oauth/token")
    assert.includeMembers(Object.keys(code.scopes), ["profile", "projects:read", "offline_access"])
    assert.includeMembers(Object.keys(doc.webhooks), ["project.created", "member.joined", "webhook.test"])
    assert.include(doc.webhooks["project.created"].post.description, "X-Service-Signature")
    assert.isDefined(deref(list.responses["429"]).headers["Retry-After"])
    // The validator used below does reject what the document excludes.
    const project = ajv.compile({ $ref: "openapi#/components/schemas/Project" })
    const example = schemas.Project.examples[0]
    assert.isTrue(project(example), ajv.errorsText(project.errors))
    assert.isFalse(project({ ...example, area_hectares: "NaN" }))
    assert.isFalse(project({ ...example, geometry: { type: "Point", coordinates: [1, 2] } }))
  })

  it("turns into TypeScript types with openapi-typescript", async () => {
    const ast = await openapiTS(doc)
    const ts = astToString(ast)
    assert.include(ts, "Project: {")
    assert.include(ts, "area_hectares: number;")
    assert.notInclude(ts, "\"NaN\"")
    assert.match(ts, /metadata: \{\s*\[key: string\]: unknown;\s*\}/)
  })

  it("describes the real answers of every operation, successes and errors, over a real socket", async () => {
    const { token } = await server.newAccount("enterprise")
    const auth = { token }
    const missing = "nope_0000000000"

    // Every operation refuses a request without a credential with the documented 401.
    for (const r of routes) {
      const path = r.path.replace(/\{\w+\}/g, missing)
      await call(r.method, r.path, `/v1${path}`, {}, 401)
    }

    // Projects
    const created = await call("POST", "/projects", "/v1/projects", { ...auth, json: { name: "Redwood", geometry: square(10, 0.01), description: "d" } }, 201)
    const id = created.body.data.id as string
    await call("POST", "/projects", "/v1/projects", { ...auth, json: { name: "" } }, 422)
    await call("POST", "/projects", "/v1/projects", { ...auth, json: { name: "Redwood", slug: created.body.data.slug } }, 409)
    await call("GET", "/projects", "/v1/projects?per_page=5&sort=name", auth, 200)
    await call("GET", "/projects", "/v1/projects?page=0", auth, 400)
    await call("GET", "/projects/{project_id}", `/v1/projects/${id}`, auth, 200)
    await call("GET", "/projects/{project_id}", `/v1/projects/${missing}`, auth, 404)
    await call("GET", "/projects/{project_id}/overlaps", `/v1/projects/${id}/overlaps?per_page=5`, auth, 200)
    await call("GET", "/projects/{project_id}/overlaps", `/v1/projects/${id}/overlaps?cursor=nope`, auth, 400)
    await call("GET", "/projects/{project_id}/boundaries", `/v1/projects/${id}/boundaries?per_page=5`, auth, 200)
    await call("GET", "/projects/{project_id}/boundaries", `/v1/projects/${id}/boundaries?cursor=nope`, auth, 400)
    await call("GET", "/projects/{project_id}/boundaries/{version}", `/v1/projects/${id}/boundaries/1`, auth, 200)
    await call("GET", "/projects/{project_id}/boundaries/{version}", `/v1/projects/${id}/boundaries/99`, auth, 404)
    await call("GET", "/projects/{project_id}/boundaries/{version}/export", `/v1/projects/${id}/boundaries/1/export?format=kml`, auth, 200)
    await call("GET", "/projects/{project_id}/boundaries/{version}/export", `/v1/projects/${id}/boundaries/99/export`, auth, 404)
    await call("POST", "/projects/{project_id}/boundaries/{version}/restore", `/v1/projects/${id}/boundaries/1/restore`, auth, 200)
    await call("POST", "/projects/{project_id}/boundaries/{version}/restore", `/v1/projects/${missing}/boundaries/1/restore`, auth, 404)
    await call("PUT", "/projects/{project_id}", `/v1/projects/${id}`, { ...auth, json: { name: "Redwood Creek" } }, 200)
    await call("PUT", "/projects/{project_id}", `/v1/projects/${id}`, { ...auth, json: { geometry: { type: "Polygon", coordinates: [] } } }, 422)

    // GIS files in and out (api/gis.ts)
    const kmlFile = { ...auth, body: utf8(kml([{ name: "North", polygon: NORTH }])), headers: { "content-type": "application/vnd.google-earth.kml+xml" } }
    const imported = await call("POST", "/projects/import", "/v1/projects/import?name=Imported", kmlFile, 201)
    await call("POST", "/projects/import", "/v1/projects/import?name=Bowtie", { ...auth, body: utf8(JSON.stringify(BOWTIE)),
      headers: { "content-type": "application/geo+json" } }, 422)
    await call("POST", "/projects/import", "/v1/projects/import", kmlFile, 400)
    const shp = { ...auth, body: await shapefileZip([{ name: "North", polygon: NORTH }]), headers: { "content-type": "application/zip" } }
    await call("PUT", "/projects/{project_id}/boundary", `/v1/projects/${imported.body.data.id}/boundary`, shp, 200)
    await call("PUT", "/projects/{project_id}/boundary", `/v1/projects/${missing}/boundary`, shp, 404)
    await call("GET", "/projects/{project_id}/export", `/v1/projects/${id}/export`, auth, 200)
    await call("GET", "/projects/{project_id}/export", `/v1/projects/${id}/export?format=kml`, auth, 200)
    await call("GET", "/projects/{project_id}/export", `/v1/projects/${missing}/export`, auth, 404)
    await call("GET", "/projects/export", "/v1/projects/export?status=active", auth, 200)
    await call("GET", "/projects/export", "/v1/projects/export?format=kml", auth, 200)
    await call("GET", "/projects/export", "/v1/projects/export?format=shp", auth, 400)
    const tile = await call("GET", "/tiles/{z}/{x}/{y}.mvt", "/v1/tiles/0/0/0.mvt", auth, 200)
    await call("GET", "/tiles/{z}/{x}/{y}.mvt", "/v1/tiles/0/0/0.mvt", { ...auth, headers: { "if-none-match": tile.headers.get("etag")! } }, 304)
    await call("GET", "/tiles/{z}/{x}/{y}.mvt", "/v1/tiles/23/0/0.mvt", auth, 400)

    // Bulk imports (api/imports.ts): a preview, a job cancelled while it runs, the errors.
    const stands = await shapefileZip(
      Array.from({ length: 300 }, (_, i) => ({ name: `Stand ${i}`, polygon: squareAt(20 + (i % 20) * 0.01, 10 + Math.floor(i / 20) * 0.01, 0.005) }))
    )
    const standsFile = { ...auth, body: stands, headers: { "content-type": "application/zip" } }
    const preview = await call("POST", "/imports", "/v1/imports?dry_run=true", standsFile, 202)
    const job = await call("POST", "/imports", "/v1/imports", standsFile, 202)
    await call("POST", "/imports", "/v1/imports", standsFile, 429)
    await call("POST", "/imports/{import_id}/cancel", `/v1/imports/${job.body.data.id}/cancel`, auth, 200)
    await call("POST", "/imports/{import_id}/cancel", `/v1/imports/${preview.body.data.id}/cancel`, auth, 409)
    await call("POST", "/imports", "/v1/imports?mode=everything", standsFile, 400)
    await call("POST", "/imports", "/v1/imports", { ...auth, body: utf8("{}"), headers: { "content-type": "application/geo+json" } }, 422)
    await call("GET", "/imports/{import_id}", `/v1/imports/${job.body.data.id}?results_per_page=5`, auth, 200)
    await call("GET", "/imports/{import_id}", `/v1/imports/${missing}`, auth, 404)

    // Assets
    const base = `/v1/projects/${id}/assets`
    const asset = await call("POST", "/projects/{project_id}/assets", base, {
      ...auth,
      json: { name: "Station 1", type: "monitoring_station", location: { type: "Point", coordinates: [10.005, 0.005] },
        metadata: { serial: "WX-1", height_m: 2.5 } }
    }, 201)
    const assetId = asset.body.data.id as string
    await call("POST", "/projects/{project_id}/assets", base, { ...auth, json: { name: "x", type: "spaceship" } }, 422)
    await call("GET", "/projects/{project_id}/assets", base, auth, 200)
    await call("GET", "/projects/{project_id}/assets", `/v1/projects/${missing}/assets`, auth, 404)
    await call("GET", "/projects/{project_id}/assets/{asset_id}", `${base}/${assetId}`, auth, 200)
    await call("GET", "/projects/{project_id}/assets/{asset_id}", `${base}/${missing}`, auth, 404)
    await call("PUT", "/projects/{project_id}/assets/{asset_id}", `${base}/${assetId}`, { ...auth, json: { status: "maintenance" } }, 200)
    await call("PUT", "/projects/{project_id}/assets/{asset_id}", `${base}/${assetId}`, { ...auth, json: { status: "lost" } }, 422)
    await call("DELETE", "/projects/{project_id}/assets/{asset_id}", `${base}/${assetId}`, auth, 204)
    await call("DELETE", "/projects/{project_id}/assets/{asset_id}", `${base}/${assetId}`, auth, 404)

    // Project lifecycle
    await call("DELETE", "/projects/{project_id}", `/v1/projects/${id}`, auth, 409)
    await call("POST", "/projects/{project_id}/archive", `/v1/projects/${id}/archive`, auth, 200)
    await call("POST", "/projects/{project_id}/archive", `/v1/projects/${missing}/archive`, auth, 404)
    await call("POST", "/projects/{project_id}/restore", `/v1/projects/${id}/restore`, auth, 200)
    await call("POST", "/projects/{project_id}/restore", `/v1/projects/${missing}/restore`, auth, 404)
    await call("POST", "/projects/{project_id}/archive", `/v1/projects/${id}/archive`, auth, 200)
    await call("DELETE", "/projects/{project_id}", `/v1/projects/${id}`, auth, 204)

    // Members
    await call("GET", "/account/members", "/v1/account/members", auth, 200)
    const invited = await call("POST", "/account/members/invite", "/v1/account/members/invite", { ...auth, json: { email: "ivy@example.com", role: "viewer" } },
      201)
    assert.isString(invited.body.data.invitation.token)
    await call("POST", "/account/members/invite", "/v1/account/members/invite", { ...auth, json: { email: "not-an-email", role: "viewer" } }, 422)
    const memberId = invited.body.data.id as string
    await call("PUT", "/account/members/{member_id}", `/v1/account/members/${memberId}`, { ...auth, json: { role: "editor" } }, 200)
    await call("PUT", "/account/members/{member_id}", `/v1/account/members/${missing}`, { ...auth, json: { role: "editor" } }, 404)
    await call("DELETE", "/account/members/{member_id}", `/v1/account/members/${memberId}`, auth, 204)
    await call("DELETE", "/account/members/{member_id}", `/v1/account/members/${memberId}`, auth, 404)

    // Account
    await call("GET", "/account", "/v1/account", auth, 200)
    await call("PUT", "/account", "/v1/account", { ...auth, json: { name: "Redwood Trust" } }, 200)
    await call("PUT", "/account", "/v1/account", { ...auth, json: { name: " " } }, 422)
    await call("GET", "/account/usage", "/v1/account/usage", auth, 200)

    // Webhooks, a test delivery to a real receiver and its redelivery
    const hook = await call("POST", "/webhooks", "/v1/webhooks", { ...auth,
      json: { url: receiver.url("/openapi"), events: ["*"], secret: "a-secret-of-sixteen+" } }, 201)
    assert.isString(hook.body.data.secret)
    const hookId = hook.body.data.id as string
    await call("POST", "/webhooks", "/v1/webhooks", { ...auth, json: { url: "ftp://example.com", events: ["*"] } }, 422)
    await call("GET", "/webhooks", "/v1/webhooks", auth, 200)
    await call("GET", "/webhooks/{webhook_id}", `/v1/webhooks/${hookId}`, auth, 200)
    await call("GET", "/webhooks/{webhook_id}", `/v1/webhooks/${missing}`, auth, 404)
    await call("PUT", "/webhooks/{webhook_id}", `/v1/webhooks/${hookId}`, { ...auth, json: { description: "all events" } }, 200)
    await call("PUT", "/webhooks/{webhook_id}", `/v1/webhooks/${hookId}`, { ...auth, json: { events: [] } }, 422)
    const tested = await call("POST", "/webhooks/{webhook_id}/test", `/v1/webhooks/${hookId}/test`, auth, 200)
    await call("POST", "/webhooks/{webhook_id}/test", `/v1/webhooks/${missing}/test`, auth, 404)
    await call("GET", "/webhooks/{webhook_id}/logs", `/v1/webhooks/${hookId}/logs`, auth, 200)
    await call("GET", "/webhooks/{webhook_id}/logs", `/v1/webhooks/${hookId}/logs?status=maybe`, auth, 400)
    const logId = tested.body.data.id as string
    await call("POST", "/webhooks/{webhook_id}/logs/{log_id}/redeliver", `/v1/webhooks/${hookId}/logs/${logId}/redeliver`, auth, 200)
    await call("POST", "/webhooks/{webhook_id}/logs/{log_id}/redeliver", `/v1/webhooks/${hookId}/logs/${missing}/redeliver`, auth, 404)

    // Events, verification, the member behind the key
    const events = await call("GET", "/events", "/v1/events?per_page=50", auth, 200)
    assert.isAbove(events.body.data.length, 5)
    await call("GET", "/events", "/v1/events?created_after=yesterday", auth, 400)
    await call("GET", "/auth/verify", "/v1/auth/verify", auth, 200)
    await call("GET", "/me", "/v1/me", auth, 200)

    await call("DELETE", "/webhooks/{webhook_id}", `/v1/webhooks/${hookId}`, auth, 204)
    await call("DELETE", "/webhooks/{webhook_id}", `/v1/webhooks/${hookId}`, auth, 404)

    // A credential without the permission: the one message of the core.
    const limited = await server.canopy.credentials.create(
      await server.canopy.authenticate(token),
      "api_key",
      { name: "reader", permissions: ["projects:read"] }
    ) as { token: string }
    const refused = await call("GET", "/account/usage", "/v1/account/usage", { token: limited.token }, 403)
    assert.match(refused.body.error.message, /lacks the billing:read permission/)

    // Every operation of the table was seen answering a success and an error.
    const missingCoverage = routes.filter((r) => {
      const statuses = [...(seen.get(`${r.method} ${r.path}`) ?? [])]
      return !statuses.some((s) => s < 300) || !statuses.some((s) => s >= 400)
    }).map((r) => `${r.method} ${r.path}`)
    assert.deepStrictEqual(missingCoverage, [])
  }, 120_000)
})
