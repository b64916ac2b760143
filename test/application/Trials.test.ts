/**
 * Trials and on-demand charges over the memory store with TestClock (docs/subscriptions.md): a free trial saves the
 * card and charges nothing, a paid trial charges its price, a refusing card starts nothing, the first renewal is at the
 * trial's end (with its dunning when declined), a cancellation during the trial charges nothing; an on-demand charge
 * of the saved card is charged once, whatever becomes of the processor's answer or the process.
 *
 * The processor is the simulated one, wrapped so that a test can make the process "die" right after a saved-card charge
 * reached the processor (the charge taken, its answer never recorded).
 */
import { EInvoiceAdapters } from "../../adapters/einvoice/ProviderConfig.js"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, DateTime, Effect, Either, Exit, Layer, Option, Ref, TestClock } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { WebhookTransportHttp } from "../../adapters/webhooks/WebhookTransportHttp.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Discounts } from "../../src/application/Discounts.js"
import { Engine } from "../../src/application/Engine.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { SubscriptionCharges } from "../../src/application/SubscriptionCharges.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { TaxDocuments } from "../../src/application/TaxDocuments.js"
import type { Scope } from "../../src/domain/Account.js"
import type * as Discount from "../../src/domain/Discount.js"
import type { SubscriptionId } from "../../src/domain/Ids.js"
import type * as Product from "../../src/domain/Product.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { cards, formWith, makeProduct, makeSession, pay, storedSession } from "../support/checkout.js"
import { vatProfile } from "../support/taxProfile.js"
import { newAccount } from "./harness.js"

// A processor whose process can "die" after a saved-card charge ----------------------------------------------------------

class Crash extends Context.Tag("test/Crash")<Crash, Ref.Ref<boolean>>() {}

/** The simulated processor; with `Crash` set, a saved-card charge is made and then the caller dies before its answer. */
const CrashingProcessor = Layer.effect(
  PaymentProcessor,
  Effect.gen(function*() {
    const crash = yield* Crash
    const simulated = yield* makeSimulatedProcessorMemory({ live: false })
    return PaymentProcessor.of({
      ...simulated,
      chargeToken: (request, token) =>
        Effect.flatMap(simulated.chargeToken(request, token), (result) =>
          Effect.flatMap(Ref.getAndSet(crash, false), (dies) => dies ? Effect.die("the process died") : Effect.succeed(result)))
    })
  })
)

const engine = Engine.pipe(
  Layer.provideMerge(Layer.mergeAll(StoreMemory, SignerNode, CrashingProcessor, WebhookTransportHttp, EInvoiceAdapters)),
  Layer.provideMerge(Layer.effect(Crash, Ref.make(false))),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
)
const withEngine = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, engine)

// Helpers -------------------------------------------------------------------------------------------------------------------

const day = 86_400_000
const t0 = "2026-01-31T10:00:00.000Z"
const at = (iso: string) => TestClock.setTime(Date.parse(iso))
const after = (iso: string, days: number, extraMillis = 0) => new Date(Date.parse(iso) + days * day + extraMillis).toISOString()
const iso = (d: DateTime.Utc | null) => (d === null ? null : DateTime.formatIso(d))
const runBilling = Effect.flatMap(Billing, (b) => b.runOnce())

/** Every charge the processor made (or holds) since the start of time. */
const processorCharges = Effect.map(
  Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0))),
  (ms) => ms.filter((m) => m._tag === "Charge" && m.chargeId.startsWith("ch_sim_"))
)
const paymentsOf = (scope: Scope) =>
  Effect.map(Effect.flatMap(Payments, (p) => p.list(scope, { limit: 100 })), (l) => [...l.items].reverse())
const typesOf = (scope: Scope) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { limit: 100 })), (l) => [...l.items].reverse().map((e) => e.type))
const getSub = (scope: Scope, id: SubscriptionId) => Effect.flatMap(Subscriptions, (s) => s.get(scope, id))
const invoicesOf = (scope: Scope) =>
  Effect.map(
    Effect.flatMap(TaxDocuments, (t) => t.listInvoices(scope, {}, { limit: 100, after: undefined })),
    (page) => page.items
  )

