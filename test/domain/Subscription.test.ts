import { assert, describe, it } from "@effect/vitest"
import { DateTime, Either, FastCheck } from "effect"
import * as Calendar from "../../src/domain/Calendar.js"
import type { AccountId, CustomerId, ProductId, SubscriptionId } from "../../src/domain/Ids.js"
import type { BillingInterval } from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"

const hex = "0".repeat(32)
const started = (paidAt: DateTime.Utc, interval: BillingInterval = "month", count = 1) =>
  Subscription.start({
    id: `sub_${hex}` as SubscriptionId,
    accountId: `acct_${hex}` as AccountId,
    livemode: false,
    product: { product_id: `pdt_${hex}` as ProductId, name: "Monthly beans", billing_interval: interval, interval_count: count },
    quantity: 2,
    unitAmount: 34900,
    currency: "AED",
    customer: { customer_id: `cus_${hex}` as CustomerId, name: "Layla", email: "layla@example.ae" },
    card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030, token: "tok_sim_ok_x" },
    checkoutSessionId: null,
    metadata: {},
    paidAt,
    taxLines: null
  })

const apply = (s: Subscription.Subscription, c: Subscription.SubscriptionCommand, now: DateTime.Utc) =>
  Either.getOrThrow(Subscription.transition(s, c, now))

const t0 = DateTime.unsafeMake("2027-01-31T09:00:00.000Z")
const day = 86_400_000
const plus = (d: DateTime.Utc, ms: number) => DateTime.unsafeMake(DateTime.toEpochMillis(d) + ms)

