/**
 * The test harness itself: a run of the project's vitest configuration — PostgreSQL and browser
 * global setups included — exits non-zero when a test fails or a suite errors, zero when all pass,
 * and in every case stops the PostgreSQL it started and removes its files.
 */
import { spawn } from "node:child_process"
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, inject, it } from "vitest"

const vitest = join(createRequire(import.meta.url).resolve("vitest/package.json"), "../vitest.mjs")
const config = join(import.meta.dirname, "fixtures/exit/vitest.config.ts")

/** Runs the fixture in a nested vitest with a private temporary folder; answers its exit status. */
const runFixture = (fixture: string) => {
  const scratch = mkdtempSync(join(tmpdir(), "canopy-exit-"))
  chmodSync(scratch, 0o755) // as root, PostgreSQL's initdb runs as the postgres user and reads from here
  const urlFile = join(scratch, "postgres-url")
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: scratch,
    EXIT_FIXTURE: fixture,
    EXIT_FIXTURE_URL_FILE: urlFile,
    CHROMIUM_PATH: inject("chromiumPath"),
    VITEST: undefined,
    VITEST_WORKER_ID: undefined,
    VITEST_POOL_ID: undefined,
    NO_COLOR: "1",
    FORCE_COLOR: undefined,
    TEST_DATABASE_URL: undefined,
    NODE_ENV: undefined,
    VITEST_MODE: undefined
  }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key]
  return new Promise<{ status: number | null; output: string; leftovers: Array<string>; url: string | undefined }>((resolve, reject) => {
    const child = spawn(process.execPath, [vitest, "run", "--config", config], { env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      output += s
    })
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      output += s
    })
    child.on("error", reject)
    child.on("exit", (status) => {
      const leftovers = readdirSync(scratch).filter((name) => name !== "postgres-url")
      let url: string | undefined
      try {
        url = readFileSync(urlFile, "utf8")
      } catch {
        url = undefined
      }
      rmSync(scratch, { recursive: true, force: true })
      resolve({ status, output, leftovers, url })
    })
  })
}

const refused = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(true))
  })

describe("npm test's exit status", () => {
  it("is non-zero for a failing test, non-zero for a suite whose setup throws, zero for a passing run; PostgreSQL is stopped and removed each time",
    async () => {
      const [failing, throwing, passing] = await Promise.all([
        runFixture("failingAssertion.fixture.ts"),
        runFixture("throwingSetup.fixture.ts"),
        runFixture("passing.fixture.ts")
      ])
      assert.notStrictEqual(failing.status, 0, failing.output)
      assert.include(failing.output, "fails on purpose", failing.output)
      assert.notStrictEqual(throwing.status, 0, throwing.output)
      assert.include(throwing.output, "setup fails on purpose", throwing.output)
      assert.strictEqual(passing.status, 0, passing.output)
      for (const run of [failing, throwing, passing]) assert.deepStrictEqual(run.leftovers, [], run.output)
      assert.isString(passing.url)
      assert.isTrue(await refused(passing.url!), "the embedded PostgreSQL still accepts connections after the run")
    }, 120_000)
})
