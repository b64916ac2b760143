/**
 * Test clocks over the memory store (docs/api.md, "Test clocks"): a customer created on a clock has their sessions,
 * payments and subscriptions on the clock's time; real-time passes (and `billing run --at`) leave them alone; an
 * advance runs what falls due, each at its own time (renewals, retries, expiry), and records events at the real time.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Redacted, TestClock } from "effect"
import { Billing } from "../../src/application/Billing.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Customers } from "../../src/application/Customers.js"
import { Events } from "../../src/application/Events.js"
import { PaymentMethods } from "../../src/application/PaymentMethods.js"
import { Payments } from "../../src/application/Payments.js"
import { PlanChanges } from "../../src/application/PlanChanges.js"
import { SubscriptionCharges } from "../../src/application/SubscriptionCharges.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { TestClocks } from "../../src/application/TestClocks.js"
import type { Scope } from "../../src/domain/Account.js"
import type { CustomerId, PaymentId, SubscriptionId, TestClockId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import { Store } from "../../src/ports/Store.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { newAccount, withEngine } from "./harness.js"

const at = (iso: string) => DateTime.unsafeMake(iso)
const iso = (t: DateTime.Utc | null) => (t === null ? null : DateTime.formatIso(t))
/** The real time of these tests (the test clock): years before the test clocks' times. */
const real = Date.parse("2026-11-27T12:00:00.000Z")

/** A clock at `frozen`, a customer on it, and that customer's monthly subscription paid with `card`. */
const subscribedOnClock = (scope: Scope, frozen: string, card: string = cards.visa) =>
  Effect.gen(function*() {
    const clock = yield* (yield* TestClocks).create(scope, { frozen_time: at(frozen), name: "monthly" })
    const customer = yield* (yield* Customers).create(scope, { email: "noor@example.ae", test_clock_id: clock.test_clock_id })
    const product = yield* makeProduct(scope, { billing: "recurring", billing_interval: "month", price: 5000 })
    const session = yield* makeSession(scope, {
      product_cart: [{ product_id: product.product_id }],
      customer: { customer_id: customer.customer_id }
    })
    const paid = yield* pay(session.session_id, formWith(card))
    if (paid._tag !== "Paid" || paid.payment.subscription_id === null) return yield* Effect.dieMessage(`not subscribed: ${paid._tag}`)
    return { clock, customer, session, payment: paid.payment, subscriptionId: paid.payment.subscription_id }
  })

const advance = (scope: Scope, id: TestClockId, to: string) =>
  Effect.flatMap(TestClocks, (clocks) => clocks.advance(scope, id, { frozen_time: at(to) }))

const renewalsOf = (scope: Scope, customer: CustomerId) =>
  Effect.map(
    Effect.flatMap(Payments, (p) => p.list(scope, { customer_id: customer, limit: 100 })),
    (page) => page.items.filter((p) => p.billing_reason === "subscription_renewal").map((p) => [iso(p.created_at), p.status]).reverse()
  )

const typesOf = (scope: Scope, id: SubscriptionId) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { subscription_id: id, limit: 100 })), (page) => page.items)

