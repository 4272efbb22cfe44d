/**
 * The sweep-line validator against brute force: on small random polygons (many of them on a tiny
 * integer grid, so edges touch, overlap and run collinear all the time) it must find a crossing
 * exactly when comparing every pair of edges does; its verdicts must not depend on where a ring
 * starts, which way it runs, the order of rings or a mirroring of the plane; and its ordered set
 * must behave like a sorted array.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { orient as exactOrient } from "../src/internal/sweep.ts"
import { topologyProblems } from "../src/internal/topology.ts"
import { Treap } from "../src/internal/treap.ts"

type Pt = readonly [number, number]
type Ring = ReadonlyArray<Pt>

const close = (open: ReadonlyArray<Pt>): Ring => [...open, open[0]!]
const distinct = (open: ReadonlyArray<Pt>) => new Set(open.map(([x, y]) => `${x},${y}`)).size >= 3
const gridRing = fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })), { minLength: 3, maxLength: 7 })
  .filter(distinct).map(close)
const unit = fc.double({ min: 0, max: 1, noNaN: true })
const floatRing = fc.array(fc.tuple(unit, unit), { minLength: 3, maxLength: 8 }).filter(distinct).map(close)
const polygons = (ring: fc.Arbitrary<Ring>) => fc.array(fc.array(ring, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 })

const crossingFound = (polys: ReadonlyArray<ReadonlyArray<Ring>>) => topologyProblems(polys).some((p) => /^(ring self-intersects|rings cross)/.test(p.message))

// ---- brute force: every pair of edges ------------------------------------------------------

const orient = (a: Pt, b: Pt, c: Pt) => exactOrient(a[0], a[1], b[0], b[1], c[0], c[1])
const same = (p: Pt, q: Pt) => p[0] === q[0] && p[1] === q[1]
/** Whether p lies on segment ab (endpoints included). */
const onSegment = (p: Pt, a: Pt, b: Pt) =>
  orient(a, b, p) === 0 && Math.min(a[0], b[0]) <= p[0] && p[0] <= Math.max(a[0], b[0]) &&
  Math.min(a[1], b[1]) <= p[1] && p[1] <= Math.max(a[1], b[1])

type Meeting = "none" | "touch" | "cross" | "overlap"
const meet = (a: Pt, b: Pt, c: Pt, d: Pt): Meeting => {
  const o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b)
  if (o1 === 0 && o2 === 0) {
    const shared = [a, b, c, d].filter((p) => onSegment(p, a, b) && onSegment(p, c, d))
    const points = new Set(shared.map(([x, y]) => `${x},${y}`))
    return points.size >= 2 ? "overlap" : points.size === 1 ? "touch" : "none"
  }
  if (o1 * o2 < 0 && o3 * o4 < 0) return "cross"
  return onSegment(c, a, b) || onSegment(d, a, b) || onSegment(a, c, d) || onSegment(b, c, d) ? "touch" : "none"
}

const edgesOf = (ring: Ring) => {
  const pts = ring.filter((p, i) => i === 0 || !same(p, ring[i - 1]!))
  return pts.slice(0, -1).map((p, i) => [p, pts[i + 1]!] as const)
}

/** Directions (as angles) in which a ring leaves point p. */
const arms = (ring: Ring, p: Pt): Array<number> =>
  edgesOf(ring).flatMap(([a, b]) => same(a, p) ? [b] : same(b, p) ? [a] : onSegment(p, a, b) ? [a, b] : []).map((q) => Math.atan2(q[1] - p[1], q[0] - p[0]))

/** Whether rings a and b cross where they meet at point p (their arms interleave around it). */
const crossAt = (a: Ring, b: Ring, p: Pt) => {
  const [a1, a2] = arms(a, p).sort((x, y) => x - y), bs = arms(b, p)
  if (a1 === undefined || a2 === undefined || bs.length !== 2) return false
  const inside = bs.filter((t) => a1 < t && t < a2).length
  return inside === 1
}

const bruteCrossing = (polys: ReadonlyArray<ReadonlyArray<Ring>>) => {
  const rings = polys.flat()
  for (let r = 0; r < rings.length; r++) {
    const e = edgesOf(rings[r]!)
    for (let i = 0; i < e.length; i++) {
      for (let j = i + 1; j < e.length; j++) {
        const m = meet(e[i]![0], e[i]![1], e[j]![0], e[j]![1])
        const adjacent = j === i + 1 || (i === 0 && j === e.length - 1)
        if (m === "overlap" || m === "cross" || (m === "touch" && !adjacent)) return true
      }
    }
    for (let s = r + 1; s < rings.length; s++) {
      for (const [a, b] of e) {
        for (const [c, d] of edgesOf(rings[s]!)) {
          const m = meet(a, b, c, d)
          if (m === "overlap" || m === "cross") return true
          if (m === "touch") {
            const p = [a, b, c, d].find((q) => onSegment(q, a, b) && onSegment(q, c, d))!
            if (crossAt(rings[r]!, rings[s]!, p)) return true
          }
        }
      }
    }
  }
  return false
}

