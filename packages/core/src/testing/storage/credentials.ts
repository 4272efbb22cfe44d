/** The storage contract's cases for credentials and OAuth. */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import * as Ids from "../../Ids.ts"
import { Storage } from "../../Storage.ts"
import { credentialRow } from "../fixtures.ts"
import { iso, newAccountRow } from "./helpers.ts"

export const credentialsCases = (it: Vitest.MethodsNonLive<Storage>): void => {
  it.effect("oauth: clients per account; a code is used by exactly one caller; a refresh token rotates once; families revoke together", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const b = yield* newAccountRow(s)
      const client = {
        id: Ids.make("oauthClient"),
        account_id: a.id,
        name: "Field app",
        redirect_uris: ["https://app.example.com/cb"],
        scopes: ["projects:read", "offline_access"],
        confidential: false,
        allowed_origins: [],
        secret_hash: null,
        created_at: iso(1),
        updated_at: iso(1)
      }
      yield* s.oauth.insertClient(client)
      assert.deepStrictEqual(yield* s.oauth.getClient(client.id), client)
      assert.deepStrictEqual((yield* s.oauth.listClients(a.id)).map((c) => c.id), [client.id])
      assert.lengthOf(yield* s.oauth.listClients(b.id), 0)
      assert.isUndefined(yield* s.oauth.updateClient(b.id, client.id, { name: "stolen" }))
      assert.isFalse(yield* s.oauth.deleteClient(b.id, client.id))
      assert.strictEqual((yield* s.oauth.updateClient(a.id, client.id, { name: "Renamed", confidential: true, secret_hash: "h" }))?.confidential, true)

      const code = {
        code_hash: Ids.randomBase32(40),
        client_id: client.id,
        account_id: a.id,
        user_id: Ids.make("user"),
        redirect_uri: "https://app.example.com/cb",
        scopes: ["projects:read"],
        code_challenge: null,
        expires_at: 2_000_000_000_000,
        used_at: null,
        created_at: iso(2)
      }
      yield* s.oauth.insertCode(code)
      assert.deepStrictEqual(yield* s.oauth.getCode(code.code_hash), code, "reading a code does not use it")
      assert.isUndefined(yield* s.oauth.getCode("nope"))
      const uses = yield* Effect.all(Array.from({ length: 8 }, () => s.oauth.useCode(code.code_hash, 1_000)), { concurrency: "unbounded" })
      assert.strictEqual(uses.filter((u) => u?.used_at === null).length, 1)
      assert.isTrue(uses.every((u) => u?.code_hash === code.code_hash))
      assert.isUndefined(yield* s.oauth.useCode("nope", 1))
      assert.strictEqual((yield* s.oauth.getCode(code.code_hash))?.used_at, 1_000)

      const token = (kind: "access" | "refresh", family: string) => ({
        id: Ids.make("oauthToken"),
        token_hash: Ids.randomBase32(52),
        kind,
        client_id: client.id,
        account_id: a.id,
        user_id: code.user_id,
        scopes: ["projects:read"],
        family_id: family,
        expires_at: kind === "access" ? 5_000 : null,
        rotated_at: null,
        revoked_at: null,
        last_used_at: 1_000,
        created_at: iso(3)
      })
      const family = Ids.randomBase32(20)
      const access = token("access", family)
      const refresh = token("refresh", family)
      const other = token("access", Ids.randomBase32(20))
      for (const x of [access, refresh, other]) yield* s.oauth.insertToken(x)
      assert.deepStrictEqual(yield* s.oauth.getToken(refresh.token_hash), refresh)
      const rotations = yield* Effect.all(Array.from({ length: 6 }, () => s.oauth.rotate(refresh.token_hash, 2_000)), { concurrency: "unbounded" })
      assert.strictEqual(rotations.filter(Boolean).length, 1)
      assert.strictEqual((yield* s.oauth.getToken(access.token_hash))?.last_used_at, 1_000)
      assert.strictEqual(yield* s.oauth.revokeFamily(family, 4_000), 2)
      assert.strictEqual(yield* s.oauth.revokeFamily(family, 5_000), 0)
      assert.strictEqual((yield* s.oauth.getToken(access.token_hash))?.revoked_at, 4_000)
      assert.isNull((yield* s.oauth.getToken(other.token_hash))?.revoked_at)
      assert.isTrue(yield* s.oauth.deleteClient(a.id, client.id))
    }))

  it.effect("oauth: an application's allowed origins are kept, changed and found exactly; a token is found by its id", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const suffix = Ids.randomBase32(8).toLowerCase()
      const origin = `https://spa-${suffix}.example.com`
      const client = {
        id: Ids.make("oauthClient"),
        account_id: a.id,
        name: "Browser app",
        redirect_uris: [`${origin}/cb`],
        scopes: ["profile"],
        confidential: false,
        allowed_origins: [origin, "http://localhost:5173"],
        secret_hash: null,
        created_at: iso(1),
        updated_at: iso(1)
      }
      yield* s.oauth.insertClient(client)
      assert.deepStrictEqual((yield* s.oauth.getClient(client.id))?.allowed_origins, [origin, "http://localhost:5173"])
      assert.isTrue(yield* s.oauth.originAllowed(origin))
      // exact match only: no prefix, suffix, other port or LIKE wildcard gets in
      for (const other of [`https://spa-${suffix}.example.co`, `${origin}:8443`, `https://x${origin.slice(8)}`, "https://%",
        "https://_pa-" + suffix + ".example.com"]) {
        assert.isFalse(yield* s.oauth.originAllowed(other), other)
      }
      const moved = `https://moved-${suffix}.example.com`
      assert.deepStrictEqual((yield* s.oauth.updateClient(a.id, client.id, { allowed_origins: [moved] }))?.allowed_origins, [moved])
      assert.isFalse(yield* s.oauth.originAllowed(origin))
      assert.isTrue(yield* s.oauth.originAllowed(moved))
      const token = {
        id: Ids.make("oauthToken"),
        token_hash: Ids.randomBase32(52),
        kind: "access" as const,
        client_id: client.id,
        account_id: a.id,
        user_id: Ids.make("user"),
        scopes: ["profile"],
        family_id: Ids.randomBase32(20),
        expires_at: 5_000,
        rotated_at: null,
        revoked_at: null,
        last_used_at: 1_000,
        created_at: iso(2)
      }
      yield* s.oauth.insertToken(token)
      assert.deepStrictEqual(yield* s.oauth.getTokenById(token.id), token)
      assert.isUndefined(yield* s.oauth.getTokenById(Ids.make("oauthToken")))
      assert.isTrue(yield* s.oauth.deleteClient(a.id, client.id))
      assert.isFalse(yield* s.oauth.originAllowed(moved))
    }))

  it.effect("credentials: revoke once, touch, list by kind", () =>
    Effect.gen(function*() {
      const s = yield* Storage
      const a = yield* newAccountRow(s)
      const key = credentialRow(a.id, { created_at: iso(1) })
      const svc = credentialRow(a.id, { id: Ids.make("serviceToken"), kind: "service_token", created_at: iso(2) })
      yield* s.credentials.insert(key)
      yield* s.credentials.insert(svc)
      assert.deepStrictEqual((yield* s.credentials.list(a.id, "api_key")).map((c) => c.id), [key.id])
      assert.deepStrictEqual((yield* s.credentials.list(a.id, "service_token")).map((c) => c.id), [svc.id])
      yield* s.credentials.touch(key.id, iso(3))
      assert.strictEqual((yield* s.credentials.get(a.id, key.id))?.last_used_at, iso(3))
      assert.isTrue(yield* s.credentials.revoke(a.id, key.id, iso(4)))
      assert.isFalse(yield* s.credentials.revoke(a.id, key.id, iso(5)))
      assert.strictEqual((yield* s.credentials.getByHash(key.token_hash))?.revoked_at, iso(4))
    }))
}