/** A recurring product with a trial, a session over it, and the page's form submitted with `card`. */
const trialCheckout = (scope: Scope, options: {
  readonly card?: string
  readonly trialDays?: number
  readonly trialAmount?: number | null
  readonly price?: number
  readonly quantity?: number
  readonly product?: Partial<Product.ProductCreate>
  readonly override?: number | null
} = {}) =>
  Effect.gen(function*() {
    const product = yield* makeProduct(scope, {
      name: "Coffee club",
      price: options.price ?? 9900,
      billing: "recurring",
      billing_interval: "month",
      trial_period_days: options.trialDays ?? 14,
      trial_amount: options.trialAmount ?? null,
      ...options.product
    })
    const session = yield* makeSession(scope, {
      product_cart: [{ product_id: product.product_id, quantity: options.quantity ?? 1 }],
      ...(options.override === undefined ? {} : { subscription_data: { trial_period_days: options.override } })
    })
    const result = yield* pay(session.session_id, formWith(options.card ?? cards.visa))
    return { product, session, result }
  })

const started = (result: Effect.Effect.Success<ReturnType<typeof trialCheckout>>["result"]) =>
  result._tag === "Started" ? result : assert.fail(`expected a started trial, got ${result._tag}`)

// Trials ------------------------------------------------------------------------------------------------------------------

