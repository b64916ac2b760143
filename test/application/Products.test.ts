import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, FastCheck, TestClock } from "effect"
import { Customers } from "../../src/application/Customers.js"
import { Products } from "../../src/application/Products.js"
import type { Scope } from "../../src/domain/Account.js"
import type { ProductId } from "../../src/domain/Ids.js"
import * as Pagination from "../../src/domain/Pagination.js"
import type { Product, ProductCreate } from "../../src/domain/Product.js"
import { fourScopes, newAccount, scopeName, withEngine } from "./harness.js"

const failureTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : "succeeded"

const coffee: ProductCreate = { name: "Coffee", price: 34900, currency: "AED" }
const monthly: ProductCreate = { name: "Box", price: 9900, currency: "AED", billing: "recurring", billing_interval: "month" }

/** Walks a list to its end, `limit` at a time. */
const walkProducts = (scope: Scope, params: { limit: number; status?: Product["status"]; billing?: Product["billing"] }) =>
  Effect.gen(function*() {
    const products = yield* Products
    const items: Array<Product> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 1000; pages++) {
      const page = yield* products.list(scope, cursor === undefined ? params : { ...params, cursor })
      items.push(...page.items)
      assert.isAtMost(page.items.length, params.limit)
      if (!page.has_more) {
        assert.isNull(page.next_cursor)
        break
      }
      assert.isString(page.next_cursor)
      cursor = page.next_cursor!
    }
    return items
  })

