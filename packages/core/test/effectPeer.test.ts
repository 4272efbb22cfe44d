/**
 * `effect` is a peer dependency of every package, so that an Effect application and Canopy share
 * one copy (one runtime, one `Context`): a package that depends on its own copy gives the
 * application two. The peer range is the tested one: it admits the version the workspace installs
 * and tests with, and nothing of another minor release.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"

const repo = join(import.meta.dirname, "../../..")
const manifest = (path: string) => JSON.parse(readFileSync(join(repo, path), "utf8")) as Record<string, Record<string, string> | undefined>
const packages = ["core", "adapter-sqlite", "adapter-postgres", "server"]

/** Whether `version` (X.Y.Z) satisfies a tilde range `~X.Y.Z`: same major and minor, patch at least Z. */
const satisfiesTilde = (version: string, range: string) => {
  const r = /^~(\d+)\.(\d+)\.(\d+)$/.exec(range)
  const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)
  if (!r || !v) return false
  return r[1] === v[1] && r[2] === v[2] && Number(v[3]) >= Number(r[3])
}

describe("effect as a peer dependency", () => {
  const tested = manifest("node_modules/effect/package.json").version as unknown as string

  for (const name of packages) {
    it(`@canopy/${name}: effect is a peer in the tested range, never a dependency of its own`, () => {
      const pkg = manifest(`packages/${name}/package.json`)
      assert.isUndefined(pkg.dependencies?.effect, "a dependency would install a second copy")
      const range = pkg.peerDependencies?.effect
      assert.isDefined(range)
      assert.isTrue(satisfiesTilde(tested, range!), `${range} admits the tested ${tested}`)
    })
  }

  it("the workspace installs the tested version for its own tests", () => {
    assert.strictEqual(manifest("package.json").devDependencies?.effect, tested)
  })
})
