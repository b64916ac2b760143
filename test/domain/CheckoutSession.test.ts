/** Checkout sessions (docs/decisions.md §2): kind, pricing, the status as of a time, and the open → complete | expired rule. */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Either, FastCheck, Schema } from "effect"
import * as CheckoutSession from "../../src/domain/CheckoutSession.js"
import type { AccountId, CheckoutSessionId, CustomerId, PaymentId, ProductId, SubscriptionId } from "../../src/domain/Ids.js"
import { uuidv7Hex } from "../../src/domain/Ids.js"
import * as Product from "../../src/domain/Product.js"

const t0 = DateTime.unsafeMake("2026-11-21T10:00:00.000Z")
const accountId = `acct_${uuidv7Hex(DateTime.toEpochMillis(t0), [5, 6, 7, 8])}` as AccountId
let counter = 0
const hexId = (prefix: string) => `${prefix}_${uuidv7Hex(DateTime.toEpochMillis(t0), [++counter, 2, 3, counter])}`

const product = (input: Partial<Product.ProductCreate> = {}): Product.Product =>
  Either.getOrThrow(Product.create(
    { name: "Coffee", price: 34900, currency: "AED", ...input },
    { id: hexId("pdt") as ProductId, accountId, livemode: false, now: t0 }
  ))
const oneTime = product({ name: "Beans", price: 5000 })
const monthly = product({ name: "Club", price: 9900, billing: "recurring", billing_interval: "month" })

const sessionOf = (lines: ReadonlyArray<CheckoutSession.PricedLine>): CheckoutSession.CheckoutSession => {
  const priced = Either.getOrThrow(CheckoutSession.price(lines, null))
  const id = hexId("cks") as CheckoutSessionId
  return CheckoutSession.open({
    id,
    accountId,
    livemode: false,
    checkoutUrl: `http://127.0.0.1:4242/checkout/${id}`,
    kind: CheckoutSession.kindOf(lines),
    priced,
    customer: undefined,
    returnUrl: null,
    metadata: {},
    formToken: "token",
    now: t0
  })
}

const at = (d: Duration.DurationInput) => DateTime.addDuration(t0, d)
const before = DateTime.subtract(at("24 hours"), { millis: 1 })
const expiry = at("24 hours")
const paid = { paymentId: hexId("pay") as PaymentId, subscriptionId: null, payer: null }
const complete = (
  session: CheckoutSession.CheckoutSession,
  payment: { readonly paymentId: PaymentId; readonly subscriptionId: SubscriptionId | null; readonly payer: null },
  now: DateTime.Utc
) => CheckoutSession.transition(session, { _tag: "Complete", ...payment }, now)
const expire = (session: CheckoutSession.CheckoutSession, now: DateTime.Utc) =>
  CheckoutSession.transition(session, { _tag: "Expire" }, now)

const leftTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) => (Either.isLeft(e) ? e.left._tag : "right")

describe("CheckoutSession.kindOf", () => {
  it("exactly one recurring line is a subscription; any other cart is a payment", () => {
    assert.strictEqual(CheckoutSession.kindOf([{ product: monthly, quantity: 1 }]), "subscription")
    assert.strictEqual(CheckoutSession.kindOf([{ product: monthly, quantity: 3 }]), "subscription")
    assert.strictEqual(CheckoutSession.kindOf([{ product: oneTime, quantity: 1 }]), "payment")
    assert.strictEqual(CheckoutSession.kindOf([{ product: monthly, quantity: 1 }, { product: oneTime, quantity: 1 }]), "payment")
    assert.strictEqual(CheckoutSession.kindOf([{ product: monthly, quantity: 1 }, { product: monthly, quantity: 1 }]), "payment")
    assert.strictEqual(CheckoutSession.kindOf([{ product: oneTime, quantity: 1 }, { product: oneTime, quantity: 2 }]), "payment")
  })
})

