/**
 * The reads one chunk of an import shares (`importReads`), over the in-memory reference store:
 * the account and a box's neighbours read once within a chunk; a project written is met by the
 * next read at once; a project excluded is left out as the store would; outside a chunk every
 * read goes to the store.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MemoryStorage } from "../src/index.ts"
import { Storage, type StorageShape } from "../src/Storage.ts"
import { importReads } from "../src/services/importReads.ts"
import { projectRow } from "../src/testing/fixtures.ts"
import { newAccountRow } from "../src/testing/storage/helpers.ts"

/** The store, counting its account and neighbour reads. */
const counting = (s: StorageShape) => {
  const calls = { accounts: 0, meeting: 0 }
  const storage: StorageShape = {
    ...s,
    accounts: { ...s.accounts, get: (id) => Effect.suspend(() => (calls.accounts++, s.accounts.get(id))) },
    projects: { ...s.projects, meeting: (a, b, o) => Effect.suspend(() => (calls.meeting++, s.projects.meeting(a, b, o))) }
  }
  return { storage, calls }
}

layer(MemoryStorage.layer)("importReads", (it) => {
  it.effect("within a chunk: read once, a write met at once, an excluded project left out; outside: the store's", () =>
    Effect.gen(function*() {
      const { storage, calls } = counting(yield* Storage)
      const a = yield* newAccountRow(storage)
      const reads = importReads(storage)
      const shared = reads.storage
      const box = [8, 48, 8.01, 48.01] as const
      yield* shared.projects.insert(projectRow(a.id, { name: "First", bbox: [8, 48, 8.005, 48.005] }))

      reads.begin(a.id)
      yield* shared.accounts.get(a.id)
      yield* shared.accounts.get(a.id)
      assert.strictEqual(calls.accounts, 1)
      const first = yield* shared.projects.meeting(a.id, box, { limit: 10 })
      assert.deepStrictEqual(first.map((n) => n.name), ["First"])
      // Asked again with a project it did not hold excluded (a create's own check): no read.
      assert.deepStrictEqual((yield* shared.projects.meeting(a.id, box, { limit: 10, excludeId: "prj_new" })).map((n) => n.name), ["First"])
      assert.strictEqual(calls.meeting, 1)
      // A held project excluded is left out.
      assert.deepStrictEqual(yield* shared.projects.meeting(a.id, box, { limit: 10, excludeId: first[0]!.id }), [])
      // A project written is met by the next read.
      yield* shared.projects.insert(projectRow(a.id, { name: "Second", bbox: [8.004, 48.004, 8.01, 48.01] }))
      assert.deepStrictEqual((yield* shared.projects.meeting(a.id, box, { limit: 10 })).map((n) => n.name).sort(), ["First", "Second"])
      assert.strictEqual(calls.meeting, 2)
      // A full answer with a held project excluded may leave one out: the store is asked.
      assert.strictEqual((yield* shared.projects.meeting(a.id, box, { limit: 1, excludeId: first[0]!.id })).length, 1)
      reads.end(a.id)

      yield* shared.accounts.get(a.id)
      yield* shared.projects.meeting(a.id, box, { limit: 10 })
      assert.strictEqual(calls.accounts, 2)
      assert.isAtLeast(calls.meeting, 4)
    }))
})
