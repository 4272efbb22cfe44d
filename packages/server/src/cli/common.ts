/**
 * What the commands share: the usage error, the database a command works on,
 * settings from the environment, links printed for the operator, and output.
 */
import { Accounts, createCanopy, type CanopyClient } from "@canopy/core"
import { Effect } from "effect"
import { parsePublicUrl } from "../pages/site.ts"
import { storageFor } from "../server.ts"

/** A usage error: printed with the command's help, exit code 2. */
export class UsageError extends Error {}

const dbOf = (v: { db?: string | undefined }) => v.db ?? process.env.CANOPY_DB ?? "./canopy.db"
/** Delivery settings from the environment (CANOPY_DELIVERY_LEASE_MS, CANOPY_DELIVERY_TIMEOUT_MS). */
export const deliverySettings = () => ({
  ...(process.env.CANOPY_DELIVERY_LEASE_MS ? { deliveryLeaseMs: Number(process.env.CANOPY_DELIVERY_LEASE_MS) } : {}),
  ...(process.env.CANOPY_DELIVERY_TIMEOUT_MS ? { deliveryTimeoutMs: Number(process.env.CANOPY_DELIVERY_TIMEOUT_MS) } : {})
})

/** The geometry worker pool of `canopy serve`: workers start with the server; sizes from the environment. */
export const geometrySettings = () => {
  const positive = (name: string) => {
    const raw = process.env[name]
    if (raw === undefined || raw === "") return undefined
    const n = Number(raw)
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, got ${raw}`)
    return n
  }
  const workers = positive("CANOPY_GEOMETRY_WORKERS")
  const budgetMs = positive("CANOPY_GEOMETRY_BUDGET_MS")
  return { prewarm: true, ...(workers ? { workers } : {}), ...(budgetMs ? { budgetMs } : {}) }
}

/** The database a command works on: --database-url / DATABASE_URL (PostgreSQL), else the SQLite file. */
export const storageOf = (v: { db?: string | undefined; "database-url"?: string | undefined }) => {
  const databaseUrl = v["database-url"] ?? (process.env.DATABASE_URL || undefined)
  return { db: dbOf(v), databaseUrl, describe: databaseUrl ? "PostgreSQL" : dbOf(v) }
}
/** A flag's value as a positive integer (undefined when the flag is absent); anything else is a usage error. */
export const positiveIntegerOf = (flag: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer, got ${raw}`)
  return n
}

/**
 * --pg-pool-size N: the PostgreSQL pool of this process (undefined: the adapter's default,
 * `CANOPY_PG_POOL_SIZE` or 10).
 */
export const pgPoolSizeOf = (v: { "pg-pool-size"?: string | undefined }): number | undefined => positiveIntegerOf("pg-pool-size", v["pg-pool-size"])

/** A comma-separated list, trimmed, without empty entries. */
export const list = (s: string | undefined) => (s ?? "").split(",").map((x) => x.trim()).filter((x) => x !== "")

/** --public-url, else CANOPY_PUBLIC_URL, validated and without a trailing slash; undefined when neither is set. */
export const publicUrlOf = (v: { "public-url"?: string | undefined }) => {
  const raw = v["public-url"] ?? (process.env.CANOPY_PUBLIC_URL || undefined)
  if (raw === undefined) return undefined
  try {
    return parsePublicUrl(raw)
  } catch (e) {
    throw new UsageError(`--public-url: ${(e as Error).message}`)
  }
}

/** Where links printed for the operator point: the public URL, else where the server listens (loopback for a wildcard bind). */
export const linkBase = (publicUrl: string | undefined, url: string) => publicUrl ?? url.replace("//0.0.0.0:", "//127.0.0.1:").replace("//[::]:", "//[::1]:")

/** Prints `value` as JSON with --json, else `text`. */
export const print = (json: boolean, value: unknown, text: string) => process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`)

/** Runs `f` on the database of an existing account: a missing SQLite file is an error, never created. */
export const withCanopy = async <A>(where: ReturnType<typeof storageOf>, f: (canopy: CanopyClient) => Promise<A>, create = false): Promise<A> => {
  const canopy = await createCanopy({ storage: await storageFor({ ...where, mustExist: !create }) })
  try {
    return await f(canopy)
  } finally {
    await canopy.close()
  }
}

/** The account to act on: --account, or the only one in the database. */
export const accountOf = async (canopy: CanopyClient, given: string | undefined): Promise<string> => {
  if (given) return given
  const accounts = await canopy.run(Effect.flatMap(Accounts, (a) => a.ids))
  if (accounts.length === 1) return accounts[0]!
  throw new UsageError(accounts.length === 0 ? "the database has no account yet: run canopy init" : "the database holds several accounts: pass --account ID")
}

export const DEFAULT_ACCOUNT_NAME = "My Forest Account"
export const DEFAULT_OWNER_EMAIL = "owner@example.com"

/** `http://HOST:PORT` for a host as given to listen (IPv6 in brackets). */
export const httpUrl = (host: string, port: number | string) => `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`

/** The owner's one-time set-password link. */
export const setPasswordUrl = (base: string, token: string) => `${base}/invitations/accept?token=${token}`

/** Creates an account, its owner and an admin API key. */
export const bootstrap = (
  canopy: CanopyClient,
  opts: { email: string; name?: string | undefined; accountName?: string | undefined; plan?: string | undefined }
): ReturnType<CanopyClient["bootstrap"]> =>
  canopy.bootstrap({
    account_name: opts.accountName ?? DEFAULT_ACCOUNT_NAME,
    email: opts.email,
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.plan ? { plan: opts.plan } : {})
  })
