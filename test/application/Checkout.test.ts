/** Checkout use cases over the memory store with TestClock (docs/decisions.md §2, §3, §4, §5, §7). */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Schema, TestClock } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Customers } from "../../src/application/Customers.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { TestClocks } from "../../src/application/TestClocks.js"
import type { Scope } from "../../src/domain/Account.js"
import * as CheckoutForm from "../../src/domain/CheckoutForm.js"
import type { CheckoutSessionId, CustomerId, ProductId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import { cards, formWith, makeProduct, makeSession, pay, storedSession } from "../support/checkout.js"
import { fourScopes, newAccount, withEngine } from "./harness.js"

const start = Date.parse("2026-11-21T10:00:00.000Z")
const atStart = TestClock.setTime(start)
const iso = (t: DateTime.Utc | null) => (t === null ? null : DateTime.formatIso(t))
const encodePayment = Schema.encodeSync(Payment.PaymentResource)

const failureTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : "succeeded"
const failureMessage = <A, E extends { readonly message: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left.message : ""

const paymentsOf = (scope: Scope, sessionId: CheckoutSessionId) =>
  Effect.map(Effect.flatMap(Payments, (p) => p.list(scope, { checkout_session_id: sessionId, limit: 100 })), (l) => l.items)
const eventsOf = (scope: Scope, type?: "payment.succeeded" | "payment.failed" | "refund.succeeded") =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { type, limit: 100 })), (l) => l.items)
const missingProduct = `pdt_${"f".repeat(32)}` as ProductId

