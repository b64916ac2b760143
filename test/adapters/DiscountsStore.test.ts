/**
 * Discount codes (`Store.discounts`) on both stores: one contract that memory and PostgreSQL pass. A code is unique
 * per account and mode whatever its case (many inserts of one code at once: one wins), lists are newest first, and
 * the uses counted and held never pass the usage limit (a row that would is refused as the defect it is).
 */
import { Cause, DateTime, Effect, Exit, FastCheck as fc, ManagedRuntime, Option } from "effect"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { Arbitraries } from "../../adapters/testing/index.js"
import { newId } from "../../src/application/Ids.js"
import type { Account, Scope } from "../../src/domain/Account.js"
import type { Discount } from "../../src/domain/Discount.js"
import type { AccountId, DiscountId, ProductId } from "../../src/domain/Ids.js"
import { Store } from "../../src/ports/Store.js"
import { postgresStore } from "../support/postgresStore.js"

const T0 = Date.UTC(2026, 10, 21, 10)
const at = (millis: number) => DateTime.unsafeMake(T0 + millis)
const plain = (value: unknown) => JSON.parse(JSON.stringify(value))

type Runtime = ManagedRuntime.ManagedRuntime<Store, never>
let memory: Runtime
let sql: Runtime
beforeAll(async () => {
  memory = ManagedRuntime.make(StoreMemory)
  sql = ManagedRuntime.make(await postgresStore())
}, 60_000)
afterAll(async () => {
  await memory?.dispose()
  await sql?.dispose()
})

/** A new account (the discounts reference it) and its test scope. */
const newScope = Effect.gen(function*() {
  const store = yield* Store
  const account: Account = {
    account_id: yield* newId<AccountId>("acct"),
    business_name: "Souq Karak",
    support_email: null,
    live_payments_enabled: false,
    tax_profile: null,
    time_zone: "Asia/Dubai",
    two_factor_required: false,
    created_at: at(0)
  }
  yield* store.accounts.insert(account)
  return { accountId: account.account_id, livemode: false } satisfies Scope
})

const makeDiscount = (scope: Scope, code: string, overrides: Partial<Discount> = {}) =>
  Effect.map(newId<DiscountId>("dsc"), (id): Discount => ({
    object: "discount",
    discount_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    code,
    name: "Summer sale",
    type: "percentage",
    amount: 1000,
    subscription_cycles: 3,
    usage_limit: 100,
    times_used: 0,
    held: 0,
    expires_at: at(86_400_000),
    restricted_to: [`pdt_${"a".repeat(32)}` as ProductId],
    preserve_on_plan_change: true,
    metadata: { campaign: "summer" },
    created_at: at(0),
    ...overrides
  }))

