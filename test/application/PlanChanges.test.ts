/**
 * Plan changes through the use case (`PlanChanges`) over the memory store, the simulated processor and TestClock:
 * each mode, a scheduled change applied by the renewal, declined charges, quotes, idempotency and a lost answer, VAT;
 * and a property over random sequences of previews, changes, cancellations and renewals that adds up the money.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, FastCheck as fc, Layer, Ref, Schema, TestClock } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { makeSimulatedProcessorMemory, SimulatedProcessor } from "../../adapters/processor/SimulatedProcessor.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { Discounts } from "../../src/application/Discounts.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { PlanChanges } from "../../src/application/PlanChanges.js"
import { Reconciliation } from "../../src/application/Reconciliation.js"
import { Products } from "../../src/application/Products.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { TaxDocuments } from "../../src/application/TaxDocuments.js"
import type { Scope } from "../../src/domain/Account.js"
import * as Event from "../../src/domain/Event.js"
import type { DiscountId, SubscriptionId } from "../../src/domain/Ids.js"
import type * as PlanChange from "../../src/domain/PlanChange.js"
import * as PlanPolicy from "../../src/domain/PlanPolicy.js"
import type * as Product from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"
import { PaymentProcessor, ProcessorUnavailable } from "../../src/ports/PaymentProcessor.js"
import { Transactions } from "../../src/ports/Transactions.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { oldPlanCredit } from "../support/credit.js"
import { vatProfile } from "../support/taxProfile.js"
import { engineOver, newAccount, withEngine } from "./harness.js"

const april = "2026-04-01T00:00:00.000Z"
const mid = "2026-04-16T00:00:00.000Z" // half of April's 30 days
const may = "2026-05-01T00:00:00.000Z"
const at = (iso: string) => TestClock.setTime(Date.parse(iso))
const iso = (d: DateTime.Utc | null) => (d === null ? null : DateTime.formatIso(d))

const monthly = (scope: Scope, name: string, price: number, extra: Partial<Product.ProductCreate> = {}) =>
  makeProduct(scope, { name, price, billing: "recurring", billing_interval: "month", ...extra })

/** A subscription to `product` (quantity 1) paid with `card` at the clock's time. */
const subscribe = (scope: Scope, product: Product.Product, card: string = cards.visa) =>
  Effect.gen(function*() {
    const session = yield* makeSession(scope, { product_cart: [{ product_id: product.product_id, quantity: 1 }] })
    const result = yield* pay(session.session_id, formWith(card))
    if (result._tag !== "Paid" || result.payment.subscription_id === null) return assert.fail("not subscribed")
    return yield* getSub(scope, result.payment.subscription_id)
  })

const getSub = (scope: Scope, id: SubscriptionId) => Effect.flatMap(Subscriptions, (s) => s.get(scope, id))
const change = (scope: Scope, id: SubscriptionId, body: PlanChange.PlanChangeRequest, key?: string) =>
  Effect.flatMap(PlanChanges, (p) => p.change(scope, id, body, key))
const preview = (scope: Scope, id: SubscriptionId, body: PlanChange.PlanChangePreviewRequest) =>
  Effect.flatMap(PlanChanges, (p) => p.preview(scope, id, body))
const paymentsOf = (scope: Scope, id: SubscriptionId) =>
  Effect.map(
    Effect.flatMap(Payments, (p) => p.list(scope, { subscription_id: id, limit: 100 })),
    (l) => [...l.items].reverse()
  )
const typesOf = (scope: Scope) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { limit: 100 })), (l) => l.items.map((e) => e.type).reverse())
const renewAt = (when: string | DateTime.Utc) =>
  Effect.zipRight(at(typeof when === "string" ? when : DateTime.formatIso(when)), Effect.flatMap(Billing, (b) => b.runOnce()))
const charges = Effect.map(Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0))), (m) => m.filter((x) => x._tag === "Charge").length)
const uses = (scope: Scope, id: DiscountId) =>
  Effect.map(Effect.flatMap(Discounts, (d) => d.get(scope, id)), (d) => ({ times_used: d.times_used, held: d.held }))
const refusal = <A, E extends { readonly _tag: string; readonly message: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? [e.left._tag, e.left.message] : ["succeeded"]

/** The subscription's fields a change moves. */
const planState = (s: Subscription.Subscription) => ({
  status: s.status,
  product_id: s.product_id,
  name: s.name,
  quantity: s.quantity,
  recurring_amount: s.recurring_amount,
  billing_interval: s.billing_interval,
  current_period_start: iso(s.current_period_start),
  next_billing_date: iso(s.next_billing_date),
  credit_balance: s.credit_balance
})

/** An account, a Basic (100.00) and a Pro (300.00) monthly plan, and a Basic subscription started on 1 April. */
const shop = (options: { readonly card?: string; readonly vat?: boolean } = {}) =>
  Effect.gen(function*() {
    yield* at(april)
    const { account, test } = yield* newAccount
    if (options.vat === true) yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: vatProfile }))
    const basic = yield* monthly(test, "Basic", 10000)
    const pro = yield* monthly(test, "Pro", 30000)
    const sub = yield* subscribe(test, basic, options.card)
    return { test, basic, pro, sub }
  })

