/**
 * Sign-in limits over a real socket: wrong passwords for one email from several
 * addresses (behind a trusted proxy) are refused with 429 past the email's limit, on the dashboard
 * and on the OAuth sign-in page alike, and the right password waits too.
 */
import { Ids, RateLimit, Storage } from "@canopy/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { sqliteStorage } from "@canopy/adapter-sqlite"
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type RunningServer, serve, startDispatcher } from "../src/index.ts"
import { request } from "@canopy/server/testing"

const dir = mkdtempSync(join(tmpdir(), "canopy-sign-in-"))
let server: RunningServer

beforeAll(async () => {
  // This test process is the trusted proxy: X-Forwarded-For picks the client address.
  server = await serve({ port: 0, host: "127.0.0.1", db: join(dir, "canopy.db"), log: false, dispatcher: false, geometry: false,
    trustedProxies: ["127.0.0.1"] })
})
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

const setCookie = (headers: Headers, name: string) => {
  for (const c of headers.getSetCookie()) if (c.startsWith(`${name}=`)) return decodeURIComponent(c.split(";")[0]!.slice(name.length + 1))
  return undefined
}

/** One sign-in attempt from `address`, through the dashboard or the OAuth page. */
const attempt = async (path: "/dashboard/sign-in" | "/oauth/sign-in", fields: Record<string, string>, address: string) => {
  const page = await request(server.url, "GET", "/dashboard", { headers: { "x-forwarded-for": address } })
  const csrf = setCookie(page.headers, "canopy_csrf")!
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ ...fields, csrf }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: `canopy_csrf=${encodeURIComponent(csrf)}`, "x-forwarded-for": address }
  })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

describe("sign-in limits over HTTP", () => {
  it("40 wrong passwords for one email from 4 addresses: 10 answered 401, then 429 on both pages; the right password waits too", async () => {
    const email = "victim@example.com"
    const b = await server.canopy.bootstrap({ account_name: "Victim Co", email, plan: "pro" })
    await server.canopy.members.accept(b.password_token, { name: "Vic", password: "the right password" })
    const app = await server.canopy.oauth.register({ ...(await server.canopy.authenticate(b.api_key.token)) }, { name: "Portal",
      redirect_uris: ["https://app.example.com/cb"], scopes: ["projects:read"], type: "confidential" })

    const statuses: Array<number> = []
    for (let i = 0; i < 40; i++) {
      const r = await attempt("/dashboard/sign-in", { email, password: `wrong password ${i}` }, `203.0.113.${i % 4}`)
      statuses.push(r.status)
    }
    assert.deepStrictEqual(statuses, [...Array(10).fill(401), ...Array(30).fill(429)])

    const oauthPage = await attempt("/oauth/sign-in", {
      email,
      password: "the right password",
      client_id: app.client_id,
      redirect_uri: "https://app.example.com/cb",
      response_type: "code",
      scope: "projects:read"
    }, "203.0.113.50")
    assert.strictEqual(oauthPage.status, 429, oauthPage.text.slice(0, 300))
    assert.include(oauthPage.text, "Too many sign-in attempts")
    assert.match(oauthPage.headers.get("retry-after") ?? "", /^[1-9]\d*$/)
    const right = await attempt("/dashboard/sign-in", { email, password: "the right password" }, "203.0.113.51")
    assert.strictEqual(right.status, 429)
    assert.match(right.headers.get("retry-after") ?? "", /^[1-9]\d*$/)
    // another member is not locked out by it
    const other = await server.canopy.bootstrap({ account_name: "Bystander Co", email: "bystander@example.com", plan: "pro" })
    await server.canopy.members.accept(other.password_token, { name: "By", password: "another password" })
    const bystander = await attempt("/dashboard/sign-in", { email: "bystander@example.com", password: "another password" }, "203.0.113.52")
    assert.strictEqual(bystander.status, 303, bystander.text.slice(0, 300))
    assert.isDefined(setCookie(bystander.headers, "canopy_session"))
  })

  it("the maintenance loop purges expired sessions and sign-in buckets idle for a day", async () => {
    const b = await server.canopy.bootstrap({ account_name: "Expired Co", email: "expired@example.com", plan: "pro" })
    const expired = { token_hash: Ids.randomBase32(52), account_id: b.account.id, user_id: b.user.id, csrf: "c", expires_at: Date.now() - 1,
      created_at: new Date().toISOString() }
    const live = { ...expired, token_hash: Ids.randomBase32(52), expires_at: Date.now() + 3_600_000 }
    const old = `signin-ip:${Ids.randomBase32(8)}`
    const recent = `signin-ip:${Ids.randomBase32(8)}`
    // The store itself, through a second connection to the server's file (the facade runs domain services only).
    const store = ManagedRuntime.make(sqliteStorage({ filename: join(dir, "canopy.db"), mustExist: true }).layer)
    const storage = Effect.map(Storage.Storage, (s) => s)
    await store.runPromise(Effect.gen(function*() {
      const s = yield* storage
      yield* s.sessions.insert(expired)
      yield* s.sessions.insert(live)
      const bucket = (at: number) => RateLimit.initial({ perMinute: 10, perDay: 100 }, at)
      yield* s.rateLimits.update(old, () => [undefined, bucket(Date.now() - 25 * 3_600_000)] as const)
      yield* s.rateLimits.update(recent, () => [undefined, bucket(Date.now() - 3_600_000)] as const)
    }))
    const dispatcher = startDispatcher(server.canopy, { pollMs: 20 })
    const state = () =>
      store.runPromise(Effect.gen(function*() {
        const s = yield* storage
        const peek = (key: string) => s.rateLimits.update(key, (x) => [x, x ?? RateLimit.initial({ perMinute: 10, perDay: 100 }, 0)] as const)
        return { expired: yield* s.sessions.get(expired.token_hash), live: yield* s.sessions.get(live.token_hash), old: yield* peek(old),
          recent: yield* peek(recent) }
      }))
    try {
      for (let i = 0; i < 100 && (await store.runPromise(Effect.flatMap(storage, (s) => s.sessions.get(expired.token_hash)))); i++) {
        await new Promise((r) => setTimeout(r, 50))
      }
    } finally {
      await dispatcher.stop()
    }
    const after = await state()
    await store.dispose()
    assert.isUndefined(after.expired, "the expired session is gone")
    assert.isDefined(after.live, "a live session stays")
    assert.isUndefined(after.old, "a bucket idle for 25 hours is gone")
    assert.isDefined(after.recent, "a bucket used an hour ago stays")
  })
})
