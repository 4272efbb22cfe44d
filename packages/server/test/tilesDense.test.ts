/**
 * A dense tile over a real socket on SQLite and PostgreSQL: thousands of projects under one zoom-6
 * tile are drawn as the zoom grid's clusters, each carrying its projects and hectares (all of them
 * counted, never another account's), under 500 KB; with four times the projects the tile takes
 * about as long (its cost follows its cells, not its projects); a write under it changes its ETag.
 * The projects are written by SQL on the real `projects` table (as the scale benchmark seeds), so
 * the schema's own triggers count them.
 */
import { postgresStorage } from "@canopy/adapter-postgres"
import { Ids, TileGrid } from "@canopy/core"
import { VectorTile } from "@mapbox/vector-tile"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PbfReader } from "pbf"
import pg from "pg"
import { inject } from "vitest"
import { freshDatabase } from "../../adapter-postgres/test/database.ts"
import { MAX_POINTS } from "../src/api/tiles.ts"
import { type RunningServer, serve } from "../src/index.ts"
import { client } from "@canopy/server/testing"

/** A project row as the tests write it: a small square around a centre. */
interface Seed {
  readonly id: string
  readonly account_id: string
  readonly name: string
  readonly slug: string
  readonly geometry: string
  readonly area_hectares: number
  readonly bbox: string
  readonly sort_name: string
  readonly search_text: string
  readonly created_at: string
  readonly updated_at: string
  readonly zoom_cell: number
}
const COLUMNS = ["id", "account_id", "name", "slug", "geometry", "area_hectares", "bbox", "sort_name", "search_text", "created_at", "updated_at",
  "zoom_cell"] as const

/** A server on a fresh store, with a way to insert project rows into that store by SQL. */
interface Opened {
  readonly running: RunningServer
  readonly insert: (rows: ReadonlyArray<Seed>) => Promise<void>
  readonly close: () => Promise<void>
}

const stores: ReadonlyArray<readonly [string, () => Promise<Opened>]> = [
  ["SQLite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "canopy-dense-"))
    const file = join(dir, "canopy.db")
    const running = await serve({ port: 0, host: "127.0.0.1", db: file, log: false, dispatcher: false })
    const db = new Database(file)
    db.pragma("busy_timeout = 10000")
    const statement = db.prepare(`insert into projects (${COLUMNS.join(", ")}, status) values (${COLUMNS.map((c) => `@${c}`).join(", ")}, 'active')`)
    const many = db.transaction((rows: ReadonlyArray<Seed>) => rows.forEach((r) => statement.run(r)))
    return { running, insert: async (rows) => many(rows), close: async () => {
      db.close()
      await running.close()
      rmSync(dir, { recursive: true, force: true })
    } }
  }],
  ["PostgreSQL", async () => {
    const scope = await Effect.runPromise(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshDatabase(inject("postgresUrl")), scope))
    const running = await serve({ port: 0, host: "127.0.0.1", storage: postgresStorage({ url }), log: false, dispatcher: false })
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    const types = "id text, account_id text, name text, slug text, geometry text, area_hectares double precision, bbox text, sort_name text, " +
      "search_text text, created_at text, updated_at text, zoom_cell bigint"
    return {
      running,
      insert: async (rows) => {
        for (let i = 0; i < rows.length; i += 2_000) {
          await db.query(
            `insert into projects (${COLUMNS.join(", ")}, status) select ${COLUMNS.join(", ")}, 'active' from json_to_recordset($1::json) as r(${types})`,
            [JSON.stringify(rows.slice(i, i + 2_000))]
          )
        }
      },
      close: async () => {
        await db.end()
        await running.close()
        await Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }
  }]
]