describe("changing the plan now", () => {
  it.effect("prorated_immediately: the new month less the old one's unused half, a new period from the change", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop()
      yield* at(mid)
      const result = yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" })
      assert.deepStrictEqual(planState(result.subscription), {
        status: "active",
        product_id: pro.product_id,
        name: "Pro",
        quantity: 1,
        recurring_amount: 30000,
        billing_interval: "month",
        current_period_start: mid,
        next_billing_date: "2026-05-16T00:00:00.000Z",
        credit_balance: 0
      })
      const payment = result.payment!
      assert.deepStrictEqual(
        [payment.status, payment.total_amount, payment.billing_reason, payment.subscription_id, payment.description],
        ["succeeded", 25000, "subscription_update", sub.subscription_id, "Pro (plan change from Basic)"]
      )
      assert.deepStrictEqual(yield* typesOf(test), ["payment.succeeded", "subscription.active", "payment.succeeded", "subscription.plan_changed"])
      // The next renewal charges the new plan, in full.
      yield* renewAt("2026-05-16T00:00:00.000Z")
      assert.deepStrictEqual((yield* paymentsOf(test, sub.subscription_id)).map((p) => [p.billing_reason, p.total_amount]), [
        ["subscription_create", 10000],
        ["subscription_update", 25000],
        ["subscription_renewal", 30000]
      ])
    }).pipe(withEngine()))

  it.effect("at the instant the period starts (a frozen clock): the whole period is unused, credited in full, and renews once", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop()
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" } as const
      const quoted = yield* preview(test, sub.subscription_id, body)
      assert.deepStrictEqual([quoted.immediate_charge.summary.total_amount, quoted.immediate_charge.summary.credit_applied], [20000, 10000])
      const result = yield* change(test, sub.subscription_id, body)
      assert.deepStrictEqual(
        [result.payment?.total_amount, iso(result.subscription.current_period_start), iso(result.subscription.next_billing_date)],
        [20000, april, may]
      )
      yield* renewAt(may)
      yield* renewAt(may)
      assert.deepStrictEqual((yield* paymentsOf(test, sub.subscription_id)).map((p) => [p.billing_reason, p.total_amount]), [
        ["subscription_create", 10000],
        ["subscription_update", 20000],
        ["subscription_renewal", 30000]
      ])
    }).pipe(withEngine()))

  it.effect("full_immediately charges the new plan in full; do_not_bill charges nothing and keeps the billing date", () =>
    Effect.gen(function*() {
      const { basic, pro, sub, test } = yield* shop()
      yield* at(mid)
      const full = yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 2, proration_billing_mode: "full_immediately" })
      assert.deepStrictEqual([full.payment?.total_amount, full.subscription.recurring_amount, iso(full.subscription.current_period_start)], [60000, 60000, mid])
      yield* at("2026-04-20T00:00:00.000Z")
      const free = yield* change(test, sub.subscription_id, { product_id: basic.product_id, quantity: 1, proration_billing_mode: "do_not_bill" })
      assert.isNull(free.payment)
      assert.deepStrictEqual(planState(free.subscription), {
        ...planState(full.subscription),
        product_id: basic.product_id,
        name: "Basic",
        quantity: 1,
        recurring_amount: 10000
      })
      yield* renewAt("2026-05-16T00:00:00.000Z")
      const payments = yield* paymentsOf(test, sub.subscription_id)
      assert.deepStrictEqual(payments.map((p) => p.total_amount), [10000, 60000, 10000])
    }).pipe(withEngine()))

  it.effect("difference_immediately down: nothing charged, the difference kept as credit and spent by the renewals", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { test } = yield* newAccount
      const basic = yield* monthly(test, "Basic", 10000)
      const pro = yield* monthly(test, "Pro", 30000)
      const sub = yield* subscribe(test, pro)
      yield* at(mid)
      const before = yield* charges
      const down = yield* change(test, sub.subscription_id, { product_id: basic.product_id, quantity: 1, proration_billing_mode: "difference_immediately" })
      // 300.00 of Pro less 100.00 of Basic: 200.00 of credit, and the new month paid by credit (no card charge).
      assert.deepStrictEqual([down.payment?.status, down.payment?.total_amount, down.subscription.credit_balance], ["succeeded", 0, 20000])
      assert.strictEqual(yield* charges, before, "the card was not charged")
      yield* renewAt("2026-05-16T00:00:00.000Z")
      assert.strictEqual((yield* getSub(test, sub.subscription_id)).credit_balance, 10000)
      yield* renewAt("2026-06-16T00:00:00.000Z")
      yield* renewAt("2026-07-16T00:00:00.000Z")
      const after = yield* getSub(test, sub.subscription_id)
      assert.deepStrictEqual([after.credit_balance, after.period], [0, 4])
      assert.deepStrictEqual((yield* paymentsOf(test, sub.subscription_id)).map((p) => [p.billing_reason, p.status, p.total_amount]), [
        ["subscription_create", "succeeded", 30000],
        ["subscription_update", "succeeded", 0],
        ["subscription_renewal", "succeeded", 0],
        ["subscription_renewal", "succeeded", 0],
        ["subscription_renewal", "succeeded", 10000]
      ])
      assert.strictEqual(yield* charges, before + 1, "only the renewal credit could not pay reached the card")
      // The payments credit paid have no charge at the processor, and reconciliation knows why.
      const report = yield* Effect.flatMap(Reconciliation, (r) => r.run())
      assert.deepStrictEqual([report.ok, report.mismatches], [true, []])
    }).pipe(withEngine()))

  it.effect("the product's policy gives the mode; without a policy or a mode the change is refused and nothing changes", () =>
    Effect.gen(function*() {
      const { basic, sub, test } = yield* shop()
      const policy: PlanPolicy.PlanChangePolicy = {
        upgrade: { proration_billing_mode: "full_immediately", effective_at: "immediately" },
        downgrade: { proration_billing_mode: "do_not_bill", effective_at: "next_billing_date" }
      }
      const team = yield* monthly(test, "Team", 50000, { plan_change_policy: policy })
      yield* at(mid)
      assert.deepStrictEqual(
        refusal(yield* Effect.either(change(test, sub.subscription_id, { product_id: basic.product_id, quantity: 3 }))),
        ["InvalidRequest", `proration_billing_mode is required: product ${basic.product_id} has no plan_change_policy to take it from`]
      )
      assert.deepStrictEqual(yield* getSub(test, sub.subscription_id), sub)
      const up = yield* change(test, sub.subscription_id, { product_id: team.product_id, quantity: 1 })
      assert.deepStrictEqual([up.payment?.total_amount, up.subscription.product_id], [50000, team.product_id])
    }).pipe(withEngine()))
})

