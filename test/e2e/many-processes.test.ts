/**
 * Three `fils serve` processes on one PostgreSQL (docs/reliability.md), all running the billing and delivery
 * workers:
 *
 *   - the rate limit holds across them: requests of one key spread over the three, accepted ≤ the limit per minute;
 *   - no renewal period is charged twice: subscriptions made due at once are renewed by whichever server claims
 *     them, exactly once per period; `fils check` finds nothing, and `fils reconcile` finds what the processor moved
 *     (one ledger for the three) equal to what they recorded;
 *   - no delivery attempt is sent twice: each event reaches the receiver exactly once;
 *   - one Idempotency-Key sent to all three at the same moment creates one object.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { join } from "node:path"
import { ensureOutputDir, type LoggedServer, serveFilsLogged } from "../support/browser.js"
import { runFils } from "../support/cli.js"
import {
  acceptedIds,
  api,
  cards,
  delay,
  ok,
  payThroughForm,
  type Receiver,
  reconcile,
  startReceiver,
  type TestDatabase,
  testDatabase,
  waitFor
} from "../support/load.js"

const limit = 30
const output = ensureOutputDir()

let db: TestDatabase
const servers: Array<LoggedServer> = []
const receivers: Array<Receiver> = []
/** The banner's key: only the rate-limit test uses it, so its window starts empty. */
let limitedKey = ""
/** Another account's key for everything else. */
let key = ""
/** The servers' environment (the CLI runs against the same database). */
let env: Record<string, string | undefined> = {}

beforeAll(async () => {
  db = await testDatabase()
  env = {
    DATABASE_URL: db.url,
    FILS_DATA_DIR: undefined,
    FILS_RATE_LIMIT_PER_MIN: String(limit),
    FILS_KEY_CACHE_TTL: undefined,
    FILS_SIMULATED_LIVE: undefined
  }
  // The first makes the default account (and prints its key); the other two start on the migrated database.
  servers.push(await serveFilsLogged({ env, logFile: join(output, "many-0.log"), timeoutMs: 60_000 }))
  limitedKey = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(servers[0]!.stdout())?.[1] ?? ""
  expect(limitedKey).not.toBe("")
  const [s1, s2, account] = await Promise.all([
    serveFilsLogged({ env, logFile: join(output, "many-1.log"), timeoutMs: 60_000 }),
    serveFilsLogged({ env, logFile: join(output, "many-2.log"), timeoutMs: 60_000 }),
    runFils(["accounts", "create", "--name", "Three Servers Tea"], env)
  ])
  servers.push(s1, s2)
  expect(account.code, account.stderr).toBe(0)
  key = JSON.parse(account.stdout).keys.test.secret
}, 120_000)

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL", 5_000).catch(() => undefined)))
  await Promise.all(receivers.map((r) => r.close().catch(() => undefined)))
  await db?.close()
}, 30_000)

