/**
 * The browser for the page tests: headless Chromium from the npm registry (`@sparticuz/chromium`,
 * unpacked once into the temporary folder), or the one named by `CHROMIUM_PATH` when that is set.
 * No suite is skipped for lack of a browser: without either, the run fails.
 */
import Chromium from "@sparticuz/chromium"
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
import { createServer } from "node:http"
import { type Browser, chromium } from "playwright-core"

declare module "vitest" {
  export interface ProvidedContext {
    chromiumPath: string
  }
}

const runs = (path: string) => {
  try {
    return execFileSync(path, ["--version"], { timeout: 10_000, stdio: ["ignore", "pipe", "ignore"] }).length > 0
  } catch {
    return false
  }
}

/**
 * Answers the path of a Chromium that starts: `CHROMIUM_PATH`, else the npm package's build,
 * unpacked again when a copy left by an interrupted unpacking does not start.
 */
export const resolveChromium = async (): Promise<string> => {
  const configured = process.env.CHROMIUM_PATH
  if (configured) {
    if (!runs(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not start`)
    return configured
  }
  const unpacked = await Chromium.executablePath()
  if (runs(unpacked)) return unpacked
  rmSync(unpacked, { force: true })
  const again = await Chromium.executablePath()
  if (!runs(again)) throw new Error(`Chromium from @sparticuz/chromium does not start (${again})`)
  return again
}

/** Launches headless Chromium with no network of its own beyond the pages the tests open. */
export const launchChromium = (executablePath: string): Promise<Browser> =>
  chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--no-zygote", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-domain-reliability", "--no-pings", "--font-render-hinting=none"]
  })

/** A third-party application's OAuth callback on a loopback port: the query of every visit, in order. */
export interface CallbackReceiver {
  readonly url: string
  readonly callbacks: Array<URLSearchParams>
  readonly close: () => void
}

/** Starts a callback receiver that answers each visit with a small page. */
export const startCallbackReceiver = async (): Promise<CallbackReceiver> => {
  const callbacks: Array<URLSearchParams> = []
  const server = createServer((req, res) => {
    callbacks.push(new URL(req.url ?? "/", "http://x").searchParams)
    res.writeHead(200, { "content-type": "text/html" })
    res.end("<h1>Back in the application</h1>")
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/cb`, callbacks, close: () => void server.close() }
}