describe("Subscription lifecycle", () => {
  it("starts active on the first payment, anchored on it", () => {
    const { events, next } = started(t0)
    assert.deepStrictEqual(events.map(Subscription.eventType), ["subscription.active"])
    assert.strictEqual(next.status, "active")
    assert.strictEqual(next.recurring_amount, 69800)
    assert.strictEqual(DateTime.formatIso(next.current_period_start), "2027-01-31T09:00:00.000Z")
    assert.strictEqual(DateTime.formatIso(next.next_billing_date), "2027-02-28T09:00:00.000Z")
    assert.deepStrictEqual(next.payment_method, { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 })
  })

  it("renews twice, keeping the anchor day", () => {
    let s = started(t0).next
    const r1 = Subscription.transition(s, { _tag: "ChargeSucceeded" }, s.next_billing_date)
    s = Either.getOrThrow(r1).next
    assert.deepStrictEqual(Either.getOrThrow(r1).events.map(Subscription.eventType), ["subscription.renewed"])
    assert.strictEqual(DateTime.formatIso(s.current_period_start), "2027-02-28T09:00:00.000Z")
    assert.strictEqual(DateTime.formatIso(s.next_billing_date), "2027-03-31T09:00:00.000Z")
    s = apply(s, { _tag: "ChargeSucceeded" }, s.next_billing_date).next
    assert.strictEqual(DateTime.formatIso(s.next_billing_date), "2027-04-30T09:00:00.000Z")
  })

  it("fails → on_hold with retries at 1, 3 and 5 days → recovers, period still anchored", () => {
    let s = started(t0).next
    const due = s.next_billing_date
    const failed = Either.getOrThrow(Subscription.transition(s, { _tag: "ChargeFailed" }, due))
    assert.deepStrictEqual(failed.events.map(Subscription.eventType), ["subscription.on_hold"])
    s = failed.next
    assert.strictEqual(s.status, "on_hold")
    assert.strictEqual(s.failed_payment_attempts, 1)
    assert.strictEqual(DateTime.toEpochMillis(s.next_retry_at!), DateTime.toEpochMillis(due) + day)
    const again = Either.getOrThrow(Subscription.transition(s, { _tag: "ChargeFailed" }, s.next_retry_at!))
    assert.deepStrictEqual(again.events.map(Subscription.eventType), []) // on_hold is announced once, on entry
    s = again.next
    assert.strictEqual(DateTime.toEpochMillis(s.next_retry_at!), DateTime.toEpochMillis(due) + 3 * day)
    const recovered = Either.getOrThrow(Subscription.transition(s, { _tag: "ChargeSucceeded" }, s.next_retry_at!))
    assert.deepStrictEqual(recovered.events.map(Subscription.eventType), ["subscription.active", "subscription.renewed"])
    s = recovered.next
    assert.strictEqual(s.status, "active")
    assert.strictEqual(s.failed_payment_attempts, 0)
    assert.isNull(s.next_retry_at)
    assert.strictEqual(DateTime.formatIso(s.current_period_start), "2027-02-28T09:00:00.000Z")
    assert.strictEqual(DateTime.formatIso(s.next_billing_date), "2027-03-31T09:00:00.000Z")
  })

  it("is cancelled with payment_failed when the day-5 retry fails", () => {
    let s = started(t0).next
    const due = s.next_billing_date
    s = apply(s, { _tag: "ChargeFailed" }, due).next
    s = apply(s, { _tag: "ChargeFailed" }, s.next_retry_at!).next
    s = apply(s, { _tag: "ChargeFailed" }, s.next_retry_at!).next
    assert.strictEqual(DateTime.toEpochMillis(s.next_retry_at!), DateTime.toEpochMillis(due) + 5 * day)
    const last = Either.getOrThrow(Subscription.transition(s, { _tag: "ChargeFailed" }, s.next_retry_at!))
    assert.deepStrictEqual(last.events.map(Subscription.eventType), ["subscription.cancelled"])
    assert.strictEqual(last.next.status, "cancelled")
    assert.strictEqual(last.next.cancellation_reason, "payment_failed")
    assert.isNull(Subscription.dueAt(last.next))
  })

  it("cancels now, and cancelling again changes nothing", () => {
    const s = started(t0).next
    const now = plus(t0, 3 * day)
    const c = Either.getOrThrow(Subscription.transition(s, { _tag: "Cancel" }, now))
    assert.deepStrictEqual(c.events.map(Subscription.eventType), ["subscription.cancelled"])
    assert.strictEqual(c.next.cancellation_reason, "requested")
    assert.strictEqual(DateTime.toEpochMillis(c.next.cancelled_at!), DateTime.toEpochMillis(now))
    const twice = Either.getOrThrow(Subscription.transition(c.next, { _tag: "Cancel" }, plus(now, day)))
    assert.deepStrictEqual(twice.events.map(Subscription.eventType), [])
    assert.strictEqual(twice.next, c.next)
    assert.isTrue(Either.isLeft(Subscription.transition(c.next, { _tag: "SetCancelAtPeriodEnd", value: true }, now)))
  })

  it("cancel at period end ends it at the period end without a charge; undoing it keeps it renewing", () => {
    let s = apply(started(t0).next, { _tag: "SetCancelAtPeriodEnd", value: true }, plus(t0, day)).next
    assert.strictEqual(s.status, "active")
    assert.strictEqual(Subscription.dueAction(s), "end")
    const end = Either.getOrThrow(Subscription.transition(s, { _tag: "EndAtPeriodEnd" }, plus(s.next_billing_date, 5000)))
    assert.deepStrictEqual(end.events.map(Subscription.eventType), ["subscription.cancelled"])
    assert.strictEqual(end.next.cancellation_reason, "requested")
    assert.strictEqual(DateTime.toEpochMillis(end.next.cancelled_at!), DateTime.toEpochMillis(s.next_billing_date))
    s = apply(s, { _tag: "SetCancelAtPeriodEnd", value: false }, plus(t0, 2 * day)).next
    assert.strictEqual(Subscription.dueAction(s), "charge")
  })

  it("takes exactly one of status or cancel_at_period_end in an update", () => {
    assert.isTrue(Either.isLeft(Subscription.commandOf({})))
    assert.isTrue(Either.isLeft(Subscription.commandOf({ status: "cancelled", cancel_at_period_end: true })))
    assert.deepStrictEqual(Either.getOrThrow(Subscription.commandOf({ status: "cancelled" })), { _tag: "Cancel" })
    assert.deepStrictEqual(Either.getOrThrow(Subscription.commandOf({ cancel_at_period_end: false })), {
      _tag: "SetCancelAtPeriodEnd",
      value: false
    })
  })
})

/** A step of a random life: the clock jumps, then the billing engine or the merchant acts. */
type Step =
  | { readonly _tag: "Jump"; readonly ms: number }
  | { readonly _tag: "Due"; readonly succeeds: boolean }
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "Flag"; readonly value: boolean }
  /** The customer saves a new card (the portal); one on hold is charged on it at once. */
  | { readonly _tag: "Card"; readonly last4: string; readonly succeeds: boolean }

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  { weight: 3, arbitrary: FastCheck.integer({ min: 0, max: 40 * day }).map((ms) => ({ _tag: "Jump" as const, ms })) },
  { weight: 5, arbitrary: FastCheck.boolean().map((succeeds) => ({ _tag: "Due" as const, succeeds })) },
  { weight: 1, arbitrary: FastCheck.constant({ _tag: "Cancel" as const }) },
  { weight: 2, arbitrary: FastCheck.boolean().map((value) => ({ _tag: "Flag" as const, value })) },
  {
    weight: 2,
    arbitrary: FastCheck.record({ last4: FastCheck.stringMatching(/^[0-9]{4}$/), succeeds: FastCheck.boolean() })
      .map((r) => ({ _tag: "Card" as const, ...r }))
  }
)
const scheduleArb = FastCheck.constantFrom<[BillingInterval, number]>(["day", 1], ["week", 2], ["month", 1], ["month", 3], ["year", 1])

