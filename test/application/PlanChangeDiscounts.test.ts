/**
 * Discount codes and plan changes through the use cases over the memory store (docs/discounts.md, "Plan changes"):
 * codes redeemed by a change (refused in words, changing nothing; shown by the preview and charged as shown; a use
 * held by the charge and counted once it succeeds, given back when it fails), the subscription's own discounts kept
 * or dropped by `preserve_on_plan_change`, a renewal's invoice showing its discount and its credit; and a property
 * over random discounts and changes.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, FastCheck as fc, Schema, TestClock } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { Discounts } from "../../src/application/Discounts.js"
import { Payments } from "../../src/application/Payments.js"
import { PlanChanges } from "../../src/application/PlanChanges.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import type { Scope } from "../../src/domain/Account.js"
import type * as Discount from "../../src/domain/Discount.js"
import type { DiscountId, SubscriptionId } from "../../src/domain/Ids.js"
import type * as PlanChange from "../../src/domain/PlanChange.js"
import type * as Product from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { vatProfile } from "../support/taxProfile.js"
import { newAccount, withEngine } from "./harness.js"

const april = "2026-04-01T00:00:00.000Z"
const mid = "2026-04-16T00:00:00.000Z"
const may = "2026-05-01T00:00:00.000Z"
const at = (iso: string) => TestClock.setTime(Date.parse(iso))

const monthly = (scope: Scope, name: string, price: number) =>
  makeProduct(scope, { name, price, billing: "recurring", billing_interval: "month" })
const createDiscount = (scope: Scope, input: Discount.DiscountCreate) => Effect.flatMap(Discounts, (d) => d.create(scope, input))
const uses = (scope: Scope, id: DiscountId) =>
  Effect.map(Effect.flatMap(Discounts, (d) => d.get(scope, id)), (d) => ({ times_used: d.times_used, held: d.held }))

/** A subscription to `product` paid with `card`, with `code` redeemed at checkout when given. */
const subscribe = (scope: Scope, product: Product.Product, code?: string, card: string = cards.visa) =>
  Effect.gen(function*() {
    const session = yield* makeSession(scope, {
      product_cart: [{ product_id: product.product_id, quantity: 1 }],
      ...(code === undefined ? {} : { discount_code: code })
    })
    const result = yield* pay(session.session_id, formWith(card))
    if (result._tag !== "Paid" || result.payment.subscription_id === null) return assert.fail("not subscribed")
    return yield* getSub(scope, result.payment.subscription_id)
  })
const getSub = (scope: Scope, id: SubscriptionId) => Effect.flatMap(Subscriptions, (s) => s.get(scope, id))
const change = (scope: Scope, id: SubscriptionId, body: PlanChange.PlanChangeRequest) =>
  Effect.flatMap(PlanChanges, (p) => p.change(scope, id, body))
const preview = (scope: Scope, id: SubscriptionId, body: PlanChange.PlanChangePreviewRequest) =>
  Effect.flatMap(PlanChanges, (p) => p.preview(scope, id, body))
const paymentsOf = (scope: Scope, id: SubscriptionId) =>
  Effect.map(Effect.flatMap(Payments, (p) => p.list(scope, { subscription_id: id, limit: 100 })), (l) => [...l.items].reverse())
