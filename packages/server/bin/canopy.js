#!/usr/bin/env node
// The `canopy` command. Installed from npm (under node_modules), it runs the built CLI (dist/).
// In a checkout of the repository it runs the TypeScript sources directly (Node strips types), so
// that a stale dist/ is never used; a copy without dist/ runs its sources too. Either way in this
// same process. On a Node older than Canopy needs, it says so in one line.
import { existsSync } from "node:fs"
import { sep } from "node:path"
import { fileURLToPath } from "node:url"

/** Node 22.19 (undici's floor; type stripping without a flag came in 22.18), or 23.6 and later. */
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19) || (major === 23 && minor < 6)) {
  process.stderr.write(`canopy needs Node.js 22.19 or newer (24 LTS recommended); this is Node.js ${process.versions.node}.\n`)
  process.exit(1)
}

const built = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url))
const source = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))

const installed = fileURLToPath(import.meta.url).split(sep).includes("node_modules")

const fromDist = existsSync(built) && (installed || !existsSync(source))
if (!fromDist) {
  // One process, so that signals, exit codes and a kill -9 reach the server itself: workspace
  // packages resolve to their TypeScript sources through a resolve hook adding the `source` condition.
  const { registerHooks } = await import("node:module")
  registerHooks({ resolve: (specifier, context, next) => next(specifier, { ...context, conditions: [...context.conditions, "source"] }) })
}
const { main } = await import(fromDist ? built : source)
const argv = process.argv.slice(2)
const code = await main(argv)
if (code !== 0 || (argv[0] !== "serve" && argv[0] !== "worker")) process.exitCode = code