describe("free trial", () => {
  it.effect("saves the card and charges nothing: the session completes, the subscription is active in its trial", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { account, test } = yield* newAccount
      yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: vatProfile }))
      const { session: created, result } = yield* trialCheckout(test, { trialDays: 14, quantity: 2 })
      assert.deepStrictEqual(
        [created.kind, created.trial_period_days, created.total_amount, created.tax],
        ["subscription", 14, 0, 0],
        "nothing is due today"
      )
      const { session, subscription: sub } = started(result)
      assert.deepStrictEqual(
        [session.status, session.payment_id, session.subscription_id, iso(session.completed_at)],
        ["complete", null, sub.subscription_id, t0]
      )
      const trialEnd = after(t0, 14)
      assert.deepStrictEqual(
        {
          status: sub.status,
          trial_period_days: sub.trial_period_days,
          trial_ends_at: iso(sub.trial_ends_at),
          current_period_start: iso(sub.current_period_start),
          next_billing_date: iso(sub.next_billing_date),
          recurring_amount: sub.recurring_amount,
          payment_method: sub.payment_method
        },
        {
          status: "active",
          trial_period_days: 14,
          trial_ends_at: trialEnd,
          current_period_start: t0,
          next_billing_date: trialEnd,
          recurring_amount: 19_800, // the price × 2 (VAT included in this merchant's prices)
          payment_method: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2090 }
        }
      )
      assert.deepStrictEqual(yield* paymentsOf(test), [], "no payment")
      assert.deepStrictEqual(yield* processorCharges, [], "nothing was charged at the processor")
      assert.deepStrictEqual(yield* typesOf(test), ["subscription.active"])
      assert.deepStrictEqual(yield* invoicesOf(test), [], "a free trial issues no tax invoice")
      // The subscription reads as stored, with its trial.
      const read = yield* getSub(test, sub.subscription_id)
      assert.strictEqual(iso(read.trial_ends_at), trialEnd)
      // The page posted again: the session is complete, nothing more happens.
      const again = yield* Effect.either(pay(session.session_id, formWith(cards.visa)))
      assert.isTrue(Either.isLeft(again))
      assert.deepStrictEqual(yield* typesOf(test), ["subscription.active"])
    }).pipe(withEngine))

  it.effect("a card its issuer refuses starts nothing: the session stays open, no payment, no event", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      for (const [card, code] of [[cards.declined, "card_declined"], [cards.expiredCard, "expired_card"]] as const) {
        const { result, session } = yield* trialCheckout(test, { card })
        assert.deepStrictEqual(result._tag === "Refused" ? [result._tag, result.code] : [result._tag], ["Refused", code])
        const after = yield* Effect.flatMap(Checkout, (c) => c.get(test, session.session_id))
        assert.deepStrictEqual([after.status, after.payment_id, after.subscription_id], ["open", null, null])
      }
      assert.deepStrictEqual((yield* Effect.flatMap(Subscriptions, (s) => s.list(test, {}))).items, [])
      assert.deepStrictEqual(yield* paymentsOf(test), [])
      assert.deepStrictEqual(yield* typesOf(test), [])
    }).pipe(withEngine))

  it.effect("the first renewal is at the trial's end; declined, it enters dunning from there", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      // 0341 saves (its issuer verifies it) and declines every charge after.
      const { subscription } = started((yield* trialCheckout(test, { card: cards.declineLater, trialDays: 7 })).result)
      const trialEnd = after(t0, 7)
      yield* at(after(t0, 7, -1))
      const early = yield* runBilling
      assert.strictEqual(early.renewals_charged, 0, "nothing is due a moment before the trial ends")
      yield* at(trialEnd)
      assert.strictEqual((yield* runBilling).renewals_charged, 1)
      let sub = yield* getSub(test, subscription.subscription_id)
      assert.deepStrictEqual(
        [sub.status, sub.failed_payment_attempts, iso(sub.next_retry_at)],
        ["on_hold", 1, after(trialEnd, 1)]
      )
      const [renewal] = yield* paymentsOf(test)
      assert.deepStrictEqual(
        [renewal!.billing_reason, renewal!.status, renewal!.total_amount],
        ["subscription_renewal", "failed", 9900]
      )
      for (const retryDay of [1, 3, 5]) {
        yield* at(after(trialEnd, retryDay))
        assert.strictEqual((yield* runBilling).renewals_charged, 1, `the day-${retryDay} retry`)
      }
      sub = yield* getSub(test, subscription.subscription_id)
      assert.deepStrictEqual([sub.status, sub.cancellation_reason], ["cancelled", "payment_failed"])
      assert.deepStrictEqual(yield* typesOf(test), [
        "subscription.active",
        "payment.failed",
        "subscription.on_hold",
        "payment.failed",
        "payment.failed",
        "payment.failed",
        "subscription.cancelled"
      ])
    }).pipe(withEngine))

  it.effect("paid renewals count from the trial's end: then every interval from there", () =>
    Effect.gen(function*() {
      yield* at(t0) // 31 January: the trial of 30 days ends on 2 March, which becomes the day renewals keep
      const { test } = yield* newAccount
      const { subscription } = started((yield* trialCheckout(test, { trialDays: 30 })).result)
      const trialEnd = "2026-03-02T10:00:00.000Z"
      assert.strictEqual(iso(subscription.next_billing_date), trialEnd)
      for (const [when, next] of [[trialEnd, "2026-04-02T10:00:00.000Z"], ["2026-04-02T10:00:00.000Z", "2026-05-02T10:00:00.000Z"]]) {
        yield* at(when!)
        assert.strictEqual((yield* runBilling).renewals_charged, 1)
        const sub = yield* getSub(test, subscription.subscription_id)
        assert.deepStrictEqual([iso(sub.current_period_start), iso(sub.next_billing_date)], [when, next])
      }
      const payments = yield* paymentsOf(test)
      assert.deepStrictEqual(payments.map((p) => [p.billing_reason, p.status, p.total_amount]), [
        ["subscription_renewal", "succeeded", 9900],
        ["subscription_renewal", "succeeded", 9900]
      ])
      assert.strictEqual((yield* processorCharges).length, 2)
    }).pipe(withEngine))

  it.effect("cancelling during the trial charges nothing, now or at the trial's end", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      const now = started((yield* trialCheckout(test)).result).subscription
      const atEnd = started((yield* trialCheckout(test)).result).subscription
      yield* at(after(t0, 3))
      const subscriptions = yield* Subscriptions
      yield* subscriptions.update(test, now.subscription_id, { status: "cancelled" })
      yield* subscriptions.update(test, atEnd.subscription_id, { cancel_at_period_end: true })
      for (const days of [14, 60]) {
        yield* at(after(t0, days))
        assert.strictEqual((yield* runBilling).renewals_charged, 0)
      }
      const ended = yield* getSub(test, atEnd.subscription_id)
      assert.deepStrictEqual(
        [ended.status, ended.cancellation_reason, iso(ended.cancelled_at)],
        ["cancelled", "requested", after(t0, 14)],
        "ends when its trial does"
      )
      assert.deepStrictEqual(yield* paymentsOf(test), [])
      assert.deepStrictEqual(yield* processorCharges, [])
    }).pipe(withEngine))

  it.effect("a session overrides the trial: days on a product without one; 0 charges in full; refused on a payment cart", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      const given = yield* trialCheckout(test, { trialDays: 0, override: 3 })
      assert.strictEqual(given.session.trial_period_days, 3)
      assert.strictEqual(iso(started(given.result).subscription.trial_ends_at), after(t0, 3))
      const none = yield* trialCheckout(test, { trialDays: 30, override: 0 })
      assert.deepStrictEqual([none.session.trial_period_days, none.session.total_amount], [null, 9900])
      assert.strictEqual(none.result._tag, "Paid")
      const oneTime = yield* makeProduct(test, { price: 2500 })
      const refused = yield* Effect.either(makeSession(test, {
        product_cart: [{ product_id: oneTime.product_id }],
        subscription_data: { trial_period_days: 7 }
      }))
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "InvalidRequest")
      assert.match(Either.isLeft(refused) ? refused.left.message : "", /exactly one recurring product/)
    }).pipe(withEngine))
})