/** The tile this file fills, and its box in degrees. */
const TILE = { z: 6, x: 35, y: 21 }
const lonOf = (x: number, z: number) => (x / 2 ** z) * 360 - 180
const latOf = (y: number, z: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI
const [WEST, EAST, NORTH, SOUTH] = [lonOf(TILE.x, TILE.z), lonOf(TILE.x + 1, TILE.z), latOf(TILE.y, TILE.z), latOf(TILE.y + 1, TILE.z)]

/** `count` squares of 0.005° (about 17 ha) scattered within the tile (a margin from its edges), deterministic by `salt`. */
const scatter = (accountId: string, count: number, salt: number): Array<Seed> => {
  let seed = salt
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
  const now = new Date().toISOString()
  return Array.from({ length: count }, (_, i) => {
    const w = WEST + 0.05 + random() * (EAST - WEST - 0.1)
    const s = SOUTH + 0.05 + random() * (NORTH - SOUTH - 0.1)
    const bbox = [w, s, w + 0.005, s + 0.005] as const
    const ring = [[w, s], [w + 0.005, s], [w + 0.005, s + 0.005], [w, s + 0.005], [w, s]]
    const name = `Dense ${salt} ${i}`
    return {
      id: Ids.make("project"),
      account_id: accountId,
      name,
      slug: `dense-${salt}-${i}`,
      area_hectares: 17.5,
      geometry: JSON.stringify({ type: "Polygon", coordinates: [ring] }),
      bbox: JSON.stringify(bbox),
      sort_name: name.toLowerCase(),
      search_text: name.toLowerCase(),
      created_at: now,
      updated_at: now,
      zoom_cell: TileGrid.cellOf(bbox)
    }
  })
}

/** The tile's answer and, for a 200, its `projects_clusters` layer's features. */
const fetchTile = async (url: string, token: string, headers: Record<string, string> = {}) => {
  const t0 = performance.now()
  const res = await fetch(`${url}/v1/tiles/${TILE.z}/${TILE.x}/${TILE.y}.mvt`, { headers: { authorization: `Bearer ${token}`, ...headers } })
  const bytes = new Uint8Array(await res.arrayBuffer())
  const ms = performance.now() - t0
  const clusters: Array<{ count: number; area_hectares: number; type: number }> = []
  const layers = res.status === 200 ? Object.keys(new VectorTile(new PbfReader(bytes)).layers) : []
  const layer = res.status === 200 ? new VectorTile(new PbfReader(bytes)).layers.projects_clusters : undefined
  for (let i = 0; i < (layer?.length ?? 0); i++) {
    const f = layer!.feature(i)
    clusters.push({ count: Number(f.properties.count), area_hectares: Number(f.properties.area_hectares), type: f.type })
  }
  return { status: res.status, etag: res.headers.get("etag"), mode: res.headers.get("x-tile-mode"), bytes: bytes.length, ms, layers, clusters }
}

/** The median time of `k` fetches of the tile, after one to warm up. */
const medianMs = async (url: string, token: string, k = 9) => {
  await fetchTile(url, token)
  const times: Array<number> = []
  for (let i = 0; i < k; i++) times.push((await fetchTile(url, token)).ms)
  return times.sort((a, b) => a - b)[Math.floor(k / 2)]!
}

const N = 2_000

const suite = (store: string, open: () => Promise<Opened>) =>
  describe(`a dense tile (${store})`, () => {
    let server: Opened
    beforeAll(async () => {
      server = await open()
    }, 60_000)
    afterAll(() => server?.close())

    it(`${N} and ${4 * N} projects under one zoom-6 tile: clusters with their counts, under 500 KB, in about the same time; a write changes the ETag`,
      async () => {
        const url = server.running.url
        const mine = await server.running.canopy.bootstrap({ account_name: "Dense", email: "dense@example.com", plan: "enterprise" })
        const theirs = await server.running.canopy.bootstrap({ account_name: "Other", email: "other@example.com", plan: "enterprise" })
        const token = mine.api_key.token
        await server.insert(scatter(mine.account.id, N, 1))
        await server.insert(scatter(theirs.account.id, 300, 2))

        const first = await fetchTile(url, token)
        assert.strictEqual(first.status, 200)
        assert.strictEqual(first.mode, "clusters")
        assert.deepStrictEqual(first.layers, ["projects_clusters"])
        // one feature per non-empty cell of the tile's 32 × 32 grid
        assert.isAbove(first.clusters.length, MAX_POINTS)
        assert.isAtMost(first.clusters.length, 32 * 32)
        assert.isTrue(first.clusters.every((c) => c.type === 1 && c.count >= 1))
        assert.strictEqual(first.clusters.reduce((n, c) => n + c.count, 0), N, "every project of the account counted once, no other account's")
        assert.closeTo(first.clusters.reduce((n, c) => n + c.area_hectares, 0), N * 17.5, 1)
        const atN = await medianMs(url, token)

        await server.insert(scatter(mine.account.id, 3 * N, 3))
        const dense = await fetchTile(url, token)
        assert.strictEqual(dense.mode, "clusters")
        assert.strictEqual(dense.clusters.reduce((n, c) => n + c.count, 0), 4 * N)
        assert.isBelow(dense.bytes, 500 * 1024)
        const at4N = await medianMs(url, token)
        console.log(`dense zoom-6 tile (${store}): ${N} projects ${atN.toFixed(1)} ms, ${4 * N} projects ${at4N.toFixed(1)} ms (median of 9); ` +
          `${dense.clusters.length} clusters, ${dense.bytes} bytes`)
        // Four times the projects, not four times the time: a margin for a shared machine's noise.
        assert.isBelow(at4N, 2 * atN + 10, `${at4N.toFixed(1)} ms at ${4 * N} vs ${atN.toFixed(1)} ms at ${N}`)

        // Revalidation: 304 while nothing under the tile changes; another account's write changes nothing.
        assert.strictEqual((await fetchTile(url, token, { "if-none-match": dense.etag! })).status, 304)
        const centre = [(WEST + EAST) / 2, (SOUTH + NORTH) / 2] as const
        const square = { type: "Polygon",
          coordinates: [[[centre[0], centre[1]], [centre[0] + 0.01, centre[1]], [centre[0] + 0.01, centre[1] + 0.01], [centre[0], centre[1] + 0.01], [centre[0],
            centre[1]]]] }
        assert.strictEqual((await client(url, theirs.api_key.token).post("/v1/projects", { name: "Theirs", geometry: square })).status, 201)
        assert.strictEqual((await fetchTile(url, token, { "if-none-match": dense.etag! })).status, 304)
        const created = await client(url, token).post("/v1/projects", { name: "One more", geometry: square })
        assert.strictEqual(created.status, 201, created.text)
        const after = await fetchTile(url, token, { "if-none-match": dense.etag! })
        assert.strictEqual(after.status, 200)
        assert.notStrictEqual(after.etag, dense.etag)
        assert.strictEqual(after.clusters.reduce((n, c) => n + c.count, 0), 4 * N + 1)
        assert.strictEqual((await client(url, token).post(`/v1/projects/${created.body.data.id}/archive`)).status, 200)
        assert.strictEqual((await client(url, token).del(`/v1/projects/${created.body.data.id}`)).status, 204)
        const deleted = await fetchTile(url, token, { "if-none-match": after.etag! })
        assert.strictEqual(deleted.status, 200)
        assert.strictEqual(deleted.clusters.reduce((n, c) => n + c.count, 0), 4 * N)
      }, 180_000)
  })

for (const [store, open] of stores) suite(store, open)