describe("CheckoutSession.price", () => {
  it("prices each line at the product's price and sums the total", () => {
    const r = Either.getOrThrow(CheckoutSession.price([{ product: oneTime, quantity: 2 }, { product: monthly, quantity: 1 }], null))
    assert.strictEqual(r.total, 2 * 5000 + 9900)
    assert.strictEqual(r.currency, "AED")
    assert.deepStrictEqual(r.lines, [
      { product_id: oneTime.product_id, name: "Beans", quantity: 2, unit_amount: 5000 },
      { product_id: monthly.product_id, name: "Club", quantity: 1, unit_amount: 9900 }
    ])
    assert.strictEqual(Either.getOrThrow(CheckoutSession.price([{ product: product({ price: 0 }), quantity: 5 }], null)).total, 0)
  })

  it("refuses draft and archived products, naming them", () => {
    for (const status of ["draft", "archived"] as const) {
      const p = product({ status })
      const r = CheckoutSession.price([{ product: oneTime, quantity: 1 }, { product: p, quantity: 1 }], null)
      assert.strictEqual(leftTag(r), "InvalidRequest")
      assert.isTrue(Either.isLeft(r) && r.left.message.includes(p.product_id) && r.left.message.includes(status))
    }
  })

  it("needs 1 to 50 lines", () => {
    assert.strictEqual(leftTag(CheckoutSession.price([], null)), "InvalidRequest")
    const lines = (n: number) => Array.from({ length: n }, () => ({ product: oneTime, quantity: 1 }))
    assert.strictEqual(Either.getOrThrow(CheckoutSession.price(lines(50), null)).total, 50 * 5000)
    assert.strictEqual(leftTag(CheckoutSession.price(lines(51), null)), "InvalidRequest")
    assert.strictEqual(CheckoutSession.maxLines, 50)
    assert.strictEqual(CheckoutSession.maxQuantity, 1000)
  })

  it("refuses a total that is not a safe integer", () => {
    const huge = product({ price: Number.MAX_SAFE_INTEGER - 1 })
    assert.strictEqual(leftTag(CheckoutSession.price([{ product: huge, quantity: 2 }], null)), "InvalidRequest")
  })

  const cartArb = FastCheck.array(
    FastCheck.record({
      price: FastCheck.integer({ min: 0, max: 10_000_000 }),
      quantity: FastCheck.integer({ min: 1, max: 1000 }),
      recurring: FastCheck.boolean(),
      status: FastCheck.constantFrom<Product.ProductStatus>("active", "active", "active", "draft", "archived")
    }),
    { minLength: 0, maxLength: 55 }
  )

  it.prop(
    "random carts: priced iff 1..50 lines all active; total = Σ price × quantity; kind by the one-recurring-line rule",
    [cartArb],
    ([cart]) => {
      const lines = cart.map((l) =>
        ({
          product: product({
            price: l.price,
            status: l.status,
            ...(l.recurring ? { billing: "recurring", billing_interval: "week" } as const : {})
          }),
          quantity: l.quantity
        }) satisfies CheckoutSession.PricedLine
      )
      const r = CheckoutSession.price(lines, null)
      const ok = cart.length >= 1 && cart.length <= 50 && cart.every((l) => l.status === "active")
      assert.strictEqual(Either.isRight(r), ok)
      if (Either.isRight(r)) {
        assert.strictEqual(r.right.total, cart.reduce((sum, l) => sum + l.price * l.quantity, 0))
        assert.strictEqual(r.right.lines.length, cart.length)
        r.right.lines.forEach((line, i) => {
          assert.strictEqual(line.product_id, lines[i]!.product.product_id)
          assert.strictEqual(line.quantity, cart[i]!.quantity)
          assert.strictEqual(line.unit_amount, cart[i]!.price)
        })
      } else {
        assert.strictEqual(r.left._tag, "InvalidRequest")
      }
      const expectedKind = cart.length === 1 && cart[0]!.recurring ? "subscription" : "payment"
      assert.strictEqual(CheckoutSession.kindOf(lines), expectedKind)
    },
    { fastCheck: { numRuns: 150 } }
  )
})

describe("CheckoutSessionCreate (the request body)", () => {
  const decode = Schema.decodeUnknownEither(CheckoutSession.CheckoutSessionCreate)
  const line = { product_id: oneTime.product_id }
  it("accepts 1..50 lines with quantity 1..1000 (default omitted), refuses the rest", () => {
    assert.isTrue(Either.isRight(decode({ product_cart: [line] })))
    assert.isTrue(Either.isRight(decode({ product_cart: Array.from({ length: 50 }, () => line) })))
    assert.isTrue(Either.isRight(decode({ product_cart: [{ ...line, quantity: 1 }, { ...line, quantity: 1000 }] })))
    for (
      const body of [
        {},
        { product_cart: [] },
        { product_cart: Array.from({ length: 51 }, () => line) },
        { product_cart: [{ ...line, quantity: 0 }] },
        { product_cart: [{ ...line, quantity: 1001 }] },
        { product_cart: [{ ...line, quantity: 1.5 }] },
        { product_cart: [{ ...line, price: 1 }] },
        { product_cart: [line], return_url: "ftp://shop.example/x" },
        { product_cart: [line], return_url: "/thanks" },
        { product_cart: [line], customer: { customer_id: "cus_x", email: "a@b.co" } },
        { product_cart: [line], customer: { email: "not-an-email" } },
        { product_cart: [line], customer: { email: "a@b.co", phone_number: "0501234567" } }
      ]
    ) {
      assert.isTrue(Either.isLeft(decode(body)), JSON.stringify(body).slice(0, 120))
    }
    assert.isTrue(Either.isRight(decode({ product_cart: [line], return_url: "https://shop.example/thanks?o=1" })))
    assert.isTrue(Either.isRight(decode({ product_cart: [line], customer: { email: "a@b.co", name: "A" } })))
  })
})

