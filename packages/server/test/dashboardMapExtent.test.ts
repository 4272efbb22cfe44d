/**
 * The overview map's one request (`GET /dashboard/map/extent.json`) over a real socket on SQLite
 * and PostgreSQL: the account's exact project count and the union of the boxes of its 1,000
 * largest projects — a smaller project elsewhere is counted but left out of the box, another
 * account's projects are neither — and a 401 JSON body without a session.
 */
import { Principal } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { dashboardSession } from "./dashboardSession.ts"
import { squareOfHectares as square } from "@canopy/server/testing"
import { serverOnEachStore, type StoreServer } from "./stores.ts"

for (const [store, start] of serverOnEachStore) {
  describe(`the overview map's count and extent on ${store}`, () => {
    let running: StoreServer
    beforeAll(async () => {
      running = await start()
    }, 60_000)
    afterAll(() => running?.close())

    it("the exact count, the box of the 1,000 largest projects, nothing of another account; 401 without a session", async () => {
      const { canopy, url } = running.running
      const owner = async (n: string) => {
        const b = await canopy.bootstrap({ account_name: `Extent ${n} ${store}`, email: `extent-${n}-${store}@example.com`, plan: "enterprise" })
        await canopy.members.accept(b.password_token, { name: `Owner ${n}`, password: "owner password!" })
        return { system: Principal.system(b.account.id), cookie: (await dashboardSession(url, `extent-${n}-${store}@example.com`, "owner password!")).cookie }
      }
      const a = await owner("a")
      const other = await owner("b")
      const extentOf = async (cookie: string) => {
        const r = await fetch(`${url}/dashboard/map/extent.json`, { headers: { cookie } })
        assert.strictEqual(r.status, 200)
        assert.strictEqual(r.headers.get("cache-control"), "no-store")
        return (await r.json()) as { count: number; extent: [number, number, number, number] | null }
      }
      assert.deepStrictEqual(await extentOf(a.cookie), { count: 0, extent: null }, "no project yet")

      // 1,000 plots of 1 to 7 ha on a grid, one plot of 0.1 ha far away, one project without a boundary
      let box: [number, number, number, number] | null = null
      for (let i = 0; i < 1_000; i++) {
        const p = await canopy.projects.create(a.system, { name: `Plot ${i}`,
          geometry: square(10 + (i % 40) * 0.01, 50 + Math.floor(i / 40) * 0.01, 1 + (i % 7)) })
        const [w, s, e, n] = p.bbox!
        box = box ? [Math.min(box[0], w!), Math.min(box[1], s!), Math.max(box[2], e!), Math.max(box[3], n!)] : [w!, s!, e!, n!]
      }
      await canopy.projects.create(a.system, { name: "Far small plot", geometry: square(-60, -10, 0.1) })
      await canopy.projects.create(a.system, { name: "No boundary yet" })
      await canopy.projects.create(other.system, { name: "Someone else's", geometry: square(100, 30, 500) })

      const answer = await extentOf(a.cookie)
      assert.strictEqual(answer.count, 1_002, "every project counted")
      assert.deepStrictEqual(answer.extent, box, "the box of the 1,000 largest: the far small plot is left out")
      const theirs = await extentOf(other.cookie)
      assert.strictEqual(theirs.count, 1)
      assert.isTrue(theirs.extent![0] >= 100 && theirs.extent![1] >= 30, JSON.stringify(theirs))

      const anon = await fetch(`${url}/dashboard/map/extent.json`)
      assert.strictEqual(anon.status, 401)
      assert.include(anon.headers.get("content-type"), "application/json")
      assert.match(((await anon.json()) as { error: string }).error, /sign in/)
    }, 300_000)
  })
}
