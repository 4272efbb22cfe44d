/**
 * Over a real socket: GIS files uploaded as a multipart form
 * (one file part named `file`), and the list export streamed page by page with a byte cap —
 * the file says at its end whether it holds the whole list and where to resume, a client that
 * goes away stops the walk, and a storage failure mid-way cuts the response.
 */
import { Geometry, Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { request as httpRequest, type IncomingMessage } from "node:http"
import { EXPORT_MAX_BYTES_ENV, EXPORT_PAGE_SIZE, exportActivity } from "../src/api/gis.ts"
import { hectares, HOLED, kml, NORTH, shapefileZip, SOUTH, square, squareWithHole, toUtm32n, UTM32N_PRJ, utf8 } from "./gis/fixtures.ts"
import { isErrorBody, request, startTestServer, type TestServer } from "@canopy/server/testing"

let server: TestServer
let token: string

beforeAll(async () => {
  server = await startTestServer()
  ;({ token } = await server.newAccount("enterprise"))
}, 60_000)

afterAll(async () => {
  delete process.env[EXPORT_MAX_BYTES_ENV]
  await server?.stop()
})

const KML_TYPE = "application/vnd.google-earth.kml+xml"

/** A form's bytes and its Content-Type (with its boundary), as fetch would send it. */
const encodeForm = async (form: FormData) => {
  const r = new Response(form)
  return { bytes: new Uint8Array(await r.arrayBuffer()), contentType: r.headers.get("content-type")! }
}

const postForm = async (method: "POST" | "PUT", path: string, form: FormData, as = token, headers: Record<string, string> = {}) => {
  const { bytes, contentType } = await encodeForm(form)
  return request(server.url, method, path, { token: as, body: bytes, headers: { "content-type": contentType, ...headers } })
}

const fileForm = (parts: ReadonlyArray<readonly [string, Blob | string, string?]>) => {
  const form = new FormData()
  for (const [name, value, filename] of parts) {
    if (typeof value === "string") form.append(name, value)
    else form.append(name, value, filename)
  }
  return form
}

const kmlBlob = (polygon = NORTH, type = KML_TYPE) => new Blob([kml([{ name: "Block", polygon }])], { type })

const areaOf = (geometry: unknown) => Geometry.areaHectares(geometry as Geometry.Boundary)

const count = async (as = token) => (await request(server.url, "GET", "/v1/projects", { token: as })).body.meta.total as number

describe("multipart/form-data uploads", () => {
  it("POST /v1/projects/import takes a form with a file part and a name field", async () => {
    const r = await postForm("POST", "/v1/projects/import", fileForm([["name", "Form stand"], ["description", "ignored"], ["file", kmlBlob(), "stand.kml"]]))
    assert.strictEqual(r.status, 201, r.text)
    assert.strictEqual(r.body.data.name, "Form stand")
    assert.isNull(r.body.data.description) // other fields of the form are ignored
    assert.closeTo(areaOf(r.body.data.geometry), hectares(NORTH), 1e-9)

    // ?name= wins over the form's field; the query's other fields apply
    const q = await postForm("POST", "/v1/projects/import?name=From%20query&status=draft",
      fileForm([["name", "From form"], ["file", kmlBlob(SOUTH), "south.kml"]]))
    assert.strictEqual(q.status, 201, q.text)
    assert.strictEqual(q.body.data.name, "From query")
    assert.strictEqual(q.body.data.status, "draft")
    assert.closeTo(areaOf(q.body.data.geometry), hectares(SOUTH), 1e-9)
  })

  it("the part's file name and media type are the hints: a zipped Shapefile sent as application/octet-stream is read by its content", async () => {
    const zip = await shapefileZip([{ name: "Holed", polygon: toUtm32n(HOLED) }], { prj: UTM32N_PRJ })
    const r = await postForm("POST", "/v1/projects/import?name=Zipped",
      fileForm([["file", new Blob([new Uint8Array(zip)], { type: "application/octet-stream" }), "stand.zip"]]))
    assert.strictEqual(r.status, 201, r.text)
    assert.closeTo(areaOf(r.body.data.geometry), hectares(HOLED), 1e-6)

    // a file name of another family than the content is a problem, as a raw upload's media type is
    const before = await count()
    const named = await postForm("POST", "/v1/projects/import?name=Mislabelled", fileForm([["file", new Blob([new Uint8Array(zip)]), "stand.kml"]]))
    assert.strictEqual(named.status, 422, named.text)
    assert.isTrue(isErrorBody(named, "VALIDATION_ERROR"))
    assert.strictEqual(named.body.error.details[0].field, "file")
    assert.include(named.body.error.details[0].message, "stand.kml")
    const typed = await postForm("POST", "/v1/projects/import?name=Mislabelled",
      fileForm([["file", new Blob([new Uint8Array(zip)], { type: KML_TYPE }), "stand"]]))
    assert.strictEqual(typed.status, 422, typed.text)
    assert.include(typed.body.error.details[0].message, KML_TYPE)
    assert.strictEqual(await count(), before)
  })

  it("a large file part (a 60,000-position boundary, ~2.5 MB of GeoJSON) comes through whole", async () => {
    const boundary = circle(20, 50, 0.01, 60_000)
    const text = JSON.stringify({ type: "Feature", properties: { name: "Big" }, geometry: boundary })
    assert.isAbove(text.length, 2_000_000)
    const r = await postForm("POST", "/v1/projects/import", fileForm([["name", "Big by form"], ["file", new Blob([text]), "big.geojson"]]))
    assert.strictEqual(r.status, 201, r.text.slice(0, 500))
    assert.strictEqual(r.body.data.geometry.coordinates[0].length, 60_001)
    assert.closeTo(areaOf(r.body.data.geometry), areaOf(boundary), 1e-9)
  })

  it("PUT /v1/projects/{id}/boundary takes a form too (a name field is ignored)", async () => {
    const created = await postForm("POST", "/v1/projects/import?name=Replace%20by%20form", fileForm([["file", kmlBlob(), "a.kml"]]))
    const id = created.body.data.id as string
    const holed = squareWithHole(8.6, 48.6, 0.02) // apart from the other tests' boundaries
    const r = await postForm("PUT", `/v1/projects/${id}/boundary`, fileForm([["name", "Not a rename"], ["file", kmlBlob(holed), "holed.kml"]]))
    assert.strictEqual(r.status, 200, r.text + JSON.stringify(server.logs.at(-1)))
    assert.strictEqual(r.body.data.name, "Replace by form")
    assert.closeTo(areaOf(r.body.data.geometry), hectares(holed), 1e-9)
  })

  it("a form with two file parts, none, a misnamed one, no name, or a cut body answers 400 with the field; nothing is stored", async () => {
    const before = await count()
    const expect400 = (r: Awaited<ReturnType<typeof request>>, field: string) => {
      assert.strictEqual(r.status, 400, r.text)
      assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"), r.text)
      assert.strictEqual(r.body.error.details[0].field, field, r.text)
    }
    expect400(await postForm("POST", "/v1/projects/import?name=Two", fileForm([["file", kmlBlob(), "a.kml"], ["file", kmlBlob(SOUTH), "b.kml"]])), "file")
    expect400(await postForm("POST", "/v1/projects/import?name=Two", fileForm([["file", kmlBlob(), "a.kml"], ["other", kmlBlob(SOUTH), "b.kml"]])), "file")
    expect400(await postForm("POST", "/v1/projects/import?name=None", fileForm([["name", "x"]])), "file")
    const textField = await postForm("POST", "/v1/projects/import?name=Text", fileForm([["file", kml([{ name: "B", polygon: NORTH }])]]))
    expect400(textField, "file")
    assert.include(textField.body.error.details[0].message, "file part")
    const misnamed = await postForm("POST", "/v1/projects/import?name=Misnamed", fileForm([["upload", kmlBlob(), "a.kml"]]))
    expect400(misnamed, "file")
    assert.include(misnamed.body.error.details[0].message, "\"upload\"")
    const noName = await postForm("POST", "/v1/projects/import", fileForm([["file", kmlBlob(), "a.kml"]]))
    expect400(noName, "query.name")

    // a body cut before its closing boundary, and one that is no multipart body at all
    const { bytes, contentType } = await encodeForm(fileForm([["file", kmlBlob(), "a.kml"]]))
    const cut = await request(server.url, "POST", "/v1/projects/import?name=Cut", { token, body: bytes.slice(0, bytes.length - 10),
      headers: { "content-type": contentType } })
    expect400(cut, "body")
    const garbage = await request(server.url, "POST", "/v1/projects/import?name=Garbage", { token, body: utf8("--x\r\nno headers here"),
      headers: { "content-type": "multipart/form-data; boundary=x" } })
    expect400(garbage, "body")
    const noBoundary = await request(server.url, "POST", "/v1/projects/import?name=NoBoundary", { token, body: bytes,
      headers: { "content-type": "multipart/form-data" } })
    expect400(noBoundary, "content-type")
    // a media type that is neither a format nor a form still names both in its answer
    const wrong = await request(server.url, "POST", "/v1/projects/import?name=Wrong", { token, body: bytes, headers: { "content-type": "text/plain" } })
    expect400(wrong, "content-type")
    assert.include(wrong.body.error.details[0].message, "multipart/form-data")

    assert.strictEqual(await count(), before)
  })

  it("Idempotency-Key: the same form bytes again replay the first answer", async () => {
    const { bytes, contentType } = await encodeForm(fileForm([["name", "Once by form"], ["file", kmlBlob(), "a.kml"]]))
    const send = () =>
      request(server.url, "POST", "/v1/projects/import", { token, body: bytes, headers: { "content-type": contentType, "idempotency-key": "gis-form-1" } })
    const first = await send()
    const second = await send()
    assert.strictEqual(first.status, 201, first.text)
    assert.strictEqual(second.status, 201, second.text)
    assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
    assert.strictEqual(second.body.data.id, first.body.data.id)
  })
})

/** Creates `n` projects with distinct, non-overlapping boundaries in a new account; answers its token and the projects by id. */
const seed = async (n: number, boundary: (i: number) => object) => {
  const { accountId, token: own } = await server.newAccount("enterprise")
  const byId = new Map<string, { name: string; area_hectares: number; geometry: unknown }>()
  for (let i = 0; i < n; i++) {
    const p = await server.canopy.projects.create(Principal.system(accountId),
      { name: `Stand ${String(i).padStart(4, "0")}`, geometry: boundary(i) } as never) as { id: string; name: string; area_hectares: number; geometry: unknown }
    byId.set(p.id, p)
  }
  return { token: own, byId, accountId }
}

/** A regular polygon of `n` vertices (a many-position boundary). */
const circle = (lon: number, lat: number, r: number, n: number) => {
  const ring: Array<[number, number]> = []
  for (let k = 0; k < n; k++) {
    const a = (2 * Math.PI * k) / n
    ring.push([lon + r * Math.cos(a), lat + r * Math.sin(a)])
  }
  ring.push(ring[0]!)
  return { type: "Polygon", coordinates: [ring] }
}

type Feature = { id: string; geometry: unknown; properties: { name: string; area_hectares: number } }

describe("GET /v1/projects/export, streamed", () => {
  const N = 2 * EXPORT_PAGE_SIZE + 37
  let list: Awaited<ReturnType<typeof seed>>
  beforeAll(async () => {
    list = await seed(N, (i) => square(5 + (i % 50) * 0.02, 40 + Math.floor(i / 50) * 0.02, 0.005 + (i % 7) * 0.001))
  }, 120_000)

  it(`${N} projects (3 pages) stream as one FeatureCollection and one KML document, every area right`, async () => {
    const before = exportActivity().pagesRead
    const r = await request(server.url, "GET", "/v1/projects/export?sort=name", { token: list.token })
    assert.strictEqual(r.status, 200, r.text.slice(0, 300))
    assert.isNull(r.headers.get("content-length"))
    assert.strictEqual(r.headers.get("transfer-encoding"), "chunked")
    assert.strictEqual(r.headers.get("x-total-count"), String(N))
    assert.strictEqual(exportActivity().pagesRead - before, 3)
    assert.strictEqual(r.body.type, "FeatureCollection")
    assert.strictEqual(r.body.truncated, false)
    assert.isNull(r.body.next_cursor)
    const features = r.body.features as Array<Feature>
    assert.strictEqual(features.length, N)
    assert.strictEqual(new Set(features.map((f) => f.id)).size, N)
    assert.deepStrictEqual(features.map((f) => f.properties.name), [...list.byId.values()].map((p) => p.name).sort())
    for (const f of features) {
      const p = list.byId.get(f.id)!
      assert.strictEqual(f.properties.area_hectares, p.area_hectares)
      assert.closeTo(areaOf(f.geometry), areaOf(p.geometry), 1e-9)
    }

    const k = await request(server.url, "GET", "/v1/projects/export?format=kml", { token: list.token })
    assert.strictEqual(k.status, 200)
    assert.strictEqual((k.text.match(/<Placemark /g) ?? []).length, N)
    assert.match(k.text,
      /<Data name="truncated"><value>false<\/value><\/Data><Data name="next_cursor"><value><\/value><\/Data><\/ExtendedData><\/Document><\/kml>\n$/)

    // HEAD: the headers, no body, no walk
    const pages = exportActivity().pagesRead
    const head = await fetch(`${server.url}/v1/projects/export`, { method: "HEAD", headers: { authorization: `Bearer ${list.token}` } })
    assert.strictEqual(head.status, 200)
    assert.strictEqual(await head.text(), "")
    assert.strictEqual(exportActivity().pagesRead - pages, 1)
    assert.strictEqual(exportActivity().streamsOpen, 0)
  })

  it("the byte cap stops the file before the project that would pass it, says so at its end, and next_cursor resumes exactly there", async () => {
    const cap = 40_000
    process.env[EXPORT_MAX_BYTES_ENV] = String(cap)
    try {
      const seen: Array<string> = []
      let cursor: string | null = null
      let files = 0
      for (;;) {
        const r: Awaited<ReturnType<typeof request>> = await request(server.url, "GET",
          `/v1/projects/export?sort=area_hectares&order=desc${cursor ? `&cursor=${cursor}` : ""}`, { token: list.token })
        assert.strictEqual(r.status, 200, r.text.slice(0, 300))
        files++
        assert.isAtMost(Buffer.byteLength(r.text), cap)
        assert.strictEqual(r.headers.get("x-total-count"), String(N))
        const features = r.body.features as Array<Feature>
        assert.isAbove(features.length, 0)
        seen.push(...features.map((f) => f.id))
        if (!r.body.truncated) {
          assert.isNull(r.body.next_cursor)
          break
        }
        assert.isString(r.body.next_cursor)
        // it stopped near the cap (a feature here is well under 2,000 bytes; 1,024 are kept for the tail)
        assert.isAbove(Buffer.byteLength(r.text), cap - 1024 - 2000)
        cursor = r.body.next_cursor
        assert.isBelow(files, 100)
      }
      assert.isAbove(files, 2)
      // every project exactly once, in the list's order
      assert.strictEqual(seen.length, N)
      assert.strictEqual(new Set(seen).size, N)
      const areas = seen.map((id) => list.byId.get(id)!.area_hectares)
      assert.deepStrictEqual(areas, [...areas].sort((a, b) => b - a))

      // the list's spatial filter too: every project whose bounding box meets the box, exactly once, over several files
      const box = [4.99, 39.99, 5.5, 40.1] as const
      const meets = (g: unknown) => {
        const ring = (g as { coordinates: Array<Array<[number, number]>> }).coordinates[0]!
        const xs = ring.map((q) => q[0]), ys = ring.map((q) => q[1])
        return Math.min(...xs) <= box[2] && Math.max(...xs) >= box[0] && Math.min(...ys) <= box[3] && Math.max(...ys) >= box[1]
      }
      const expected = [...list.byId].filter(([, p]) => meets(p.geometry)).map(([id]) => id).sort()
      assert.isAbove(expected.length, 100)
      const inBox: Array<string> = []
      let boxCursor: string | null = null
      let boxFiles = 0
      do {
        const r: Awaited<ReturnType<typeof request>> = await request(server.url, "GET",
          `/v1/projects/export?bbox=${box.join(",")}${boxCursor ? `&cursor=${boxCursor}` : ""}`, { token: list.token })
        assert.strictEqual(r.status, 200, r.text.slice(0, 300))
        assert.strictEqual(r.headers.get("x-total-count"), String(expected.length))
        inBox.push(...(r.body.features as Array<Feature>).map((f) => f.id))
        boxCursor = r.body.next_cursor
        boxFiles++
      } while (boxCursor)
      assert.isAbove(boxFiles, 1)
      assert.deepStrictEqual([...inBox].sort(), expected)

      // a cursor that is not one, or was made for another order, is refused before anything is
      // written, with the list's answer: a 400 on `query.cursor`
      for (const bad of ["not-a-cursor", cursor!]) {
        for (const path of ["/v1/projects/export", "/v1/projects"]) {
          const r = await request(server.url, "GET", `${path}?sort=name&cursor=${bad}`, { token: list.token })
          assert.strictEqual(r.status, 400, `${path}: ${r.text}`)
          assert.isTrue(isErrorBody(r, "VALIDATION_ERROR"), r.text)
          assert.strictEqual(r.body.error.details[0].field, "query.cursor", path)
        }
      }

      const k = await request(server.url, "GET", "/v1/projects/export?format=kml", { token: list.token })
      assert.isAtMost(Buffer.byteLength(k.text), cap)
      assert.isBelow((k.text.match(/<Placemark /g) ?? []).length, N)
      const next =
        /<Data name="truncated"><value>true<\/value><\/Data><Data name="next_cursor"><value>([A-Za-z0-9_-]+)<\/value><\/Data><\/ExtendedData><\/Document><\/kml>\n$/
          .exec(k.text)
      assert.isNotNull(next, k.text.slice(-300))
    } finally {
      delete process.env[EXPORT_MAX_BYTES_ENV]
    }
  })
})

/** A GET whose body is not read past its first chunk until asked: the server stalls on backpressure. */
const stalledGet = (url: string, as: string) =>
  new Promise<{ res: IncomingMessage; first: Buffer; destroy: () => void }>((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: `Bearer ${as}` } }, (res) => {
      res.once("data", (chunk: Buffer) => {
        res.pause()
        resolve({ res, first: chunk, destroy: () => req.destroy() })
      })
    })
    req.on("error", reject)
    req.end()
  })

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out")
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe("a long export and its client", () => {
  // 150 boundaries of 8,000 positions (~300 KB each): a first page of ~30 MB, far above what the
  // sockets buffer, so the server waits for the client inside the first page.
  const N = EXPORT_PAGE_SIZE + 50
  let big: Awaited<ReturnType<typeof seed>>
  beforeAll(async () => {
    big = await seed(N, (i) => circle(-60 + (i % 30) * 0.01, -10 + Math.floor(i / 30) * 0.01, 0.003, 8_000))
  }, 180_000)

  it("a client that goes away stops the walk: no page is read after it left", async () => {
    const before = exportActivity()
    const { destroy, first, res } = await stalledGet(`${server.url}/v1/projects/export`, big.token)
    assert.strictEqual(res.statusCode, 200)
    assert.strictEqual(res.headers["x-total-count"], String(N))
    assert.match(first.toString("utf8"), /^\{"type":"FeatureCollection","features":\[/)
    await new Promise((r) => setTimeout(r, 500))
    // the server is held inside the first page: one storage call, one open stream
    assert.strictEqual(exportActivity().pagesRead - before.pagesRead, 1)
    assert.strictEqual(exportActivity().streamsOpen, before.streamsOpen + 1)
    destroy()
    await until(() => exportActivity().streamsOpen === before.streamsOpen)
    await new Promise((r) => setTimeout(r, 200))
    assert.strictEqual(exportActivity().pagesRead - before.pagesRead, 1) // of 2 pages
  })

  it("a storage failure after the headers cuts the response: no complete file", async () => {
    const { first, res } = await stalledGet(`${server.url}/v1/projects/export`, big.token)
    assert.strictEqual(res.statusCode, 200)
    // the database loses the table while the first page is being written: the second page fails
    const db = new Database(server.db)
    try {
      db.exec("ALTER TABLE projects RENAME TO projects_gone")
    } finally {
      db.close()
    }
    const outcome = await new Promise<{ error?: Error; text: string }>((resolve) => {
      const chunks: Array<Buffer> = [first]
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("error", (error) => resolve({ error, text: Buffer.concat(chunks).toString("utf8") }))
      res.on("end", () => resolve({ text: Buffer.concat(chunks).toString("utf8") }))
      res.resume()
    })
    assert.isDefined(outcome.error, "the response ended as if complete")
    assert.throws(() => JSON.parse(outcome.text))
    assert.notInclude(outcome.text.slice(-200), "\"truncated\"")
    // what came is the first page's features, cut: more than one, fewer than all
    const features = outcome.text.split("{\"type\":\"Feature\"").length - 1
    assert.isAtLeast(features, EXPORT_PAGE_SIZE)
    assert.isBelow(features, N)
    await until(() => exportActivity().streamsOpen === 0)
  })
})
