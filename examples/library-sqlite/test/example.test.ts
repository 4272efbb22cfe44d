import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")
const main = join(root, "src/main.ts")

describe("example: Canopy as a library on SQLite", () => {
  it("runs and prints the project's area and the refused duplicate", () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-example-"))
    try {
      const out = execFileSync(process.execPath, ["--conditions=source", "--disable-warning=ExperimentalWarning", main, join(dir, "example.db")], {
        cwd: root,
        encoding: "utf8"
      })
      assert.strictEqual(out,
        "Acme Forestry: amazon-reforestation covers 491.5243 ha\nits shell: 5 positions from -62.2, -3.4\nrefused: CONFLICT (a project with this slug already exists in the account)\n")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("is the snippet docs/embedding.md shows, word for word", () => {
    const guide = readFileSync(join(root, "../../docs/embedding.md"), "utf8")
    const snippet = /```ts\n(import \{ ConflictError, createCanopy \}[\s\S]*?)```/.exec(guide)?.[1]
    assert.isDefined(snippet, "docs/embedding.md has the library snippet")
    assert.strictEqual(snippet!.replace("process.argv[2] ?? \"canopy.db\"", "\"canopy.db\""),
      readFileSync(main, "utf8").replace("process.argv[2] ?? \"canopy.db\"", "\"canopy.db\""))
  })
})
