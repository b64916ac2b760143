/**
 * The pricing of a plan change (`PlanChange.price`) and the credit rule (`Credit.lessCredit`), checked against
 * arithmetic written out here: random plans, schedules, quantities, change instants and credit, with and without VAT
 * (prices including or excluding it, every category).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Either, FastCheck as fc } from "effect"
import * as Credit from "../../src/domain/Credit.js"
import type { AccountId, CustomerId, PaymentId, ProductId, SubscriptionId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import * as PlanChange from "../../src/domain/PlanChange.js"
import * as PlanPolicy from "../../src/domain/PlanPolicy.js"
import * as Product from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import * as Vat from "../../src/domain/Vat.js"

const hex = (n: number) => n.toString(16).padStart(32, "0")
const accountId = `acct_${hex(1)}` as AccountId
const paymentId = `pay_${hex(9)}` as PaymentId

interface PlanSpec {
  readonly price: number
  readonly quantity: number
  readonly interval: Product.BillingInterval
  readonly count: number
  readonly category: "S" | "Z" | "E" | "O"
}

const planSpec: fc.Arbitrary<PlanSpec> = fc.record({
  price: fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.constantFrom(1, 99, 34900, 59900)),
  quantity: fc.integer({ min: 1, max: 20 }),
  interval: fc.constantFrom(...Product.BillingInterval.literals),
  count: fc.integer({ min: 1, max: 3 }),
  category: fc.constantFrom("S", "S", "S", "Z", "E", "O")
})

const productOf = (spec: PlanSpec, n: number, policy: PlanPolicy.PlanChangePolicy | null = null) =>
  Either.getOrThrow(Product.create({
    name: `Plan ${n}`,
    price: spec.price,
    currency: "AED",
    billing: "recurring",
    billing_interval: spec.interval,
    interval_count: spec.count,
    tax_category: spec.category,
    ...(spec.category === "E" ? { tax_exemption_code: "DL8.46.1" as const } : {}),
    plan_change_policy: policy
  }, { id: `pdt_${hex(n)}` as ProductId, accountId, livemode: false, now: DateTime.unsafeMake(0) }))

type Vat = { readonly pricesIncludeVat: boolean } | null
const vatArb: fc.Arbitrary<Vat> = fc.oneof(fc.constant(null), fc.record({ pricesIncludeVat: fc.boolean() }))

/** A subscription to `spec`, started at `paidAt`, renewed `renewals` times, holding `credit`. */
const subscribed = (spec: PlanSpec, vat: Vat, paidAt: DateTime.Utc, renewals: number, credit: number) => {
  const product = productOf(spec, 1)
  const taxLines = vat === null ? null : TaxDocument.price([Product.lineInput(product, spec.quantity)], vat.pricesIncludeVat)
  let s = Subscription.start({
    id: `sub_${hex(2)}` as SubscriptionId,
    accountId,
    livemode: false,
    product: { product_id: product.product_id, name: product.name, billing_interval: spec.interval, interval_count: spec.count },
    quantity: spec.quantity,
    unitAmount: spec.price,
    taxLines,
    currency: "AED",
    customer: { customer_id: `cus_${hex(3)}` as CustomerId, name: "Layla", email: "layla@example.ae" },
    card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2090, token: "tok_sim_ok" },
    checkoutSessionId: null,
    metadata: {},
    paidAt
  }).next
  for (let i = 0; i < renewals; i++) {
    s = Either.getOrThrow(Subscription.transition(s, { _tag: "ChargeSucceeded" }, s.next_billing_date)).next
  }
  return { ...s, credit_balance: credit }
}

const immediateModes = ["prorated_immediately", "full_immediately", "difference_immediately"] as const

const scenario = fc.record({
  vat: vatArb,
  old: planSpec,
  next: planSpec,
  paidAt: fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) => DateTime.unsafeMake(ms)),
  renewals: fc.integer({ min: 0, max: 3 }),
  credit: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_000_000 })),
  /** Where in the period the change is made, in millionths of it (never its first or last instant). */
  at: fc.integer({ min: 1, max: 999_999 }),
  mode: fc.constantFrom(...immediateModes),
  /** What the current period was charged, in millionths of its list price (a discount, a free trial; above: clamped). */
  paid: fc.oneof(fc.constant(1_000_000), fc.integer({ min: 0, max: 1_200_000 }))
})