const contract = (name: string, runtime: () => Runtime) =>
  describe(`discounts: ${name}`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, Store>) => runtime().runPromise(effect)

    it("keeps a discount as written; finds it by id or by its code in any case, only in its own account and mode", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        const scope = yield* newScope
        const other = yield* newScope
        const d = yield* makeDiscount(scope, "Summer10")
        assert.isTrue(yield* store.discounts.insert(d))
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* store.discounts.get(scope, d.discount_id))), plain(d))
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* store.discounts.findByCode(scope, " summer10"))), plain(d))
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* store.transact(store.discounts.lock(scope, d.discount_id)))), plain(d))
        assert.isTrue(Option.isNone(yield* store.discounts.get(other, d.discount_id)), "another account's")
        assert.isTrue(Option.isNone(yield* store.discounts.get({ ...scope, livemode: true }, d.discount_id)), "the other mode's")
        assert.isTrue(Option.isNone(yield* store.discounts.findByCode({ ...scope, livemode: true }, "SUMMER10")))
        assert.isTrue(Option.isNone(yield* store.discounts.findByCode(scope, "SUMMER1")))
        // A discount without limits, restriction or expiry reads back as it was too.
        const open = yield* makeDiscount(scope, "free-ship", { name: null, subscription_cycles: null, usage_limit: null, expires_at: null, restricted_to: [], metadata: {} })
        assert.isTrue(yield* store.discounts.insert(open))
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* store.discounts.get(scope, open.discount_id))), plain(open))
      })))

    it("any discount the domain makes reads back as it was written (random ones)", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        const scope = yield* newScope
        // Distinct ids and codes (fast-check's bias repeats values).
        const seen = new Set<string>()
        const samples = fc.sample(Arbitraries.discount(scope), 30).filter((d) => {
          const fresh = !seen.has(d.discount_id) && !seen.has(d.code.toUpperCase())
          seen.add(d.discount_id).add(d.code.toUpperCase())
          return fresh
        })
        assert.isAbove(samples.length, 10)
        for (const d of samples) {
          assert.isTrue(yield* store.discounts.insert(d))
          assert.deepStrictEqual(plain(Option.getOrThrow(yield* store.discounts.get(scope, d.discount_id))), plain(d))
        }
      })))

    it("a code is unique per account and mode whatever its case: a second is refused and nothing is written", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        const scope = yield* newScope
        const first = yield* makeDiscount(scope, "Eid25")
        assert.isTrue(yield* store.discounts.insert(first))
        const again = yield* makeDiscount(scope, "EID25")
        assert.isFalse(yield* store.discounts.insert(again))
        assert.isTrue(Option.isNone(yield* store.discounts.get(scope, again.discount_id)))
        // Inside a transaction too, and the transaction goes on.
        const inside = yield* store.transact(Effect.gen(function*() {
          const refused = yield* store.discounts.insert(yield* makeDiscount(scope, "eid25"))
          const other = yield* makeDiscount(scope, "Eid26")
          return [refused, yield* store.discounts.insert(other)]
        }))
        assert.deepStrictEqual(inside, [false, true])
        // The same code in the other mode, or in another account, is another code.
        assert.isTrue(yield* store.discounts.insert(yield* makeDiscount({ ...scope, livemode: true }, "EID25")))
        assert.isTrue(yield* store.discounts.insert(yield* makeDiscount(yield* newScope, "eid25")))
        // Renamed to a code taken: refused, unchanged; to its own code in another case: saved.
        const renamed = yield* makeDiscount(scope, "Ramadan")
        assert.isTrue(yield* store.discounts.insert(renamed))
        assert.isFalse(yield* store.discounts.update({ ...renamed, code: "eid26" }))
        assert.strictEqual(Option.getOrThrow(yield* store.discounts.get(scope, renamed.discount_id)).code, "Ramadan")
        assert.isTrue(yield* store.discounts.update({ ...renamed, code: "RAMADAN", amount: 2500 }))
        const saved = Option.getOrThrow(yield* store.discounts.get(scope, renamed.discount_id))
        assert.deepStrictEqual([saved.code, saved.amount], ["RAMADAN", 2500])
        // Deleted, its code is free again; a delete of another scope's is refused.
        assert.isFalse(yield* store.discounts.delete(yield* newScope, first.discount_id))
        assert.isTrue(yield* store.discounts.delete(scope, first.discount_id))
        assert.isFalse(yield* store.discounts.delete(scope, first.discount_id))
        assert.isTrue(Option.isNone(yield* store.discounts.get(scope, first.discount_id)))
        assert.isTrue(yield* store.discounts.insert(yield* makeDiscount(scope, "eId25")))
      })))

    it("many inserts of one code at once: exactly one takes it", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        const scope = yield* newScope
        const all = yield* Effect.forEach(["SALE", "sale", "Sale", "SaLe", "sALE", "SALe"], (code) => makeDiscount(scope, code))
        const taken = yield* Effect.forEach(all, (d) => store.discounts.insert(d), { concurrency: "unbounded" })
        assert.strictEqual(taken.filter(Boolean).length, 1)
        const winner = all[taken.indexOf(true)]!
        assert.strictEqual(Option.getOrThrow(yield* store.discounts.findByCode(scope, "sale")).discount_id, winner.discount_id)
      })))

    it("lists newest first, page by page; locks several by id in byte order, those that exist", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        const scope = yield* newScope
        const made: Array<Discount> = []
        for (let i = 0; i < 5; i++) {
          const d = yield* makeDiscount(scope, `CODE${i}`, { created_at: at(i % 2 === 0 ? 1000 : 1000 * i) })
          assert.isTrue(yield* store.discounts.insert(d))
          made.push(d)
        }
        yield* store.discounts.insert(yield* makeDiscount({ ...scope, livemode: true }, "LIVE1"))
        const first = yield* store.discounts.list(scope, { limit: 3, after: undefined })
        const order = [...made].sort((a, b) =>
          DateTime.toEpochMillis(b.created_at) - DateTime.toEpochMillis(a.created_at) || (a.discount_id < b.discount_id ? 1 : -1)
        )
        assert.deepStrictEqual(first.items.map((d) => d.code), order.slice(0, 3).map((d) => d.code))
        assert.isTrue(first.hasMore)
        const last = first.items[2]!
        const second = yield* store.discounts.list(scope, { limit: 3, after: { createdAtMillis: DateTime.toEpochMillis(last.created_at), id: last.discount_id } })
        assert.deepStrictEqual(second.items.map((d) => d.code), order.slice(3).map((d) => d.code))
        assert.isFalse(second.hasMore)
        const missing = `dsc_${"f".repeat(32)}` as DiscountId
        const locked = yield* store.transact(store.discounts.lockAll([made[3]!.discount_id, missing, made[1]!.discount_id, made[3]!.discount_id]))
        assert.deepStrictEqual(locked.map((d) => d.discount_id), [made[1]!.discount_id, made[3]!.discount_id].sort())
      })))

    it("uses counted and held never pass the usage limit: such a row is refused as a defect, and nothing changes", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        const scope = yield* newScope
        const d = yield* makeDiscount(scope, "ONCE", { usage_limit: 1 })
        assert.isTrue(yield* store.discounts.insert(d))
        assert.isTrue(yield* store.discounts.update({ ...d, held: 1 }))
        const over = yield* Effect.exit(store.transact(store.discounts.update({ ...d, held: 1, times_used: 1 })))
        assert.isTrue(Exit.isFailure(over) && Cause.isDie(over.cause), "refused as a defect")
        const now = Option.getOrThrow(yield* store.discounts.get(scope, d.discount_id))
        assert.deepStrictEqual([now.times_used, now.held], [0, 1])
        assert.isTrue(yield* store.discounts.update({ ...d, held: 0, times_used: 1 }))
      })))
  })

contract("StoreMemory", () => memory)
contract("StoreSql (PostgreSQL)", () => sql)
