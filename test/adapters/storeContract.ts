/**
 * The Store contract: one suite that every Store adapter passes (memory and PostgreSQL), so that the use cases,
 * tested over memory, behave the same on the database. Each test makes its own accounts, keys and buckets: the
 * store is shared by the whole suite.
 */
import { assert, expect, layer } from "@effect/vitest"
import { Cause, DateTime, Duration, Effect, Exit, FastCheck, type Layer, Option } from "effect"
import { newId } from "../../src/application/Ids.js"
import type { Account, ApiKey, Scope } from "../../src/domain/Account.js"
import type { Customer } from "../../src/domain/Customer.js"
import * as Idempotency from "../../src/domain/Idempotency.js"
import type { AccountId, ApiKeyId, CustomerId, ProductId } from "../../src/domain/Ids.js"
import * as Pagination from "../../src/domain/Pagination.js"
import type { Product, ProductFilter } from "../../src/domain/Product.js"
import * as RateWindow from "../../src/domain/RateWindow.js"
import { type CustomerFilter, Store } from "../../src/ports/Store.js"

// Fixtures -----------------------------------------------------------------------------------------------------------

const T0 = Date.UTC(2026, 10, 21, 10, 0, 0, 0)
const at = (millis: number) => DateTime.unsafeMake(millis)

/** Domain values as plain JSON (DateTime → ISO string), for deep equality. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))
const same = (actual: unknown, expected: unknown) => assert.deepStrictEqual(plain(actual), plain(expected))

const unique = () => newId<string>("evt").pipe(Effect.map((id) => id.slice(4)))

const makeAccount = Effect.fn("makeAccount")(function*(overrides: Partial<Account> = {}) {
  const store = yield* Store
  const account: Account = {
    account_id: yield* newId<AccountId>("acct"),
    business_name: "Souq Books",
    support_email: "help@souq.ae",
    live_payments_enabled: false,
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
    status: "active",
    metadata: {},
    created_at: at(T0),
    updated_at: null,
    ...overrides
  }))

const makeCustomer = (scope: Scope, overrides: Partial<Customer> = {}) =>
  Effect.map(newId<CustomerId>("cus"), (id): Customer => ({
    object: "customer",
    customer_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    name: "Mona Haddad",
    email: "mona@example.ae",
    phone_number: "+971501234567",
    metadata: {},
    created_at: at(T0),
    ...overrides
  }))

const scopesOf = (account: Account) => ({
  test: { accountId: account.account_id, livemode: false } satisfies Scope,
  live: { accountId: account.account_id, livemode: true } satisfies Scope
})

const insertAll = <A>(items: ReadonlyArray<A>, insert: (a: A) => Effect.Effect<void, unknown>) =>
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

const shuffle = <A>(items: ReadonlyArray<A>): Array<A> => {
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

export const storeContract = (name: string, storeLayer: Layer.Layer<Store>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: "60 seconds" })(`Store contract: ${name}`, (it) => {
    it.effect("ping answers", () => Effect.flatMap(Store, (store) => store.ping))

    // Accounts and keys ---------------------------------------------------------------------------------------------

    it.effect("accounts: insert, get, update, count", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const before = yield* store.accounts.count
        const account = yield* makeAccount({ support_email: null })
        assert.strictEqual(yield* store.accounts.count, before + 1)
        same(yield* store.accounts.get(account.account_id), Option.some(account))

        const updated: Account = { ...account, business_name: "Souq Books LLC", live_payments_enabled: true }
        yield* store.accounts.update(updated)
        same(yield* store.accounts.get(account.account_id), Option.some(updated))
        assert.strictEqual(yield* store.accounts.count, before + 1)

        assert.isTrue(Option.isNone(yield* store.accounts.get(yield* newId<AccountId>("acct"))))
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

    it.effect("products: status and billing filters, with paging", () =>
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
          { status: "archived", billing: "recurring" }
        ]
        for (const filter of filters) {
          const expected = newestFirst(
            products.filter((p) =>
              (filter.status === undefined || p.status === filter.status) &&
              (filter.billing === undefined || p.billing === filter.billing)
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

    it.effect("customers: the e-mail filter ignores case, and pages", () =>
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
        const omar = yield* store.customers.list(test, { email: "OMAR@example.ae" }, { limit: 10, after: undefined })
        same(omar.items, [others[0]])
        assert.deepStrictEqual(
          (yield* store.customers.list(test, { email: "nobody@example.ae" }, { limit: 10, after: undefined })).items,
          []
        )
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
        assert.strictEqual(decisions[3]!.resetSeconds, 59) // the first request leaves the window at T0 + 61 s
        assert.isFalse((yield* hit(T0 + 60_999)).allowed)
        // The two requests of the first second have left; the one of the second is still counted.
        const later = yield* hit(T0 + 61_000)
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
            limit: FastCheck.integer({ min: 0, max: 6 }),
            // Now and then a caller with another window size, which starts the bucket afresh.
            window: FastCheck.oneof(
              { weight: 9, arbitrary: FastCheck.constant(undefined) },
              { weight: 1, arbitrary: FastCheck.constantFrom(1, 4) }
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
          for (const step of steps) {
            now = Math.max(0, now + step.dt)
            const windowSeconds = step.window ?? window
            const expected = RateWindow.hit(state, now, step.limit, windowSeconds)
            if (expected.allowed) state = expected.state
            const actual = yield* store.rateLimits.hit(bucket, now, step.limit, windowSeconds)
            assert.deepStrictEqual(actual, expected)
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
  })