describe("a scheduled change", () => {
  it.effect("waits for the next billing date, one at a time; the renewal then applies it and charges the new plan", () =>
    Effect.gen(function*() {
      const { basic, pro, sub, test } = yield* shop()
      yield* at(mid)
      const scheduled = yield* change(test, sub.subscription_id, {
        product_id: pro.product_id,
        quantity: 2,
        proration_billing_mode: "full_immediately",
        effective_at: "next_billing_date"
      })
      assert.isNull(scheduled.payment)
      assert.deepStrictEqual(planState(scheduled.subscription), planState(sub), "nothing changes before the date")
      assert.deepStrictEqual(Schema.encodeSync(Subscription.SubscriptionResource)(scheduled.subscription).scheduled_change, {
        product_id: pro.product_id,
        quantity: 2,
        effective_at: may,
        created_at: mid
      })
      const second = yield* Effect.either(change(test, sub.subscription_id, { product_id: basic.product_id, quantity: 2, proration_billing_mode: "do_not_bill" }))
      assert.strictEqual(refusal(second)[0], "InvalidState")
      const planChanges = yield* PlanChanges
      assert.isNull((yield* planChanges.cancelScheduled(test, sub.subscription_id)).scheduled_change)
      assert.deepStrictEqual(
        refusal(yield* Effect.either(planChanges.cancelScheduled(test, sub.subscription_id))),
        ["NotFound", `Subscription ${sub.subscription_id} has no scheduled plan change`]
      )
      yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 2, proration_billing_mode: "prorated_immediately", effective_at: "next_billing_date" })
      yield* renewAt(may)
      const renewed = yield* getSub(test, sub.subscription_id)
      assert.deepStrictEqual(planState(renewed), {
        status: "active",
        product_id: pro.product_id,
        name: "Pro",
        quantity: 2,
        recurring_amount: 60000,
        billing_interval: "month",
        current_period_start: may,
        next_billing_date: "2026-06-01T00:00:00.000Z",
        credit_balance: 0
      })
      assert.isNull(renewed.scheduled_change)
      assert.deepStrictEqual((yield* paymentsOf(test, sub.subscription_id)).map((p) => [p.billing_reason, p.total_amount]), [
        ["subscription_create", 10000],
        ["subscription_renewal", 60000]
      ])
      assert.deepStrictEqual((yield* typesOf(test)).slice(-3), ["subscription.plan_changed", "payment.succeeded", "subscription.renewed"])
    }).pipe(withEngine()))
})

