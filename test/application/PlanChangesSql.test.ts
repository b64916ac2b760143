/**
 * Two plan change requests at once on one subscription, on PostgreSQL, from two servers (engines on their own pools):
 * the subscription's row lock and the change waiting for its charge (`pending_change`) leave exactly one change and
 * one charge; the other request is refused and changes nothing, its key given back.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Either, Layer, type Redacted } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { Engine } from "../../src/application/Engine.js"
import { PlanChanges } from "../../src/application/PlanChanges.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { migratedDatabaseUrl } from "../support/database.js"
import { newAccount } from "./harness.js"

/** An engine on its own pool of `url`: one server, its saved-card charges slowed by `delay`. */
const serverOn = (url: Redacted.Redacted, delay: string) =>
  Layer.build(
    Engine.pipe(
      Layer.provideMerge(Layer.mergeAll(StoreSql.pipe(Layer.provide(PgLive(url, { maxConnections: 4 }))), NodeAdapters)),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["FILS_SIMULATED_DELAY", delay]]))))
    )
  )

describe("plan changes on PostgreSQL, two servers", () => {
  it.scopedLive("two changes of one subscription at once: exactly one is made and charged, the other refused", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      // The charges take long enough that the second request reserves while the first is at the processor.
      const a = yield* serverOn(url, "300 millis")
      const b = yield* serverOn(url, "300 millis")
      const sql = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)

      const { products, scope, subscriptionId } = yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const recurring = (name: string, price: number) =>
          makeProduct(test, { name, price, billing: "recurring", billing_interval: "month" })
        const basic = yield* recurring("Basic", 10000)
        const pro = yield* recurring("Pro", 30000)
        const team = yield* recurring("Team", 50000)
        const session = yield* makeSession(test, { product_cart: [{ product_id: basic.product_id }] })
        const paid = yield* pay(session.session_id, formWith(cards.visa))
        if (paid._tag !== "Paid" || paid.payment.subscription_id === null) return assert.fail("not subscribed")
        return { products: [pro, team], scope: test, subscriptionId: paid.payment.subscription_id }
      }).pipe(Effect.provide(a))

      const changeTo = (server: typeof a, productId: string, key: string) =>
        Effect.either(Effect.flatMap(PlanChanges, (p) =>
          p.change(scope, subscriptionId, { product_id: productId, quantity: 1, proration_billing_mode: "full_immediately" }, key))
        ).pipe(Effect.provide(server))
      const [ra, rb] = yield* Effect.all([
        changeTo(a, products[0]!.product_id, "change-a"),
        changeTo(b, products[1]!.product_id, "change-b")
      ], { concurrency: 2 })

      const made = [ra, rb].filter(Either.isRight)
      const refused = [ra, rb].filter(Either.isLeft)
      assert.lengthOf(made, 1, "one change is made")
      assert.lengthOf(refused, 1, "the other is refused")
      assert.strictEqual(refused[0]!.left._tag, "InvalidState")
      assert.match(refused[0]!.left.message, /is waiting for its payment/)
      const winner = made[0]!.right
      const sub = yield* Effect.flatMap(Subscriptions, (s) => s.get(scope, subscriptionId)).pipe(Effect.provide(b))
      assert.deepStrictEqual([sub.product_id, sub.pending_change], [winner.subscription.product_id, null])
      const changes = yield* sql<{ status: string; total_amount: number }>`
        SELECT status, total_amount FROM payments WHERE billing_reason = 'subscription_update'`
      assert.deepStrictEqual(changes.map((c) => [c.status, Number(c.total_amount)]), [["succeeded", winner.subscription.recurring_amount]])
      const events = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'subscription.plan_changed'`
      assert.strictEqual(events[0]!.n, 1)
      // The winner's key holds its answer; the refused change gave its key back in its transaction.
      const keys = yield* sql<{ key: string; response_status: number }>`
        SELECT key, response_status FROM idempotency_keys WHERE scope LIKE '%:plan_changes'`
      const winnerKey = Either.isRight(ra) ? "change-a" : "change-b"
      assert.deepStrictEqual(keys.map((k) => [k.key, k.response_status]), [[winnerKey, 200]])
      const again = yield* changeTo(b, winner.subscription.product_id, winnerKey)
      assert.strictEqual(Either.getOrThrow(again).payment?.payment_id, winner.payment?.payment_id, "a retry meets the same payment")
    }), { timeout: 60_000 })
})
