/**
 * Formats the repository's TypeScript and JavaScript with dprint's TypeScript plugin (its
 * WebAssembly build from npm, run through `@dprint/formatter`: no native binary, no download), with
 * the settings of `dprint.json` (which editors with a dprint extension read too). `--check` lists
 * the files that would change and exits 1 when there is any; otherwise the files are rewritten.
 * The files are git's tracked and untracked-but-not-ignored ones matching `includes`, less `excludes`.
 */
import { createFromBuffer } from "@dprint/formatter"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const ROOT = join(import.meta.dirname, "..")
const config = JSON.parse(readFileSync(join(ROOT, "dprint.json"), "utf8")) as {
  readonly lineWidth: number
  readonly indentWidth: number
  readonly useTabs: boolean
  readonly newLineKind: "lf" | "crlf" | "auto" | "system"
  readonly typescript: Record<string, unknown>
  readonly excludes: ReadonlyArray<string>
}

const formatter = createFromBuffer(readFileSync(join(ROOT, "node_modules/@dprint/typescript/plugin.wasm")))
formatter.setConfig(
  { lineWidth: config.lineWidth, indentWidth: config.indentWidth, useTabs: config.useTabs, newLineKind: config.newLineKind },
  config.typescript
)

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/
/** A glob of `excludes` as a test on a path (a double star and a slash: any folders; a star: within one folder). */
const escape = (text: string) => text.replace(/[.+^${}()|[\]\\?]/g, "\\$&")
const excluded = config.excludes.map((glob) =>
  new RegExp(`^${glob.split("**/").map((part) => part.split("*").map(escape).join("[^/]*")).join("(?:.*/)?")}(?:/|$)`)
)
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  .split("\n")
  .filter((path) => SOURCE.test(path) && !excluded.some((re) => re.test(path)))

const check = process.argv.includes("--check")
const changed: Array<string> = []
for (const path of files) {
  let text: string
  try {
    text = readFileSync(join(ROOT, path), "utf8")
  } catch {
    continue // listed by git, deleted in the working tree
  }
  const formatted = formatter.formatText({ filePath: path, fileText: text })
  if (formatted === text) continue
  changed.push(path)
  if (!check) writeFileSync(join(ROOT, path), formatted)
}
if (check && changed.length > 0) {
  for (const path of changed) console.log(`not formatted: ${path}`)
  console.log(`${changed.length} file(s) not formatted; run \`npm run format\``)
  process.exit(1)
}
console.log(check ? `${files.length} files formatted` : `${changed.length} of ${files.length} files rewritten`)
