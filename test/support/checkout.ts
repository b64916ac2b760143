/** Helpers for checkout and payment tests over the engine: products, sessions, a filled-in form, paying. */
import { Effect, Option } from "effect"
import { Checkout } from "../../src/application/Checkout.js"
import { Products } from "../../src/application/Products.js"
import type { Scope } from "../../src/domain/Account.js"
import * as CheckoutForm from "../../src/domain/CheckoutForm.js"
import type * as CheckoutSession from "../../src/domain/CheckoutSession.js"
import type { CheckoutSessionId } from "../../src/domain/Ids.js"
import type * as Product from "../../src/domain/Product.js"
import { Store } from "../../src/ports/Store.js"

export { cards } from "../../adapters/processor/SimulatedProcessor.js"

/** A valid form, as typed, paying with `card` (expiry far in the future whatever the test clock says). */
export const formWith = (card: string, overrides: CheckoutForm.SubmittedForm = {}): CheckoutForm.SubmittedForm => ({
  name: "Layla Haddad",
  email: "layla@example.ae",
  phone_number: "+971501234567",
  card_number: card,
  exp_month: "12",
  exp_year: "2090",
  cvc: "123",
  ...overrides
})

export const makeProduct = (scope: Scope, input: Partial<Product.ProductCreate> = {}) =>
  Effect.flatMap(Products, (p) => p.create(scope, { name: "Beans", price: 5000, currency: "AED", ...input }))

/** A session over a one-line cart of a new product (or the given input). */
export const makeSession = (
  scope: Scope,
  input: Partial<CheckoutSession.CheckoutSessionCreate> = {}
) =>
  Effect.gen(function*() {
    const checkout = yield* Checkout
    const cart = input.product_cart ?? [{ product_id: (yield* makeProduct(scope)).product_id, quantity: 1 }]
    return yield* checkout.create(scope, { ...input, product_cart: cart })
  })

/** The session as stored (with its form token), whatever its scope. */
export const storedSession = (id: CheckoutSessionId) =>
  Effect.flatMap(Store, (store) => Effect.map(store.sessions.find(id), Option.getOrThrow))

/** Submits the page's form for `id` with its own form token, read as the page reads it. */
export const pay = (id: CheckoutSessionId, form: CheckoutForm.SubmittedForm) =>
  Effect.gen(function*() {
    const checkout = yield* Checkout
    const session = yield* storedSession(id)
    return yield* checkout.pay(id, session.form_token, CheckoutForm.fromSubmitted(form))
  })

/** A one-product checkout of `price` fils paid with `card`: the payment it made (a test fails when none was). */
export const paidWith = (scope: Scope, card: string, price = 10_000) =>
  Effect.gen(function*() {
    const session = yield* makeSession(scope, { product_cart: [{ product_id: (yield* makeProduct(scope, { price })).product_id }] })
    const result = yield* pay(session.session_id, formWith(card))
    if (result._tag !== "Paid") return yield* Effect.dieMessage(`expected a payment, the checkout answered ${result._tag}`)
    return result.payment
  })
