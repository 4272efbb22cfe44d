/**
 * What the OpenAPI tests share: a server that may deliver to a local webhook receiver, the
 * document it serves, and an Ajv (JSON Schema 2020-12, formats) holding that document as `openapi`.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import { afterAll, beforeAll } from "vitest"
import addFormats from "ajv-formats"
import { request, startTestServer, type TestServer, startReceiver } from "@canopy/server/testing"

/** The running pieces, and `stop`. */
export interface OpenApiFixture {
  readonly server: TestServer
  readonly receiver: Awaited<ReturnType<typeof startReceiver>>
  readonly doc: any
  readonly ajv: Ajv2020
  readonly stop: () => Promise<void>
}

/** Starts the receiver and the server, fetches the document and loads it into Ajv. */
const startOpenApiFixture = async (): Promise<OpenApiFixture> => {
  const receiver = await startReceiver()
  const server = await startTestServer({ allowInsecureWebhooks: true, deliveryTimeoutMs: 2_000 })
  const doc = (await request(server.url, "GET", "/v1/openapi.json")).body
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ;(addFormats as unknown as (a: Ajv2020) => void)(ajv)
  ajv.addSchema(doc, "openapi")
  return {
    server,
    receiver,
    doc,
    ajv,
    stop: async () => {
      await server.stop()
      await receiver.close()
    }
  }
}

/** The fixture for one test file: started before its tests (handed to `use`), stopped after them. */
export const useOpenApiFixture = (use: (fixture: OpenApiFixture) => void): void => {
  let fixture: OpenApiFixture | undefined
  beforeAll(async () => {
    fixture = await startOpenApiFixture()
    use(fixture)
  }, 60_000)
  afterAll(async () => {
    await fixture?.stop()
  })
}