describe("a declined charge", () => {
  it.effect("prevent_change: 402 CARD_DECLINED, the failed payment on record, the subscription as it was", () =>
    Effect.gen(function*() {
      // 0341: the first charge succeeds, every later one is declined.
      const { pro, sub, test } = yield* shop({ card: "4000000000000341" })
      yield* at(mid)
      const declined = yield* Effect.either(change(test, sub.subscription_id, {
        product_id: pro.product_id,
        quantity: 1,
        proration_billing_mode: "prorated_immediately",
        on_payment_failure: "prevent_change"
      }))
      const payments = yield* paymentsOf(test, sub.subscription_id)
      const failed = payments[1]!
      assert.deepStrictEqual([failed.status, failed.total_amount, failed.billing_reason], ["failed", 25000, "subscription_update"])
      assert.deepStrictEqual(refusal(declined), [
        "ChargeDeclined",
        `The card was declined (card_declined), so the plan was not changed; the failed charge is payment ${failed.payment_id}`
      ])
      assert.strictEqual(Either.isLeft(declined) && declined.left.code, "CARD_DECLINED")
      assert.deepStrictEqual(yield* getSub(test, sub.subscription_id), sub)
      assert.deepStrictEqual((yield* typesOf(test)).slice(2), ["payment.failed"])
    }).pipe(withEngine()))

  it.effect("apply_change: the new plan, on hold, retried as a failed renewal for what the declined charge asked", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop({ card: "4000000000000341" })
      yield* at(mid)
      const result = yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" })
      assert.strictEqual(result.payment?.status, "failed")
      const held = result.subscription
      assert.deepStrictEqual(
        [held.status, held.product_id, held.failed_payment_attempts, iso(held.next_retry_at), iso(held.next_billing_date), held.credit_balance],
        ["on_hold", pro.product_id, 1, "2026-04-17T00:00:00.000Z", mid, 5000]
      )
      assert.deepStrictEqual((yield* typesOf(test)).slice(2), ["payment.failed", "subscription.plan_changed", "subscription.on_hold"])
      yield* renewAt("2026-04-17T00:00:00.000Z")
      const retry = (yield* paymentsOf(test, sub.subscription_id))[2]!
      assert.deepStrictEqual([retry.billing_reason, retry.total_amount, retry.status], ["subscription_renewal", 25000, "failed"])
    }).pipe(withEngine()))
})

describe("quotes, retries and lost answers", () => {
  it.effect("a quote charges exactly what the preview showed; a stale one is refused and changes nothing", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop()
      yield* at(mid)
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" } as const
      const shown = yield* preview(test, sub.subscription_id, body)
      assert.deepStrictEqual(shown.immediate_charge.summary, { total_amount: 25000, tax: null, credit_applied: 5000, credit_remaining: 0 })
      // The price changes after the preview: its quote no longer holds.
      yield* TestClock.adjust("5 minutes")
      yield* Effect.flatMap(Products, (p) => p.update(test, pro.product_id, { price: 32000 }))
      const stale = yield* Effect.either(change(test, sub.subscription_id, { ...body, quote_id: shown.quote_id }))
      assert.strictEqual(refusal(stale)[0], "InvalidState")
      assert.match(refusal(stale)[1]!, /changed since this quote/)
      assert.deepStrictEqual(yield* getSub(test, sub.subscription_id), sub)
      // A fresh preview, and the change ten minutes later at its instant: the same figures, not re-priced.
      const fresh = yield* preview(test, sub.subscription_id, body)
      yield* TestClock.adjust("10 minutes")
      const made = yield* change(test, sub.subscription_id, { ...body, quote_id: fresh.quote_id })
      assert.strictEqual(made.payment?.total_amount, fresh.immediate_charge.summary.total_amount)
      const encode = Schema.encodeSync(Subscription.SubscriptionResource)
      assert.deepStrictEqual(encode(made.subscription), encode(fresh.new_plan))
      assert.strictEqual(refusal(yield* Effect.either(change(test, sub.subscription_id, { ...body, quantity: 2, quote_id: "qt_nonsense" })))[0], "InvalidRequest")
      yield* TestClock.adjust("31 minutes")
      const late = yield* preview(test, sub.subscription_id, { ...body, quantity: 3 })
      yield* TestClock.adjust("31 minutes")
      assert.deepStrictEqual(refusal(yield* Effect.either(change(test, sub.subscription_id, { ...body, quantity: 3, quote_id: late.quote_id }))), [
        "InvalidState",
        "This quote has expired (a quote lasts 30 minutes); preview the change again"
      ])
    }).pipe(withEngine()))

  it.effect("under one Idempotency-Key a change is made and charged once; other parameters are refused", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop()
      yield* at(mid)
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" } as const
      const first = yield* change(test, sub.subscription_id, body, "upgrade-1")
      const again = yield* change(test, sub.subscription_id, body, "upgrade-1")
      assert.strictEqual(again.payment?.payment_id, first.payment?.payment_id)
      assert.strictEqual((yield* paymentsOf(test, sub.subscription_id)).length, 2)
      assert.strictEqual(refusal(yield* Effect.either(change(test, sub.subscription_id, { ...body, quantity: 2 }, "upgrade-1")))[0], "IdempotencyKeyReused")
    }).pipe(withEngine()))

  it.effect("1000: the charge's answer is lost; a lookup finds it, one payment succeeds and the change is made", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop({ card: "4000000000001000" })
      yield* at(mid)
      const result = yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "full_immediately" })
      assert.deepStrictEqual([result.payment?.status, result.subscription.product_id], ["succeeded", pro.product_id])
      const ofChange = (yield* paymentsOf(test, sub.subscription_id)).filter((p) => p.billing_reason === "subscription_update")
      assert.lengthOf(ofChange, 1)
      assert.strictEqual(yield* charges, 2, "the checkout's and the change's: nothing charged twice")
    }).pipe(withEngine()))

  it.effect("two changes at once leave one: the second waits for the first and is refused", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop()
      yield* at(mid)
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" } as const
      const both = yield* Effect.all([Effect.either(change(test, sub.subscription_id, body)), Effect.either(change(test, sub.subscription_id, body))], { concurrency: 2 })
      assert.strictEqual(both.filter(Either.isRight).length, 1)
      assert.strictEqual((yield* paymentsOf(test, sub.subscription_id)).length, 2)
    }).pipe(withEngine()))
})

