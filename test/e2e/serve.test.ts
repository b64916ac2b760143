/**
 * The quick start as an operator meets it: `fils serve` on the embedded PostgreSQL in a fresh data folder, then the
 * operator commands against the same folder, then a restart that keeps everything.
 */
import { afterAll, describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runFils, type Served, serveFils, stopOrphanedPostgres } from "../support/cli.js"

const dataDir = mkdtempSync(join(tmpdir(), "fils-e2e-"))
// The embedded database, not the suite's shared one: this is `npm start` on a fresh clone.
// Staging: the simulated processor also takes live charges, so an operator can turn live payments on.
const env = { FILS_DATA_DIR: dataDir, DATABASE_URL: undefined, FILS_KEY_CACHE_TTL: "60 seconds", FILS_SIMULATED_LIVE: "true" }
let served: Served | undefined

afterAll(async () => {
  await served?.stop("SIGKILL")
  await stopOrphanedPostgres(dataDir)
  rmSync(dataDir, { recursive: true, force: true })
})

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

describe("fils serve on the embedded database", () => {
  let testKey = ""

  it("starts on an empty folder, creates the default account and prints its test key once", async () => {
    served = await serveFils(env, 60_000)
    const out = served.stdout()
    expect(out).toContain(`${served.baseUrl.replace(/:\d+$/, "")}`)
    expect(out).toMatch(/API\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1/)
    const key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(out)
    expect(key).not.toBeNull()
    testKey = key![1]!
    const res = await fetch(`${served.baseUrl}/api/v1/account`, { headers: bearer(testKey) })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ object: "account", livemode: false, payments_enabled: true })
    expect((await fetch(`${served.baseUrl}/health`)).status).toBe(200)
  })

  it("operator commands share the running server's database", async () => {
    const created = await runFils(["accounts", "create", "--name", "Souq Books", "--support-email", "help@souq.ae"], env)
    expect(created.code).toBe(0)
    const account = JSON.parse(created.stdout)
    expect(account.account_id).toMatch(/^acct_[0-9a-f]{32}$/)
    expect(account.keys.test.secret).toMatch(/^sk_test_/)
    expect(account.keys.live.secret).toMatch(/^sk_live_/)

    const live = await fetch(`${served!.baseUrl}/api/v1/account`, { headers: bearer(account.keys.live.secret) })
    expect(await live.json()).toMatchObject({ business_name: "Souq Books", livemode: true, payments_enabled: false })

    const updated = await runFils(["accounts", "update", "--account", account.account_id, "--live-payments", "enabled"], env)
    expect(updated.code).toBe(0)
    expect(JSON.parse(updated.stdout).live_payments_enabled).toBe(true)
    const liveAfter = await fetch(`${served!.baseUrl}/api/v1/account`, { headers: bearer(account.keys.live.secret) })
    expect((await liveAfter.json()).payments_enabled).toBe(true)

    const issued = await runFils(["keys", "create", "--account", account.account_id, "--mode", "test"], env)
    expect(issued.code).toBe(0)
    const key = JSON.parse(issued.stdout)
    expect(key.secret).toMatch(/^sk_test_/)
    expect((await fetch(`${served!.baseUrl}/api/v1/products`, { headers: bearer(key.secret) })).status).toBe(200)

    const revoked = await runFils(["keys", "revoke", key.key_id], env)
    expect(revoked.code).toBe(0)
    expect(JSON.parse(revoked.stdout).revoked_at).not.toBeNull()
    // The server cached the key for a minute; the CLI's revocation reaches it through the database at once.
    let status = 200
    for (const started = Date.now(); status === 200 && Date.now() - started < 10_000;) {
      status = (await fetch(`${served!.baseUrl}/api/v1/products`, { headers: bearer(key.secret) })).status
      if (status === 200) await new Promise((r) => setTimeout(r, 50))
    }
    expect(status).toBe(401)
  })

  it("reports bad operator input as JSON on stderr with a non-zero exit", async () => {
    const result = await runFils(["keys", "create", "--account", "acct_nope", "--mode", "test"], env)
    expect(result.code).not.toBe(0)
    expect(result.stdout).toBe("")
    expect(JSON.parse(result.stderr.trim().split("\n").pop()!)).toMatchObject({ code: "INVALID_REQUEST" })
    const missing = await runFils(["keys", "revoke", "key_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f"], env)
    expect(missing.code).not.toBe(0)
    expect(JSON.parse(missing.stderr.trim().split("\n").pop()!)).toMatchObject({ code: "NOT_FOUND" })
  })

  it("shuts down on SIGTERM with exit code 0, and a restart keeps the data and prints no new key", async () => {
    const created = await fetch(`${served!.baseUrl}/api/v1/customers`, {
      method: "POST",
      headers: { ...bearer(testKey), "content-type": "application/json" },
      body: JSON.stringify({ email: "noor@example.ae" })
    })
    expect(created.status).toBe(200)
    const customer = await created.json()
    expect(await served!.stop("SIGTERM")).toBe(0)

    served = await serveFils(env, 60_000)
    expect(served.stdout()).not.toContain("Test key")
    const again = await fetch(`${served.baseUrl}/api/v1/customers/${customer.customer_id}`, { headers: bearer(testKey) })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(customer)
    expect(await served.stop("SIGTERM")).toBe(0)
    served = undefined
  })
})
