/**
 * The Store contract: one suite that every Store adapter passes (memory and PostgreSQL), so that the use cases,
 * tested over memory, behave the same on the database. Each test makes its own accounts, keys and buckets: the
 * store is shared by the whole suite. The fixtures are exported for adapter-specific suites.
 */
import { assert, expect, layer } from "@effect/vitest"
import { Cause, DateTime, Duration, Effect, Either, Exit, FastCheck, type Layer, Option, Redacted } from "effect"
import { newId } from "../../src/application/Ids.js"
import type { Account, ApiKey, Scope } from "../../src/domain/Account.js"
import { type CheckoutSession, position as CheckoutSessionPosition } from "../../src/domain/CheckoutSession.js"
import type { Customer } from "../../src/domain/Customer.js"
import type * as Discount from "../../src/domain/Discount.js"
import * as Event from "../../src/domain/Event.js"
import * as Idempotency from "../../src/domain/Idempotency.js"
import type {
  AccountId,
  ApiKeyId,
  CheckoutSessionId,
  CustomerId,
  EventId,
  PaymentId,
  PortalSessionId,
  RefundId,
  UserId,
  AuditId,
  ProductId,
  SubscriptionId,
  TestClockId
} from "../../src/domain/Ids.js"
import * as Pagination from "../../src/domain/Pagination.js"
import * as Payment from "../../src/domain/Payment.js"
import * as PortalSession from "../../src/domain/PortalSession.js"
import type { BillingInterval, Product, ProductFilter } from "../../src/domain/Product.js"
import * as RateWindow from "../../src/domain/RateWindow.js"
import * as Refund from "../../src/domain/Refund.js"
import type * as DashboardUser from "../../src/domain/DashboardUser.js"
import * as Subscription from "../../src/domain/Subscription.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import * as TestClock from "../../src/domain/TestClock.js"
import type { Trn } from "../../src/domain/Vat.js"
import type { TwoFactor } from "../../src/domain/TwoFactor.js"
import { type CustomerFilter, type EventFilter, type PaymentFilter, type RenewalAttempt, Store, type StoreShape, type SubscriptionFilter, type Repositories } from "../../src/ports/Store.js"
import { invoice as invoiceArbitrary } from "../support/taxDocuments.js"

// Fixtures -----------------------------------------------------------------------------------------------------------

export const T0 = Date.UTC(2026, 10, 21, 10, 0, 0, 0)
export const at = (millis: number) => DateTime.unsafeMake(millis)

/** Domain values as plain JSON (DateTime → ISO string), for deep equality. */
/** A value as JSON, its `Redacted` secrets in clear (so that a secret stored and read back is compared too). */
export const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, function(this: Record<string, unknown>, key: string, json: unknown) {
    const original = this[key]
    return Redacted.isRedacted(original) ? { redacted: Redacted.value(original) } : json
  }))
export const same = (actual: unknown, expected: unknown) => assert.deepStrictEqual(plain(actual), plain(expected))

const unique = () => newId<string>("evt").pipe(Effect.map((id) => id.slice(4)))

const makeAccount = Effect.fn("makeAccount")(function*(overrides: Partial<Account> = {}) {
  const store = yield* Store
  const account: Account = {
    account_id: yield* newId<AccountId>("acct"),
    business_name: "Souq Books",
    support_email: "help@souq.ae",
    live_payments_enabled: false,
    tax_profile: null,
    time_zone: "Asia/Dubai",
    two_factor_required: false,
    created_at: at(T0),
    ...overrides
  }
  yield* store.accounts.insert(account)
  return account
})

const makeProduct = (scope: Scope, overrides: Partial<Product> = {}) =>
  Effect.map(newId<ProductId>("pdt"), (id): Product => ({
    object: "product",
    product_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    name: "Arabic calligraphy course",
    description: "",
    price: 34900,
    currency: "AED",
    billing: "one_time",
    billing_interval: null,
    interval_count: null,
    trial_period_days: 0,
    trial_amount: null,
    status: "active",
    tax_category: "S",
    tax_exemption_code: null,
    item_type: "S",
    item_code: null,
    plan_change_policy: null,
    offered_in_portal: false,
    metadata: {},
    created_at: at(T0),
    updated_at: null,
    ...overrides
  }))

export const makeCustomer = (scope: Scope, overrides: Partial<Customer> = {}) =>
  Effect.map(newId<CustomerId>("cus"), (id): Customer => ({
    object: "customer",
    customer_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    name: "Mona Haddad",
    email: "mona@example.ae",
    phone_number: "+971501234567",
    business: null,
    metadata: {},
    test_clock_id: null,
    created_at: at(T0),
    ...overrides
  }))

export const makeSession = (scope: Scope, overrides: Partial<CheckoutSession> = {}) =>
  Effect.gen(function*() {
    const id = yield* newId<CheckoutSessionId>("cks")
    const created = overrides.created_at ?? at(T0)
    const session: CheckoutSession = {
      object: "checkout_session",
      session_id: id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      kind: "payment",
      status: "open",
      checkout_url: `https://pay.souq.ae/checkout/${id}`,
      total_amount: 74800,
      tax: null,
      tax_lines: null,
      currency: "AED",
      product_cart: [
        { product_id: yield* newId<ProductId>("pdt"), name: "Arabic calligraphy course", quantity: 2, unit_amount: 34900 },
        { product_id: yield* newId<ProductId>("pdt"), name: "Qalam set", quantity: 1, unit_amount: 5000 }
      ],
      discounts: [],
      customer: null,
      customer_id: null,
      return_url: "https://souq.ae/thanks",
      payment_id: null,
      subscription_id: null,
      trial_period_days: null,
      period_tax_lines: null,
      metadata: {},
      created_at: created,
      expires_at: DateTime.addDuration(created, Duration.hours(24)),
      completed_at: null,
      form_token: `form-${yield* unique()}`,
      ...overrides
    }
    return session
  })

/** A session due to expire at `expiresAt` (created 24 hours before). */
export const dueAt = (expiresAt: number): Partial<CheckoutSession> => ({
  created_at: at(expiresAt - 86_400_000),
  expires_at: at(expiresAt)
})

export const sessionCustomer = (c: Customer) => ({ name: c.name, email: c.email, phone_number: c.phone_number })
export const paymentCustomer = (c: Customer): Payment.PaymentCustomer => ({
  customer_id: c.customer_id,
  name: c.name,
  email: c.email,
  phone_number: c.phone_number
})

/** A `processing` payment, as the checkout records it before charging; overrides make any other. */
export const makePayment = (scope: Scope, overrides: Partial<Payment.Payment> = {}) =>
  Effect.map(newId<PaymentId>("pay"), (id): Payment.Payment => ({
    object: "payment",
    payment_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    status: "processing",
    total_amount: 74800,
    tax: null,
    tax_lines: null,
    refunded_amount: 0,
    fee_amount: 0,
    net_amount: 74800,
    currency: "AED",
    description: "Arabic calligraphy course × 2, Qalam set",
    customer: null,
    checkout_session_id: null,
    subscription_id: null,
    billing_reason: "payment",
    discounts: [],
    metadata: {},
    created_at: at(T0),
    paid_at: null,
    card: null,
    charge_id: null,
    failure_code: null,
    credit_applied: 0,
    ...overrides
  }))

export const card: Payment.CardOnFile = { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030, token: "tok_sim_ok_0123abcd" }

/** The payment after a command of the domain's machine: the states the store must hold are the ones it makes. */
export const next = (payment: Payment.Payment, command: Payment.PaymentCommand, now = at(T0 + 60_000)) =>
  Either.getOrThrow(Payment.transition(payment, command, now)).next
export const settled = (payment: Payment.Payment, outcome: Payment.ChargeOutcome) =>
  next({ ...payment, card, charge_id: `ch_${payment.payment_id.slice(4)}` }, { _tag: "Settle", outcome })
export const succeededOf = (payment: Payment.Payment) => settled(payment, { _tag: "Succeeded" })
export const failedOf = (payment: Payment.Payment) => settled(payment, { _tag: "Failed", code: "card_declined" })

export const makeEvent = (scope: Scope, overrides: Partial<Event.Event> = {}) =>
  Effect.map(newId<EventId>("evt"), (id): Event.Event => ({
    object: "event",
    event_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    type: "payment.succeeded",
    created_at: at(T0),
    data: { object: "payment", payment_id: `pay_${id.slice(4)}`, total_amount: 74800, status: "succeeded" },
    request_id: null,
    ...overrides
  }))

/** What a subscription refers to: a recurring product and a customer of `scope`, both stored. */
export interface SubscriptionParents {
  readonly scope: Scope
  readonly product: Product
  readonly customer: Customer
}

export const subscriptionParents = (
  store: StoreShape,
  scope: Scope,
  schedule: { readonly interval: BillingInterval; readonly count: number } = { interval: "month", count: 1 }
) =>
  Effect.gen(function*() {
    const product = yield* makeProduct(scope, {
      name: "Calligraphy club",
      price: 4900,
      billing: "recurring",
      billing_interval: schedule.interval,
      interval_count: schedule.count
    })
    const customer = yield* makeCustomer(scope)
    yield* store.products.insert(product)
    yield* store.customers.insert(customer)
    return { scope, product, customer } satisfies SubscriptionParents
  })

/** The card a subscription keeps: what the first payment used, token included. */
export const subscriptionCard: Payment.CardOnFile = {
  brand: "mastercard",
  last4: "5454",
  exp_month: 2,
  exp_year: 2031,
  token: "tok_sim_ok_5454feed"
}

/** The subscription a first payment at `paidAt` starts (`Subscription.start`): active, period 0. */
export const startSubscription = (
  parents: SubscriptionParents,
  options: {
    readonly paidAt?: number
    readonly quantity?: number
    readonly checkoutSessionId?: CheckoutSessionId | null
    readonly metadata?: Record<string, string>
    readonly customerName?: string | null
    readonly trialDays?: number
  } = {}
) =>
  Effect.map(newId<SubscriptionId>("sub"), (id) =>
    Subscription.start({
      id,
      accountId: parents.scope.accountId,
      livemode: parents.scope.livemode,
      product: {
        product_id: parents.product.product_id,
        name: parents.product.name,
        billing_interval: parents.product.billing_interval!,
        interval_count: parents.product.interval_count!
      },
      quantity: options.quantity ?? 1,
      unitAmount: parents.product.price,
      currency: "AED",
      customer: {
        customer_id: parents.customer.customer_id,
        name: options.customerName === undefined ? parents.customer.name : options.customerName,
        email: parents.customer.email
      },
      card: subscriptionCard,
      checkoutSessionId: options.checkoutSessionId ?? null,
      metadata: options.metadata ?? {},
      paidAt: at(options.paidAt ?? T0),
      taxLines: null,
      trialDays: options.trialDays
    }).next)

/** The subscription after a command of the domain's machine at `now`. */
export const advance = (s: Subscription.Subscription, command: Subscription.SubscriptionCommand, now: number) =>
  Either.getOrThrow(Subscription.transition(s, command, at(now))).next

/** Every state along a run of commands (the start not included). */
export const run = (
  s: Subscription.Subscription,
  steps: ReadonlyArray<readonly [Subscription.SubscriptionCommand, number]>
): Array<Subscription.Subscription> => {
  const states: Array<Subscription.Subscription> = []
  let current = s
  for (const [command, now] of steps) states.push(current = advance(current, command, now))
  return states
}

export const millis = (t: DateTime.Utc) => DateTime.toEpochMillis(t)
export const dueMillis = (s: Subscription.Subscription) => millis(Subscription.dueAt(s)!)
export const chargeOk: Subscription.SubscriptionCommand = { _tag: "ChargeSucceeded" }
export const chargeDeclined: Subscription.SubscriptionCommand = { _tag: "ChargeFailed" }

/** A renewal payment of `s` (processing), as billing records it with the attempt. */
export const renewalPayment = (s: Subscription.Subscription, overrides: Partial<Payment.Payment> = {}) =>
  makePayment({ accountId: s.account_id, livemode: s.livemode }, {
    subscription_id: s.subscription_id,
    billing_reason: "subscription_renewal",
    total_amount: s.recurring_amount,
    net_amount: s.recurring_amount,
    description: s.name,
    card: { ...s.payment_method, token: s.card_token },
    ...overrides
  })

const paymentPosition = Payment.position
const eventPosition = Event.position

const scopesOf = (account: Account) => ({
  test: { accountId: account.account_id, livemode: false } satisfies Scope,
  live: { accountId: account.account_id, livemode: true } satisfies Scope
})

export const insertAll = <A>(items: ReadonlyArray<A>, insert: (a: A) => Effect.Effect<void, unknown>) =>
  Effect.forEach(items, insert, { discard: true })

/** Reads every page of a list with `limit`, checking the page shapes, and returns the items in order. */
const walk = <A>(
  list: (request: Pagination.PageRequest) => Effect.Effect<Pagination.Page<A>, unknown>,
  position: (a: A) => Pagination.Position,
  limit: number
) =>
  Effect.gen(function*() {
    const seen: Array<A> = []
    let after: Pagination.Position | undefined = undefined
    for (let pages = 0; pages < 1000; pages++) {
      const page: Pagination.Page<A> = yield* list({ limit, after })
      seen.push(...page.items)
      if (!page.hasMore) {
        assert.isAtMost(page.items.length, limit)
        return seen
      }
      assert.strictEqual(page.items.length, limit, "a page with more after it is full")
      after = position(page.items[page.items.length - 1]!)
    }
    return assert.fail("the list never ended")
  })

const productPosition = (p: Product): Pagination.Position => ({
  createdAtMillis: DateTime.toEpochMillis(p.created_at),
  id: p.product_id
})
const customerPosition = (c: Customer): Pagination.Position => ({
  createdAtMillis: DateTime.toEpochMillis(c.created_at),
  id: c.customer_id
})

/** The newest-first order the lists promise: created_at descending, then id descending. */
const newestFirst = <A>(items: ReadonlyArray<A>, position: (a: A) => Pagination.Position) =>
  [...items].sort((a, b) => Pagination.compare(position(a), position(b)))