const instantIn = (s: Subscription.Subscription, millionths: number) => {
  const start = DateTime.toEpochMillis(s.current_period_start)
  const end = DateTime.toEpochMillis(s.next_billing_date)
  return DateTime.unsafeMake(Math.min(end - 1, Math.max(start + 1, start + Math.floor(((end - start) * millionths) / 1e6))))
}

const priceOf = (
  s: Subscription.Subscription,
  product: Product.Product,
  quantity: number,
  at: DateTime.Utc,
  vat: Vat,
  request: Parameters<typeof PlanChange.price>[0]["request"],
  periodCharge = s.recurring_amount
) => PlanChange.price({ subscription: s, product, quantity, request, at, vat, periodCharge })

/** Each line is the sale's line rounded once with the document's convention, as the e-invoice rules check. */
const assertPricedLines = (lines: TaxDocument.TaxLines) => {
  for (const l of lines.lines) {
    const expected = Vat.line({ unitAmount: l.unit_amount, quantity: l.quantity, category: l.category, pricesIncludeVat: lines.prices_include_vat })
    assert.deepStrictEqual({ net: l.net, vat: l.vat, gross: l.gross }, expected)
    assert.isAtLeast(l.gross, 0)
  }
}

describe("PlanChange.price: the immediate modes", () => {
  it.prop("never negative; charge and credit reconcile with the prorated values to the fils", [scenario], ([c]) => {
    const s = subscribed(c.old, c.vat, c.paidAt, c.renewals, c.credit)
    const product = productOf(c.next, 7)
    const at = instantIn(s, c.at)
    const periodCharge = Math.floor((s.recurring_amount * c.paid) / 1e6)
    const priced = Either.getOrThrow(priceOf(s, product, c.next.quantity, at, c.vat, { proration_billing_mode: c.mode }, periodCharge))
    const charge = priced.charge!

    // The new plan's first period, priced as a checkout of it would be.
    const newGross = c.vat === null
      ? c.next.price * c.next.quantity
      : TaxDocument.totals(TaxDocument.price([Product.lineInput(product, c.next.quantity)], c.vat.pricesIncludeVat).lines).gross
    assert.strictEqual(priced.plan.recurring_amount, newGross)

    // The old plan's credit: its unused whole seconds over the period's (prorated), what the period was charged, or
    // nothing; never more than the period was charged, nor than its list price.
    const base = Math.min(periodCharge, s.recurring_amount)
    assert.isAtMost(priced.unusedCredit, base)
    const left = Math.floor((DateTime.toEpochMillis(s.next_billing_date) - DateTime.toEpochMillis(at)) / 1000)
    const length = Math.floor((DateTime.toEpochMillis(s.next_billing_date) - DateTime.toEpochMillis(s.current_period_start)) / 1000)
    if (c.mode === "prorated_immediately") {
      // Within half a fils of the exact value (rounded to the nearest fils).
      const exact = BigInt(base) * BigInt(left)
      const twice = 2n * BigInt(priced.unusedCredit) * BigInt(length)
      assert.isTrue(twice - 2n * exact <= BigInt(length) && 2n * exact - twice < BigInt(length), "unused time rounded to the nearest fils")
    } else {
      assert.strictEqual(priced.unusedCredit, c.mode === "difference_immediately" ? base : 0)
    }
    const unusedLine = priced.lineItems.find((l) => l.type === "unused_time")
    assert.strictEqual(unusedLine?.amount ?? 0, priced.unusedCredit)
    if (unusedLine !== undefined && unusedLine.tax !== null) assert.isAtMost(unusedLine.tax, unusedLine.amount)

    // What the credit (balance and the old plan's) pays of the new period, and the card the rest.
    const pool = c.credit + priced.unusedCredit
    const covered = Math.min(pool, newGross)
    assert.isAtLeast(charge.amount, 0)
    assert.isAtLeast(priced.creditRemaining, 0)
    assert.strictEqual(charge.amount + charge.creditApplied, newGross, "the card and the credit pay the new period")
    assert.strictEqual(priced.creditRemaining, pool - charge.creditApplied, "what the charge does not spend is kept")
    // Exactly, except that a line priced excluding 5 % VAT cannot reach every gross: its card part may be a fils more.
    const slack = c.vat !== null && !c.vat.pricesIncludeVat && Vat.rateBps(c.next.category) > 0 && covered > 0 ? 1 : 0
    assert.isAtLeast(charge.creditApplied, covered - slack)
    assert.isAtMost(charge.creditApplied, covered)

    if (charge.taxLines !== null) {
      assertPricedLines(charge.taxLines)
      assert.strictEqual(TaxDocument.totals(charge.taxLines.lines).gross, charge.amount)
    } else {
      assert.strictEqual(c.vat, null)
    }
    const payment = PlanChange.changePayment(s, { ...priced, charge }, paymentId, undefined, at)
    assert.deepStrictEqual(Payment.violations(payment), [])
    assert.strictEqual(payment.billing_reason, "subscription_update")

    // The preview's figures are the payment's.
    const summary = PlanChange.immediateCharge(s, priced).summary
    assert.deepStrictEqual(summary, {
      total_amount: payment.total_amount,
      tax: payment.tax,
      credit_applied: payment.credit_applied,
      credit_remaining: priced.creditRemaining
    })
  }, { fastCheck: { numRuns: 300 } })

  it.prop("the preview's new_plan is what the paid charge makes: a new period from the change date", [scenario], ([c]) => {
    const s = subscribed(c.old, c.vat, c.paidAt, c.renewals, c.credit)
    const at = instantIn(s, c.at)
    const priced = Either.getOrThrow(priceOf(s, productOf(c.next, 7), c.next.quantity, at, c.vat, { proration_billing_mode: c.mode }))
    const waiting = PlanChange.awaitCharge(s, priced, paymentId)
    const paid = PlanChange.settle(waiting, paymentId, true, at)!
    assert.deepStrictEqual(paid.next, PlanChange.wouldBe(s, priced))
    assert.deepStrictEqual(paid.events.map(Subscription.eventType), ["subscription.plan_changed"])
    const n = paid.next
    assert.strictEqual(n.period, s.period + 1)
    assert.strictEqual(DateTime.toEpochMillis(n.current_period_start), DateTime.toEpochMillis(at))
    assert.strictEqual(
      DateTime.toEpochMillis(n.next_billing_date),
      DateTime.toEpochMillis(Subscription.periodStartOf(n, n.period + 1))
    )
    assert.isTrue(DateTime.greaterThan(n.next_billing_date, at))
    assert.strictEqual(n.credit_balance, priced.creditRemaining)
    assert.strictEqual(n.pending_change, null)
    // The next renewal charges the new plan less what credit is left.
    const renewal = Subscription.renewalCharge(n)
    assert.strictEqual(renewal.amount + renewal.creditApplied, n.recurring_amount)
    const usable = Math.min(n.credit_balance, n.recurring_amount)
    assert.isTrue(renewal.creditApplied === usable || renewal.creditApplied === usable - 1)
  }, { fastCheck: { numRuns: 150 } })

  it.prop("declined: prevent_change keeps everything; apply_change is the new plan, due and on hold, the credit kept", [
    scenario,
    fc.constantFrom(...PlanPolicy.OnPaymentFailure.literals)
  ], ([c, onFailure]) => {
    const s = subscribed(c.old, c.vat, c.paidAt, c.renewals, c.credit)
    const at = instantIn(s, c.at)
    const priced = Either.getOrThrow(priceOf(s, productOf(c.next, 7), c.next.quantity, at, c.vat, {
      proration_billing_mode: c.mode,
      on_payment_failure: onFailure
    }))
    const failedAt = DateTime.add(at, { seconds: 2 })
    const declined = PlanChange.settle(PlanChange.awaitCharge(s, priced, paymentId), paymentId, false, failedAt)!
    if (onFailure === "prevent_change") {
      assert.deepStrictEqual(declined, { next: s, events: [] })
      return
    }
    const n = declined.next
    assert.deepStrictEqual(declined.events.map(Subscription.eventType), ["subscription.plan_changed", "subscription.on_hold"])
    assert.deepStrictEqual([n.status, n.failed_payment_attempts, n.product_id, n.period], ["on_hold", 1, priced.plan.product_id, s.period])
    assert.strictEqual(n.credit_balance, c.credit + priced.unusedCredit)
    // Its retry is the new period's charge: what the declined charge asked.
    assert.deepStrictEqual(Subscription.dueAttempt(n), { period: s.period + 1, attempt: 1 })
    assert.strictEqual(Subscription.renewalCharge(n).amount, priced.charge!.amount)
    const recovered = Either.getOrThrow(Subscription.transition(n, {
      _tag: "ChargeSucceeded",
      creditApplied: Subscription.renewalCharge(n).creditApplied
    }, n.next_retry_at!)).next
    assert.deepStrictEqual(recovered, { ...PlanChange.wouldBe(s, priced), status: "active" })
  }, { fastCheck: { numRuns: 150 } })
})

