/**
 * Discount codes in the domain (src/domain/Discount.ts and where charges apply them): what a code takes off priced
 * lines (never more than a line, to the fils, VAT on what is left), the rules of redeeming one, and a subscription's
 * discount over random renewals, declines and retries (its cycles never go below 0 and it never applies past them).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Either, FastCheck as fc } from "effect"
import * as CheckoutSession from "../../src/domain/CheckoutSession.js"
import * as Discount from "../../src/domain/Discount.js"
import * as Receipt from "../../src/domain/Receipt.js"
import type { AccountId, CustomerId, DiscountId, ProductId, SubscriptionId } from "../../src/domain/Ids.js"
import type * as Product from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import * as Vat from "../../src/domain/Vat.js"

const hex = (n: number) => n.toString(16).padStart(32, "0")
const productId = (n: number) => `pdt_${hex(n)}` as ProductId
const now = DateTime.unsafeMake("2026-11-21T10:00:00.000Z")

const discount = (overrides: Partial<Discount.Discount> = {}): Discount.Discount => ({
  object: "discount",
  discount_id: `dsc_${hex(1)}` as DiscountId,
  account_id: `acct_${hex(1)}` as AccountId,
  livemode: false,
  code: "Summer10",
  name: null,
  type: "percentage",
  amount: 1000,
  subscription_cycles: null,
  usage_limit: null,
  times_used: 0,
  held: 0,
  expires_at: null,
  restricted_to: [],
  preserve_on_plan_change: false,
  metadata: {},
  created_at: now,
  ...overrides
})

const termsArb = fc.oneof(
  fc.integer({ min: 1, max: Discount.maxBps }).map((amount) => ({ type: "percentage" as const, amount })),
  fc.integer({ min: 1, max: 50_000_000 }).map((amount) => ({ type: "flat" as const, amount }))
)

const product = (n: number, price: number, category: Vat.Category, recurring = false): Product.Product => ({
  object: "product",
  product_id: productId(n),
  account_id: `acct_${hex(1)}` as AccountId,
  livemode: false,
  name: `Product ${n}`,
  description: "",
  price,
  currency: "AED",
  billing: recurring ? "recurring" : "one_time",
  billing_interval: recurring ? "month" : null,
  interval_count: recurring ? 1 : null,
  trial_period_days: 0,
  trial_amount: null,
  status: "active",
  tax_category: category,
  tax_exemption_code: category === "E" ? "DL8.46.1" : null,
  item_type: "S",
  item_code: null,
  plan_change_policy: null,
  offered_in_portal: false,
  metadata: {},
  created_at: now,
  updated_at: null
})

/** A cart of up to 6 lines of distinct products, the VAT convention (none, prices including it, excluding it). */
const cartArb = fc.record({
  lines: fc.array(
    fc.record({
      price: fc.integer({ min: 0, max: 5_000_000 }),
      quantity: fc.integer({ min: 1, max: 20 }),
      category: fc.constantFrom<Vat.Category>("S", "S", "Z", "E", "O")
    }),
    { minLength: 1, maxLength: 6 }
  ),
  vat: fc.constantFrom(null, { pricesIncludeVat: true }, { pricesIncludeVat: false }),
  terms: termsArb,
  restrictTo: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 })
})