export const shuffle = <A>(items: ReadonlyArray<A>): Array<A> => {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

const idempotencyRecord = (scope: string, key: string, fingerprint: string, now: number): Idempotency.IdempotencyRecord => ({
  scope,
  key,
  fingerprint,
  response: null,
  lockedUntil: at(now + Duration.toMillis(Idempotency.lease)),
  expiresAt: at(now + Duration.toMillis(Idempotency.retention))
})

const existing = (claim: Idempotency.Claim): Idempotency.IdempotencyRecord => {
  if (claim._tag !== "Existing") return assert.fail(`expected Existing, got ${claim._tag}`)
  return claim.record
}

const failureOf = <A, E>(exit: Exit.Exit<A, E>): Option.Option<E> =>
  Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()

// The suite ------------------------------------------------------------------------------------------------------------

export const storeContract = (name: string, storeLayer: Layer.Layer<Store | Repositories>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: "60 seconds" })(`Store contract: ${name}`, (it) => {
    it.effect("ping answers", () => Effect.flatMap(Store, (store) => store.ping))

    // Accounts and keys ---------------------------------------------------------------------------------------------

    it.effect("accounts: insert, get, update, count, list", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const before = yield* store.accounts.count
        const account = yield* makeAccount({ support_email: null })
        assert.strictEqual(yield* store.accounts.count, before + 1)
        same(yield* store.accounts.get(account.account_id), Option.some(account))

        const updated: Account = { ...account, business_name: "Souq Books LLC", live_payments_enabled: true }
        yield* store.accounts.update(updated)
        same(yield* store.accounts.get(account.account_id), Option.some(updated))
        same(yield* store.transact(store.accounts.lock(account.account_id)), Option.some(updated))
        assert.strictEqual(yield* store.accounts.count, before + 1)

        assert.isTrue(Option.isNone(yield* store.accounts.get(yield* newId<AccountId>("acct"))))

        // findAll: those that exist, each once; a tax profile comes back as stored, removed as null.
        const taxed: Account = {
          ...updated,
          tax_profile: {
            legal_name: "Souq Books Trading LLC",
            legal_name_ar: null,
            trn: "100123456700003" as Trn,
            address: { line1: "Al Fahidi St", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
            trade_licence: { number: "CN-1234567", authority: "Dubai Economy and Tourism" },
            vat_registered: true,
            prices_include_vat: false
          }
        }
        yield* store.accounts.update(taxed)
        const other = yield* makeAccount()
        same(
          yield* store.accounts.findAll([account.account_id, yield* newId<AccountId>("acct"), account.account_id, other.account_id]),
          [taxed, other].sort((a, b) => (a.account_id < b.account_id ? -1 : 1))
        )
        assert.deepStrictEqual(yield* store.accounts.findAll([]), [])
        yield* store.accounts.update(updated)
        same(yield* store.accounts.get(account.account_id), Option.some(updated))

        // list: every account, oldest first, as stored.
        const listed = yield* store.accounts.list
        assert.strictEqual(listed.length, before + 2)
        same(listed.find((a) => a.account_id === account.account_id), updated)
        const times = listed.map((a) => DateTime.toEpochMillis(a.created_at))
        assert.deepStrictEqual(times, [...times].sort((a, b) => a - b))
      }))

    it.effect("api keys: insert, findByHash, get; revoke sets revoked_at once", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const account = yield* makeAccount()
        const key: ApiKey = {
          key_id: yield* newId<ApiKeyId>("key"),
          account_id: account.account_id,
          livemode: true,
          hash: `sha256-${yield* unique()}`,
          last4: "x9Qz",
          created_at: at(T0),
          revoked_at: null
        }
        yield* store.apiKeys.insert(key)
        same(yield* store.apiKeys.findByHash(key.hash), Option.some(key))
        same(yield* store.apiKeys.get(key.key_id), Option.some(key))
        assert.isTrue(Option.isNone(yield* store.apiKeys.findByHash(`sha256-${yield* unique()}`)))

        const first = yield* store.apiKeys.revoke(key.key_id, at(T0 + 1000))
        same(first, Option.some({ ...key, revoked_at: at(T0 + 1000) }))
        const second = yield* store.apiKeys.revoke(key.key_id, at(T0 + 9000))
        same(second, Option.some({ ...key, revoked_at: at(T0 + 1000) }))
        same(yield* store.apiKeys.findByHash(key.hash), Option.some({ ...key, revoked_at: at(T0 + 1000) }))

        assert.isTrue(Option.isNone(yield* store.apiKeys.revoke(yield* newId<ApiKeyId>("key"), at(T0))))

        // "Last used": recorded when later than what is recorded; an unused key has none.
        assert.deepStrictEqual(yield* store.apiKeys.lastUsed([key.key_id]), [])
        yield* store.apiKeys.touch(key.key_id, at(T0 + 5000))
        yield* store.apiKeys.touch(key.key_id, at(T0 + 2000))
        same(yield* store.apiKeys.lastUsed([key.key_id]), [{ key_id: key.key_id, last_used_at: at(T0 + 5000) }])
        assert.deepStrictEqual(yield* store.apiKeys.lastUsed([]), [])
      }))

    // Products and customers ----------------------------------------------------------------------------------------

    it.effect("products: insert, get, update (amounts stay exact numbers)", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const product = yield* makeProduct(test, {
          description: "Twelve lessons",
          price: Number.MAX_SAFE_INTEGER,
          metadata: { sku: "CAL-12", "نوع": "دورة" }
        })
        yield* store.products.insert(product)
        const read = yield* store.products.get(test, product.product_id)
        same(read, Option.some(product))
        assert.strictEqual(Option.getOrThrow(read).price, Number.MAX_SAFE_INTEGER)

        const updated: Product = {
          ...product,
          name: "Calligraphy club",
          price: 4900,
          billing: "recurring",
          billing_interval: "month",
          interval_count: 3,
          status: "archived",
          metadata: { tier: "gold" },
          updated_at: at(T0 + 60_000)
        }
        yield* store.products.update(updated)
        same(yield* store.products.get(test, product.product_id), Option.some(updated))
        same(yield* store.transact(store.products.lock(test, product.product_id)), Option.some(updated))
      }))

    it.effect("customers: insert, get, update", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live } = scopesOf(yield* makeAccount())
        const customer = yield* makeCustomer(live, { metadata: { vip: "yes" } })
        yield* store.customers.insert(customer)
        same(yield* store.customers.get(live, customer.customer_id), Option.some(customer))

        const updated: Customer = { ...customer, name: null, phone_number: null, email: "mona.h@example.ae", metadata: {} }
        yield* store.customers.update(updated)
        same(yield* store.customers.get(live, customer.customer_id), Option.some(updated))
        same(yield* store.transact(store.customers.lock(live, customer.customer_id)), Option.some(updated))
      }))

    it.effect("scopes: another account or the other mode never sees an object", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const mine = scopesOf(yield* makeAccount())
        const theirs = scopesOf(yield* makeAccount())
        const product = yield* makeProduct(mine.test)
        const customer = yield* makeCustomer(mine.test)
        yield* store.products.insert(product)
        yield* store.customers.insert(customer)
        const page = { limit: 100, after: undefined }

        for (const other of [mine.live, theirs.test, theirs.live]) {
          assert.isTrue(Option.isNone(yield* store.products.get(other, product.product_id)))
          assert.isTrue(Option.isNone(yield* store.customers.get(other, customer.customer_id)))
          // Locking reads keep to their scope as the plain ones do.
          assert.isTrue(Option.isNone(yield* store.transact(store.products.lock(other, product.product_id))))
          assert.isTrue(Option.isNone(yield* store.transact(store.customers.lock(other, customer.customer_id))))
          assert.deepStrictEqual((yield* store.products.list(other, {}, page)).items, [])
          assert.deepStrictEqual((yield* store.customers.list(other, {}, page)).items, [])
          assert.deepStrictEqual((yield* store.customers.list(other, { email: customer.email }, page)).items, [])
        }
        same((yield* store.products.list(mine.test, {}, page)).items, [product])
        same((yield* store.customers.list(mine.test, {}, page)).items, [customer])
      }))

    it.effect("lists: newest first, ties broken by id descending; keyset pages walk every item exactly once", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test, live } = scopesOf(yield* makeAccount())
        // Several items share a millisecond, so only the id orders them.
        const offsets = [0, 0, 0, 0, 1, 1, 5, 5, 5, -3, 2_000, -86_400_000]
        const products = yield* Effect.forEach(offsets, (d) => makeProduct(test, { created_at: at(T0 + d) }))
        const customers = yield* Effect.forEach(offsets, (d) => makeCustomer(test, { created_at: at(T0 + d) }))
        yield* insertAll(shuffle(products), store.products.insert)
        yield* insertAll(shuffle(customers), store.customers.insert)
        // Noise in the other mode, with the same times.
        yield* insertAll(yield* Effect.forEach(offsets, (d) => makeProduct(live, { created_at: at(T0 + d) })), store.products.insert)

        const expectedProducts = newestFirst(products, productPosition).map((p) => p.product_id)
        const expectedCustomers = newestFirst(customers, customerPosition).map((c) => c.customer_id)
        // The expectation itself: equal times in descending id order.
        const tied = products.filter((p) => DateTime.toEpochMillis(p.created_at) === T0).map((p) => p.product_id)
        assert.deepStrictEqual(expectedProducts.filter((id) => tied.includes(id)), [...tied].sort().reverse())

        for (const limit of [1, 2, 3, 5, 12, 100]) {
          const walkedProducts = yield* walk((r) => store.products.list(test, {}, r), productPosition, limit)
          assert.deepStrictEqual(walkedProducts.map((p) => p.product_id), expectedProducts, `products, limit ${limit}`)
          const walkedCustomers = yield* walk((r) => store.customers.list(test, {}, r), customerPosition, limit)
          assert.deepStrictEqual(walkedCustomers.map((c) => c.customer_id), expectedCustomers, `customers, limit ${limit}`)
        }
        same(
          (yield* store.products.list(test, {}, { limit: 100, after: undefined })).items,
          newestFirst(products, productPosition)
        )
      }))

    it.effect("lists: a page after a position starts strictly after it", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const products = yield* Effect.forEach([0, 0, 0], () => makeProduct(test))
        yield* insertAll(products, store.products.insert)
        const [a, b, c] = newestFirst(products, productPosition)
        const after = yield* store.products.list(test, {}, { limit: 10, after: productPosition(a!) })
        assert.deepStrictEqual(after.items.map((p) => p.product_id), [b!.product_id, c!.product_id])
        assert.isFalse(after.hasMore)
        const last = yield* store.products.list(test, {}, { limit: 10, after: productPosition(c!) })
        assert.deepStrictEqual(last.items, [])
        assert.isFalse(last.hasMore)
      }))

    it.effect("products.getAll: the scope's products among the ids, each once; others and unknown ids left out", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const { test: theirs } = scopesOf(yield* makeAccount())
        const ours = yield* Effect.forEach([1, 2, 3], (i) => makeProduct(test, { price: i * 100 }))
        const liveOne = yield* makeProduct(live)
        const theirOne = yield* makeProduct(theirs)
        yield* insertAll([...ours, liveOne, theirOne], store.products.insert)
        const unknown = yield* newId<ProductId>("pdt")
        const ids = [ours[2]!.product_id, liveOne.product_id, ours[0]!.product_id, theirOne.product_id, unknown, ours[2]!.product_id]
        const found = yield* store.products.getAll(test, ids)
        const byId = (items: ReadonlyArray<Product>) => [...items].sort((a, b) => (a.product_id < b.product_id ? -1 : 1))
        same(byId(found), byId([ours[0]!, ours[2]!]))
        same(yield* store.products.getAll(live, ids), [liveOne])
        same(yield* store.products.getAll(test, []), [])
      }))

    it.effect("products.findAll: by id alone, across scopes, each once in byte order of its id; unknown ids left out", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const { test: theirs } = scopesOf(yield* makeAccount())
        const found = yield* Effect.forEach([test, live, theirs, test], (scope) => makeProduct(scope))
        yield* insertAll(found, store.products.insert)
        const unknown = yield* newId<ProductId>("pdt")
        const ids = [found[3]!.product_id, unknown, found[0]!.product_id, found[2]!.product_id, found[3]!.product_id, found[1]!.product_id]
        same(yield* store.products.findAll(ids), [...found].sort((a, b) => (a.product_id < b.product_id ? -1 : 1)))
        same(yield* store.products.findAll([unknown]), [])
        same(yield* store.products.findAll([]), [])
      }))

    it.effect("products: status, billing and portal filters, with paging", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const kinds = [
          { status: "active", billing: "one_time" },
          { status: "draft", billing: "one_time" },
          { status: "archived", billing: "one_time" },
          { status: "active", billing: "recurring" },
          { status: "draft", billing: "recurring" }
        ] as const
        const products = yield* Effect.forEach([0, 1, 2], (round) =>
          Effect.forEach(kinds, (kind, i) =>
            makeProduct(test, {
              status: kind.status,
              billing: kind.billing,
              billing_interval: kind.billing === "recurring" ? "month" : null,
              interval_count: kind.billing === "recurring" ? 1 : null,
              offered_in_portal: kind.billing === "recurring" && round !== 1,
              created_at: at(T0 + round * 10 + (i % 2))
            }))).pipe(Effect.map((rounds) => rounds.flat()))
        yield* insertAll(shuffle(products), store.products.insert)

        const filters: ReadonlyArray<ProductFilter> = [
          {},
          { status: "active" },
          { status: "draft" },
          { status: "archived" },
          { billing: "recurring" },
          { billing: "one_time" },
          { status: "draft", billing: "recurring" },
          { status: "archived", billing: "recurring" },
          { status: "active", billing: "recurring", offered_in_portal: true },
          { offered_in_portal: false }
        ]
        for (const filter of filters) {
          const expected = newestFirst(
            products.filter((p) =>
              (filter.status === undefined || p.status === filter.status) &&
              (filter.billing === undefined || p.billing === filter.billing) &&
              (filter.offered_in_portal === undefined || p.offered_in_portal === filter.offered_in_portal)
            ),
            productPosition
          ).map((p) => p.product_id)
          for (const limit of [1, 4, 100]) {
            const walked = yield* walk((r) => store.products.list(test, filter, r), productPosition, limit)
            assert.deepStrictEqual(walked.map((p) => p.product_id), expected, `${JSON.stringify(filter)}, limit ${limit}`)
          }
        }
        assert.strictEqual(
          (yield* walk((r) => store.products.list(test, { status: "draft", billing: "recurring" }, r), productPosition, 2))
            .length,
          3
        )
      }))

    it.effect("customers: the e-mail filter and findByEmail ignore case; the filter pages", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test, live } = scopesOf(yield* makeAccount())
        const monas = yield* Effect.forEach(
          ["Mona@Example.AE", "mona@example.ae", "MONA@EXAMPLE.AE"],
          (email, i) => makeCustomer(test, { email, created_at: at(T0 + i) })
        )
        const others = [
          yield* makeCustomer(test, { email: "omar@example.ae" }),
          yield* makeCustomer(test, { email: "mona@example.ae.evil" }),
          yield* makeCustomer(live, { email: "mona@example.ae" })
        ]
        yield* insertAll(shuffle([...monas, ...others]), store.customers.insert)

        const expected = newestFirst(monas, customerPosition).map((c) => c.customer_id)
        for (const filter of [{ email: "mona@example.ae" }, { email: "MoNa@ExAmPlE.Ae" }] satisfies Array<CustomerFilter>) {
          for (const limit of [1, 2, 10]) {
            const walked = yield* walk((r) => store.customers.list(test, filter, r), customerPosition, limit)
            assert.deepStrictEqual(walked.map((c) => c.customer_id), expected)
          }
        }
        // findByEmail: the newest match in the scope.
        same(yield* store.customers.findByEmail(test, "mona@EXAMPLE.ae"), Option.some(newestFirst(monas, customerPosition)[0]))
        same(yield* store.customers.findByEmail(live, "Mona@Example.AE"), Option.some(others[2]))
        assert.isTrue(Option.isNone(yield* store.customers.findByEmail(test, "nobody@example.ae")))

        const omar = yield* store.customers.list(test, { email: "OMAR@example.ae" }, { limit: 10, after: undefined })
        same(omar.items, [others[0]])
        assert.deepStrictEqual(
          (yield* store.customers.list(test, { email: "nobody@example.ae" }, { limit: 10, after: undefined })).items,
          []
        )
      }))

    it.effect("customers: findByEmail is the newest match (ties by id) in the scope, never another account's nor a clock's", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const mine = scopesOf(yield* makeAccount())
        const theirs = scopesOf(yield* makeAccount())
        const older = yield* makeCustomer(mine.test, { email: "layla@example.ae", created_at: at(T0 - 1) })
        const tied = [
          yield* makeCustomer(mine.test, { email: "LAYLA@example.ae", created_at: at(T0) }),
          yield* makeCustomer(mine.test, { email: "layla@EXAMPLE.AE", created_at: at(T0) })
        ]
        // Newer, but elsewhere: another account, and the other mode of this one.
        const elsewhere = [
          yield* makeCustomer(theirs.test, { email: "layla@example.ae", created_at: at(T0 + 1_000) }),
          yield* makeCustomer(mine.live, { email: "layla@example.ae", created_at: at(T0 + 2_000) })
        ]
        // Newer too, but on a test clock: the clock's own (a checkout by e-mail runs on real time).
        const clock = TestClock.create({ frozen_time: at(T0) }, { id: yield* newId<TestClockId>("clk"), accountId: mine.test.accountId, now: at(T0) })
        yield* store.testClocks.insert(clock)
        const clocked = yield* makeCustomer(mine.test, { email: "layla@example.ae", created_at: at(T0 + 3_000), test_clock_id: clock.test_clock_id })
        const onlyClocked = yield* makeCustomer(mine.test, { email: "rania@example.ae", test_clock_id: clock.test_clock_id })
        yield* insertAll(shuffle([older, ...tied, ...elsewhere, clocked, onlyClocked]), store.customers.insert)

        const newest = newestFirst(tied, customerPosition)[0]!
        same(yield* store.customers.findByEmail(mine.test, "Layla@Example.ae"), Option.some(newest))
        same(yield* store.customers.findByEmail(theirs.test, "layla@example.ae"), Option.some(elsewhere[0]))
        same(yield* store.customers.findByEmail(mine.live, "layla@example.ae"), Option.some(elsewhere[1]))
        assert.isTrue(Option.isNone(yield* store.customers.findByEmail(theirs.live, "layla@example.ae")))
        assert.isTrue(Option.isNone(yield* store.customers.findByEmail(mine.test, "rania@example.ae")))
        // An exact match only: no prefix or pattern.
        assert.isTrue(Option.isNone(yield* store.customers.findByEmail(mine.test, "layla@example")))
        assert.isTrue(Option.isNone(yield* store.customers.findByEmail(mine.test, "%@example.ae")))
      }))

    // Checkout sessions, payments, events ------------------------------------------------------------------------------

    it.effect("products.insertAll: every product of the batch in one write, read back as given; an empty batch is nothing", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const batch = [
          yield* makeProduct(test, { name: "Dates, 1 kg" }),
          yield* makeProduct(live, { billing: "recurring", billing_interval: "month", interval_count: 1 }),
          yield* makeProduct(test, { description: "Weekly box, نادي" })
        ]
        yield* store.products.insertAll([])
        yield* store.products.insertAll(batch)
        for (const product of batch) {
          same(yield* store.products.get({ accountId: product.account_id, livemode: product.livemode }, product.product_id), Option.some(product))
        }
      }))

    it.effect("sessions.insertAll: every session of the batch in one write, read back as given; an empty batch is nothing", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const customer = yield* makeCustomer(test)
        yield* store.customers.insert(customer)
        const batch = [
          yield* makeSession(test, { customer: sessionCustomer(customer), customer_id: customer.customer_id }),
          yield* makeSession(live, { metadata: { order: "B-7" } }),
          yield* makeSession(test, { kind: "subscription" })
        ]
        yield* store.sessions.insertAll([])
        yield* store.sessions.insertAll(batch)
        for (const session of batch) {
          same(yield* store.sessions.get({ accountId: session.account_id, livemode: session.livemode }, session.session_id), Option.some(session))
        }
      }))

    it.effect("sessions: insert, get, find, update (cart, customer and metadata round-trip)", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const customer = yield* makeCustomer(test, { name: null, phone_number: null })
        yield* store.customers.insert(customer)
        const anonymous = yield* makeSession(test, { return_url: null })
        const known = yield* makeSession(test, {
          kind: "subscription",
          total_amount: Number.MAX_SAFE_INTEGER,
          product_cart: [{
            product_id: yield* newId<ProductId>("pdt"),
            name: "نادي الخط — Calligraphy club",
            quantity: 1,
            unit_amount: Number.MAX_SAFE_INTEGER
          }],
          customer: sessionCustomer(customer),
          customer_id: customer.customer_id,
          metadata: { order: "A-1001", "ملاحظة": "هدية" }
        })
        yield* insertAll([anonymous, known], store.sessions.insert)
        for (const session of [anonymous, known]) {
          same(yield* store.sessions.get(test, session.session_id), Option.some(session))
          same(yield* store.sessions.find(session.session_id), Option.some(session))
          same(yield* store.transact(store.sessions.lock(session.session_id)), Option.some(session))
        }
        const read = Option.getOrThrow(yield* store.sessions.get(test, known.session_id))
        assert.strictEqual(read.total_amount, Number.MAX_SAFE_INTEGER)
        assert.strictEqual(read.product_cart[0]!.unit_amount, Number.MAX_SAFE_INTEGER)
        assert.isTrue(Option.isNone(yield* store.sessions.find(yield* newId<CheckoutSessionId>("cks"))))
        assert.isTrue(Option.isNone(yield* store.transact(store.sessions.lock(yield* newId<CheckoutSessionId>("cks")))))

        // The page collects the customer; then a payment succeeds and completes the session.
        const collected: CheckoutSession = {
          ...anonymous,
          customer: sessionCustomer(customer),
          customer_id: customer.customer_id
        }
        yield* store.sessions.update(collected)
        same(yield* store.sessions.find(anonymous.session_id), Option.some(collected))
        const payment = succeededOf(yield* makePayment(test, {
          checkout_session_id: anonymous.session_id,
          customer: paymentCustomer(customer)
        }))
        yield* store.payments.insert(payment)
        const completed: CheckoutSession = {
          ...collected,
          status: "complete",
          payment_id: payment.payment_id,
          completed_at: at(T0 + 60_000)
        }
        yield* store.sessions.update(completed)
        same(yield* store.sessions.get(test, anonymous.session_id), Option.some(completed))

        const expired: CheckoutSession = { ...known, status: "expired" }
        yield* store.sessions.update(expired)
        same(yield* store.sessions.get(test, known.session_id), Option.some(expired))
      }))

    it.effect("payments: every state the domain's machine makes is stored and read back as it was", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live } = scopesOf(yield* makeAccount())
        const customer = yield* makeCustomer(live)
        yield* store.customers.insert(customer)
        const session = yield* makeSession(live, { customer: sessionCustomer(customer), customer_id: customer.customer_id })
        yield* store.sessions.insert(session)

        const check = (payment: Payment.Payment) =>
          Effect.gen(function*() {
            assert.deepStrictEqual(Payment.violations(payment), [], payment.status)
            same(yield* store.payments.get(live, payment.payment_id), Option.some(payment))
            same(yield* store.payments.find(payment.payment_id), Option.some(payment))
            same(yield* store.transact(store.payments.lock(payment.payment_id)), Option.some(payment))
            same(yield* store.transact(store.payments.lockAll([payment.payment_id])), [payment])
          })

        // processing → succeeded → partially_refunded → partially_refunded → refunded (net below zero: fees stay).
        const processing = yield* makePayment(live, {
          checkout_session_id: session.session_id,
          customer: paymentCustomer(customer),
          metadata: { order: "A-1001" }
        })
        yield* store.payments.insert(processing)
        yield* check(processing)
        const states = [succeededOf(processing)]
        states.push(next(states[0]!, { _tag: "Refund", amount: 1 }))
        states.push(next(states[1]!, { _tag: "Refund", amount: 20_000 }))
        states.push(next(states[2]!, { _tag: "Refund", amount: processing.total_amount - 20_001 }))
        assert.deepStrictEqual(states.map((p) => p.status), ["succeeded", "partially_refunded", "partially_refunded", "refunded"])
        assert.isBelow(states[3]!.net_amount, 0)
        for (const state of states) {
          yield* store.payments.update(state)
          yield* check(state)
        }

        // processing → failed; a renewal without a session or customer; a payment of nothing.
        const declined = yield* makePayment(live, { checkout_session_id: session.session_id })
        yield* store.payments.insert(declined)
        yield* store.payments.update(failedOf(declined))
        yield* check(failedOf(declined))
        // (A payment names only a subscription of its own account and mode: the store may check it.)
        const subscription = yield* startSubscription(yield* subscriptionParents(store, live))
        yield* store.subscriptions.insert(subscription)
        const renewal = succeededOf(yield* makePayment(live, {
          billing_reason: "subscription_renewal",
          subscription_id: subscription.subscription_id,
          total_amount: 4900,
          net_amount: 4900
        }))
        yield* store.payments.insert(renewal)
        yield* check(renewal)
        const free = succeededOf(yield* makePayment(live, { total_amount: 0, net_amount: 0 }))
        assert.strictEqual(free.status, "succeeded")
        yield* store.payments.insert(free)
        yield* check(free)
        assert.isTrue(Option.isNone(yield* store.payments.find(yield* newId<PaymentId>("pay"))))
        assert.isTrue(Option.isNone(yield* store.transact(store.payments.lock(yield* newId<PaymentId>("pay")))))
      }))

    it.effect("payments: the newest of several subscriptions at once are each one's first list page, in its own scope", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live } = scopesOf(yield* makeAccount())
        const { test: theirs } = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, live)
        const subs = [yield* startSubscription(parents), yield* startSubscription(parents), yield* startSubscription(parents)]
        for (const s of subs) yield* store.subscriptions.insert(s)
        // Three payments of the first (the last two made in the same millisecond), one of the second, none of the third.
        for (const [i, millis] of [[0, 1], [0, 2], [0, 2], [1, 1]] as const) {
          yield* store.payments.insert(yield* makePayment(live, {
            billing_reason: "subscription_renewal",
            subscription_id: subs[i]!.subscription_id,
            created_at: at(T0 + millis)
          }))
        }
        const firstPage = (s: Subscription.Subscription) =>
          Effect.map(store.payments.list(live, { subscription_id: s.subscription_id }, { limit: 2, after: undefined }), (p) => p.items)
        const named = [subs[1]!, subs[2]!, subs[0]!]
        same(
          yield* store.payments.newestOfSubscriptions(named.map((s) => ({ scope: live, subscriptionId: s.subscription_id })), 2),
          (yield* Effect.forEach(named, firstPage)).flat()
        )
        assert.lengthOf(yield* store.payments.newestOfSubscriptions([{ scope: live, subscriptionId: subs[0]!.subscription_id }], 2), 2)
        assert.deepStrictEqual(
          yield* store.payments.newestOfSubscriptions(subs.map((s) => ({ scope: theirs, subscriptionId: s.subscription_id })), 2),
          [],
          "another scope sees none"
        )
        assert.deepStrictEqual(yield* store.payments.newestOfSubscriptions([], 2), [])
      }))

    it.effect("events: insert and get; data round-trips as JSON", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const event = yield* makeEvent(test, {
          type: "refund.succeeded",
          data: {
            object: "payment",
            total_amount: Number.MAX_SAFE_INTEGER,
            net_amount: -100,
            refund_amount: 0,
            customer: { name: "منى", email: "mona@example.ae", phone_number: null },
            metadata: {},
            lines: [1, "two", { three: [true, false, null] }],
            description: "quote \" backslash \\ newline \n tab \t"
          }
        })
        yield* store.events.insert(event)
        same(yield* store.events.get(test, event.event_id), Option.some(event))
        assert.strictEqual(Option.getOrThrow(yield* store.events.get(test, event.event_id)).data.total_amount, Number.MAX_SAFE_INTEGER)
        assert.isTrue(Option.isNone(yield* store.events.get(test, yield* newId<EventId>("evt"))))
      }))

    it.effect("sessions, payments, events: another account or the other mode never sees them; find is by id alone", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const mine = scopesOf(yield* makeAccount())
        const theirs = scopesOf(yield* makeAccount())
        const customer = yield* makeCustomer(mine.test)
        yield* store.customers.insert(customer)
        const session = yield* makeSession(mine.test, { customer: sessionCustomer(customer), customer_id: customer.customer_id })
        yield* store.sessions.insert(session)
        const payment = yield* makePayment(mine.test, {
          checkout_session_id: session.session_id,
          customer: paymentCustomer(customer)
        })
        yield* store.payments.insert(payment)
        const event = yield* makeEvent(mine.test, { type: "payment.failed" })
        yield* store.events.insert(event)
        const page = { limit: 100, after: undefined }

        for (const other of [mine.live, theirs.test, theirs.live]) {
          assert.isTrue(Option.isNone(yield* store.sessions.get(other, session.session_id)))
          assert.isTrue(Option.isNone(yield* store.payments.get(other, payment.payment_id)))
          assert.isTrue(Option.isNone(yield* store.events.get(other, event.event_id)))
          assert.deepStrictEqual((yield* store.payments.list(other, {}, page)).items, [])
          assert.deepStrictEqual((yield* store.payments.list(other, { customer_id: customer.customer_id }, page)).items, [])
          assert.deepStrictEqual(
            (yield* store.payments.list(other, { checkout_session_id: session.session_id }, page)).items,
            []
          )
          assert.deepStrictEqual((yield* store.payments.list(other, { status: "processing" }, page)).items, [])
          assert.deepStrictEqual((yield* store.events.list(other, {}, page)).items, [])
          assert.deepStrictEqual((yield* store.events.list(other, { type: "payment.failed" }, page)).items, [])
        }
        same((yield* store.payments.list(mine.test, {}, page)).items, [payment])
        same((yield* store.events.list(mine.test, {}, page)).items, [event])
        // The hosted page and the operator reach them by id alone.
        same(yield* store.sessions.find(session.session_id), Option.some(session))
        same(yield* store.payments.find(payment.payment_id), Option.some(payment))
      }))

    it.effect("payments: status, customer_id and checkout_session_id filters, newest first, with paging", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test, live } = scopesOf(yield* makeAccount())
        const customers = [yield* makeCustomer(test), yield* makeCustomer(test, { email: "omar@example.ae" })]
        yield* insertAll(customers, store.customers.insert)
        const sessions = yield* Effect.forEach([0, 1, 2], () => makeSession(test))
        yield* insertAll(sessions, store.sessions.insert)

        // Every (customer or none) × (session or none) × status, with ties on created_at. At most one payment of a
        // session is processing (the store may enforce it).
        const payments: Array<Payment.Payment> = []
        const kinds = ["processing", "succeeded", "failed", "partially_refunded", "refunded"] as const
        let n = 0
        for (const customer of [undefined, ...customers]) {
          for (const session of [undefined, ...sessions]) {
            for (const kind of kinds) {
              if (kind === "processing" && session !== undefined && customer !== customers[0]) continue
              const base = yield* makePayment(test, {
                customer: customer === undefined ? null : paymentCustomer(customer),
                checkout_session_id: session?.session_id ?? null,
                created_at: at(T0 + Math.floor(n++ / 3))
              })
              const paid = succeededOf(base)
              payments.push(
                kind === "processing"
                  ? base
                  : kind === "succeeded"
                  ? paid
                  : kind === "failed"
                  ? failedOf(base)
                  : kind === "partially_refunded"
                  ? next(paid, { _tag: "Refund", amount: 100 })
                  : next(paid, { _tag: "Refund", amount: paid.total_amount })
              )
            }
          }
        }
        yield* insertAll(shuffle(payments), store.payments.insert)
        // Noise: the other mode.
        yield* store.payments.insert(yield* makePayment(live, { created_at: at(T0) }))

        const filters: ReadonlyArray<PaymentFilter> = [
          {},
          ...kinds.map((status) => ({ status })),
          { customer_id: customers[0]!.customer_id },
          { customer_id: customers[1]!.customer_id },
          { checkout_session_id: sessions[0]!.session_id },
          { checkout_session_id: sessions[2]!.session_id },
          { status: "processing", checkout_session_id: sessions[1]!.session_id },
          { status: "refunded", customer_id: customers[1]!.customer_id },
          { status: "failed", customer_id: customers[0]!.customer_id, checkout_session_id: sessions[1]!.session_id },
          { customer_id: yield* newId<CustomerId>("cus") }
        ]
        for (const [i, filter] of filters.entries()) {
          const expected = newestFirst(
            payments.filter((p) =>
              (filter.status === undefined || p.status === filter.status) &&
              (filter.customer_id === undefined || p.customer?.customer_id === filter.customer_id) &&
              (filter.checkout_session_id === undefined || p.checkout_session_id === filter.checkout_session_id)
            ),
            paymentPosition
          ).map((p) => p.payment_id)
          // The expectation is not trivial: every filter but the last (an unknown customer) matches something.
          assert.strictEqual(expected.length === 0, i === filters.length - 1, JSON.stringify(filter))
          for (const limit of [1, 3, 100]) {
            const walked = yield* walk((r) => store.payments.list(test, filter, r), paymentPosition, limit)
            assert.deepStrictEqual(walked.map((p) => p.payment_id), expected, `${JSON.stringify(filter)}, limit ${limit}`)
          }
        }
        assert.strictEqual(payments.length, 3 * 4 * 5 - 2 * 3)
        same(
          (yield* store.payments.list(test, { status: "refunded", customer_id: customers[1]!.customer_id }, { limit: 100, after: undefined })).items,
          newestFirst(payments.filter((p) => p.status === "refunded" && p.customer?.customer_id === customers[1]!.customer_id), paymentPosition)
        )
      }))

    it.effect("payments: the search's amount and card's last 4, alone and with the other filters, newest first, with paging", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test, live } = scopesOf(yield* makeAccount())
        // Every amount × card (or none) × status, with ties on created_at.
        const payments: Array<Payment.Payment> = []
        const amounts = [34_900, 74_800, 100]
        const cards = [null, card, { ...card, last4: "0005", brand: "mastercard" }]
        let n = 0
        for (const total_amount of amounts) {
          for (const used of cards) {
            for (const settle of [succeededOf, failedOf]) {
              const base = yield* makePayment(test, { total_amount, net_amount: total_amount, created_at: at(T0 + Math.floor(n++ / 3)) })
              // Without a card it is still processing (a settled payment has one).
              payments.push(used === null ? base : { ...settle(base), card: used })
            }
          }
        }
        yield* insertAll(shuffle(payments), store.payments.insert)
        // Noise: the same amount and card in the other mode.
        yield* store.payments.insert(succeededOf(yield* makePayment(live, { total_amount: 34_900, net_amount: 34_900, card, created_at: at(T0) })))
        const filters: ReadonlyArray<PaymentFilter> = [
          { amount: 34_900 },
          { amount: 100 },
          { card_last4: "4242" },
          { card_last4: "0005", status: "succeeded" },
          { amount: 74_800, card_last4: "0005" },
          { amount: 34_900, created_from: at(T0 + 1), created_before: at(T0 + 3) },
          { amount: 12_345 }
        ]
        for (const [i, filter] of filters.entries()) {
          const expected = newestFirst(
            payments.filter((p) =>
              (filter.amount === undefined || p.total_amount === filter.amount) &&
              (filter.card_last4 === undefined || p.card?.last4 === filter.card_last4) &&
              (filter.status === undefined || p.status === filter.status) &&
              (filter.created_from === undefined || millis(p.created_at) >= millis(filter.created_from)) &&
              (filter.created_before === undefined || millis(p.created_at) < millis(filter.created_before))
            ),
            paymentPosition
          ).map((p) => p.payment_id)
          // Every filter but the last (an amount no payment has) matches something.
          assert.strictEqual(expected.length === 0, i === filters.length - 1, JSON.stringify(filter))
          for (const limit of [1, 4, 100]) {
            const walked = yield* walk((r) => store.payments.list(test, filter, r), paymentPosition, limit)
            assert.deepStrictEqual(walked.map((p) => p.payment_id), expected, `${JSON.stringify(filter)}, limit ${limit}`)
          }
        }
      }))

    it.effect("events: the type filter, newest first, with paging", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test, live } = scopesOf(yield* makeAccount())
        const offsets = [0, 0, 0, 1, 1, 7, -5, 86_400_000]
        const events = yield* Effect.forEach(Event.eventTypes, (type) =>
          Effect.forEach(offsets, (d) => makeEvent(test, { type, created_at: at(T0 + d) }))).pipe(Effect.map((all) => all.flat()))
        yield* insertAll(shuffle(events), store.events.insert)
        yield* insertAll(yield* Effect.forEach(offsets, (d) => makeEvent(live, { created_at: at(T0 + d) })), store.events.insert)

        const filters: ReadonlyArray<EventFilter> = [{}, ...Event.eventTypes.map((type) => ({ type }))]
        for (const filter of filters) {
          const expected = newestFirst(
            events.filter((e) => filter.type === undefined || e.type === filter.type),
            eventPosition
          ).map((e) => e.event_id)
          for (const limit of [1, 3, 100]) {
            const walked = yield* walk((r) => store.events.list(test, filter, r), eventPosition, limit)
            assert.deepStrictEqual(walked.map((e) => e.event_id), expected, `${JSON.stringify(filter)}, limit ${limit}`)
          }
        }
        same(
          (yield* store.events.list(test, { type: "subscription.on_hold" }, { limit: 100, after: undefined })).items,
          newestFirst(events.filter((e) => e.type === "subscription.on_hold"), eventPosition)
        )
      }))

    it.effect("events: the events about one payment or subscription, however many the account has had since", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const payment = `pay_${"a".repeat(32)}` as PaymentId
        const subscription = `sub_${"b".repeat(32)}` as SubscriptionId
        const about = (type: Event.EventType, created: number, data: Record<string, unknown>) =>
          makeEvent(test, { type, created_at: at(T0 + created), data: { object: "payment", ...data } })
        const mine = [
          yield* about("payment.succeeded", 0, { payment_id: payment, subscription_id: subscription }),
          yield* about("refund.succeeded", 5, { object: "refund", refund_id: "rfd_1", payment_id: payment }),
          yield* about("subscription.active", 1, { object: "subscription", subscription_id: subscription }),
          // An id that is not text names nothing.
          yield* about("payment.failed", 2, { payment_id: 42, subscription_id: null })
        ]
        // 150 newer events of other payments, and the same ids in the other mode.
        const others = yield* Effect.forEach(Array.from({ length: 150 }, (_, i) => i), (i) => makeEvent(test, { created_at: at(T0 + 10 + i) }))
        const elsewhere = yield* makeEvent(live, { data: { payment_id: payment, subscription_id: subscription } })
        yield* store.events.insertAll(shuffle([...mine, ...others]))
        yield* store.events.insert(elsewhere)
        const ids = (page: { readonly items: ReadonlyArray<Event.Event> }) => page.items.map((e) => e.event_id)
        const first = { limit: 10, after: undefined }
        assert.deepStrictEqual(ids(yield* store.events.list(test, { payment_id: payment }, first)), [mine[1]!.event_id, mine[0]!.event_id])
        assert.deepStrictEqual(ids(yield* store.events.list(test, { subscription_id: subscription }, first)), [mine[2]!.event_id, mine[0]!.event_id])
        assert.deepStrictEqual(
          ids(yield* store.events.list(test, { subscription_id: subscription, type: "subscription.active" }, first)),
          [mine[2]!.event_id]
        )
        assert.deepStrictEqual(ids(yield* store.events.list(live, { payment_id: payment }, first)), [elsewhere.event_id])
        const walked = yield* walk((r) => store.events.list(test, { payment_id: payment }, r), eventPosition, 1)
        assert.deepStrictEqual(walked.map((e) => e.event_id), [mine[1]!.event_id, mine[0]!.event_id])
      }))

    it.effect("sessions.claimExpired: open, due and not being charged; oldest first; at most limit", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test, live } = scopesOf(yield* makeAccount())
        const other = scopesOf(yield* makeAccount()).live
        // Claims see every account, so this test keeps to 1990, before any other session of the suite expires.
        const E = Date.UTC(1990, 0, 1)
        const now = E + 5_000
        const [oldest, tiedA, tiedB, withFailed, atNow, notYet, charging, completed, expired] = [
          yield* makeSession(test, dueAt(E)),
          yield* makeSession(live, dueAt(E + 1_000)),
          yield* makeSession(other, dueAt(E + 1_000)),
          yield* makeSession(test, dueAt(E + 2_000)),
          yield* makeSession(test, dueAt(now)),
          yield* makeSession(test, dueAt(now + 1)),
          yield* makeSession(test, dueAt(E + 500)),
          yield* makeSession(test, dueAt(E)),
          yield* makeSession(test, { ...dueAt(E), status: "expired" })
        ]
        yield* insertAll(shuffle([oldest!, tiedA!, tiedB!, withFailed!, atNow!, notYet!, charging!, completed!, expired!]), store.sessions.insert)
        // A declined attempt does not hold a session back from expiring; a charge in flight does; a paid one is complete.
        yield* store.payments.insert(failedOf(yield* makePayment(test, { checkout_session_id: withFailed!.session_id })))
        const inFlight = yield* makePayment(test, { checkout_session_id: charging!.session_id })
        yield* store.payments.insert(inFlight)
        const paid = succeededOf(yield* makePayment(test, { checkout_session_id: completed!.session_id }))
        yield* store.payments.insert(paid)
        yield* store.sessions.update({ ...completed!, status: "complete", payment_id: paid.payment_id, completed_at: at(E) })

        const ties = [tiedA!, tiedB!].sort((a, b) => (a.session_id < b.session_id ? -1 : 1))
        const expected = [oldest!, ...ties, withFailed!, atNow!].map((s) => s.session_id)
        const ids = (sessions: ReadonlyArray<CheckoutSession>) => sessions.map((s) => s.session_id)
        assert.deepStrictEqual(ids(yield* store.sessions.claimExpired(at(now), 100)), expected)
        assert.deepStrictEqual(ids(yield* store.transact(store.sessions.claimExpired(at(now), 100))), expected)
        assert.deepStrictEqual(ids(yield* store.sessions.claimExpired(at(now), 2)), expected.slice(0, 2))
        assert.deepStrictEqual(ids(yield* store.sessions.claimExpired(at(E - 1), 100)), [])
        same((yield* store.sessions.claimExpired(at(now), 1))[0], oldest)

        // Claiming changes nothing; the claimer expires them. Once the charge fails, that session is due too.
        yield* store.transact(Effect.gen(function*() {
          for (const s of yield* store.sessions.claimExpired(at(now), 100)) {
            yield* store.sessions.update({ ...s, status: "expired" })
          }
        }))
        assert.deepStrictEqual(ids(yield* store.sessions.claimExpired(at(now), 100)), [])
        yield* store.payments.update(failedOf(inFlight))
        const rest = yield* store.sessions.claimExpired(at(now + 1), 100)
        assert.deepStrictEqual(ids(rest), [charging!.session_id, notYet!.session_id])
        assert.strictEqual(Option.getOrThrow(yield* store.sessions.get(other, tiedB!.session_id)).status, "expired")
        // Leave nothing due behind for other tests' claims.
        yield* Effect.forEach(rest, (s) => store.sessions.update({ ...s, status: "expired" }), { discard: true })
      }))

    it.effect("refunds: insert, find, update, ofPayment oldest first; listPending only pending, oldest first, at most limit", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        // listPending sees every account: this test keeps to 1992, older than any other pending refund of the suite.
        const E = Date.UTC(1992, 0, 1)
        const payment = succeededOf(yield* makePayment(test, { created_at: at(E) }))
        yield* store.payments.insert(payment)
        const refund = (offset: number, amount: number) =>
          Effect.map(newId<RefundId>("ref"), (id): Refund.Refund => ({
            refund_id: id,
            payment_id: payment.payment_id,
            account_id: payment.account_id,
            livemode: payment.livemode,
            amount,
            status: "pending",
            failure_reason: null,
            processor_refund_id: null,
            // The reason and the merchant's note come back as written; a refund may have none.
            reason: offset === 30 ? null : offset === 10 ? "duplicate" : "requested_by_customer",
            note: offset === 20 ? "Wrong size: \"42\" ordered, 44 sent — مرتجع" : null,
            created_at: at(E + offset),
            updated_at: at(E + offset)
          }))
        const [a, b, c] = [yield* refund(30, 100), yield* refund(10, 200), yield* refund(20, 300)]
        yield* insertAll(shuffle([a, b, c]), store.refunds.insert)
        same(yield* store.refunds.find(a.refund_id), Option.some(a))
        assert.isTrue(Option.isNone(yield* store.refunds.find(yield* newId<RefundId>("ref"))))
        const ids = (rs: ReadonlyArray<Refund.Refund>) => rs.map((r) => r.refund_id)
        assert.deepStrictEqual(ids(yield* store.refunds.ofPayment(payment.payment_id)), [b, c, a].map((r) => r.refund_id))
        assert.deepStrictEqual(ids(yield* store.refunds.listPending(2)), [b, c].map((r) => r.refund_id))

        const confirmed: Refund.Refund = { ...b, status: "succeeded", processor_refund_id: "re_1", updated_at: at(E + 99) }
        const refused: Refund.Refund = { ...c, status: "refused", failure_reason: "refused by the issuer", updated_at: at(E + 99) }
        yield* store.refunds.update(confirmed)
        yield* store.transact(store.refunds.update(refused))
        same(yield* store.refunds.find(b.refund_id), Option.some(confirmed))
        same(yield* store.refunds.find(c.refund_id), Option.some(refused))
        assert.deepStrictEqual(ids(yield* store.refunds.listPending(2)), [a.refund_id], "only the pending one")
        yield* store.refunds.update({ ...a, status: "refused", failure_reason: "done", updated_at: at(E + 99) })
        assert.deepStrictEqual(ids(yield* store.refunds.listPending(5)).filter((id) => id === a.refund_id), [])
      }))

    it.effect("payments.since and refunds.since: every account and mode from an instant, oldest first, paged after a position", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const other = scopesOf(yield* makeAccount()).test
        // A window of its own, far in the future: no other test writes there.
        const E = Date.UTC(2101, 0, 1)
        const before = yield* makePayment(test, { created_at: at(E - 1) })
        const inWindow = [
          yield* makePayment(test, { created_at: at(E) }),
          yield* makePayment(live, { created_at: at(E + 5) }),
          yield* makePayment(other, { created_at: at(E + 5) }),
          succeededOf(yield* makePayment(other, { created_at: at(E + 9) }))
        ]
        yield* insertAll(shuffle([before, ...inWindow]), store.payments.insert)
        const expected = [...inWindow].sort((x, y) =>
          millis(x.created_at) - millis(y.created_at) || (x.payment_id < y.payment_id ? -1 : 1)
        ).map((p) => p.payment_id)
        const ids = (ps: ReadonlyArray<Payment.Payment>) => ps.map((p) => p.payment_id)
        assert.deepStrictEqual(ids(yield* store.payments.since(at(E), undefined, 10)), expected)
        const firstPage = yield* store.payments.since(at(E), undefined, 2)
        assert.deepStrictEqual(ids(firstPage), expected.slice(0, 2))
        const last = firstPage[1]!
        const rest = yield* store.payments.since(at(E), { createdAtMillis: millis(last.created_at), id: last.payment_id }, 10)
        assert.deepStrictEqual(ids(rest), expected.slice(2), "after a position: strictly later, ties by id")

        // The dashboard's date range: at or after `created_from`, before `created_before`, within a scope.
        const ranged = yield* store.payments.list(other, { created_from: at(E + 5), created_before: at(E + 9) }, { limit: 10, after: undefined })
        assert.deepStrictEqual(ids(ranged.items), [inWindow[2]!.payment_id])
        const open = yield* store.payments.list(other, { created_from: at(E + 6) }, { limit: 10, after: undefined })
        assert.deepStrictEqual(ids(open.items), [inWindow[3]!.payment_id])

        const paid = inWindow[3]!
        const refund = (offset: number) =>
          Effect.map(newId<RefundId>("ref"), (id): Refund.Refund => ({
            refund_id: id,
            payment_id: paid.payment_id,
            account_id: paid.account_id,
            livemode: paid.livemode,
            amount: 10,
            status: "succeeded",
            failure_reason: null,
            processor_refund_id: `re_${offset}`,
            reason: null,
            note: null,
            created_at: at(E + offset),
            updated_at: at(E + offset)
          }))
        const refunds = [yield* refund(20), yield* refund(10), yield* refund(30)]
        yield* insertAll(refunds, store.refunds.insert)
        const since = yield* store.refunds.since(at(E + 15), undefined, 10)
        assert.deepStrictEqual(since.map((r) => r.processor_refund_id), ["re_20", "re_30"])
        const after = yield* store.refunds.since(at(E), { createdAtMillis: E + 10, id: refunds[1]!.refund_id }, 1)
        assert.deepStrictEqual(after.map((r) => r.processor_refund_id), ["re_20"])

        // A scope's refunds, newest first, in a range, a keyset page at a time; another scope's are not listed.
        const listed = yield* store.refunds.list(other, { created_from: at(E + 15), created_before: at(E + 31) }, { limit: 1, after: undefined })
        assert.deepStrictEqual([listed.items.map((r) => r.processor_refund_id), listed.hasMore], [["re_30"], true])
        const next = yield* store.refunds.list(other, { created_from: at(E + 15) }, { limit: 5, after: Refund.position(listed.items[0]!) })
        assert.deepStrictEqual([next.items.map((r) => r.processor_refund_id), next.hasMore], [["re_20"], false])
        assert.deepStrictEqual((yield* store.refunds.list(test, {}, { limit: 5, after: undefined })).items, [])
      }))

    it.effect("portal sessions: insert, get in its scope only, found by link and cookie hashes; opened once", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const account = yield* makeAccount()
        const scope = { accountId: account.account_id, livemode: false }
        const customer = yield* makeCustomer(scope)
        yield* store.customers.insert(customer)
        const id = yield* newId<PortalSessionId>("cps")
        const session: PortalSession.PortalSession = {
          object: "customer_portal_session",
          customer_portal_session_id: id,
          account_id: account.account_id,
          livemode: false,
          customer_id: customer.customer_id,
          url: Redacted.make(`https://pay.example.ae/portal/secret-${yield* unique()}`),
          return_url: null,
          token_hash: `t${yield* unique()}`,
          created_at: at(T0),
          expires_at: at(T0 + 3_600_000),
          opened_at: null,
          cookie_hash: null,
          csrf_token: null,
          session_expires_at: null
        }
        yield* store.portalSessions.insert(session)
        same(yield* store.portalSessions.get(scope, id), Option.some(session))
        assert.isTrue(Option.isNone(yield* store.portalSessions.get({ ...scope, livemode: true }, id)))
        const other = yield* makeAccount()
        assert.isTrue(Option.isNone(yield* store.portalSessions.get({ accountId: other.account_id, livemode: false }, id)))
        same(yield* store.portalSessions.findByToken(session.token_hash), Option.some(session))
        assert.isTrue(Option.isNone(yield* store.portalSessions.findByToken(`${session.token_hash}x`)))

        const opened = Either.getOrThrow(PortalSession.open(session, at(T0 + 10), { cookieHash: `c${yield* unique()}`, csrfToken: "csrf" }))
        const again = Either.getOrThrow(PortalSession.open(session, at(T0 + 20), { cookieHash: `c${yield* unique()}`, csrfToken: "other" }))
        const both = yield* Effect.all([store.portalSessions.markOpened(opened), store.portalSessions.markOpened(again)], { concurrency: 2 })
        assert.deepStrictEqual(both, [true, false], "a link opens once")
        same(yield* store.portalSessions.findByCookie(opened.cookie_hash!), Option.some(opened))
        assert.isTrue(Option.isNone(yield* store.portalSessions.findByCookie(again.cookie_hash!)))
        same(yield* store.portalSessions.findByToken(session.token_hash), Option.some(opened))
      }))

    it.effect("dashboard: setPassword saves one user with a password per e-mail, also when invitations of two accounts set theirs at once", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const email = `Invited.${yield* unique()}@Example.ae`
        const invite = (accountId: AccountId, address: string) =>
          Effect.map(newId<UserId>("usr"), (user_id): DashboardUser.DashboardUser => ({
            user_id,
            account_id: accountId,
            email: address,
            role: "viewer",
            password_hash: null,
            created_at: at(T0),
            updated_at: at(T0)
          }))
        const invitations = yield* Effect.forEach([email, email.toLowerCase(), email.toUpperCase()], (address) =>
          Effect.flatMap(makeAccount(), (account) => invite(account.account_id, address)))
        yield* Effect.forEach(invitations, store.dashboard.insertUser)
        const withPassword = (u: DashboardUser.DashboardUser, n: number) => ({ ...u, password_hash: `scrypt$1$1$1$A${n}$AA` })
        const saved = yield* Effect.forEach(invitations, (u, n) => store.dashboard.setPassword(withPassword(u, n)), {
          concurrency: "unbounded"
        })
        assert.strictEqual(saved.filter((ok) => ok).length, 1, "one of three at once")
        const winner = invitations[saved.indexOf(true)]!
        same(yield* store.dashboard.findUserByEmail(email), Option.some(withPassword(winner, saved.indexOf(true))))
        for (const [n, u] of invitations.entries()) {
          if (u === winner) continue
          same(yield* store.dashboard.getUser(u.user_id), Option.some(u))
          assert.isFalse(yield* store.dashboard.setPassword(withPassword(u, n)), "and refused later too")
        }
        // The holder may set a new one.
        assert.isTrue(yield* store.dashboard.setPassword({ ...withPassword(winner, 9), updated_at: at(T0 + 1) }))
      }))

    it.effect("dashboard: a password, an e-mail or a role is written alone; password and e-mail only if still the one read; unused links withdrawn", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const account = yield* makeAccount()
        const mk = (email: string, password_hash: string | null, accountId = account.account_id) =>
          Effect.map(newId<UserId>("usr"), (user_id): DashboardUser.DashboardUser => ({
            user_id, account_id: accountId, email, role: "admin", password_hash, created_at: at(T0), updated_at: at(T0)
          }))
        const n = yield* unique()
        const user = yield* mk(`cas.${n}@example.ae`, "scrypt$1$1$1$A$A")
        const teammate = yield* mk(`mate.${n}@example.ae`, null)
        const elsewhere = yield* mk(`else.${n}@example.ae`, "scrypt$1$1$1$E$E", (yield* makeAccount()).account_id)
        yield* Effect.forEach([user, teammate, elsewhere], store.dashboard.insertUser)
        assert.isFalse(yield* store.dashboard.replacePassword(user.user_id, "scrypt$1$1$1$X$X", "scrypt$1$1$1$B$B", at(T0 + 1)), "not the one read")
        yield* store.dashboard.setRole(user.user_id, "viewer", at(T0 + 2))
        assert.isTrue(yield* store.dashboard.replacePassword(user.user_id, "scrypt$1$1$1$A$A", "scrypt$1$1$1$B$B", at(T0 + 3)))
        assert.isFalse(yield* store.dashboard.replaceEmail(user.user_id, `old.${n}@example.ae`, `new.${n}@example.ae`, at(T0 + 4)), "not the one read")
        assert.isFalse(yield* store.dashboard.replaceEmail(user.user_id, user.email, teammate.email.toUpperCase(), at(T0 + 4)), "a teammate's")
        assert.isFalse(yield* store.dashboard.replaceEmail(user.user_id, user.email, elsewhere.email, at(T0 + 4)), "one signing in elsewhere")
        assert.isTrue(yield* store.dashboard.replaceEmail(user.user_id, user.email, `new.${n}@example.ae`, at(T0 + 5)))
        same(yield* store.dashboard.getUser(user.user_id), Option.some({
          ...user, email: `new.${n}@example.ae`, role: "viewer" as const, password_hash: "scrypt$1$1$1$B$B", updated_at: at(T0 + 5)
        }))
        const link = (used_at: DateTime.Utc | null): Effect.Effect<DashboardUser.SignInLink> =>
          Effect.map(unique(), (u) => ({ token_hash: `h${u}`, user_id: user.user_id, expires_at: at(T0 + 1000), used_at }))
        const [unused, used, other] = [yield* link(null), yield* link(at(T0)), { ...(yield* link(null)), user_id: teammate.user_id }]
        yield* Effect.forEach([unused, used, other], store.dashboard.insertLink)
        yield* store.dashboard.deleteUnusedLinks(user.user_id)
        assert.deepStrictEqual([
          Option.isSome(yield* store.dashboard.findLink(unused.token_hash)),
          Option.isSome(yield* store.dashboard.findLink(used.token_hash)),
          Option.isSome(yield* store.dashboard.findLink(other.token_hash))
        ], [false, true, true])
      }))

    it.effect("dashboard: users by e-mail (any case; once per account; one with a password per e-mail), links taken once before they expire, sessions, audit newest first", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const account = yield* makeAccount()
        const now = at(T0)
        const email = `Owner.${yield* unique()}@Example.ae`
        const user: DashboardUser.DashboardUser = {
          user_id: yield* newId<UserId>("usr"),
          account_id: account.account_id,
          email,
          role: "owner",
          password_hash: null,
          created_at: now,
          updated_at: now
        }
        yield* store.dashboard.insertUser(user)
        assert.isTrue(Option.isNone(yield* store.dashboard.findUserByEmail(email)), "a pending invitation signs in as nobody")
        same(yield* store.dashboard.getUser(user.user_id), Option.some(user))
        const twice = yield* Effect.exit(store.dashboard.insertUser({ ...user, user_id: yield* newId<UserId>("usr"), email: email.toUpperCase() }))
        assert.isTrue(Exit.isFailure(twice), "once per account per e-mail, whatever its case")
        const updated = { ...user, password_hash: "scrypt$1$1$1$AA$AA", role: "admin" as const, updated_at: at(T0 + 1) }
        yield* store.dashboard.updateUser(updated)
        same(yield* store.dashboard.listUsers(account.account_id), [updated])
        same(yield* store.dashboard.findUserByEmail(email.toLowerCase()), Option.some(updated))
        // Another account may invite the same e-mail, but its invitation cannot set a password while this user has one.
        const elsewhere = { ...user, user_id: yield* newId<UserId>("usr"), account_id: (yield* makeAccount()).account_id, email: email.toUpperCase() }
        yield* store.dashboard.insertUser(elsewhere)
        const second = yield* Effect.exit(store.dashboard.updateUser({ ...elsewhere, password_hash: "scrypt$1$1$1$BB$BB" }))
        assert.isTrue(Exit.isFailure(second), "one user with a password per e-mail")
        same(yield* store.dashboard.findUserByEmail(email), Option.some(updated))

        const link: DashboardUser.SignInLink = { token_hash: `h${yield* unique()}`, user_id: user.user_id, expires_at: at(T0 + 1000), used_at: null }
        yield* store.dashboard.insertLink(link)
        assert.isTrue(Option.isNone(yield* store.dashboard.takeLink(link.token_hash, at(T0 + 1000))), "expired at its instant")
        same(yield* store.dashboard.takeLink(link.token_hash, at(T0 + 999)), Option.some({ ...link, used_at: at(T0 + 999) }))
        assert.isTrue(Option.isNone(yield* store.dashboard.takeLink(link.token_hash, at(T0 + 10))), "once")
        same(yield* store.dashboard.findLink(link.token_hash), Option.some({ ...link, used_at: at(T0 + 999) }))

        const session = (suffix: string): DashboardUser.DashboardSession => ({
          token_hash: `s${suffix}`,
          user_id: user.user_id,
          account_id: account.account_id,
          csrf_token: "csrf",
          created_at: now,
          last_seen_at: now,
          awaiting_code: false
        })
        const [a, b] = [session(yield* unique()), session(yield* unique())]
        yield* store.dashboard.insertSession(a)
        yield* store.dashboard.insertSession(b)
        const later = { ...session(yield* unique()), created_at: at(T0 + 1) }
        yield* store.dashboard.insertSession(later)
        // Newest first; at the same instant, by digest (byte order), last first.
        same((yield* store.dashboard.listSessions(user.user_id)).map((s) => s.token_hash), [later.token_hash, ...[a.token_hash, b.token_hash].sort().reverse()])
        yield* store.dashboard.deleteSession(later.token_hash)
        yield* store.dashboard.touchSession(a.token_hash, at(T0 + 5000))
        same(yield* store.dashboard.findSession(a.token_hash), Option.some({ ...a, last_seen_at: at(T0 + 5000) }))
        yield* store.dashboard.deleteSession(a.token_hash)
        assert.isTrue(Option.isNone(yield* store.dashboard.findSession(a.token_hash)))
        yield* store.dashboard.deleteSessionsOf(user.user_id)
        assert.isTrue(Option.isNone(yield* store.dashboard.findSession(b.token_hash)))

        const entry = (offset: number, action: string): Effect.Effect<DashboardUser.AuditEntry> =>
          Effect.map(newId<AuditId>("aud"), (audit_id) => ({
            audit_id,
            account_id: account.account_id,
            user_id: user.user_id,
            email,
            action,
            object_id: null,
            livemode: false,
            address: "127.0.0.1",
            at: at(T0 + offset)
          }))
        const entries = [yield* entry(10, "first"), yield* entry(30, "third"), yield* entry(20, "second")]
        yield* insertAll(entries, store.dashboard.insertAudit)
        assert.deepStrictEqual((yield* store.dashboard.listAudit(account.account_id, 2)).map((e) => e.action), ["third", "second"])
        yield* store.dashboard.deleteUser(user.user_id)
        assert.isTrue(Option.isNone(yield* store.dashboard.getUser(user.user_id)))
      }))

    it.effect("dashboard: two-factor sign-in stored whole; a code's step and a recovery code are each taken once, whoever is first", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const account = yield* makeAccount()
        const user: DashboardUser.DashboardUser = {
          user_id: yield* newId<UserId>("usr"),
          account_id: account.account_id,
          email: `two.${yield* unique()}@example.ae`,
          role: "owner",
          password_hash: null,
          created_at: at(T0),
          updated_at: at(T0)
        }
        yield* store.dashboard.insertUser(user)
        assert.isTrue(Option.isNone(yield* store.dashboard.getTwoFactor(user.user_id)))
        const enrolling: TwoFactor = { user_id: user.user_id, secret: Redacted.make("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"), enabled_at: null, last_step: null, recovery_codes: [] }
        yield* store.dashboard.putTwoFactor(enrolling)
        same(yield* store.dashboard.getTwoFactor(user.user_id), Option.some(enrolling))
        const on: TwoFactor = { ...enrolling, enabled_at: at(T0 + 1), last_step: 59_000_000, recovery_codes: ["d1", "d2"] }
        yield* store.dashboard.putTwoFactor(on)
        same(yield* store.dashboard.getTwoFactor(user.user_id), Option.some(on))

        // Two takers of one step at once: one wins; an earlier step after it never does.
        const [a, b] = yield* Effect.all([store.dashboard.useTotpStep(user.user_id, 59_000_001), store.dashboard.useTotpStep(user.user_id, 59_000_001)], { concurrency: 2 })
        assert.deepStrictEqual([a, b].sort(), [false, true])
        assert.isFalse(yield* store.dashboard.useTotpStep(user.user_id, 59_000_000))
        assert.isTrue(yield* store.dashboard.useTotpStep(user.user_id, 59_000_002))
        const [c, d] = yield* Effect.all([store.dashboard.useRecoveryCode(user.user_id, "d1"), store.dashboard.useRecoveryCode(user.user_id, "d1")], { concurrency: 2 })
        assert.deepStrictEqual([c, d].sort(), [false, true])
        assert.isFalse(yield* store.dashboard.useRecoveryCode(user.user_id, "d3"))
        same(Option.map(yield* store.dashboard.getTwoFactor(user.user_id), (t) => [t.last_step, t.recovery_codes]), Option.some([59_000_002, ["d2"]]))

        yield* store.dashboard.deleteTwoFactor(user.user_id)
        assert.isTrue(Option.isNone(yield* store.dashboard.getTwoFactor(user.user_id)))
        assert.isFalse(yield* store.dashboard.useTotpStep(user.user_id, 59_000_003))
        yield* store.dashboard.putTwoFactor(on)
        yield* store.dashboard.deleteUser(user.user_id)
        assert.isTrue(Option.isNone(yield* store.dashboard.getTwoFactor(user.user_id)), "it goes with its user")
      }))

    it.effect("payments.summary and subscriptions.recurring: a scope's sums from a day, daily gross by the account's days (UTC)", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount({ time_zone: "UTC" }))
        const day = Date.UTC(2026, 5, 1)
        const paid = (scope: Scope, offset: number, amount: number) =>
          Effect.map(makePayment(scope, { created_at: at(day + offset), total_amount: amount, net_amount: amount }), succeededOf)
        const rows = [
          yield* paid(test, 0, 1_000),
          yield* paid(test, 3_600_000, 2_000),
          yield* paid(test, 86_400_000, 4_000),
          yield* paid(test, -1, 8_000), // before the range
          yield* paid(live, 0, 16_000), // another mode
          failedOf(yield* makePayment(test, { created_at: at(day + 5) })),
          yield* makePayment(test, { created_at: at(day + 6) }) // processing: neither
        ]
        const refunded = next(rows[2]!, { _tag: "Refund", amount: 500 })
        yield* insertAll([...rows.slice(0, 2), refunded, ...rows.slice(3)], store.payments.insert)
        const summary = yield* store.payments.summary(test, "2026-06-01")
        const fees = [rows[0]!, rows[1]!, rows[2]!].reduce((sum, p) => sum + p.fee_amount, 0)
        same(summary, {
          gross: 7_000,
          fees,
          refunded: 500,
          succeeded: 3,
          failed: 1,
          daily: [{ day: "2026-06-01", gross: 3_000 }, { day: "2026-06-02", gross: 4_000 }]
        })
        // Changes are counted as they happen: a processing payment that succeeds, then is refunded; a day later.
        const settling = yield* makePayment(test, { created_at: at(day + 7_200_000), total_amount: 3_000, net_amount: 3_000 })
        yield* store.payments.insert(settling)
        const paidNow = succeededOf(settling)
        yield* store.payments.update(paidNow)
        yield* store.payments.updateAll([next(paidNow, { _tag: "Refund", amount: 3_000 })])
        const after = yield* store.payments.summary(test, "2026-06-01")
        same(after, {
          gross: 10_000,
          fees: fees + paidNow.fee_amount,
          refunded: 3_500,
          succeeded: 4,
          failed: 1,
          daily: [{ day: "2026-06-01", gross: 6_000 }, { day: "2026-06-02", gross: 4_000 }]
        })
        assert.deepStrictEqual(yield* store.subscriptions.recurring(scopesOf(yield* makeAccount()).test), [])
      }))

    it.effect("payments.summary counts the account's local days; a new time zone counts them again, an unknown one is refused", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const account = yield* makeAccount({ time_zone: "Asia/Dubai" })
        const { test } = scopesOf(account)
        const paid = (iso: string, amount: number) =>
          Effect.map(makePayment(test, { created_at: DateTime.unsafeMake(iso), total_amount: amount, net_amount: amount }), succeededOf)
        // 23:59 and 01:00 in Dubai (UTC+4): two local days, one UTC day.
        yield* insertAll([yield* paid("2026-06-01T19:59:00Z", 1_000), yield* paid("2026-06-01T21:00:00Z", 2_000)], store.payments.insert)
        const daily = (since: string) => Effect.map(store.payments.summary(test, since), (s) => [s.gross, s.daily])
        same(yield* daily("2026-06-02"), [2_000, [{ day: "2026-06-02", gross: 2_000 }]])
        same(yield* daily("2026-06-01"), [3_000, [{ day: "2026-06-01", gross: 1_000 }, { day: "2026-06-02", gross: 2_000 }]])

        assert.isTrue(yield* store.transact(store.accounts.setTimeZone(account.account_id, "UTC")))
        same(Option.map(yield* store.accounts.get(account.account_id), (a) => a.time_zone), Option.some("UTC"))
        same(yield* daily("2026-06-02"), [0, []])
        same(yield* daily("2026-06-01"), [3_000, [{ day: "2026-06-01", gross: 3_000 }]])
        // Written after the change: counted in the new zone (UTC 22:00, Dubai's next day).
        yield* store.payments.insert(yield* paid("2026-06-02T22:00:00Z", 4_000))
        same(yield* daily("2026-06-01"), [7_000, [{ day: "2026-06-01", gross: 3_000 }, { day: "2026-06-02", gross: 4_000 }]])

        assert.isFalse(yield* store.transact(store.accounts.setTimeZone(account.account_id, "Mars/Olympus_Mons")))
        same(Option.map(yield* store.accounts.get(account.account_id), (a) => a.time_zone), Option.some("UTC"))
      }))

    it.effect("subscriptions.recurring: active subscriptions past their trial, each at its period less the discounts in effect", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const monthly = yield* subscriptionParents(store, test)
        const yearly = yield* subscriptionParents(store, test, { interval: "year", count: 1 })
        const base = yield* startSubscription(monthly) // 4,900 a month
        const discount = (cycles: number | null, amount: number) => ({
          discount_id: `dsc_${"0".repeat(31)}${cycles ?? 9}` as Discount.SubscriptionDiscount["discount_id"],
          code: "HALF",
          type: "percentage" as const,
          amount,
          subscription_cycles: cycles,
          cycles_remaining: cycles
        })
        const renewed = (s: Subscription.Subscription) => advance(s, chargeOk, dueMillis(s))
        const onHold = (s: Subscription.Subscription) => advance(s, chargeDeclined, dueMillis(s))
        const rows: ReadonlyArray<Subscription.Subscription> = [
          base,
          { ...(yield* startSubscription(monthly)), quantity: 2, recurring_amount: 9_800 },
          { ...(yield* startSubscription(monthly)), discounts: [discount(2, 5_000)] }, // half off: 2,450
          { ...(yield* startSubscription(monthly)), discounts: [{ ...discount(0, 5_000), cycles_remaining: 0 }] }, // used up
          yield* startSubscription(monthly, { trialDays: 14 }), // in its trial
          renewed(yield* startSubscription(monthly, { trialDays: 14 })), // past it
          onHold(yield* startSubscription(monthly)),
          advance(yield* startSubscription(monthly), { _tag: "Cancel" }, T0),
          yield* startSubscription(yearly)
        ]
        yield* insertAll(rows, store.subscriptions.insert)
        yield* store.subscriptions.insert(yield* startSubscription(yield* subscriptionParents(store, live)))
        // The rule is the domain's: what the store sums is what it says, row by row.
        const expected = (interval: string) => {
          const counted = rows.filter((r) => r.billing_interval === interval && Subscription.inRecurringRevenue(r))
          return { subscriptions: counted.length, amount: counted.reduce((sum, r) => sum + Subscription.periodRevenue(r), 0) }
        }
        assert.deepStrictEqual(expected("month"), { subscriptions: 5, amount: 4_900 + 9_800 + 2_450 + 4_900 + 4_900 })
        same(yield* store.subscriptions.recurring(test), [
          { billing_interval: "month", interval_count: 1, ...expected("month") },
          { billing_interval: "year", interval_count: 1, ...expected("year") }
        ])
        // A change of the discounts is counted as it is stored.
        yield* store.subscriptions.update({ ...rows[2]!, discounts: [{ ...discount(2, 5_000), cycles_remaining: 0 }] })
        const [month] = yield* store.subscriptions.recurring(test)
        assert.strictEqual(month!.amount, 4_900 + 9_800 + 4_900 + 4_900 + 4_900)
      }))

    it.effect("subscriptions.countCreated: a scope's subscriptions created in [from, before), whatever their status", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, test)
        const created = (millis: number) => Effect.map(startSubscription(parents), (s) => ({ ...s, created_at: at(millis) }))
        const rows = [
          yield* created(T0 - 1),
          yield* created(T0),
          yield* created(T0 + 5),
          advance(yield* created(T0 + 9), { _tag: "Cancel" }, T0 + 10),
          yield* created(T0 + 10)
        ]
        yield* insertAll(rows, store.subscriptions.insert)
        yield* store.subscriptions.insert({ ...(yield* startSubscription(yield* subscriptionParents(store, live))), created_at: at(T0 + 5) })
        assert.strictEqual(yield* store.subscriptions.countCreated(test, at(T0), at(T0 + 10)), 3)
        assert.strictEqual(yield* store.subscriptions.countCreated(test, at(T0 - 1), at(T0 + 11)), 5)
        assert.strictEqual(yield* store.subscriptions.countCreated(test, at(T0 + 11), at(T0 + 20)), 0)
        assert.strictEqual(yield* store.subscriptions.countCreated(live, at(T0), at(T0 + 10)), 1)
      }))

    it.effect("subscriptions.monthlyRevenueOn: the latest day's reading on or before a day, a day's latest reading kept, per scope", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        assert.isTrue(Option.isNone(yield* store.subscriptions.monthlyRevenueOn(test, "2026-11-27")))
        yield* store.subscriptions.recordMonthlyRevenue(test, { day: "2026-10-28", mrr: 10_000, subscriptions: 2 }, at(T0))
        yield* store.subscriptions.recordMonthlyRevenue(test, { day: "2026-11-26", mrr: 14_900, subscriptions: 3 }, at(T0 + 1_000))
        // The same day read again: its latest reading stands, even when an earlier one is written after it.
        yield* store.subscriptions.recordMonthlyRevenue(test, { day: "2026-11-26", mrr: 19_800, subscriptions: 4 }, at(T0 + 3_000))
        yield* store.subscriptions.recordMonthlyRevenue(test, { day: "2026-11-26", mrr: 17_000, subscriptions: 3 }, at(T0 + 2_000))
        yield* store.subscriptions.recordMonthlyRevenue(live, { day: "2026-10-20", mrr: 500_000, subscriptions: 9 }, at(T0))
        same(yield* store.subscriptions.monthlyRevenueOn(test, "2026-11-27"), Option.some({ day: "2026-11-26", mrr: 19_800, subscriptions: 4 }))
        same(yield* store.subscriptions.monthlyRevenueOn(test, "2026-11-26"), Option.some({ day: "2026-11-26", mrr: 19_800, subscriptions: 4 }))
        same(yield* store.subscriptions.monthlyRevenueOn(test, "2026-11-25"), Option.some({ day: "2026-10-28", mrr: 10_000, subscriptions: 2 }))
        assert.isTrue(Option.isNone(yield* store.subscriptions.monthlyRevenueOn(test, "2026-10-27")))
        same(yield* store.subscriptions.monthlyRevenueOn(live, "2026-11-27"), Option.some({ day: "2026-10-20", mrr: 500_000, subscriptions: 9 }))
        // Another account's scope sees none of these.
        assert.isTrue(Option.isNone(yield* store.subscriptions.monthlyRevenueOn(scopesOf(yield* makeAccount()).test, "2026-11-27")))
      }))

    it.effect("sessions.list: a scope's sessions newest first, paged, never another scope's", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const mine = [
          yield* makeSession(test, { created_at: at(T0) }),
          yield* makeSession(test, { created_at: at(T0 + 10) }),
          yield* makeSession(test, { created_at: at(T0 + 20) })
        ]
        yield* insertAll(shuffle([...mine, yield* makeSession(live, { created_at: at(T0 + 30) })]), store.sessions.insert)
        const first = yield* store.sessions.list(test, { limit: 2, after: undefined })
        assert.deepStrictEqual(first.items.map((s) => s.session_id), [mine[2]!.session_id, mine[1]!.session_id])
        assert.isTrue(first.hasMore)
        const rest = yield* store.sessions.list(test, { limit: 2, after: CheckoutSessionPosition(first.items[1]!) })
        assert.deepStrictEqual(rest.items.map((s) => s.session_id), [mine[0]!.session_id])
        assert.isFalse(rest.hasMore)
      }))

    it.effect("payments.listProcessing: processing only, oldest first, at most limit; hasProcessing", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const other = scopesOf(yield* makeAccount()).live
        // Claims see every account, so this test keeps to 1991, older than any other processing payment of the suite.
        const E = Date.UTC(1991, 0, 1)
        const sessions = yield* Effect.forEach([0, 1, 2], () => makeSession(test))
        yield* insertAll(sessions, store.sessions.insert)
        const [s0, s1, s2] = sessions as [CheckoutSession, CheckoutSession, CheckoutSession]
        const oldest = yield* makePayment(test, { checkout_session_id: s0.session_id, created_at: at(E) })
        const tiedA = yield* makePayment(test, { checkout_session_id: s1.session_id, created_at: at(E + 10) })
        const tiedB = yield* makePayment(other, { created_at: at(E + 10), billing_reason: "subscription_renewal" })
        const newest = yield* makePayment(test, { created_at: at(E + 20) })
        const done = [
          succeededOf(yield* makePayment(test, { checkout_session_id: s2.session_id, created_at: at(E - 5) })),
          failedOf(yield* makePayment(test, { checkout_session_id: s2.session_id, created_at: at(E - 1) })),
          failedOf(yield* makePayment(test, { checkout_session_id: s0.session_id, created_at: at(E - 1) }))
        ]
        yield* insertAll(shuffle([oldest, tiedA, tiedB, newest, ...done]), store.payments.insert)

        const ties = [tiedA, tiedB].sort((a, b) => (a.payment_id < b.payment_id ? -1 : 1))
        const expected = [oldest, ...ties, newest].map((p) => p.payment_id)
        const ids = (payments: ReadonlyArray<Payment.Payment>) => payments.map((p) => p.payment_id)
        assert.deepStrictEqual(ids(yield* store.payments.listProcessing(4)), expected)
        assert.deepStrictEqual(ids(yield* store.transact(store.payments.listProcessing(4))), expected)
        assert.deepStrictEqual(ids(yield* store.payments.listProcessing(2)), expected.slice(0, 2))
        same((yield* store.payments.listProcessing(1))[0], oldest)

        assert.isTrue(yield* store.payments.hasProcessing(s0.session_id))
        assert.isTrue(yield* store.payments.hasProcessing(s1.session_id))
        assert.isFalse(yield* store.payments.hasProcessing(s2.session_id), "only settled payments")
        assert.isFalse(yield* store.payments.hasProcessing(yield* newId<CheckoutSessionId>("cks")))

        // Settled, they leave the claim and the session is free for another attempt.
        yield* store.payments.update(succeededOf(oldest))
        yield* store.payments.update(failedOf(tiedA))
        assert.isFalse(yield* store.payments.hasProcessing(s0.session_id))
        assert.isFalse(yield* store.payments.hasProcessing(s1.session_id))
        const claimed = ids(yield* store.payments.listProcessing(2))
        assert.deepStrictEqual(claimed, [tiedB.payment_id, newest.payment_id])
        yield* store.payments.update(failedOf(tiedB))
        yield* store.payments.update(failedOf(newest))
      }))

    it.effect("transact: session, payment and event writes roll back together, or commit together", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const customer = yield* makeCustomer(test)
        const session = yield* makeSession(test)
        yield* store.sessions.insert(session)
        const payment = yield* makePayment(test, {
          checkout_session_id: session.session_id,
          customer: paymentCustomer(customer)
        })
        const paid = succeededOf(payment)
        const event = yield* makeEvent(test, { data: { payment_id: payment.payment_id } })
        const completed: CheckoutSession = {
          ...session,
          customer: sessionCustomer(customer),
          customer_id: customer.customer_id,
          status: "complete",
          payment_id: payment.payment_id,
          completed_at: at(T0 + 60_000)
        }
        // What a checkout does: the customer, a processing payment, then its outcome, the event and the session.
        const pay = Effect.gen(function*() {
          yield* store.customers.insert(customer)
          yield* store.payments.insert(payment)
          assert.isTrue(yield* store.payments.hasProcessing(session.session_id))
          yield* store.payments.update(paid)
          yield* store.events.insert(event)
          yield* store.sessions.update(completed)
        })
        const page = { limit: 10, after: undefined }

        for (const end of [Effect.fail("declined" as const), Effect.dieMessage("bug")]) {
          const exit = yield* Effect.exit(store.transact(Effect.zipRight(pay, end)))
          assert.isTrue(Exit.isFailure(exit))
          same(yield* store.sessions.get(test, session.session_id), Option.some(session))
          same(yield* store.sessions.find(session.session_id), Option.some(session))
          assert.isTrue(Option.isNone(yield* store.payments.get(test, payment.payment_id)))
          assert.isTrue(Option.isNone(yield* store.payments.find(payment.payment_id)))
          assert.isFalse(yield* store.payments.hasProcessing(session.session_id))
          assert.deepStrictEqual((yield* store.payments.list(test, { checkout_session_id: session.session_id }, page)).items, [])
          assert.isTrue(Option.isNone(yield* store.events.get(test, event.event_id)))
          assert.deepStrictEqual((yield* store.events.list(test, {}, page)).items, [])
          assert.isTrue(Option.isNone(yield* store.customers.get(test, customer.customer_id)))
        }

        yield* store.transact(pay)
        same(yield* store.sessions.get(test, session.session_id), Option.some(completed))
        same(yield* store.payments.get(test, payment.payment_id), Option.some(paid))
        same((yield* store.events.list(test, {}, page)).items, [event])
        same((yield* store.payments.list(test, { status: "succeeded" }, page)).items, [paid])
      }))

    // Subscriptions -----------------------------------------------------------------------------------------------

    it.effect("subscriptions: every state the domain's machine makes is stored and read back as it was", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live } = scopesOf(yield* makeAccount())
        const monthly = yield* subscriptionParents(store, live)
        const session = yield* makeSession(live, {
          kind: "subscription",
          customer: sessionCustomer(monthly.customer),
          customer_id: monthly.customer.customer_id
        })
        yield* store.sessions.insert(session)

        const seen: Array<Subscription.Subscription> = []
        const check = (s: Subscription.Subscription) =>
          Effect.gen(function*() {
            seen.push(s)
            same(yield* store.subscriptions.get(live, s.subscription_id), Option.some(s))
            same(yield* store.subscriptions.find(s.subscription_id), Option.some(s))
          })
        type Step = (s: Subscription.Subscription) => readonly [Subscription.SubscriptionCommand, number]
        const whenDue = (command: Subscription.SubscriptionCommand): Step => (s) => [command, dueMillis(s)]
        const flag = (value: boolean): Step => (s) => [{ _tag: "SetCancelAtPeriodEnd", value }, millis(s.created_at) + 1_000]
        const cancelNow: Step = (s) => [{ _tag: "Cancel" }, millis(s.current_period_start) + 5_000]
        /** Stores the start, then each state the steps lead to (an update each), checking every one. */
        const path = (start: Subscription.Subscription, steps: ReadonlyArray<Step>) =>
          Effect.gen(function*() {
            yield* store.subscriptions.insert(start)
            yield* check(start)
            let current = start
            for (const step of steps) {
              const [command, now] = step(current)
              current = advance(current, command, now)
              yield* store.subscriptions.update(current)
              yield* check(current)
            }
          })

        // Anchored on 31 January at an odd millisecond, three seats, a session, metadata, a customer without a name:
        // renewed; declined, retried twice with cancel_at_period_end set and unset; paid on the last retry; cancelled.
        yield* path(
          yield* startSubscription(monthly, {
            paidAt: Date.UTC(2027, 0, 31, 9, 30, 15, 123),
            quantity: 3,
            checkoutSessionId: session.session_id,
            metadata: { plan: "gold", "ملاحظة": "هدية" },
            customerName: null
          }),
          [
            whenDue(chargeOk),
            whenDue(chargeDeclined),
            flag(true),
            flag(false),
            whenDue(chargeDeclined),
            whenDue(chargeDeclined),
            whenDue(chargeOk),
            cancelNow
          ]
        )
        // Every schedule, ended each way the machine knows.
        const yearly = yield* subscriptionParents(store, live, { interval: "year", count: 3 })
        const weekly = yield* subscriptionParents(store, live, { interval: "week", count: 2 })
        const daily = yield* subscriptionParents(store, live, { interval: "day", count: 1 })
        const longest = yield* subscriptionParents(store, live, { interval: "month", count: 36 })
        yield* path(yield* startSubscription(yearly), [flag(true), whenDue({ _tag: "EndAtPeriodEnd" })])
        yield* path(yield* startSubscription(weekly), [
          whenDue(chargeDeclined),
          whenDue(chargeDeclined),
          whenDue(chargeDeclined),
          whenDue(chargeDeclined)
        ])
        yield* path(yield* startSubscription(daily), [whenDue(chargeDeclined), flag(true), whenDue({ _tag: "EndAtPeriodEnd" })])
        yield* path(yield* startSubscription(longest), [cancelNow])
        yield* path(yield* startSubscription(daily, { paidAt: T0 + 7 }), [whenDue(chargeDeclined), cancelNow])

        // The walk met every kind of state, so each was stored and read back.
        const kinds = new Set(seen.map((s) =>
          `${s.status}/${s.cancellation_reason ?? "-"}/${s.failed_payment_attempts}/${s.cancel_at_period_end}`
        ))
        assert.includeMembers([...kinds], [
          "active/-/0/false",
          "active/-/0/true",
          "on_hold/-/1/false",
          "on_hold/-/1/true",
          "on_hold/-/2/false",
          "on_hold/-/3/false",
          "cancelled/requested/0/false",
          "cancelled/requested/0/true",
          "cancelled/requested/1/true",
          "cancelled/requested/1/false",
          "cancelled/payment_failed/4/false"
        ])
        assert.isAtLeast(Math.max(...seen.map((s) => s.period)), 2)
        assert.isTrue(Option.isNone(yield* store.subscriptions.find(yield* newId<SubscriptionId>("sub"))))
      }))

    it.effect("subscriptions: another account or the other mode never sees them; find is by id alone", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const mine = scopesOf(yield* makeAccount())
        const theirs = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, mine.test)
        const subscription = yield* startSubscription(parents)
        yield* store.subscriptions.insert(subscription)
        const page = { limit: 100, after: undefined }
        const filters: ReadonlyArray<SubscriptionFilter> = [
          {},
          { status: "active" },
          { customer_id: parents.customer.customer_id },
          { status: "active", customer_id: parents.customer.customer_id }
        ]
        for (const other of [mine.live, theirs.test, theirs.live]) {
          assert.isTrue(Option.isNone(yield* store.subscriptions.get(other, subscription.subscription_id)))
          for (const filter of filters) {
            assert.deepStrictEqual((yield* store.subscriptions.list(other, filter, page)).items, [], JSON.stringify(filter))
          }
        }
        for (const filter of filters) same((yield* store.subscriptions.list(mine.test, filter, page)).items, [subscription])
        same(yield* store.subscriptions.get(mine.test, subscription.subscription_id), Option.some(subscription))
        same(yield* store.subscriptions.find(subscription.subscription_id), Option.some(subscription))
      }))

    it.effect("subscriptions: status and customer_id filters, newest first, with paging", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test, live } = scopesOf(yield* makeAccount())
        const parents = [yield* subscriptionParents(store, test), yield* subscriptionParents(store, test)]
        type Shape = (s: Subscription.Subscription) => Subscription.Subscription
        const shapes: ReadonlyArray<Shape> = [
          (s) => s,
          (s) => advance(s, { _tag: "SetCancelAtPeriodEnd", value: true }, T0),
          (s) => advance(s, chargeDeclined, dueMillis(s)),
          (s) => advance(s, { _tag: "Cancel" }, T0 + 1),
          (s) => run(s, [0, 1, 2, 3].map(() => [chargeDeclined, dueMillis(s) + 6 * 86_400_000] as const)).at(-1)!
        ]
        const subscriptions: Array<Subscription.Subscription> = []
        let n = 0
        for (const round of [0, 1]) {
          for (const p of parents) {
            for (const shape of shapes) {
              // Several share a millisecond, so only the id orders them.
              const start = yield* startSubscription(p, { paidAt: T0 + round * 1_000 + Math.floor(n++ / 3) })
              subscriptions.push(shape(start))
            }
          }
        }
        yield* insertAll(shuffle(subscriptions), store.subscriptions.insert)
        // Noise: the other mode, at the same times.
        const noise = yield* subscriptionParents(store, live)
        yield* store.subscriptions.insert(yield* startSubscription(noise, { paidAt: T0 }))

        const position = Subscription.position
        const filters: ReadonlyArray<SubscriptionFilter> = [
          {},
          ...Subscription.SubscriptionStatus.literals.map((status) => ({ status })),
          { customer_id: parents[0]!.customer.customer_id },
          { customer_id: parents[1]!.customer.customer_id },
          { status: "on_hold", customer_id: parents[1]!.customer.customer_id },
          { status: "cancelled", customer_id: parents[0]!.customer.customer_id },
          { customer_id: noise.customer.customer_id },
          { customer_id: yield* newId<CustomerId>("cus") }
        ]
        for (const [i, filter] of filters.entries()) {
          const expected = newestFirst(
            subscriptions.filter((s) =>
              (filter.status === undefined || s.status === filter.status) &&
              (filter.customer_id === undefined || s.customer.customer_id === filter.customer_id)
            ),
            position
          ).map((s) => s.subscription_id)
          // Every filter but the last two (a customer of the other mode, an unknown one) matches something.
          assert.strictEqual(expected.length === 0, i >= filters.length - 2, JSON.stringify(filter))
          for (const limit of [1, 3, 100]) {
            const walked = yield* walk((r) => store.subscriptions.list(test, filter, r), position, limit)
            assert.deepStrictEqual(walked.map((s) => s.subscription_id), expected, `${JSON.stringify(filter)}, limit ${limit}`)
          }
        }
        assert.strictEqual(
          (yield* walk((r) => store.subscriptions.list(test, { status: "cancelled" }, r), position, 2)).length,
          2 * 2 * 2
        )
        same(
          (yield* store.subscriptions.list(test, { status: "on_hold" }, { limit: 100, after: undefined })).items,
          newestFirst(subscriptions.filter((s) => s.status === "on_hold"), position)
        )
      }))

    it.effect("subscriptions.claimDue: active by next_billing_date, on_hold by next_retry_at, never cancelled; earliest first", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const other = scopesOf(yield* makeAccount()).test
        // Claims see every account, so this test keeps to 1992, before anything else of the suite is due.
        const E = Date.UTC(1992, 0, 1)
        const now = E + 10_000
        const day = 86_400_000
        const daily = yield* subscriptionParents(store, test, { interval: "day", count: 1 })
        const dailyLive = yield* subscriptionParents(store, live, { interval: "day", count: 1 })
        const dailyOther = yield* subscriptionParents(store, other, { interval: "day", count: 1 })
        /** Active, renewing at `due`. */
        const renewingAt = (parents: SubscriptionParents, due: number) => startSubscription(parents, { paidAt: due - day })
        /** On hold: its renewal a day before `due` was declined, and the first retry is at `due`. */
        const retryingAt = (due: number) =>
          Effect.map(renewingAt(daily, due - day), (s) => advance(s, chargeDeclined, due - day))

        const tied = [
          yield* renewingAt(daily, E + 1_000),
          yield* renewingAt(dailyLive, E + 1_000),
          yield* renewingAt(dailyOther, E + 1_000)
        ].sort((a, b) => (a.subscription_id < b.subscription_id ? -1 : 1))
        const ending = advance(yield* renewingAt(daily, E + 2_000), { _tag: "SetCancelAtPeriodEnd", value: true }, E)
        const retrying = yield* retryingAt(E + 3_000)
        const atNow = yield* renewingAt(daily, now)
        const notYet = yield* renewingAt(daily, now + 1)
        // Its unpaid period began long ago, but its retry is later: on hold, only next_retry_at counts.
        const retryLater = yield* retryingAt(now + 10_000)
        const cancelled = advance(yield* renewingAt(daily, E - 5 * day), { _tag: "Cancel" }, E - 6 * day)
        const failedOut = run(yield* renewingAt(daily, E - 9 * day), [0, 1, 2, 3].map(() => [chargeDeclined, E - 9 * day] as const)).at(-1)!
        const ended = advance(ending, { _tag: "EndAtPeriodEnd" }, E + 2_000)
        const endedCopy = { ...ended, subscription_id: yield* newId<SubscriptionId>("sub") }
        assert.isBelow(millis(retryLater.next_billing_date), now)
        assert.deepStrictEqual([cancelled.status, failedOut.status, retrying.status], ["cancelled", "cancelled", "on_hold"])
        yield* insertAll(
          shuffle([...tied, ending, retrying, atNow, notYet, retryLater, cancelled, failedOut, endedCopy]),
          store.subscriptions.insert
        )

        const expected = [...tied, ending, retrying, atNow]
        const ids = (rows: ReadonlyArray<Subscription.Subscription>) => rows.map((s) => s.subscription_id)
        same(yield* store.subscriptions.claimDue(at(now), 100), expected)
        same(yield* store.transact(store.subscriptions.claimDue(at(now), 100)), expected)
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(now), 2)), ids(expected.slice(0, 2)))
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(E + 999), 100)), [])
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(E + 1_000), 100)), ids(tied))
        // Only one mode's work when asked (billing run --at touches test data only).
        assert.deepStrictEqual(
          ids(yield* store.subscriptions.claimDue(at(now), 100, false)),
          ids(expected.filter((s) => !s.livemode))
        )
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(now), 100, true)), ids(expected.filter((s) => s.livemode)))
        assert.strictEqual(expected.filter((s) => s.livemode).length, 1)

        // Claiming changes nothing; billing moves them on: renewed, retried again (later), ended.
        yield* store.transact(Effect.gen(function*() {
          for (const s of yield* store.subscriptions.claimDue(at(now), 100)) {
            const command = Subscription.dueAction(s) === "end" ? { _tag: "EndAtPeriodEnd" } as const
              : s.status === "on_hold" ? chargeDeclined : chargeOk
            yield* store.subscriptions.update(advance(s, command, now))
          }
        }))
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(now), 100)), [])
        // Later, the retry that waited is due, then the one not yet due; renewed ones come round again a day on.
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(now + 10_000), 100)), ids([notYet, retryLater]))
        const nextDay = yield* store.subscriptions.claimDue(at(E + day + 1_000), 100)
        assert.includeMembers(ids(nextDay), ids(tied))
        assert.notInclude(ids(nextDay), ending.subscription_id)
        // Leave nothing due behind.
        yield* Effect.forEach(
          yield* store.subscriptions.claimDue(at(E + 30 * day), 100),
          (s) => store.subscriptions.update(advance(s, { _tag: "Cancel" }, E)),
          { discard: true }
        )
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(E + 30 * day), 100)), [])
      }))

    it.effect("subscriptions.claimDue leaves out a subscription whose due attempt is already reserved (at the processor on some server)", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        // Claims see every account: this test keeps to 1991, before anything else of the suite, and leaves nothing due.
        const E = Date.UTC(1991, 0, 1)
        const now = E + 10_000
        const day = 86_400_000
        const daily = yield* subscriptionParents(store, test, { interval: "day", count: 1 })
        const renewingAt = (due: number) => startSubscription(daily, { paidAt: due - day })
        const inFlight = yield* renewingAt(E + 1_000)
        // On hold after its renewal (attempt 0) was declined: its due attempt is the retry, attempt 1.
        const retrying = advance(yield* renewingAt(E + 2_000 - day), chargeDeclined, E + 2_000 - day)
        const plain = yield* renewingAt(E + 3_000)
        yield* insertAll([inFlight, retrying, plain], store.subscriptions.insert)
        const reserve = (sub: Subscription.Subscription, attempt: number) =>
          Effect.gen(function*() {
            const payment = yield* renewalPayment(sub)
            yield* store.transact(Effect.zipRight(
              store.subscriptions.recordAttempt({
                subscription_id: sub.subscription_id,
                period: sub.period + 1,
                attempt,
                payment_id: payment.payment_id
              }),
              store.payments.insert(payment)
            ))
          })
        const ids = (rows: ReadonlyArray<Subscription.Subscription>) => rows.map((s) => s.subscription_id)
        yield* reserve(inFlight, 0)
        yield* reserve(retrying, 0)
        assert.strictEqual(retrying.status, "on_hold")
        assert.deepStrictEqual(
          ids(yield* store.transact(store.subscriptions.claimDue(at(now), 100))),
          ids([retrying, plain]),
          "the renewal at the processor is left out; an older attempt does not count"
        )
        yield* reserve(retrying, 1)
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(now), 100)), ids([plain]))
        // Leave nothing due behind.
        yield* Effect.forEach(
          [inFlight, retrying, plain],
          (s) => store.subscriptions.update(advance(s, { _tag: "Cancel" }, E)),
          { discard: true }
        )
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(now), 100)), [])
      }))

    it.effect("subscriptions.recordAttempt: true once per (subscription, period, attempt), then false; attempts in order", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, test)
        const [s, t] = [yield* startSubscription(parents), yield* startSubscription(parents)]
        yield* insertAll([s!, t!], store.subscriptions.insert)
        const payments = yield* Effect.forEach([0, 1, 2, 3, 4, 5], () => renewalPayment(s!))
        const other = yield* renewalPayment(t!)
        yield* insertAll([...payments, other], store.payments.insert)
        const attempt = (sub: Subscription.Subscription, period: number, n: number, payment: Payment.Payment): RenewalAttempt => ({
          subscription_id: sub.subscription_id,
          period,
          attempt: n,
          payment_id: payment.payment_id
        })
        const [p0, p1, p2, p3, p4] = payments as [Payment.Payment, Payment.Payment, Payment.Payment, Payment.Payment, Payment.Payment]

        assert.isTrue(yield* store.subscriptions.recordAttempt(attempt(s!, 2, 0, p0)))
        assert.isTrue(yield* store.subscriptions.recordAttempt(attempt(s!, 1, 0, p1)))
        assert.isFalse(yield* store.subscriptions.recordAttempt(attempt(s!, 1, 0, p2)), "the renewal of period 1 again")
        assert.isFalse(yield* store.subscriptions.recordAttempt(attempt(s!, 1, 0, p1)), "the very same attempt again")
        assert.isTrue(yield* store.subscriptions.recordAttempt(attempt(s!, 1, 3, p3)))
        assert.isTrue(yield* store.subscriptions.recordAttempt(attempt(s!, 1, 1, p2)))
        assert.isFalse(yield* store.subscriptions.recordAttempt(attempt(s!, 1, 1, p4)))
        // Another subscription's period 1 is its own.
        assert.isTrue(yield* store.subscriptions.recordAttempt(attempt(t!, 1, 0, other)))

        assert.deepStrictEqual(yield* store.subscriptions.attempts(s!.subscription_id), [
          attempt(s!, 1, 0, p1),
          attempt(s!, 1, 1, p2),
          attempt(s!, 1, 3, p3),
          attempt(s!, 2, 0, p0)
        ])
        assert.deepStrictEqual(yield* store.subscriptions.attempts(t!.subscription_id), [attempt(t!, 1, 0, other)])
        assert.deepStrictEqual(yield* store.subscriptions.attempts(yield* newId<SubscriptionId>("sub")), [])

        // Many at once, for one attempt: exactly one records it.
        const racers = yield* Effect.forEach(Array.from({ length: 12 }), () => renewalPayment(s!))
        yield* insertAll(racers, store.payments.insert)
        const results = yield* Effect.all(
          racers.map((p) => store.transact(store.subscriptions.recordAttempt(attempt(s!, 3, 0, p)))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((r) => r).length, 1)
        const winner = racers[results.indexOf(true)]!
        assert.deepStrictEqual((yield* store.subscriptions.attempts(s!.subscription_id)).at(-1), attempt(s!, 3, 0, winner))
      }))

    it.effect("subscriptions.recordAttempts and payments.insertAll: a batch records what is new, in order, in one go", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, test)
        const subs = yield* Effect.forEach([0, 1, 2], () => startSubscription(parents))
        yield* insertAll(subs, store.subscriptions.insert)
        const first = yield* Effect.forEach(subs, (sub) => renewalPayment(sub))
        yield* store.transact(store.payments.insertAll(first))
        for (const p of first) same(yield* store.payments.get(test, p.payment_id), Option.some(p))
        yield* store.payments.insertAll([])
        const attempt = (sub: Subscription.Subscription, payment: Payment.Payment): RenewalAttempt => ({
          subscription_id: sub.subscription_id,
          period: 1,
          attempt: 0,
          payment_id: payment.payment_id
        })
        // The middle one is taken already (another server has it).
        assert.isTrue(yield* store.subscriptions.recordAttempt(attempt(subs[1]!, first[1]!)))
        const second = yield* Effect.forEach(subs, (sub) => renewalPayment(sub))
        yield* store.payments.insertAll(second)
        const recorded = yield* store.transact(store.subscriptions.recordAttempts(subs.map((sub, i) => attempt(sub, second[i]!))))
        assert.deepStrictEqual(recorded, [true, false, true])
        assert.deepStrictEqual(yield* store.subscriptions.attempts(subs[1]!.subscription_id), [attempt(subs[1]!, first[1]!)])
        assert.deepStrictEqual(yield* store.subscriptions.attempts(subs[2]!.subscription_id), [attempt(subs[2]!, second[2]!)])
        assert.deepStrictEqual(yield* store.subscriptions.recordAttempts([]), [])
      }))

    it.effect("findAll, updateAll and events.insertAll: a batch reads and writes what one by one would", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, test)
        const subs = yield* Effect.forEach([0, 1, 2], (i) => startSubscription(parents, { metadata: { plan: `p${i}` } }))
        yield* insertAll(subs, store.subscriptions.insert)
        const payments = yield* Effect.forEach(subs, (sub) => renewalPayment(sub, { metadata: { n: "1" } }))
        yield* store.payments.insertAll(payments)
        const [p0, p1, p2] = payments as [Payment.Payment, Payment.Payment, Payment.Payment]
        const [s0, s1, s2] = subs as [Subscription.Subscription, Subscription.Subscription, Subscription.Subscription]
        const byId = <A>(items: ReadonlyArray<A>, id: (a: A) => string) =>
          [...items].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0))

        // Each found row once, in byte order of its id; unknown ids left out.
        const unknownPayment = yield* newId<PaymentId>("pay")
        same(
          yield* store.transact(store.payments.findAll([p2.payment_id, unknownPayment, p0.payment_id, p2.payment_id, p1.payment_id])),
          byId(payments, (p) => p.payment_id)
        )
        same(yield* store.payments.findAll([unknownPayment]), [])
        same(yield* store.payments.findAll([]), [])
        same(yield* store.subscriptions.findAll([s1.subscription_id, s0.subscription_id]), byId([s0, s1], (s) => s.subscription_id))

        // Every column written back: new status, amounts, charge, card, metadata, paid_at; one left as it was.
        const changed = [
          { ...succeededOf(p0), metadata: { n: "2", note: "ünïcode ✓" } },
          { ...failedOf(p1), charge_id: "ch_sim_done_ab12" }
        ]
        yield* store.transact(store.payments.updateAll(changed))
        yield* store.payments.updateAll([])
        same(yield* store.payments.get(test, p0.payment_id), Option.some(changed[0]))
        same(yield* store.payments.get(test, p1.payment_id), Option.some(changed[1]))
        same(yield* store.payments.get(test, p2.payment_id), Option.some(p2))

        const renewed = [
          { ...advance(s0, chargeOk, dueMillis(s0)), metadata: { plan: "gold" } },
          advance(s1, chargeDeclined, dueMillis(s1))
        ]
        yield* store.subscriptions.updateAll(renewed)
        yield* store.subscriptions.updateAll([])
        same(yield* store.subscriptions.get(test, s0.subscription_id), Option.some(renewed[0]))
        same(yield* store.subscriptions.get(test, s1.subscription_id), Option.some(renewed[1]))
        same(yield* store.subscriptions.get(test, s2.subscription_id), Option.some(s2))
        // A renewed subscription is due again at its next date (the store's due index follows the update).
        const due = yield* store.transact(store.subscriptions.claimDue(at(dueMillis(renewed[1]!)), 100, false))
        assert.isTrue(due.some((s) => s.subscription_id === s1.subscription_id))
        assert.isFalse(due.some((s) => s.subscription_id === s0.subscription_id))

        const events = yield* Effect.forEach([0, 1, 2], (i) => makeEvent(test, { created_at: at(T0 + i) }))
        yield* store.events.insertAll(events)
        yield* store.events.insertAll([])
        for (const event of events) same(yield* store.events.get(test, event.event_id), Option.some(event))
      }))

    it.effect("subscriptions: a failed transaction leaves no subscription, attempt or change behind; one that commits keeps all", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, test)
        const page = { limit: 10, after: undefined }
        const fresh = yield* startSubscription(parents)
        const existing = yield* startSubscription(parents)
        yield* store.subscriptions.insert(existing)
        const payment = yield* renewalPayment(existing)
        const renewed = advance(existing, chargeOk, dueMillis(existing))
        // What billing does in one transaction: record the attempt first, then its payment; and the outcome.
        const renew = Effect.gen(function*() {
          yield* store.subscriptions.insert(fresh)
          assert.isTrue(yield* store.subscriptions.recordAttempt({
            subscription_id: existing.subscription_id,
            period: existing.period + 1,
            attempt: 0,
            payment_id: payment.payment_id
          }))
          yield* store.payments.insert(payment)
          yield* store.subscriptions.update(renewed)
          same(yield* store.subscriptions.find(existing.subscription_id), Option.some(renewed))
        })

        for (const end of [Effect.fail("declined" as const), Effect.dieMessage("bug")]) {
          const exit = yield* Effect.exit(store.transact(Effect.zipRight(renew, end)))
          assert.isTrue(Exit.isFailure(exit))
          assert.isTrue(Option.isNone(yield* store.subscriptions.get(test, fresh.subscription_id)))
          assert.isTrue(Option.isNone(yield* store.subscriptions.find(fresh.subscription_id)))
          same(yield* store.subscriptions.get(test, existing.subscription_id), Option.some(existing))
          same((yield* store.subscriptions.list(test, {}, page)).items, [existing])
          assert.deepStrictEqual(yield* store.subscriptions.attempts(existing.subscription_id), [])
          assert.isTrue(Option.isNone(yield* store.payments.get(test, payment.payment_id)))
        }

        yield* store.transact(renew)
        same(yield* store.subscriptions.get(test, fresh.subscription_id), Option.some(fresh))
        same(yield* store.subscriptions.get(test, existing.subscription_id), Option.some(renewed))
        assert.deepStrictEqual(yield* store.subscriptions.attempts(existing.subscription_id), [{
          subscription_id: existing.subscription_id,
          period: 1,
          attempt: 0,
          payment_id: payment.payment_id
        }])
        // The committed attempt is taken: recording it again is refused.
        assert.isFalse(yield* store.subscriptions.recordAttempt({
          subscription_id: existing.subscription_id,
          period: 1,
          attempt: 0,
          payment_id: payment.payment_id
        }))
      }))

    it.effect("subscriptions: the first payment names the subscription it starts before the subscription is stored", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const parents = yield* subscriptionParents(store, test)
        const session = yield* makeSession(test, {
          kind: "subscription",
          customer: sessionCustomer(parents.customer),
          customer_id: parents.customer.customer_id
        })
        yield* store.sessions.insert(session)
        const first = yield* makePayment(test, {
          billing_reason: "subscription_create",
          checkout_session_id: session.session_id,
          customer: paymentCustomer(parents.customer)
        })
        yield* store.payments.insert(first)
        const subscription = yield* startSubscription(parents, { paidAt: T0 + 60_000, checkoutSessionId: session.session_id })
        const paid = { ...succeededOf(first), card: subscriptionCard, subscription_id: subscription.subscription_id }
        const completed: CheckoutSession = {
          ...session,
          status: "complete",
          payment_id: first.payment_id,
          subscription_id: subscription.subscription_id,
          completed_at: at(T0 + 60_000)
        }
        // The order of ChargeOutcomes.record: the payment (with the new id), then the subscription, then the session.
        yield* store.transact(Effect.gen(function*() {
          yield* store.payments.update(paid)
          yield* store.subscriptions.insert(subscription)
          yield* store.sessions.update(completed)
        }))
        same(yield* store.payments.get(test, first.payment_id), Option.some(paid))
        same(yield* store.subscriptions.get(test, subscription.subscription_id), Option.some(subscription))
        same(yield* store.sessions.get(test, session.session_id), Option.some(completed))
      }))

    it.effect("claims: the livemode filter of sessions.claimExpired and payments.listProcessing", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { live, test } = scopesOf(yield* makeAccount())
        const other = scopesOf(yield* makeAccount())
        // Claims see every account, so this test keeps to 1988 and 1989, before anything else of the suite.
        const E = Date.UTC(1989, 0, 1)
        const sessions = [
          yield* makeSession(test, dueAt(E)),
          yield* makeSession(live, dueAt(E + 1)),
          yield* makeSession(other.live, dueAt(E + 2)),
          yield* makeSession(other.test, dueAt(E + 3))
        ]
        yield* insertAll(shuffle(sessions), store.sessions.insert)
        const sessionIds = (rows: ReadonlyArray<CheckoutSession>) => rows.map((s) => s.session_id)
        const now = at(E + 1_000)
        assert.deepStrictEqual(sessionIds(yield* store.sessions.claimExpired(now, 100)), sessionIds(sessions))
        for (const livemode of [false, true]) {
          const expected = sessionIds(sessions.filter((s) => s.livemode === livemode))
          assert.deepStrictEqual(sessionIds(yield* store.sessions.claimExpired(now, 100, livemode)), expected)
          assert.deepStrictEqual(sessionIds(yield* store.transact(store.sessions.claimExpired(now, 100, livemode))), expected)
          assert.deepStrictEqual(sessionIds(yield* store.sessions.claimExpired(now, 1, livemode)), expected.slice(0, 1))
        }

        const F = Date.UTC(1988, 0, 1)
        const payments = [
          yield* makePayment(live, { created_at: at(F) }),
          yield* makePayment(test, { created_at: at(F + 1) }),
          yield* makePayment(other.test, { created_at: at(F + 2) }),
          yield* makePayment(other.live, { created_at: at(F + 3) })
        ]
        yield* insertAll(shuffle(payments), store.payments.insert)
        const paymentIds = (rows: ReadonlyArray<Payment.Payment>) => rows.map((p) => p.payment_id)
        // These are the oldest processing payments of the suite, so they lead every claim.
        assert.deepStrictEqual(paymentIds(yield* store.payments.listProcessing(4)), paymentIds(payments))
        for (const livemode of [false, true]) {
          const expected = paymentIds(payments.filter((p) => p.livemode === livemode))
          assert.deepStrictEqual(paymentIds(yield* store.payments.listProcessing(2, livemode)), expected)
          assert.deepStrictEqual(paymentIds(yield* store.transact(store.payments.listProcessing(2, livemode))), expected)
          const all = yield* store.payments.listProcessing(1_000, livemode)
          assert.isTrue(all.every((p) => p.livemode === livemode), `only livemode ${livemode}`)
        }

        // Leave nothing due behind for other tests' claims.
        yield* Effect.forEach(sessions, (s) => store.sessions.update({ ...s, status: "expired" }), { discard: true })
        yield* Effect.forEach(payments, (p) => store.payments.update(failedOf(p)), { discard: true })
        assert.deepStrictEqual(yield* store.sessions.claimExpired(now, 100), [])
      }))

    // Transactions --------------------------------------------------------------------------------------------------

    it.effect("transact: writes commit together, and the effect reads its own writes", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const [a, b] = [yield* makeProduct(test), yield* makeProduct(test)]
        const result = yield* store.transact(Effect.gen(function*() {
          yield* store.products.insert(a)
          yield* store.products.insert(b)
          return Option.isSome(yield* store.products.get(test, a.product_id))
        }))
        assert.isTrue(result)
        assert.isTrue(Option.isSome(yield* store.products.get(test, a.product_id)))
        assert.isTrue(Option.isSome(yield* store.products.get(test, b.product_id)))
      }))

    it.effect("transact: a failure or a defect inside leaves no write behind", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const account = yield* makeAccount()
        const { test } = scopesOf(account)
        const product = yield* makeProduct(test)
        const writes = Effect.gen(function*() {
          yield* store.products.insert(product)
          yield* store.accounts.update({ ...account, business_name: "Changed" })
          yield* store.customers.insert(yield* makeCustomer(test))
        })

        const failed = yield* Effect.exit(store.transact(Effect.zipRight(writes, Effect.fail("boom" as const))))
        assert.deepStrictEqual(failureOf(failed), Option.some<unknown>("boom"))
        const died = yield* Effect.exit(store.transact(Effect.zipRight(writes, Effect.dieMessage("bug"))))
        assert.isTrue(Exit.isFailure(died) && Cause.isDie(died.cause))

        assert.isTrue(Option.isNone(yield* store.products.get(test, product.product_id)))
        same(yield* store.accounts.get(account.account_id), Option.some(account))
        assert.deepStrictEqual((yield* store.customers.list(test, {}, { limit: 10, after: undefined })).items, [])
      }))

    it.effect("transact: nested calls join the outer transaction", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const [a, b, c, d] = yield* Effect.all([makeProduct(test), makeProduct(test), makeProduct(test), makeProduct(test)])

        // The inner transaction succeeded, but the outer failed: nothing stays.
        const failed = yield* Effect.exit(store.transact(Effect.gen(function*() {
          yield* store.transact(store.products.insert(a))
          yield* store.products.insert(b)
          return yield* Effect.fail("outer failed" as const)
        })))
        assert.deepStrictEqual(failureOf(failed), Option.some<unknown>("outer failed"))
        assert.isTrue(Option.isNone(yield* store.products.get(test, a.product_id)))
        assert.isTrue(Option.isNone(yield* store.products.get(test, b.product_id)))

        yield* store.transact(Effect.all([
          store.transact(store.products.insert(c)),
          store.transact(store.transact(store.products.insert(d)))
        ]))
        assert.isTrue(Option.isSome(yield* store.products.get(test, c.product_id)))
        assert.isTrue(Option.isSome(yield* store.products.get(test, d.product_id)))
      }))

    it.effect("transact: an inner failure the outer effect recovers from keeps the inner writes (one transaction)", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        const [a, b] = yield* Effect.all([makeProduct(test), makeProduct(test)])
        yield* store.transact(Effect.gen(function*() {
          const inner = yield* Effect.exit(store.transact(Effect.zipRight(store.products.insert(a), Effect.fail("declined"))))
          assert.isTrue(Exit.isFailure(inner))
          yield* store.products.insert(b)
        }))
        assert.isTrue(Option.isSome(yield* store.products.get(test, a.product_id)))
        assert.isTrue(Option.isSome(yield* store.products.get(test, b.product_id)))
      }))

    // Idempotency ---------------------------------------------------------------------------------------------------

    it.effect("idempotency: a free key is claimed once; later requests meet the holder's record", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const scope = `acct_${yield* unique()}:test`
        const record = idempotencyRecord(scope, "order-1", "POST /products {a}", T0)
        assert.deepStrictEqual(yield* store.idempotency.claim(record, at(T0)), { _tag: "Claimed" })

        same(existing(yield* store.idempotency.claim(record, at(T0 + 10))), record)
        const other = idempotencyRecord(scope, "order-1", "POST /products {b}", T0 + 20)
        same(existing(yield* store.idempotency.claim(other, at(T0 + 20))), record)
        // Keys are per scope: the same key elsewhere is free.
        const elsewhere = idempotencyRecord(`acct_${yield* unique()}:test`, "order-1", "POST /products {a}", T0)
        assert.deepStrictEqual(yield* store.idempotency.claim(elsewhere, at(T0)), { _tag: "Claimed" })
      }))

    it.effect("idempotency: find answers the record that holds a key, and claims nothing", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const scope = `acct_${yield* unique()}:test`
        const record = idempotencyRecord(scope, "order-1", "POST /products {a}", T0)
        assert.isTrue(Option.isNone(yield* store.idempotency.find(scope, "order-1")))
        // Looking did not take the key.
        assert.deepStrictEqual(yield* store.idempotency.claim(record, at(T0)), { _tag: "Claimed" })
        same(Option.getOrThrow(yield* store.idempotency.find(scope, "order-1")), record)
        const response = { status: 200, body: "prod_1" }
        yield* store.idempotency.complete(scope, "order-1", record.fingerprint, response)
        same(Option.getOrThrow(yield* store.idempotency.find(scope, "order-1")).response, response)
        assert.isTrue(Option.isNone(yield* store.idempotency.find(`acct_${yield* unique()}:test`, "order-1")))
      }))

    it.effect("idempotency: answerAll stores responses in the work's transaction, only on records their claims still hold", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const scope = `acct_${yield* unique()}:test`
        const record = idempotencyRecord(scope, "k", "fp-a", T0)
        const other = idempotencyRecord(scope, "k2", "fp-c", T0)
        const response = { status: 200, body: "{\"object\":\"product\"}" }
        const completion = { scope, key: "k", fingerprint: "fp-a", response }
        const answer = { completion, lockedUntil: record.lockedUntil }
        const otherAnswer = { completion: { scope, key: "k2", fingerprint: "fp-c", response }, lockedUntil: other.lockedUntil }
        yield* store.idempotency.claim(record, at(T0))
        yield* store.idempotency.claim(other, at(T0))
        // Another request's fingerprint, or a lease that is not this claim's (a retry took the key over): no.
        assert.deepStrictEqual(
          yield* store.idempotency.answerAll([
            { ...answer, completion: { ...completion, fingerprint: "fp-b" } },
            { ...answer, lockedUntil: at(T0 + 1) }
          ]),
          [false, false]
        )
        // Rolled back with its transaction: the record still waits for an answer.
        const rolledBack = yield* Effect.exit(store.transact(
          Effect.zipRight(store.idempotency.answerAll([answer]), Effect.fail("work failed" as const))
        ))
        assert.isTrue(Exit.isFailure(rolledBack))
        assert.isNull(existing(yield* store.idempotency.claim(record, at(T0 + 2))).response)
        // Committed with it: replayed from then on, and never answered twice; each answer of a batch on its own.
        assert.deepStrictEqual(
          yield* store.transact(store.idempotency.answerAll([{ ...answer, lockedUntil: at(T0 + 1) }, answer, otherAnswer])),
          [false, true, true]
        )
        same(existing(yield* store.idempotency.claim(record, at(T0 + 3))).response, response)
        same(existing(yield* store.idempotency.claim(other, at(T0 + 3))).response, response)
        assert.deepStrictEqual(yield* store.idempotency.answerAll([answer]), [false])
        assert.deepStrictEqual(yield* store.idempotency.answerAll([]), [])
      }))

    it.effect("idempotency: complete stores the response for the same fingerprint; release frees only unfinished keys", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const scope = `acct_${yield* unique()}:live`
        const record = idempotencyRecord(scope, "k", "fp-a", T0)
        const response = { status: 201, body: "{\"object\":\"product\"}" }
        yield* store.idempotency.claim(record, at(T0))

        yield* store.idempotency.complete(scope, "k", "fp-b", response)
        assert.isNull(existing(yield* store.idempotency.claim(record, at(T0 + 1))).response)
        yield* store.idempotency.release(scope, "k", "fp-b")
        assert.strictEqual(existing(yield* store.idempotency.claim(record, at(T0 + 1))).fingerprint, "fp-a")

        yield* store.idempotency.complete(scope, "k", "fp-a", response)
        same(existing(yield* store.idempotency.claim(record, at(T0 + 2))), { ...record, response })
        // A finished record is never released: its response is replayed for 24 hours.
        yield* store.idempotency.release(scope, "k", "fp-a")
        same(existing(yield* store.idempotency.claim(record, at(T0 + 3))).response, response)

        const next = idempotencyRecord(scope, "k2", "fp-a", T0)
        yield* store.idempotency.claim(next, at(T0))
        yield* store.idempotency.release(scope, "k2", "fp-a")
        const retry = idempotencyRecord(scope, "k2", "fp-c", T0 + 5)
        assert.deepStrictEqual(yield* store.idempotency.claim(retry, at(T0 + 5)), { _tag: "Claimed" })
        same(existing(yield* store.idempotency.claim(next, at(T0 + 6))), retry)
      }))

    it.effect("idempotency.claimAll: any batches answer as the same claims made one after another (keys repeated, leases and records expiring)", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const lease = Duration.toMillis(Idempotency.lease)
        const retention = Duration.toMillis(Idempotency.retention)
        const runs = FastCheck.sample(
          FastCheck.array(
            FastCheck.record({
              // How far the clock moves before the batch: nothing, past a lease, past the retention.
              advance: FastCheck.constantFrom(0, 1, lease, retention),
              claims: FastCheck.array(
                FastCheck.record({ key: FastCheck.constantFrom("k0", "k1", "k2"), fingerprint: FastCheck.constantFrom("f0", "f1") }),
                { minLength: 1, maxLength: 6 }
              ),
              finish: FastCheck.boolean()
            }),
            { minLength: 1, maxLength: 5 }
          ),
          12
        )
        for (const batches of runs) {
          const batched = `acct_${yield* unique()}:test`
          const oneByOne = `acct_${yield* unique()}:test`
          let now = T0
          for (const { advance, claims, finish } of batches) {
            now += advance
            const records = (scope: string) => claims.map((c) => idempotencyRecord(scope, c.key, c.fingerprint, now))
            const together = yield* store.idempotency.claimAll(records(batched), at(now))
            const apart = yield* Effect.forEach(records(oneByOne), (r) => store.idempotency.claim(r, at(now)))
            const comparable = (c: Idempotency.Claim) => c._tag === "Claimed" ? c : { ...c, record: { ...c.record, scope: "" } }
            assert.deepStrictEqual(plain(together.map(comparable)), plain(apart.map(comparable)), JSON.stringify(batches))
            // Some batches' winners finish, so later batches meet completed records too.
            if (finish) {
              for (const scope of [batched, oneByOne]) {
                yield* Effect.forEach(claims, (c, i) => together[i]!._tag === "Claimed"
                  ? store.idempotency.complete(scope, c.key, c.fingerprint, { status: 200, body: `{"i":${i}}` })
                  : Effect.void)
              }
            }
          }
        }
      }))

    it.effect("idempotency.completeAll: each completion as complete would, in one write", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const scope = `acct_${yield* unique()}:test`
        const records = ["a", "b", "c"].map((key) => idempotencyRecord(scope, key, `fp-${key}`, T0))
        for (const record of records) yield* store.idempotency.claim(record, at(T0))
        const response = (n: number) => ({ status: 200, body: `{"n":${n},"text":"قهوة \\"x\\""}` })
        yield* store.idempotency.completeAll([])
        yield* store.idempotency.completeAll([
          { scope, key: "a", fingerprint: "fp-a", response: response(1) },
          // Another request's fingerprint: the record keeps no response.
          { scope, key: "b", fingerprint: "fp-other", response: response(2) },
          { scope, key: "c", fingerprint: "fp-c", response: { status: 422, body: "{\"code\":\"INVALID_REQUEST\"}" } }
        ])
        same(existing(yield* store.idempotency.claim(records[0]!, at(T0 + 1))).response, response(1))
        assert.isNull(existing(yield* store.idempotency.claim(records[1]!, at(T0 + 1))).response)
        same(existing(yield* store.idempotency.claim(records[2]!, at(T0 + 1))).response, { status: 422, body: "{\"code\":\"INVALID_REQUEST\"}" })
      }))

    it.effect("idempotency: expired records and abandoned leases", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const scope = `acct_${yield* unique()}:test`
        const lease = Duration.toMillis(Idempotency.lease)
        const retention = Duration.toMillis(Idempotency.retention)
        const response = { status: 200, body: "{}" }

        // A finished record lasts until expiresAt, for any fingerprint; at expiresAt the key is free again.
        const done = idempotencyRecord(scope, "done", "fp-1", T0)
        yield* store.idempotency.claim(done, at(T0))
        yield* store.idempotency.complete(scope, "done", "fp-1", response)
        same(existing(yield* store.idempotency.claim(done, at(T0 + lease * 2))), { ...done, response })
        const late = idempotencyRecord(scope, "done", "fp-2", T0 + retention - 1)
        same(existing(yield* store.idempotency.claim(late, at(T0 + retention - 1))).response, response)
        const afterExpiry = idempotencyRecord(scope, "done", "fp-2", T0 + retention)
        assert.deepStrictEqual(yield* store.idempotency.claim(afterExpiry, at(T0 + retention)), { _tag: "Claimed" })
        same(existing(yield* store.idempotency.claim(done, at(T0 + retention + 1))), afterExpiry)

        // A request that never finished: within its lease the key is in use; after it, only the same request
        // (same fingerprint) may take over.
        const abandoned = idempotencyRecord(scope, "crashed", "fp-1", T0)
        yield* store.idempotency.claim(abandoned, at(T0))
        same(existing(yield* store.idempotency.claim(abandoned, at(T0 + lease - 1))), abandoned)
        const different = idempotencyRecord(scope, "crashed", "fp-2", T0 + lease)
        same(existing(yield* store.idempotency.claim(different, at(T0 + lease))), abandoned)
        const takeover = idempotencyRecord(scope, "crashed", "fp-1", T0 + lease)
        assert.deepStrictEqual(yield* store.idempotency.claim(takeover, at(T0 + lease)), { _tag: "Claimed" })
        same(existing(yield* store.idempotency.claim(takeover, at(T0 + lease + 1))), takeover)

        // A finished record past its lease is replayed, not taken over.
        const finished = idempotencyRecord(scope, "finished", "fp-1", T0)
        yield* store.idempotency.claim(finished, at(T0))
        yield* store.idempotency.complete(scope, "finished", "fp-1", response)
        const again = idempotencyRecord(scope, "finished", "fp-1", T0 + lease * 3)
        same(existing(yield* store.idempotency.claim(again, at(T0 + lease * 3))), { ...finished, response })
      }))

    it.effect("idempotency: of many concurrent claims of one key exactly one is Claimed", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const scope = `acct_${yield* unique()}:test`
        const n = 24
        const claims = yield* Effect.all(
          Array.from({ length: n }, () => store.idempotency.claim(idempotencyRecord(scope, "race", "fp", T0), at(T0))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(claims.filter((c) => c._tag === "Claimed").length, 1)
        for (const c of claims) if (c._tag === "Existing") assert.strictEqual(c.record.fingerprint, "fp")
      }))

    // Rate limits ---------------------------------------------------------------------------------------------------

    it.effect("rate limits: a limit of 3 per 60 s", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const bucket = `key:${yield* unique()}`
        const hit = (t: number) => store.rateLimits.hit(bucket, t, 3, 60)
        const decisions = [yield* hit(T0), yield* hit(T0 + 100), yield* hit(T0 + 1_500), yield* hit(T0 + 2_000)]
        assert.deepStrictEqual(decisions.map((d) => [d.allowed, d.remaining]), [[true, 2], [true, 1], [true, 0], [false, 0]])
        assert.strictEqual(decisions[3]!.limit, 3)
        // The first second's requests count until 60 s after its latest (T0 + 100 ms): 58.1 s from now, said as 59.
        assert.strictEqual(decisions[3]!.resetSeconds, 59)
        assert.isFalse((yield* hit(T0 + 60_099)).allowed)
        // The two requests of the first second have left; the one of the second is still counted.
        const later = yield* hit(T0 + 60_100)
        assert.deepStrictEqual([later.allowed, later.remaining], [true, 1])
      }))

    it.effect.prop(
      "rate limits: decisions equal RateWindow.hit's for the same inputs",
      {
        start: FastCheck.integer({ min: 0, max: 4_000_000_000_000 }),
        window: FastCheck.constantFrom(1, 2, 3, 60),
        steps: FastCheck.array(
          FastCheck.record({
            dt: FastCheck.oneof(FastCheck.integer({ min: 0, max: 400 }), FastCheck.integer({ min: -1_500, max: 5_000 })),
            // Small limits, to reach them; now and then one large enough for a share (RateWindow.shareRoom).
            limit: FastCheck.oneof(
              { weight: 3, arbitrary: FastCheck.integer({ min: 0, max: 6 }) },
              { weight: 1, arbitrary: FastCheck.integer({ min: 20, max: 90 }) }
            ),
            // Mostly single requests, sometimes a batch counted at once.
            count: FastCheck.oneof({ weight: 3, arbitrary: FastCheck.constant(1) }, { weight: 1, arbitrary: FastCheck.integer({ min: 2, max: 8 }) }),
            // Now and then a caller with another window size, which starts the bucket afresh.
            window: FastCheck.oneof(
              { weight: 9, arbitrary: FastCheck.constant(undefined) },
              { weight: 1, arbitrary: FastCheck.constantFrom(1, 4) }
            ),
            // Now and then a share (RateLease), and what an earlier one did not hand out given back.
            lease: FastCheck.oneof(
              { weight: 2, arbitrary: FastCheck.constant(undefined) },
              {
                weight: 1,
                arbitrary: FastCheck.record({
                  share: FastCheck.integer({ min: 0, max: 30 }),
                  millis: FastCheck.constantFrom(0, 400, 1_000),
                  back: FastCheck.integer({ min: 0, max: 6 })
                })
              }
            )
          }),
          { minLength: 1, maxLength: 40 }
        )
      },
      ({ start, steps, window }) =>
        Effect.gen(function*() {
          const store = yield* Store
          const bucket = `prop:${yield* unique()}`
          let state: RateWindow.RateWindowState | undefined
          let now = start
          let last: RateWindow.RateDecision | undefined
          for (const step of steps) {
            now = Math.max(0, now + step.dt)
            const windowSeconds = step.window ?? window
            const lease: RateWindow.ShareRequest | undefined = step.lease === undefined ? undefined : {
              share: step.lease.share,
              millis: step.lease.millis,
              giveBack: last === undefined ? undefined : { countedAt: last.countedAt, count: step.lease.back }
            }
            const expected = RateWindow.hit(state, now, step.limit, windowSeconds, step.count, lease)
            if (expected.granted + expected.shared > 0 || (lease?.giveBack?.count ?? 0) > 0) state = expected.state
            const actual = yield* store.rateLimits.hit(bucket, now, step.limit, windowSeconds, step.count, lease)
            assert.deepStrictEqual(actual, expected)
            last = expected
          }
        }),
      { fastCheck: { numRuns: 40 } }
    )

    it.effect("rate limits: of N concurrent hits on one bucket with limit L exactly min(N, L) are allowed", () =>
      Effect.gen(function*() {
        const store = yield* Store
        for (const [n, limit] of [[30, 12], [5, 12], [12, 12]] as const) {
          const bucket = `race:${yield* unique()}`
          const decisions = yield* Effect.all(
            Array.from({ length: n }, (_, i) => store.rateLimits.hit(bucket, T0 + i, limit, 60)),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(decisions.filter((d) => d.allowed).length, Math.min(n, limit), `N=${n}, L=${limit}`)
          expect(decisions.map((d) => d.remaining).sort((a, b) => a - b)[0]).toBe(Math.max(0, limit - n))
        }
      }))

    it.effect("test clocks: a clock's work is claimed only with its clock, and real-time work never with one; nextDue, plans, delete", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const { test } = scopesOf(yield* makeAccount())
        // Claims see every account, so this test keeps to 1994, before anything else of the suite is due; and its
        // rows are on a clock, which the suite's other claims leave out.
        const E = Date.UTC(1994, 0, 1)
        const now = E + 10_000
        const day = 86_400_000
        const clock: TestClock.TestClock = {
          ...TestClock.create({ frozen_time: at(E) }, { id: yield* newId<TestClockId>("clk"), accountId: test.accountId, now: at(E) }),
          name: "contract"
        }
        yield* store.testClocks.insert(clock)
        same(yield* store.testClocks.get(test, clock.test_clock_id), Option.some(clock))
        const daily = yield* subscriptionParents(store, test, { interval: "day", count: 1 })
        const onClock = { ...yield* makeCustomer(test), test_clock_id: clock.test_clock_id }
        yield* store.customers.insert(onClock)
        const clocked: SubscriptionParents = { ...daily, customer: onClock }
        const weekly = yield* subscriptionParents(store, test, { interval: "week", count: 2 })
        const clockedWeekly: SubscriptionParents = { ...weekly, customer: onClock }

        const renewing = yield* startSubscription(clocked, { paidAt: E + 2_000 - day })
        const retrying = advance(yield* startSubscription(clocked, { paidAt: E + 1_000 - 2 * day }), chargeDeclined, E + 1_000 - day)
        const later = yield* startSubscription(clockedWeekly, { paidAt: now })
        const cancelled = advance(yield* startSubscription(clockedWeekly, { paidAt: E - day }), { _tag: "Cancel" }, E)
        yield* insertAll([renewing, retrying, later, cancelled], store.subscriptions.insert)
        const expiring = yield* makeSession(test, { ...dueAt(E + 500), customer_id: onClock.customer_id, customer: sessionCustomer(onClock) })
        const unpaid = yield* makeSession(test, { ...dueAt(E + 3_000) })
        yield* insertAll([expiring, unpaid], store.sessions.insert)
        // A session gets its customer's clock when it is given the customer (paid on the hosted page).
        yield* store.sessions.update({ ...unpaid, customer_id: onClock.customer_id, customer: sessionCustomer(onClock) })
        const processing = yield* makePayment(test, { customer: paymentCustomer(onClock) })
        yield* store.payments.insert(processing)

        const ids = (rows: ReadonlyArray<{ readonly subscription_id: string }>) => rows.map((r) => r.subscription_id)
        const sessionIds = (rows: ReadonlyArray<CheckoutSession>) => rows.map((r) => r.session_id)
        // Real-time passes never see them.
        const realDue = ids(yield* store.subscriptions.claimDue(at(now + 30 * day), 10_000))
        for (const s of [renewing, retrying, later]) assert.notInclude(realDue, s.subscription_id)
        const realExpired = sessionIds(yield* store.sessions.claimExpired(at(now), 10_000))
        for (const s of [expiring, unpaid]) assert.notInclude(realExpired, s.session_id)
        assert.notInclude((yield* store.payments.listProcessing(10_000)).map((p) => p.payment_id), processing.payment_id)
        // The clock's advance sees only them, by the same rules and order as real time.
        same(yield* store.subscriptions.claimDue(at(now), 100, false, clock.test_clock_id), [retrying, renewing])
        same(yield* store.transact(store.subscriptions.claimDue(at(now), 100, undefined, clock.test_clock_id)), [retrying, renewing])
        assert.deepStrictEqual(ids(yield* store.subscriptions.claimDue(at(now), 100, true, clock.test_clock_id)), [])
        assert.deepStrictEqual(
          sessionIds(yield* store.sessions.claimExpired(at(now), 100, false, clock.test_clock_id)),
          [expiring.session_id, unpaid.session_id]
        )
        assert.deepStrictEqual(
          (yield* store.payments.listProcessing(100, false, clock.test_clock_id)).map((p) => p.payment_id),
          [processing.payment_id]
        )
        // The earliest work due on it, whatever kind; the plans that bound an advance; its customers' clock.
        same(yield* store.testClocks.nextDue(clock.test_clock_id), Option.some(at(E + 500)))
        yield* store.sessions.update({ ...expiring, status: "expired" })
        same(yield* store.testClocks.nextDue(clock.test_clock_id), Option.some(at(E + 1_000)))
        const plans = [...yield* store.testClocks.plans(clock.test_clock_id)]
          .sort((a, b) => (a.billing_interval < b.billing_interval ? -1 : 1))
        assert.deepStrictEqual(plans, [{ billing_interval: "day", interval_count: 1 }, { billing_interval: "week", interval_count: 2 }])
        same(yield* store.testClocks.ofCustomers([onClock.customer_id, daily.customer.customer_id]), [
          { customer_id: onClock.customer_id, clock }
        ])
        // A recorded attempt is at the processor: not due for the clock either (as for real time).
        const attempt = { subscription_id: retrying.subscription_id, ...Subscription.dueAttempt(retrying) }
        const retry = yield* makePayment(test, {
          customer: paymentCustomer(onClock),
          subscription_id: retrying.subscription_id,
          billing_reason: "subscription_renewal",
          created_at: at(E + 1_000)
        })
        yield* store.payments.insert(retry)
        yield* store.subscriptions.recordAttempt({ ...attempt, payment_id: retry.payment_id })
        same(yield* store.testClocks.nextDue(clock.test_clock_id), Option.some(at(E + 2_000)))
        const advancing = TestClock.startAdvance(clock, at(now), at(now))
        yield* store.testClocks.update(advancing)
        same(yield* store.transact(store.testClocks.lock(test, clock.test_clock_id)), Option.some(advancing))
        same((yield* store.testClocks.list(test, { limit: 10, after: undefined })).items, [advancing])

        // A checkout its customer paid on a VAT-registered account: the session names its payment, which has a tax
        // invoice (a document that otherwise never changes, let alone goes).
        const paidSession = yield* makeSession(test, { customer_id: onClock.customer_id, customer: sessionCustomer(onClock) })
        yield* store.sessions.insert(paidSession)
        const paid = succeededOf(yield* makePayment(test, { customer: paymentCustomer(onClock), checkout_session_id: paidSession.session_id }))
        yield* store.payments.insert(paid)
        yield* store.sessions.update({ ...paidSession, status: "complete", payment_id: paid.payment_id, completed_at: paid.paid_at })
        const taxInvoice: TaxDocument.Invoice = {
          ...FastCheck.sample(invoiceArbitrary(), 1)[0]!,
          account_id: test.accountId,
          livemode: false,
          number: TaxDocument.documentNumber("INV", yield* store.transact(store.documents.nextNumber(test, "INV"))),
          payment_id: paid.payment_id,
          subscription_id: null
        }
        yield* store.documents.insertInvoice(taxInvoice)

        // Deleted with everything attached to it; the customers on the real time stay.
        assert.isTrue(yield* store.transact(store.testClocks.delete(test, clock.test_clock_id)))
        assert.isFalse(yield* store.transact(store.testClocks.delete(test, clock.test_clock_id)))
        assert.isTrue(Option.isNone(yield* store.testClocks.get(test, clock.test_clock_id)))
        assert.isTrue(Option.isNone(yield* store.customers.get(test, onClock.customer_id)))
        assert.isTrue(Option.isSome(yield* store.customers.get(test, daily.customer.customer_id)))
        for (const s of [renewing, retrying, later, cancelled]) assert.isTrue(Option.isNone(yield* store.subscriptions.get(test, s.subscription_id)))
        for (const s of [expiring, unpaid, paidSession]) assert.isTrue(Option.isNone(yield* store.sessions.get(test, s.session_id)))
        for (const p of [processing, retry, paid]) assert.isTrue(Option.isNone(yield* store.payments.get(test, p.payment_id)))
        assert.isTrue(Option.isNone(yield* store.documents.getInvoice(test, taxInvoice.invoice_id)))
        assert.deepStrictEqual(yield* store.subscriptions.attempts(retrying.subscription_id), [])
      }))
  })
