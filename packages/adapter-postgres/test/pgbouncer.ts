/**
 * A throwaway PgBouncer in transaction mode in front of a test PostgreSQL, on a free loopback port
 * with a generated configuration in a temporary folder (Debian's `pgbouncer`, which `.ci/run`
 * installs). PgBouncer refuses to run as root: as root it runs as the `postgres` user the embedded
 * server already runs as. Its settings are the ones docs/operating.md recommends.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./freePort.ts"

const binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"].find(existsSync) ?? "pgbouncer"

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => (socket.destroy(), resolve(true)))
    socket.once("error", () => resolve(false))
  })

/**
 * Starts PgBouncer in front of the PostgreSQL at `serverUrl` (its user and password are the ones
 * clients use), at most `poolSize` server connections per database and user. Answers `url(database)`,
 * a client URL of a database through PgBouncer, and `stop`.
 */
export const startPgBouncer = async (serverUrl: string, options: { readonly poolSize?: number } = {}) => {
  const server = new URL(serverUrl)
  const user = decodeURIComponent(server.username)
  const password = decodeURIComponent(server.password)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), "canopy-pgbouncer-"))
  chmodSync(dir, 0o755)
  const quoted = (s: string) => `"${s.replace(/"/g, "\"\"")}"`
  writeFileSync(join(dir, "users.txt"), `${quoted(user)} ${quoted(password)}\n`, { mode: 0o644 })
  writeFileSync(join(dir, "pgbouncer.ini"), [
    "[databases]",
    `* = host=${server.hostname} port=${server.port}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = scram-sha-256",
    `auth_file = ${join(dir, "users.txt")}`,
    "pool_mode = transaction",
    `default_pool_size = ${options.poolSize ?? 20}`,
    "max_client_conn = 500",
    // Canopy sends its statement timeout as a startup parameter, which PgBouncer cannot pass on.
    "ignore_startup_parameters = statement_timeout",
    "server_reset_query =",
    "logfile =",
    ""
  ].join("\n"), { mode: 0o644 })
  const asRoot = process.getuid?.() === 0
  const child: ChildProcess = spawn(binary, [...(asRoot ? ["-u", "postgres"] : []), join(dir, "pgbouncer.ini")], { stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  // A binary that cannot be started (not installed) is an `error` event, not an exit.
  let spawnError: Error | undefined
  child.once("error", (e) => void (spawnError = e))
  const exited = once(child, "exit").catch(() => undefined)
  const stop = async () => {
    if (spawnError === undefined && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGINT")
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  for (let waited = 0; !(await accepts(port)); waited += 50) {
    if (spawnError !== undefined || child.exitCode !== null || waited > 10_000) {
      await stop()
      throw new Error(`PgBouncer did not start: ${spawnError?.message ?? (stderr.trim() || "no output")}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url: (database: string) => {
      const u = new URL(serverUrl)
      u.port = String(port)
      u.pathname = `/${database}`
      return u.toString()
    },
    stop
  }
}
