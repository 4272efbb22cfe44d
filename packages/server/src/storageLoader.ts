/**
 * The storage adapters, loaded on demand. `@canopy/server` does not depend on them (they are
 * optional peer dependencies): an app mounting the HTTP handler installs the one adapter it uses,
 * and only its driver. The CLI and `serve` load the adapter a configuration names when it is
 * needed; a missing one is an error of one sentence naming the package to install.
 */
import type * as SqliteAdapter from "@canopy/adapter-sqlite"
import type * as PostgresAdapter from "@canopy/adapter-postgres"

/** Is `e` Node's "cannot find package NAME" (not a missing module inside that package)? */
const isMissing = (e: unknown, name: string) => {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown }
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && typeof message === "string" &&
    (message.includes(`'${name}'`) || message.includes(`"${name}"`))
}

const load = async <A>(name: string, what: string, importer: () => Promise<A>): Promise<A> => {
  try {
    return await importer()
  } catch (e) {
    if (isMissing(e, name))
      throw Object.assign(new Error(`${what} needs ${name}, which is not installed: npm install ${name}`), { code: "CANOPY_ADAPTER_MISSING" })
    throw e
  }
}

/** `@canopy/adapter-sqlite`, or an error saying to install it. */
export const loadSqlite = (): Promise<typeof SqliteAdapter> => load("@canopy/adapter-sqlite", "SQLite storage", () => import("@canopy/adapter-sqlite"))

/** `@canopy/adapter-postgres`, or an error saying to install it. */
export const loadPostgres = (): Promise<typeof PostgresAdapter> =>
  load("@canopy/adapter-postgres", "PostgreSQL storage (--database-url)", () => import("@canopy/adapter-postgres"))
