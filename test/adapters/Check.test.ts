/**
 * `fils check` (adapters/sql/Check.ts): a database built by the real engine on PostgreSQL (payments that succeed,
 * fail and settle later, refunds, a subscription and its renewal, webhook deliveries to a receiver on 127.0.0.1)
 * reports nothing; then each invariant is broken by hand with direct SQL and the checker names exactly that
 * invariant and object, and is clean again once the row is put back. The command itself runs as a process on the
 * same database: exit 0 and `ok: true` when clean, exit 2 and the violation when broken.
 */
import { operator } from "../../src/domain/Account.js"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, DateTime, Effect, Exit, Layer, ManagedRuntime, Redacted, Scope } from "effect"
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { check, type Violation } from "../../adapters/sql/Check.js"
import { MigratedPg } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { Discounts } from "../../src/application/Discounts.js"
import { Engine } from "../../src/application/Engine.js"
import { Payments } from "../../src/application/Payments.js"
import { Products } from "../../src/application/Products.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import type { PaymentId } from "../../src/domain/Ids.js"
import { cards, formWith, makeSession, pay, storedSession } from "../support/checkout.js"
import { runFils } from "../support/cli.js"
import { freshDatabaseUrl } from "../support/database.js"

let scope: Scope.CloseableScope
let url: Redacted.Redacted
let runtime: ManagedRuntime.ManagedRuntime<any, never>
let receiver: Server

const run = <A, E>(effect: Effect.Effect<A, E, any>): Promise<A> => runtime.runPromise(effect as Effect.Effect<A, E, never>)
const sql = (text: string) => run(Effect.flatMap(SqlClient.SqlClient, (c) => c.unsafe<any>(text)))
const one = async (text: string): Promise<any> => {
  const rows = await sql(text)
  expect(rows.length, text).toBeGreaterThanOrEqual(1)
  return rows[0]
}
const violations = (): Promise<ReadonlyArray<Violation>> => run(check({ subscribeGrace: 0 }))

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  url = await Effect.runPromise(Scope.extend(freshDatabaseUrl, scope))
  receiver = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(200).end("ok"))
  })
  receiver.listen(0, "127.0.0.1")
  await once(receiver, "listening")
  const port = (receiver.address() as { port: number }).port
  const layer = Engine.pipe(
    Layer.provideMerge(Layer.mergeAll(StoreSql, NodeAdapters)),
    Layer.provideMerge(MigratedPg(url, { maxConnections: 4 })),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["FILS_PUBLIC_URL", "http://127.0.0.1:1"]])))),
    Layer.orDie
  )
  runtime = ManagedRuntime.make(layer) as ManagedRuntime.ManagedRuntime<any, never>

  // Real flows: every kind of row the checker reads.
  await run(Effect.gen(function*() {
    const accounts = yield* Accounts
    const { keys } = yield* accounts.create({ business_name: "Check Dates" })
    const principal = yield* accounts.authenticate(keys.test.secret)
    const shop = { accountId: principal.accountId, livemode: principal.livemode }
    yield* (yield* Webhooks).create(shop, { url: `http://127.0.0.1:${port}/hooks` })
    const paid = yield* makeSession(shop)
    yield* pay(paid.session_id, formWith(cards.visa))
    const declined = yield* makeSession(shop)
    yield* pay(declined.session_id, formWith(cards.declined))
    const later = yield* makeSession(shop)
    yield* pay(later.session_id, formWith(cards.settleSucceeds))
    // Two lines, quantities: a session total made of lines.
    const products = yield* Products
    const a = yield* products.create(shop, { name: "Dates", price: 1_250, currency: "AED" })
    const b = yield* products.create(shop, { name: "Tea", price: 700, currency: "AED" })
    const cart = yield* makeSession(shop, { product_cart: [{ product_id: a.product_id, quantity: 3 }, { product_id: b.product_id, quantity: 2 }] })
    const cartPaid = yield* pay(cart.session_id, formWith(cards.visa))
    const partial = yield* makeSession(shop)
    const partialPaid = yield* pay(partial.session_id, formWith(cards.visa))
    const payments = yield* Payments
    if (cartPaid._tag !== "Paid" || partialPaid._tag !== "Paid") return yield* Effect.die("payments did not go through")
    yield* payments.refund(operator, cartPaid.payment.payment_id as PaymentId)
    yield* payments.refund(operator, partialPaid.payment.payment_id as PaymentId, 1_000)
    // A subscription, renewed once a day later.
    const plan = yield* products.create(shop, {
      name: "Coffee club", price: 3_000, currency: "AED", billing: "recurring", billing_interval: "day"
    })
    // Discount codes: one paid with its code; one declined with it, then paid without (the session priced again).
    const discounts = yield* Discounts
    yield* discounts.create(shop, { code: "Dates20", type: "percentage", amount: 2000, restricted_to: [a.product_id] })
    const discounted = yield* makeSession(shop, { product_cart: [{ product_id: a.product_id, quantity: 2 }, { product_id: b.product_id }], discount_code: "dates20" })
    yield* pay(discounted.session_id, formWith(cards.visa))
    const changed = yield* makeSession(shop, { product_cart: [{ product_id: a.product_id }], discount_code: "DATES20" })
    yield* pay(changed.session_id, formWith(cards.declined))
    yield* (yield* Checkout).applyCode(changed.session_id, (yield* storedSession(changed.session_id)).form_token, "")
    yield* pay(changed.session_id, formWith(cards.visa))
    const sub = yield* makeSession(shop, { product_cart: [{ product_id: plan.product_id, quantity: 1 }] })
    yield* pay(sub.session_id, formWith(cards.visa))
    // A free trial (its session complete with no payment) and a paid one (its total the trial's price, not its lines').
    for (const trial_amount of [null, 400]) {
      const trialPlan = yield* products.create(shop, {
        name: "Trial club", price: 3_000, currency: "AED", billing: "recurring", billing_interval: "month", trial_period_days: 7, trial_amount
      })
      const trial = yield* makeSession(shop, { product_cart: [{ product_id: trialPlan.product_id, quantity: 2 }] })
      const started = yield* pay(trial.session_id, formWith(cards.visa))
      if (started._tag !== (trial_amount === null ? "Started" : "Paid")) return yield* Effect.die(`the trial answered ${started._tag}`)
    }
    const now = DateTime.toEpochMillis(yield* DateTime.now)
    const report = yield* (yield* Billing).runOnce({ livemode: false, asOf: now + 86_400_000 + 60_000 })
    if (report.renewals_charged !== 1) return yield* Effect.die(`expected one renewal, got ${JSON.stringify(report)}`)
  }))
  // The processing charge settles (about 2 s), then every delivery is sent.
  const deadline = Date.now() + 20_000
  for (;;) {
    await run(Effect.flatMap(Billing, (b) => b.runOnce({ livemode: false })))
    const processing = await sql(`SELECT count(*)::int AS n FROM payments WHERE status = 'processing'`)
    if (processing[0].n === 0 || Date.now() > deadline) break
    await new Promise((r) => setTimeout(r, 500))
  }
  while ((await run(Effect.flatMap(Deliveries, (d) => d.dispatchOnce()))) > 0) {
    // until nothing is due
  }
}, 60_000)

