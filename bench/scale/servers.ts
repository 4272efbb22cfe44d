/**
 * The packaged server (bench/servers/canopy.ts) as child processes, one per store, for the scale
 * and map benchmarks; and the scratch folder they run in, removed on the way out or on Ctrl-C.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** One running server: its base URL and its process. */
export interface Server {
  readonly url: string
  readonly child: ChildProcess
}

const live = new Set<ChildProcess>()

/** Starts bench/servers/canopy.ts on a SQLite file or PostgreSQL URL; resolves with its base URL. */
export const startServer = (where: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      "--conditions=source",
      "--disable-warning=ExperimentalWarning",
      join(import.meta.dirname, "..", "servers", "canopy.ts"),
      where
    ], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, BENCH_DISPATCHER: "0" } })
    live.add(child)
    child.once("exit", (code) => {
      live.delete(child)
      reject(new Error(`the server exited (${code}) before it listened`))
    })
    child.stdout!.once("data", (d: Buffer) => resolve({ url: `http://127.0.0.1:${Number(d.toString().trim())}`, child }))
  })

/** Stops a server (SIGKILL if it has not exited 5 s after `signal`). */
export const stopServer = async (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit")
    child.kill(signal)
    const t = setTimeout(() => child.kill("SIGKILL"), 5_000)
    await exited
    clearTimeout(t)
  }
  live.delete(child)
}

/**
 * Runs `body` with a fresh scratch folder (`prefix` + random suffix under the system's temporary
 * folder); afterwards — or on Ctrl-C — every server still running is killed and the folder removed.
 */
export const inScratchDir = async (prefix: string, body: (dir: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const onSignal = () => {
    for (const c of live) c.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
    process.exit(130)
  }
  process.once("SIGINT", onSignal)
  try {
    await body(dir)
  } finally {
    process.off("SIGINT", onSignal)
    for (const c of live) await stopServer(c, "SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
}
