/**
 * One source for the command line: the table in `cli/reference.ts`. docs/cli.md is what the table
 * renders (`npm run docs:cli`); the defaults it quotes are the code's; every flag in the table is accepted by its command's parser and
 * every other flag refused; the parsers define no options of their own; every environment
 * variable the code reads is in the table, and every one the table names is read.
 */
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT_MS } from "@canopy/adapter-postgres"
import { Settings } from "@canopy/core"
import { afterEach, assert, describe, it, vi } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, sep } from "node:path"
import { MAX_EXPORT_BYTES } from "../src/api/gisExport.ts"
import { DEFAULT_ACCOUNT_NAME, DEFAULT_OWNER_EMAIL } from "../src/cli/common.ts"
import { HELP, referenceMarkdown } from "../src/cli/help.ts"
import { defaults as geometryDefaults } from "../src/geometry/pool.ts"
import { commands, main } from "../src/cli/main.ts"
import { COMMANDS as TABLE, type Command, POSTGRES_ENVIRONMENT } from "../src/cli/reference.ts"

/** The table, each command as a `Command`. */
const COMMANDS: ReadonlyArray<Command> = TABLE

const root = join(import.meta.dirname, "../../..")
const cliDir = join(import.meta.dirname, "../src/cli")

/** Runs the CLI in this process; answers its exit code and what it printed. */
const run = async (argv: Array<string>) => {
  let out = ""
  let err = ""
  const log = vi.spyOn(console, "log").mockImplementation((s: unknown) => void (out += `${String(s)}\n`))
  const write = vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((err += String(s)), true))
  try {
    return { code: await main(argv), out, err }
  } finally {
    log.mockRestore()
    write.mockRestore()
  }
}
afterEach(() => vi.restoreAllMocks())

/** Positional arguments a command needs before its flags are parsed (none: the parser runs first). */
const argvFor = (c: Command, flag: string, value: string | undefined) => [c.name, ...(value === undefined ? [flag] : [flag, value]), "--help"]

/** The TypeScript files under a directory. */
const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : []
  })

/** Tokens that look like variables but are error codes. */
const ERROR_CODES = new Set(["CANOPY_BLOCKED_ADDRESS", "CANOPY_NO_DATABASE", "CANOPY_ADAPTER_MISSING"])