describe("PlanChange.price: the other modes and the rules", () => {
  const base = () => subscribed({ price: 10000, quantity: 1, interval: "month", count: 1, category: "S" }, null, DateTime.unsafeMake("2026-03-01T00:00:00.000Z"), 0, 0)
  const mid = DateTime.unsafeMake("2026-03-16T12:00:00.000Z")
  const yearly = productOf({ price: 100000, quantity: 1, interval: "year", count: 1, category: "S" }, 8)

  it("do_not_bill changes the plan now without a charge; the billing date stays, and the new schedule counts from it", () => {
    const s = base()
    const priced = Either.getOrThrow(priceOf(s, yearly, 1, mid, null, { proration_billing_mode: "do_not_bill" }))
    assert.isNull(priced.charge)
    assert.deepStrictEqual(PlanChange.immediateCharge(s, priced).summary, { total_amount: 0, tax: null, credit_applied: 0, credit_remaining: 0 })
    const changed = PlanChange.changeWithoutCharge(s, priced)
    assert.deepStrictEqual(changed.events.map(Subscription.eventType), ["subscription.plan_changed"])
    const n = changed.next
    assert.deepStrictEqual([n.product_id, n.billing_interval, n.recurring_amount], [yearly.product_id, "year", 100000])
    assert.strictEqual(DateTime.formatIso(n.next_billing_date), "2026-04-01T00:00:00.000Z")
    const renewed = Either.getOrThrow(Subscription.transition(n, { _tag: "ChargeSucceeded" }, n.next_billing_date)).next
    assert.strictEqual(DateTime.formatIso(renewed.current_period_start), "2026-04-01T00:00:00.000Z")
    assert.strictEqual(DateTime.formatIso(renewed.next_billing_date), "2027-04-01T00:00:00.000Z")
  })

  it("next_billing_date schedules the change; the renewal then applies it and charges the new plan; one at a time", () => {
    const s = base()
    const priced = Either.getOrThrow(priceOf(s, yearly, 2, mid, null, { proration_billing_mode: "full_immediately", effective_at: "next_billing_date" }))
    const scheduled = PlanChange.schedule(s, priced).next
    assert.strictEqual(scheduled.product_id, s.product_id, "nothing changes before the date")
    assert.strictEqual(DateTime.formatIso(scheduled.scheduled_change!.effective_at), "2026-04-01T00:00:00.000Z")
    const second = priceOf(scheduled, productOf({ price: 5000, quantity: 1, interval: "month", count: 1, category: "S" }, 9), 1, mid, null, { proration_billing_mode: "full_immediately", effective_at: "next_billing_date" })
    assert.strictEqual(Either.isLeft(second) && second.left._tag, "InvalidState")
    assert.isUndefined(PlanChange.applyScheduled(scheduled, mid), "not before its date")
    const applied = PlanChange.applyScheduled(scheduled, scheduled.next_billing_date)!
    assert.deepStrictEqual(applied.events.map(Subscription.eventType), ["subscription.plan_changed"])
    assert.strictEqual(Subscription.renewalCharge(applied.next).amount, 200000)
    const renewed = Either.getOrThrow(Subscription.transition(applied.next, { _tag: "ChargeSucceeded" }, applied.next.next_billing_date)).next
    assert.deepStrictEqual(
      [DateTime.formatIso(renewed.current_period_start), DateTime.formatIso(renewed.next_billing_date), renewed.scheduled_change],
      ["2026-04-01T00:00:00.000Z", "2027-04-01T00:00:00.000Z", null]
    )
    assert.deepStrictEqual(Either.getOrThrow(PlanChange.cancelScheduled(scheduled)), s)
    assert.strictEqual(Either.flip(PlanChange.cancelScheduled(s)).pipe(Either.getOrThrow)._tag, "NotFound")
    // Ending at the period end is refused while a change is scheduled for then, as scheduling is while it ends then.
    const ending = Subscription.transition(scheduled, { _tag: "SetCancelAtPeriodEnd", value: true }, mid)
    assert.strictEqual(Either.isLeft(ending) && ending.left._tag, "SubscriptionNotChangeable")
    assert.isTrue(Either.isRight(Subscription.transition(scheduled, { _tag: "SetCancelAtPeriodEnd", value: false }, mid)))
    assert.isTrue(Either.isRight(Subscription.transition(s, { _tag: "SetCancelAtPeriodEnd", value: true }, mid)))
  })

  it("the product's policy gives the modes the request leaves out, by direction; without one the mode is required", () => {
    const s = base()
    const policy: PlanPolicy.PlanChangePolicy = {
      upgrade: { proration_billing_mode: "prorated_immediately", effective_at: "immediately" },
      downgrade: { proration_billing_mode: "do_not_bill", effective_at: "next_billing_date" }
    }
    const pricier = productOf({ price: 20000, quantity: 1, interval: "month", count: 1, category: "S" }, 10, policy)
    const cheaper = productOf({ price: 5000, quantity: 1, interval: "month", count: 1, category: "S" }, 11, policy)
    // A year at 100 000 is less per day than a month at 10 000: a downgrade.
    const yearlyWithPolicy = productOf({ price: 100000, quantity: 1, interval: "year", count: 1, category: "S" }, 12, policy)
    const up = Either.getOrThrow(priceOf(s, pricier, 1, mid, null, {}))
    assert.deepStrictEqual([up.direction, up.mode, up.effectiveAt, up.onPaymentFailure], ["upgrade", "prorated_immediately", "immediately", "apply_change"])
    const down = Either.getOrThrow(priceOf(s, cheaper, 1, mid, null, {}))
    assert.deepStrictEqual([down.direction, down.mode, down.effectiveAt], ["downgrade", "do_not_bill", "next_billing_date"])
    assert.strictEqual(Either.getOrThrow(priceOf(s, yearlyWithPolicy, 1, mid, null, {})).direction, "downgrade")
    const overridden = Either.getOrThrow(priceOf(s, cheaper, 1, mid, null, { effective_at: "immediately" }))
    assert.deepStrictEqual([overridden.mode, overridden.effectiveAt], ["do_not_bill", "immediately"])
    const none = priceOf(s, yearly, 1, mid, null, {})
    assert.deepStrictEqual(Either.flip(none).pipe(Either.getOrThrow).message,
      `proration_billing_mode is required: product ${yearly.product_id} has no plan_change_policy to take it from`)
  })

  it("refuses, in the merchant's words: a one-time, inactive or same plan, a due renewal, a change waiting for its charge", () => {
    const s = base()
    const refusal = (r: Either.Either<unknown, { readonly _tag: string; readonly message: string }>) =>
      Either.isLeft(r) ? [r.left._tag, r.left.message] : ["accepted"]
    const oneTime = Either.getOrThrow(Product.create({ name: "Mug", price: 100, currency: "AED" }, { id: `pdt_${hex(20)}` as ProductId, accountId, livemode: false, now: mid }))
    assert.deepStrictEqual(refusal(priceOf(s, oneTime, 1, mid, null, { proration_billing_mode: "full_immediately" })), [
      "InvalidRequest", `Product ${oneTime.product_id} is one-time: a subscription can change only to a recurring product`
    ])
    const archived = { ...yearly, status: "archived" as const }
    assert.deepStrictEqual(refusal(priceOf(s, archived, 1, mid, null, { proration_billing_mode: "full_immediately" })), [
      "InvalidRequest", `Product ${yearly.product_id} is archived; a subscription can change only to an active product`
    ])
    const own = productOf({ price: 10000, quantity: 1, interval: "month", count: 1, category: "S" }, 1)
    assert.deepStrictEqual(refusal(priceOf(s, own, 1, mid, null, { proration_billing_mode: "full_immediately" }))[0], "InvalidRequest")
    assert.strictEqual(Either.isRight(priceOf(s, own, 2, mid, null, { proration_billing_mode: "full_immediately" })), true, "another quantity is a change")
    assert.deepStrictEqual(refusal(priceOf(s, yearly, 1, s.next_billing_date, null, { proration_billing_mode: "full_immediately" })), [
      "InvalidState", `Subscription ${s.subscription_id}'s renewal is due; change its plan once the renewal has been charged`
    ])
    const priced = Either.getOrThrow(priceOf(s, yearly, 1, mid, null, { proration_billing_mode: "full_immediately" }))
    const waiting = PlanChange.awaitCharge(s, priced, paymentId)
    assert.deepStrictEqual(refusal(priceOf(waiting, yearly, 2, mid, null, { proration_billing_mode: "full_immediately" }))[0], "InvalidState")
    const held = Either.getOrThrow(Subscription.transition(s, { _tag: "ChargeFailed" }, s.next_billing_date)).next
    assert.deepStrictEqual(refusal(priceOf(held, yearly, 1, mid, null, { proration_billing_mode: "full_immediately" })), [
      "InvalidState", `Subscription ${s.subscription_id} is on_hold; its plan can change once its overdue renewal is paid`
    ])
  })

  it("a downgrade charges nothing and keeps the difference as credit, which the next renewals spend", () => {
    // 300.00 a month, half a 30-day month left, to 100.00 a month: 150.00 unused, 100.00 spent, 50.00 left.
    const s = subscribed({ price: 30000, quantity: 1, interval: "day", count: 30, category: "S" }, null, DateTime.unsafeMake("2026-03-01T00:00:00.000Z"), 0, 0)
    const cheaper = productOf({ price: 10000, quantity: 1, interval: "day", count: 30, category: "S" }, 13)
    const priced = Either.getOrThrow(priceOf(s, cheaper, 1, DateTime.unsafeMake("2026-03-16T00:00:00.000Z"), null, { proration_billing_mode: "prorated_immediately" }))
    assert.deepStrictEqual(PlanChange.immediateCharge(s, priced).line_items.map((l) => [l.type, l.proration_factor, l.amount]), [
      ["new_plan", 1, 10000],
      ["unused_time", 0.5, 15000]
    ])
    assert.deepStrictEqual([priced.charge!.amount, priced.charge!.creditApplied, priced.creditRemaining], [0, 10000, 5000])
    assert.isTrue(Payment.paidByCredit(PlanChange.changePayment(s, { ...priced, charge: priced.charge! }, paymentId, undefined, DateTime.unsafeMake(0))))
    const n = PlanChange.wouldBe(s, priced)
    assert.deepStrictEqual([Subscription.renewalCharge(n).amount, Subscription.renewalCharge(n).creditApplied], [5000, 5000])
  })
})

