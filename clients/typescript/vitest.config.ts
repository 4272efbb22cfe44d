/**
 * `npm test` in this package: the client's own tests (test/*.test.ts), resolving the workspace
 * packages to their TypeScript sources as the repository's root test run does.
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000
  }
})