describe("trials and discount codes", () => {
  /** A code for the first two payments after a trial, which one customer may redeem. */
  const welcome = (scope: Scope) =>
    Effect.flatMap(Discounts, (d) => d.create(scope, { code: "WELCOME", type: "percentage", amount: 1000, subscription_cycles: 2, usage_limit: 1 }))
  const club = (scope: Scope, trial?: Partial<Product.ProductCreate>) =>
    makeProduct(scope, { name: "Coffee club", price: 9900, billing: "recurring", billing_interval: "month", trial_period_days: 14, ...trial })
  const timesUsed = (scope: Scope, id: Discount.Discount["discount_id"]) =>
    Effect.map(Effect.flatMap(Discounts, (d) => d.get(scope, id)), (d) => d.times_used)

  it.effect("a free trial redeems a code and takes nothing off; its cycles are the first payments after the trial", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      const code = yield* welcome(test)
      const product = yield* club(test)
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }], discount_code: "welcome" })
      assert.deepStrictEqual(
        [session.total_amount, session.discounts.map((d) => [d.code, d.amount_off, d.subscription_cycles])],
        [0, [["WELCOME", 0, 2]]],
        "nothing due today; the code is on the session"
      )
      const { subscription } = started(yield* pay(session.session_id, formWith(cards.visa)))
      assert.deepStrictEqual(subscription.discounts.map((d) => [d.code, d.cycles_remaining]), [["WELCOME", 2]], "no cycle used by the trial")
      assert.strictEqual(yield* timesUsed(test, code.discount_id), 1, "counted when the trial started")
      const usedUp = yield* Effect.either(makeSession(test, { product_cart: [{ product_id: product.product_id }], discount_code: "WELCOME" }))
      assert.isTrue(Either.isLeft(usedUp), "its usage limit holds across trials")
      // The first two renewals after the trial are 10 % off, the third is not.
      const trialEnd = after(t0, 14)
      for (const when of [trialEnd, "2026-03-14T10:00:00.000Z", "2026-04-14T10:00:00.000Z"]) {
        yield* at(when)
        assert.strictEqual((yield* runBilling).renewals_charged, 1, when)
      }
      assert.deepStrictEqual((yield* paymentsOf(test)).map((p) => [p.billing_reason, p.status, p.total_amount]), [
        ["subscription_renewal", "succeeded", 8910],
        ["subscription_renewal", "succeeded", 8910],
        ["subscription_renewal", "succeeded", 9900]
      ])
      const sub = yield* getSub(test, subscription.subscription_id)
      assert.deepStrictEqual(sub.discounts.map((d) => d.cycles_remaining), [0])
    }).pipe(withEngine))

  it.effect("a code typed on a trial's page is kept and redeemed; a paid trial is charged its own price, undiscounted", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      const code = yield* welcome(test)
      const product = yield* club(test, { trial_period_days: 7, trial_amount: 500 })
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
      const stored = yield* storedSession(session.session_id)
      const typed = yield* Effect.flatMap(Checkout, (c) => c.applyCode(session.session_id, stored.form_token, "welcome"))
      assert.deepStrictEqual([typed.total_amount, typed.discounts.map((d) => [d.code, d.amount_off])], [500, [["WELCOME", 0]]])
      const result = yield* pay(session.session_id, formWith(cards.visa))
      if (result._tag !== "Paid") return assert.fail(`expected a payment, got ${result._tag}`)
      assert.deepStrictEqual([result.payment.total_amount, result.payment.status], [500, "succeeded"], "the trial's price, in full")
      assert.strictEqual(yield* timesUsed(test, code.discount_id), 1, "counted with the trial's payment")
      const sub = yield* getSub(test, result.payment.subscription_id!)
      assert.deepStrictEqual(sub.discounts.map((d) => d.cycles_remaining), [2])
      yield* at(after(t0, 7))
      assert.strictEqual((yield* runBilling).renewals_charged, 1)
      assert.deepStrictEqual((yield* paymentsOf(test)).map((p) => p.total_amount), [500, 8910])
    }).pipe(withEngine))

  it.effect("a trial's checkout declined holds no use of its code", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      const code = yield* welcome(test)
      const product = yield* club(test)
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }], discount_code: "WELCOME" })
      const refused = yield* pay(session.session_id, formWith(cards.declined))
      assert.strictEqual(refused._tag, "Refused")
      assert.deepStrictEqual(
        yield* Effect.map(Effect.flatMap(Discounts, (d) => d.get(test, code.discount_id)), (d) => [d.times_used, d.held]),
        [0, 0]
      )
    }).pipe(withEngine))
})

