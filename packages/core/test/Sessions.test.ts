/**
 * Sign-in's cost: every attempt that passes the limits runs exactly one scrypt,
 * whether the email exists, has a password, or the password is right; a refused attempt runs none.
 * scrypt is counted at `node:crypto`, below `Passwords`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { vi } from "vitest"
import { Accounts, Canopy, Credentials, Members, MemoryStorage, Sessions, Time } from "../src/index.ts"

const scrypts = vi.hoisted(() => ({ count: 0, parameters: new Set<string>() }))
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>()
  const scrypt = (...args: Array<unknown>) => {
    scrypts.count++
    const { N, p, r } = args[3] as { N: number; r: number; p: number }
    scrypts.parameters.add(`N=${N} r=${r} p=${p} salt=${(args[1] as Uint8Array).length}B key=${String(args[2])}B`)
    return (actual.scrypt as (...a: Array<unknown>) => void)(...args)
  }
  return { ...actual, scrypt, default: { ...actual, scrypt } }
})

const clock = Time.manual(Date.UTC(2026, 5, 1))
const world = Canopy.layer.pipe(Layer.provideMerge(MemoryStorage.layer), Layer.provideMerge(Layer.succeed(Time.Time, clock.service)))

/** Runs an attempt; answers its outcome and how many scrypt runs it cost. */
const cost = <A, E extends { readonly _tag: string }>(attempt: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const before = scrypts.count
    const exit = yield* Effect.exit(attempt)
    const outcome = Exit.isSuccess(exit) ? "signed in" : (exit.cause.reasons[0] as { error?: { _tag?: string } })?.error?._tag ?? "defect"
    return `${outcome} × ${scrypts.count - before}`
  })

layer(world, { excludeTestServices: true })("sign-in cost", (it) => {
  it.effect("one scrypt per attempt past the limits, whatever the email; none for a refused attempt", () =>
    Effect.gen(function*() {
      const b = yield* (yield* Accounts).bootstrap({ account_name: "Costly", email: "costly@example.com" })
      yield* (yield* Members).accept(b.password_token, { name: "Cora", password: "the right password" })
      const admin = yield* (yield* Credentials).authenticate(b.api_key.token)
      yield* (yield* Members).invite(admin, { email: "invited@example.com", role: "viewer" })
      const sessions = yield* Sessions
      const id = b.account.id
      let n = 0
      const ip = () => `192.0.2.${++n}`

      const seen = {
        "signIn, right password": yield* cost(sessions.signIn(id, "costly@example.com", "the right password", ip())),
        "signIn, wrong password": yield* cost(sessions.signIn(id, "costly@example.com", "a wrong password", ip())),
        "signIn, unknown email": yield* cost(sessions.signIn(id, "nobody@example.com", "a wrong password", ip())),
        "signIn, invited member without a password": yield* cost(sessions.signIn(id, "invited@example.com", "a wrong password", ip())),
        "signInAnywhere, right password": yield* cost(sessions.signInAnywhere("costly@example.com", "the right password", ip())),
        "signInAnywhere, wrong password": yield* cost(sessions.signInAnywhere("costly@example.com", "a wrong password", ip())),
        "signInAnywhere, unknown email": yield* cost(sessions.signInAnywhere("nobody@example.com", "a wrong password", ip())),
        "signInAnywhere, invited member without a password": yield* cost(sessions.signInAnywhere("invited@example.com", "a wrong password", ip()))
      }
      assert.deepStrictEqual(seen, {
        "signIn, right password": "signed in × 1",
        "signIn, wrong password": "Unauthorized × 1",
        "signIn, unknown email": "Unauthorized × 1",
        "signIn, invited member without a password": "Unauthorized × 1",
        "signInAnywhere, right password": "signed in × 1",
        "signInAnywhere, wrong password": "Unauthorized × 1",
        "signInAnywhere, unknown email": "Unauthorized × 1",
        "signInAnywhere, invited member without a password": "Unauthorized × 1"
      })

      assert.deepStrictEqual([...scrypts.parameters], ["N=16384 r=8 p=1 salt=16B key=32B"], "every check costs the same")

      // past the email's limit, attempts cost nothing, on either path
      for (let i = 0; i < 10; i++) yield* Effect.exit(sessions.signInAnywhere("nobody@example.com", "a wrong password", ip()))
      assert.strictEqual(yield* cost(sessions.signInAnywhere("nobody@example.com", "a wrong password", ip())), "RateLimited × 0")
      assert.strictEqual(yield* cost(sessions.signIn(id, "NOBODY@example.com", "a wrong password", ip())), "RateLimited × 0")
      // past the address's limit too
      for (let i = 0; i < 25; i++) yield* Effect.exit(sessions.signInAnywhere(`spray-${i}@example.com`, "a wrong password", "198.51.100.9"))
      assert.strictEqual(yield* cost(sessions.signInAnywhere("costly@example.com", "the right password", "198.51.100.9")), "RateLimited × 0")
      assert.strictEqual(yield* cost(sessions.signIn(id, "costly@example.com", "the right password", "198.51.100.9")), "RateLimited × 0")
    }), { timeout: 60_000 })
})
