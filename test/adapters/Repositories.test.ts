/**
 * `layerStore` hands each use case the store's own repositories under their Tags: the operations an adapter
 * implements, unchanged, and each aggregate's parts (a payment's refunds, an endpoint's deliveries, an account's keys)
 * where its repository says.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeStoreMemory } from "../../adapters/memory/StoreMemory.js"
import {
  AccountRepository,
  CheckoutSessionRepository,
  CustomerRepository,
  EventRepository,
  IdempotencyRepository,
  layerStore,
  PaymentRepository,
  PortalSessionRepository,
  ProductRepository,
  RateLimitRepository,
  Store,
  SubscriptionRepository,
  Transactions,
  UserRepository,
  WebhookRepository
} from "../../src/ports/Store.js"

it.effect("every repository is the store's own, under its Tag", () =>
  Effect.gen(function*() {
    const store = yield* Store
    const accounts = yield* AccountRepository
    assert.strictEqual(accounts.get, store.accounts.get)
    assert.strictEqual(accounts.keys, store.apiKeys)
    const payments = yield* PaymentRepository
    assert.strictEqual(payments.find, store.payments.find)
    assert.strictEqual(payments.refunds, store.refunds)
    const webhooks = yield* WebhookRepository
    assert.strictEqual(webhooks.subscribed, store.webhooks.subscribed)
    assert.strictEqual(webhooks.deliveries, store.deliveries)
    assert.strictEqual(yield* CheckoutSessionRepository, store.sessions)
    assert.strictEqual(yield* CustomerRepository, store.customers)
    assert.strictEqual(yield* EventRepository, store.events)
    assert.strictEqual(yield* IdempotencyRepository, store.idempotency)
    assert.strictEqual(yield* PortalSessionRepository, store.portalSessions)
    assert.strictEqual(yield* ProductRepository, store.products)
    assert.strictEqual(yield* RateLimitRepository, store.rateLimits)
    assert.strictEqual(yield* SubscriptionRepository, store.subscriptions)
    assert.strictEqual(yield* UserRepository, store.dashboard)
    const transactions = yield* Transactions
    assert.strictEqual(transactions.transact, store.transact)
    assert.strictEqual(transactions.inTransaction, store.inTransaction)
  }).pipe(Effect.provide(layerStore(makeStoreMemory))))
