/**
 * The PostgreSQL floor: a bare node:http + `pg` server with no framework, on a pool of the size
 * Canopy's is (10). It does the same lookups as Canopy's request path — the bearer token's hash
 * looked up in `credentials`, then ONE metering statement (the account's plan read, its bucket
 * refilled, charged and saved, and the month's request counter incremented, in one data-modifying
 * CTE) — and then the endpoint's own reads or write. Every statement is a named prepared one, or
 * with `FLOOR_PREPARED=0` an unnamed one (behind PgBouncer before 1.21). A create does what
 * Canopy's must (`floorCreate.ts`): the boundary checked and measured, then in one transaction the
 * account locked with its totals read (the hectare limit), the neighbours the GiST index finds,
 * measured, and one statement writing the project, its first boundary version and its events.
 * Usage: floorPg.ts URL. Prints its port.
 */
import { createHash } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import pg from "pg"
import { check, listed, type Neighbour, report, rowsOf, rowsOnly, withGeometry } from "./floorCreate.ts"

const [url] = process.argv.slice(2) as [string]
const pool = new pg.Pool({ connectionString: url, max: 10 })
let n = 0

const credential = "select account_id, permissions, revoked_at from credentials where token_hash = $1"
/**
 * A plain token bucket of 10,000,000/min (the benchmark's plan) in SQL: the same arithmetic as
 * Canopy's, on the JSON state Canopy stores, under the row lock the upsert takes.
 */
const meter = `with plan as (select plan from accounts where id = $1),
  bucket as (
    insert into rate_limits (account_id, state, touched_at)
    select $1, json_build_object('units', 6e11 - 60000, 'refilledAt', $2::bigint, 'day', floor($2::bigint / 86400000), 'dayCount', 1)::text, $2::bigint from plan
    on conflict (account_id) do update set
      state = json_build_object(
        'units', least(6e11, (rate_limits.state::json->>'units')::float8 + greatest(0, $2::bigint - (rate_limits.state::json->>'refilledAt')::float8) * 1e7) - 60000,
        'refilledAt', $2::bigint, 'day', floor($2::bigint / 86400000), 'dayCount', (rate_limits.state::json->>'dayCount')::bigint + 1)::text,
      touched_at = excluded.touched_at
    returning state),
  counted as (
    insert into usage_counters (account_id, period, metric, value) select $1, $3, 'api_requests', 1 from plan
    on conflict (account_id, period, metric) do update set value = usage_counters.value + 1 returning value)
  select (select state from bucket)::json->>'units' as units, (select value from counted) as value`
const byId = "select * from projects where account_id = $1 and id = $2"
const page = "select * from projects where account_id = $1 order by created_at desc, id desc limit 21"
const total = "select projects_active + projects_archived + projects_draft as n from account_totals where account_id = $1"
const insert = `insert into projects (id, account_id, name, slug, description, geometry, area_hectares, bbox, status,
  created_by, sort_name, search_text, created_at, updated_at) values ($1, $2, $3, $4, null, $5, 0, null, 'active', null, $6, $7, $8, $9)`

const lockAndTotals = "select t.* from accounts a left join account_totals t on t.account_id = a.id where a.id = $1 for update of a"
const neighbours = `select id, name, area_hectares, boundary_key, boundary_key = $2 as same,
    case when boundary_key = $2 then null else geometry end as geometry
  from projects where account_id = $1 and status <> 'archived' and bbox is not null
    and projects_box(bbox) && box(point($3, $4), point($5, $6)) limit 1001`
/** The project, its first boundary version and its events (the second only with overlaps), in one statement. */
const write = `with p as (insert into projects (id, account_id, name, slug, description, geometry, area_hectares, bbox, status,
    created_by, sort_name, search_text, created_at, updated_at, boundary_key, zoom_cell)
    values ($1, $2, $3, $4, null, $5, $6, $7, 'active', null, $8, $8, $9, $9, $10, $11) returning id),
  v as (insert into boundary_versions (account_id, project_id, version, geometry, bbox, area_hectares_before, area_hectares_after, via,
    actor_kind, created_at) select $2, id, 1, null, $7, 0, $6, 'create', 'api_key', $9 from p)
  insert into events (id, account_id, type, payload, created_at)
    select $12 || e.k, $2, e.type, e.payload, $9 from p, (values ('', 'project.created', $13), ('o', 'project.overlap_detected', $14)) e(k, type, payload)
    where e.payload is not null`

const named = process.env.FLOOR_PREPARED !== "0"
const query = async (name: string, text: string, values: Array<unknown>) => (await pool.query(named ? { name, text, values } : { text, values })).rows