describe("Test clocks", () => {
  it.effect("a subscription on a clock: its times are the clock's; an advance renews it at its billing date; events at the real time", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(real)
      const shop = yield* newAccount
      const subscriptions = yield* Subscriptions
      const { clock, customer, session, subscriptionId } = yield* subscribedOnClock(shop.test, "2030-01-31T09:00:00.000Z")
      assert.strictEqual(customer.test_clock_id, clock.test_clock_id)
      assert.strictEqual(iso(session.created_at), "2030-01-31T09:00:00.000Z")
      assert.strictEqual(iso(session.expires_at), "2030-02-01T09:00:00.000Z")
      const started = yield* subscriptions.get(shop.test, subscriptionId)
      assert.deepStrictEqual([iso(started.current_period_start), iso(started.next_billing_date)], [
        "2030-01-31T09:00:00.000Z",
        "2030-02-28T09:00:00.000Z"
      ])

      // Real time passes it by: the background pass, and `billing run --at`, years later.
      yield* TestClock.setTime(Date.parse("2031-06-01T00:00:00.000Z"))
      const billing = yield* Billing
      yield* billing.runOnce()
      yield* billing.runOnce({ livemode: false, asOf: Date.parse("2031-06-01T00:00:00.000Z") })
      assert.strictEqual((yield* subscriptions.get(shop.test, subscriptionId)).period, 0)

      // A month on the clock: renewed at 28 February, on the clock; the event recorded now (real time).
      const advanced = yield* advance(shop.test, clock.test_clock_id, "2030-03-01T00:00:00.000Z")
      assert.deepStrictEqual([advanced.status, iso(advanced.frozen_time), advanced.advancing_to], ["ready", "2030-03-01T00:00:00.000Z", null])
      const renewed = yield* subscriptions.get(shop.test, subscriptionId)
      assert.deepStrictEqual([renewed.period, iso(renewed.current_period_start), iso(renewed.next_billing_date)], [
        1,
        "2030-02-28T09:00:00.000Z",
        "2030-03-31T09:00:00.000Z"
      ])
      assert.deepStrictEqual(yield* renewalsOf(shop.test, customer.customer_id), [["2030-02-28T09:00:00.000Z", "succeeded"]])
      const events = yield* typesOf(shop.test, subscriptionId)
      const renewal = events.find((e) => e.type === "subscription.renewed")!
      assert.strictEqual(iso(renewal.created_at), "2031-06-01T00:00:00.000Z")
      // Its id sorts by when it was recorded, as every id does: the real time, not the clock's.
      assert.strictEqual(parseInt(renewal.event_id.slice(4, 16), 16), Date.parse("2031-06-01T00:00:00.000Z"))
      assert.strictEqual(renewal.data.current_period_start, "2030-02-28T09:00:00.000Z")
      assert.deepStrictEqual(yield* (yield* TestClocks).get(shop.test, clock.test_clock_id), advanced)
    })))

  it.effect("dunning on a clock: retries on days 1, 3 and 5 in order, then cancelled; an advance goes forward, and two billing periods at most", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(real)
      const shop = yield* newAccount
      const clocks = yield* TestClocks
      const { clock, customer, subscriptionId } = yield* subscribedOnClock(shop.test, "2030-03-01T00:00:00.000Z", cards.declineLater)

      const refused = (to: string) => Effect.map(Effect.either(advance(shop.test, clock.test_clock_id, to)), Either.flip)
      const tooFar = yield* refused("2030-05-01T00:00:00.001Z")
      assert.deepStrictEqual([Either.getOrThrow(tooFar)._tag, Either.getOrThrow(tooFar).message.includes("2030-05-01T00:00:00.000Z")], ["InvalidRequest", true])
      const backwards = yield* refused("2030-02-28T00:00:00.000Z")
      assert.deepStrictEqual([Either.getOrThrow(backwards)._tag, Either.getOrThrow(backwards).message.includes("only moves forward")], ["InvalidRequest", true])
      assert.deepStrictEqual(yield* clocks.get(shop.test, clock.test_clock_id), clock, "a refusal changes nothing")

      const held = yield* advance(shop.test, clock.test_clock_id, "2030-04-01T00:00:00.000Z")
      const onHold = yield* (yield* Subscriptions).get(shop.test, subscriptionId)
      assert.deepStrictEqual([onHold.status, onHold.failed_payment_attempts, iso(onHold.next_retry_at)], ["on_hold", 1, "2030-04-02T00:00:00.000Z"])
      // The same advance again is nothing new.
      assert.deepStrictEqual(yield* advance(shop.test, clock.test_clock_id, "2030-04-01T00:00:00.000Z"), held)

      yield* advance(shop.test, clock.test_clock_id, "2030-04-10T00:00:00.000Z")
      const ended = yield* (yield* Subscriptions).get(shop.test, subscriptionId)
      assert.deepStrictEqual([ended.status, ended.cancellation_reason, iso(ended.cancelled_at)], ["cancelled", "payment_failed", "2030-04-06T00:00:00.000Z"])
      assert.deepStrictEqual(yield* renewalsOf(shop.test, customer.customer_id), [
        ["2030-04-01T00:00:00.000Z", "failed"],
        ["2030-04-02T00:00:00.000Z", "failed"],
        ["2030-04-04T00:00:00.000Z", "failed"],
        ["2030-04-06T00:00:00.000Z", "failed"]
      ])
      const types = (yield* typesOf(shop.test, subscriptionId)).map((e) => e.type)
      assert.deepStrictEqual(types.filter((t) => t === "subscription.on_hold" || t === "subscription.cancelled").sort(), [
        "subscription.cancelled",
        "subscription.on_hold"
      ])
    })))

  it.effect("a session on a clock reads and expires on the clock's time; test mode only; delete takes everything attached", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(real)
      const shop = yield* newAccount
      const clocks = yield* TestClocks
      const customers = yield* Customers
      const checkout = yield* Checkout
      const clock = yield* clocks.create(shop.test, { frozen_time: at("2030-06-01T00:00:00.000Z") })

      // Test mode only; a clock must exist.
      assert.strictEqual((yield* Effect.flip(clocks.create(shop.live, { frozen_time: at("2030-06-01T00:00:00.000Z") })))._tag, "NotFound")
      const live = yield* Effect.flip(customers.create(shop.live, { email: "a@example.ae", test_clock_id: clock.test_clock_id }))
      assert.strictEqual(live._tag, "InvalidRequest")
      const unknown = yield* Effect.flip(customers.create(shop.test, { email: "a@example.ae", test_clock_id: `clk_${"0".repeat(32)}` as TestClockId }))
      assert.deepStrictEqual([unknown._tag, unknown.message], ["InvalidRequest", `test_clock_id: no such test clock 'clk_${"0".repeat(32)}'`])
      assert.strictEqual((yield* Effect.flip(clocks.get(shop.live, clock.test_clock_id)))._tag, "NotFound")

      const customer = yield* customers.create(shop.test, { email: "sara@example.ae", test_clock_id: clock.test_clock_id })
      const product = yield* makeProduct(shop.test)
      const session = yield* makeSession(shop.test, { product_cart: [{ product_id: product.product_id }], customer: { customer_id: customer.customer_id } })
      // Real time far past its expiry: on its clock it is still open, and the real-time pass leaves it so.
      yield* TestClock.setTime(Date.parse("2031-01-01T00:00:00.000Z"))
      assert.strictEqual((yield* checkout.get(shop.test, session.session_id)).status, "open")
      assert.strictEqual((yield* (yield* Billing).runOnce()).expired_sessions, 0)
      assert.strictEqual((yield* checkout.list(shop.test, {})).items.find((s) => s.session_id === session.session_id)?.status, "open")

      yield* advance(shop.test, clock.test_clock_id, "2030-06-03T00:00:00.000Z")
      assert.strictEqual((yield* checkout.get(shop.test, session.session_id)).status, "expired")

      const deleted = yield* clocks.remove(shop.test, clock.test_clock_id)
      assert.deepStrictEqual(deleted, { object: "test_clock", test_clock_id: clock.test_clock_id, deleted: true })
      assert.strictEqual((yield* Effect.flip(clocks.get(shop.test, clock.test_clock_id)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(customers.get(shop.test, customer.customer_id)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(checkout.get(shop.test, session.session_id)))._tag, "NotFound")
      assert.deepStrictEqual((yield* clocks.list(shop.test, {})).items, [])
    })))

  it.effect("a plan change on a clock: previewed, priced and paid on the clock's time, its credit the clock's unused half", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(real)
      const shop = yield* newAccount
      // 1 to 31 March on the clock: half the month used at 16 March, 12:00.
      const { clock, customer, subscriptionId } = yield* subscribedOnClock(shop.test, "2030-03-01T00:00:00.000Z")
      yield* advance(shop.test, clock.test_clock_id, "2030-03-16T12:00:00.000Z")
      const pro = yield* makeProduct(shop.test, { billing: "recurring", billing_interval: "month", price: 15000 })
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" as const }
      const planChanges = yield* PlanChanges
      const shown = yield* planChanges.preview(shop.test, subscriptionId, body)
      assert.strictEqual(iso(shown.immediate_charge.effective_at), "2030-03-16T12:00:00.000Z")
      // The new month (150.00) less the old one's unused half (25.00).
      assert.strictEqual(shown.immediate_charge.summary.total_amount, 12_500)
      const made = yield* planChanges.change(shop.test, subscriptionId, { ...body, quote_id: shown.quote_id })
      assert.deepStrictEqual(
        [made.payment?.status, made.payment?.total_amount, iso(made.payment?.created_at ?? null), iso(made.subscription.current_period_start)],
        ["succeeded", 12_500, "2030-03-16T12:00:00.000Z", "2030-03-16T12:00:00.000Z"]
      )
      const paid = (yield* Effect.flatMap(Payments, (p) => p.list(shop.test, { customer_id: customer.customer_id, limit: 10 }))).items
        .find((p) => p.billing_reason === "subscription_update")!
      assert.strictEqual(iso(paid.paid_at), "2030-03-16T12:00:00.000Z", "recorded on the clock's time too")
    })))

  it.effect("an extra charge and a new card's retry on a clock are made on the clock's time", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(real)
      const shop = yield* newAccount
      const { clock, customer, subscriptionId } = yield* subscribedOnClock(shop.test, "2030-03-01T00:00:00.000Z", cards.declineLater)
      const extra = yield* Effect.flatMap(SubscriptionCharges, (c) => c.charge(shop.test, subscriptionId, { product_price: 700 }))
      assert.strictEqual(iso(extra.payment.created_at), "2030-03-01T00:00:00.000Z")
      // The renewal on 1 April is declined; a new card at noon retries it at once, on the clock.
      yield* advance(shop.test, clock.test_clock_id, "2030-04-01T12:00:00.000Z")
      const replaced = yield* Effect.flatMap(PaymentMethods, (m) =>
        m.replace(shop.test, subscriptionId, { number: Redacted.make(cards.visa), expMonth: 12, expYear: 2090, cvc: Redacted.make("123") }))
      assert.deepStrictEqual([replaced.subscription.status, replaced.retry?.status, iso(replaced.retry?.created_at ?? null)], [
        "active",
        "succeeded",
        "2030-04-01T12:00:00.000Z"
      ])
      assert.deepStrictEqual(yield* renewalsOf(shop.test, customer.customer_id), [
        ["2030-04-01T00:00:00.000Z", "failed"],
        ["2030-04-01T12:00:00.000Z", "succeeded"]
      ])
    })))

  it.effect("a charge left processing settles on the clock as a server's passes would find it, seconds later, not at the next due work", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(real)
      const shop = yield* newAccount
      const clock = yield* (yield* TestClocks).create(shop.test, { frozen_time: at("2030-01-10T10:00:00.000Z") })
      const customer = yield* (yield* Customers).create(shop.test, { email: "slow@example.ae", test_clock_id: clock.test_clock_id })
      const product = yield* makeProduct(shop.test, { billing: "recurring", billing_interval: "month", price: 5000 })
      const session = yield* makeSession(shop.test, {
        product_cart: [{ product_id: product.product_id }],
        customer: { customer_id: customer.customer_id }
      })
      const paid = yield* pay(session.session_id, formWith(cards.settleSucceeds))
      assert.deepStrictEqual([paid._tag, paid._tag === "Paid" ? paid.payment.status : null], ["Paid", "processing"])
      yield* advance(shop.test, clock.test_clock_id, "2030-01-12T10:00:00.000Z")
      const payment = (yield* Effect.flatMap(Payments, (p) => p.list(shop.test, { customer_id: customer.customer_id, limit: 10 }))).items[0]!
      assert.strictEqual(payment.status, "succeeded")
      const settledAt = DateTime.toEpochMillis(payment.paid_at!) - Date.parse("2030-01-10T10:00:00.000Z")
      assert.isTrue(settledAt >= 1_000 && settledAt <= 5_000, `settled ${settledAt} ms after the charge`)
      const done = yield* Effect.flatMap(Checkout, (c) => c.get(shop.test, session.session_id))
      assert.strictEqual(done.status, "complete")
      const subscription = yield* Effect.flatMap(Subscriptions, (s) => s.get(shop.test, payment.subscription_id!))
      assert.strictEqual(iso(subscription.current_period_start), iso(payment.paid_at))
    })))

  it.effect("a charge on a clock left processing (its answer lost, the process gone) is looked up once the clock moves on", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(real)
      const shop = yield* newAccount
      const { clock, customer, payment, subscriptionId } = yield* subscribedOnClock(shop.test, "2030-03-01T00:00:00.000Z")
      // A charge reserved on the clock's time whose request died before the processor was asked.
      const left = Payment.open({
        paymentId: "pay_0000000000000000000000000000abcd" as PaymentId,
        accountId: shop.test.accountId,
        livemode: false,
        amount: 700,
        currency: "AED",
        description: "Extra",
        customer: payment.customer,
        checkoutSessionId: null,
        subscriptionId,
        billingReason: "subscription_charge",
        metadata: {},
        card: payment.card,
        taxLines: null
      }, at("2030-03-01T00:00:00.000Z"))
      yield* Effect.flatMap(Store, (s) => s.payments.insert(left))
      yield* advance(shop.test, clock.test_clock_id, "2030-03-01T00:02:00.000Z")
      const after = (yield* Effect.flatMap(Payments, (p) => p.list(shop.test, { customer_id: customer.customer_id, limit: 10 }))).items
        .find((p) => p.payment_id === left.payment_id)!
      assert.deepStrictEqual([after.status, after.failure_code], ["failed", "processing_error"], "nothing was taken under it")
    })))
})
