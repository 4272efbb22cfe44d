/**
 * The floor: a bare node:http + better-sqlite3 server doing the same lookups as Canopy's
 * endpoints, with no framework, no authentication and no rate limiting. Prints its port.
 */
import Database from "better-sqlite3"
import { createServer } from "node:http"

const [filename, accountId] = process.argv.slice(2) as [string, string]
const db = new Database(filename)
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
const byId = db.prepare("select * from projects where account_id = ? and id = ?")
const page = db.prepare("select * from projects where account_id = ? order by created_at desc, id asc limit 20 offset 0")
const count = db.prepare("select count(*) as n from projects where account_id = ?")
const insert = db.prepare(`insert into projects (id, account_id, name, slug, description, geometry, area_hectares, bbox, status,
  created_by, sort_name, search_text, created_at, updated_at) values (?, ?, ?, ?, null, ?, 0, null, 'active', null, ?, ?, ?, ?)`)
let n = 0

const view = (row: Record<string, unknown>) => ({ ...row, geometry: JSON.parse(String(row.geometry ?? "null")), bbox: JSON.parse(String(row.bbox ?? "null")) })

const server = createServer((req, res) => {
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    res.end(text)
  }
  const url = new URL(req.url ?? "/", "http://x")
  if (req.method === "GET" && url.pathname === "/v1/projects") {
    const rows = page.all(accountId) as Array<Record<string, unknown>>
    return send(200, { data: rows.map(view), meta: { total: (count.get(accountId) as { n: number }).n, page: 1, per_page: 20 } })
  }
  const m = /^\/v1\/projects\/([^/]+)$/.exec(url.pathname)
  if (req.method === "GET" && m) {
    const row = byId.get(accountId, m[1]) as Record<string, unknown> | undefined
    return row ? send(200, { data: view(row) }) : send(404, { error: "not found" })
  }
  if (req.method === "POST" && url.pathname === "/v1/projects") {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { name: string; geometry: unknown }
      const id = `proj_floor${++n}`
      const now = new Date().toISOString()
      insert.run(id, accountId, body.name, `floor-${n}`, JSON.stringify(body.geometry), body.name.toLowerCase(), body.name.toLowerCase(), now, now)
      send(201, { data: { id, name: body.name } })
    })
    return
  }
  send(404, { error: "not found" })
})
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as { port: number }).port}\n`))
