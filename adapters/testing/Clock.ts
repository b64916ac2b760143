/**
 * TestClock helpers: move time to what is due and run the billing pass `fils serve` would run then. They need the
 * test services (`it.effect` from @effect/vitest provides them; otherwise `Effect.provide(TestContext.TestContext)`).
 *
 *   const sub = yield* FilsTest.advanceToNextRenewal(shop.test, subscriptionId)   // renewed (or on hold)
 */
import { DateTime, Effect, TestClock } from "effect"
import { Billing, type BillingReport } from "../../src/application/Billing.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import type { Scope } from "../../src/domain/Account.js"
import { InvalidState } from "../../src/domain/Errors.js"
import type { SubscriptionId } from "../../src/domain/Ids.js"
import * as Subscription from "../../src/domain/Subscription.js"

/** Sets the test clock to `at` (never backwards: an instant already past leaves the clock where it is). */
export const advanceTo = (at: DateTime.DateTime) =>
  Effect.gen(function*() {
    const now = yield* DateTime.now
    if (DateTime.greaterThan(at, now)) yield* TestClock.setTime(DateTime.toEpochMillis(at))
  })

/** Moves the test clock to `at`, then runs one billing pass (renewals, retries, expiries, settlements). */
export const runBillingAt = (at: DateTime.DateTime) =>
  Effect.gen(function*() {
    yield* advanceTo(at)
    return yield* (yield* Billing).runOnce()
  })

/**
 * Moves the test clock to when the subscription's next charge (its renewal, or the next retry when it is on hold)
 * or its period-end cancellation is due, runs one billing pass, and returns the subscription after it with the
 * pass's report. A cancelled subscription has nothing due: `InvalidState`.
 */
export const advanceToNextRenewal = (scope: Scope, id: SubscriptionId) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    const before = yield* subscriptions.get(scope, id)
    const due = Subscription.dueAt(before)
    if (due === null) {
      return yield* new InvalidState({ message: `Subscription ${id} is ${before.status}; nothing is due` })
    }
    const report: BillingReport = yield* runBillingAt(due)
    const subscription = yield* subscriptions.get(scope, id)
    return { subscription, report }
  })
