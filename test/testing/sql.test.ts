/**
 * `fils/testing`'s arbitraries on PostgreSQL: what they make passes the database's own constraints (the CHECKs that
 * restate the domain's invariants) and reads back equal through `StoreSql`. Resources without links to others are
 * stored as made; a payment is stored without its links (customer, session, subscription), which would need those
 * rows first.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, FastCheck as fc, Layer, Option, Schema } from "effect"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { Arbitraries } from "../../adapters/testing/index.js"
import type { Scope } from "../../src/domain/Account.js"
import * as Customer from "../../src/domain/Customer.js"
import * as Event from "../../src/domain/Event.js"
import * as Payment from "../../src/domain/Payment.js"
import * as Product from "../../src/domain/Product.js"
import * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"
import { Store } from "../../src/ports/Store.js"
import { FreshDatabase } from "../support/database.js"

/** One account, in both modes, inserted on this file's database before the properties run. */
const [accountId] = fc.sample(Arbitraries.accountId, { numRuns: 1 })
const test: Scope = { accountId: accountId!, livemode: false }
const live: Scope = { accountId: accountId!, livemode: true }

const AccountLive = Layer.effectDiscard(Effect.gen(function*() {
  const store = yield* Store
  yield* store.accounts.insert({
    account_id: accountId!,
    business_name: "Souq",
    support_email: null,
    live_payments_enabled: false,
    tax_profile: null,
    time_zone: "Asia/Dubai",
    two_factor_required: false,
    created_at: yield* DateTime.now
  })
}))

const Live = AccountLive.pipe(Layer.provideMerge(StoreSql.pipe(Layer.provide(FreshDatabase({ maxConnections: 4 })))))

/** Both values encoded by `schema` (instants as ISO strings) are deeply equal. */
const sameAs = <A, I>(schema: Schema.Schema<A, I>, stored: A, read: A) =>
  assert.deepStrictEqual(Schema.encodeSync(schema)(read), Schema.encodeSync(schema)(stored))

/** Values of the arbitrary in either mode of the account. */
const inEitherMode = <A>(arbitrary: (scope: Scope) => fc.Arbitrary<A>) => fc.oneof(arbitrary(test), arbitrary(live))
const scopeOf = (value: { readonly livemode: boolean }) => (value.livemode ? live : test)

const runs = { fastCheck: { numRuns: 25 } }

describe("arbitraries on PostgreSQL", () => {
  it.layer(Live, { timeout: "60 seconds" })((it) => {
    it.effect.prop("products are stored and read back", [inEitherMode(Arbitraries.product)], ([product]) =>
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.products.insert(product)
        sameAs(Product.Product, product, Option.getOrThrow(yield* store.products.get(scopeOf(product), product.product_id)))
      }), runs)

    it.effect.prop("customers are stored and read back", [inEitherMode(Arbitraries.customer)], ([customer]) =>
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.customers.insert(customer)
        sameAs(
          Customer.Customer,
          customer,
          Option.getOrThrow(yield* store.customers.get(scopeOf(customer), customer.customer_id))
        )
      }), runs)

    it.effect.prop("webhook endpoints are stored and read back", [inEitherMode(Arbitraries.webhookEndpoint)], ([endpoint]) =>
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.webhooks.insert(endpoint)
        sameAs(
          WebhookEndpoint.WebhookEndpoint,
          endpoint,
          Option.getOrThrow(yield* store.webhooks.get(scopeOf(endpoint), endpoint.webhook_id))
        )
      }), runs)

    it.effect.prop("events are stored and read back", [inEitherMode(Arbitraries.event)], ([event]) =>
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.events.insert(event)
        sameAs(Event.Event, event, Option.getOrThrow(yield* store.events.get(scopeOf(event), event.event_id)))
      }), runs)

    it.effect.prop("payments pass the database's invariant checks and read back", [inEitherMode(Arbitraries.payment)], ([made]) =>
      Effect.gen(function*() {
        const store = yield* Store
        const payment: Payment.Payment = {
          ...made,
          customer: null,
          checkout_session_id: null,
          subscription_id: null,
          billing_reason: "payment"
        }
        yield* store.payments.insert(payment)
        sameAs(Payment.Payment, payment, Option.getOrThrow(yield* store.payments.get(scopeOf(payment), payment.payment_id)))
      }), runs)
  })
})
