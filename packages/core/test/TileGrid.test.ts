/**
 * The zoom grid (`TileGrid`): Morton keys round-trip, a coarser cell is the finer key shifted, a
 * tile's cells at its level are one range of keys lying inside it (16 × 16 to 32 × 32 to zoom
 * 14), and the Promise facade's `projects.zoomCells` answers an account's cells for a tile
 * (memory store).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { type Canopy, createCanopy, memoryStorage } from "../src/Canopy.ts"
import type { Principal } from "../src/Principal.ts"
import { squareHa } from "../src/testing/fixtures.ts"
import * as TileGrid from "../src/TileGrid.ts"

const coordinate = fc.integer({ min: 0, max: 2 ** TileGrid.FINEST - 1 })

describe("TileGrid", () => {
  it("interleave and deinterleave are inverse; shifting a key two bits is its cell one level up", () => {
    fc.assert(fc.property(coordinate, coordinate, (x, y) => {
      const key = TileGrid.interleave(x, y)
      assert.deepStrictEqual(TileGrid.deinterleave(key), [x, y])
      assert.strictEqual(Math.floor(key / 4), TileGrid.interleave(Math.floor(x / 2), Math.floor(y / 2)))
    }))
  })

  it("a tile's cells at its level are one range of keys, each inside the tile, at most 32 × 32 (16 × 16 at least to zoom 14)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 18 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (z, u, v) => {
        const x = Math.floor(u * 2 ** z)
        const y = Math.floor(v * 2 ** z)
        const level = TileGrid.levelFor(z)
        assert.isAbove(level, z)
        const { lo, hi } = TileGrid.cellRange(z, x, y, level)
        assert.isAtMost(hi - lo + 1, 32 * 32)
        // 16 × 16 at least to zoom 14; finer tiles share the finest counted level (19)
        assert.isAtLeast(hi - lo + 1, z <= 14 ? 16 * 16 : 4 ** (19 - z))
        for (const key of [lo, hi, Math.floor((lo + hi) / 2)]) {
          const [px, py] = TileGrid.cellInTile(level, key, { z, x, y }, 4096)
          assert.isTrue(px > 0 && px < 4096 && py > 0 && py < 4096, `${key} at ${px},${py}`)
        }
      })
    )
  })

  it("a box's cell holds its centre: the keys of neighbouring centres share their coarse cells", () => {
    const a = TileGrid.cellOf([5.0, 45.0, 5.002, 45.002])
    const b = TileGrid.cellOf([5.0001, 45.0001, 5.0021, 45.0021])
    const shift = 4 ** (TileGrid.FINEST - 11)
    assert.strictEqual(Math.floor(a / shift), Math.floor(b / shift))
    assert.notStrictEqual(a, TileGrid.cellOf([-70, -33, -69.99, -32.99]))
  })
})

describe("createCanopy's projects.zoomCells", () => {
  let canopy: Canopy
  let principal: Principal
  beforeAll(async () => {
    canopy = await createCanopy({ storage: memoryStorage() })
    const b = await canopy.bootstrap({ account_name: "Estate", email: "owner@example.com", plan: "pro" })
    principal = await canopy.authenticate(b.api_key.token)
  })
  afterAll(() => canopy.close())

  it("the account's cells under a tile, with their projects and hectares", async () => {
    await canopy.projects.create(principal, { name: "Oak", geometry: squareHa(3, 10, 0) })
    await canopy.projects.create(principal, { name: "Beech", geometry: squareHa(2, 10, 0.5) })
    const { level, cells } = await canopy.projects.zoomCells(principal, { z: 4, x: 8, y: 7 })
    assert.strictEqual(level, TileGrid.levelFor(4))
    assert.strictEqual(cells.reduce((n, c) => n + c.projects, 0), 2)
    assert.closeTo(cells.reduce((n, c) => n + c.hectares, 0), 5, 0.01)
    assert.deepStrictEqual((await canopy.projects.zoomCells(principal, { z: 4, x: 0, y: 0 })).cells, [])
  })
})
