import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "clients/*/test/**/*.test.ts"],
    reporters: ["default", ["json", { outputFile: ".test-results/vitest.json" }]],
    globalSetup: ["packages/adapter-postgres/test/globalSetup.ts", "packages/server/test/chromiumSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000
  }
})
