/**
 * Configuration from real files: a `.env` file in the working directory (or `FILS_ENV_FILE`), `<NAME>_FILE`
 * for secrets as container platforms mount them, `PORT`/`HOST` as fallbacks, and `fils config` showing each
 * setting's value (secrets redacted) and source. A bad setting is one clear error naming it, before anything starts.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandEnv, filsArgs, freePort, runFils } from "../support/cli.js"
import { type TestDatabase, testDatabase } from "../support/load.js"

const dir = mkdtempSync(join(tmpdir(), "fils-config-"))
let db: TestDatabase

beforeAll(async () => {
  db = await testDatabase()
}, 60_000)

afterAll(async () => {
  await db?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** `fils <args>` run from `cwd`, seeing only what the test gives (no inherited FILS_ settings), killed after `timeoutMs`. */
const fils = (args: ReadonlyArray<string>, env: Record<string, string>, cwd = dir, timeoutMs = 30_000) =>
  runFils(args, env, { cwd, bare: true, timeoutMs })

const settingOf = (stdout: string, name: string) =>
  (JSON.parse(stdout).settings as Array<{ name: string; value: string | null; source: string }>).find((s) => s.name === name)

describe("configuration", () => {
  it("fils config: values from the environment, a <NAME>_FILE and the .env file, each with its source; secrets never shown", async () => {
    const secretUrl = db.url
    writeFileSync(join(dir, "database-url"), `${secretUrl}\n`)
    writeFileSync(join(dir, ".env"), "FILS_LOG_LEVEL=warn\nFILS_PORT=5999\nFILS_OWNER_EMAIL=\"owner@dune.example\" # the owner\n")
    const shown = await fils(["config"], { DATABASE_URL_FILE: "database-url", FILS_PORT: "6001", FILS_API_KEY: "sk_test_unseen" })
    expect(shown.code, shown.stderr).toBe(0)
    expect(JSON.parse(shown.stdout).env_file).toBe(join(dir, ".env"))
    expect(settingOf(shown.stdout, "DATABASE_URL")).toEqual({ name: "DATABASE_URL", value: "[redacted]", source: `file ${join(dir, "database-url")} (DATABASE_URL_FILE)` })
    expect(settingOf(shown.stdout, "FILS_PORT")).toEqual({ name: "FILS_PORT", value: "6001", source: "environment" })
    expect(settingOf(shown.stdout, "FILS_LOG_LEVEL")).toEqual({ name: "FILS_LOG_LEVEL", value: "warn", source: `.env file ${join(dir, ".env")}` })
    expect(settingOf(shown.stdout, "FILS_OWNER_EMAIL")?.value).toBe("owner@dune.example")
    expect(settingOf(shown.stdout, "FILS_FEE_BPS")).toEqual({ name: "FILS_FEE_BPS", value: null, source: "default: 290" })
    expect(settingOf(shown.stdout, "FILS_HOST")).toEqual({ name: "FILS_HOST", value: null, source: "default: HOST, else 127.0.0.1" })
    expect(settingOf(shown.stdout, "FILS_ENV_FILE")).toEqual({ name: "FILS_ENV_FILE", value: null, source: "default: ./.env when there is one" })
    expect(settingOf(shown.stdout, "FILS_API_KEY")).toEqual({ name: "FILS_API_KEY", value: "[redacted]", source: "environment" })
    expect(shown.stdout + shown.stderr).not.toContain("sk_test_unseen")
    expect(shown.stdout + shown.stderr).not.toContain(secretUrl)
    expect(shown.stdout + shown.stderr).not.toContain(new URL(secretUrl).password || "no-password")
  }, 60_000)

  it("a secret from <NAME>_FILE is used (the database from DATABASE_URL_FILE); FILS_ENV_FILE names another .env", async () => {
    writeFileSync(join(dir, "database-url"), `${db.url}\n`)
    writeFileSync(join(dir, "other.env"), `DATABASE_URL_FILE=${join(dir, "database-url")}\n`)
    const migrated = await fils(["migrate"], { FILS_ENV_FILE: "other.env" })
    expect(migrated.code, migrated.stderr).toBe(0)
    expect(JSON.parse(migrated.stdout)).toEqual({ migrated: true })
    const named = await fils(["config"], { FILS_ENV_FILE: "other.env" })
    expect(named.code, named.stderr).toBe(0)
    expect(JSON.parse(named.stdout).env_file).toBe(join(dir, "other.env"))
    expect(settingOf(named.stdout, "FILS_ENV_FILE")).toEqual({ name: "FILS_ENV_FILE", value: "other.env", source: "environment" })
    const missing = await fils(["config"], { FILS_ENV_FILE: "nowhere.env" })
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stderr.trim())).toEqual({ code: "INVALID_CONFIG", message: `FILS_ENV_FILE names ${join(dir, "nowhere.env")}, which cannot be read` })
    const twice = await fils(["config"], { DATABASE_URL: db.url, DATABASE_URL_FILE: "database-url" })
    expect(twice.code).toBe(1)
    expect(JSON.parse(twice.stderr.trim()).message).toBe("Both DATABASE_URL and DATABASE_URL_FILE are set: set one of them")
    const unreadable = await fils(["config"], { FILS_SECRET_KEY_FILE: "no-such-key" })
    expect(unreadable.code).toBe(1)
    expect(JSON.parse(unreadable.stderr.trim()).message).toContain("FILS_SECRET_KEY_FILE names")
  }, 60_000)

  it("FILS_ENV_FILE is read from the environment only: a .env file that sets it is refused, not ignored", async () => {
    writeFileSync(join(dir, "nested.env"), "FILS_LOG_LEVEL=warn\nFILS_ENV_FILE=other.env\n")
    const nested = await fils(["config"], { FILS_ENV_FILE: "nested.env" })
    expect(nested.code, nested.stdout).toBe(1)
    expect(JSON.parse(nested.stderr.trim())).toEqual({
      code: "INVALID_CONFIG",
      message: `${join(dir, "nested.env")} sets FILS_ENV_FILE, which only the environment can set: remove it from the file`
    })
  }, 60_000)

  it("serve listens on PORT and HOST when --port, --host, FILS_PORT and FILS_HOST are not given; FILS_PORT and FILS_HOST win over them", async () => {
    rmSync(join(dir, ".env"), { force: true })
    for (const [env, expected] of [[{ PORT: "" }, "PORT"], [{ FILS_PORT: "" }, "FILS_PORT"]] as const) {
      const port = await freePort()
      const other = await freePort()
      const host = "PORT" in env ? "127.0.0.2" : "127.0.0.1"
      const given: Record<string, string> = { DATABASE_URL: db.url }
      if ("PORT" in env) Object.assign(given, { PORT: String(port), HOST: host })
      else Object.assign(given, { FILS_PORT: String(port), PORT: String(other), FILS_HOST: host, HOST: "127.0.0.3" })
      const child = spawn(process.execPath, filsArgs("serve"), {
        cwd: dir,
        env: commandEnv(given, true),
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      child.stdout.on("data", (c) => (out += c))
      try {
        const deadline = Date.now() + 60_000
        while (!out.includes("Fils is running")) {
          if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${expected}: serve did not start:\n${out}`)
          await new Promise((r) => setTimeout(r, 100))
        }
        expect(out, expected).toContain(`http://${host}:${port}/api/v1`)
        expect((await fetch(`http://${host}:${port}/health`)).status, expected).toBe(200)
      } finally {
        child.kill("SIGTERM")
        await once(child, "exit")
      }
    }
  }, 120_000)

  it("a bad setting stops serve and config with one error naming it, before the database is touched", async () => {
    const bad: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{ FILS_FEE_BPS: "lots" }, "FILS_FEE_BPS"],
      [{ FILS_RATE_LIMIT_PER_MIN: "-" }, "FILS_RATE_LIMIT_PER_MIN"],
      [{ FILS_DB_STATEMENT_TIMEOUT_SECONDS: "soon" }, "FILS_DB_STATEMENT_TIMEOUT_SECONDS"],
      [{ FILS_SIMULATED_LIVE: "maybe" }, "FILS_SIMULATED_LIVE"],
      [{ FILS_LOG_LEVEL: "loud" }, "FILS_LOG_LEVEL"],
      [{ FILS_SECRET_KEY: "short" }, "FILS_SECRET_KEY"],
      [{ FILS_HEADERS_TIMEOUT_SECONDS: "60", FILS_REQUEST_TIMEOUT_SECONDS: "30" }, "FILS_HEADERS_TIMEOUT_SECONDS"],
      [{ OTEL_EXPORTER_OTLP_HEADERS: "no-equals-sign" }, "OTEL_EXPORTER_OTLP_HEADERS"],
      [{ OTEL_TRACES_SAMPLER: "sometimes" }, "OTEL_TRACES_SAMPLER"],
      [{ OTEL_TRACES_SAMPLER_ARG: "1.5" }, "OTEL_TRACES_SAMPLER_ARG"],
      // Checked before the default account is made: refused later, no owner would ever be made.
      [{ FILS_OWNER_EMAIL: "owner@example.ae " }, "FILS_OWNER_EMAIL"]
    ]
    for (const [env, name] of bad) {
      for (const command of [["serve", "--port", "0"], ["config"]]) {
        const run = await fils(command, { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", ...env })
        expect(run.code, `${name} ${command[0]}`).toBe(1)
        const error = JSON.parse(run.stderr.trim().split("\n").at(-1)!)
        expect(error.code, `${name} ${command[0]}`).toBe("INVALID_CONFIG")
        expect(error.message, `${name} ${command[0]}`).toContain(name)
        expect(run.stdout + run.stderr).not.toContain("database cannot be reached")
        expect(run.stdout + run.stderr).not.toContain("short")
      }
    }
  }, 120_000)
})