describe("paid trial", () => {
  it.effect("charges the trial's price (subscription_create) with its tax invoice; renews in full at the trial's end", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { account, test } = yield* newAccount
      // Prices exclude VAT: 5% is added to what is charged.
      yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: { ...vatProfile, prices_include_vat: false } }))
      const { result, session: created } = yield* trialCheckout(test, { trialDays: 7, trialAmount: 500, quantity: 2, price: 10_000 })
      assert.deepStrictEqual([created.trial_period_days, created.total_amount, created.tax], [7, 1050, 50])
      if (result._tag !== "Paid") return assert.fail(`expected a payment, got ${result._tag}`)
      const { payment } = result
      assert.deepStrictEqual(
        [payment.billing_reason, payment.status, payment.total_amount, payment.tax],
        ["subscription_create", "succeeded", 1050, 50]
      )
      const sub = yield* getSub(test, payment.subscription_id!)
      assert.deepStrictEqual(
        [sub.trial_period_days, iso(sub.trial_ends_at), iso(sub.next_billing_date), sub.recurring_amount],
        [7, after(t0, 7), after(t0, 7), 21_000],
        "renews at the full price with VAT, from the trial's end"
      )
      let invoices = yield* invoicesOf(test)
      assert.strictEqual(invoices.length, 1)
      assert.deepStrictEqual(
        [invoices[0]!.payment_id, invoices[0]!.totals.gross, iso(invoices[0]!.period?.start ?? null), iso(invoices[0]!.period?.end ?? null)],
        [payment.payment_id, 1050, t0, after(t0, 7)],
        "the trial's invoice covers the trial"
      )
      yield* at(after(t0, 7))
      assert.strictEqual((yield* runBilling).renewals_charged, 1)
      const renewal = (yield* paymentsOf(test)).at(-1)!
      assert.deepStrictEqual([renewal.billing_reason, renewal.status, renewal.total_amount], ["subscription_renewal", "succeeded", 21_000])
      invoices = yield* invoicesOf(test)
      assert.strictEqual(invoices.length, 2)
      assert.deepStrictEqual(yield* typesOf(test), [
        "payment.succeeded",
        "subscription.active",
        "invoice.issued",
        "payment.succeeded",
        "subscription.renewed",
        "invoice.issued"
      ])
    }).pipe(withEngine))
})