describe("the sweep line against brute force", () => {
  it("property: finds a crossing exactly when some pair of edges crosses (integer grid)", () => {
    fc.assert(fc.property(polygons(gridRing), (polys) => {
      assert.strictEqual(crossingFound(polys), bruteCrossing(polys), JSON.stringify(polys))
    }), { numRuns: 3000 })
  })

  it("property: finds a crossing exactly when some pair of edges crosses (random doubles)", () => {
    fc.assert(fc.property(polygons(floatRing), (polys) => {
      assert.strictEqual(crossingFound(polys), bruteCrossing(polys), JSON.stringify(polys))
    }), { numRuns: 1000 })
  })

  it("property: the verdict ignores ring start, direction, ring and polygon order, and mirroring", () => {
    const valid = (polys: ReadonlyArray<ReadonlyArray<Ring>>) => topologyProblems(polys).length === 0
    const mirrors: ReadonlyArray<(p: Pt) => Pt> = [([x, y]) => [y, x], ([x, y]) => [-x, y], ([x, y]) => [x, -y], ([x, y]) => [-y, -x]]
    fc.assert(fc.property(polygons(gridRing), fc.nat(), fc.nat(), (polys, k, m) => {
      const expected = valid(polys)
      const turn = (ring: Ring) => {
        const open = ring.slice(0, -1), s = k % open.length
        const turned = close([...open.slice(s), ...open.slice(0, s)])
        return m % 2 ? [...turned].reverse() : turned
      }
      const shuffled = [...polys].reverse().map((rings) => [rings[0]!, ...rings.slice(1).reverse()].map(turn))
      const mirror = mirrors[m % mirrors.length]!
      assert.strictEqual(valid(shuffled), expected, `rotated/reversed: ${JSON.stringify(polys)}`)
      assert.strictEqual(valid(polys.map((rings) => rings.map((r) => r.map(mirror)))), expected, `mirrored: ${JSON.stringify(polys)}`)
    }), { numRuns: 2000 })
  })
})

describe("orient", () => {
  it("stays exact down to subnormal coordinates", () => {
    const d = Number.MIN_VALUE // 2^-1074
    assert.strictEqual(exactOrient(0, 0, d, 0, 0, d), 1)
    assert.strictEqual(exactOrient(0, 0, d, 0, 0, -d), -1)
    assert.strictEqual(exactOrient(0, 0, d, d, 2 * d, 2 * d), 0)
    const s = 2 ** -1000 // scaling by a power of two is exact
    assert.strictEqual(exactOrient(s, s, 3 * s, 2 * s, 10 * s, 4 * s), exactOrient(1, 1, 3, 2, 10, 4))
    assert.strictEqual(exactOrient(s, s, 3 * s, 2 * s, 10 * s, 4 * s), -1)
    assert.strictEqual(exactOrient(0, 0, 1, 1, 1e-300, 1e-300), 0)
    assert.strictEqual(exactOrient(0, 0, 1, 1, 1e-300, 1e-300 * (1 + 2 ** -52)), 1)
  })
})

describe("Treap", () => {
  it("property: insert, remove and neighbours behave like a sorted array", () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 199 })), { maxLength: 300 }), (ops) => {
      const keys = Array.from({ length: 200 }, (_, i) => (i * 7919) % 200) // node i has key keys[i]
      const tree = new Treap(200)
      const model: Array<number> = []
      for (const [add, x] of ops) {
        if (add && !tree.has(x)) {
          tree.insert(x, (t) => keys[x]! > keys[t]!)
          model.push(x)
          model.sort((a, b) => keys[a]! - keys[b]!)
        } else if (!add && tree.has(x)) {
          tree.remove(x)
          model.splice(model.indexOf(x), 1)
        }
      }
      const walked: Array<number> = []
      for (let t = tree.first(); t >= 0; t = tree.next(t)) walked.push(t)
      assert.deepStrictEqual(walked, model)
      model.forEach((x, i) => assert.strictEqual(tree.prev(x), i > 0 ? model[i - 1]! : -1))
      const cut = 100
      const last = tree.lastWhere((t) => keys[t]! < cut)
      assert.strictEqual(last, [...model].reverse().find((t) => keys[t]! < cut) ?? -1)
    }), { numRuns: 300 })
  })
})
