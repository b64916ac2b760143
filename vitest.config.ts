import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL for the whole run, started before any file and stopped after the last.
    globalSetup: ["test/support/globalSetup.ts"],
    // Files share their worker's modules (each file's own state is set up in eachFile.ts): the engine is imported once
    // per worker, not once per file, and the domain and application files run in about half the time.
    isolate: false,
    setupFiles: ["test/support/eachFile.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files in parallel, but bounded so PostgreSQL and Chromium keep up.
    maxWorkers: 2,
    minWorkers: 1
  }
})
