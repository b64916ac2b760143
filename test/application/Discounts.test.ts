/**
 * Discount codes over the memory store with TestClock (docs/discounts.md): the merchant's discounts, a checkout
 * session created with a code or given one on the hosted page, a code's use counted once when its payment succeeds
 * (and given back when it fails), the invoice showing the discount, and a subscription's discount over renewals
 * and a retry.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Redacted, TestClock } from "effect"
import { checkInvoice } from "../../adapters/einvoice/PintAeRules.js"
import { invoicePage } from "../../adapters/http/documents/TaxDocumentPage.js"
import { homePage } from "../../adapters/http/portal/Pages.js"
import { langOf } from "../../adapters/http/i18n/Messages.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Customers } from "../../src/application/Customers.js"
import { Discounts } from "../../src/application/Discounts.js"
import { PaymentMethods } from "../../src/application/PaymentMethods.js"
import { Payments } from "../../src/application/Payments.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { TaxDocuments } from "../../src/application/TaxDocuments.js"
import type { Scope } from "../../src/domain/Account.js"
import * as Discount from "../../src/domain/Discount.js"
import type { CheckoutSessionId, DiscountId } from "../../src/domain/Ids.js"
import { cards, formWith, makeProduct, makeSession, pay, storedSession } from "../support/checkout.js"
import { vatProfile } from "../support/taxProfile.js"
import { newAccount, withEngine } from "./harness.js"

const start = Date.parse("2026-11-21T10:00:00.000Z")
const day = 86_400_000

const refusal = <A, E extends { readonly _tag: string; readonly message: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? `${e.left._tag}: ${e.left.message}` : "accepted"

const discounts = Discounts
const createDiscount = (scope: Scope, input: Discount.DiscountCreate) => Effect.flatMap(discounts, (d) => d.create(scope, input))
const getDiscount = (scope: Scope, id: DiscountId) => Effect.flatMap(discounts, (d) => d.get(scope, id))
const applyCode = (id: CheckoutSessionId, code: string) =>
  Effect.gen(function*() {
    const session = yield* storedSession(id)
    return yield* Effect.flatMap(Checkout, (c) => c.applyCode(id, session.form_token, code))
  })

describe("Discounts: the merchant's codes", () => {
  it.effect("creates as given (the code as typed), refuses a code taken in any case, an unknown product, a bad amount; lists, changes and deletes", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const { live, test } = yield* newAccount
      const other = (yield* newAccount).test
      const beans = yield* makeProduct(test, { name: "Beans" })
      const d = yield* createDiscount(test, { code: "Summer10", type: "percentage", amount: 1000, restricted_to: [beans.product_id], usage_limit: 50 })
      assert.match(d.discount_id, /^dsc_[0-9a-f]{32}$/)
      assert.deepStrictEqual(
        [d.code, d.type, d.amount, d.times_used, d.usage_limit, d.subscription_cycles, d.expires_at, d.restricted_to, d.preserve_on_plan_change, d.name],
        ["Summer10", "percentage", 1000, 0, 50, null, null, [beans.product_id], false, null]
      )
      assert.strictEqual(
        refusal(yield* Effect.either(createDiscount(test, { code: "SUMMER10", type: "flat", amount: 500 }))),
        "DiscountCodeTaken: A discount with the code SUMMER10 already exists in this mode (codes are compared ignoring case); choose another code"
      )
      assert.strictEqual((yield* createDiscount(live, { code: "summer10", type: "flat", amount: 500 })).code, "summer10", "the other mode has its own codes")
      assert.strictEqual((yield* createDiscount(other, { code: "SUMMER10", type: "flat", amount: 500 })).code, "SUMMER10")
      assert.strictEqual(
        refusal(yield* Effect.either(createDiscount(test, { code: "Beans5", type: "flat", amount: 500, restricted_to: [beans.product_id, `pdt_${"e".repeat(32)}`] }))),
        `InvalidRequest: restricted_to.1: no such product 'pdt_${"e".repeat(32)}'`
      )
      const otherProduct = yield* makeProduct(other)
      assert.strictEqual(
        refusal(yield* Effect.either(createDiscount(test, { code: "Beans5", type: "flat", amount: 500, restricted_to: [otherProduct.product_id] }))),
        `InvalidRequest: restricted_to.0: no such product '${otherProduct.product_id}'`,
        "another account's product is no product of this one"
      )
      assert.strictEqual(
        refusal(yield* Effect.either(createDiscount(test, { code: "Half", type: "percentage", amount: 20000 }))),
        "InvalidRequest: amount of a percentage discount is in basis points, 1 to 10000 (540 is 5.4 %, 10000 is 100 %)"
      )
      // Without a code, one is made up: 16 characters no one misreads.
      const made = yield* createDiscount(test, { type: "flat", amount: 1500 })
      assert.match(made.code, /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{16}$/)

      const service = yield* Discounts
      const first = yield* service.list(test, { limit: 1 })
      assert.deepStrictEqual(first.items.map((x) => x.discount_id), [made.discount_id], "newest first")
      const rest = yield* service.list(test, { limit: 10, cursor: first.next_cursor! })
      assert.deepStrictEqual(rest.items.map((x) => x.discount_id), [d.discount_id])

      const renamed = yield* service.update(test, d.discount_id, { code: "Autumn15", amount: 1500, name: "Autumn" })
      assert.deepStrictEqual([renamed.code, renamed.amount, renamed.name, renamed.restricted_to], ["Autumn15", 1500, "Autumn", [beans.product_id]])
      assert.strictEqual(refusal(yield* Effect.either(service.update(test, d.discount_id, { code: made.code.toLowerCase() }))), `DiscountCodeTaken: A discount with the code ${made.code.toLowerCase()} already exists in this mode (codes are compared ignoring case); choose another code`)
      assert.strictEqual((yield* getDiscount(test, d.discount_id)).code, "Autumn15", "a refused change changes nothing")
      assert.strictEqual(refusal(yield* Effect.either(getDiscount(other, d.discount_id))), `NotFound: No such discount: '${d.discount_id}'`)
      assert.deepStrictEqual(yield* service.delete(test, d.discount_id), { object: "discount", discount_id: d.discount_id, deleted: true })
      assert.strictEqual(refusal(yield* Effect.either(service.delete(test, d.discount_id))), `NotFound: No such discount: '${d.discount_id}'`)
      assert.strictEqual((yield* createDiscount(test, { code: "AUTUMN15", type: "flat", amount: 100 })).code, "AUTUMN15", "a deleted discount's code is free")
    })))
})

describe("Checkout with a discount code", () => {
  it.effect("a session takes a code in any case: the lines it applies to are discounted; one that cannot be redeemed is refused in words", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const { test } = yield* newAccount
      const beans = yield* makeProduct(test, { name: "Beans", price: 5000 })
      const cup = yield* makeProduct(test, { name: "Cup", price: 3000 })
      const d = yield* createDiscount(test, { code: "Beans20", type: "percentage", amount: 2000, restricted_to: [beans.product_id] })
      const cart = [{ product_id: beans.product_id, quantity: 3 }, { product_id: cup.product_id }]
      const session = yield* makeSession(test, { product_cart: cart, discount_code: "beans20" })
      // 20 % of 3 × 50.00 = 30.00 off the beans; the cup is full price.
      assert.strictEqual(session.total_amount, 15000 - 3000 + 3000)
      assert.deepStrictEqual(session.discounts, [{
        discount_id: d.discount_id,
        code: "Beans20",
        type: "percentage",
        amount: 2000,
        subscription_cycles: null,
        amount_off: 3000
      }])

      const create = (code: string, product_cart = cart) => Effect.either(makeSession(test, { product_cart, discount_code: code }))
      assert.strictEqual(refusal(yield* create("NOPE")), "DiscountNotRedeemable: discount_code: no discount has the code 'NOPE'")
      assert.strictEqual(refusal(yield* create("bean s20")), "DiscountNotRedeemable: discount_code: no discount has the code 'bean s20'")
      assert.strictEqual(
        refusal(yield* create("beans20", [{ product_id: cup.product_id, quantity: 1 }])),
        "DiscountNotRedeemable: discount_code: beans20 applies to none of the products in this cart"
      )
      yield* createDiscount(test, { code: "Ends", type: "flat", amount: 100, expires_at: DateTime.unsafeMake(start + day) })
      yield* TestClock.adjust(day)
      assert.strictEqual(refusal(yield* create("ENDS")), "DiscountNotRedeemable: discount_code: ENDS has expired")
      yield* createDiscount(test, { code: "Once", type: "flat", amount: 100, usage_limit: 1 })
      const first = yield* makeSession(test, { product_cart: cart, discount_code: "once" })
      assert.strictEqual((yield* pay(first.session_id, formWith(cards.visa)))._tag, "Paid")
      assert.strictEqual(refusal(yield* create("once")), "DiscountNotRedeemable: discount_code: once has been used as many times as its usage_limit allows")
    })))

  it.effect("a use is counted once, when the payment succeeds; a declined card gives it back; a code used up meanwhile is refused at payment with nothing charged", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const { test } = yield* newAccount
      const product = yield* makeProduct(test, { price: 10000 })
      const d = yield* createDiscount(test, { code: "Flat25", type: "flat", amount: 2500, usage_limit: 1 })
      const cart = [{ product_id: product.product_id }]
      const a = yield* makeSession(test, { product_cart: cart, discount_code: "FLAT25" })
      const b = yield* makeSession(test, { product_cart: cart, discount_code: "flat25" })
      assert.deepStrictEqual([a.total_amount, b.total_amount], [7500, 7500])

      const declined = yield* pay(a.session_id, formWith(cards.declined))
      assert.strictEqual(declined._tag === "Paid" ? declined.payment.status : declined._tag, "failed")
      const afterDecline = yield* getDiscount(test, d.discount_id)
      assert.strictEqual(afterDecline.times_used, 0, "a declined charge uses nothing")

      const paid = yield* pay(b.session_id, formWith(cards.visa))
      if (paid._tag !== "Paid") return assert.fail("the form was refused")
      assert.strictEqual(paid.payment.status, "succeeded")
      assert.strictEqual(paid.payment.total_amount, 7500)
      assert.deepStrictEqual(paid.payment.discounts.map((x) => [x.code, x.amount_off]), [["Flat25", 2500]])
      assert.strictEqual(paid.session.status, "complete")
      assert.strictEqual((yield* getDiscount(test, d.discount_id)).times_used, 1, "counted with the payment")

      // The first session still carries the code, now used up: refused, nothing charged, the session open.
      const again = yield* Effect.either(pay(a.session_id, formWith(cards.visa)))
      assert.strictEqual(refusal(again), "DiscountNotRedeemable: discount_code: Flat25 has been used as many times as its usage_limit allows")
      const payments = yield* Effect.flatMap(Payments, (p) => p.list(test, { checkout_session_id: a.session_id, limit: 10 }))
      assert.deepStrictEqual(payments.items.map((p) => p.status), ["failed"], "no second charge")
      assert.strictEqual((yield* getDiscount(test, d.discount_id)).times_used, 1)
      // Without the code it can be paid at its full price.
      const full = yield* applyCode(a.session_id, "")
      assert.deepStrictEqual([full.total_amount, full.discounts], [10000, []])
      const paidFull = yield* pay(a.session_id, formWith(cards.visa))
      assert.strictEqual(paidFull._tag === "Paid" ? paidFull.payment.total_amount : 0, 10000)
    })))

  it.effect("the hosted page's code: applied (the totals priced again), refused with the session unchanged, taken off; only with the page's form token", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const { test } = yield* newAccount
      const product = yield* makeProduct(test, { price: 4000 })
      yield* createDiscount(test, { code: "Half", type: "percentage", amount: 5000 })
      yield* createDiscount(test, { code: "Soon", type: "flat", amount: 100, expires_at: DateTime.unsafeMake(start + 1000) })
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id, quantity: 2 }] })
      const applied = yield* applyCode(session.session_id, " half")
      assert.deepStrictEqual([applied.total_amount, applied.discounts.map((x) => x.amount_off)], [4000, [4000]])
      yield* TestClock.adjust(2000)
      const expired = yield* Effect.either(applyCode(session.session_id, "soon"))
      assert.strictEqual(Either.isLeft(expired) && expired.left._tag === "DiscountNotRedeemable" ? expired.left.reason : "", "expired")
      assert.strictEqual((yield* storedSession(session.session_id)).total_amount, 4000, "a refused code leaves the session as it was")
      const forged = yield* Effect.either(Effect.flatMap(Checkout, (c) => c.applyCode(session.session_id, "not-the-token", "")))
      assert.strictEqual(refusal(forged), "InvalidRequest: This form is out of date; reload the page and try again.")
      const removed = yield* applyCode(session.session_id, "")
      assert.deepStrictEqual([removed.total_amount, removed.discounts], [8000, []])
      const paid = yield* pay(session.session_id, formWith(cards.visa))
      assert.strictEqual(paid._tag === "Paid" ? paid.payment.total_amount : 0, 8000)
      assert.strictEqual(refusal(yield* Effect.either(applyCode(session.session_id, "half"))), `InvalidState: Checkout session ${session.session_id} is complete`)
    })))

  it.effect("a VAT-registered merchant's invoice shows each line's discount, with the VAT on what is left", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const { account, test } = yield* newAccount
      yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: vatProfile }))
      const product = yield* makeProduct(test, { name: "Karak box", price: 10500, item_code: "998599" })
      yield* createDiscount(test, { code: "Tenner", type: "percentage", amount: 1000 })
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }], discount_code: "TENNER" })
      assert.deepStrictEqual([session.total_amount, session.tax], [9450, 450])
      const paid = yield* pay(session.session_id, formWith(cards.visa))
      if (paid._tag !== "Paid") return assert.fail("the form was refused")
      const invoices = yield* Effect.flatMap(TaxDocuments, (t) => t.listInvoices(test, { payment_id: paid.payment.payment_id }, { limit: 1, after: undefined }))
      const invoice = invoices.items[0]!
      assert.deepStrictEqual(
        invoice.lines.map((l) => ({ quantity: l.quantity, unit_amount: l.unit_amount, discount: l.discount, net: l.net, vat: l.vat, gross: l.gross })),
        [{ quantity: 1, unit_amount: 10500, discount: 1050, net: 9000, vat: 450, gross: 9450 }]
      )
      assert.deepStrictEqual(invoice.totals, { net: 9000, vat: 450, gross: 9450 })
      // Its printable page has a discount column; its PINT AE e-invoice passes the rules (the line less its discount).
      const printed = invoicePage(invoice, { nonce: "n" })
      assert.include(printed, "Discount")
      assert.include(printed, `data-testid="line-discount">−AED 10.50`)
      assert.deepStrictEqual(checkInvoice(invoice).filter((f) => f.rule.startsWith("fils-line")), [])
      assert.deepStrictEqual(
        checkInvoice({ ...invoice, lines: invoice.lines.map((l) => ({ ...l, discount: 1000 })) }).map((f) => f.rule).filter((r) => r.startsWith("fils-line")),
        ["fils-line-rounding"],
        "a line whose amounts do not follow from its discount is caught"
      )
    })))
})

describe("a subscription started with a discount", () => {
  const runBilling = Effect.flatMap(Billing, (b) => b.runOnce())

  it.effect("shows it with its cycles; each paid renewal takes it off and uses one cycle; a declined renewal and its retry on a new card use one cycle between them", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const { account, test } = yield* newAccount
      const product = yield* makeProduct(test, { name: "Coffee club", price: 10000, billing: "recurring", billing_interval: "month" })
      const d = yield* createDiscount(test, { code: "First3", type: "percentage", amount: 2500, subscription_cycles: 3 })
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }], discount_code: "first3" })
      const paid = yield* pay(session.session_id, formWith(cards.declineLater))
      if (paid._tag !== "Paid") return assert.fail("the form was refused")
      assert.strictEqual(paid.payment.total_amount, 7500)
      const subscriptions = yield* Subscriptions
      const id = paid.payment.subscription_id!
      const sub = yield* subscriptions.get(test, id)
      assert.strictEqual(sub.recurring_amount, 10000, "the period's price, before discounts")
      assert.deepStrictEqual(sub.discounts, [{
        discount_id: d.discount_id,
        code: "First3",
        type: "percentage",
        amount: 2500,
        subscription_cycles: 3,
        cycles_remaining: 2
      }])
      assert.strictEqual((yield* getDiscount(test, d.discount_id)).times_used, 1, "redeemed once, by the first payment")
      // The customer portal says what the next renewal charges: the discount is still in effect.
      const portalPage = (s: typeof sub) =>
        Effect.gen(function*() {
          const customer = yield* Effect.flatMap(Customers, (c) => c.get(test, s.customer.customer_id))
          const merchant = yield* Effect.flatMap(Accounts, (a) => a.get(account.account_id))
          return homePage({ nonce: "n", base: "/portal", lang: langOf("en") }, { overview: { account: merchant, customer, subscriptions: [s], payments: [], plans: [] }, returnUrl: null, livemode: false })
        })
      assert.include(yield* portalPage(sub), "Next payment of AED 75.00")

      const cycles = Effect.map(subscriptions.get(test, id), (s) => s.discounts.map((x) => x.cycles_remaining))
      const renewals = Effect.map(
        Effect.flatMap(Payments, (p) => p.list(test, { limit: 100 })),
        (l) => l.items.filter((p) => p.subscription_id === id && p.billing_reason === "subscription_renewal").reverse()
      )
      // The first renewal is declined (this card declines renewals): on hold, no cycle used.
      yield* TestClock.setTime((yield* subscriptions.get(test, id)).next_billing_date.epochMillis)
      yield* runBilling
      assert.strictEqual((yield* subscriptions.get(test, id)).status, "on_hold")
      assert.deepStrictEqual(yield* cycles, [2])
      // A new card: the retry is charged at once, discounted, and uses the period's one cycle.
      yield* Effect.flatMap(PaymentMethods, (m) =>
        m.replace(test, id, { number: Redacted.make(cards.visa), expMonth: 12, expYear: 2090, cvc: Redacted.make("123") }))
      assert.strictEqual((yield* subscriptions.get(test, id)).status, "active")
      assert.deepStrictEqual(yield* cycles, [1])
      // Two more renewals: the last cycle, then the full price.
      for (let i = 0; i < 2; i++) {
        yield* TestClock.setTime((yield* subscriptions.get(test, id)).next_billing_date.epochMillis)
        yield* runBilling
      }
      assert.deepStrictEqual(yield* cycles, [0])
      const charged = yield* renewals
      assert.deepStrictEqual(
        charged.map((p) => [p.status, p.total_amount, p.discounts.map((x) => x.amount_off)]),
        [["failed", 7500, [2500]], ["succeeded", 7500, [2500]], ["succeeded", 7500, [2500]], ["succeeded", 10000, []]]
      )
      assert.strictEqual((yield* getDiscount(test, d.discount_id)).times_used, 1, "renewals redeem nothing more")
      assert.include(yield* portalPage(yield* subscriptions.get(test, id)), "Next payment of AED 100.00", "its cycles are used")
    })))
})
