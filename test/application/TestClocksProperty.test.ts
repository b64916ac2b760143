/**
 * A test clock bills as the real time would (docs/api.md, "Test clocks"): for random plans, cards and schedules, a
 * subscription on a clock advanced in random steps ends in the same state, with the same charges and events, as its
 * twin on the real time billed by `billing run --at` at each of its boundaries.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, FastCheck, TestClock as EffectTestClock } from "effect"
import { Billing } from "../../src/application/Billing.js"
import { Customers } from "../../src/application/Customers.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { TestClocks } from "../../src/application/TestClocks.js"
import type { Scope } from "../../src/domain/Account.js"
import type { CustomerId, SubscriptionId } from "../../src/domain/Ids.js"
import type { BillingInterval } from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"
import * as TestClock from "../../src/domain/TestClock.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { newAccount, withEngine } from "./harness.js"

const iso = (t: DateTime.Utc | null) => (t === null ? null : DateTime.formatIso(t))

/** A customer (on `clock` when given) subscribed to `productId` with `card`, at the current time of its owner. */
const subscribe = (scope: Scope, productId: string, card: string, clock?: TestClock.TestClock) =>
  Effect.gen(function*() {
    const customer = yield* (yield* Customers).create(scope, {
      email: "twin@example.ae",
      ...(clock === undefined ? {} : { test_clock_id: clock.test_clock_id })
    })
    const session = yield* makeSession(scope, {
      product_cart: [{ product_id: productId as never }],
      customer: { customer_id: customer.customer_id }
    })
    const paid = yield* pay(session.session_id, formWith(card))
    if (paid._tag !== "Paid" || paid.payment.subscription_id === null) return yield* Effect.dieMessage(`not subscribed: ${paid._tag}`)
    return { customer: customer.customer_id, subscription: paid.payment.subscription_id }
  })

/** What the twins are compared on: the subscription, its charges and its events (times as the objects carry them). */
const outcome = (scope: Scope, customer: CustomerId, id: SubscriptionId) =>
  Effect.gen(function*() {
    const s = yield* (yield* Subscriptions).get(scope, id)
    const payments = (yield* (yield* Payments).list(scope, { customer_id: customer, limit: 100 })).items
    const events = (yield* (yield* Events).list(scope, { subscription_id: id, limit: 100 })).items
    return {
      subscription: [s.status, s.period, iso(s.current_period_start), iso(s.next_billing_date), s.failed_payment_attempts,
        iso(s.next_retry_at), s.cancel_at_period_end, iso(s.cancelled_at), s.cancellation_reason],
      charges: payments.map((p) => [iso(p.created_at), iso(p.paid_at), p.status, p.billing_reason, p.total_amount]).sort(),
      events: events.map((e) => `${e.type} ${String(e.data.current_period_start)} ${String(e.data.status)}`).sort()
    }
  })

describe("Test clocks against billing run --at", () => {
  it.effect.prop(
    "a clock advanced in random steps ends where billing at each boundary does, with the same charges",
    {
      start: FastCheck.integer({ min: Date.parse("2030-01-01T00:00:00Z"), max: Date.parse("2031-12-31T00:00:00Z") }),
      interval: FastCheck.constantFrom<BillingInterval>("day", "week", "month"),
      count: FastCheck.integer({ min: 1, max: 3 }),
      card: FastCheck.constantFrom(cards.visa, cards.declineLater),
      endAtPeriodEnd: FastCheck.boolean(),
      // Each step a share of what one advance may cover.
      steps: FastCheck.array(FastCheck.double({ min: 0.05, max: 1, noNaN: true }), { minLength: 1, maxLength: 5 })
    },
    ({ card, count, endAtPeriodEnd, interval, start, steps }) =>
      withEngine()(Effect.gen(function*() {
        yield* EffectTestClock.setTime(start)
        const shop = yield* newAccount
        const scope = shop.test
        const clocks = yield* TestClocks
        const product = yield* makeProduct(scope, { billing: "recurring", billing_interval: interval, interval_count: count, price: 4200 })
        let clock = yield* clocks.create(scope, { frozen_time: DateTime.unsafeMake(start) })
        const onClock = yield* subscribe(scope, product.product_id, card, clock)
        const twin = yield* subscribe(scope, product.product_id, card)
        if (endAtPeriodEnd) {
          for (const s of [onClock, twin]) yield* (yield* Subscriptions).update(scope, s.subscription, { cancel_at_period_end: true })
        }

        // The clock, in steps: each a share of the most one advance may go.
        for (const share of steps) {
          const limit = TestClock.advanceLimit(clock, [{ billing_interval: interval, interval_count: count }])
          const span = DateTime.toEpochMillis(limit) - DateTime.toEpochMillis(clock.frozen_time)
          const to = DateTime.toEpochMillis(clock.frozen_time) + Math.max(60_000, Math.floor(span * share))
          clock = yield* clocks.advance(scope, clock.test_clock_id, { frozen_time: DateTime.unsafeMake(to) })
          assert.strictEqual(clock.status, "ready")
        }
        const end = clock.frozen_time

        // The twin, with `billing run --at` at each of its boundaries up to the clock's time.
        const billing = yield* Billing
        for (let guard = 0; guard < 1000; guard++) {
          const due = Subscription.dueAt(yield* (yield* Subscriptions).get(scope, twin.subscription))
          if (due === null || DateTime.greaterThan(due, end)) break
          yield* billing.runOnce({ livemode: false, asOf: DateTime.toEpochMillis(due) })
        }

        const a = yield* outcome(scope, onClock.customer, onClock.subscription)
        const b = yield* outcome(scope, twin.customer, twin.subscription)
        assert.deepStrictEqual(a, b)
      })),
    { fastCheck: { numRuns: 12 }, timeout: 60_000 }
  )
})