describe("CheckoutSession.statusAt / asOf", () => {
  const open = sessionOf([{ product: oneTime, quantity: 1 }])

  it("an open session reads open before expires_at and expired from it on", () => {
    assert.deepStrictEqual(DateTime.distanceDuration(open.created_at, open.expires_at), Duration.hours(24))
    assert.strictEqual(CheckoutSession.statusAt(open, t0), "open")
    assert.strictEqual(CheckoutSession.statusAt(open, before), "open")
    assert.strictEqual(CheckoutSession.statusAt(open, expiry), "expired")
    assert.strictEqual(CheckoutSession.statusAt(open, at("30 days")), "expired")
    assert.strictEqual(CheckoutSession.asOf(open, before), open)
    assert.deepStrictEqual(CheckoutSession.asOf(open, expiry), { ...open, status: "expired" })
    assert.strictEqual(open.status, "open", "asOf does not modify the session")
  })

  it("complete and expired sessions stay what they are at any time", () => {
    const done = Either.getOrThrow(complete(open, paid, at("1 hour")))
    const expired = Either.getOrThrow(expire(open, expiry))
    for (const when of [t0, before, expiry, at("400 days")]) {
      assert.strictEqual(CheckoutSession.statusAt(done, when), "complete")
      assert.strictEqual(CheckoutSession.asOf(done, when), done)
      assert.strictEqual(CheckoutSession.statusAt(expired, when), "expired")
    }
  })

  it.prop(
    "for any instant, statusAt is expired exactly when an open session's expiry has passed",
    [FastCheck.integer({ min: -48 * 3600_000, max: 48 * 3600_000 })],
    ([offset]) => {
      const when = DateTime.add(open.expires_at, { millis: offset })
      assert.strictEqual(CheckoutSession.statusAt(open, when), offset >= 0 ? "expired" : "open")
      assert.strictEqual(Either.isRight(CheckoutSession.ensurePayable(open, when)), offset < 0)
      assert.strictEqual(Either.isRight(expire(open, when)), offset >= 0)
    },
    { fastCheck: { numRuns: 200 } }
  )
})