/** The simulated processor, with a switch that makes saved-card charges and lookups fail as unreachable (nothing taken). */
const outage = Ref.unsafeMake(false)
const SwitchedProcessor = Layer.effect(
  PaymentProcessor,
  Effect.gen(function*() {
    const simulated = yield* makeSimulatedProcessorMemory({ live: false })
    const down = <A>(effect: Effect.Effect<A, ProcessorUnavailable>) =>
      Effect.flatMap(Ref.get(outage), (off) => (off ? Effect.fail(new ProcessorUnavailable("down")) : effect))
    return PaymentProcessor.of({
      ...simulated,
      chargeToken: (request, token) => down(simulated.chargeToken(request, token)),
      lookup: (reference) => down(simulated.lookup(reference))
    })
  })
)
const withSwitchedEngine = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(Effect.zipRight(Ref.set(outage, false), effect), engineOver(Layer.mergeAll(StoreMemory, SignerNode, SwitchedProcessor)))

describe("the processor out of reach", () => {
  it.effect("the change waits for its charge; a retry under its key once the processor is back charges once and makes it", () =>
    Effect.gen(function*() {
      const { basic, pro, sub, test } = yield* shop()
      yield* at(mid)
      yield* Ref.set(outage, true)
      const body = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "full_immediately" } as const
      const waiting = yield* change(test, sub.subscription_id, body, "upgrade-2")
      assert.strictEqual(waiting.payment?.status, "processing")
      assert.deepStrictEqual(planState(waiting.subscription), planState(sub), "not changed before the charge's outcome")
      // Meanwhile: no other change, and no renewal once due (the charge decides first).
      assert.strictEqual(refusal(yield* Effect.either(change(test, sub.subscription_id, { ...body, product_id: basic.product_id, quantity: 2 })))[0], "InvalidState")
      yield* Ref.set(outage, false)
      const retried = yield* change(test, sub.subscription_id, body, "upgrade-2")
      assert.deepStrictEqual([retried.payment?.payment_id, retried.payment?.status], [waiting.payment?.payment_id, "succeeded"])
      assert.deepStrictEqual([retried.subscription.product_id, iso(retried.subscription.current_period_start), retried.subscription.pending_change], [pro.product_id, mid, null])
      assert.strictEqual(yield* charges, 2, "the checkout's and the change's, once")
      // The lookup pass later finds nothing more to do.
      yield* TestClock.adjust("2 minutes")
      yield* Effect.flatMap(Payments, (p) => p.resolvePending())
      assert.strictEqual((yield* paymentsOf(test, sub.subscription_id)).filter((p) => p.billing_reason === "subscription_update").length, 1)
    }).pipe(withSwitchedEngine))

  it.effect("without a retry, the lookup pass records the charge's outcome and the change is made then", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop()
      yield* at(mid)
      yield* Ref.set(outage, true)
      const waiting = yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "full_immediately" })
      assert.strictEqual(waiting.payment?.status, "processing")
      // The billing date passes while the change waits: no renewal of the old plan, the charge decides first.
      yield* renewAt(may)
      assert.strictEqual((yield* paymentsOf(test, sub.subscription_id)).length, 2, "no renewal while the change waits")
      yield* Ref.set(outage, false)
      yield* TestClock.adjust("61 seconds")
      yield* Effect.flatMap(Payments, (p) => p.resolvePending())
      // Nothing was taken under its reference: the payment fails, and (apply_change) the change is made unpaid, on hold.
      const after = yield* getSub(test, sub.subscription_id)
      assert.deepStrictEqual([after.status, after.product_id, after.pending_change], ["on_hold", pro.product_id, null])
      assert.strictEqual((yield* paymentsOf(test, sub.subscription_id))[1]!.status, "failed")
    }).pipe(withSwitchedEngine))
})

