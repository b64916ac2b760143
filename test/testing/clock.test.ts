/**
 * `fils/testing`'s layer and TestClock helpers, used as an embedding team would: a subscription bought with a test
 * card, renewed by `advanceToNextRenewal`, put on hold and cancelled by a card that declines renewals, and webhook
 * deliveries captured by the recording transport.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, FastCheck as fc } from "effect"
import { FilsTest, WebhookRecorder } from "../../adapters/testing/index.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { Products } from "../../src/application/Products.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import * as Calendar from "../../src/domain/Calendar.js"
import type { Scope } from "../../src/domain/Account.js"
import type { SubscriptionId } from "../../src/domain/Ids.js"
import type { BillingInterval } from "../../src/domain/Product.js"

/** A monthly (or other) plan bought now with `card`; returns the new subscription's id. */
const subscribe = (scope: Scope, card: string, interval: BillingInterval = "month", count = 1) =>
  Effect.gen(function*() {
    const plan = yield* (yield* Products).create(scope, {
      name: "Beans every month",
      price: 34900,
      currency: "AED",
      billing: "recurring",
      billing_interval: interval,
      interval_count: count
    })
    const session = yield* (yield* Checkout).create(scope, { product_cart: [{ product_id: plan.product_id, quantity: 1 }] })
    const result = yield* FilsTest.pay(session.session_id, card)
    assert.strictEqual(result._tag, "Paid")
    const paid = result._tag === "Paid" ? result : undefined
    assert.strictEqual(paid?.payment.status, "succeeded")
    return paid!.session.subscription_id as SubscriptionId
  })

describe("FilsTest", () => {
  it.effect("advanceToNextRenewal renews on the calendar dates anchored at the first payment", () =>
    Effect.gen(function*() {
      // 31 January 2027: renewals fall on 28 February, then 31 March.
      yield* FilsTest.advanceTo(DateTime.unsafeMake("2027-01-31T10:00:00Z"))
      const shop = yield* FilsTest.account()
      const id = yield* subscribe(shop.test, FilsTest.cards.visa)

      const first = yield* FilsTest.advanceToNextRenewal(shop.test, id)
      assert.strictEqual(first.report.renewals_charged, 1)
      assert.strictEqual(first.subscription.status, "active")
      assert.strictEqual(first.subscription.period, 1)
      assert.strictEqual(DateTime.formatIso(first.subscription.current_period_start), "2027-02-28T10:00:00.000Z")
      assert.strictEqual(DateTime.formatIso(yield* DateTime.now), "2027-02-28T10:00:00.000Z")

      const second = yield* FilsTest.advanceToNextRenewal(shop.test, id)
      assert.strictEqual(second.subscription.period, 2)
      assert.strictEqual(DateTime.formatIso(second.subscription.current_period_start), "2027-03-31T10:00:00.000Z")
    }).pipe(Effect.provide(FilsTest.layer())))

  it.effect("a card that declines renewals: on hold through the retries, then cancelled", () =>
    Effect.gen(function*() {
      yield* FilsTest.advanceTo(DateTime.unsafeMake("2027-05-01T00:00:00Z"))
      const shop = yield* FilsTest.account()
      const id = yield* subscribe(shop.test, FilsTest.cards.declineLater)

      const declined = yield* FilsTest.advanceToNextRenewal(shop.test, id)
      assert.strictEqual(declined.subscription.status, "on_hold")
      assert.strictEqual(declined.subscription.failed_payment_attempts, 1)
      const failedAt = yield* DateTime.now

      // The retries come 1, 3 and 5 days after the first failure; the third failed retry cancels.
      for (const [i, day] of Calendar.retryDays.entries()) {
        const after = yield* FilsTest.advanceToNextRenewal(shop.test, id)
        assert.strictEqual(DateTime.toEpochMillis(yield* DateTime.now), DateTime.toEpochMillis(Calendar.addDays(failedAt, day)))
        if (i < Calendar.retryDays.length - 1) assert.strictEqual(after.subscription.status, "on_hold")
        else {
          assert.strictEqual(after.subscription.status, "cancelled")
          assert.strictEqual(after.subscription.cancellation_reason, "payment_failed")
        }
      }
      // Nothing is due on a cancelled subscription.
      const exit = yield* Effect.exit(FilsTest.advanceToNextRenewal(shop.test, id))
      assert.isTrue(Exit.isFailure(exit))
    }).pipe(Effect.provide(FilsTest.layer())))

  it.effect.prop(
    "any schedule: n renewals move the period to n, each on its calendar date",
    [fc.constantFrom<BillingInterval>("day", "week", "month", "year"), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 4 })],
    ([interval, count, renewals]) =>
      Effect.gen(function*() {
        yield* FilsTest.advanceTo(DateTime.unsafeMake("2028-01-31T08:30:00Z"))
        const shop = yield* FilsTest.account()
        const id = yield* subscribe(shop.test, FilsTest.cards.mastercard, interval, count)
        const anchor = yield* DateTime.now
        for (let n = 1; n <= renewals; n++) {
          const { subscription } = yield* FilsTest.advanceToNextRenewal(shop.test, id)
          assert.strictEqual(subscription.period, n)
          assert.strictEqual(
            DateTime.toEpochMillis(subscription.current_period_start),
            DateTime.toEpochMillis(Calendar.periodStart(anchor, interval, count, n))
          )
        }
      }).pipe(Effect.provide(FilsTest.layer())),
    { fastCheck: { numRuns: 15 } }
  )

  it.effect("the recording transport captures signed deliveries and can fail them", () =>
    Effect.gen(function*() {
      const shop = yield* FilsTest.account()
      const endpoint = yield* (yield* Webhooks).create(shop.test, { url: "https://hooks.example.com/fils" })
      yield* subscribe(shop.test, FilsTest.cards.visa)
      const recorder = yield* WebhookRecorder
      yield* (yield* Deliveries).dispatchOnce()
      const sent = yield* recorder.sent
      assert.isAbove(sent.length, 0)
      for (const request of sent) {
        assert.strictEqual(request.url, endpoint.url)
        assert.match(request.headers["webhook-signature"] ?? "", /^v1,/)
      }
      assert.includeMembers(sent.map((r) => JSON.parse(r.body).type), ["payment.succeeded", "subscription.active"])
      const deliveries = yield* Deliveries
      assert.isTrue((yield* deliveries.list({})).every((d) => d.status === "succeeded"))

      // A receiver answering 503: the next deliveries fail and stay pending for a retry.
      yield* recorder.answerWith(503)
      yield* FilsTest.pay((yield* (yield* Checkout).create(shop.test, {
        product_cart: [{ product_id: (yield* (yield* Products).create(shop.test, { name: "Cup", price: 900, currency: "AED" })).product_id }]
      })).session_id)
      yield* deliveries.dispatchOnce()
      const failed = (yield* deliveries.list({})).filter((d) => d.status !== "succeeded")
      assert.strictEqual(failed.length, 1)
      assert.strictEqual(failed[0]!.status, "pending")
      assert.strictEqual(failed[0]!.last_status_code, 503)
    }).pipe(Effect.provide(FilsTest.layer())))
})
