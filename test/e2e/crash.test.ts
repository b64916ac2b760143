/**
 * Crash consistency (docs/reliability.md): `fils serve` on one database under a steady load — checkouts paid through
 * the hosted form with cards that succeed, decline and settle later (succeed or fail), subscription renewals (made
 * due by moving the subscriptions' dates back, so the server's own billing worker charges them), refunds
 * (`fils refunds create`) and webhook deliveries to two receivers on 127.0.0.1 — is killed with SIGKILL at random
 * moments, again and again, and restarted on the same database each time.
 *
 * The mix includes the fault cards 1000 (charge taken, answer lost) and 1034 (first refund's answer lost).
 *
 * After every restart the invariant checker (`fils check`, as its Effect) finds nothing broken. At the end, once the
 * last server has drained, `fils reconcile` finds what the processor moved equal to what Fils recorded, every
 * committed event reached both receivers (nothing lost), and no attempt was sent twice beyond at-least-once: an event reached a receiver more than once only when a claimed attempt was never
 * recorded (its server died between sending and recording), and never more often than it was claimed.
 *
 * CI runs FILS_CRASHES (default 8) crashes within about a minute; `npm run test:soak` runs many more.
 */
import { afterAll, describe, expect, it } from "vitest"
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

const soak = process.env["FILS_SOAK"] === "1"
const crashes = Number(process.env["FILS_CRASHES"] ?? (soak ? 60 : 8))
/** The crash loop stops after this long even if fewer crashes happened (at least `minCrashes` must). */
const loopBudgetMs = soak ? 15 * 60_000 : 65_000
const minCrashes = Math.min(crashes, 3)
const output = ensureOutputDir()

let db: TestDatabase | undefined
const servers: Array<LoggedServer> = []
const receivers: Array<Receiver> = []

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL", 5_000).catch(() => undefined)))
  await Promise.all(receivers.map((r) => r.close().catch(() => undefined)))
  await db?.close()
}, 30_000)

