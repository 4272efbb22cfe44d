/**
 * Two `canopy serve` processes on one PostgreSQL through PgBouncer in transaction mode, with the
 * settings docs/operating.md gives: statements unnamed (PgBouncer before 1.21 cannot keep
 * named ones across transactions) and the statement timeout left to the database role. The same
 * cases as straight to PostgreSQL (`multiInstanceCases.ts`).
 */
import { inject } from "vitest"
import { startPgBouncer } from "../../adapter-postgres/test/pgbouncer.ts"
import { multiInstanceSuite } from "./multiInstanceCases.ts"

multiInstanceSuite("two server instances on one PostgreSQL through PgBouncer (transaction mode)", async () => {
  // A pool smaller than the two instances' together (10 each): PgBouncer multiplexes them.
  const bouncer = await startPgBouncer(inject("postgresUrl"), { poolSize: 8 })
  return {
    serveUrl: (url) => bouncer.url(new URL(url).pathname.slice(1)),
    env: { CANOPY_PG_PREPARED_STATEMENTS: "off" },
    stop: bouncer.stop
  }
})
