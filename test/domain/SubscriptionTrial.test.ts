/**
 * Trials in the subscription machine (docs/subscriptions.md#trials), driven the way billing drives it: a subscription
 * started with a random trial on a random schedule, then random jumps of the clock, due charges that succeed or are
 * declined, cancellations and cancel-at-period-end. The first renewal is due exactly at the trial's end and the k-th
 * k − 1 intervals after it; nothing is charged during the trial; a subscription cancelled during its trial is never
 * charged; a period is never charged twice.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Either, FastCheck } from "effect"
import * as Calendar from "../../src/domain/Calendar.js"
import type { AccountId, CustomerId, PaymentId, ProductId, SubscriptionId } from "../../src/domain/Ids.js"
import * as PlanChange from "../../src/domain/PlanChange.js"
import * as Product from "../../src/domain/Product.js"
import { type BillingInterval, maxIntervalCount, maxTrialDays } from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"

const hex = "0".repeat(32)
const day = 86_400_000

const startedWithTrial = (paidAt: DateTime.Utc, trialDays: number, interval: BillingInterval, count: number) =>
  Subscription.start({
    id: `sub_${hex}` as SubscriptionId,
    accountId: `acct_${hex}` as AccountId,
    livemode: false,
    product: { product_id: `pdt_${hex}` as ProductId, name: "Trial beans", billing_interval: interval, interval_count: count },
    quantity: 1,
    unitAmount: 9900,
    currency: "AED",
    customer: { customer_id: `cus_${hex}` as CustomerId, name: "Layla", email: "layla@example.ae" },
    card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2090, token: "tok_sim_ok_x" },
    checkoutSessionId: null,
    metadata: {},
    paidAt,
    trialDays,
    taxLines: null
  })

const ms = DateTime.toEpochMillis
const plus = (d: DateTime.Utc, millis: number) => DateTime.unsafeMake(ms(d) + millis)

/**
 * A step of a random life: the clock jumps, billing acts on what is due by now (or the clock runs on to the next
 * thing due and billing acts then: `wait`), or the merchant acts.
 */
type Step =
  | { readonly _tag: "Jump"; readonly ms: number }
  | { readonly _tag: "Due"; readonly succeeds: boolean; readonly wait: boolean }
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "Flag"; readonly value: boolean }

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  { weight: 3, arbitrary: FastCheck.integer({ min: 0, max: 60 * day }).map((ms) => ({ _tag: "Jump" as const, ms })) },
  {
    weight: 8,
    arbitrary: FastCheck.record({ succeeds: FastCheck.boolean(), wait: FastCheck.boolean() })
      .map((r) => ({ _tag: "Due" as const, ...r }))
  },
  { weight: 1, arbitrary: FastCheck.constant({ _tag: "Cancel" as const }) },
  { weight: 1, arbitrary: FastCheck.boolean().map((value) => ({ _tag: "Flag" as const, value })) }
)

const scheduleArb = FastCheck.constantFrom<BillingInterval>("day", "week", "month", "year").chain((interval) =>
  FastCheck.tuple(FastCheck.constant(interval), FastCheck.integer({ min: 1, max: Math.min(maxIntervalCount[interval], 12) }))
)
const startArb = FastCheck.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 11, 31) }).map((t) => DateTime.unsafeMake(t))
const trialArb = FastCheck.oneof(FastCheck.integer({ min: 1, max: 31 }), FastCheck.integer({ min: 1, max: maxTrialDays }))

