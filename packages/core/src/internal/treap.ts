/**
 * An ordered set of small integers (node ids 0..n-1) kept as a treap with parent pointers: insert
 * by a caller's comparison, remove by id, and step to the neighbours of an id, each in O(log n)
 * expected time whatever the order of the keys (priorities are random, so no input can unbalance
 * it). The order lives only in the caller's comparisons; the tree never compares ids itself.
 * Its arrays are scratch arrays (./scratch.ts): made inside a `scratch` scope, it lives as long as the scope.
 */
import { float64, int32, uint8 } from "./scratch.ts"

/** The ordered set (see the module comment). */
export class Treap {
  private readonly left: Int32Array
  private readonly right: Int32Array
  private readonly up: Int32Array
  private readonly priority: Float64Array
  private readonly member: Uint8Array
  private root = -1

  constructor(capacity: number) {
    this.left = int32(capacity)
    this.right = int32(capacity)
    this.up = int32(capacity)
    this.priority = float64(capacity)
    this.member = uint8(capacity)
  }

  /** Whether `x` is in the set. */
  has(x: number): boolean {
    return this.member[x] === 1
  }

  /** Inserts `x`; `after(t)` says whether `x` belongs after the member `t`. */
  insert(x: number, after: (t: number) => boolean): void {
    const { left, right, up } = this
    left[x] = right[x] = -1
    this.priority[x] = Math.random()
    this.member[x] = 1
    let t = this.root
    if (t < 0) {
      this.root = x
      up[x] = -1
      return
    }
    for (;;) {
      if (after(t)) {
        if (right[t]! < 0) {
          right[t] = x
          break
        }
        t = right[t]!
      } else {
        if (left[t]! < 0) {
          left[t] = x
          break
        }
        t = left[t]!
      }
    }
    up[x] = t
    while (up[x]! >= 0 && this.priority[x]! < this.priority[up[x]!]!) this.rotateUp(x)
  }

  /** Removes the member `x`. */
  remove(x: number): void {
    const { left, right, up, priority } = this
    for (;;) {
      const l = left[x]!, r = right[x]!
      if (l < 0 && r < 0) break
      this.rotateUp(l < 0 ? r : r < 0 ? l : priority[l]! < priority[r]! ? l : r)
    }
    const p = up[x]!
    if (p < 0) this.root = -1
    else if (left[p] === x) left[p] = -1
    else right[p] = -1
    this.member[x] = 0
  }

  /** The first member, or -1. */
  first(): number {
    let t = this.root
    if (t < 0) return -1
    while (this.left[t]! >= 0) t = this.left[t]!
    return t
  }

  /** The member after `x`, or -1. */
  next(x: number): number {
    return this.step(x, this.right, this.left)
  }

  /** The member before `x`, or -1. */
  prev(x: number): number {
    return this.step(x, this.left, this.right)
  }

  /** The last member `t` with `before(t)` true, when `before` holds for a prefix of the order; or -1. */
  lastWhere(before: (t: number) => boolean): number {
    let t = this.root, found = -1
    while (t >= 0) {
      if (before(t)) {
        found = t
        t = this.right[t]!
      }
      else t = this.left[t]!
    }
    return found
  }

  private step(x: number, forward: Int32Array, backward: Int32Array): number {
    let t = forward[x]!
    if (t >= 0) {
      while (backward[t]! >= 0) t = backward[t]!
      return t
    }
    t = x
    let p = this.up[t]!
    while (p >= 0 && forward[p] === t) {
      t = p
      p = this.up[t]!
    }
    return p
  }

  private rotateUp(x: number): void {
    const { left, right, up } = this
    const p = up[x]!, g = up[p]!
    if (left[p] === x) {
      left[p] = right[x]!
      if (right[x]! >= 0) up[right[x]!] = p
      right[x] = p
    } else {
      right[p] = left[x]!
      if (left[x]! >= 0) up[left[x]!] = p
      left[x] = p
    }
    up[p] = x
    up[x] = g
    if (g < 0) this.root = x
    else if (left[g] === p) left[g] = x
    else right[g] = x
  }
}