describe("Products use cases", () => {
  it.effect("create, get, update, list", () =>
    Effect.gen(function*() {
      const products = yield* Products
      const { test } = yield* newAccount
      yield* TestClock.adjust("1 second")
      const p = yield* products.create(test, { ...coffee, metadata: { sku: "c1" } })
      assert.match(p.product_id, /^pdt_[0-9a-f]{32}$/)
      assert.strictEqual(DateTime.toEpochMillis(p.created_at), 1000)
      assert.isNull(p.updated_at)
      assert.isFalse(p.livemode)
      assert.deepStrictEqual(yield* products.get(test, p.product_id), p)

      yield* TestClock.adjust("1 minute")
      const updated = yield* products.update(test, p.product_id, { price: 100, metadata: {} })
      assert.strictEqual(updated.price, 100)
      assert.deepStrictEqual(updated.metadata, {})
      assert.strictEqual(DateTime.toEpochMillis(updated.updated_at!), 61_000)
      assert.deepStrictEqual(yield* products.get(test, p.product_id), updated)

      const list = yield* products.list(test, {})
      assert.deepStrictEqual(list, { items: [updated], has_more: false, next_cursor: null })
    }).pipe(withEngine()))

  it.effect("an empty update changes nothing, not even updated_at", () =>
    Effect.gen(function*() {
      const products = yield* Products
      const { test } = yield* newAccount
      const p = yield* products.create(test, coffee)
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(yield* products.update(test, p.product_id, {}), p)
      assert.isNull((yield* products.get(test, p.product_id)).updated_at)
    }).pipe(withEngine()))

  it.effect("refused creates and updates leave nothing behind", () =>
    Effect.gen(function*() {
      const products = yield* Products
      const { test } = yield* newAccount
      assert.strictEqual(failureTag(yield* Effect.either(products.create(test, { ...coffee, currency: "USD" }))), "CurrencyNotSupported")
      assert.strictEqual(failureTag(yield* Effect.either(products.create(test, { ...coffee, billing: "recurring" }))), "InvalidRequest")
      assert.strictEqual((yield* products.list(test, {})).items.length, 0)
      const p = yield* products.create(test, monthly)
      assert.strictEqual(p.interval_count, 1)
      const bad = yield* Effect.either(products.update(test, p.product_id, { billing_interval: null, name: "X" }))
      assert.strictEqual(failureTag(bad), "InvalidRequest")
      assert.deepStrictEqual(yield* products.get(test, p.product_id), p)
      const switched = yield* products.update(test, p.product_id, { billing: "one_time" })
      assert.strictEqual(switched.billing_interval, null)
      assert.strictEqual(switched.interval_count, null)
    }).pipe(withEngine()))

  it.effect("NotFound for unknown ids and for every other scope", () =>
    Effect.gen(function*() {
      const products = yield* Products
      const scopes = yield* fourScopes
      const p = yield* products.create(scopes[0], coffee)
      const unknown = `pdt_${"0".repeat(32)}` as ProductId
      assert.strictEqual(failureTag(yield* Effect.either(products.get(scopes[0], unknown))), "NotFound")
      for (const other of scopes.slice(1)) {
        const got = yield* Effect.either(products.get(other, p.product_id))
        assert.strictEqual(failureTag(got), "NotFound", scopeName(other))
        if (Either.isLeft(got)) assert.strictEqual(got.left.code, "NOT_FOUND")
        assert.strictEqual(failureTag(yield* Effect.either(products.update(other, p.product_id, { name: "stolen" }))), "NotFound")
        assert.strictEqual((yield* products.list(other, {})).items.length, 0)
      }
      assert.strictEqual((yield* products.get(scopes[0], p.product_id)).name, "Coffee")
    }).pipe(withEngine()))

  it.effect("filters by status and billing; a cursor belongs to its filter set", () =>
    Effect.gen(function*() {
      const products = yield* Products
      const { test } = yield* newAccount
      const made: Array<Product> = []
      for (let i = 0; i < 6; i++) {
        yield* TestClock.adjust("1 second")
        made.push(yield* products.create(test, {
          ...(i % 2 === 0 ? coffee : monthly),
          status: i < 3 ? "active" : "draft"
        }))
      }
      const ids = (ps: ReadonlyArray<Product>) => ps.map((p) => p.product_id)
      const newestFirst = [...made].reverse()
      assert.deepStrictEqual(ids(yield* walkProducts(test, { limit: 2 })), ids(newestFirst))
      assert.deepStrictEqual(
        ids(yield* walkProducts(test, { limit: 1, billing: "recurring" })),
        ids(newestFirst.filter((p) => p.billing === "recurring"))
      )
      assert.deepStrictEqual(
        ids(yield* walkProducts(test, { limit: 2, status: "draft", billing: "one_time" })),
        ids(newestFirst.filter((p) => p.status === "draft" && p.billing === "one_time"))
      )
      const first = yield* products.list(test, { limit: 1, status: "active" })
      assert.isTrue(first.has_more)
      const cursor = first.next_cursor!
      for (const params of [{}, { status: "draft" as const }, { status: "active" as const, billing: "one_time" as const }]) {
        assert.strictEqual(failureTag(yield* Effect.either(products.list(test, { ...params, cursor }))), "InvalidRequest")
      }
      assert.isTrue(Either.isRight(yield* Effect.either(products.list(test, { status: "active", cursor }))))
      // A products cursor is refused by the customers list.
      const customers = yield* Customers
      const wrongList = yield* Effect.either(customers.list(test, { cursor: (yield* products.list(test, { limit: 1 })).next_cursor! }))
      assert.strictEqual(failureTag(wrongList), "InvalidRequest")
    }).pipe(withEngine()))

  it.effect("limit bounds and garbage cursors are InvalidRequest", () =>
    Effect.gen(function*() {
      const products = yield* Products
      const { test } = yield* newAccount
      for (const limit of [0, 101, 2.5]) {
        assert.strictEqual(failureTag(yield* Effect.either(products.list(test, { limit }))), "InvalidRequest", String(limit))
      }
      for (const cursor of ["garbage", "", "eyJ9"]) {
        assert.strictEqual(failureTag(yield* Effect.either(products.list(test, { cursor }))), "InvalidRequest", cursor)
      }
      for (let i = 0; i < 25; i++) yield* products.create(test, coffee)
      const page = yield* products.list(test, {})
      assert.strictEqual(page.items.length, Pagination.defaultLimit)
      assert.isTrue(page.has_more)
      assert.strictEqual((yield* products.list(test, { limit: 100 })).items.length, 25)
    }).pipe(withEngine()))

  it.effect("items created in the same millisecond still list newest first", () =>
    Effect.gen(function*() {
      const products = yield* Products
      const { test } = yield* newAccount
      const made: Array<Product> = []
      for (let i = 0; i < 30; i++) made.push(yield* products.create(test, { ...coffee, name: `p${i}` }))
      const listed = yield* walkProducts(test, { limit: 7 })
      assert.deepStrictEqual(listed.map((p) => p.name), made.map((p) => p.name).reverse())
    }).pipe(withEngine()))
})

// ---------------------------------------------------------------------------------------------------------------
// Properties over the whole engine: a fresh store per run, TestClock per run.

const opArb = FastCheck.record({
  scope: FastCheck.integer({ min: 0, max: 3 }),
  kind: FastCheck.constantFrom("product" as const, "customer" as const),
  /** Milliseconds the clock moves before the create (0: same millisecond). */
  advance: FastCheck.oneof(FastCheck.constant(0), FastCheck.integer({ min: 1, max: 5000 }))
})

