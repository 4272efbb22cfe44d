/**
 * @canopy/client's `projects.overlaps` and `overlapsAll` against a real `canopy serve` process:
 * the projects sharing area with one, walked across pages with the server's cursors, typed errors
 * for a bad cursor and another account's project.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Canopy, NotFoundError, ValidationError } from "../src/index.ts"
import { type LiveServer, startLiveServer } from "./support.ts"

const rect = (w: number, s: number, e: number, n: number) => ({
  type: "Polygon" as const,
  coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]]
})

let server: LiveServer
let client: Canopy

beforeAll(async () => {
  server = await startLiveServer(Math.random().toString(36).slice(2, 8))
  client = new Canopy({ apiKey: server.pro.api_key, baseUrl: server.url, maxRetries: 0 })
}, 60_000)

afterAll(async () => {
  await server?.stop()
}, 30_000)

describe("@canopy/client: a project's overlaps", () => {
  it("overlaps answers a page by name; overlapsAll walks every page; a bad cursor and another account's project are typed errors", async () => {
    const centre = await client.projects.create({ name: "Centre", geometry: rect(5, 5, 5.01, 5.01) })
    const names = ["Elm", "Ash", "Oak", "Birch", "Fir"]
    for (const [i, name] of names.entries()) {
      await client.projects.create({ name, geometry: rect(5.001 + i * 0.0015, 4.999, 5.002 + i * 0.0015, 5.002) })
    }
    await client.projects.create({ name: "Far", geometry: rect(6, 6, 6.01, 6.01) })
    const first = await client.projects.overlaps(centre.id, { per_page: 2 })
    expect(first.data.map((o) => o.name)).toEqual(["Ash", "Birch"])
    expect(first.meta.has_more).toBe(true)
    expect(first.data[0]!.overlap_hectares).toBeGreaterThan(0)
    const all: Array<string> = []
    for await (const o of client.projects.overlapsAll(centre.id, { per_page: 2 })) all.push(o.name)
    expect(all).toEqual([...names].sort())
    await expect(client.projects.overlaps(centre.id, { cursor: "not-ours" })).rejects.toBeInstanceOf(ValidationError)
    const other = new Canopy({ apiKey: server.free.api_key, baseUrl: server.url, maxRetries: 0 })
    await expect(other.projects.overlaps(centre.id)).rejects.toBeInstanceOf(NotFoundError)
  })
})
