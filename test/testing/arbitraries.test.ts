/**
 * `fils/testing`'s arbitraries: every stored resource they make is accepted by its domain schema, satisfies the
 * domain's invariants and comes back equal from the engine's store; every input they make is accepted by the
 * engine's use cases and shows up as given.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Equal, FastCheck as fc, Option, Schema } from "effect"
import { Arbitraries, FilsTest } from "../../adapters/testing/index.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Customers } from "../../src/application/Customers.js"
import { PlanChanges } from "../../src/application/PlanChanges.js"
import { Products } from "../../src/application/Products.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import * as Calendar from "../../src/domain/Calendar.js"
import * as CheckoutSession from "../../src/domain/CheckoutSession.js"
import * as Customer from "../../src/domain/Customer.js"
import * as Discount from "../../src/domain/Discount.js"
import * as Event from "../../src/domain/Event.js"
import { idMillis } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import * as Product from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"
import * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"
import { Store } from "../../src/ports/Store.js"

const runs = { numRuns: 60 }

/** A schema's verdict on a value, with the reason when it refuses. */
const accepts = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => {
  const result = Schema.validateEither(schema)(value)
  return Either.isRight(result) ? "ok" : String(result.left)
}

/** Encoded and decoded again, the value is the same (what a JSON column or the API does to it). */
const roundTrips = <A, I>(schema: Schema.Schema<A, I>, value: A) =>
  Equal.equals(
    JSON.stringify(Schema.encodeSync(schema)(Schema.decodeUnknownSync(schema)(JSON.parse(JSON.stringify(Schema.encodeSync(schema)(value)))))),
    JSON.stringify(Schema.encodeSync(schema)(value))
  )

describe("stored-resource arbitraries satisfy the domain schemas", () => {
  const cases = [
    ["product", Arbitraries.product(), Product.Product],
    ["customer", Arbitraries.customer(), Customer.Customer],
    ["checkout session", Arbitraries.checkoutSession(), CheckoutSession.CheckoutSession],
    ["payment", Arbitraries.payment(), Payment.Payment],
    ["subscription", Arbitraries.subscription(), Subscription.Subscription],
    ["discount", Arbitraries.discount(), Discount.Discount],
    ["webhook endpoint", Arbitraries.webhookEndpoint(), WebhookEndpoint.WebhookEndpoint],
    ["event", Arbitraries.event(), Event.Event]
  ] as const
  for (const [name, arbitrary, schema] of cases) {
    it.prop(`${name}: validates and survives an encode/decode round trip`, [arbitrary as fc.Arbitrary<any>], ([value]) => {
      assert.strictEqual(accepts(schema as Schema.Schema<any, any>, value), "ok")
      assert.isTrue(roundTrips(schema as Schema.Schema<any, any>, value))
    }, { fastCheck: runs })
  }
})

describe("stored-resource arbitraries satisfy the domain invariants", () => {
  it.prop("payment: amounts add up (Payment.violations is empty)", [Arbitraries.payment()], ([p]) => {
    assert.deepStrictEqual(Payment.violations(p), [])
  }, { fastCheck: runs })

  it.prop("subscription: the current period is the anchor's n-th, the next billing date the one after", [
    Arbitraries.subscription()
  ], ([s]) => {
    // Counted from the anchor, whose period is `anchor_period` (a plan change sets a new one); a period before it is
    // the old plan's, left by a change whose new plan starts at the next billing date.
    const at = (n: number) =>
      DateTime.toEpochMillis(Calendar.periodStart(s.anchor, s.billing_interval, s.interval_count, n - s.anchor_period))
    if (s.period >= s.anchor_period) assert.strictEqual(DateTime.toEpochMillis(s.current_period_start), at(s.period))
    else assert.isTrue(DateTime.lessThan(s.current_period_start, s.anchor))
    assert.strictEqual(DateTime.toEpochMillis(s.next_billing_date), at(s.period + 1))
    assert.isAtLeast(s.credit_balance, 0)
    assert.strictEqual(s.recurring_amount % s.quantity, 0)
    assert.strictEqual(s.status === "on_hold", s.next_retry_at !== null)
    assert.strictEqual(s.status === "cancelled", s.cancellation_reason !== null)
  }, { fastCheck: runs })

  it.prop("checkout session: total is the cart's (or its trial's); completion matches the status", [Arbitraries.checkoutSession()], ([s]) => {
    if (s.trial_period_days === null) {
      assert.strictEqual(s.total_amount, s.product_cart.reduce((sum, l) => sum + l.quantity * l.unit_amount, 0))
    } else {
      assert.strictEqual(s.kind, "subscription")
      assert.strictEqual(s.total_amount % s.product_cart[0]!.quantity, 0)
    }
    // A free trial completes with its subscription and no payment.
    const paid = s.payment_id !== null || (s.trial_period_days !== null && s.total_amount === 0 && s.subscription_id !== null)
    assert.strictEqual(s.status === "complete", paid && s.completed_at !== null)
    if (s.subscription_id !== null) assert.strictEqual(s.kind, "subscription")
    assert.isTrue(DateTime.greaterThan(s.expires_at, s.created_at))
  }, { fastCheck: runs })

  it.prop("ids carry their resource's creation time", [Arbitraries.product(), Arbitraries.customer()], ([p, c]) => {
    assert.strictEqual(idMillis(p.product_id), DateTime.toEpochMillis(p.created_at))
    assert.strictEqual(idMillis(c.customer_id), DateTime.toEpochMillis(c.created_at))
  }, { fastCheck: runs })
})