describe("scope isolation (property)", () => {
  it.effect.prop(
    "random interleavings of creates in 2 accounts × test/live never let a scope see another's objects",
    [FastCheck.array(opArb, { minLength: 1, maxLength: 40 }), FastCheck.integer({ min: 1, max: 6 })],
    ([ops, limit]) =>
      Effect.gen(function*() {
        const products = yield* Products
        const customers = yield* Customers
        const scopes = yield* fourScopes
        const owned: Array<{ readonly scope: number; readonly kind: "product" | "customer"; readonly id: string }> = []
        for (const [i, op] of ops.entries()) {
          if (op.advance > 0) yield* TestClock.adjust(op.advance)
          const scope = scopes[op.scope]!
          const id = op.kind === "product"
            ? (yield* products.create(scope, { ...coffee, name: `p${i}` })).product_id
            : (yield* customers.create(scope, { email: `c${i}@example.com` })).customer_id
          owned.push({ scope: op.scope, kind: op.kind, id })
        }
        for (const [s, scope] of scopes.entries()) {
          // get: own objects only
          for (const o of owned) {
            const result: Either.Either<
              { readonly account_id: string; readonly livemode: boolean },
              { readonly _tag: string }
            > = o.kind === "product"
              ? yield* Effect.either(products.get(scope, o.id as ProductId))
              : yield* Effect.either(customers.get(scope, o.id as Parameters<typeof customers.get>[1]))
            if (o.scope === s) {
              assert.isTrue(Either.isRight(result), `${scopeName(scope)} cannot read its own ${o.id}`)
              if (Either.isRight(result)) {
                assert.strictEqual(result.right.account_id, scope.accountId)
                assert.strictEqual(result.right.livemode, scope.livemode)
              }
            } else {
              assert.strictEqual(failureTag(result), "NotFound", `${scopeName(scope)} reads ${o.id}`)
            }
          }
          // list: exactly the scope's own objects, newest first, each once
          const expectedProducts = owned.filter((o) => o.scope === s && o.kind === "product").map((o) => o.id).reverse()
          const expectedCustomers = owned.filter((o) => o.scope === s && o.kind === "customer").map((o) => o.id).reverse()
          const listedProducts = (yield* walkProducts(scope, { limit })).map((p) => p.product_id)
          assert.deepStrictEqual(listedProducts, expectedProducts)
          const listedCustomers: Array<string> = []
          let cursor: string | undefined
          for (;;) {
            const page = yield* customers.list(scope, cursor === undefined ? { limit } : { limit, cursor })
            listedCustomers.push(...page.items.map((c) => c.customer_id))
            if (page.next_cursor === null) break
            cursor = page.next_cursor
          }
          assert.deepStrictEqual(listedCustomers, expectedCustomers)
        }
      }).pipe(withEngine()),
    { fastCheck: { numRuns: 30 } }
  )
})

describe("cursor walk under concurrent inserts (property)", () => {
  it.effect.prop(
    "returns every item that existed when the walk began exactly once, newest first",
    [
      FastCheck.array(FastCheck.oneof(FastCheck.constant(0), FastCheck.integer({ min: 1, max: 3000 })), {
        minLength: 0,
        maxLength: 40
      }),
      FastCheck.integer({ min: 1, max: 8 }),
      FastCheck.array(
        FastCheck.record({
          count: FastCheck.integer({ min: 0, max: 3 }),
          advance: FastCheck.oneof(FastCheck.constant(0), FastCheck.integer({ min: 1, max: 3000 }))
        }),
        { maxLength: 20 }
      )
    ],
    ([gaps, limit, inserts]) =>
      Effect.gen(function*() {
        const products = yield* Products
        const { test, live } = yield* newAccount
        const initial: Array<string> = []
        for (const [i, gap] of gaps.entries()) {
          if (gap > 0) yield* TestClock.adjust(gap)
          initial.push((yield* products.create(test, { ...coffee, name: `before-${i}` })).product_id)
        }
        const seen: Array<string> = []
        let cursor: string | undefined
        let round = 0
        for (;;) {
          const page = yield* products.list(test, cursor === undefined ? { limit } : { limit, cursor })
          seen.push(...page.items.map((p) => p.product_id))
          if (page.next_cursor === null) break
          cursor = page.next_cursor
          // Between pages: new products in this scope (and noise in another scope).
          const insert = inserts[round++ % Math.max(1, inserts.length)]
          if (insert !== undefined) {
            if (insert.advance > 0) yield* TestClock.adjust(insert.advance)
            for (let k = 0; k < insert.count; k++) {
              yield* products.create(test, { ...coffee, name: `during-${round}-${k}` })
              yield* products.create(live, { ...coffee, name: `noise-${round}-${k}` })
            }
          }
        }
        assert.deepStrictEqual(seen, [...initial].reverse())
        assert.strictEqual(new Set(seen).size, seen.length)
      }).pipe(withEngine()),
    { fastCheck: { numRuns: 40 } }
  )
})
