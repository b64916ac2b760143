/**
 * Numeric options out of their range are refused with the `{ code, message }` line of every other bad argument,
 * naming the bound, never clamped to it: `--limit 5000` is not a silent 1,000 rows; nor does `fils listen --events`
 * take a list that names nothing. Refused before any database or server is reached.
 */
import { describe, expect, it } from "vitest"
import { runFils } from "../support/cli.js"

const cases = [
  [["deliveries", "list", "--limit", "5000"], "--limit must be between 1 and 1000, not 5000"],
  [["deliveries", "list", "--limit", "0"], "--limit must be between 1 and 1000, not 0"],
  [["einvoices", "list", "--limit", "1001"], "--limit must be between 1 and 1000, not 1001"],
  [["check", "--lease-grace", "31536001"], "--lease-grace must be between 0 and 31536000, not 31536001"],
  [["check", "--lease-grace", "-1"], "--lease-grace must be between 0 and 31536000, not -1"],
  [["listen", "--key", "sk_test_x", "--print-json", "--interval-ms", "10"], "--interval-ms must be between 100 and 3600000, not 10"],
  [["logs", "tail", "--key", "sk_test_x", "--interval-ms", "99"], "--interval-ms must be between 100 and 3600000, not 99"],
  // Not a number, but the same kind of mistake: a filter that could let nothing through.
  [["listen", "--key", "sk_test_x", "--print-json", "--events", " , "], "--events names no event type: give one or more, separated by commas"]
] as const

describe("fils with an option's value out of its range", () => {
  it("refuses it, saying the bound, and exits 1", async () => {
    // No database: a refusal that got as far as opening one would fail otherwise, or start one.
    const runs = await Promise.all(cases.map(([args]) => runFils(args, { DATABASE_URL: "postgres://127.0.0.1:1/none" }, { timeoutMs: 30_000 })))
    for (const [i, [args, message]] of cases.entries()) {
      const run = runs[i]!
      expect(run.code, args.join(" ")).toBe(1)
      expect(run.stdout, args.join(" ")).toBe("")
      expect(JSON.parse(run.stderr.trim().split("\n").pop()!), args.join(" ")).toStrictEqual({ code: "INVALID_REQUEST", message })
    }
  }, 60_000)
})