describe("trials (random lives)", () => {
  it.prop("renewals fall exactly at the trial's end + k intervals; nothing is charged during the trial", [
    startArb,
    trialArb,
    scheduleArb,
    FastCheck.array(stepArb, { minLength: 1, maxLength: 40 })
  ], ([start, trialDays, [interval, count], steps]) => {
    const started = startedWithTrial(start, trialDays, interval, count)
    let s = started.next
    // The trial ends whole days of 24 hours after the start, and the first renewal is due then.
    const trialEnd = start.epochMillis + trialDays * day
    assert.strictEqual(ms(s.trial_ends_at!), trialEnd)
    assert.strictEqual(s.trial_period_days, trialDays)
    assert.strictEqual(ms(s.next_billing_date), trialEnd)
    assert.strictEqual(ms(s.current_period_start), start.epochMillis)
    assert.strictEqual(s.status, "active")
    assert.deepStrictEqual(started.events.map(Subscription.eventType), ["subscription.active"])

    /** When the first attempt at period k (k ≥ 1) is due: k − 1 intervals after the trial's end. */
    const dueOf = (k: number) => ms(Calendar.periodStart(DateTime.unsafeMake(trialEnd), interval, count, k - 1))
    let now = start
    const charged = new Map<number, number>() // period → attempts made
    let firstFailure = 0 // when the current run of failures began, as billing saw it
    let cancelledInTrial = false
    for (const step of steps) {
      switch (step._tag) {
        case "Jump":
          now = plus(now, step.ms)
          continue
        case "Cancel": {
          if (s.status !== "cancelled" && ms(now) < trialEnd) cancelledInTrial = true
          s = Either.getOrThrow(Subscription.transition(s, { _tag: "Cancel" }, now)).next
          continue
        }
        case "Flag": {
          const r = Subscription.transition(s, { _tag: "SetCancelAtPeriodEnd", value: step.value }, now)
          if (Either.isRight(r)) s = r.right.next
          continue
        }
        case "Due": {
          const due = Subscription.dueAt(s)
          if (due === null || (!step.wait && DateTime.greaterThan(due, now))) continue
          now = DateTime.max(now, due)
          if (Subscription.dueAction(s) === "end") {
            const ended = Either.getOrThrow(Subscription.transition(s, { _tag: "EndAtPeriodEnd" }, now)).next
            // Set during the trial and never charged: it ends when the trial does.
            if (s.period === 0 && s.status === "active") {
              assert.strictEqual(ms(ended.cancelled_at!), trialEnd)
              cancelledInTrial = true
            }
            s = ended
            continue
          }
          const attempt = Subscription.dueAttempt(s)
          assert.isAtLeast(ms(now), trialEnd, "no charge before the trial ends")
          if (attempt.attempt === 0) {
            // A renewal is due exactly on its date (billing runs at or after it; the machine was asked at `due`).
            assert.strictEqual(ms(due), dueOf(attempt.period), `period ${attempt.period} due at trial end + ${attempt.period - 1} intervals`)
          } else {
            // A retry counts from the first failure (billing ran the renewal at or after its date).
            assert.strictEqual(ms(due), firstFailure + Calendar.retryDays[attempt.attempt - 1]! * day)
          }
          if (attempt.attempt === 0) firstFailure = ms(now)
          const made = charged.get(attempt.period) ?? 0
          assert.strictEqual(made, attempt.attempt, `period ${attempt.period}, attempt ${attempt.attempt} is charged once`)
          charged.set(attempt.period, made + 1)
          const r = Either.getOrThrow(Subscription.transition(s, { _tag: step.succeeds ? "ChargeSucceeded" : "ChargeFailed" }, now))
          s = r.next
          if (step.succeeds) {
            assert.strictEqual(s.period, attempt.period)
            assert.strictEqual(ms(s.current_period_start), dueOf(s.period))
            assert.strictEqual(ms(s.next_billing_date), dueOf(s.period + 1))
          }
          continue
        }
      }
    }
    if (cancelledInTrial) assert.strictEqual(charged.size, 0, "a subscription cancelled during its trial is never charged")
    // Whatever happened, the dates follow the trial's schedule.
    if (s.period === 0) assert.strictEqual(ms(s.current_period_start), start.epochMillis)
    for (let k = 1; k <= s.period + 1; k++) assert.strictEqual(ms(Subscription.periodStartOf(s, k)), dueOf(k))
  }, { fastCheck: { numRuns: 150 } })

  it.prop("without a trial the schedule is the anchor's, as before", [startArb, scheduleArb], ([start, [interval, count]]) => {
    const s = startedWithTrial(start, 0, interval, count).next
    assert.isNull(s.trial_ends_at)
    assert.strictEqual(s.trial_period_days, 0)
    for (let n = 0; n < 4; n++) {
      assert.strictEqual(ms(Subscription.periodStartOf(s, n)), ms(Calendar.periodStart(start, interval, count, n)))
    }
  }, { fastCheck: { numRuns: 50 } })
})

describe("a plan change during a trial", () => {
  it("made now, it ends the trial on the change date, paid or not; scheduled, the trial runs to its end", () => {
    const start = DateTime.unsafeMake("2027-03-01T09:00:00.000Z")
    const s = startedWithTrial(start, 14, "month", 1).next
    const at = plus(start, 7 * day)
    const product = Either.getOrThrow(Product.create(
      { name: "Pro beans", price: 30_000, currency: "AED", billing: "recurring", billing_interval: "year" },
      { id: `pdt_${"1".repeat(32)}` as ProductId, accountId: s.account_id, livemode: false, now: start }
    ))
    const priceWith = (request: Parameters<typeof PlanChange.price>[0]["request"]) =>
      // A free trial: its period was charged nothing.
      Either.getOrThrow(PlanChange.price({ subscription: s, product, quantity: 1, request, at, vat: null, periodCharge: 0 }))
    const paymentId = `pay_${"2".repeat(32)}` as PaymentId
    const waiting = PlanChange.awaitCharge(s, priceWith({ proration_billing_mode: "full_immediately" }), paymentId)
    for (const succeeded of [true, false]) {
      const after = PlanChange.settle(waiting, paymentId, succeeded, at)!.next
      assert.strictEqual(ms(after.trial_ends_at!), ms(at), `paid: ${succeeded}`)
      assert.isFalse(Subscription.inTrial(after) && succeeded)
      // The store's rule: every period after the trial starts at or after its end.
      if (after.period > 0) assert.isAtLeast(ms(after.current_period_start), ms(after.trial_ends_at!))
    }
    const scheduled = PlanChange.schedule(s, priceWith({ proration_billing_mode: "full_immediately", effective_at: "next_billing_date" })).next
    assert.strictEqual(ms(scheduled.trial_ends_at!), start.epochMillis + 14 * day)
    const kept = PlanChange.changeWithoutCharge(s, priceWith({ proration_billing_mode: "do_not_bill" })).next
    assert.deepStrictEqual([ms(kept.trial_ends_at!), ms(kept.next_billing_date)], [start.epochMillis + 14 * day, start.epochMillis + 14 * day])
  })
})