afterAll(async () => {
  await runtime?.dispose()
  receiver?.closeAllConnections()
  receiver?.close()
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
}, 30_000)

describe("fils check", () => {
  it("finds nothing on a database built by the real flows", async () => {
    const counts = await one(`SELECT
      (SELECT count(*)::int FROM payments WHERE status = 'succeeded') AS succeeded,
      (SELECT count(*)::int FROM payments WHERE status = 'failed') AS failed,
      (SELECT count(*)::int FROM payments WHERE status = 'refunded') AS refunded,
      (SELECT count(*)::int FROM payments WHERE status = 'partially_refunded') AS partial,
      (SELECT count(*)::int FROM payments WHERE billing_reason = 'subscription_renewal') AS renewals,
      (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'succeeded') AS delivered,
      -- Those of the renewal, made as of a day ahead (the stopped clock), were due at once and went out too.
      (SELECT count(*)::int FROM webhook_deliveries d JOIN events e USING (event_id)
        WHERE d.status = 'succeeded' AND e.created_at > now()) AS ahead,
      (SELECT count(*)::int FROM webhook_deliveries) AS deliveries,
      (SELECT count(*)::int FROM events) AS events`)
    // The flows made what the checks look at: all four payment states, a renewal, delivered events.
    expect(counts).toMatchObject({ failed: 2, refunded: 1, partial: 1, renewals: 1 })
    expect(counts.succeeded).toBeGreaterThanOrEqual(3)
    expect(counts.deliveries).toBe(counts.events)
    expect(counts.ahead).toBeGreaterThanOrEqual(1)
    expect(counts.delivered).toBe(counts.deliveries)
    expect(await violations()).toEqual([])
  })

  const cases: ReadonlyArray<{
    readonly invariant: Violation["invariant"]
    readonly what: string
    /** Breaks it; returns the object id the checker must name, and the SQL that puts it back. */
    readonly corrupt: () => Promise<{ readonly objectId: string; readonly restore: ReadonlyArray<string> }>
  }> = [
    {
      invariant: "payment_events",
      what: "a succeeded payment lost its payment.succeeded event",
      corrupt: async () => {
        const e = await one(`SELECT event_id, data->>'payment_id' AS payment_id FROM events
          WHERE type = 'payment.succeeded' ORDER BY event_id LIMIT 1`)
        await sql(`UPDATE events SET data = jsonb_set(data, '{payment_id}', '"pay_00000000000000000000000000000000"')
          WHERE event_id = '${e.event_id}'`)
        return {
          objectId: e.payment_id,
          restore: [`UPDATE events SET data = jsonb_set(data, '{payment_id}', '"${e.payment_id}"') WHERE event_id = '${e.event_id}'`]
        }
      }
    },
    {
      invariant: "payment_events",
      what: "a refund's events do not add up to the refunded amount",
      corrupt: async () => {
        const e = await one(`SELECT event_id, data->>'payment_id' AS payment_id, data->>'refund_amount' AS amount
          FROM events WHERE type = 'refund.succeeded' ORDER BY event_id LIMIT 1`)
        await sql(`UPDATE events SET data = jsonb_set(data, '{refund_amount}', '1') WHERE event_id = '${e.event_id}'`)
        return {
          objectId: e.payment_id,
          restore: [`UPDATE events SET data = jsonb_set(data, '{refund_amount}', '${e.amount}') WHERE event_id = '${e.event_id}'`]
        }
      }
    },
    {
      invariant: "session_complete",
      what: "a session whose payment succeeded is still open",
      corrupt: async () => {
        const s = await one(`SELECT s.session_id, s.payment_id, s.completed_at::text AS completed_at
          FROM checkout_sessions s JOIN payments p ON p.payment_id = s.payment_id
          WHERE s.status = 'complete' AND s.kind = 'payment' ORDER BY s.session_id LIMIT 1`)
        await sql(`UPDATE checkout_sessions SET status = 'open', completed_at = NULL, payment_id = NULL
          WHERE session_id = '${s.session_id}'`)
        return {
          objectId: s.session_id,
          restore: [`UPDATE checkout_sessions SET status = 'complete', completed_at = '${s.completed_at}',
            payment_id = '${s.payment_id}' WHERE session_id = '${s.session_id}'`]
        }
      }
    },
    {
      invariant: "period_charged_twice",
      what: "a renewed period charged a second time",
      corrupt: async () => {
        const a = await one(`SELECT a.subscription_id, a.period, p.payment_id AS first_payment
          FROM subscription_attempts a JOIN payments p ON p.subscription_id = a.subscription_id
          WHERE p.billing_reason = 'subscription_create' LIMIT 1`)
        await sql(`INSERT INTO subscription_attempts (subscription_id, period, attempt, payment_id)
          VALUES ('${a.subscription_id}', ${a.period}, 1, '${a.first_payment}')`)
        return {
          objectId: `${a.subscription_id}:${a.period}`,
          restore: [`DELETE FROM subscription_attempts WHERE payment_id = '${a.first_payment}'`]
        }
      }
    },
    {
      invariant: "delivery_missing",
      what: "an event's delivery to a subscribed endpoint is gone",
      corrupt: async () => {
        const d = await one(`SELECT delivery_id, event_id, webhook_id FROM webhook_deliveries ORDER BY delivery_id LIMIT 1`)
        // No foreign key to the endpoint (deliveries outlive deleted endpoints): re-pointing it loses it for this one.
        await sql(`UPDATE webhook_deliveries SET webhook_id = 'wh_00000000000000000000000000000000'
          WHERE delivery_id = '${d.delivery_id}'`)
        return {
          objectId: `${d.event_id}:${d.webhook_id}`,
          restore: [`UPDATE webhook_deliveries SET webhook_id = '${d.webhook_id}' WHERE delivery_id = '${d.delivery_id}'`]
        }
      }
    },
    {
      invariant: "delivery_stuck",
      what: "a pending delivery still holds a lease that ended long ago",
      corrupt: async () => {
        const d = await one(`SELECT delivery_id FROM webhook_deliveries WHERE status = 'succeeded' ORDER BY delivery_id LIMIT 1`)
        await sql(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(),
          lease_until = now() - interval '5 minutes' WHERE delivery_id = '${d.delivery_id}'`)
        return {
          objectId: d.delivery_id,
          restore: [`UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL, lease_until = NULL
            WHERE delivery_id = '${d.delivery_id}'`]
        }
      }
    },
    {
      invariant: "delivery_attempts",
      what: "a succeeded delivery has no 2xx attempt",
      corrupt: async () => {
        const a = await one(`SELECT delivery_id, attempt, status_code FROM webhook_attempts
          WHERE status_code = 200 ORDER BY delivery_id LIMIT 1`)
        await sql(`UPDATE webhook_attempts SET status_code = 500 WHERE delivery_id = '${a.delivery_id}'`)
        return {
          objectId: a.delivery_id,
          restore: [`UPDATE webhook_attempts SET status_code = 200 WHERE delivery_id = '${a.delivery_id}'`]
        }
      }
    },
    {
      invariant: "refunds",
      what: "a payment's confirmed refunds add up to more than its refunded amount",
      corrupt: async () => {
        const r = await one(`SELECT refund_id, payment_id, amount FROM refunds WHERE status = 'succeeded' ORDER BY refund_id LIMIT 1`)
        await sql(`UPDATE refunds SET amount = amount + 1 WHERE refund_id = '${r.refund_id}'`)
        return { objectId: r.payment_id, restore: [`UPDATE refunds SET amount = ${r.amount} WHERE refund_id = '${r.refund_id}'`] }
      }
    },
    {
      invariant: "day_totals",
      what: "the daily totals the dashboard reads no longer add up to the payments",
      corrupt: async () => {
        const d = await one(`SELECT account_id, livemode, day::text AS day, shard FROM payment_days ORDER BY 1, 2, 3, 4 LIMIT 1`)
        const where = `account_id = '${d.account_id}' AND livemode = ${d.livemode} AND day = '${d.day}' AND shard = ${d.shard}`
        await sql(`UPDATE payment_days SET gross = gross + 1 WHERE ${where}`)
        return {
          objectId: `${d.account_id}:${d.livemode ? "live" : "test"}:${d.day}`,
          restore: [`UPDATE payment_days SET gross = gross - 1 WHERE ${where}`]
        }
      }
    },
    {
      invariant: "amounts",
      what: "a session's total is not the sum of its lines",
      corrupt: async () => {
        const s = await one(`SELECT session_id FROM checkout_sessions WHERE jsonb_array_length(product_cart) = 2 LIMIT 1`)
        await sql(`UPDATE checkout_sessions SET total_amount = total_amount + 1 WHERE session_id = '${s.session_id}'`)
        return {
          objectId: s.session_id,
          restore: [`UPDATE checkout_sessions SET total_amount = total_amount - 1 WHERE session_id = '${s.session_id}'`]
        }
      }
    }
  ]

  for (const c of cases) {
    it(`reports ${c.invariant}: ${c.what}`, async () => {
      expect(await violations()).toEqual([])
      const { objectId, restore } = await c.corrupt()
      const found = await violations()
      expect(found.length, JSON.stringify(found)).toBeGreaterThanOrEqual(1)
      expect(found.filter((v) => v.invariant === c.invariant).map((v) => v.object_id)).toContain(objectId)
      for (const v of found) expect(v.detail).toEqual(expect.any(String))
      for (const statement of restore) await sql(statement)
      expect(await violations()).toEqual([])
    })
  }

  it("fils check as a process: exit 0 when clean, 2 with the violation as JSON when broken", async () => {
    const env = { DATABASE_URL: Redacted.value(url), FILS_DATA_DIR: undefined }
    const clean = await runFils(["check"], env)
    expect(clean.code, clean.stderr).toBe(0)
    expect(JSON.parse(clean.stdout)).toMatchObject({ ok: true, violations: [] })

    // Amounts the CHECK constraints guard: only with the constraints dropped (a restore that skipped them, say).
    const p = await one(`SELECT payment_id FROM payments WHERE status = 'partially_refunded' LIMIT 1`)
    await sql(`ALTER TABLE payments DROP CONSTRAINT payments_refunded_range, DROP CONSTRAINT payments_net,
      DROP CONSTRAINT payments_partial_refund`)
    await sql(`UPDATE payments SET refunded_amount = total_amount + 100 WHERE payment_id = '${p.payment_id}'`)
    const broken = await runFils(["check"], env)
    expect(broken.code, broken.stderr).toBe(2)
    const out = JSON.parse(broken.stdout)
    expect(out.ok).toBe(false)
    expect(out.checked).toContain("amounts")
    expect(out.violations).toContainEqual(expect.objectContaining({ invariant: "amounts", object_id: p.payment_id }))
    // The refund events no longer add up either.
    expect(out.violations).toContainEqual(expect.objectContaining({ invariant: "payment_events", object_id: p.payment_id }))
    for (const v of out.violations) expect(Object.keys(v).sort()).toEqual(["detail", "invariant", "object_id"])
  }, 30_000)
})
