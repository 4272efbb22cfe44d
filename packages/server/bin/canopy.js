#!/usr/bin/env node
// The `canopy` command. Runs the built CLI when there is one (dist/), otherwise the TypeScript
// sources directly (Node strips types), re-executing Node with the `source` export condition so
// that workspace packages resolve to their sources. Signals reach the child, so `canopy serve`
// still shuts down gracefully. On a Node older than Canopy needs, it says so in one line.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** Node 22.19 (undici's floor; type stripping without a flag came in 22.18), or 23.6 and later. */
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19) || (major === 23 && minor < 6)) {
  process.stderr.write(`canopy needs Node.js 22.19 or newer (24 LTS recommended); this is Node.js ${process.versions.node}.\n`)
  process.exit(1)
}

const built = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url))
const source = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))

if (existsSync(built)) {
  const { main } = await import(built)
  process.exitCode = await main(process.argv.slice(2))
} else {
  const child = spawn(process.execPath, ["--conditions=source", "--disable-warning=ExperimentalWarning", source, ...process.argv.slice(2)], { stdio: "inherit" })
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => { process.exitCode = code ?? (signal ? 1 : 0) })
}
