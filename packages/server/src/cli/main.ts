/**
 * The `canopy` command line: serve, worker, init, owner, keys, service-tokens, account, migrate, backup.
 * Configuration comes from flags, then the environment, then defaults. The commands live in
 * `serve.ts` and `admin.ts`; their flags, defaults and variables in `reference.ts`, whose table
 * `help.ts` renders as `--help` and as docs/cli.md.
 */
import { CanopyError } from "@canopy/core"
import { adminCommands } from "./admin.ts"
import { UsageError } from "./common.ts"
import { HELP } from "./help.ts"
import { serveCommands } from "./serve.ts"

/** Every command by name (`reference.ts` documents each). */
export const commands: Record<string, (argv: Array<string>) => Promise<void>> = { ...serveCommands, ...adminCommands }

/** Runs the CLI with the given arguments; resolves to the exit code. */
export const main = async (argv: Array<string>): Promise<number> => {
  const [command, ...rest] = argv
  if (!command || command === "--help" || command === "-h" || command === "help") {
    console.log(HELP.main)
    return command ? 0 : 2
  }
  const run = commands[command]
  if (!run) {
    process.stderr.write(`canopy: unknown command "${command}"\n\n${HELP.main}\n`)
    return 2
  }
  try {
    await run(rest)
    return 0
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ||
      (e as { code?: string }).code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      process.stderr.write(`canopy ${command}: ${(e as Error).message}\n\n${HELP[command] ?? HELP.main}\n`)
      return 2
    }
    // A database that could not be opened: the adapter's sentence names the path and the cause.
    const opening = "storage could not be opened: "
    if (e instanceof CanopyError && e.message.startsWith(opening)) {
      process.stderr.write(`canopy ${command}: ${e.message.slice(opening.length)}\n`)
      return 1
    }
    if (e instanceof CanopyError) {
      const details = e.details.map((d) => `  ${d.field}: ${d.message}`).join("\n")
      process.stderr.write(`canopy ${command}: ${e.code}: ${e.message}${details ? `\n${details}` : ""}\n`)
      return 1
    }
    process.stderr.write(`canopy ${command}: ${(e as Error).message ?? String(e)}\n`)
    return 1
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then((code) => {
    if (code !== 0 || (process.argv[2] !== "serve" && process.argv[2] !== "worker")) process.exitCode = code
  })
}