describe("Subscription invariants (random lives)", () => {
  it.prop("a period is never charged twice, cancelled is final, counters and dates stay consistent", [
    FastCheck.array(stepArb, { minLength: 1, maxLength: 60 }),
    scheduleArb
  ], ([steps, [interval, count]]) => {
    let now = t0
    let s = started(t0, interval, count).next
    const paidPeriods = new Set<number>([0])
    let cancelledSnapshot: Subscription.Subscription | undefined
    for (const step of steps) {
      const before = s
      switch (step._tag) {
        case "Jump":
          now = plus(now, step.ms)
          continue
        case "Cancel":
          s = apply(s, { _tag: "Cancel" }, now).next
          break
        case "Flag": {
          const r = Subscription.transition(s, { _tag: "SetCancelAtPeriodEnd", value: step.value }, now)
          if (Either.isRight(r)) s = r.right.next
          else assert.strictEqual(before.status, "cancelled")
          break
        }
        case "Card": {
          const card = { brand: "visa", last4: step.last4, exp_month: 12, exp_year: 2090, token: `tok_${step.last4}` }
          const r = Subscription.transition(s, { _tag: "ReplaceCard", card }, now)
          if (Either.isLeft(r)) {
            assert.strictEqual(before.status, "cancelled")
            break
          }
          assert.deepStrictEqual(r.right.events.map(Subscription.eventType), [])
          const { card_token, payment_method, ...rest } = r.right.next
          const { card_token: _, payment_method: __, ...restBefore } = before
          assert.deepStrictEqual(rest, restBefore, "a new card changes nothing but the card")
          assert.deepStrictEqual({ ...payment_method, token: card_token }, card)
          s = r.right.next
          if (s.status !== "on_hold") break
          // PaymentMethods charges the due period on the new card now: the next retry, brought forward.
          const charged = s.period + 1
          const charge = apply(s, { _tag: step.succeeds ? "ChargeSucceeded" : "ChargeFailed" }, now)
          if (step.succeeds) {
            assert.isFalse(paidPeriods.has(charged), `period ${charged} charged twice`)
            paidPeriods.add(charged)
            assert.deepStrictEqual(charge.events.map(Subscription.eventType), ["subscription.active", "subscription.renewed"])
          }
          s = charge.next
          break
        }
        case "Due": {
          // The billing engine acts only on what is due by now, the way Billing does.
          const due = Subscription.dueAt(s)
          if (due === null || DateTime.greaterThan(due, now)) continue
          now = DateTime.max(now, due)
          if (Subscription.dueAction(s) === "end") {
            s = apply(s, { _tag: "EndAtPeriodEnd" }, now).next
          } else {
            const charged = s.period + 1
            const r = apply(s, { _tag: step.succeeds ? "ChargeSucceeded" : "ChargeFailed" }, now)
            if (step.succeeds) {
              assert.isFalse(paidPeriods.has(charged), `period ${charged} charged twice`)
              paidPeriods.add(charged)
              assert.strictEqual(r.next.period, charged)
            } else {
              assert.strictEqual(r.next.period, s.period, "a failure never moves the period")
            }
            s = r.next
          }
          break
        }
      }
      if (cancelledSnapshot !== undefined) assert.deepStrictEqual(s, cancelledSnapshot, "cancelled never changes")
      if (s.status === "cancelled" && cancelledSnapshot === undefined) cancelledSnapshot = s
      // Consistency, after every step.
      assert.strictEqual(s.status === "cancelled", s.cancelled_at !== null)
      assert.strictEqual(s.status === "cancelled", s.cancellation_reason !== null)
      assert.strictEqual(s.status === "on_hold", s.next_retry_at !== null)
      if (s.status === "active") assert.strictEqual(s.failed_payment_attempts, 0)
      if (s.status === "on_hold") assert.isTrue(s.failed_payment_attempts >= 1 && s.failed_payment_attempts <= 3)
      assert.isTrue(s.failed_payment_attempts <= 4)
      assert.strictEqual(
        DateTime.toEpochMillis(s.current_period_start),
        DateTime.toEpochMillis(Calendar.periodStart(s.anchor, s.billing_interval, s.interval_count, s.period))
      )
      assert.strictEqual(
        DateTime.toEpochMillis(s.next_billing_date),
        DateTime.toEpochMillis(Calendar.periodStart(s.anchor, s.billing_interval, s.interval_count, s.period + 1))
      )
      assert.strictEqual(s.recurring_amount, before.recurring_amount)
    }
    assert.strictEqual(paidPeriods.size, s.period + 1, "every period up to the current one was paid exactly once")
  }, { fastCheck: { numRuns: 200 } })
})
