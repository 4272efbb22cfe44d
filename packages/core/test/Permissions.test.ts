import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Permissions } from "../src/index.ts"
import type { Operation, Permission } from "../src/Permissions.ts"

describe("Permissions", () => {
  it("normalises both spellings and :manage", () => {
    assert.deepStrictEqual(Permissions.normalize(["projects.read", "projects:read", "assets:manage", "Members.Write"]), {
      permissions: ["projects:read", "assets:read", "assets:write", "members:write"],
      unknown: []
    })
    assert.deepStrictEqual(Permissions.normalize(["projects:delete", "x"]).unknown, ["projects:delete", "x"])
  })

  it("maps roles as DECISIONS says; admin implies everything", () => {
    assert.deepStrictEqual(Permissions.expand(Permissions.byRole.owner), Permissions.all)
    assert.isFalse(Permissions.allows(Permissions.byRole.admin, "admin"))
    assert.isTrue(Permissions.allows(Permissions.byRole.admin, "billing:read"))
    assert.isFalse(Permissions.allows(Permissions.byRole.editor, "members:write"))
    assert.isTrue(Permissions.allows(Permissions.byRole.editor, "assets:write"))
    assert.deepStrictEqual([...Permissions.byRole.viewer], ["projects:read", "assets:read", "members:read"])
  })

  it("intersects OAuth scopes with the user's current role", () => {
    assert.deepStrictEqual(Permissions.forOAuth(["projects:read", "projects:write", "profile", "offline_access"], "viewer"), ["projects:read"])
    assert.deepStrictEqual(Permissions.forOAuth(["projects:write", "members:read"], "owner"), ["projects:write", "members:read"])
    assert.deepStrictEqual(Permissions.forOAuth(["admin"], "owner"), [], "admin is not an OAuth scope")
  })

  it("property: an OAuth token never has more than its scopes or its role", () => {
    fc.assert(fc.property(fc.subarray([...Permissions.scopes]), fc.constantFrom(...Permissions.roles), (scopes, role) => {
      const got = Permissions.forOAuth(scopes, role)
      for (const p of got) {
        assert.include(scopes as Array<string>, p)
        assert.isTrue(Permissions.allows(Permissions.byRole[role], p))
      }
    }))
  })

  it("the endpoint table: each operation needs what DECISIONS names", () => {
    const need = (op: Operation) => Permissions.required[op]
    assert.strictEqual(need("projects.list"), "projects:read")
    assert.strictEqual(need("projects.archive"), "projects:write")
    assert.strictEqual(need("assets.update"), "assets:write")
    assert.strictEqual(need("members.list"), "members:read")
    assert.strictEqual(need("members.remove"), "members:write")
    assert.strictEqual(need("account.get"), "any")
    assert.strictEqual(need("account.update"), "admin")
    assert.strictEqual(need("account.usage"), "billing:read")
    assert.strictEqual(need("webhooks.logs"), "admin")
    assert.strictEqual(need("auth.verify"), "any")
  })

  it("property: mayPerform is exactly 'any' or allows(required)", () => {
    const ops = Object.keys(Permissions.required) as Array<Operation>
    fc.assert(fc.property(fc.subarray([...Permissions.all]), fc.constantFrom(...ops), (granted: Array<Permission>, op) => {
      const need = Permissions.required[op]
      const expected = need === "any" || granted.includes("admin") || granted.includes(need)
      assert.strictEqual(Permissions.mayPerform(granted, op), expected)
    }))
  })
})
