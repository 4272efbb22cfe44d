/**
 * The floor: a bare node:http + better-sqlite3 server with no framework. By default it does the
 * same lookups as Canopy's request path — the bearer token's hash looked up in `credentials`, then
 * one `BEGIN IMMEDIATE` transaction reading the plan and the minute bucket, writing the bucket and
 * the month's request counter — and then the endpoint's own reads or write. With `FLOOR_AUTH=0` it
 * does only the endpoint's lookups (no authentication, no rate limit, no usage count). A create
 * does what Canopy's must (`floorCreate.ts`): the boundary checked and measured, then in one
 * transaction the account's totals (the hectare limit), the neighbours the R*Tree finds, measured,
 * and the rows — the project (its indexes kept by the schema's triggers), its first boundary
 * version and its events; the answer with the overlap report.
 * Usage: floor.ts FILE ACCOUNT_ID. Prints its port.
 */
import Database from "better-sqlite3"
import { createHash } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import { check, listed, type Neighbour, report, rowsOf, rowsOnly, withGeometry } from "./floorCreate.ts"

const [filename, accountId] = process.argv.slice(2) as [string, string]
const withAuth = process.env.FLOOR_AUTH !== "0"
const db = new Database(filename)
// The connection as Canopy's SQLite adapter opens it.
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
db.pragma("foreign_keys = ON")
db.pragma("cache_size = -65536")
const credential = db.prepare("select account_id, permissions, revoked_at from credentials where token_hash = ?")
const planAndBucket = db.prepare("select plan, (select state from rate_limits where account_id = accounts.id) as state from accounts where id = ?")
const saveBucket = db.prepare("insert into rate_limits (account_id, state) values (?, ?) on conflict (account_id) do update set state = excluded.state")
const count = db.prepare(`insert into usage_counters (account_id, period, metric, value) values (?, ?, 'api_requests', 1)
  on conflict (account_id, period, metric) do update set value = usage_counters.value + 1 returning value`)
const byId = db.prepare("select * from projects where account_id = ? and id = ?")
// `+?` where a statement orders or joins: SQLite would otherwise prepare it again on every run
// (adapter-sqlite/src/Placeholders.ts), as Canopy's adapter no longer does.
const page = db.prepare("select * from projects where account_id = +? order by created_at desc, id asc limit 20 offset 0")
const total = db.prepare("select count(*) as n from projects where account_id = ?")
const insert = db.prepare(`insert into projects (id, account_id, name, slug, description, geometry, area_hectares, bbox, status,
  created_by, sort_name, search_text, created_at, updated_at, boundary_key, zoom_cell)
  values (?, ?, ?, ?, null, ?, ?, ?, 'active', null, ?, ?, ?, ?, ?, ?)`)
const totals = db.prepare("select * from account_totals where account_id = ?")
const neighbours = db.prepare(`select projects.id, name, area_hectares, boundary_key, boundary_key = @key as same,
    case when boundary_key = @key then null else geometry end as geometry
  from (select rowid as k from accounts where id = +@account) a cross join projects_rtree r cross join projects
  where r.account_lo <= a.k and r.account_hi >= a.k and r.counted_hi >= 1 and projects.rowid = r.id
    and r.west <= @east and r.east >= @west and r.south <= @north and r.north >= @south
    and account_id = +@account and status <> 'archived' and bbox is not null
    and json_extract(bbox, '$[0]') <= @east and json_extract(bbox, '$[2]') >= @west
    and json_extract(bbox, '$[1]') <= @north and json_extract(bbox, '$[3]') >= @south
  limit 1001`)
const version = db.prepare(`insert into boundary_versions (account_id, project_id, version, geometry, bbox, area_hectares_before,
  area_hectares_after, via, actor_kind, created_at) values (?, ?, 1, null, ?, 0, ?, 'create', 'api_key', ?)`)
const event = db.prepare("insert into events (id, account_id, type, payload, created_at) values (?, ?, ?, ?, ?)")
let n = 0

/** A plain token bucket of 10,000,000/min (the benchmark's plan): the same arithmetic, no library. */
const meter = db.transaction((account: string, now: number) => {
  const row = planAndBucket.get(account) as { plan: string; state: string | null }
  const state = row.state ? JSON.parse(row.state) as { units: number; refilledAt: number; day: number; dayCount: number }
    : { units: 6e11, refilledAt: now, day: 0, dayCount: 0 }
  const units = Math.min(6e11, state.units + Math.max(0, now - state.refilledAt) * 1e7) - 60_000
  saveBucket.run(account, JSON.stringify({ units, refilledAt: now, day: Math.floor(now / 86_400_000), dayCount: state.dayCount + 1 }))
  count.get(account, new Date(now).toISOString().slice(0, 7))
  return { remaining: Math.floor(units / 60_000) }
})