const renewAt = (when: DateTime.Utc) => Effect.zipRight(TestClock.setTime(DateTime.toEpochMillis(when)), Effect.flatMap(Billing, (b) => b.runOnce()))
const refusal = <A, E extends { readonly _tag: string; readonly message: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? `${e.left._tag}: ${e.left.message}` : "accepted"
const held = (s: Subscription.Subscription) => s.discounts.map((d) => [d.code, d.cycles_remaining])

describe("discount codes on a plan change", () => {
  it.effect("refused in words (unknown, expired, used up, not for the new product, twice), changing nothing", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { test } = yield* newAccount
      const basic = yield* monthly(test, "Basic", 10000)
      const pro = yield* monthly(test, "Pro", 30000)
      const old = yield* createDiscount(test, { code: "OLD", type: "flat", amount: 100, expires_at: DateTime.unsafeMake("2026-04-10T00:00:00Z") })
      const once = yield* createDiscount(test, { code: "ONCE", type: "flat", amount: 100, usage_limit: 1 })
      yield* createDiscount(test, { code: "BASICONLY", type: "flat", amount: 100, restricted_to: [basic.product_id] })
      const sub = yield* subscribe(test, basic)
      const other = yield* subscribe(test, basic)
      yield* at(mid)
      // ONCE's only use goes to another subscription's change, made at once without a charge.
      yield* change(test, other.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "do_not_bill", discount_codes: ["once"] })
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" as const }
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["NOPE"], "DiscountNotRedeemable: discount_code: no discount has the code 'NOPE'"],
        [["OLD"], "DiscountNotRedeemable: discount_code: OLD has expired"],
        [["ONCE"], "DiscountNotRedeemable: discount_code: ONCE has been used as many times as its usage_limit allows"],
        [["BASICONLY"], "DiscountNotRedeemable: discount_code: BASICONLY applies to none of the products in this cart"],
        [["ONCE", "once"], "InvalidRequest: discount_codes.1: once is named twice"]
      ]
      for (const [codes, message] of cases) {
        assert.strictEqual(refusal(yield* Effect.either(preview(test, sub.subscription_id, { ...body, discount_codes: codes }))), message)
        assert.strictEqual(refusal(yield* Effect.either(change(test, sub.subscription_id, { ...body, discount_codes: codes }))), message)
      }
      assert.deepStrictEqual(yield* getSub(test, sub.subscription_id), sub, "a refused code changes nothing")
      assert.deepStrictEqual(yield* uses(test, once.discount_id), { times_used: 1, held: 0 })
      assert.deepStrictEqual(yield* uses(test, old.discount_id), { times_used: 0, held: 0 })
      assert.lengthOf(yield* paymentsOf(test, sub.subscription_id), 1)
      // Without a charge the code is counted at once and waits on the subscription, all its cycles, for the renewals.
      assert.deepStrictEqual(held(yield* getSub(test, other.subscription_id)), [["ONCE", null]])
    }).pipe(withEngine()))

  it.effect("the preview shows the code on the new plan; the change charges just that, counts the use once and keeps its cycles", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { test } = yield* newAccount
      const basic = yield* monthly(test, "Basic", 10000)
      const pro = yield* monthly(test, "Pro", 30000)
      const half = yield* createDiscount(test, { code: "HALF", type: "percentage", amount: 5000, subscription_cycles: 3, restricted_to: [pro.product_id] })
      const sub = yield* subscribe(test, basic)
      yield* at(mid)
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" as const, discount_codes: ["half"] }
      const shown = yield* preview(test, sub.subscription_id, body)
      // Pro's 300.00 less half, less the unused half of Basic's 100.00.
      assert.deepStrictEqual(shown.immediate_charge.discounts.map((d) => [d.code, d.amount_off]), [["HALF", 15000]])
      assert.strictEqual(shown.immediate_charge.summary.total_amount, 10000)
      assert.deepStrictEqual(held(shown.new_plan), [["HALF", 2]])
      assert.deepStrictEqual(yield* uses(test, half.discount_id), { times_used: 0, held: 0 }, "a preview holds nothing")
      const made = yield* change(test, sub.subscription_id, { ...body, quote_id: shown.quote_id })
      assert.deepStrictEqual([made.payment?.status, made.payment?.total_amount], ["succeeded", 10000])
      assert.deepStrictEqual(made.payment?.discounts.map((d) => [d.code, d.amount_off]), [["HALF", 15000]])
      const encode = Schema.encodeSync(Subscription.SubscriptionResource)
      assert.deepStrictEqual(encode(made.subscription), encode(shown.new_plan))
      assert.deepStrictEqual(yield* uses(test, half.discount_id), { times_used: 1, held: 0 })
      // Two more renewals at half, then the full price.
      for (const expected of [15000, 15000, 30000]) {
        const s = yield* getSub(test, sub.subscription_id)
        yield* renewAt(s.next_billing_date)
        const last = (yield* paymentsOf(test, sub.subscription_id)).at(-1)!
        assert.deepStrictEqual([last.billing_reason, last.total_amount], ["subscription_renewal", expected])
      }
      assert.deepStrictEqual(held(yield* getSub(test, sub.subscription_id)), [["HALF", 0]])
      assert.deepStrictEqual(yield* uses(test, half.discount_id), { times_used: 1, held: 0 }, "renewals redeem nothing")
    }).pipe(withEngine()))

  it.effect("a declined charge gives the use back: prevent_change leaves all as it was, apply_change drops the code", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { test } = yield* newAccount
      const basic = yield* monthly(test, "Basic", 10000)
      const pro = yield* monthly(test, "Pro", 30000)
      const code = yield* createDiscount(test, { code: "TENOFF", type: "flat", amount: 1000, usage_limit: 1 })
      // 0341: the first charge succeeds, every later one is declined.
      const sub = yield* subscribe(test, basic, undefined, "4000000000000341")
      yield* at(mid)
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "full_immediately" as const, discount_codes: ["TENOFF"] }
      const prevented = yield* Effect.either(change(test, sub.subscription_id, { ...body, on_payment_failure: "prevent_change" }))
      assert.strictEqual(Either.isLeft(prevented) && prevented.left._tag, "ChargeDeclined")
      assert.deepStrictEqual(yield* getSub(test, sub.subscription_id), sub)
      assert.deepStrictEqual(yield* uses(test, code.discount_id), { times_used: 0, held: 0 })
      const applied = yield* change(test, sub.subscription_id, { ...body, on_payment_failure: "apply_change" })
      assert.deepStrictEqual([applied.payment?.status, applied.payment?.total_amount], ["failed", 29000])
      assert.deepStrictEqual([applied.subscription.status, applied.subscription.product_id, held(applied.subscription)], ["on_hold", pro.product_id, []])
      assert.deepStrictEqual(yield* uses(test, code.discount_id), { times_used: 0, held: 0 })
    }).pipe(withEngine()))
})