describe("CheckoutSession.ensurePayable / complete / expire", () => {
  const open = sessionOf([{ product: monthly, quantity: 1 }])

  it("only an open session before its expiry is payable", () => {
    assert.strictEqual(Either.getOrThrow(CheckoutSession.ensurePayable(open, before)), open)
    const late = CheckoutSession.ensurePayable(open, expiry)
    assert.strictEqual(leftTag(late), "InvalidState")
    assert.isTrue(Either.isLeft(late) && late.left.message.includes("expired"))
    const done = Either.getOrThrow(complete(open, paid, t0))
    const again = CheckoutSession.ensurePayable(done, t0)
    assert.strictEqual(leftTag(again), "InvalidState")
    assert.isTrue(Either.isLeft(again) && again.left.message.includes("complete"))
  })

  it("complete sets status, payment_id, subscription_id and completed_at", () => {
    const subscriptionId = hexId("sub") as SubscriptionId
    const when = at("2 hours")
    const done = Either.getOrThrow(complete(open, { ...paid, subscriptionId }, when))
    assert.deepStrictEqual(done, {
      ...open,
      status: "complete",
      payment_id: paid.paymentId,
      subscription_id: subscriptionId,
      completed_at: when
    })
  })

  it("complete refuses a complete or an expired session; an open one completes even past its expiry (money was taken)", () => {
    const done = Either.getOrThrow(complete(open, paid, t0))
    assert.strictEqual(leftTag(complete(done, paid, t0)), "InvalidState")
    const expired = Either.getOrThrow(expire(open, expiry))
    assert.strictEqual(leftTag(complete(expired, paid, t0)), "InvalidState")
    // A charge still processing at the expiry kept the session from expiring; its success completes it.
    const late = Either.getOrThrow(complete(open, paid, at("25 hours")))
    assert.strictEqual(late.status, "complete")
    assert.deepStrictEqual(late.completed_at, at("25 hours"))
  })

  it.prop(
    "random command sequences: open goes to complete or expired once, both final; payment fields only on completion",
    [FastCheck.array(
      FastCheck.tuple(
        FastCheck.constantFrom("Complete" as const, "Expire" as const),
        FastCheck.integer({ min: 0, max: 48 * 3600_000 })
      ),
      { maxLength: 8 }
    )],
    ([commands]) => {
      let session = open
      let ended: CheckoutSession.CheckoutSession | undefined
      for (const [tag, offset] of commands) {
        const now = DateTime.add(t0, { millis: offset })
        const command: CheckoutSession.SessionCommand = tag === "Complete" ? { _tag: "Complete", ...paid } : { _tag: "Expire" }
        const result = CheckoutSession.transition(session, command, now)
        if (session.status !== "open") {
          assert.strictEqual(leftTag(result), "InvalidState", "an ended session is final")
          continue
        }
        const due = DateTime.greaterThanOrEqualTo(now, open.expires_at)
        assert.strictEqual(Either.isRight(result), tag === "Complete" || due)
        if (Either.isLeft(result)) continue
        session = result.right
        ended = session
        assert.strictEqual(session.status, tag === "Complete" ? "complete" : "expired")
        assert.strictEqual(session.payment_id, tag === "Complete" ? paid.paymentId : null)
        assert.strictEqual(session.completed_at === null, tag !== "Complete")
      }
      if (ended !== undefined) assert.strictEqual(session, ended, "nothing changes after the end")
      assert.strictEqual(session.total_amount, open.total_amount)
    },
    { fastCheck: { numRuns: 300 } }
  )

  it("expire only turns an open session past its expiry into expired", () => {
    const expired = Either.getOrThrow(expire(open, expiry))
    assert.deepStrictEqual(expired, { ...open, status: "expired" })
    assert.strictEqual(leftTag(expire(open, before)), "InvalidState")
    assert.strictEqual(leftTag(expire(expired, at("48 hours"))), "InvalidState")
    const done = Either.getOrThrow(complete(open, paid, t0))
    assert.strictEqual(leftTag(expire(done, at("48 hours"))), "InvalidState")
  })

  it("the session shapes: a stored session is a valid CheckoutSession and its resource hides the form token", () => {
    assert.isTrue(Schema.is(CheckoutSession.CheckoutSession)(open))
    const encoded = Schema.encodeSync(CheckoutSession.CheckoutSessionResource)(open) as Record<string, unknown>
    assert.notProperty(encoded, "form_token")
    assert.notProperty(encoded, "account_id")
    assert.notProperty(encoded, "customer_id")
    assert.strictEqual(encoded.expires_at, "2026-11-22T10:00:00.000Z")
  })
})

describe("CheckoutSession.open and its customer", () => {
  const customer = {
    customer_id: hexId("cus") as CustomerId,
    name: "Mona",
    email: "mona@example.com",
    phone_number: null
  }

  it("opens for 24 hours with the cart priced, and shows the customer it was created for", () => {
    const s = sessionOf([{ product: oneTime, quantity: 3 }])
    assert.deepStrictEqual([s.status, s.total_amount, s.customer, s.customer_id], ["open", 15000, null, null])
    assert.isTrue(DateTime.Equivalence(s.expires_at, expiry))
    const priced = Either.getOrThrow(CheckoutSession.price([{ product: oneTime, quantity: 1 }], null))
    const withCustomer = CheckoutSession.open({
      id: hexId("cks") as CheckoutSessionId,
      accountId,
      livemode: true,
      checkoutUrl: "http://127.0.0.1:4242/checkout/x",
      kind: "payment",
      priced,
      customer,
      returnUrl: null,
      metadata: {},
      formToken: "token",
      now: t0
    })
    assert.strictEqual(withCustomer.customer_id, customer.customer_id)
    assert.deepStrictEqual(withCustomer.customer, { name: "Mona", email: "mona@example.com", phone_number: null })
  })

  it("takes its payer when it completes, never before, and keeps the customer it was created for", () => {
    const s = sessionOf([{ product: oneTime, quantity: 1 }])
    const other = { ...customer, customer_id: hexId("cus") as CustomerId, email: "other@example.com" }
    const done = Either.getOrThrow(CheckoutSession.transition(s, { _tag: "Complete", ...paid, payer: customer }, t0))
    assert.strictEqual(done.customer_id, customer.customer_id)
    assert.deepStrictEqual(done.customer, { name: "Mona", email: "mona@example.com", phone_number: null })
    const expired = Either.getOrThrow(CheckoutSession.transition(s, { _tag: "Expire" }, expiry))
    assert.deepStrictEqual([expired.customer_id, expired.customer], [null, null])
    const forMona = { ...s, customer_id: customer.customer_id, customer: done.customer }
    const paidByOther = Either.getOrThrow(CheckoutSession.transition(forMona, { _tag: "Complete", ...paid, payer: other }, t0))
    assert.deepStrictEqual([paidByOther.customer_id, paidByOther.customer?.email], [customer.customer_id, "mona@example.com"])
  })
})
