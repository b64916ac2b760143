/**
 * The real `Billing` service, twice, on one PostgreSQL: two engines on their own pools (two servers) run a billing
 * pass at the same moment over the same due subscriptions. Each period is charged exactly once, and the work is
 * shared (SKIP LOCKED in the transaction that claims and reserves), not done twice or by one alone.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Layer, type Redacted } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { Billing } from "../../src/application/Billing.js"
import { Engine } from "../../src/application/Engine.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { migratedDatabaseUrl } from "../support/database.js"
import { newAccount } from "./harness.js"

/**
 * An engine on its own pool of `url`: one server. `processorDelay` slows its charges, so that a claimed batch is
 * at the processor long enough for the other server's first claim to land meanwhile, however the two are scheduled
 * (two seconds: on a busy machine the second pass's first claim was seen to come more than half a second late).
 */
const serverOn = (url: Redacted.Redacted, processorDelay?: string) =>
  Layer.build(
    Engine.pipe(
      Layer.provideMerge(Layer.mergeAll(StoreSql.pipe(Layer.provide(PgLive(url, { maxConnections: 4 }))), NodeAdapters)),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(
        processorDelay === undefined ? [] : [["FILS_SIMULATED_DELAY", processorDelay]]
      ))))
    )
  )

const subscriptions = 240 // more than one claim batch (100), so both servers find work

describe("Billing on PostgreSQL, two servers", () => {
  it.scopedLive("one pass each at once over the same due set: every period charged once, the work shared", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const setup = yield* serverOn(url)
      const a = yield* serverOn(url, "2 seconds")
      const b = yield* serverOn(url, "2 seconds")
      const sql = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)

      // Subscriptions paid through the checkout (on a third server, with no delay), then all made due now.
      const ids = yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const product = yield* makeProduct(test, { price: 4900, billing: "recurring", billing_interval: "month" })
        return yield* Effect.forEach(Array.from({ length: subscriptions }), () =>
          Effect.gen(function*() {
            const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
            const result = yield* pay(session.session_id, formWith(cards.visa))
            if (result._tag !== "Paid" || result.payment.subscription_id === null) return assert.fail("not subscribed")
            return result.payment.subscription_id
          }), { concurrency: 8 })
      }).pipe(Effect.provide(setup))
      assert.lengthOf(new Set(ids), subscriptions)

      // Both passes run as of 40 days later, when every subscription's first renewal is due.
      const later = Date.now() + 40 * 24 * 3600_000
      const pass = (server: typeof a) =>
        Effect.flatMap(Billing, (billing) => billing.runOnce({ asOf: later })).pipe(Effect.provide(server))
      const [ra, rb] = yield* Effect.all([pass(a), pass(b)], { concurrency: 2 })

      assert.strictEqual(ra.renewals_charged + rb.renewals_charged, subscriptions, "every due period charged")
      assert.isAbove(ra.renewals_charged, 0, "server A renewed some")
      assert.isAbove(rb.renewals_charged, 0, "server B renewed some")
      const perPeriod = yield* sql<{ subscription_id: string; n: number }>`
        SELECT subscription_id, count(*)::int AS n FROM payments
        WHERE billing_reason = 'subscription_renewal' AND status = 'succeeded'
        GROUP BY subscription_id`
      assert.lengthOf(perPeriod, subscriptions)
      assert.isTrue(perPeriod.every((r) => r.n === 1), "one paid renewal per subscription")
      const periods = yield* sql<{ period: number; n: number }>`SELECT period, count(*)::int AS n FROM subscriptions
        GROUP BY period`
      assert.deepStrictEqual(periods.map((r) => [r.period, r.n]), [[1, subscriptions]], "each advanced one period")
      // A second pass of both finds nothing left.
      const [again, againB] = yield* Effect.all([pass(a), pass(b)], { concurrency: 2 })
      assert.deepStrictEqual([again.renewals_charged, againB.renewals_charged], [0, 0])
    }), { timeout: 120_000 })
})