/** The engine over the memory store, counting the transactions begun (a nested `transact` joins, and is not counted). */
const begun = Ref.unsafeMake(0)
const CountedTransactions = Layer.effect(
  Transactions,
  Effect.map(Transactions, (t) =>
    Transactions.of({
      ...t,
      transact: (effect) =>
        Effect.flatMap(t.inTransaction, (inside) =>
          inside ? t.transact(effect) : Effect.zipRight(Ref.update(begun, (n) => n + 1), t.transact(effect)))
    }))
)
const withCountedEngine = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(
    effect,
    engineOver(Layer.mergeAll(CountedTransactions.pipe(Layer.provideMerge(StoreMemory)), SignerNode, SimulatedProcessor))
  )

describe("changes asked at once", () => {
  it.effect("share their transactions, each made as if alone: one charge each, one change of a subscription, a code's last use once, a refused key free", () =>
    Effect.gen(function*() {
      yield* at(april)
      const { live, test } = yield* newAccount
      const basic = yield* monthly(test, "Basic", 10000)
      const pro = yield* monthly(test, "Pro", 30000)
      const once = yield* Effect.flatMap(Discounts, (d) => d.create(test, { code: "ONCE", type: "flat", amount: 100, usage_limit: 1 }))
      const subs = yield* Effect.forEach(Array.from({ length: 8 }), () => subscribe(test, basic))
      yield* at(mid)
      const up = { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" } as const
      const unknown = { ...up, product_id: `pdt_${"0".repeat(32)}` }
      // Previews at once from two scopes naming one subscription: each reads in its own (the other's is not found).
      const [other, own] = yield* Effect.all([
        Effect.either(preview(live, subs[2]!.subscription_id, up)),
        preview(test, subs[2]!.subscription_id, up)
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual([refusal(other)[0], own.immediate_charge.summary.total_amount], ["NotFound", 25000])
      const asks = [
        // The last two name a code with one use left.
        ...subs.map((s, i) => change(test, s.subscription_id, i < 6 ? up : { ...up, discount_codes: ["ONCE"] }, `up-${i}`)),
        // A second change of the first subscription, and one of the second to a product there is not.
        change(test, subs[0]!.subscription_id, { ...up, quantity: 2 }, "again"),
        change(test, subs[1]!.subscription_id, unknown, "unknown")
      ]
      const before = yield* Ref.get(begun)
      const results = yield* Effect.all(asks.map(Effect.either), { concurrency: "unbounded" })
      // One change alone takes two transactions (its reservation, its charge's record); at once, they share them.
      assert.isBelow((yield* Ref.get(begun)) - before, asks.length)

      const firstTwo = [results[0]!, results[8]!]
      assert.strictEqual(firstTwo.filter(Either.isRight).length, 1, "one change of the first subscription is made")
      assert.match(refusal(firstTwo.find(Either.isLeft)!)[1]!, /is waiting for its payment/)
      assert.deepStrictEqual(refusal(results[9]!), ["InvalidRequest", `product_id: no product '${unknown.product_id}' in this account and mode`])
      const withCode = [results[6]!, results[7]!]
      assert.deepStrictEqual(withCode.filter(Either.isLeft).map(refusal), [
        ["DiscountNotRedeemable", "discount_code: ONCE has been used as many times as its usage_limit allows"]
      ])
      assert.deepStrictEqual(yield* uses(test, once.discount_id), { times_used: 1, held: 0 }, "its one use, counted once")
      for (const [i, s] of subs.entries()) {
        const result = i === 0 ? firstTwo.find(Either.isRight)! : results[i]!
        const ofChange = (yield* paymentsOf(test, s.subscription_id)).filter((p) => p.billing_reason === "subscription_update")
        if (Either.isLeft(result)) {
          assert.deepStrictEqual([yield* getSub(test, s.subscription_id), ofChange.length], [s, 0], "a refused change changes nothing")
          continue
        }
        const made = result.right
        // Pro's month less Basic's unused half; 550.00 for two; 100 fils less with the code.
        const amount = i === 0 && made.subscription.quantity === 2 ? 55000 : i >= 6 ? 24900 : 25000
        assert.deepStrictEqual([made.payment?.status, made.payment?.total_amount], ["succeeded", amount])
        assert.deepStrictEqual(made.subscription, yield* getSub(test, s.subscription_id))
        assert.deepStrictEqual([made.subscription.product_id, iso(made.subscription.current_period_start)], [pro.product_id, mid])
        assert.lengthOf(ofChange, 1, "one charge per subscription")
      }
      assert.strictEqual(yield* charges, 15, "eight checkouts and seven changes")
      // The refused change gave its key back: asked again it is refused again (not answered as made), and the key
      // then serves a change that can be made.
      assert.deepStrictEqual(refusal(yield* Effect.either(change(test, subs[1]!.subscription_id, unknown, "unknown")))[0], "InvalidRequest")
      yield* TestClock.adjust("1 day")
      const later = yield* change(test, subs[1]!.subscription_id, { ...up, quantity: 3, proration_billing_mode: "do_not_bill" }, "unknown")
      assert.strictEqual(later.subscription.quantity, 3)
    }).pipe(withCountedEngine))
})

describe("with VAT", () => {
  it.effect("the change's tax invoice shows the proration on its line; plan_changed goes only to endpoints naming it", () =>
    Effect.gen(function*() {
      const { pro, sub, test } = yield* shop({ vat: true })
      yield* at(mid)
      const shown = yield* preview(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" })
      assert.deepStrictEqual(shown.immediate_charge.line_items.map((l) => [l.type, l.amount, l.tax, l.proration_factor]), [
        ["new_plan", 30000, 1429, 1],
        ["unused_time", 5000, 238, 0.5]
      ])
      const result = yield* change(test, sub.subscription_id, { product_id: pro.product_id, quantity: 1, proration_billing_mode: "prorated_immediately", quote_id: shown.quote_id })
      const payment = result.payment!
      const [invoice] = (yield* Effect.flatMap(TaxDocuments, (d) => d.invoices(test, { payment_id: payment.payment_id }))).items
      assert.deepStrictEqual(invoice!.lines.map((l) => [l.description, l.quantity, l.unit_amount, l.net, l.vat, l.gross]), [
        ["Pro, less AED 50.00 credit, AED 50.00 of it for the unused time of Basic", 1, 25000, 23810, 1190, 25000]
      ])
      assert.deepStrictEqual([invoice!.totals.gross, payment.tax, shown.immediate_charge.summary.tax], [25000, 1190, 1190])
      assert.deepStrictEqual([iso(invoice!.period!.start), iso(invoice!.period!.end)], [mid, "2026-05-16T00:00:00.000Z"])
      assert.include(Event.byNameOnly, "subscription.plan_changed")
      assert.notInclude(Event.defaultEventTypes, "subscription.plan_changed")
    }).pipe(withEngine()))
})

// Sequences ----------------------------------------------------------------------------------------------------------

const plans = [
  { name: "Basic", price: 10000, billing_interval: "month" },
  { name: "Pro", price: 30000, billing_interval: "month" },
  { name: "Yearly", price: 250000, billing_interval: "year" },
  { name: "Weekly", price: 2999, billing_interval: "week" }
] as const

const stepArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("change" as const),
      plan: fc.integer({ min: 0, max: plans.length - 1 }),
      quantity: fc.integer({ min: 1, max: 3 }),
      mode: fc.constantFrom(...PlanPolicy.ProrationBillingMode.literals),
      scheduled: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      /** Where the change is made in what is left of the period, in thousandths. */
      into: fc.integer({ min: 1, max: 998 })
    })
  },
  { weight: 2, arbitrary: fc.constant({ _tag: "renew" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "cancelScheduled" as const }) }
)

