/**
 * The CLI for people: on a terminal (a pseudo-terminal made by util-linux's `script`), commands print a
 * readable summary or table and errors as one line; piped, JSON as before; `--json` forces JSON on a terminal. Long
 * commands draw their progress on the terminal's stderr, and nothing of it when piped.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { root, runFils } from "../support/cli.js"
import { type TestDatabase, testDatabase } from "../support/load.js"

let db: TestDatabase

beforeAll(async () => {
  db = await testDatabase()
}, 60_000)

afterAll(async () => {
  await db?.close()
})

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`

/** `fils <args>` on a pseudo-terminal: everything it wrote (stdout and stderr both go to the terminal). */
const onTerminal = async (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
  const command = ["node", "--import", "tsx", "adapters/cli/main.ts", ...args].map(quote).join(" ")
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: db.url, FILS_DATA_DIR: undefined, TERM: "xterm", ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout.on("data", (c) => (out += c))
  child.stderr.on("data", (c) => (out += c))
  const [code] = await once(child, "exit")
  return { code: code as number | null, out: out.replace(/\r\n/g, "\n") }
}

describe("the CLI on a terminal", () => {
  it("prints a summary and tables for people; JSON when piped or with --json", async () => {
    const created = await onTerminal(["accounts", "create", "--name", "Dune Coffee", "--support-email", "help@dune.example"])
    expect(created.code, created.out).toBe(0)
    expect(created.out).toMatch(/^account_id\s+acct_[0-9a-f]{32}$/m)
    expect(created.out).toMatch(/^business_name\s+Dune Coffee$/m)
    expect(created.out).toMatch(/^keys:$/m)
    expect(created.out).not.toContain("{")

    const config = await onTerminal(["config"])
    expect(config.code, config.out).toBe(0)
    expect(config.out).toMatch(/^ {2}NAME\s+VALUE\s+SOURCE$/m)
    expect(config.out).toMatch(/^ {2}DATABASE_URL\s+\[redacted\]\s+environment$/m)

    const forced = await onTerminal(["config", "--json"])
    expect(JSON.parse(forced.out).settings.length).toBeGreaterThan(10)
    const piped = await runFils(["config"], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })
    expect(JSON.parse(piped.stdout).settings.length).toBeGreaterThan(10)
  }, 90_000)

  it("errors read as one line on a terminal, JSON when piped; the exit status is the same", async () => {
    const bad = await onTerminal(["refunds", "create", "pay_nope"])
    expect(bad.code).toBe(1)
    expect(bad.out.trim()).toMatch(/^Error: .+ \((INVALID_REQUEST|NOT_FOUND)\)$/)
    const piped = await runFils(["refunds", "create", "pay_nope"], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })
    expect(piped.code).toBe(1)
    expect(JSON.parse(piped.stderr.trim().split("\n").at(-1)!).code).toMatch(/INVALID_REQUEST|NOT_FOUND/)
  }, 60_000)

  it("long commands draw progress on the terminal and clear it; none when piped", async () => {
    const checked = await onTerminal(["check"])
    expect(checked.code, checked.out).toBe(0)
    expect(checked.out).toMatch(/Checking \d+ invariants… \d+\.\d s/)
    expect(checked.out).toContain("\u001b[K")
    // What stays on the screen: each line as its last carriage return left it.
    const visible = checked.out.split("\n").map((l) => l.split("\r").at(-1)!.replace(/\u001b\[K/g, "")).join("\n")
    expect(visible).toMatch(/^ok\s+true$/m)
    expect(visible).not.toContain("Checking")
    const billed = await onTerminal(["billing", "run", "--at", "2030-01-01T00:00:00Z"])
    expect(billed.code, billed.out).toBe(0)
    expect(billed.out).toMatch(/Billing as of 2030-01-01T00:00:00\.000Z… \d+\.\d s/)
    const piped = await runFils(["check"], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })
    expect(piped.stderr).not.toContain("Checking")
    expect(JSON.parse(piped.stdout).ok).toBe(true)
  }, 60_000)

  it("--completions prints a shell completion script", async () => {
    const bash = await runFils(["--completions", "bash"], {})
    expect(bash.code).toBe(0)
    expect(bash.stdout).toContain("complete")
    expect(bash.stdout).toContain("fils")
  }, 30_000)
})