describe("Checkout.create", () => {
  it.effect("prices the cart and fills every field; expires 24 hours after creation", () =>
    Effect.gen(function*() {
      yield* atStart
      const checkout = yield* Checkout
      const { test } = yield* newAccount
      const beans = yield* makeProduct(test, { name: "Beans", price: 5000 })
      const cup = yield* makeProduct(test, { name: "Cup", price: 3000 })
      const session = yield* checkout.create(test, {
        product_cart: [{ product_id: beans.product_id, quantity: 2 }, { product_id: cup.product_id }],
        return_url: "https://shop.example/thanks?order=42",
        metadata: { order: "42" }
      })
      assert.match(session.session_id, /^cks_[0-9a-f]{32}$/)
      assert.strictEqual(session.kind, "payment")
      assert.strictEqual(session.status, "open")
      assert.strictEqual(session.total_amount, 13000)
      assert.strictEqual(session.currency, "AED")
      assert.deepStrictEqual(session.product_cart, [
        { product_id: beans.product_id, name: "Beans", quantity: 2, unit_amount: 5000 },
        { product_id: cup.product_id, name: "Cup", quantity: 1, unit_amount: 3000 }
      ])
      assert.strictEqual(session.checkout_url, `http://127.0.0.1:4242/checkout/${session.session_id}`)
      assert.isNull(session.customer)
      assert.isNull(session.customer_id)
      assert.isNull(session.payment_id)
      assert.isNull(session.subscription_id)
      assert.isNull(session.completed_at)
      assert.strictEqual(session.return_url, "https://shop.example/thanks?order=42")
      assert.deepStrictEqual(session.metadata, { order: "42" })
      assert.isFalse(session.livemode)
      assert.strictEqual(DateTime.toEpochMillis(session.created_at), start)
      assert.strictEqual(DateTime.toEpochMillis(session.expires_at), start + 24 * 3600_000)
      assert.isTrue(session.form_token.length >= 16)
      assert.deepStrictEqual(yield* checkout.get(test, session.session_id), session)
      // A later price change does not touch the session.
      const other = yield* checkout.create(test, { product_cart: [{ product_id: beans.product_id }] })
      assert.notStrictEqual(other.form_token, session.form_token, "every session has its own form token")
    }).pipe(withEngine()))

  it.effect("checkout_url uses FILS_PUBLIC_URL without trailing slashes", () =>
    Effect.gen(function*() {
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      assert.strictEqual(session.checkout_url, `https://pay.example.ae/checkout/${session.session_id}`)
    }).pipe(withEngine([["FILS_PUBLIC_URL", "https://pay.example.ae//"]])))

  it.effect("kind: exactly one recurring line is a subscription, any other cart a payment", () =>
    Effect.gen(function*() {
      const { test } = yield* newAccount
      const monthly = yield* makeProduct(test, { billing: "recurring", billing_interval: "month", price: 9900 })
      const once = yield* makeProduct(test)
      const kind = (cart: ReadonlyArray<{ product_id: string; quantity?: number }>) =>
        Effect.map(makeSession(test, { product_cart: cart }), (s) => [s.kind, s.total_amount] as const)
      assert.deepStrictEqual(yield* kind([{ product_id: monthly.product_id }]), ["subscription", 9900])
      assert.deepStrictEqual(yield* kind([{ product_id: monthly.product_id, quantity: 3 }]), ["subscription", 29700])
      assert.deepStrictEqual(yield* kind([{ product_id: once.product_id }]), ["payment", 5000])
      assert.deepStrictEqual(
        yield* kind([{ product_id: monthly.product_id }, { product_id: once.product_id }]),
        ["payment", 14900]
      )
      assert.deepStrictEqual(
        yield* kind([{ product_id: monthly.product_id }, { product_id: monthly.product_id }]),
        ["payment", 19800]
      )
    }).pipe(withEngine()))

  it.effect("a customer given by id fills the session's customer", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const { test } = yield* newAccount
      const c = yield* customers.create(test, { email: "Amal@Example.ae", name: "Amal", phone_number: "+971501111111" })
      const session = yield* makeSession(test, { customer: { customer_id: c.customer_id } })
      assert.strictEqual(session.customer_id, c.customer_id)
      assert.deepStrictEqual(session.customer, { name: "Amal", email: "Amal@Example.ae", phone_number: "+971501111111" })
    }).pipe(withEngine()))

  it.effect("an unknown, malformed or other-scope customer_id is InvalidRequest", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const scopes = yield* fourScopes
      const product = yield* makeProduct(scopes[0])
      const foreign = yield* customers.create(scopes[2], { email: "x@example.ae" })
      const sameAccountLive = yield* customers.create(scopes[1], { email: "y@example.ae" })
      for (const id of [`cus_${"0".repeat(32)}`, "cus_1", foreign.customer_id, sameAccountLive.customer_id]) {
        const r = yield* Effect.either(
          makeSession(scopes[0], { product_cart: [{ product_id: product.product_id }], customer: { customer_id: id } })
        )
        assert.strictEqual(failureTag(r), "InvalidRequest", id)
        assert.include(failureMessage(r), id)
      }
    }).pipe(withEngine()))

  it.effect("a customer given by e-mail reuses the scope's customer (any case), else creates one", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const { live, test } = yield* newAccount
      const existing = yield* customers.create(test, { email: "Noor@Example.ae", name: "Noor" })
      yield* customers.create(live, { email: "noor@example.ae" }) // another mode: never used
      const reused = yield* makeSession(test, { customer: { email: "NOOR@example.AE", name: "Someone Else" } })
      assert.strictEqual(reused.customer_id, existing.customer_id)
      assert.deepStrictEqual(reused.customer, { name: "Noor", email: "Noor@Example.ae", phone_number: null })
      assert.strictEqual((yield* customers.list(test, {})).items.length, 1)

      const fresh = yield* makeSession(test, {
        customer: { email: "sara@example.ae", name: "Sara", phone_number: "+971502222222" }
      })
      assert.isNotNull(fresh.customer_id)
      assert.notStrictEqual(fresh.customer_id, existing.customer_id)
      const created = yield* customers.get(test, fresh.customer_id as CustomerId)
      assert.strictEqual(created.email, "sara@example.ae")
      assert.strictEqual(created.name, "Sara")
      assert.strictEqual(created.phone_number, "+971502222222")
      assert.deepStrictEqual(fresh.customer, { name: "Sara", email: "sara@example.ae", phone_number: "+971502222222" })
      // The same e-mail again reuses the one just created.
      const again = yield* makeSession(test, { customer: { email: "Sara@Example.AE" } })
      assert.strictEqual(again.customer_id, fresh.customer_id)
      assert.strictEqual((yield* customers.list(test, {})).items.length, 2)
    }).pipe(withEngine()))

  it.effect("an unknown, malformed or other-scope product is InvalidRequest naming it; nothing is created", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const scopes = yield* fourScopes
      const mine = yield* makeProduct(scopes[0])
      const theirs = yield* makeProduct(scopes[2])
      for (const id of [missingProduct, "pdt_nope", "cus_" + "a".repeat(32), theirs.product_id]) {
        const r = yield* Effect.either(makeSession(scopes[0], {
          product_cart: [{ product_id: mine.product_id }, { product_id: id }],
          customer: { email: "new@example.ae" }
        }))
        assert.strictEqual(failureTag(r), "InvalidRequest", id)
        assert.include(failureMessage(r), id)
        assert.include(failureMessage(r), "product_cart.1")
      }
      assert.deepStrictEqual((yield* customers.list(scopes[0], {})).items, [], "the transaction created no customer")
    }).pipe(withEngine()))

  it.effect("draft and archived products are refused", () =>
    Effect.gen(function*() {
      const { test } = yield* newAccount
      const draft = yield* makeProduct(test, { status: "draft" })
      const archived = yield* makeProduct(test, { status: "archived" })
      for (const p of [draft, archived]) {
        const r = yield* Effect.either(makeSession(test, { product_cart: [{ product_id: p.product_id }] }))
        assert.strictEqual(failureTag(r), "InvalidRequest")
        assert.include(failureMessage(r), p.status)
      }
    }).pipe(withEngine()))

  it.effect("a live key without live payments is PaymentsDisabled, even with a valid cart", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account, live } = yield* newAccount
      const product = yield* makeProduct(live)
      const r = yield* Effect.either(makeSession(live, { product_cart: [{ product_id: product.product_id }] }))
      assert.strictEqual(failureTag(r), "PaymentsDisabled")
      // The operator's consent alone is not enough: the (simulated) processor does not take live charges here.
      yield* accounts.update(account.account_id, { live_payments_enabled: true })
      const still = yield* Effect.either(makeSession(live, { product_cart: [{ product_id: product.product_id }] }))
      assert.strictEqual(failureTag(still), "PaymentsDisabled")
    }).pipe(withEngine()))

  it.effect("live payments work with the operator's consent and a live-capable processor", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account, live } = yield* newAccount
      const product = yield* makeProduct(live)
      assert.strictEqual(
        failureTag(yield* Effect.either(makeSession(live, { product_cart: [{ product_id: product.product_id }] }))),
        "PaymentsDisabled"
      )
      yield* accounts.update(account.account_id, { live_payments_enabled: true })
      const session = yield* makeSession(live, { product_cart: [{ product_id: product.product_id }] })
      assert.isTrue(session.livemode)
    }).pipe(withEngine([["FILS_SIMULATED_LIVE", "true"]])))

  it.effect("get: NotFound in every other scope", () =>
    Effect.gen(function*() {
      const checkout = yield* Checkout
      const scopes = yield* fourScopes
      const session = yield* makeSession(scopes[0])
      for (const other of scopes.slice(1)) {
        assert.strictEqual(failureTag(yield* Effect.either(checkout.get(other, session.session_id))), "NotFound")
      }
      assert.strictEqual(
        failureTag(yield* Effect.either(checkout.get(scopes[0], `cks_${"0".repeat(32)}` as CheckoutSessionId))),
        "NotFound"
      )
    }).pipe(withEngine()))

  it.effect("get reads an open session past its expiry as expired", () =>
    Effect.gen(function*() {
      yield* atStart
      const checkout = yield* Checkout
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      yield* TestClock.adjust("23 hours")
      assert.strictEqual((yield* checkout.get(test, session.session_id)).status, "open")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* checkout.get(test, session.session_id)).status, "expired")
      assert.strictEqual((yield* storedSession(session.session_id)).status, "open", "before any job has run")
    }).pipe(withEngine()))
})

