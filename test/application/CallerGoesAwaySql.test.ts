/**
 * A caller that goes away (an HTTP client that hangs up: the server interrupts its request) at any moment of a
 * checkout payment, a plan change or a refund, on PostgreSQL. Once the money is reserved the work is carried through
 * (`ProcessorCall.reserveThenCall`): nothing is left `processing` or `pending` with nothing asked of the processor,
 * which would hold the session, the subscription or the refundable amount until the lookup pass gives it up. A plan
 * change's reservation waits for the batch it is gathered in, so a hang-up there is the one these runs meet every
 * time; the checkout's and the refund's gaps are narrower, and their tests guard the same rule.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Exit, Fiber, Layer } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { Engine } from "../../src/application/Engine.js"
import { Payments } from "../../src/application/Payments.js"
import { PlanChanges } from "../../src/application/PlanChanges.js"
import { operator } from "../../src/domain/Account.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { migratedDatabaseUrl } from "../support/database.js"
import { newAccount } from "./harness.js"

const callers = 20

/** A fresh database, an engine on it, and a client to read its rows. */
const setUp = Effect.gen(function*() {
  const url = yield* migratedDatabaseUrl
  const engine = yield* Layer.build(
    Engine.pipe(
      Layer.provideMerge(Layer.mergeAll(StoreSql.pipe(Layer.provide(PgLive(url, { maxConnections: 4 }))), NodeAdapters)),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
    )
  )
  const sql = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)
  return { engine, sql }
})

/**
 * Runs `work(0)` and `work(1)` through, timing the second (the first warms the connections and the code up), then
 * runs `work(i)` for every other caller in turn, each interrupted a little later than the one before, over one and a
 * half times that: the early ones before anything is reserved, the late ones after they finished, those between at
 * every step of the way. Returns how many callers finished (the rest were interrupted).
 */
const hangUpAtEveryMoment = <A, E>(work: (i: number) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    yield* work(0)
    const began = performance.now()
    yield* work(1)
    const spread = 1.5 * (performance.now() - began)
    let finished = 2
    for (let i = 2; i < callers; i++) {
      const fiber = yield* Effect.fork(work(i))
      yield* Effect.sleep(Math.round((spread * (i - 1)) / (callers - 2)))
      if (Exit.isSuccess(yield* Fiber.interrupt(fiber))) finished++
    }
    return finished
  })

describe("a caller that goes away, on PostgreSQL", () => {
  it.scopedLive("paying a checkout: no payment is left processing", () =>
    Effect.gen(function*() {
      const { engine, sql } = yield* setUp
      const sessions = yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const product = yield* makeProduct(test, { price: 10_000 })
        return yield* Effect.forEach(Array.from({ length: callers }), () =>
          makeSession(test, { product_cart: [{ product_id: product.product_id }] }))
      }).pipe(Effect.provide(engine))
      yield* hangUpAtEveryMoment((i) => pay(sessions[i]!.session_id, formWith(cards.visa)).pipe(Effect.provide(engine)))
      const payments = yield* sql<{ status: string }>`SELECT status FROM payments`
      assert.isAbove(payments.length, 2, "some payments got as far as their charge")
      assert.deepStrictEqual(payments.filter((p) => p.status === "processing"), [])
    }), { timeout: 60_000 })

  it.scopedLive("changing a plan: no change is left waiting for its charge", () =>
    Effect.gen(function*() {
      const { engine, sql } = yield* setUp
      const { pro, scope, subscriptions } = yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const monthly = (name: string, price: number) => makeProduct(test, { name, price, billing: "recurring", billing_interval: "month" })
        const basic = yield* monthly("Basic", 10_000)
        const pro = yield* monthly("Pro", 30_000)
        const subscriptions = yield* Effect.forEach(Array.from({ length: callers }), () =>
          Effect.gen(function*() {
            const session = yield* makeSession(test, { product_cart: [{ product_id: basic.product_id }] })
            const paid = yield* pay(session.session_id, formWith(cards.visa))
            if (paid._tag !== "Paid" || paid.payment.subscription_id === null) return assert.fail("not subscribed")
            return paid.payment.subscription_id
          }))
        return { pro, scope: test, subscriptions }
      }).pipe(Effect.provide(engine))
      const finished = yield* hangUpAtEveryMoment((i) =>
        Effect.flatMap(PlanChanges, (p) =>
          p.change(scope, subscriptions[i]!, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "full_immediately" }, `hang-up-${i}`)
        ).pipe(Effect.provide(engine)))
      const charges = yield* sql<{ status: string }>`SELECT status FROM payments WHERE billing_reason = 'subscription_update'`
      assert.isAbove(charges.length, finished, "some callers went away after their charge was reserved")
      assert.deepStrictEqual(charges.filter((c) => c.status === "processing"), [])
      const waiting = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM subscriptions WHERE pending_change IS NOT NULL`
      assert.strictEqual(waiting[0]!.n, 0, "no subscription is left waiting for a charge")
    }), { timeout: 60_000 })

  it.scopedLive("refunding: no refund is left pending", () =>
    Effect.gen(function*() {
      const { engine, sql } = yield* setUp
      const paid = yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const product = yield* makeProduct(test, { price: 10_000 })
        return yield* Effect.forEach(Array.from({ length: callers }), () =>
          Effect.gen(function*() {
            const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
            const result = yield* pay(session.session_id, formWith(cards.visa))
            return result._tag === "Paid" ? result.payment.payment_id : assert.fail("not paid")
          }))
      }).pipe(Effect.provide(engine))
      yield* hangUpAtEveryMoment((i) =>
        Effect.flatMap(Payments, (p) => p.refund(operator, paid[i]!, 2_500, `hang-up-${i}`)).pipe(Effect.provide(engine)))
      const refunds = yield* sql<{ status: string }>`SELECT status FROM refunds`
      assert.isAbove(refunds.length, 2, "some refunds got as far as the processor")
      assert.deepStrictEqual(refunds.filter((r) => r.status === "pending"), [])
    }), { timeout: 60_000 })
})