describe("three fils serve processes on one PostgreSQL", () => {
  it("hold one rate limit per key across the three", async () => {
    const results = await Promise.all(Array.from({ length: 3 * limit }, async (_, i) => {
      await delay((i % 10) * 20)
      return api(servers[i % 3]!.baseUrl, limitedKey, "GET", "/account")
    }))
    const accepted = results.filter((r) => r.status === 200)
    const limited = results.filter((r) => r.status === 429)
    expect(accepted.length + limited.length, JSON.stringify(results.map((r) => r.status))).toBe(results.length)
    // All within a few seconds, so within one window: never more than the limit, whichever server answered.
    expect(accepted.length).toBeLessThanOrEqual(limit)
    expect(accepted.length).toBeGreaterThanOrEqual(limit - 5) // and the limit is not much stricter than stated
    for (const r of limited) expect(r.body).toMatchObject({ code: "RATE_LIMITED", message: expect.any(String) })
    // Every server limited some of them: the count is shared, not per process.
    const byServer = servers.map((_, s) => results.filter((r, i) => i % 3 === s && r.status === 429).length)
    expect(byServer.every((n) => n > 0), JSON.stringify(byServer)).toBe(true)
    console.info(`rate limit across 3 servers: ${accepted.length} of ${results.length} accepted (limit ${limit}/min)`)
  }, 60_000)

  it("send the same Idempotency-Key to all three at once and create one object", async () => {
    for (let round = 0; round < 4; round++) {
      const email = `twin-${round}-${Date.now()}@example.ae`
      const headers = { "idempotency-key": `same-key-${round}-${Date.now()}` }
      const results = await Promise.all(servers.map((s) =>
        api(s.baseUrl, key, "POST", "/customers", { email, name: "Layla Haddad" }, { headers })))
      const created = results.filter((r) => r.status === 200)
      // One of them ran it; the others replayed it or were told it was in use (409), never ran it again.
      expect(created.length, JSON.stringify(results.map((r) => [r.status, r.body]))).toBeGreaterThanOrEqual(1)
      for (const r of results) expect([200, 409]).toContain(r.status)
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.code).toBe("IDEMPOTENCY_KEY_IN_USE")
      expect(new Set(created.map((r) => r.body.customer_id)).size).toBe(1)
      const rows = await db.sql(`SELECT customer_id FROM customers WHERE email = '${email}'`)
      expect(rows).toHaveLength(1)
      expect((rows[0] as any).customer_id).toBe(created[0]!.body.customer_id)
    }
  }, 60_000)

  it("renew each due period once, deliver each event once, and leave nothing for fils check", async () => {
    const receiver = await startReceiver()
    receivers.push(receiver)
    await ok(servers[0]!.baseUrl, key, "POST", "/webhooks", { url: receiver.url })
    const plan = await ok(servers[1]!.baseUrl, key, "POST", "/products", {
      name: "Karak club", price: 2_500, currency: "AED", billing: "recurring", billing_interval: "day"
    })
    const subscriptions = 6
    const paid = await Promise.all(Array.from({ length: subscriptions }, (_, i) =>
      payThroughForm(servers[i % 3]!.baseUrl, key, plan.product_id, cards.visa)))
    expect(paid.map((p) => p.status)).toEqual(Array(subscriptions).fill(200))

    const rounds = 3
    for (let round = 1; round <= rounds; round++) {
      // Every subscription becomes due at once; the three billing workers race for them.
      await db.sql(`UPDATE subscriptions SET anchor = anchor - interval '1 day',
        current_period_start = current_period_start - interval '1 day',
        next_billing_date = next_billing_date - interval '1 day' WHERE status = 'active'`)
      await waitFor(`renewal round ${round}`, async () => {
        const [row] = await db.sql(`SELECT count(*)::int AS n FROM payments
          WHERE billing_reason = 'subscription_renewal' AND status = 'succeeded'`)
        return (row as any).n >= round * subscriptions
      }, 30_000)
    }
    // Long enough for a second charge of some period to show up, had one been made.
    await delay(2_500)
    const renewals = await db.sql(`SELECT a.subscription_id, a.period, count(*)::int AS n
      FROM subscription_attempts a JOIN payments p ON p.payment_id = a.payment_id GROUP BY 1, 2`)
    expect(renewals).toHaveLength(rounds * subscriptions)
    expect(renewals.filter((r: any) => r.n !== 1)).toEqual([])
    const [renewed] = await db.sql(`SELECT count(*)::int AS n FROM payments WHERE billing_reason = 'subscription_renewal'`)
    expect((renewed as any).n).toBe(rounds * subscriptions)

    // Every event of the account reached the receiver exactly once.
    const events = (await db.sql(`SELECT e.event_id FROM events e JOIN webhook_endpoints w
      ON w.account_id = e.account_id AND w.livemode = e.livemode WHERE w.url = '${receiver.url}'`)) as Array<any>
    expect(events.length).toBeGreaterThanOrEqual(subscriptions * (2 + 2 * rounds)) // create: 2 events, renewal: 2
    await waitFor("every delivery", () => acceptedIds(receiver).size === events.length, 30_000,
      () => ({ events: events.length, received: receiver.received.length }))
    await delay(1_500)
    const twice = [...acceptedIds(receiver)].filter(([, n]) => n > 1)
    expect(twice).toEqual([])
    expect(receiver.received).toHaveLength(events.length)
    expect(await db.check()).toEqual([])
    // Three servers, one processor ledger: what it moved is what they recorded.
    const reconciled = await reconcile(env)
    expect(reconciled.report, reconciled.stderr).toMatchObject({ ok: true, mismatches: [] })
    expect(reconciled.code).toBe(0)
    const senders = await db.sql(`SELECT count(DISTINCT application_name)::int AS n FROM pg_stat_activity
      WHERE datname = current_database()`)
    console.info(`three servers: ${rounds * subscriptions} renewals, each period charged once; ` +
      `${events.length} events delivered once each; ${(senders[0] as any).n} application names on the database`)
  }, 100_000)
})