describe("what a discount takes off priced lines (property)", () => {
  it("each line gives between 0 and its own amount; a percentage is each line's share to the fils; a flat amount is shared exactly", () => {
    fc.assert(fc.property(
      termsArb,
      fc.array(fc.record({ amount: fc.integer({ min: 0, max: 10_000_000 }), eligible: fc.boolean() }), { minLength: 1, maxLength: 8 }),
      (terms, lines) => {
        const off = Discount.lineDiscounts(terms, lines)
        assert.strictEqual(off.length, lines.length)
        off.forEach((o, i) => {
          assert.isTrue(Number.isSafeInteger(o) && o >= 0 && o <= lines[i]!.amount, `line ${i}: ${o} of ${lines[i]!.amount}`)
          if (!lines[i]!.eligible) assert.strictEqual(o, 0)
        })
        const eligible = lines.filter((l) => l.eligible).reduce((a, l) => a + l.amount, 0)
        const total = off.reduce((a, b) => a + b, 0)
        if (terms.type === "flat") assert.strictEqual(total, Math.min(terms.amount, eligible))
        else {
          off.forEach((o, i) => {
            if (!lines[i]!.eligible) return
            // The nearest fils to amount × bps / 10000, halves up.
            const exact = (lines[i]!.amount * terms.amount) / Discount.maxBps
            assert.isAtMost(Math.abs(o - exact), 0.5)
          })
        }
      }
    ), { numRuns: 300 })
  })

  it("a discounted cart: lines never negative, VAT on what is left of each line, and the lines add up to the charge to the fils", () => {
    fc.assert(fc.property(cartArb, ({ lines, restrictTo, terms, vat }) => {
      const products = lines.map((l, i) => product(i + 1, l.price, l.category))
      const restricted = products.filter((_, i) => restrictTo[i]).map((p) => p.product_id)
      const d = discount({ ...terms, restricted_to: restricted })
      const cart = products.map((p, i) => ({ product: p, quantity: lines[i]!.quantity }))
      const priced = Either.getOrThrow(CheckoutSession.price(cart, vat, d))
      const full = Either.getOrThrow(CheckoutSession.price(cart, vat))
      assert.isTrue(priced.total >= 0)
      assert.isTrue(priced.total <= full.total, "a discount never adds")
      assert.strictEqual(priced.discounts.length, 1)
      const applied = priced.discounts[0]!
      const listed = cart.map((l) => l.product.price * l.quantity)
      if (priced.taxLines === null) {
        assert.strictEqual(priced.total, listed.reduce((a, b) => a + b, 0) - applied.amount_off)
        return
      }
      assert.strictEqual(TaxDocument.totals(priced.taxLines.lines).gross, priced.total, "the lines add up to the charge")
      assert.strictEqual(priced.taxLines.lines.reduce((a, l) => a + l.discount, 0), applied.amount_off)
      priced.taxLines.lines.forEach((line, i) => {
        assert.isTrue(line.discount >= 0 && line.discount <= listed[i]!, "a line gives at most its amount")
        if (!Discount.appliesTo(d, cart[i]!.product.product_id)) assert.strictEqual(line.discount, 0)
        assert.isTrue(line.net >= 0 && line.vat >= 0 && line.gross >= 0)
        assert.strictEqual(line.net + line.vat, line.gross)
        // What is left of the line is its gross (prices including VAT) or its net (excluding).
        assert.strictEqual(vat!.pricesIncludeVat ? line.gross : line.net, listed[i]! - line.discount)
        assert.deepStrictEqual(
          { net: line.net, vat: line.vat, gross: line.gross },
          Vat.line({
            unitAmount: line.unit_amount,
            quantity: line.quantity,
            category: line.category,
            pricesIncludeVat: vat!.pricesIncludeVat,
            discount: line.discount
          }),
          "the VAT is on the line's price less its discount, rounded once"
        )
      })
      // Without its discount the session prices as the cart did without one.
      const session = CheckoutSession.open({
        id: `cks_${hex(1)}` as never,
        accountId: `acct_${hex(1)}` as AccountId,
        livemode: false,
        checkoutUrl: "http://127.0.0.1/checkout",
        kind: "payment",
        priced,
        customer: undefined,
        returnUrl: null,
        metadata: {},
        formToken: "t",
        now
      })
      const removed = CheckoutSession.withDiscount(session, null)
      assert.strictEqual(removed.total_amount, full.total)
      assert.deepStrictEqual(removed.discounts, [])
      assert.strictEqual(CheckoutSession.withDiscount(removed, d).total_amount, priced.total, "the same code prices the same again")
    }), { numRuns: 200 })
  })

  it("a receipt lists the cart at its prices; less the discount, they add up to what was paid", () => {
    const products = [product(1, 5000, "S"), product(2, 3000, "S")]
    const cart = products.map((p) => ({ product: p, quantity: 2 }))
    const priced = Either.getOrThrow(CheckoutSession.price(cart, null, discount({ type: "flat", amount: 1234 })))
    const session = CheckoutSession.open({
      id: `cks_${hex(1)}` as never,
      accountId: `acct_${hex(1)}` as AccountId,
      livemode: false,
      checkoutUrl: "http://127.0.0.1/checkout",
      kind: "payment",
      priced,
      customer: undefined,
      returnUrl: null,
      metadata: {},
      formToken: "t",
      now
    })
    const payment = { ...Subscription.renewalPayment(subscriptionWith(null, false, { type: "flat", amount: 1 }), `pay_${hex(1)}` as never, now), total_amount: priced.total, discounts: priced.discounts }
    const lines = Receipt.lines(payment, { session })
    assert.deepStrictEqual(lines.map((l) => [l.name, l.amount]), [["Product 1", 10000], ["Product 2", 6000]])
    assert.strictEqual(lines.reduce((a, l) => a + l.amount, 0) - Receipt.discountOff(payment), payment.total_amount)
  })

  it("VAT of a discounted line: 10 % off AED 105.00 including 5 % VAT leaves 94.50, 4.50 of it VAT", () => {
    const cart = [{ product: product(1, 10500, "S"), quantity: 1 }]
    const priced = Either.getOrThrow(CheckoutSession.price(cart, { pricesIncludeVat: true }, discount({ amount: 1000 })))
    assert.deepStrictEqual(
      priced.taxLines!.lines.map((l) => [l.discount, l.net, l.vat, l.gross]),
      [[1050, 9000, 450, 9450]]
    )
    assert.strictEqual(priced.total, 9450)
    // Excluding VAT: AED 100.00 net less 10.00, 5 % on the 90.00 left.
    const net = Either.getOrThrow(CheckoutSession.price([{ product: product(1, 10000, "S"), quantity: 1 }], { pricesIncludeVat: false }, discount({ amount: 1000 })))
    assert.deepStrictEqual(net.taxLines!.lines.map((l) => [l.discount, l.net, l.vat, l.gross]), [[1000, 9000, 450, 9450]])
  })
})