describe("the engine's store keeps what the arbitraries make", () => {
  /** Inserts each value under a fresh account, reads it back by id, and compares the two as JSON. */
  it.effect("all seven resources read back equal from the memory store", () =>
    Effect.gen(function*() {
      const shop = yield* FilsTest.account()
      const store = yield* Store
      const sample = <A>(arbitrary: fc.Arbitrary<A>) => fc.sample(arbitrary, { numRuns: 25, seed: 7 })
      const same = (a: unknown, b: unknown) => assert.strictEqual(JSON.stringify(b), JSON.stringify(a))
      const uniqueBy = <A>(values: ReadonlyArray<A>, key: (a: A) => string) =>
        values.filter((v, i) => values.findIndex((w) => key(w) === key(v)) === i)

      for (const p of uniqueBy(sample(Arbitraries.product(shop.test)), (p) => p.product_id)) {
        yield* store.products.insert(p)
        same(p, Option.getOrThrow(yield* store.products.get(shop.test, p.product_id)))
      }
      for (const c of uniqueBy(sample(Arbitraries.customer(shop.live)), (c) => c.customer_id)) {
        yield* store.customers.insert(c)
        same(c, Option.getOrThrow(yield* store.customers.get(shop.live, c.customer_id)))
      }
      for (const s of uniqueBy(sample(Arbitraries.checkoutSession(shop.test)), (s) => s.session_id)) {
        yield* store.sessions.insert(s)
        same(s, Option.getOrThrow(yield* store.sessions.get(shop.test, s.session_id)))
      }
      for (const p of uniqueBy(sample(Arbitraries.payment(shop.test)), (p) => p.payment_id)) {
        yield* store.payments.insert(p)
        same(p, Option.getOrThrow(yield* store.payments.get(shop.test, p.payment_id)))
      }
      for (const s of uniqueBy(sample(Arbitraries.subscription(shop.test)), (s) => s.subscription_id)) {
        yield* store.subscriptions.insert(s)
        same(s, Option.getOrThrow(yield* store.subscriptions.get(shop.test, s.subscription_id)))
      }
      for (const w of uniqueBy(sample(Arbitraries.webhookEndpoint(shop.test)), (w) => w.webhook_id)) {
        yield* store.webhooks.insert(w)
        same(w, Option.getOrThrow(yield* store.webhooks.get(shop.test, w.webhook_id)))
      }
      for (const e of uniqueBy(sample(Arbitraries.event(shop.test)), (e) => e.event_id)) {
        yield* store.events.insert(e)
        same(e, Option.getOrThrow(yield* store.events.get(shop.test, e.event_id)))
      }
    }).pipe(Effect.provide(FilsTest.layer())))
})

