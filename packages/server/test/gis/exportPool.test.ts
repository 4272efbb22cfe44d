/**
 * The export workers' budgets (gis/exportOffload.ts): files of one account and waiting files past
 * their share are refused with RateLimited; a build past its time is a defect and its worker is
 * ended (the next file starts a new one); the projects' buffers are handed to the worker, not copied.
 */
import { Geometry } from "@canopy/core"
import { Cause, Effect, Exit } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { type ExportPool, makeExportPool } from "../../src/gis/exportOffload.ts"
import { NORTH } from "./fixtures.ts"

const record = () =>
  new TextEncoder().encode(JSON.stringify({
    id: "prj_1",
    name: "North",
    slug: "north",
    description: null,
    status: "active",
    area_hectares: Geometry.areaHectares(NORTH as unknown as Geometry.Boundary),
    geometry: NORTH
  }))

let pool: ExportPool | undefined
afterEach(async () => {
  await pool?.close()
  pool = undefined
})

describe("export pool", () => {
  it("builds a file in a worker, the projects' buffers handed over (not copied)", async () => {
    pool = makeExportPool()
    const input = record()
    const bytes = await Effect.runPromise(pool.build("shapefile", [input], { baseName: "north" }))
    expect(bytes[0]).toBe(0x50) // "PK"
    expect(input.byteLength).toBe(0) // transferred to the worker
    expect(pool.stats()).toMatchObject({ workers: 1, jobs: 1, failed: 0 })
  })

  it("refuses an account past its share, and any file once the queue is full", async () => {
    pool = makeExportPool({ workers: 1, queued: 1, perAccount: 1 })
    const first = Effect.runPromise(pool.build("geopackage", [record()], { baseName: "a", owner: "acct_a" }))
    const again = await Effect.runPromiseExit(pool.build("geopackage", [record()], { baseName: "a", owner: "acct_a" }))
    expect(Exit.isFailure(again) && Cause.pretty(again.cause)).toMatch(/RateLimited|Too many export files/)
    const waiting = Effect.runPromise(pool.build("geopackage", [record()], { baseName: "b", owner: "acct_b" }))
    const full = await Effect.runPromiseExit(pool.build("geopackage", [record()], { baseName: "c", owner: "acct_c" }))
    expect(Exit.isFailure(full) && Cause.pretty(full.cause)).toMatch(/Too many export files/)
    await Promise.all([first, waiting])
  })

  it("a build past its time is a defect, and its worker is ended", async () => {
    pool = makeExportPool({ timeMs: 1 })
    const late = await Effect.runPromiseExit(pool.build("geopackage", [record()], { baseName: "slow" }))
    expect(Exit.isFailure(late) && Cause.pretty(late.cause)).toMatch(/took longer than 0\.001 s to build/)
    expect(pool.stats()).toMatchObject({ workers: 0, failed: 1 })
  })
})