describe("sequences of changes and renewals (property)", () => {
  it.effect.prop(
    "money charged is what the periods, the prorations and the credit say; no credit used twice, no period paid twice",
    {
      vat: fc.constantFrom(null, true, false),
      start: fc.integer({ min: Date.parse("2025-01-01T00:00:00Z"), max: Date.parse("2029-12-31T00:00:00Z") }),
      steps: fc.array(stepArb, { minLength: 1, maxLength: 12 })
    },
    ({ start, steps, vat }) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const { account, test } = yield* newAccount
        if (vat !== null) {
          yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: { ...vatProfile, prices_include_vat: vat } }))
        }
        const products = yield* Effect.forEach(plans, (p) => makeProduct(test, { ...p, billing: "recurring" }))
        const first = yield* subscribe(test, products[0]!)
        const id = first.subscription_id
        const planChanges = yield* PlanChanges
        // The test's own ledger: the credit the subscription should hold, and what each paid period's plan costs.
        let credit = 0
        // What the current period was charged before credit: the old plan's credit is a share of it, never of a price
        // the period was not paid at (a `do_not_bill` change), and never more than the plan's price.
        let periodBase = (yield* paymentsOf(test, id))[0]!.total_amount
        let periodsPaid = 0
        let fullPrices = 0
        let unusedCredits = 0

        for (const step of steps) {
          const s = yield* getSub(test, id)
          if (step._tag === "renew") {
            const due = s.next_billing_date
            const before = (yield* paymentsOf(test, id)).length
            yield* renewAt(due)
            const after = yield* getSub(test, id)
            const made = (yield* paymentsOf(test, id)).slice(before)
            assert.lengthOf(made, 1, "a due renewal charges once")
            const renewal = made[0]!
            assert.strictEqual(renewal.status, "succeeded")
            // The renewal of the plan now on the subscription (a scheduled change applied first).
            const spent = after.recurring_amount - renewal.total_amount
            assert.isTrue(spent >= 0 && spent <= credit, `credit spent ${spent} of ${credit}`)
            credit -= spent
            periodBase = after.recurring_amount
            periodsPaid++
            fullPrices += after.recurring_amount
            assert.strictEqual(after.credit_balance, credit)
            continue
          }
          if (step._tag === "cancelScheduled") {
            const r = yield* Effect.either(planChanges.cancelScheduled(test, id))
            assert.strictEqual(Either.isRight(r), s.scheduled_change !== null)
            continue
          }
          // A change somewhere in what is left of the period (never at or past its end).
          const now = yield* DateTime.now
          const end = DateTime.toEpochMillis(s.next_billing_date)
          const left = end - DateTime.toEpochMillis(now)
          if (left > 2000) yield* TestClock.adjust(Math.floor((left * step.into) / 1000))
          const body = {
            product_id: products[step.plan]!.product_id,
            quantity: step.quantity,
            proration_billing_mode: step.mode,
            ...(step.scheduled ? { effective_at: "next_billing_date" as const } : {})
          }
          const shown = yield* Effect.either(planChanges.preview(test, id, body))
          const made = yield* Effect.either(planChanges.change(test, id, {
            ...body,
            ...(Either.isRight(shown) ? { quote_id: shown.right.quote_id } : {})
          }))
          // Preview and change agree: both refuse, or the change does what the preview showed.
          assert.strictEqual(Either.isRight(made), Either.isRight(shown))
          if (Either.isLeft(shown) || Either.isLeft(made)) {
            assert.deepStrictEqual(yield* getSub(test, id), s, "a refused change changes nothing")
            continue
          }
          const encode = Schema.encodeSync(Subscription.SubscriptionResource)
          assert.deepStrictEqual(encode(made.right.subscription), encode(shown.right.new_plan))
          const summary = shown.right.immediate_charge.summary
          const payment = made.right.payment
          if (payment === null) {
            assert.deepStrictEqual([summary.total_amount, summary.credit_applied, summary.credit_remaining], [0, 0, credit])
            continue
          }
          assert.deepStrictEqual([payment.status, payment.total_amount, payment.tax], ["succeeded", summary.total_amount, summary.tax])
          const unused = oldPlanCredit(s, step.mode, periodBase, yield* DateTime.now)
          const full = made.right.subscription.recurring_amount
          const spent = full - payment.total_amount
          assert.isTrue(spent >= 0 && spent <= credit + unused, "credit spent is credit there was")
          credit = credit + unused - spent
          periodBase = full
          unusedCredits += unused
          periodsPaid++
          fullPrices += full
          assert.strictEqual(made.right.subscription.credit_balance, credit)
          assert.strictEqual(summary.credit_remaining, credit)
        }

        // Every period is paid once: by the first payment, then one succeeded charge each.
        const final = yield* getSub(test, id)
        const payments = yield* paymentsOf(test, id)
        const paid = payments.filter((p) => p.status === "succeeded" && p.billing_reason !== "subscription_create")
        assert.strictEqual(paid.length, periodsPaid)
        assert.strictEqual(final.period, periodsPaid)
        assert.isTrue(payments.every((p) => p.total_amount >= 0))
        // What the card paid is what the periods cost, less the old plans' credit still unspent or spent.
        const charged = paid.reduce((sum, p) => sum + p.total_amount, 0)
        assert.strictEqual(charged, fullPrices - unusedCredits + final.credit_balance)
        assert.strictEqual(final.credit_balance, credit)
      }).pipe(withEngine()),
    { fastCheck: { numRuns: 20 }, timeout: 60_000 }
  )
})