describe("redeeming a code", () => {
  it("refuses an expired one, one used up (counting the uses held by charges in flight), and one that fits nothing in the cart", () => {
    const cart = [productId(1), productId(2)]
    const reason = (d: Discount.Discount) => Either.match(Discount.redeemable(d, "summer10", now, cart), { onLeft: (e) => e.reason, onRight: () => "ok" })
    assert.strictEqual(reason(discount()), "ok")
    assert.strictEqual(reason(discount({ expires_at: now })), "expired", "it ends at its expiry")
    assert.strictEqual(reason(discount({ expires_at: DateTime.add(now, { millis: 1 }) })), "ok")
    assert.strictEqual(reason(discount({ usage_limit: 2, times_used: 1, held: 1 })), "used_up")
    assert.strictEqual(reason(discount({ usage_limit: 2, times_used: 1 })), "ok")
    assert.strictEqual(reason(discount({ restricted_to: [productId(3)] })), "not_applicable")
    assert.strictEqual(reason(discount({ restricted_to: [productId(3), productId(2)] })), "ok")
    // Held, then released: counted only when the charge succeeded.
    const held = Discount.hold(discount({ usage_limit: 1 }))
    assert.strictEqual(reason(held), "used_up")
    assert.deepStrictEqual([Discount.release(held, false).times_used, Discount.release(held, false).held], [0, 0])
    assert.deepStrictEqual([Discount.release(held, true).times_used, Discount.release(held, true).held], [1, 0])
    const refused = Either.flip(Discount.redeemable(discount({ expires_at: now }), "summer10", now, cart))
    assert.strictEqual(Either.getOrThrow(refused).message, "discount_code: summer10 has expired", "named as the customer typed it")
  })

  it("compares codes whatever their case and the spaces around them", () => {
    assert.strictEqual(Discount.codeKey(" summer10 "), Discount.codeKey("SUMMER10"))
    assert.notStrictEqual(Discount.codeKey("SUMMER1O"), Discount.codeKey("SUMMER10"))
  })

  it("creates and updates within the rules: amounts by type, the usage limit above the uses, an expiry in the future", () => {
    const ctx = { id: `dsc_${hex(2)}` as DiscountId, accountId: `acct_${hex(1)}` as AccountId, livemode: false, code: "Eid25", now }
    const message = <A>(e: Either.Either<A, { readonly message: string }>) => Either.match(e, { onLeft: (x) => x.message, onRight: () => "ok" })
    assert.strictEqual(message(Discount.create({ type: "percentage", amount: 10001 }, ctx)), "amount of a percentage discount is in basis points, 1 to 10000 (540 is 5.4 %, 10000 is 100 %)")
    assert.strictEqual(message(Discount.create({ type: "percentage", amount: 0 }, ctx)).startsWith("amount of a percentage"), true)
    assert.strictEqual(message(Discount.create({ type: "flat", amount: 0 }, ctx)), "amount of a flat discount is in fils, at least 1 (1000 is AED 10.00)")
    assert.strictEqual(message(Discount.create({ type: "flat", amount: 250000 }, ctx)), "ok")
    assert.strictEqual(message(Discount.create({ type: "flat", amount: 500, expires_at: now }, ctx)), "expires_at must be in the future")
    assert.strictEqual(message(Discount.create({ type: "flat", amount: 500, restricted_to: ["pdt_x"] }, ctx)), "restricted_to.0: no such product 'pdt_x'")
    assert.strictEqual(message(Discount.create({ type: "flat", amount: 500, restricted_to: [productId(1), productId(1)] }, ctx)), `restricted_to names product ${productId(1)} twice`)
    const created = Either.getOrThrow(Discount.create({ type: "flat", amount: 500, usage_limit: 5 }, ctx))
    assert.strictEqual(created.code, "Eid25", "shown as the merchant typed it")
    const used = { ...created, times_used: 2, held: 1 }
    assert.strictEqual(message(Discount.update(used, { usage_limit: 2 })), "usage_limit must be at least 3: the uses already made or being paid for")
    assert.strictEqual(message(Discount.update(used, { type: "percentage" })), "A change of type needs its amount too: send type and amount together", "500 fils read as 5 % would be a surprise: refused")
    assert.strictEqual(message(Discount.update(used, { type: "percentage", amount: 10001 })), "amount of a percentage discount is in basis points, 1 to 10000 (540 is 5.4 %, 10000 is 100 %)")
    assert.strictEqual(Either.getOrThrow(Discount.update(used, { type: "percentage", amount: 500 })).type, "percentage")
    assert.strictEqual(Either.getOrThrow(Discount.update(used, {})), used, "an empty patch changes nothing")
    assert.isNull(Either.getOrThrow(Discount.update(used, { usage_limit: null })).usage_limit)
  })
})