// On-demand charges ------------------------------------------------------------------------------------------------------

/** A subscription paid at checkout with `card`, at t0. */
const subscribed = (scope: Scope, card: string = cards.visa) =>
  Effect.gen(function*() {
    const product = yield* makeProduct(scope, { name: "Coffee club", price: 9900, billing: "recurring", billing_interval: "month" })
    const session = yield* makeSession(scope, { product_cart: [{ product_id: product.product_id }] })
    const result = yield* pay(session.session_id, formWith(card))
    if (result._tag !== "Paid" || result.payment.subscription_id === null) return assert.fail("not subscribed")
    return yield* getSub(scope, result.payment.subscription_id)
  })

describe("on-demand charges", () => {
  it.effect("charge the saved card now (subscription_charge); the period and status stay; refused once cancelled", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { account, test } = yield* newAccount
      yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: { ...vatProfile, prices_include_vat: false } }))
      const sub = yield* subscribed(test)
      yield* at(after(t0, 3))
      const charges = yield* SubscriptionCharges
      const made = yield* charges.charge(test, sub.subscription_id, { product_price: 2000, product_description: "Extra tin" })
      assert.deepStrictEqual(
        [made.replayed, made.payment.billing_reason, made.payment.status, made.payment.total_amount, made.payment.tax],
        [false, "subscription_charge", "succeeded", 2100, 100]
      )
      assert.deepStrictEqual(
        [made.payment.subscription_id, made.payment.description, made.payment.card?.last4],
        [sub.subscription_id, "Extra tin", "4242"]
      )
      const invoice = (yield* invoicesOf(test)).find((i) => i.payment_id === made.payment.payment_id)
      assert.deepStrictEqual([invoice?.totals.gross, invoice?.period], [2100, null], "its tax invoice, for no period")
      const after3 = yield* getSub(test, sub.subscription_id)
      assert.deepStrictEqual(after3, sub, "the subscription does not change")
      // Once cancelled, it cannot be charged.
      yield* Effect.flatMap(Subscriptions, (s) => s.update(test, sub.subscription_id, { status: "cancelled" }))
      const refused = yield* Effect.either(charges.charge(test, sub.subscription_id, { product_price: 2000 }))
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "SubscriptionNotChangeable")
      assert.strictEqual((yield* paymentsOf(test)).length, 2, "the refused charge made no payment")
      const other = yield* newAccount
      const foreign = yield* Effect.either(charges.charge(other.test, sub.subscription_id, { product_price: 2000 }))
      assert.isTrue(Either.isLeft(foreign) && foreign.left._tag === "NotFound")
    }).pipe(withEngine))

  it.effect("a declined card: a failed payment and payment.failed; the subscription stays active", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      const sub = yield* subscribed(test, cards.declineLater)
      const made = yield* Effect.flatMap(SubscriptionCharges, (c) => c.charge(test, sub.subscription_id, { product_price: 500 }))
      assert.deepStrictEqual([made.payment.status, made.payment.failure_code], ["failed", "card_declined"])
      assert.strictEqual((yield* getSub(test, sub.subscription_id)).status, "active")
      assert.deepStrictEqual((yield* typesOf(test)).slice(-1), ["payment.failed"])
    }).pipe(withEngine))

  it.effect("the processor's answer lost after the money moved: looked up, one succeeded payment, one charge", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      // 1000: the card's charges are taken and their answers lost (the checkout's too: found by its lookup).
      const sub = yield* subscribed(test, cards.answerLost)
      const before = (yield* processorCharges).length
      const body = { product_price: 1500 }
      const made = yield* Effect.flatMap(SubscriptionCharges, (c) => c.charge(test, sub.subscription_id, body, "k-lost"))
      assert.deepStrictEqual([made.payment.status, made.payment.total_amount], ["succeeded", 1500])
      const again = yield* Effect.flatMap(SubscriptionCharges, (c) => c.charge(test, sub.subscription_id, body, "k-lost"))
      assert.deepStrictEqual([again.replayed, again.payment.payment_id], [true, made.payment.payment_id])
      const charged = (yield* processorCharges).filter((m) => m.reference === made.payment.payment_id)
      assert.strictEqual(charged.length, 1)
      assert.strictEqual((yield* processorCharges).length, before + 1, "one charge at the processor")
      assert.strictEqual((yield* paymentsOf(test)).filter((p) => p.billing_reason === "subscription_charge").length, 1)
    }).pipe(withEngine))

  it.effect("the process dies after the charge: the lookup pass settles it, or a retry with the key carries it on; one charge", () =>
    Effect.gen(function*() {
      yield* at(t0)
      const { test } = yield* newAccount
      const sub = yield* subscribed(test)
      const charges = yield* SubscriptionCharges
      const crash = yield* Crash
      const ofCharges = Effect.map(paymentsOf(test), (ps) => ps.filter((p) => p.billing_reason === "subscription_charge"))

      // Left alone: a minute later the lookup pass asks the processor and records what it did.
      const left = { product_price: 1500, metadata: { order: "1043" } }
      yield* Ref.set(crash, true)
      const died = yield* Effect.exit(charges.charge(test, sub.subscription_id, left, "k-left"))
      assert.isTrue(Exit.isFailure(died), "the request died after the processor took the money")
      const [pending] = yield* ofCharges
      assert.strictEqual(pending?.status, "processing")
      yield* at(after(t0, 0, 61_000))
      yield* Effect.flatMap(Payments, (p) => p.resolvePending())
      assert.deepStrictEqual((yield* ofCharges).map((p) => [p.payment_id, p.status, p.metadata]), [
        [pending!.payment_id, "succeeded", { order: "1043" }]
      ])
      // A retry with its key later answers that payment, and charges nothing.
      const late = yield* charges.charge(test, sub.subscription_id, left, "k-left")
      assert.deepStrictEqual([late.replayed, late.payment.payment_id, late.payment.status], [true, pending!.payment_id, "succeeded"])

      // Retried at once: the same payment, carried on under its reference (the processor answers what it did).
      const retried = { product_price: 700 }
      yield* Ref.set(crash, true)
      assert.isTrue(Exit.isFailure(yield* Effect.exit(charges.charge(test, sub.subscription_id, retried, "k-retry"))))
      const retry = yield* charges.charge(test, sub.subscription_id, retried, "k-retry")
      assert.deepStrictEqual([retry.replayed, retry.payment.status, retry.payment.total_amount], [true, "succeeded", 700])
      // The key with another body is refused, as for any POST.
      const other = { product_price: 9999 }
      const reused = yield* Effect.either(charges.charge(test, sub.subscription_id, other, "k-retry"))
      assert.isTrue(Either.isLeft(reused) && reused.left._tag === "IdempotencyKeyReused")

      const made = yield* ofCharges
      assert.deepStrictEqual(made.map((p) => p.status), ["succeeded", "succeeded"])
      for (const p of made) assert.strictEqual((yield* processorCharges).filter((m) => m.reference === p.payment_id).length, 1)
      assert.strictEqual((yield* processorCharges).length, 3, "the checkout's charge and these two")
      assert.deepStrictEqual(
        (yield* typesOf(test)).filter((t) => t === "payment.succeeded").length,
        3,
        "each payment succeeded once"
      )
      assert.isTrue(Option.isSome(Option.fromNullable(made[0]!.paid_at)))
    }).pipe(withEngine))
})