describe("the CLI reference", () => {
  it("docs/cli.md is what the table renders (run npm run docs:cli after changing the table)", () => {
    assert.strictEqual(readFileSync(join(root, "docs/cli.md"), "utf8"), referenceMarkdown())
  })

  it("the table has exactly the commands the CLI runs, and each prints its table entry as --help", async () => {
    assert.deepStrictEqual(COMMANDS.map((c) => c.name).sort(), Object.keys(commands).sort())
    for (const c of COMMANDS) {
      const r = await run([c.name, "--help"])
      assert.strictEqual(r.code, 0, c.name)
      assert.strictEqual(r.out, `${HELP[c.name]}\n`)
      for (const f of c.flags) assert.include(r.out, `--${f.name}`, `${c.name} --help names --${f.name}`)
      for (const v of [...c.flags.flatMap((f) => (f.env ? [f.env] : [])), ...c.environment.map((e) => e.name)]) assert.include(r.out, v)
    }
    const top = await run(["--help"])
    for (const c of COMMANDS) assert.include(top.out, `  ${c.name}`)
    for (const v of POSTGRES_ENVIRONMENT) assert.include(top.out, v.name)
  })

  it("every flag in the table is accepted by its command's parser; every other flag is refused with a usage error", async () => {
    const everyFlag = [...new Set(COMMANDS.flatMap((c) => c.flags.map((f) => f.name))), "verbose", "dispatcher"]
    for (const c of COMMANDS) {
      for (const f of c.flags) {
        const r = await run(argvFor(c, `--${f.name}`, f.type === "string" ? "x" : undefined))
        assert.strictEqual(r.code, 0, `${c.name} --${f.name}: ${r.err}`)
      }
      for (const name of everyFlag.filter((n) => !c.flags.some((f) => f.name === n))) {
        const r = await run(argvFor(c, `--${name}`, undefined))
        assert.strictEqual(r.code, 2, `${c.name} --${name} is not in the table, so it is refused`)
        assert.match(r.err, new RegExp(`Unknown option '--${name}'`))
      }
    }
  }, 60_000)

  it("the parsers take their options from the table only", () => {
    for (const path of sources(cliDir).filter((p) => !p.endsWith("reference.ts"))) {
      const text = readFileSync(path, "utf8")
      assert.notMatch(text, /type:\s*"(string|boolean)"/, `${path} defines an option outside the table`)
      for (const call of text.match(/parseArgs\(\{[^)]*\}\)/g) ?? []) assert.match(call, /options: optionsOf\(/, `${path}: ${call}`)
    }
  })

  it("every environment variable the code reads is in the table, and every one in the table is read", () => {
    const documented = new Set([
      ...COMMANDS.flatMap((c) => [...c.flags.flatMap((f) => (f.env ? [f.env] : [])), ...c.environment.map((e) => e.name)]),
      ...POSTGRES_ENVIRONMENT.map((e) => e.name)
    ])
    const code = ["core", "adapter-sqlite", "adapter-postgres", "server"].flatMap((p) => sources(join(root, "packages", p, "src")))
      .filter((p) => !p.startsWith(cliDir) || !/(reference|help)\.ts$/.test(p))
      .filter((p) => !p.includes(`${sep}src${sep}testing${sep}`)) // the test kits (`@canopy/*/testing`) are not the CLI's
      .map((p) => readFileSync(p, "utf8")).join("\n")
    const read = new Set([
      ...[...code.matchAll(/\bCANOPY_[A-Z0-9_]+/g)].map((m) => m[0]).filter((n) => !ERROR_CODES.has(n)),
      ...[...code.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)
    ])
    assert.deepStrictEqual([...read].filter((n) => !documented.has(n)).sort(), [], "read by the code, missing from the table")
    assert.deepStrictEqual([...documented].filter((n) => !read.has(n)).sort(), [], "in the table, read nowhere")
  })

  it("the defaults the table quotes are the code's", () => {
    const flag = (command: string, name: string) => COMMANDS.find((c) => c.name === command)!.flags.find((f) => f.name === name)!.default
    const variable = (name: string) => [...COMMANDS.flatMap((c) => c.environment), ...POSTGRES_ENVIRONMENT].find((v) => v.name === name)!.default!
    const leading = (s: string) => Number(/^\d+/.exec(s)![0])
    assert.strictEqual(flag("serve", "pg-pool-size"), String(DEFAULT_POOL_SIZE))
    assert.strictEqual(flag("worker", "pg-pool-size"), String(DEFAULT_POOL_SIZE))
    assert.strictEqual(flag("serve", "email"), DEFAULT_OWNER_EMAIL)
    assert.strictEqual(flag("serve", "account-name"), DEFAULT_ACCOUNT_NAME)
    assert.strictEqual(flag("init", "account-name"), DEFAULT_ACCOUNT_NAME)
    assert.strictEqual(leading(variable("CANOPY_PG_CONNECT_TIMEOUT_MS")), DEFAULT_CONNECT_TIMEOUT_MS)
    assert.strictEqual(leading(variable("CANOPY_PG_STATEMENT_TIMEOUT_MS")), DEFAULT_STATEMENT_TIMEOUT_MS)
    assert.strictEqual(leading(variable("CANOPY_DELIVERY_LEASE_MS")), Settings.defaults.deliveryLeaseMs)
    assert.strictEqual(leading(variable("CANOPY_DELIVERY_TIMEOUT_MS")), Settings.defaults.deliveryTimeoutMs)
    assert.strictEqual(leading(variable("CANOPY_GEOMETRY_BUDGET_MS")), geometryDefaults.budgetMs)
    assert.strictEqual(leading(variable("CANOPY_EXPORT_MAX_BYTES")), MAX_EXPORT_BYTES)
  })

  it("worker's --concurrency and --per-endpoint take positive integers; anything else is a usage error before a database is opened", async () => {
    for (const flag of ["concurrency", "per-endpoint"]) {
      for (const bad of ["0", "-1", "2.5", "x"]) {
        const r = await run(["worker", "--db", join(root, "no-such-dir", "none.db"), `--${flag}=${bad}`])
        assert.strictEqual(r.code, 2, `--${flag} ${bad}: ${r.err}`)
        assert.include(r.err, `--${flag} must be a positive integer, got ${bad}`)
      }
    }
  })
})
