import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, FastCheck, TestClock } from "effect"
import { Customers } from "../../src/application/Customers.js"
import type { Scope } from "../../src/domain/Account.js"
import type { Customer } from "../../src/domain/Customer.js"
import type { CustomerId } from "../../src/domain/Ids.js"
import { fourScopes, newAccount, scopeName, withEngine } from "./harness.js"

const failureTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : "succeeded"

const walk = (scope: Scope, params: { readonly limit: number; readonly email?: string }) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const items: Array<Customer> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 1000; pages++) {
      const page = yield* customers.list(scope, cursor === undefined ? params : { ...params, cursor })
      items.push(...page.items)
      if (page.next_cursor === null) {
        assert.isFalse(page.has_more)
        break
      }
      cursor = page.next_cursor
    }
    return items
  })

describe("Customers use cases", () => {
  it.effect("create, get, update, list", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const { live } = yield* newAccount
      yield* TestClock.adjust("2 seconds")
      const c = yield* customers.create(live, { email: "amal@example.ae", name: "Amal" })
      assert.match(c.customer_id, /^cus_[0-9a-f]{32}$/)
      assert.isTrue(c.livemode)
      assert.strictEqual(c.phone_number, null)
      assert.deepStrictEqual(c.metadata, {})
      assert.strictEqual(DateTime.toEpochMillis(c.created_at), 2000)
      assert.deepStrictEqual(yield* customers.get(live, c.customer_id), c)

      const updated = yield* customers.update(live, c.customer_id, { phone_number: "+971501234567", name: null })
      assert.strictEqual(updated.phone_number, "+971501234567")
      assert.isNull(updated.name)
      assert.strictEqual(updated.email, "amal@example.ae")
      assert.deepStrictEqual(yield* customers.get(live, c.customer_id), updated)
      assert.deepStrictEqual(yield* customers.list(live, {}), { items: [updated], has_more: false, next_cursor: null })
    }).pipe(withEngine()))

  it.effect("NotFound for unknown ids and for every other scope", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const scopes = yield* fourScopes
      const c = yield* customers.create(scopes[3], { email: "x@y.co" })
      assert.strictEqual(
        failureTag(yield* Effect.either(customers.get(scopes[3], `cus_${"f".repeat(32)}` as CustomerId))),
        "NotFound"
      )
      for (const other of scopes.slice(0, 3)) {
        assert.strictEqual(failureTag(yield* Effect.either(customers.get(other, c.customer_id))), "NotFound", scopeName(other))
        assert.strictEqual(
          failureTag(yield* Effect.either(customers.update(other, c.customer_id, { email: "thief@y.co" }))),
          "NotFound"
        )
        assert.deepStrictEqual((yield* customers.list(other, {})).items, [])
        assert.deepStrictEqual((yield* customers.list(other, { email: "x@y.co" })).items, [])
      }
      assert.strictEqual((yield* customers.get(scopes[3], c.customer_id)).email, "x@y.co")
    }).pipe(withEngine()))

  it.effect("the email filter ignores case; its cursor belongs to that e-mail", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const { test } = yield* newAccount
      const made: Array<Customer> = []
      for (let i = 0; i < 7; i++) {
        yield* TestClock.adjust("1 second")
        made.push(yield* customers.create(test, { email: i % 2 === 0 ? "Same.Person@Example.com" : `other${i}@example.com` }))
      }
      const same = made.filter((c) => c.email.startsWith("Same")).reverse().map((c) => c.customer_id)
      for (const email of ["same.person@example.com", "SAME.PERSON@EXAMPLE.COM", "Same.Person@Example.com"]) {
        assert.deepStrictEqual((yield* walk(test, { limit: 1, email })).map((c) => c.customer_id), same, email)
      }
      const first = yield* customers.list(test, { limit: 1, email: "same.person@example.com" })
      const cursor = first.next_cursor!
      // Same filter in another case: accepted.
      const next = yield* customers.list(test, { limit: 1, email: "SAME.person@example.com", cursor })
      assert.deepStrictEqual(next.items.map((c) => c.customer_id), [same[1]])
      // Another filter, or none: refused.
      assert.strictEqual(failureTag(yield* Effect.either(customers.list(test, { cursor }))), "InvalidRequest")
      assert.strictEqual(
        failureTag(yield* Effect.either(customers.list(test, { email: "other1@example.com", cursor }))),
        "InvalidRequest"
      )
      assert.deepStrictEqual((yield* customers.list(test, { email: "nobody@example.com" })).items, [])
      assert.strictEqual((yield* walk(test, { limit: 3 })).length, 7)
    }).pipe(withEngine()))

  it.effect("limit bounds and garbage cursors are InvalidRequest", () =>
    Effect.gen(function*() {
      const customers = yield* Customers
      const { test } = yield* newAccount
      for (const limit of [0, -5, 101]) {
        assert.strictEqual(failureTag(yield* Effect.either(customers.list(test, { limit }))), "InvalidRequest")
      }
      assert.strictEqual(failureTag(yield* Effect.either(customers.list(test, { cursor: "%%%" }))), "InvalidRequest")
    }).pipe(withEngine()))
})

describe("customers cursor walk (property)", () => {
  it.effect.prop(
    "every customer exactly once, newest first, while new ones arrive between pages",
    [
      FastCheck.array(FastCheck.constantFrom(0, 0, 1, 7, 1000), { maxLength: 30 }),
      FastCheck.integer({ min: 1, max: 5 }),
      FastCheck.integer({ min: 0, max: 3 })
    ],
    ([gaps, limit, perPage]) =>
      Effect.gen(function*() {
        const customers = yield* Customers
        const { test } = yield* newAccount
        const initial: Array<string> = []
        for (const [i, gap] of gaps.entries()) {
          if (gap > 0) yield* TestClock.adjust(gap)
          initial.push((yield* customers.create(test, { email: `c${i}@example.com` })).customer_id)
        }
        const seen: Array<string> = []
        let cursor: string | undefined
        for (let round = 0;; round++) {
          const page = yield* customers.list(test, cursor === undefined ? { limit } : { limit, cursor })
          seen.push(...page.items.map((c) => c.customer_id))
          if (page.next_cursor === null) break
          cursor = page.next_cursor
          for (let k = 0; k < perPage; k++) yield* customers.create(test, { email: `new${round}.${k}@example.com` })
        }
        assert.deepStrictEqual(seen, [...initial].reverse())
      }).pipe(withEngine()),
    { fastCheck: { numRuns: 30 } }
  )
})
