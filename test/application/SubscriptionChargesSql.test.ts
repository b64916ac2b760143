/**
 * On-demand charges on PostgreSQL, two servers: one client's retries of a charge under one Idempotency-Key, sent at
 * once to both, make one payment and one charge at the processor, and every retry answers that payment. What decides
 * is the key's uniqueness in the database, claimed in the transaction that reserves the payment
 * (`SubscriptionCharges`): a claim that meets another still uncommitted waits for it, then replays its answer.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Layer, type Redacted } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { NodeAdaptersSql } from "../../adapters/runtime/NodeAdapters.js"
import { Engine } from "../../src/application/Engine.js"
import { SubscriptionCharges } from "../../src/application/SubscriptionCharges.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { migratedDatabaseUrl } from "../support/database.js"
import { newAccount } from "./harness.js"

/** An engine on its own pool of `url` (one server), its simulated processor's ledger in the same database. */
const serverOn = (url: Redacted.Redacted, processorDelay: string) => {
  const pg = PgLive(url, { maxConnections: 4 })
  return Layer.build(
    Engine.pipe(
      Layer.provideMerge(Layer.mergeAll(StoreSql, NodeAdaptersSql).pipe(Layer.provide(pg))),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["FILS_SIMULATED_DELAY", processorDelay]]))))
    )
  )
}

describe("on-demand charges on PostgreSQL, two servers", () => {
  it.scopedLive("retries under one key, sent to both servers at once: one payment, one charge, one answer", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      // The processor answers slowly, so the first request is at the processor while the others arrive.
      const a = yield* serverOn(url, "300 millis")
      const b = yield* serverOn(url, "300 millis")
      const sql = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)

      const { scope, subscriptionId } = yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const product = yield* makeProduct(test, { price: 4900, billing: "recurring", billing_interval: "month" })
        const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
        const result = yield* pay(session.session_id, formWith(cards.visa))
        if (result._tag !== "Paid" || result.payment.subscription_id === null) return assert.fail("not subscribed")
        return { scope: test, subscriptionId: result.payment.subscription_id }
      }).pipe(Effect.provide(a))

      const body = { product_price: 2500, product_description: "Extra tin" }
      const key = "charge-extra-tin"
      const charge = (server: typeof a) =>
        Effect.flatMap(SubscriptionCharges, (c) => c.charge(scope, subscriptionId, body, key)).pipe(Effect.provide(server))
      const made = yield* Effect.all([a, b, a, b, a, b].map(charge), { concurrency: "unbounded" })

      const ids = new Set(made.map((m) => m.payment.payment_id))
      assert.strictEqual(ids.size, 1, "every retry answers the same payment")
      assert.strictEqual(made.filter((m) => !m.replayed).length, 1, "one request made it; the others replayed it")
      const [paymentId] = [...ids]
      const payments = yield* sql<{ payment_id: string; status: string; total_amount: string }>`
        SELECT payment_id, status, total_amount::text FROM payments WHERE billing_reason = 'subscription_charge'`
      assert.deepStrictEqual(payments.map((p) => [p.payment_id, p.total_amount]), [[paymentId, "2500"]])
      const charges = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM fils_sim.charges WHERE reference = ${paymentId!}`
      assert.strictEqual(charges[0]!.n, 1, "one charge at the processor")
      // The request that made it waited for the processor: its answer is the outcome.
      assert.strictEqual(made.find((m) => !m.replayed)!.payment.status, "succeeded")
    }), { timeout: 60_000 })
})
