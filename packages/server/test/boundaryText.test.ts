/**
 * A boundary is stored and answered as the text it was sent as, whitespace removed, when it is a
 * plain Polygon or MultiPolygon that needs no ring turned round (`GeometryCheck.keepSource`); any
 * other is written by `JSON.stringify`. Over a real socket, on SQLite and on PostgreSQL: the
 * create's answer, a read and a list show the same text, and the numbers read back as sent.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

/** A square near 7° E 46° N, counter-clockwise, its numbers spelled with trailing zeros and an exponent. */
const spelled = `[[[7.0010, 46.0010], [7.0030, 46.0010], [7.0030, 46.0030], [7.0010, 46.0030], [7.0010, 4.6001e1]]]`
const compact = spelled.replace(/\s+/g, "")

for (const [store, open] of serverOnEachStore) {
  describe(`a boundary's text (${store})`, () => {
    let server: StoreServer
    let send: (method: string, path: string, body?: string) => Promise<{ status: number; text: string }>
    beforeAll(async () => {
      server = await open()
      const b = await server.running.canopy.bootstrap({ account_name: "Text", email: "text@example.com", plan: "enterprise" })
      send = async (method, path, body) => {
        const r = await fetch(`${server.running.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${b.api_key.token}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body })
        })
        return { status: r.status, text: await r.text() }
      }
    })
    afterAll(() => server.close())

    it("keeps a plain boundary's spelling, without its whitespace, in every answer", async () => {
      const created = await send("POST", "/v1/projects", `{ "name": "Spelled",\n "geometry": {\n  "type": "Polygon",\n  "coordinates": ${spelled}\n } }`)
      assert.strictEqual(created.status, 201, created.text)
      const text = `"geometry":{"type":"Polygon","coordinates":${compact}}`
      assert.include(created.text, text)
      const id = JSON.parse(created.text).data.id as string
      const read = await send("GET", `/v1/projects/${id}`)
      assert.include(read.text, text)
      const listed = await send("GET", "/v1/projects?search=spelled")
      assert.include(listed.text, text)
      // The numbers read back as the doubles sent; the area is the one of those numbers.
      const data = JSON.parse(read.text).data
      assert.deepStrictEqual(data.geometry.coordinates[0][4], [7.001, 46.001])
      assert.deepStrictEqual(data.bbox, [7.001, 46.001, 7.003, 46.003])
    })

    it("writes a boundary again when its ring was turned round, or it has a member of its own", async () => {
      const clockwise = `[[[7.0110, 46.0010], [7.0110, 46.0030], [7.0130, 46.0030], [7.0130, 46.0010], [7.0110, 46.0010]]]`
      const turned = await send("POST", "/v1/projects", `{"name":"Turned","geometry":{"type":"Polygon","coordinates":${clockwise}}}`)
      assert.strictEqual(turned.status, 201, turned.text)
      const written = JSON.stringify({ type: "Polygon", coordinates: [[[7.011, 46.001], [7.013, 46.001], [7.013, 46.003], [7.011, 46.003], [7.011, 46.001]]] })
      assert.include(turned.text, `"geometry":${written}`)

      const own = `{"type":"Polygon","coordinates":[[[7.0210,46.0010],[7.0230,46.0010],[7.0230,46.0030],[7.0210,46.0030],[7.0210,46.0010]]],"source":"survey"}`
      const member = await send("POST", "/v1/projects", `{"name":"Member","geometry":${own}}`)
      assert.strictEqual(member.status, 201, member.text)
      assert.include(member.text, `"geometry":${JSON.stringify(JSON.parse(own))}`)
    })

    it("changes nothing stored when the boundary is refused", async () => {
      const before = JSON.parse((await send("GET", "/v1/projects")).text).meta.total as number
      const crossing = `[[[7.1, 46.1], [7.2, 46.2], [7.2, 46.1], [7.1, 46.2], [7.1, 46.1]]]`
      const refused = await send("POST", "/v1/projects", `{"name":"Bow tie","geometry":{"type":"Polygon","coordinates":${crossing}}}`)
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(JSON.parse(refused.text).error.details[0].field.startsWith("geometry"), true)
      assert.strictEqual(JSON.parse((await send("GET", "/v1/projects")).text).meta.total, before)
    })
  })
}