describe("Checkout.pay", () => {
  it.effect("invalid input: Invalid with field errors, no payment, no event, session unchanged", () =>
    Effect.gen(function*() {
      yield* atStart
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      const result = yield* pay(session.session_id, {
        ...formWith("4242424242424241"),
        email: "nope",
        cvc: "1",
        exp_month: "10",
        exp_year: "2026"
      })
      assert.strictEqual(result._tag, "Invalid")
      if (result._tag !== "Invalid") return
      assert.deepStrictEqual(Object.keys(result.errors).sort(), ["card_number", "cvc", "email", "exp_year"])
      assert.strictEqual(result.session.session_id, session.session_id)
      assert.deepStrictEqual(yield* paymentsOf(test, session.session_id), [])
      assert.deepStrictEqual(yield* eventsOf(test), [])
      assert.deepStrictEqual(yield* storedSession(session.session_id), session)
    }).pipe(withEngine()))

  it.effect("a decline: failed payment + payment.failed, session open; a retry with 4242 completes it", () =>
    Effect.gen(function*() {
      yield* atStart
      const payments = yield* Payments
      const checkout = yield* Checkout
      const { test } = yield* newAccount
      const session = yield* makeSession(test, { metadata: { order: "7" } })

      const declined = yield* pay(session.session_id, formWith(cards.declined))
      assert.strictEqual(declined._tag, "Paid")
      if (declined._tag !== "Paid") return
      const failed = declined.payment
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.failure_code, "card_declined")
      assert.strictEqual(failed.fee_amount, 0)
      assert.strictEqual(failed.net_amount, 5000)
      assert.isNull(failed.paid_at)
      assert.strictEqual(failed.billing_reason, "payment")
      assert.strictEqual(failed.checkout_session_id, session.session_id)
      assert.deepStrictEqual(failed.metadata, { order: "7" })
      assert.strictEqual(failed.card?.last4, "0002")
      assert.strictEqual(declined.session.status, "open")
      assert.isNull(declined.session.payment_id)
      const afterDecline = yield* checkout.get(test, session.session_id)
      assert.strictEqual(afterDecline.status, "open")
      // The form's customer is the payment's; the session takes its payer only when a charge succeeds.
      assert.deepStrictEqual([afterDecline.customer_id, afterDecline.customer], [null, null])
      assert.deepStrictEqual(failed.customer && { ...failed.customer, customer_id: "" }, {
        customer_id: "",
        name: "Layla Haddad",
        email: "layla@example.ae",
        phone_number: "+971501234567"
      })
      const failedEvents = yield* eventsOf(test, "payment.failed")
      assert.strictEqual(failedEvents.length, 1)
      assert.deepStrictEqual(failedEvents[0]!.data, encodePayment(yield* payments.get(test, failed.payment_id)))
      assert.deepStrictEqual(yield* eventsOf(test, "payment.succeeded"), [])

      yield* TestClock.adjust("1 minute")
      const retry = yield* pay(session.session_id, formWith(cards.visa))
      assert.strictEqual(retry._tag, "Paid")
      if (retry._tag !== "Paid") return
      const paid = retry.payment
      assert.strictEqual(paid.status, "succeeded")
      assert.notStrictEqual(paid.payment_id, failed.payment_id)
      assert.strictEqual(paid.fee_amount, Payment.fee(5000, Payment.defaultFees))
      assert.strictEqual(paid.net_amount, 5000 - paid.fee_amount)
      assert.strictEqual(DateTime.toEpochMillis(paid.paid_at!), start + 60_000)
      assert.strictEqual(paid.customer?.customer_id, failed.customer?.customer_id, "the same customer (by e-mail) pays again")
      assert.deepStrictEqual(paid.card && { brand: paid.card.brand, last4: paid.card.last4 }, { brand: "visa", last4: "4242" })
      assert.isNull(paid.failure_code)
      assert.deepStrictEqual(Payment.violations(paid), [])

      const completed = yield* checkout.get(test, session.session_id)
      assert.strictEqual(completed.status, "complete")
      assert.strictEqual(completed.payment_id, paid.payment_id)
      assert.strictEqual(completed.customer_id, paid.customer?.customer_id)
      assert.strictEqual(DateTime.toEpochMillis(completed.completed_at!), start + 60_000)
      assert.deepStrictEqual(retry.session, completed)

      const succeededEvents = yield* eventsOf(test, "payment.succeeded")
      assert.strictEqual(succeededEvents.length, 1)
      assert.deepStrictEqual(succeededEvents[0]!.data, encodePayment(yield* payments.get(test, paid.payment_id)))
      assert.strictEqual(succeededEvents[0]!.livemode, false)
      const listed = yield* paymentsOf(test, session.session_id)
      assert.deepStrictEqual(listed.map((p) => [p.payment_id, p.status]), [
        [paid.payment_id, "succeeded"],
        [failed.payment_id, "failed"]
      ])
    }).pipe(withEngine()))

  it.effect("each declining card fails with its own code and leaves the session open", () =>
    Effect.gen(function*() {
      const checkout = yield* Checkout
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      const expected = [
        [cards.declined, "card_declined"],
        [cards.insufficientFunds, "insufficient_funds"],
        [cards.expiredCard, "expired_card"],
        [cards.processingError, "processing_error"]
      ] as const
      for (const [card, code] of expected) {
        const r = yield* pay(session.session_id, formWith(card))
        assert.strictEqual(r._tag === "Paid" && r.payment.status, "failed", card)
        assert.strictEqual(r._tag === "Paid" && r.payment.failure_code, code)
      }
      assert.strictEqual((yield* checkout.get(test, session.session_id)).status, "open")
      assert.strictEqual((yield* eventsOf(test, "payment.failed")).length, 4)
      const other = yield* makeSession(test)
      const ok = yield* pay(other.session_id, formWith(cards.mastercard))
      assert.strictEqual(ok._tag === "Paid" && ok.payment.status, "succeeded")
      assert.strictEqual(ok._tag === "Paid" && ok.payment.card?.brand, "mastercard")
    }).pipe(withEngine()))

  it.effect("a form token that does not match is refused and creates nothing", () =>
    Effect.gen(function*() {
      const checkout = yield* Checkout
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      for (const token of ["", "forged", `${session.form_token}x`]) {
        const r = yield* Effect.either(checkout.pay(session.session_id, token, CheckoutForm.fromSubmitted(formWith(cards.visa))))
        assert.strictEqual(failureTag(r), "InvalidRequest", token)
      }
      const otherSession = yield* makeSession(test)
      const r = yield* Effect.either(checkout.pay(session.session_id, otherSession.form_token, CheckoutForm.fromSubmitted(formWith(cards.visa))))
      assert.strictEqual(failureTag(r), "InvalidRequest", "another session's token")
      assert.deepStrictEqual(yield* paymentsOf(test, session.session_id), [])
      assert.deepStrictEqual(yield* eventsOf(test), [])
      assert.strictEqual((yield* checkout.get(test, session.session_id)).status, "open")
    }).pipe(withEngine()))

  it.effect("a complete or expired session cannot be paid: InvalidState, nothing created", () =>
    Effect.gen(function*() {
      yield* atStart
      const { test } = yield* newAccount
      const done = yield* makeSession(test)
      assert.strictEqual((yield* pay(done.session_id, formWith(cards.visa)))._tag, "Paid")
      const late = yield* makeSession(test)

      const again = yield* Effect.either(pay(done.session_id, formWith(cards.visa)))
      assert.strictEqual(failureTag(again), "InvalidState")
      assert.include(failureMessage(again), "complete")
      assert.strictEqual((yield* paymentsOf(test, done.session_id)).length, 1)

      yield* TestClock.adjust("24 hours")
      for (const form of [formWith(cards.visa), formWith(cards.visa, { cvc: "" })]) {
        const r = yield* Effect.either(pay(late.session_id, form))
        assert.strictEqual(failureTag(r), "InvalidState")
        assert.include(failureMessage(r), "expired")
      }
      assert.deepStrictEqual(yield* paymentsOf(test, late.session_id), [])
      assert.strictEqual((yield* eventsOf(test)).length, 1, "only the first payment's event")
    }).pipe(withEngine()))

  it.effect("an unknown session is NotFound", () =>
    Effect.gen(function*() {
      const checkout = yield* Checkout
      const r = yield* Effect.either(checkout.pay(`cks_${"0".repeat(32)}` as CheckoutSessionId, "t", CheckoutForm.fromSubmitted(formWith(cards.visa))))
      assert.strictEqual(failureTag(r), "NotFound")
    }).pipe(withEngine()))

  it.effect("0259: processing, a second submission refused, settled as succeeded after 2 s by resolvePending", () =>
    Effect.gen(function*() {
      yield* atStart
      const checkout = yield* Checkout
      const payments = yield* Payments
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      const first = yield* pay(session.session_id, formWith(cards.settleSucceeds))
      assert.strictEqual(first._tag, "Paid")
      if (first._tag !== "Paid") return
      assert.strictEqual(first.payment.status, "processing")
      assert.isNotNull(first.payment.charge_id)
      assert.strictEqual((yield* checkout.get(test, session.session_id)).status, "open")
      assert.deepStrictEqual(yield* eventsOf(test), [], "no event while processing")

      const second = yield* Effect.either(pay(session.session_id, formWith(cards.visa)))
      assert.strictEqual(failureTag(second), "InvalidState")
      assert.strictEqual((yield* paymentsOf(test, session.session_id)).length, 1)

      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* payments.resolvePending(), 0, "not settled before 2 s")
      assert.strictEqual((yield* payments.get(test, first.payment.payment_id)).status, "processing")

      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* payments.resolvePending(), 1)
      const settled = yield* payments.get(test, first.payment.payment_id)
      assert.strictEqual(settled.status, "succeeded")
      assert.strictEqual(DateTime.toEpochMillis(settled.paid_at!), start + 3000)
      assert.strictEqual(settled.fee_amount, Payment.fee(settled.total_amount, Payment.defaultFees))
      assert.strictEqual(settled.card?.last4, "0259", "the card is kept from the charge")
      const completed = yield* checkout.get(test, session.session_id)
      assert.strictEqual(completed.status, "complete")
      assert.strictEqual(completed.payment_id, settled.payment_id)
      const events = yield* eventsOf(test, "payment.succeeded")
      assert.strictEqual(events.length, 1)
      assert.deepStrictEqual(events[0]!.data, encodePayment(settled))
      assert.strictEqual(yield* payments.resolvePending(), 0, "nothing left to settle")
    }).pipe(withEngine()))

  it.effect("0267: processing, then settles as failed; the session stays open and can be paid again", () =>
    Effect.gen(function*() {
      const checkout = yield* Checkout
      const payments = yield* Payments
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      const first = yield* pay(session.session_id, formWith(cards.settleFails))
      assert.strictEqual(first._tag === "Paid" && first.payment.status, "processing")
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(yield* payments.resolvePending(), 1)
      const [failed] = yield* paymentsOf(test, session.session_id)
      assert.strictEqual(failed!.status, "failed")
      assert.strictEqual(failed!.fee_amount, 0)
      assert.strictEqual((yield* checkout.get(test, session.session_id)).status, "open")
      const events = yield* eventsOf(test, "payment.failed")
      assert.deepStrictEqual(events.map((e) => e.data.payment_id), [failed!.payment_id])
      const retry = yield* pay(session.session_id, formWith(cards.visa))
      assert.strictEqual(retry._tag === "Paid" && retry.payment.status, "succeeded")
      assert.strictEqual((yield* checkout.get(test, session.session_id)).status, "complete")
    }).pipe(withEngine()))

  it.effect("expireDue marks open sessions past expiry expired, skipping one with a processing payment", () =>
    Effect.gen(function*() {
      yield* atStart
      const checkout = yield* Checkout
      const { test } = yield* newAccount
      const idle = yield* makeSession(test)
      const pending = yield* makeSession(test)
      const done = yield* makeSession(test)
      yield* pay(pending.session_id, formWith(cards.settleSucceeds))
      yield* pay(done.session_id, formWith(cards.visa))
      yield* TestClock.adjust("1 hour")
      const fresh = yield* makeSession(test)

      assert.strictEqual(yield* checkout.expireDue(), 0, "nothing is due before 24 hours")
      yield* TestClock.adjust("23 hours")
      assert.strictEqual(yield* checkout.expireDue(), 1)
      assert.strictEqual((yield* storedSession(idle.session_id)).status, "expired")
      assert.strictEqual((yield* storedSession(pending.session_id)).status, "open", "a processing payment keeps it")
      assert.strictEqual((yield* storedSession(done.session_id)).status, "complete")
      assert.strictEqual((yield* storedSession(fresh.session_id)).status, "open")
      assert.strictEqual(yield* checkout.expireDue(), 0, "already expired")
      assert.strictEqual((yield* checkout.get(test, idle.session_id)).status, "expired")
      assert.strictEqual((yield* checkout.get(test, done.session_id)).status, "complete")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(yield* checkout.expireDue(), 1, "the later session")
      assert.strictEqual((yield* storedSession(fresh.session_id)).status, "expired")
    }).pipe(withEngine()))

  // docs/decisions.md §2: both end states are final. Regression: a session whose async charge was still processing at
  // its expiry once read `expired` (asOf looked only at expires_at) and then `complete` when the charge settled.
  it.effect("a session never reads expired and later complete (async charge settling across the expiry)", () =>
    Effect.gen(function*() {
      yield* atStart
      const checkout = yield* Checkout
      const payments = yield* Payments
      const { test } = yield* newAccount
      const session = yield* makeSession(test)
      yield* TestClock.adjust("86399 seconds") // one second before expiry
      const r = yield* pay(session.session_id, formWith(cards.settleSucceeds))
      assert.strictEqual(r._tag === "Paid" && r.payment.status, "processing")
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* checkout.expireDue(), 0, "the job keeps it open while the charge is processing")
      const seen = [(yield* checkout.get(test, session.session_id)).status]
      assert.strictEqual(yield* payments.resolvePending(), 1)
      seen.push((yield* checkout.get(test, session.session_id)).status)
      // Either it stays open until it completes, or once expired it stays expired; never expired → complete.
      assert.notDeepEqual(seen, ["expired", "complete"])
    }).pipe(withEngine()))

  it.effect("two concurrent submissions with 4242: exactly one succeeded payment", () =>
    Effect.gen(function*() {
      const checkout = yield* Checkout
      const { test } = yield* newAccount
      for (let round = 0; round < 5; round++) {
        const session = yield* makeSession(test)
        const results = yield* Effect.all(
          [pay(session.session_id, formWith(cards.visa)), pay(session.session_id, formWith(cards.visa))],
          { concurrency: "unbounded", mode: "either" }
        )
        const ok = results.filter(Either.isRight)
        assert.strictEqual(ok.length, 1, `round ${round}`)
        for (const r of results.filter(Either.isLeft)) assert.strictEqual(r.left._tag, "InvalidState")
        const listed = yield* paymentsOf(test, session.session_id)
        assert.deepStrictEqual(listed.map((p) => p.status), ["succeeded"])
        const s = yield* checkout.get(test, session.session_id)
        assert.strictEqual(s.status, "complete")
        assert.strictEqual(s.payment_id, listed[0]!.payment_id)
      }
      assert.strictEqual((yield* eventsOf(test, "payment.succeeded")).length, 5)
    }).pipe(withEngine()))

  it.effect("a session's known customer pays; a new payer with a known e-mail (any case) reuses that customer", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const { test } = yield* newAccount
      const known = yield* customers.create(test, { email: "Omar@Example.ae", name: "Omar" })
      const withCustomer = yield* makeSession(test, { customer: { customer_id: known.customer_id } })
      const r1 = yield* pay(withCustomer.session_id, formWith(cards.visa, { email: "other@example.ae" }))
      assert.strictEqual(r1._tag === "Paid" && r1.payment.customer?.customer_id, known.customer_id)

      const anonymous = yield* makeSession(test)
      const r2 = yield* pay(anonymous.session_id, formWith(cards.visa, { email: "omar@EXAMPLE.ae", name: "O" }))
      assert.strictEqual(r2._tag === "Paid" && r2.payment.customer?.customer_id, known.customer_id)
      assert.strictEqual((yield* storedSession(anonymous.session_id)).customer_id, known.customer_id)
      const list = yield* customers.list(test, {})
      assert.deepStrictEqual(list.items.map((c) => c.customer_id), [known.customer_id], "no duplicate customer")
    }).pipe(withEngine()))

  it.effect("a checkout by e-mail beside a clock's customer with that e-mail stays on real time, API and hosted form alike", () =>
    Effect.gen(function*() {
      yield* atStart
      const shop = yield* newAccount
      const clock = yield* (yield* TestClocks).create(shop.test, { frozen_time: DateTime.unsafeMake("2030-01-31T09:00:00.000Z") })
      const onClock = yield* (yield* Customers).create(shop.test, { email: "layla@example.ae", test_clock_id: clock.test_clock_id })
      // The hosted form of a session without a customer, the clock customer's e-mail typed: on real time, a customer
      // of its own.
      const hosted = yield* makeSession(shop.test)
      const typed = yield* pay(hosted.session_id, formWith(cards.visa, { email: "LAYLA@example.ae" }))
      if (typed._tag !== "Paid") return yield* Effect.dieMessage(`not paid: ${typed._tag}`)
      assert.notStrictEqual(typed.payment.customer?.customer_id, onClock.customer_id)
      assert.strictEqual(iso(typed.payment.paid_at), new Date(start).toISOString())
      // By e-mail through the API: real time, never the clock's customer.
      const byEmail = yield* makeSession(shop.test, { customer: { email: "Layla@Example.ae", name: "Layla Haddad" } })
      assert.notStrictEqual(byEmail.customer_id, onClock.customer_id)
      assert.strictEqual(iso(byEmail.created_at), new Date(start).toISOString())
      const paid = yield* pay(byEmail.session_id, formWith(cards.visa))
      if (paid._tag !== "Paid") return yield* Effect.dieMessage(`not paid: ${paid._tag}`)
      assert.deepStrictEqual([paid.payment.customer?.customer_id, iso(paid.payment.paid_at)], [byEmail.customer_id, new Date(start).toISOString()])
      const own = yield* (yield* Customers).get(shop.test, byEmail.customer_id!)
      assert.strictEqual(own.test_clock_id, null)
    }).pipe(withEngine()))
})
