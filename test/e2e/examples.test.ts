/**
 * Every example a user copies from runs, and says what it should. The engine examples run twice: on the memory store
 * (the default) and on PostgreSQL (`FILS_STORE=postgres` on a new, empty database, which they migrate), where the rows
 * are then read back with plain SQL to prove they were written there.
 */
import { Effect, Exit, Redacted, Scope } from "effect"
import { spawn } from "node:child_process"
import { once } from "node:events"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { root } from "../support/cli.js"
import { emptyDatabaseUrl } from "../support/database.js"
import { reconcile } from "../support/load.js"

const run = async (file: string, env: Record<string, string> = {}, nodeArgs: ReadonlyArray<string> = []) => {
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", file], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (c) => (stdout += c))
  child.stderr.on("data", (c) => (stderr += c))
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000)
  const [code] = await once(child, "exit")
  clearTimeout(timer)
  return { code: code as number | null, stdout, stderr }
}

const scope = Effect.runSync(Scope.make())
let databaseUrl = ""
beforeAll(async () => {
  databaseUrl = Redacted.value(await Effect.runPromise(Scope.extend(emptyDatabaseUrl, scope)))
}, 60_000)
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** One query on the PostgreSQL the examples ran on. */
const query = async (text: string, values: ReadonlyArray<unknown>) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query(text, [...values])).rows
  } finally {
    await client.end()
  }
}

const stores = [
  { store: "memory", env: () => ({}) },
  { store: "postgres", env: () => ({ FILS_STORE: "postgres", DATABASE_URL: databaseUrl }) }
] as const

describe.each(stores)("engine examples on the $store store", ({ env, store }) => {
  it("engine/catalog.ts lists the catalog it created, newest first", async () => {
    const { code, stdout, stderr } = await run("examples/engine/catalog.ts", env())
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const lines = stdout.trim().split("\n")
    expect(lines[0]).toMatch(/^pdt_[0-9a-f]{32}  Monthly beans: AED 349\.00 every 1 month$/)
    expect(lines[1]).toMatch(/^pdt_[0-9a-f]{32}  Single origin, 250 g: AED 65\.00$/)
    expect(lines[2]).toMatch(/^customer cus_[0-9a-f]{32} <layla@example\.ae>; plan pdt_[0-9a-f]{32}$/)
    if (store === "postgres") {
      const ids = lines.slice(0, 2).map((line) => line.split(" ")[0])
      const rows = await query("SELECT name, price FROM products WHERE product_id = ANY($1) ORDER BY price", [ids])
      expect(rows).toEqual([{ name: "Single origin, 250 g", price: "6500" }, { name: "Monthly beans", price: "34900" }])
    }
  }, 120_000)

  it("engine/checkout.ts sells, declines, pays, refunds and reads the events", async () => {
    const { code, stdout, stderr } = await run("examples/engine/checkout.ts", env())
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const session = /^session (cks_[0-9a-f]{32}): AED 130\.00$/m.exec(stdout)
    expect(session).not.toBeNull()
    expect(stdout).toContain("first try: failed (card_declined)")
    // fee = round(13000 × 2.9 %) + 100 = 477 fils; net = 13000 − 477
    expect(stdout).toContain("second try: succeeded; fee AED 4.77, net AED 125.23; session complete")
    expect(stdout).toContain("refunded AED 20.00: payment is partially_refunded")
    expect(stdout).toContain("events (newest first): refund.succeeded, payment.succeeded, payment.failed")
    if (store === "postgres") {
      const sessions = await query("SELECT status, total_amount FROM checkout_sessions WHERE session_id = $1", [session![1]])
      expect(sessions).toEqual([{ status: "complete", total_amount: "13000" }])
      const events = await query(
        `SELECT e.type FROM events e JOIN checkout_sessions s ON s.account_id = e.account_id
          WHERE s.session_id = $1 ORDER BY e.type`,
        [session![1]]
      )
      expect(events.map((e) => e.type)).toEqual(["payment.failed", "payment.succeeded", "refund.succeeded"])
      // The example's processor keeps its records in the same database, so `fils` on it agrees with what it sold.
      const { code: reconciled, report, stderr: reconcileErrors } = await reconcile({ DATABASE_URL: databaseUrl })
      expect(reconcileErrors).toBe("")
      expect(report).toMatchObject({ ok: true, mismatches: [] })
      expect(reconciled).toBe(0)
    }
  }, 120_000)

  if (store === "memory") {
    it("engine/checkout.ts still pays ten years from now: its test card's expiry is not a fixed year", async () => {
      const { code, stdout, stderr } = await run(
        "examples/engine/checkout.ts",
        { ...env(), FILS_TEST_CLOCK_SHIFT_DAYS: String(3653) },
        ["--import", "./test/support/shiftedClock.mjs"]
      )
      expect(stderr).toBe("")
      expect(code).toBe(0)
      // The clock did move: the session's id is a UUIDv7, its first 48 bits the milliseconds it was made.
      const id = /^session cks_([0-9a-f]{12})/m.exec(stdout)?.[1]
      expect(new Date(parseInt(id ?? "0", 16)).getUTCFullYear()).toBeGreaterThanOrEqual(new Date().getUTCFullYear() + 9)
      expect(stdout).toContain("first try: failed (card_declined)")
      expect(stdout).toContain("second try: succeeded; fee AED 4.77, net AED 125.23; session complete")
    }, 120_000)
  }

  it("engine/portal.ts: on hold after a declined renewal, a portal link, a new card pays it at once, a receipt", async () => {
    const { code, stdout, stderr } = await run("examples/engine/portal.ts", env())
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(stdout).toContain("after February's run: on_hold, card •••• 0341")
    expect(stdout).toMatch(/portal link for layla@example\.ae: http:\/\/\S+\/portal\/… \(one use, until /)
    expect(stdout).toContain("new card: active, card •••• 4242, renewal succeeded, next billing 2027-03-31")
    expect(stdout).toContain("receipt: Monthly beans × 1, AED 349.00 from Dune Coffee Roasters")
    if (store === "postgres") {
      const rows = await query("SELECT status, card_last4 FROM subscriptions", [])
      expect(rows).toContainEqual({ status: "active", card_last4: "4242" })
    }
  }, 120_000)

  it("engine/subscription.ts renews on the anchor day (28 Feb, 31 Mar) and ends at the period end", async () => {
    const { code, stdout, stderr } = await run("examples/engine/subscription.ts", env())
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(stdout).toContain("subscribed: active, period from 2027-01-31, next billing 2027-02-28")
    expect(stdout).toContain("after February's run: active, period from 2027-02-28, next billing 2027-03-31")
    expect(stdout).toContain("after March's run: active, period from 2027-03-31, next billing 2027-04-30")
    expect(stdout).toContain("at the period end: cancelled (requested) on 2027-04-30")
    expect(stdout).toContain(
      "events, oldest first: payment.succeeded, subscription.active, payment.succeeded, subscription.renewed, " +
        "payment.succeeded, subscription.renewed, subscription.cancelled"
    )
    if (store === "postgres") {
      const rows = await query("SELECT status, cancellation_reason FROM subscriptions", [])
      expect(rows).toContainEqual({ status: "cancelled", cancellation_reason: "requested" })
    }
  }, 120_000)
})
