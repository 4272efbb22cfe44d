/**
 * Generates `src/schema.ts` (the `paths` and `components` types of the client) from the server's
 * OpenAPI document, built in-process from the route table, with openapi-typescript.
 *
 *   npm run generate -w @canopy/client        (node --conditions=source scripts/generate.ts)
 *
 * `generate()` is also what the drift test (test/drift.test.ts) runs to compare with the file.
 */
import { openApiDocument } from "@canopy/server"
import openapiTS, { astToString } from "openapi-typescript"
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const HEADER = `/**
 * GENERATED from Canopy's OpenAPI document (packages/server/src/api/openapi.ts) by
 * clients/typescript/scripts/generate.ts with openapi-typescript. Do not edit: run
 * \`npm run generate -w @canopy/client\`. test/drift.test.ts fails while this file is stale.
 */

`

/** The text of `src/schema.ts` for the current document. */
export const generate = async (): Promise<string> => {
  const document = openApiDocument()
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], { silent: true, emptyObjectsUnknown: true })
  return HEADER + astToString(ast)
}

/** Where the generated file lives. */
export const schemaFile = fileURLToPath(new URL("../src/schema.ts", import.meta.url))

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await generate()
  writeFileSync(schemaFile, text)
  process.stdout.write(`wrote ${schemaFile} (${text.length} characters)\n`)
}
