/**
 * The README's "Sell something" commands work as pasted: the block is taken from README.md, pointed at a real server
 * (its address and a test key in place of the printed ones) and run by bash, as a newcomer would run it.
 */
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { memoryVariant, startServer, type TestServer } from "../support/server.js"

const root = new URL("../..", import.meta.url).pathname
const readme = readFileSync(root + "README.md", "utf8")

/** The first ```sh block after the "Sell something:" line. */
const sellSomething = (): string => {
  const at = readme.indexOf("Sell something:")
  expect(at, "README has a 'Sell something:' step").toBeGreaterThan(0)
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))
  expect(block).not.toBeNull()
  return block![1]!
}

describe("README quick start", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(await memoryVariant.store())
  })
  afterAll(() => server.close())

  it("creates a product, then a checkout session for it, with the server's own return address", async () => {
    const script = sellSomething()
      .replace("KEY=sk_test_…", `KEY=${server.accountA.test.key}`)
      .replaceAll("http://127.0.0.1:4242", server.origin)
    // Nothing in the commands leaves this machine.
    expect(script.match(/https?:\/\/[^\s"'/]+/g)?.every((u) => u.includes("127.0.0.1"))).toBe(true)
    // The server runs in this process: the commands run beside it, not blocking it.
    const run = await promisify(execFile)("bash", ["-euo", "pipefail", "-c", script], { timeout: 20_000 })
    const session = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>
    expect(session["object"]).toBe("checkout_session")
    expect(session["checkout_url"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/checkout\/cks_[0-9a-f]{32}$/)
    expect(session["return_url"]).toBe(`${server.origin}/dashboard/test/payments`)
    expect(session["total_amount"]).toBe(13000)
  })
})
