/**
 * The client's pagination helper (`listAll`) against a loopback server serving scripted pages by
 * cursor: it goes on across pages that hold no rows while `has_more` is true (as a projects list
 * filtered by `intersects` may answer), stops at the end, and refuses a cursor it already followed.
 */
import { afterEach, describe, expect, it } from "vitest"
import { Canopy, CanopyError } from "../src/index.ts"
import { startLocalServer } from "./support.ts"

const page = (names: ReadonlyArray<string>, next: string | null) =>
  JSON.stringify({
    data: names.map((n) => ({ id: `proj_${n}`, name: n, slug: n, description: null, geometry: null, status: "active" })),
    meta: { total: names.length, total_exact: false, per_page: 3, has_more: next !== null, next_cursor: next, request_id: "req_local" }
  })

/** A server answering GET /v1/projects with `pages[cursor]` ("" without a cursor). */
const pagedServer = (pages: Record<string, string>) =>
  startLocalServer((req) => {
    const url = new URL(req.url, "http://local")
    const body = url.pathname === "/v1/projects" ? pages[url.searchParams.get("cursor") ?? ""] : undefined
    return body !== undefined
      ? { status: 200, body }
      : { status: 400,
        body: JSON.stringify({ error: { code: "VALIDATION_ERROR", message: `unknown ${req.url}`, details: [] }, meta: { request_id: "req_local" } }) }
  })

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

const point = JSON.stringify({ type: "Point", coordinates: [40.005, -9.99] })

describe("listAll across pages that may be empty", () => {
  it("follows has_more across pages of no rows and yields the later rows, keeping the filters", async () => {
    const srv = await pagedServer({ "": page([], "c1"), c1: page([], "c2"), c2: page(["a"], "c3"), c3: page(["b", "c", "d"], null) })
    closers.push(srv.close)
    const client = new Canopy({ apiKey: "cnp_key_local", baseUrl: srv.url, maxRetries: 0 })
    const names: Array<string> = []
    for await (const p of client.projects.listAll({ intersects: point, per_page: 3, sort: "name" })) names.push(p.name)
    expect(names).toEqual(["a", "b", "c", "d"])
    const queries = srv.received.map((r) => new URL(r.url, "http://local").searchParams)
    expect(queries.map((q) => q.get("cursor"))).toEqual([null, "c1", "c2", "c3"])
    for (const q of queries) {
      expect(q.get("intersects")).toBe(point)
      expect(q.get("per_page")).toBe("3")
      expect(q.get("sort")).toBe("name")
      expect(q.has("page")).toBe(false)
    }
  })

  it("stops at a page without has_more, empty or not, with no further request", async () => {
    const srv = await pagedServer({ "": page(["a"], "c1"), c1: page([], null) })
    closers.push(srv.close)
    const client = new Canopy({ apiKey: "cnp_key_local", baseUrl: srv.url, maxRetries: 0 })
    const names: Array<string> = []
    for await (const p of client.projects.listAll({ intersects: point })) names.push(p.name)
    expect(names).toEqual(["a"])
    expect(srv.received).toHaveLength(2)
  })

  it("refuses a cursor it already followed instead of looping", async () => {
    const srv = await pagedServer({ "": page([], "c1"), c1: page([], "c1") })
    closers.push(srv.close)
    const client = new Canopy({ apiKey: "cnp_key_local", baseUrl: srv.url, maxRetries: 0 })
    const walk = async () => {
      for await (const _ of client.projects.listAll({ intersects: point })) { /* nothing to yield */ }
    }
    const err = await walk().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CanopyError)
    expect((err as CanopyError).message).toContain("c1")
    expect(srv.received).toHaveLength(2)
  })
})