/** The create's transaction: totals, neighbours measured, the project, its version and events; answers the body. */
const create = db.transaction((account: string, id: string, name: string, c: Extract<ReturnType<typeof check>, { ok: true }>, now: string) => {
  totals.get(account)
  const [west, south, east, north] = c.bbox
  const near = neighbours.all({ key: c.key, account, west, south, east, north }) as Array<Neighbour>
  const overlaps = rowsOnly ? listed(near) : report(c.boundary, near)
  const bbox = JSON.stringify(c.bbox)
  insert.run(id, account, name, `floor-${n}`, c.text, c.area_hectares, bbox, name.toLowerCase(), name.toLowerCase(), now, now, c.key, c.zoomCell)
  version.run(account, id, bbox, c.area_hectares, now)
  const resource = `{"id":${JSON.stringify(id)},"name":${JSON.stringify(name)},"slug":"floor-${n}","description":null,"geometry":${c.text},`
    + `"area_hectares":${c.area_hectares},"bbox":${bbox},"status":"active","created_at":"${now}","updated_at":"${now}"}`
  event.run(`evt_floor${n}`, account, "project.created", `{"type":"project.created","data":${resource}}`, now)
  if (overlaps.overlaps.length > 0) {
    event.run(`evt_floor${n}o`, account, "project.overlap_detected",
      JSON.stringify({ type: "project.overlap_detected", data: { project_id: id, ...overlaps } }), now)
  }
  return `{"data":${resource.slice(0, -1)},"overlaps":${JSON.stringify(overlaps)}}}`
})

const view = (row: Record<string, unknown>) => ({ ...row, geometry: JSON.parse(String(row.geometry ?? "null")), bbox: JSON.parse(String(row.bbox ?? "null")) })

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** The bearer token's account and the rate-limit headers, or undefined after answering 401. */
const admit = (authorization: string | undefined, res: ServerResponse) => {
  if (!withAuth) return { account: accountId, headers: {} }
  const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1]
  const row = token ? credential.get(createHash("sha256").update(token).digest("hex")) as { account_id: string; revoked_at: string | null } | undefined
    : undefined
  if (!row || row.revoked_at !== null) return void send(res, 401, { error: "unauthorized" })
  const { remaining } = meter.immediate(row.account_id, Date.now())
  return { account: row.account_id, headers: { "x-ratelimit-limit": "10000000", "x-ratelimit-remaining": String(remaining) } }
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x")
  const m = /^\/v1\/projects\/([^/]+)$/.exec(url.pathname)
  if (req.method === "GET" && url.pathname === "/v1/projects") {
    const who = admit(req.headers.authorization, res)
    if (!who) return
    const rows = page.all(who.account) as Array<Record<string, unknown>>
    return send(res, 200, { data: rows.map(view), meta: { total: (total.get(who.account) as { n: number }).n, page: 1, per_page: 20 } }, who.headers)
  }
  if (req.method === "GET" && m) {
    const who = admit(req.headers.authorization, res)
    if (!who) return
    const row = byId.get(who.account, m[1]) as Record<string, unknown> | undefined
    return row ? send(res, 200, { data: view(row) }, who.headers) : send(res, 404, { error: "not found" })
  }
  if (req.method === "POST" && url.pathname === "/v1/projects") {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const who = admit(req.headers.authorization, res)
      if (!who) return
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { name: string; geometry: unknown }
      const id = `proj_floor${++n}`
      const now = new Date().toISOString()
      if (!withGeometry) {
        insert.run(id, who.account, body.name, `floor-${n}`, JSON.stringify(body.geometry), 0, null, body.name.toLowerCase(), body.name.toLowerCase(), now, now,
          null, null)
        return send(res, 201, { data: { id, name: body.name } }, who.headers)
      }
      const checked = rowsOnly ? rowsOf(body.geometry) : check(body.geometry)
      if (!checked.ok) return send(res, 422, { error: { code: "validation_error", details: checked.problems } })
      const answer = create.immediate(who.account, id, body.name, checked, now)
      send(res, 201, answer, who.headers)
    })
    return
  }
  send(res, 404, { error: "not found" })
})
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as { port: number }).port}\n`))
