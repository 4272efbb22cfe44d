/**
 * The soak benchmark's traffic: the accounts seeded through the library, and the mix of requests
 * offered — lists, searches, gets, creates, boundary replacements, archives and deletes, asset
 * writes and deletes, a few file imports — with what each acknowledged write left behind.
 */
import { createCanopy, type StorageProvider } from "@canopy/core"
import { big } from "../scale/seed.ts"

/** Projects each account starts with. */
const SEED_PROJECTS_PER_ACCOUNT = 100

/** A square of about 80 ha in its own cell of a grid: projects of the soak do not overlap. */
const square = (cell: number, shrink = 0) => {
  const x = -60 + (cell % 2000) * 0.01, y = -10 + Math.floor(cell / 2000) * 0.01, d = 0.008 - shrink
  return { type: "Polygon", coordinates: [[[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]] }
}

/** A project as its acknowledged writes left it (`busy` while a write to it is in flight). */
export interface ProjectState {
  readonly id: string
  status: "active" | "archived" | "deleted"
  cell: number
  busy: boolean
  assets: Array<string>
  removedAssets: Array<string>
}
/** An account of the soak: its admin key and its projects. */
export interface Account {
  readonly token: string
  readonly id: string
  readonly projects: Array<ProjectState>
}

/** Seeds `count` accounts (each with projects) through the library, before the server starts. */
export const seed = async (storage: StorageProvider, count: number): Promise<Array<Account>> => {
  const canopy = await createCanopy({ storage, settings: { plans: { free: big, pro: big, enterprise: big } } })
  const accounts: Array<Account> = []
  let cell = 0
  for (let a = 0; a < count; a++) {
    const { account, api_key } = await canopy.bootstrap({ account_name: `Soak ${a}`, email: `soak${a}@example.com`, plan: "enterprise" })
    const principal = await canopy.authenticate(api_key.token)
    const projects: Array<ProjectState> = []
    for (let i = 0; i < SEED_PROJECTS_PER_ACCOUNT; i++) {
      const c = cell++
      const p = await canopy.projects.create(principal, { name: `Stand ${a}-${i}`, description: `seeded stand ${i}`, geometry: square(c) })
      projects.push({ id: p.id, status: "active", cell: c, busy: false, assets: [], removedAssets: [] })
    }
    accounts.push({ token: api_key.token, id: account.id, projects })
  }
  await canopy.close()
  return accounts
}

/** One answered request of the mix. */
export interface Sample {
  readonly route: string
  readonly ms: number
  readonly ok: boolean
}

/** One request to the server under test: its status and parsed JSON body. */
export type Call = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, token: string, body?: unknown, contentType?: string) => Promise<{
  status: number
  json: { data?: { id?: string } } | undefined
}>

/**
 * The mix over `accounts`: `one()` sends one request (undefined when the roll found nothing to
 * act on) and keeps the accounts' state as acknowledged; `unexpected` counts the answers, by
 * route, that were not the acknowledgement expected.
 */
export const trafficMix = (accounts: ReadonlyArray<Account>, call: Call) => {
  let nextCell = accounts.length * SEED_PROJECTS_PER_ACCOUNT
  const unexpected = new Map<string, number>()
  const pick = <T>(xs: ReadonlyArray<T>): T | undefined => xs[Math.floor(Math.random() * xs.length)]
  const live = (a: Account, status?: ProjectState["status"]) =>
    pick(a.projects.filter((p) => !p.busy && p.status !== "deleted" && (!status || p.status === status)))

  /** One request of the mix; answers its route and whether it was acknowledged as expected. */
  const one = async (): Promise<Sample | undefined> => {
    const a = pick(accounts)!
    const roll = Math.random() * 100
    const t0 = performance.now()
    const done = (route: string, ok: boolean): Sample => {
      if (!ok) unexpected.set(route, (unexpected.get(route) ?? 0) + 1)
      return { route, ms: performance.now() - t0, ok }
    }
    if (roll < 22) return done("GET /v1/projects", (await call("GET", "/v1/projects?per_page=20", a.token)).status === 200)
    if (roll < 30)
      return done("GET /v1/projects?search", (await call("GET", `/v1/projects?search=stand%20${Math.floor(Math.random() * 90) + 10}`, a.token)).status === 200)
    if (roll < 48) {
      const p = live(a)
      if (!p) return undefined
      return done("GET /v1/projects/{id}", (await call("GET", `/v1/projects/${p.id}`, a.token)).status === 200)
    }
    if (roll < 57 || roll >= 99) {
      const cell = nextCell++
      const isImport = roll >= 99
      const r = isImport
        ? await call("POST", `/v1/projects/import?name=Imported%20${cell}`, a.token,
          JSON.stringify({ type: "Feature", properties: {}, geometry: square(cell) }), "application/geo+json")
        : await call("POST", "/v1/projects", a.token, { name: `New ${cell}`, geometry: square(cell) })
      const ok = r.status === 201 && typeof r.json?.data?.id === "string"
      if (ok) a.projects.push({ id: r.json!.data!.id!, status: "active", cell, busy: false, assets: [], removedAssets: [] })
      return done(isImport ? "POST /v1/projects/import" : "POST /v1/projects", ok)
    }
    if (roll < 64) {
      const p = live(a, "active")
      if (!p) return undefined
      p.busy = true
      const shrink = Math.random() * 0.002
      const r = await call("PUT", `/v1/projects/${p.id}`, a.token, { geometry: square(p.cell, shrink) })
      p.busy = false
      return done("PUT /v1/projects/{id} (boundary)", r.status === 200)
    }
    if (roll < 74) {
      const p = live(a, "active")
      if (!p) return undefined
      p.busy = true
      const r = await call("POST", `/v1/projects/${p.id}/archive`, a.token)
      if (r.status === 200) p.status = "archived"
      p.busy = false
      return done("POST /v1/projects/{id}/archive", r.status === 200)
    }
    if (roll < 84) {
      const p = live(a, "archived")
      if (!p) return undefined
      p.busy = true
      const r = await call("DELETE", `/v1/projects/${p.id}`, a.token)
      const ok = r.status === 200 || r.status === 204
      if (ok) p.status = "deleted"
      p.busy = false
      return done("DELETE /v1/projects/{id}", ok)
    }
    const p = live(a, "active")
    if (!p) return undefined
    if (roll >= 93 && p.assets.length >= 2) { // the oldest asset of a project with a few goes
      const id = p.assets.shift()!
      const r = await call("DELETE", `/v1/projects/${p.id}/assets/${id}`, a.token)
      const ok = r.status === 200 || r.status === 204
      if (ok) p.removedAssets.push(id)
      else p.assets.unshift(id)
      return done("DELETE /v1/projects/{id}/assets/{id}", ok)
    }
    const r = await call("POST", `/v1/projects/${p.id}/assets`, a.token, { name: `Sensor ${p.assets.length}`, type: "monitoring_station",
      location: { type: "Point", coordinates: square(p.cell).coordinates[0]![0] } })
    const ok = r.status === 201 && typeof r.json?.data?.id === "string"
    if (ok) p.assets.push(r.json!.data!.id!)
    return done("POST /v1/projects/{id}/assets", ok)
  }
  return { one, unexpected }
}
