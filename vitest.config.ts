import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL for the whole run, started before any file and stopped after the last.
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files in parallel, but bounded so PostgreSQL and Chromium keep up.
    maxWorkers: 2,
    minWorkers: 1
  }
})
