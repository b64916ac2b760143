/**
 * `fils logs tail` as a process against a real server: it prints each new request of its key's account and mode
 * as it is logged (piped: as JSON), nothing from before it started and nothing of another mode; a filter it cannot
 * take stops it with a clear error.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandEnv, filsArgs, root, runFils } from "../support/cli.js"
import { waitFor } from "../support/load.js"
import { memoryVariant, rawFor, startServer, type TestServer } from "../support/server.js"

let server: TestServer

beforeAll(async () => {
  server = await startServer(await memoryVariant.store())
})

afterAll(async () => {
  await server?.close()
})

describe("fils logs tail", () => {
  it("prints each new request of the key's account and mode, oldest first, and nothing from before it started", async () => {
    const key = server.accountA.test.key
    const raw = rawFor(server, key)
    await raw.get("/account", { headers: { "x-request-id": "before-tail" } })
    const child: ChildProcess = spawn(
      process.execPath,
      filsArgs("logs", "tail", "--api", server.origin, "--key", key, "--interval-ms", "200", "--path", "/api/v1/account"),
      { cwd: root, env: commandEnv({ DATABASE_URL: undefined }), stdio: ["ignore", "pipe", "pipe"] }
    )
    let out = ""
    let err = ""
    child.stdout!.on("data", (c) => (out += c))
    child.stderr!.on("data", (c) => (err += c))
    try {
      await waitFor("tail to start", () => err.includes("Tailing the test request logs"), 30_000)
      await raw.get("/account", { headers: { "x-request-id": "tail-1" } })
      await rawFor(server, server.accountA.live.key).get("/account", { headers: { "x-request-id": "tail-live" } })
      await raw.get("/account", { headers: { "x-request-id": "tail-2" } })
      await waitFor("both lines", () => out.includes("tail-2"), 20_000)
      const lines = out.trim().split("\n").map((l) => JSON.parse(l))
      expect(lines.map((l) => [l.request_id, l.method, l.path, l.status])).toEqual([
        ["tail-1", "GET", "/api/v1/account", 200],
        ["tail-2", "GET", "/api/v1/account", 200]
      ])
      expect(lines[0]).toMatchObject({ object: "request_log", livemode: false, key_id: server.accountA.test.issued.key_id })
      expect(out + err).not.toContain(key)
    } finally {
      child.kill("SIGINT")
      await once(child, "exit")
    }
  }, 60_000)

  it("a filter it cannot take stops it with a clear error", async () => {
    const run = await runFils(
      ["logs", "tail", "--api", server.origin, "--key", server.accountA.test.key, "--status", "4x"],
      { DATABASE_URL: undefined },
      { timeoutMs: 30_000 }
    )
    expect(run.code).toBe(1)
    expect(JSON.parse(run.stderr.trim().split("\n").pop()!)).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("--status") })
  }, 40_000)
})