describe("input arbitraries are accepted by the engine", () => {
  it.effect.prop("a product input creates that product", [Arbitraries.productCreate], ([input]) =>
    Effect.gen(function*() {
      const shop = yield* FilsTest.account()
      const products = yield* Products
      const created = yield* products.create(shop.test, input)
      assert.strictEqual(created.name, input.name)
      assert.strictEqual(created.price, input.price)
      assert.strictEqual(created.billing, input.billing ?? "one_time")
      assert.strictEqual(created.interval_count, input.billing === "recurring" ? input.interval_count ?? 1 : null)
      assert.deepStrictEqual(created.metadata, input.metadata ?? {})
      assert.deepStrictEqual(yield* products.get(shop.test, created.product_id), created)
    }).pipe(Effect.provide(FilsTest.layer())), { fastCheck: { numRuns: 25 } })

  it.effect.prop("a customer input creates that customer", [Arbitraries.customerCreate], ([input]) =>
    Effect.gen(function*() {
      const shop = yield* FilsTest.account()
      const created = yield* (yield* Customers).create(shop.live, input)
      assert.strictEqual(created.email, input.email)
      assert.strictEqual(created.name, input.name ?? null)
      assert.strictEqual(created.phone_number, input.phone_number ?? null)
      assert.isTrue(created.livemode)
    }).pipe(Effect.provide(FilsTest.layer())), { fastCheck: { numRuns: 25 } })

  it.effect.prop("a webhook input creates that endpoint, in test and live mode", [Arbitraries.webhookCreate], ([input]) =>
    Effect.gen(function*() {
      const shop = yield* FilsTest.account()
      const webhooks = yield* Webhooks
      for (const scope of [shop.test, shop.live]) {
        const created = yield* webhooks.create(scope, input)
        assert.strictEqual(created.url, input.url)
        assert.deepStrictEqual([...created.event_types].sort(), [...(input.event_types ?? Event.defaultEventTypes)].sort())
        assert.strictEqual(created.disabled, input.disabled ?? false)
      }
    }).pipe(Effect.provide(FilsTest.layer())), { fastCheck: { numRuns: 30 } })

  it.effect.prop(
    "a checkout input over existing products prices its cart",
    [fc.array(Arbitraries.productCreate.map((p) => ({ ...p, status: "active" as const })), { minLength: 1, maxLength: 3 }), fc.nat()],
    ([inputs, seed]) =>
      Effect.gen(function*() {
        const shop = yield* FilsTest.account()
        const products = yield* Products
        const made = yield* Effect.forEach(inputs, (p) => products.create(shop.test, p))
        const [input] = fc.sample(Arbitraries.checkoutSessionCreate(made.map((p) => p.product_id)), { numRuns: 1, seed })
        const session = yield* (yield* Checkout).create(shop.test, input!)
        const price = new Map(made.map((p) => [p.product_id as string, p.price]))
        const trial = made.find((p) => p.product_id === input!.product_cart[0]!.product_id)!
        // A subscription cart with a trial charges the trial's price today (nothing for a free one).
        const expected = session.trial_period_days === null
          ? input!.product_cart.reduce((sum, l) => sum + (l.quantity ?? 1) * price.get(l.product_id)!, 0)
          : (input!.product_cart[0]!.quantity ?? 1) * (trial.trial_amount ?? 0)
        assert.strictEqual(session.trial_period_days === null ? 0 : session.trial_period_days, trial.trial_period_days * (session.kind === "subscription" ? 1 : 0))
        assert.strictEqual(session.total_amount, expected)
        assert.strictEqual(session.status, "open")
      }).pipe(Effect.provide(FilsTest.layer())),
    { fastCheck: { numRuns: 30 } }
  )

  it.effect.prop(
    "a plan change input previews, and the change with its quote makes what the preview showed (or both refuse)",
    [fc.array(Arbitraries.productCreate.map((p) => ({ ...p, status: "active" as const, billing: "recurring" as const, billing_interval: p.billing_interval ?? "month" })), { minLength: 1, maxLength: 3 }), fc.nat()],
    ([inputs, seed]) =>
      Effect.gen(function*() {
        const shop = yield* FilsTest.account()
        const products = yield* Products
        const plan = yield* products.create(shop.test, { name: "Beans", price: 34900, currency: "AED", billing: "recurring", billing_interval: "month" })
        const made = yield* Effect.forEach(inputs, (p) => products.create(shop.test, p))
        const session = yield* (yield* Checkout).create(shop.test, { product_cart: [{ product_id: plan.product_id }] })
        const paid = yield* FilsTest.pay(session.session_id)
        if (paid._tag !== "Paid" || paid.payment.subscription_id === null) return assert.fail("not subscribed")
        const id = paid.payment.subscription_id
        const [input] = fc.sample(Arbitraries.planChangeRequest(made.map((p) => p.product_id)), { numRuns: 1, seed })
        const planChanges = yield* PlanChanges
        const shown = yield* Effect.either(planChanges.preview(shop.test, id, input!))
        const changed = yield* Effect.either(planChanges.change(shop.test, id, {
          ...input!,
          ...(Either.isRight(shown) ? { quote_id: shown.right.quote_id } : {})
        }))
        assert.strictEqual(Either.isRight(changed), Either.isRight(shown))
        if (Either.isRight(shown) && Either.isRight(changed)) {
          const encode = Schema.encodeSync(Subscription.SubscriptionResource)
          assert.deepStrictEqual(encode(changed.right.subscription), encode(shown.right.new_plan))
          assert.strictEqual(changed.right.payment?.total_amount ?? 0, shown.right.immediate_charge.summary.total_amount)
        }
      }).pipe(Effect.provide(FilsTest.layer())),
    { fastCheck: { numRuns: 15 } }
  )
})