const subscriptionWith = (cycles: number | null, taxed: boolean, terms: Discount.Terms) => {
  const d = discount({ ...terms, subscription_cycles: cycles })
  // The first payment, as a checkout priced it with the code.
  const first = Either.getOrThrow(CheckoutSession.price([{ product: product(1, 34900, "S", true), quantity: 2 }], taxed ? { pricesIncludeVat: true } : null, d))
  return Subscription.start({
    id: `sub_${hex(1)}` as SubscriptionId,
    accountId: `acct_${hex(1)}` as AccountId,
    livemode: false,
    product: { product_id: productId(1), name: "Beans", billing_interval: "month", interval_count: 1 },
    quantity: 2,
    unitAmount: 34900,
    taxLines: first.taxLines,
    discounts: first.discounts,
    currency: "AED",
    customer: { customer_id: `cus_${hex(1)}` as CustomerId, name: null, email: "a@example.ae" },
    card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030, token: "tok" },
    checkoutSessionId: null,
    metadata: {},
    paidAt: now
  }).next
}

describe("a subscription's discount over its renewals (property)", () => {
  it("keeps the period's price before discounts; takes the discount off while cycles remain; a retry of a period uses no second cycle", () => {
    fc.assert(fc.property(
      fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
      fc.boolean(),
      termsArb,
      fc.array(fc.constantFrom("ChargeSucceeded", "ChargeFailed", "ChargeFailed"), { maxLength: 14 }),
      (cycles, taxed, terms, commands) => {
        let s = subscriptionWith(cycles, taxed, terms)
        assert.strictEqual(s.recurring_amount, 69800, "the period's price as listed")
        assert.deepStrictEqual(s.discounts.map((d) => d.cycles_remaining), [cycles === null ? null : cycles - 1], "the first payment used one cycle")
        let paidRenewals = 0
        let discountedRenewals = 0
        for (const tag of commands) {
          if (s.status === "cancelled") break
          const charge = Subscription.renewalCharge(s)
          assert.isTrue(charge.amount >= 0 && charge.amount <= s.recurring_amount)
          if (charge.taxLines !== null) assert.strictEqual(TaxDocument.totals(charge.taxLines.lines).gross, charge.amount)
          const off = charge.discounts.reduce((a, d) => a + d.amount_off, 0)
          if (charge.taxLines === null) assert.strictEqual(charge.amount, s.recurring_amount - off)
          const payment = Subscription.renewalPayment(s, `pay_${hex(paidRenewals)}` as never, now)
          assert.strictEqual(payment.total_amount, charge.amount, "the renewal's payment charges what renewalCharge says")
          const before = s.discounts[0]!.cycles_remaining
          const next = Either.getOrThrow(Subscription.transition(s, { _tag: tag as "ChargeSucceeded" | "ChargeFailed" }, s.next_billing_date)).next
          const after = next.discounts[0]!.cycles_remaining
          assert.isTrue(after === null || after >= 0, "cycles never below 0")
          if (tag === "ChargeSucceeded") {
            paidRenewals++
            if (charge.discounts.length > 0) discountedRenewals++
            assert.strictEqual(after, before === null ? null : Math.max(0, before - 1))
          } else assert.strictEqual(after, before, "a declined charge uses no cycle")
          s = next
        }
        assert.strictEqual(
          discountedRenewals,
          cycles === null ? paidRenewals : Math.min(paidRenewals, cycles - 1),
          "the discount never applies past its cycles"
        )
      }
    ), { numRuns: 200 })
  })
})