describe("kill -9 of fils serve under load", () => {
  it("keeps every invariant after each restart and loses no committed event", async () => {
    const t0 = Date.now()
    db = await testDatabase()
    const env = {
      DATABASE_URL: db.url,
      FILS_DATA_DIR: undefined,
      FILS_RATE_LIMIT_PER_MIN: "1000000",
      FILS_KEY_CACHE_TTL: "0 millis",
      FILS_SIMULATED_LIVE: undefined
    }
    let generation = 0
    const start = async () => {
      const server = await serveFilsLogged({ env, logFile: join(output, `crash-${generation++}.log`), timeoutMs: 60_000 })
      servers.push(server)
      return server
    }
    let server = await start()
    const key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())?.[1]
    expect(key, server.stdout()).toBeDefined()
    const secret = key!

    const a = await startReceiver()
    const b = await startReceiver()
    receivers.push(a, b)
    await ok(server.baseUrl, secret, "POST", "/webhooks", { url: a.url })
    await ok(server.baseUrl, secret, "POST", "/webhooks", { url: b.url })
    const oneTime = await ok(server.baseUrl, secret, "POST", "/products", { name: "Dates", price: 5_000, currency: "AED" })
    const plan = await ok(server.baseUrl, secret, "POST", "/products", {
      name: "Coffee club", price: 3_000, currency: "AED", billing: "recurring", billing_interval: "day"
    })
    // Subscriptions to renew during the run: most renew, some (decline_later) fail their renewals and go on hold.
    for (const card of [cards.visa, cards.visa, cards.visa, cards.declineLater]) {
      expect((await payThroughForm(server.baseUrl, secret, plan.product_id, card)).status).toBe(200)
    }

    // The load: runs whatever the server's state, against whichever server is current.
    const stats = { paid: 0, declined: 0, failedRequests: 0, refunds: 0, renewalNudges: 0 }
    let loading = true
    // With the fault cards (docs/checkout.md "Test cards"): a charge whose answer is lost (found by lookup), and one
    // whose first refund's answer is lost after the money went back.
    const mix = [
      cards.visa,
      cards.answerLost,
      cards.declined,
      cards.settleSucceeds,
      cards.firstRefundAnswerLost,
      cards.settleFails,
      cards.insufficientFunds
    ]
    const payer = async (n: number) => {
      for (let i = n; loading; i++) {
        const result = await payThroughForm(server.baseUrl, secret, oneTime.product_id, mix[i % mix.length]!, 10_000)
        if (result.status === 200) stats.paid++
        else if (result.status === 402) stats.declined++
        else {
          stats.failedRequests++
          await delay(200)
        }
      }
    }
    /** Refunds a random succeeded payment (wholly or 100 fils) with the operator command, every couple of seconds. */
    const refunder = async () => {
      while (loading) {
        await delay(1_500)
        const list = await api(server.baseUrl, secret, "GET", "/payments?status=succeeded&limit=20", undefined, { timeoutMs: 5_000 })
        const items: Array<any> = list.status === 200 ? list.body.items : []
        const target = items[Math.floor(Math.random() * items.length)]
        if (target === undefined) continue
        const args = ["refunds", "create", target.payment_id, ...(Math.random() < 0.5 ? ["--amount", "100"] : [])]
        const result = await runFils(args, env)
        if (result.code === 0) stats.refunds++
      }
    }
    /** Makes every live subscription due again (dates moved back a day), so the billing worker renews them. */
    const renewals = async () => {
      while (loading) {
        await delay(2_500)
        await db!.sql(`UPDATE subscriptions SET anchor = anchor - interval '1 day',
          current_period_start = current_period_start - interval '1 day',
          next_billing_date = next_billing_date - interval '1 day',
          next_retry_at = next_retry_at - interval '1 day', first_failure_at = first_failure_at - interval '1 day'
          WHERE status <> 'cancelled'`).catch(() => undefined)
        stats.renewalNudges++
      }
    }
    const load = Promise.all([payer(0), payer(3), refunder(), renewals()])

    // Crash, restart, check.
    let survived = 0
    const checks: Array<number> = []
    const restarts: Array<number> = []
    const loopStarted = Date.now()
    // Stops early when another restart (as slow as the last one) would overrun the budget: a loaded CI box restarts slowly.
    while (survived < crashes && Date.now() - loopStarted + (restarts.at(-1) ?? 5_000) < loopBudgetMs) {
      await delay(500 + Math.random() * 2_500)
      await server.stop("SIGKILL")
      const restarting = Date.now()
      server = await start()
      restarts.push(Date.now() - restarting)
      survived++
      const violations = await db.check()
      checks.push(violations.length)
      expect(violations, `after crash ${survived}`).toEqual([])
    }
    expect(survived).toBeGreaterThanOrEqual(minCrashes)
    // The load goes on until it has renewed a subscription: on a loaded box a server may restart too slowly between
    // kills for a renewal to finish (a renewal cut by a kill waits out its lease), and the checks below must see some.
    const renewed = async () =>
      ((await db!.sql(`SELECT count(*)::int AS n FROM events WHERE type = 'subscription.renewed'`)) as Array<{ n: number }>)[0]!.n
    await waitFor("a subscription renewed by the load", async () => (await renewed()) > 0, 60_000, async () => ({
      subscriptions: await db!.sql(`SELECT subscription_id, status, next_billing_date, next_retry_at FROM subscriptions`)
    }))
    loading = false
    await load

    // Drain: every delivery of every committed event succeeds (an attempt cut by a kill is retried once its lease
    // ends, ≤ 30 s). The last server goes on working meanwhile: a payment orphaned by a kill is looked up a minute
    // later, and its event is new then. So the checks below are of the events committed when the drain was seen
    // complete, and the events committed while they ran are awaited after them.
    type Committed = { event_id: string; type: string; deliveries: number; delivered: number }
    let events: Array<Committed> = []
    const committed = async () =>
      (await db!.sql(`SELECT e.event_id, e.type,
          (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.event_id) AS deliveries,
          (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.event_id AND d.status = 'succeeded')
            AS delivered
        FROM events e`)) as Array<Committed>
    let accepted: Array<Map<string, number>> = []
    /** Nothing lost: both deliveries of each committed event succeeded, and each receiver accepted it. */
    const allDelivered = async () => {
      events = await committed()
      accepted = [a, b].map(acceptedIds)
      return events.every((e) => e.deliveries === 2 && e.delivered === 2) &&
        accepted.every((ids) => events.every((e) => ids.has(e.event_id)))
    }
    await waitFor("every delivery to succeed", allDelivered, 50_000, async () => ({
      undelivered: events.filter((e) => e.delivered < 2).slice(0, 10),
      unaccepted: accepted.map((ids) => events.filter((e) => !ids.has(e.event_id)).map((e) => e.event_id).slice(0, 10)),
      failing: await db!.sql(`SELECT delivery_id, status, attempts, next_attempt_at, lease_until, last_error
        FROM webhook_deliveries WHERE status <> 'succeeded' LIMIT 10`)
    }))
    expect(events.length).toBeGreaterThan(0)
    expect(await db.check({ leaseGrace: 0 })).toEqual([])
    // What the processor moved is what Fils recorded: no money taken twice or unrecorded, refund totals agree.
    const reconciled = await reconcile(env)
    expect(reconciled.report, reconciled.stderr).toMatchObject({ ok: true, mismatches: [] })
    expect(reconciled.code).toBe(0)
    expect(reconciled.report.checked).toBeGreaterThan(stats.paid)

    // Nothing invented: a receiver accepted only events that were committed (the events read now, a later one too).
    const ids = new Set(((await db.sql(`SELECT event_id FROM events`)) as Array<{ event_id: string }>).map((e) => e.event_id))
    for (const r of [a, b]) expect([...acceptedIds(r).keys()].filter((id) => !ids.has(id))).toEqual([])
    // Nothing sent twice beyond at-least-once.
    const drained = new Set(events.map((e) => e.event_id))
    const rows = ((await db.sql(`SELECT d.event_id, w.url, d.attempts,
        (SELECT count(*)::int FROM webhook_attempts x WHERE x.delivery_id = d.delivery_id) AS recorded
      FROM webhook_deliveries d JOIN webhook_endpoints w ON w.webhook_id = d.webhook_id`)) as Array<any>)
      .filter((row) => drained.has(row.event_id))
    let resent = 0
    for (const row of rows) {
      const r = row.url === a.url ? a : b
      const got = r.received.filter((x) => x.id === row.event_id).length
      expect(got, `${row.event_id} at ${row.url}`).toBeGreaterThanOrEqual(1)
      expect(got, `${row.event_id}: received more often than claimed`).toBeLessThanOrEqual(row.attempts)
      if (got > 1) {
        resent++
        expect(row.attempts, `${row.event_id} sent ${got} times with every claim recorded`).toBeGreaterThan(row.recorded)
      }
    }
    expect(rows.length).toBe(2 * events.length)
    const types = new Map<string, number>()
    for (const e of events) types.set(e.type, (types.get(e.type) ?? 0) + 1)
    // And the events committed while those were checked (a lookup's, say) reach both receivers too.
    await waitFor("the later events delivered", allDelivered, 30_000)
    // The load did what it was meant to: all kinds of events under the kills.
    for (const type of ["payment.succeeded", "payment.failed", "refund.succeeded", "subscription.renewed"]) {
      expect(types.get(type) ?? 0, `${type} events`).toBeGreaterThan(0)
    }
    console.info(
      `crash test: survived ${survived} kill -9 crashes in ${((Date.now() - loopStarted) / 1000).toFixed(0)} s ` +
        `(total ${((Date.now() - t0) / 1000).toFixed(0)} s); ${events.length} events (` +
        [...types].map(([t, n]) => `${t} ${n}`).join(", ") + `), ${rows.length} deliveries all delivered, ` +
        `${resent} resent after a crash; load: ${JSON.stringify(stats)}; violations after each restart: ${checks.join(",")}; ` +
        `restarts took ${restarts.map((ms) => (ms / 1000).toFixed(1)).join(", ")} s`
    )
  }, soak ? 30 * 60_000 : 230_000)
})