describe("Credit.lessCredit", () => {
  it.prop("spends at most the credit and the price, a fils at most short a line, and prices each line once", [
    fc.integer({ min: 0, max: 5_000_000 }),
    fc.integer({ min: 1, max: 50 }),
    fc.constantFrom(...Vat.Category.literals),
    vatArb,
    fc.integer({ min: 0, max: 10_000_000 })
  ], ([unit, quantity, category, vat, credit]) => {
    const input: TaxDocument.LineInput = {
      description: "Plan",
      quantity,
      unit_amount: unit,
      category,
      item_type: "S",
      item_code: null,
      ...(category === "E" ? { exemption_code: "DL8.46.1" as const } : {})
    }
    const lines = vat === null ? null : TaxDocument.price([input], vat.pricesIncludeVat)
    const amount = lines === null ? unit * quantity : TaxDocument.totals(lines.lines).gross
    const charge = Credit.lessCredit({ amount, taxLines: lines, credit, note: Credit.balanceNote("AED") })
    const covered = Math.min(credit, amount)
    assert.strictEqual(charge.amount + charge.creditApplied, amount)
    assert.isAtLeast(charge.amount, 0)
    assert.isAtMost(charge.creditApplied, covered)
    assert.isAtLeast(charge.creditApplied, covered - 1)
    if (vat === null || vat.pricesIncludeVat || Vat.rateBps(category) === 0) assert.strictEqual(charge.creditApplied, covered)
    if (charge.taxLines !== null) {
      assertPricedLines(charge.taxLines)
      assert.strictEqual(TaxDocument.totals(charge.taxLines.lines).gross, charge.amount)
    }
    if (charge.creditApplied === 0) assert.strictEqual(charge.taxLines, lines, "no credit, the lines as they were")
  }, { fastCheck: { numRuns: 300 } })

  it("a credit the VAT rounds away leaves the lines as they were, with no \"less AED 0.00\" on them", () => {
    // AED 19,960.50 + 5 % VAT: a list price one fils lower gives the same gross, so one fils of credit cannot be spent.
    const lines = TaxDocument.price([{
      description: "Plan", quantity: 1, unit_amount: 1_996_050, category: "S", item_type: "S", item_code: null
    }], false)
    const amount = TaxDocument.totals(lines.lines).gross
    const charge = Credit.lessCredit({ amount, taxLines: lines, credit: 1, note: Credit.balanceNote("AED") })
    assert.deepStrictEqual([charge.amount, charge.creditApplied], [amount, 0])
    assert.strictEqual(charge.taxLines, lines)
  })
})
