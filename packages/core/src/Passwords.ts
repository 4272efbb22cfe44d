/**
 * Member passwords, hashed with scrypt (memory-hard): `scrypt$N$r$p$<salt b64>$<hash b64>`.
 * Verification recomputes with the stored parameters and compares in constant time.
 */
import { randomBytes, scrypt } from "node:crypto"
import * as ConstantTime from "./ConstantTime.ts"
import { Effect } from "effect"

const N = 16_384
const R = 8
const P = 1
const KEY_LENGTH = 32

/** Shortest and longest accepted password. */
export const MIN_LENGTH = 10
export const MAX_LENGTH = 200

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: 64 * 1024 * 1024 },
      (err, key) => resume(err ? Effect.die(err) : Effect.succeed(key)))
  })

/** Hashes a password with a fresh salt. */
export const hash = (password: string): Effect.Effect<string> =>
  Effect.gen(function*() {
    const salt = randomBytes(16)
    const key = yield* derive(password, salt, N, R, P)
    return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`
  })

/** Whether `password` matches a stored hash; false for malformed hashes. */
export const verify = (password: string, stored: string): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const [scheme, n, r, p, salt, expected] = stored.split("$")
    if (scheme !== "scrypt" || !n || !r || !p || !salt || !expected) return false
    const want = Buffer.from(expected, "base64")
    const key = yield* derive(password, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p))
    return ConstantTime.equalBytes(key, want)
  })
