/**
 * `npm run test:soak`: the fault tests at length (FILS_SOAK=1). The crash test kills `fils serve` up to 60 times
 * (FILS_CRASHES) within 15 minutes, the outage test keeps PostgreSQL down for 90 s (FILS_OUTAGE_MS); the
 * many-processes and slow-receiver tests run as in CI. One file at a time, so the faults have the machine.
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: [
      "test/e2e/crash.test.ts",
      "test/e2e/outage.test.ts",
      "test/e2e/many-processes.test.ts",
      "test/e2e/slow-receivers.test.ts"
    ],
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/eachFile.ts"],
    testTimeout: 30 * 60_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    minWorkers: 1
  }
})
