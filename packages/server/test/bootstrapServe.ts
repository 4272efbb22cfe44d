/**
 * A first `canopy serve --bootstrap-if-empty --no-dispatcher` as a process of its own, for the
 * tests of what its bootstrap writes: under a service manager (stderr a pipe) or on a terminal (a
 * pseudo-terminal from util-linux `script`). Each runs until the bootstrap lines are out, hands the
 * server to the test, and stops it whatever the test found.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { canopyBin, startServeProcess } from "@canopy/server/testing"

/** Resolves once `child` has exited (at once if it already has). */
const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.exitCode !== null ? resolve() : child.on("exit", () => resolve()))

/** Polls `done` every 100 ms, at most `tries` times. */
const until = async (done: () => boolean, tries: number) => {
  for (let i = 0; i < tries && !done(); i++) await new Promise((r) => setTimeout(r, 100))
}

/** Runs a first serve with `args` (stderr a pipe) until its bootstrap lines are written, and answers what `check` answers of it. */
export const duringFirstServe = async <A>(
  args: ReadonlyArray<string>,
  check: (server: { readonly url: string; readonly stderr: () => string }) => Promise<A>,
  env: Readonly<Record<string, string>> = {}
): Promise<A> => {
  const s = await startServeProcess(["--bootstrap-if-empty", "--no-dispatcher", ...args], env)
  try {
    await until(() => /try it/.test(s.stderr()), 100)
    return await check(s)
  } finally {
    s.child.kill("SIGTERM")
    await exited(s.child)
  }
}

/** Runs a first serve on `db` on a pseudo-terminal until it has printed its bootstrap lines, and hands `check` what it printed. */
export const duringFirstServeOnTerminal = async (db: string, check: (printed: string) => void): Promise<void> => {
  const command = [process.execPath, canopyBin, "serve", "--port", "0", "--db", db, "--bootstrap-if-empty", "--no-dispatcher"].join(" ")
  const child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], detached: true })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  try {
    await until(() => /try it[\s\S]*projects/.test(out), 300)
    check(out)
  } finally {
    process.kill(-child.pid!, "SIGTERM")
    await exited(child)
  }
}
