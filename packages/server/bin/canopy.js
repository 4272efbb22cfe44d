#!/usr/bin/env node
// The `canopy` command. Runs the built CLI when there is one (dist/), otherwise the TypeScript
// sources directly (Node ≥ 22.18 strips types), re-executing Node with the `source` export
// condition so that workspace packages resolve to their sources. Signals reach the child, so
// `canopy serve` still shuts down gracefully.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

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
