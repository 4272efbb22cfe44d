/**
 * The soak benchmark's checks at the end: every acknowledged write present as acknowledged, and
 * every stored event delivered to the local receiver exactly once.
 */
import { createServer } from "node:http"
import type { Account, Call } from "./traffic.ts"

/** The receiver: counts each event id it is sent. */
export const startReceiver = async () => {
  const seen = new Map<string, number>()
  let last = Date.now()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string }
      seen.set(body.id, (seen.get(body.id) ?? 0) + 1)
      last = Date.now()
      res.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    seen,
    quietFor: () => Date.now() - last,
    close: () => {
      server.closeAllConnections()
      return new Promise((r) => server.close(r))
    }
  }
}

/**
 * Reads back every project (and asset) the accounts hold as acknowledged, `inFlight` projects at a
 * time: a deleted one must answer 404, a kept one its status; answers how many reads, how many wrong.
 */
export const checkWrites = async (accounts: ReadonlyArray<Account>, call: Call, inFlight: number) => {
  let checked = 0, wrong = 0
  const checks = accounts.flatMap((a) => a.projects.map((p) => ({ a, p })))
  for (let i = 0; i < checks.length; i += inFlight) {
    await Promise.all(checks.slice(i, i + inFlight).map(async ({ a, p }) => {
      const r = await call("GET", `/v1/projects/${p.id}`, a.token)
      const status = (r.json?.data as { status?: string } | undefined)?.status
      const right = p.status === "deleted" ? r.status === 404 : r.status === 200 && status === p.status
      checked++
      if (!right) wrong++
      if (p.status !== "deleted" && p.assets.length + p.removedAssets.length > 0) {
        const kept = await Promise.all(p.assets.map((id) => call("GET", `/v1/projects/${p.id}/assets/${id}`, a.token)))
        const removed = await Promise.all(p.removedAssets.map((id) => call("GET", `/v1/projects/${p.id}/assets/${id}`, a.token)))
        checked += kept.length + removed.length
        wrong += kept.filter((x) => x.status !== 200).length + removed.filter((x) => x.status !== 404).length
      }
    }))
  }
  return { checked, wrong }
}

/** The stored events against the receiver's count: how many never came, came twice or more, or were never stored. */
export const deliveries = (stored: ReadonlyArray<string>, seen: ReadonlyMap<string, number>) => {
  const storedSet = new Set(stored)
  return {
    missing: stored.filter((id) => !seen.has(id)).length,
    twice: [...seen.values()].filter((n) => n > 1).length,
    strangers: [...seen.keys()].filter((id) => !storedSet.has(id)).length
  }
}
