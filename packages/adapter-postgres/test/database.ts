/**
 * Test databases: each suite gets a fresh database on the test server, dropped afterwards.
 */
import { Effect } from "effect"
import pg from "pg"

/** Runs `f` with a plain connection to `url` (the server's, or one database's), closed afterwards. */
export const withConnection = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** Creates a database for the scope and answers its URL; drops it when the scope closes. */
export const freshDatabase = (serverUrl: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const name = `canopy_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      await withConnection(serverUrl, (c) => c.query(`create database ${name}`))
      const url = new URL(serverUrl)
      url.pathname = `/${name}`
      return { name, url: url.toString() }
    }),
    ({ name }) => Effect.promise(() => withConnection(serverUrl, (c) => c.query(`drop database if exists ${name} with (force)`)).catch(() => undefined))
  ).pipe(Effect.map(({ url }) => url))