describe("the subscription's own discounts on a plan change (preserve_on_plan_change)", () => {
  it.effect("kept when their discount says so and fits the new product, else dropped; a scheduled change decides when it applies", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { test } = yield* newAccount
      const basic = yield* monthly(test, "Basic", 10000)
      const pro = yield* monthly(test, "Pro", 30000)
      yield* createDiscount(test, { code: "KEEP", type: "percentage", amount: 1000, preserve_on_plan_change: true })
      yield* createDiscount(test, { code: "DROP", type: "percentage", amount: 1000 })
      yield* createDiscount(test, { code: "KEEPBASIC", type: "percentage", amount: 1000, preserve_on_plan_change: true, restricted_to: [basic.product_id] })
      const kept = yield* subscribe(test, basic, "KEEP")
      const dropped = yield* subscribe(test, basic, "DROP")
      const unfit = yield* subscribe(test, basic, "KEEPBASIC")
      yield* at(mid)
      const toPro = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "full_immediately" as const }
      const k = yield* change(test, kept.subscription_id, toPro)
      // The new plan's first period is a period like any: the kept discount comes off it.
      assert.deepStrictEqual([k.payment?.total_amount, held(k.subscription)], [27000, [["KEEP", null]]])
      const d = yield* change(test, dropped.subscription_id, toPro)
      assert.deepStrictEqual([d.payment?.total_amount, held(d.subscription)], [30000, []])
      const u = yield* change(test, unfit.subscription_id, { ...toPro, effective_at: "next_billing_date" })
      assert.deepStrictEqual(held(u.subscription), [["KEEPBASIC", null]], "kept until the change takes effect")
      yield* renewAt(DateTime.unsafeMake(may))
      const renewed = yield* getSub(test, unfit.subscription_id)
      assert.deepStrictEqual([renewed.product_id, held(renewed)], [pro.product_id, []])
      assert.strictEqual((yield* paymentsOf(test, unfit.subscription_id)).at(-1)!.total_amount, 30000)
    }).pipe(withEngine()))
})

describe("a renewal with a discount and credit", () => {
  it.effect("its invoice line shows the discount, and the credit in its note; the money is the same", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { account, test } = yield* newAccount
      yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: vatProfile }))
      const basic = yield* monthly(test, "Basic", 25000)
      const pro = yield* monthly(test, "Pro", 30000)
      yield* createDiscount(test, { code: "KEEP", type: "percentage", amount: 1000, preserve_on_plan_change: true })
      const sub = yield* subscribe(test, pro, "KEEP")
      yield* at(mid)
      // Pro's month as paid (less 10 %) as credit, Basic's month (less 10 %) paid from it: 45.00 left over.
      const down = yield* change(test, sub.subscription_id, { product_id: basic.product_id, quantity: 1, proration_billing_mode: "difference_immediately" })
      assert.deepStrictEqual([down.payment?.total_amount, down.subscription.credit_balance], [0, 4500])
      yield* renewAt(down.subscription.next_billing_date)
      const renewal = (yield* paymentsOf(test, sub.subscription_id)).at(-1)!
      assert.strictEqual(renewal.total_amount, 18000)
      assert.deepStrictEqual(renewal.discounts.map((x) => [x.code, x.amount_off]), [["KEEP", 2500]])
      const line = renewal.tax_lines!.lines[0]!
      assert.strictEqual(line.discount, 2500)
      assert.include(line.description, "less AED 45.00 credit")
      assert.strictEqual(line.gross, 18000)
      assert.strictEqual(renewal.tax_lines!.lines.reduce((sum, l) => sum + l.gross, 0), renewal.total_amount)
      assert.strictEqual((yield* getSub(test, sub.subscription_id)).credit_balance, 0)
    }).pipe(withEngine()))
})

