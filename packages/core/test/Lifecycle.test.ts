import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Lifecycle } from "../src/index.ts"
import type { Command, State } from "../src/Lifecycle.ts"

const ok = (state: State, command: Command) => Result.getOrThrow(Lifecycle.transition(state, command))
const refused = (state: State, command: Command) => Result.isFailure(Lifecycle.transition(state, command))

describe("Lifecycle", () => {
  it("follows the spec's table", () => {
    assert.deepStrictEqual(ok(null, { _tag: "Create" }), { state: "active", event: "project.created" })
    assert.deepStrictEqual(ok(null, { _tag: "Create", status: "draft" }), { state: "draft", event: "project.created" })
    assert.deepStrictEqual(ok("active", { _tag: "Archive" }), { state: "archived", event: "project.archived" })
    assert.deepStrictEqual(ok("draft", { _tag: "Archive" }), { state: "archived", event: "project.archived" })
    assert.deepStrictEqual(ok("archived", { _tag: "Restore" }), { state: "active", event: "project.restored" })
    assert.deepStrictEqual(ok("archived", { _tag: "Delete" }), { state: null, event: "project.deleted" })
    assert.deepStrictEqual(ok("archived", { _tag: "Update", status: "draft" }), { state: "draft", event: "project.updated" })
    assert.deepStrictEqual(ok("draft", { _tag: "Update" }), { state: "draft", event: "project.updated" })
  })

  it("refuses illegal transitions with a reason", () => {
    assert.isTrue(refused("active", { _tag: "Delete" }))
    assert.isTrue(refused("draft", { _tag: "Delete" }))
    assert.isTrue(refused("archived", { _tag: "Archive" }))
    assert.isTrue(refused("active", { _tag: "Restore" }))
    assert.isTrue(refused("active", { _tag: "Create" }))
    assert.isTrue(refused(null, { _tag: "Archive" }))
    const r = Lifecycle.transition("active", { _tag: "Delete" })
    assert.isTrue(Result.isFailure(r) && /archive it first/.test(r.failure.reason))
  })

  const command: fc.Arbitrary<Command> = fc.oneof(
    fc.record({ _tag: fc.constant("Create" as const), status: fc.constantFrom("active" as const, "draft" as const, undefined) }),
    fc.record({ _tag: fc.constant("Update" as const), status: fc.constantFrom(...Lifecycle.statuses, undefined) }),
    fc.constant({ _tag: "Archive" as const }),
    fc.constant({ _tag: "Restore" as const }),
    fc.constant({ _tag: "Delete" as const })
  )
  const expectedEvent: Record<Command["_tag"], string> = {
    Create: "project.created",
    Update: "project.updated",
    Archive: "project.archived",
    Restore: "project.restored",
    Delete: "project.deleted"
  }

  it("property: delete only ever succeeds from archived, and each accepted transition emits exactly its event", () => {
    fc.assert(fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
      let state: State = null
      for (const c of commands) {
        const r = Lifecycle.transition(state, c)
        if (Result.isSuccess(r)) {
          if (c._tag === "Delete") assert.strictEqual(state, "archived")
          assert.strictEqual(r.success.event, expectedEvent[c._tag])
          state = r.success.state
        } else if (c._tag === "Delete") {
          assert.notStrictEqual(state, "archived")
        }
      }
    }), { numRuns: 500 })
  })
})