/** A row as JSON text, its stored JSON columns spliced in as they are (as Canopy does). */
const view = (row: Record<string, unknown>) => {
  const { geometry, bbox, ...rest } = row
  return `${JSON.stringify(rest).slice(0, -1)},"geometry":${geometry ?? "null"},"bbox":${bbox ?? "null"}}`
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** The bearer token's account and the rate-limit headers, or undefined after answering 401. */
const admit = async (authorization: string | undefined, res: ServerResponse) => {
  const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1]
  const [row] = token ? await query("credential", credential, [createHash("sha256").update(token).digest("hex")]) : []
  if (!row || row.revoked_at !== null) return void send(res, 401, { error: "unauthorized" })
  const now = Date.now()
  const [metered] = await query("meter", meter, [row.account_id, now, new Date(now).toISOString().slice(0, 7)])
  return { account: String(row.account_id),
    headers: { "x-ratelimit-limit": "10000000", "x-ratelimit-remaining": String(Math.floor(Number(metered!.units) / 60_000)) } }
}

const handle = async (req: import("node:http").IncomingMessage, res: ServerResponse, body: string) => {
  const url = new URL(req.url ?? "/", "http://x")
  const m = /^\/v1\/projects\/([^/]+)$/.exec(url.pathname)
  const route = req.method === "GET" && url.pathname === "/v1/projects" ? "list"
    : req.method === "GET" && m ? "get"
    : req.method === "POST" && url.pathname === "/v1/projects" ? "create" : undefined
  if (!route) return send(res, 404, { error: "not found" })
  const who = await admit(req.headers.authorization, res)
  if (!who) return
  if (route === "list") {
    const [rows, [counted]] = await Promise.all([query("page", page, [who.account]), query("total", total, [who.account])])
    return send(res, 200,
      `{"data":[${rows.slice(0, 20).map(view).join(",")}],"meta":${JSON.stringify({ total: Number(counted?.n ?? 0), page: 1, per_page: 20 })}}`, who.headers)
  }
  if (route === "get") {
    const [row] = await query("byId", byId, [who.account, m![1]])
    return row ? send(res, 200, `{"data":${view(row)}}`, who.headers) : send(res, 404, { error: "not found" })
  }
  const input = JSON.parse(body) as { name: string; geometry: unknown }
  const k = ++n
  const id = `proj_floorpg${process.pid}_${k}`
  const now = new Date().toISOString()
  const slug = `floorpg-${process.pid}-${k}`
  if (!withGeometry) {
    await query("insert", insert, [id, who.account, input.name, slug, JSON.stringify(input.geometry), input.name.toLowerCase(), input.name.toLowerCase(), now,
      now])
    return send(res, 201, { data: { id, name: input.name } }, who.headers)
  }
  const c = rowsOnly ? rowsOf(input.geometry) : check(input.geometry)
  if (!c.ok) return send(res, 422, { error: { code: "validation_error", details: c.problems } })
  const bbox = JSON.stringify(c.bbox)
  const resource = `{"id":${JSON.stringify(id)},"name":${JSON.stringify(input.name)},"slug":"${slug}","description":null,"geometry":${c.text},`
    + `"area_hectares":${c.area_hectares},"bbox":${bbox},"status":"active","created_at":"${now}","updated_at":"${now}"}`
  const client = await pool.connect()
  const q = async (name: string, text: string, values: Array<unknown>) => (await client.query(named ? { name, text, values } : { text, values })).rows
  try {
    await client.query("begin")
    await q("lockAndTotals", lockAndTotals, [who.account])
    const near = await q("neighbours", neighbours, [who.account, c.key, ...c.bbox]) as Array<Neighbour>
    const overlaps = rowsOnly ? listed(near) : report(c.boundary, near)
    await q("write", write, [id, who.account, input.name, slug, c.text, c.area_hectares, bbox, input.name.toLowerCase(), now, c.key, c.zoomCell,
      `evt_floorpg${process.pid}_${k}`, `{"type":"project.created","data":${resource}}`,
      overlaps.overlaps.length > 0 ? JSON.stringify({ type: "project.overlap_detected", data: { project_id: id, ...overlaps } }) : null])
    await client.query("commit")
    send(res, 201, `{"data":${resource.slice(0, -1)},"overlaps":${JSON.stringify(overlaps)}}}`, who.headers)
  } catch (e) {
    await client.query("rollback")
    throw e
  } finally {
    client.release()
  }
}

const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    handle(req, res, Buffer.concat(chunks).toString("utf8")).catch((e: unknown) => {
      console.error(String(e))
      if (!res.headersSent) send(res, 500, { error: "internal" })
    })
  })
})
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as { port: number }).port}\n`))