describe("the old plan's credit on a plan change", () => {
  it.effect("is what its period was charged, discount off: a 50 %-off month credits half its price", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { test } = yield* newAccount
      const basic = yield* monthly(test, "Basic", 10000)
      const pro = yield* monthly(test, "Pro", 30000)
      yield* createDiscount(test, { code: "HALF", type: "percentage", amount: 5000, subscription_cycles: 1 })
      const sub = yield* subscribe(test, basic, "half")
      assert.deepStrictEqual((yield* paymentsOf(test, sub.subscription_id)).map((p) => p.total_amount), [5000])
      yield* at(mid)
      const unused = (mode: PlanChange.ProrationBillingMode) =>
        Effect.map(
          preview(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: mode }),
          (p) => [p.immediate_charge.line_items.find((l) => l.type === "unused_time")?.amount, p.immediate_charge.summary.total_amount]
        )
      // Half of the 50.00 paid is unused (not half of the 100.00 list price); difference_immediately credits the 50.00.
      assert.deepStrictEqual(yield* unused("prorated_immediately"), [2500, 27500])
      assert.deepStrictEqual(yield* unused("difference_immediately"), [5000, 25000])
      const made = yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" })
      assert.deepStrictEqual([made.payment?.total_amount, made.payment?.credit_applied], [27500, 2500])
    }).pipe(withEngine()))
})

const codeArb = fc.record({
  type: fc.constantFrom("percentage" as const, "flat" as const),
  amount: fc.integer({ min: 1, max: 10000 }),
  cycles: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  preserve: fc.boolean(),
  restricted: fc.oneof({ arbitrary: fc.constant([]), weight: 2 }, { arbitrary: fc.subarray([0, 1, 2]), weight: 1 }),
  limit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null, freq: 2 })
})
const stepArb = fc.oneof(
  { arbitrary: fc.record({
    _tag: fc.constant("change" as const),
    plan: fc.integer({ min: 0, max: 2 }),
    mode: fc.constantFrom("prorated_immediately" as const, "full_immediately" as const, "difference_immediately" as const, "do_not_bill" as const),
    scheduled: fc.boolean(),
    codes: fc.subarray([0, 1, 2, 3], { minLength: 1, maxLength: 2 }),
    into: fc.integer({ min: 1, max: 999 })
  }), weight: 3 },
  { arbitrary: fc.constant({ _tag: "renew" as const }), weight: 2 },
  { arbitrary: fc.constant({ _tag: "cancelScheduled" as const }), weight: 1 }
)

