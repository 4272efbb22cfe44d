/**
 * Writes docs/cli.md from the table the CLI's --help prints (packages/server/src/cli/reference.ts).
 * Run with `npm run docs:cli`; packages/server/test/cliReference.test.ts fails when the file is stale.
 */
import { writeFileSync } from "node:fs"
import { referenceMarkdown } from "../packages/server/src/cli/help.ts"

const path = new URL("../docs/cli.md", import.meta.url)
writeFileSync(path, referenceMarkdown())
process.stdout.write(`wrote ${path.pathname}\n`)
