/**
 * Lints the Python client with Ruff (its WebAssembly build from npm, so no pip is needed): Ruff's
 * default rules (pyflakes and the pycodestyle errors) on every `.py` file under clients/python,
 * plus, with `--format`, the files Ruff's formatter would change. Prints `path:line:col: CODE
 * message` per finding and exits 1 when there is any.
 */
import { Workspace } from "@astral-sh/ruff-wasm-nodejs"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

const ROOT = join(import.meta.dirname, "..", "clients", "python")
const SETTINGS = { "line-length": 160, "target-version": "py39", lint: { select: ["E4", "E7", "E9", "F", "W6", "B"] } }

const pythonFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name.startsWith(".") || entry.name === "__pycache__" ? [] : pythonFiles(path)
    return entry.name.endsWith(".py") ? [path] : []
  })

interface Diagnostic {
  readonly code: string | null
  readonly message: string
  readonly start_location: { readonly row: number; readonly column: number }
}

const workspace = new Workspace(SETTINGS, 1)
const checkFormat = process.argv.includes("--format")
let problems = 0
for (const path of pythonFiles(ROOT).sort()) {
  const source = readFileSync(path, "utf8")
  const name = relative(process.cwd(), path)
  for (const d of workspace.check(source) as ReadonlyArray<Diagnostic>) {
    problems++
    console.log(`${name}:${d.start_location.row}:${d.start_location.column}: ${d.code ?? "syntax"} ${d.message}`)
  }
  if (checkFormat && workspace.format(source) !== source) {
    problems++
    console.log(`${name}: not formatted as Ruff formats it`)
  }
}
console.log(`ruff ${Workspace.version()}: ${problems} problem(s)`)
process.exitCode = problems > 0 ? 1 : 0