describe("random discounts × plan changes (property)", () => {
  it.effect.prop(
    "the preview is the change; nothing negative; cycles never below 0; a code's use counted once, none left held",
    { vat: fc.boolean(), codes: fc.array(codeArb, { minLength: 4, maxLength: 4 }), steps: fc.array(stepArb, { minLength: 1, maxLength: 8 }) },
    ({ codes, steps, vat }) =>
      Effect.gen(function*() {
        yield* at(april)
        const { account, test } = yield* newAccount
        if (vat) yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: vatProfile }))
        const products = yield* Effect.forEach([["Basic", 10000], ["Pro", 30000], ["Team", 45000]] as const, ([n, p]) => monthly(test, n, p))
        const discounts = yield* Effect.forEach(codes, (c, i) =>
          createDiscount(test, {
            code: `CODE${i}`,
            type: c.type,
            amount: c.type === "percentage" ? c.amount : c.amount * 5,
            subscription_cycles: c.cycles,
            usage_limit: c.limit,
            preserve_on_plan_change: c.preserve,
            restricted_to: c.restricted.map((j) => products[j]!.product_id)
          }))
        const sub = yield* subscribe(test, products[0]!)
        const id = sub.subscription_id
        const planChanges = yield* PlanChanges
        // The test's ledger: the uses each code should have counted.
        const counted = discounts.map(() => 0)
        const scheduledCodes: Array<number> = []
        for (const step of steps) {
          const s = yield* getSub(test, id)
          if (step._tag === "renew") {
            yield* renewAt(s.next_billing_date)
            scheduledCodes.length = 0
            continue
          }
          if (step._tag === "cancelScheduled") {
            if (Either.isRight(yield* Effect.either(planChanges.cancelScheduled(test, id)))) {
              for (const i of scheduledCodes) counted[i]!--
              scheduledCodes.length = 0
            }
            continue
          }
          const left = DateTime.toEpochMillis(s.next_billing_date) - DateTime.toEpochMillis(yield* DateTime.now)
          if (left > 2000) yield* TestClock.adjust(Math.floor((left * step.into) / 1000))
          const body = {
            product_id: products[step.plan]!.product_id,
            quantity: 1,
            proration_billing_mode: step.mode,
            discount_codes: step.codes.map((i) => `code${i}`),
            ...(step.scheduled ? { effective_at: "next_billing_date" as const } : {})
          }
          const shown = yield* Effect.either(planChanges.preview(test, id, body))
          if (Either.isRight(shown)) {
            // The old plan's credit is never more than its period was charged (before credit, after discounts).
            const periodPayment = (yield* paymentsOf(test, id)).filter((p) => p.status === "succeeded" && p.billing_reason !== "subscription_charge").at(-1)!
            const unused = shown.right.immediate_charge.line_items.find((l) => l.type === "unused_time")?.amount ?? 0
            assert.isAtMost(unused, periodPayment.total_amount + periodPayment.credit_applied)
          }
          const made = yield* Effect.either(planChanges.change(test, id, { ...body, ...(Either.isRight(shown) ? { quote_id: shown.right.quote_id } : {}) }))
          assert.strictEqual(Either.isRight(made), Either.isRight(shown), `preview ${refusal(shown)}, change ${refusal(made)}`)
          if (Either.isLeft(shown) && body.discount_codes.length > 0) {
            // Refused where the same change without codes is not: a code was, and it says why.
            const { discount_codes: _, ...withoutCodes } = body
            const plain = yield* Effect.either(planChanges.preview(test, id, withoutCodes))
            if (Either.isRight(plain)) assert.strictEqual(shown.left._tag, "DiscountNotRedeemable", shown.left.message)
          }
          if (Either.isLeft(shown) || Either.isLeft(made)) {
            assert.deepStrictEqual(yield* getSub(test, id), s, "a refused change changes nothing")
            continue
          }
          const encode = Schema.encodeSync(Subscription.SubscriptionResource)
          assert.deepStrictEqual(encode(made.right.subscription), encode(shown.right.new_plan))
          const payment = made.right.payment
          assert.strictEqual(payment?.total_amount ?? 0, shown.right.immediate_charge.summary.total_amount)
          assert.deepStrictEqual(payment?.discounts ?? [], shown.right.immediate_charge.discounts)
          for (const i of step.codes) counted[i]!++
          if (step.scheduled) scheduledCodes.push(...step.codes)
        }
        const final = yield* getSub(test, id)
        assert.isTrue(final.discounts.every((d) => d.cycles_remaining === null || d.cycles_remaining >= 0))
        assert.isTrue(final.credit_balance >= 0)
        for (const p of yield* paymentsOf(test, id)) {
          assert.isTrue(p.total_amount >= 0)
          assert.isTrue(p.discounts.every((d) => d.amount_off >= 0))
          if (p.tax_lines !== null) assert.strictEqual(p.tax_lines.lines.reduce((sum, l) => sum + l.gross, 0), p.total_amount)
        }
        for (const [i, d] of discounts.entries()) {
          const now = yield* uses(test, d.discount_id)
          assert.deepStrictEqual(now, { times_used: counted[i]!, held: 0 }, `CODE${i}`)
          if (d.usage_limit !== null) assert.isTrue(now.times_used <= d.usage_limit)
        }
      }).pipe(withEngine()),
    { fastCheck: { numRuns: 15 }, timeout: 60_000 }
  )
})
