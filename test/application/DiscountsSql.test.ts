/**
 * A discount code's usage limit over PostgreSQL: many customers paying at once with one code, on a pool of
 * connections, never redeem it more often than its `usage_limit`; those past it are refused before any charge, and
 * the uses held by declined charges are given back.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Discounts } from "../../src/application/Discounts.js"
import { Payments } from "../../src/application/Payments.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { DiscountRepository } from "../../src/ports/repositories/DiscountRepository.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { freshDatabaseUrl } from "../support/database.js"
import { storeAt } from "../support/postgresStore.js"
import { engineOver, newAccount } from "./harness.js"

describe("a discount code's usage limit over PostgreSQL", () => {
  it.scopedLive("customers paying at once: at most usage_limit redeem it, the rest are refused uncharged, declined charges give their use back", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const processor = Layer.effect(PaymentProcessor, makeSimulatedProcessorMemory({ live: false }))
      const engine = engineOver(Layer.mergeAll(storeAt(url, 8), SignerNode, processor))
      yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const product = yield* makeProduct(test, { price: 10_000 })
        const discounts = yield* Discounts
        const payments = yield* Payments
        const repo = yield* DiscountRepository

        /** `n` sessions with `code`, paid at once, the i-th with `card(i)`: each one's outcome. */
        const rush = (code: string, n: number, card: (i: number) => string) =>
          Effect.gen(function*() {
            const sessions = yield* Effect.forEach(
              Array.from({ length: n }),
              () => makeSession(test, { product_cart: [{ product_id: product.product_id }], discount_code: code }),
              { concurrency: n }
            )
            const results = yield* Effect.forEach(
              sessions,
              (s, i) => Effect.either(pay(s.session_id, formWith(card(i)))),
              { concurrency: n }
            )
            const charged = yield* Effect.forEach(sessions, (s) =>
              Effect.map(payments.list(test, { checkout_session_id: s.session_id, limit: 10 }), (l) => l.items))
            return results.map((r, i) => ({
              outcome: Either.isLeft(r)
                ? r.left._tag === "DiscountNotRedeemable" ? `refused: ${r.left.reason}` : `error: ${r.left._tag}`
                : r.right._tag === "Paid" ? r.right.payment.status : r.right._tag,
              payments: charged[i]!
            }))
          })

        // Ten customers, three uses: exactly three pay (discounted), seven are refused and charged nothing.
        const three = yield* discounts.create(test, { code: "Three", type: "percentage", amount: 1000, usage_limit: 3 })
        const first = yield* rush("three", 10, () => cards.visa)
        assert.deepStrictEqual(
          first.map((r) => r.outcome).sort(),
          [...Array(3).fill("succeeded"), ...Array(7).fill("refused: used_up")].sort()
        )
        for (const r of first) {
          assert.deepStrictEqual(
            r.payments.map((p) => [p.status, p.total_amount]),
            r.outcome === "succeeded" ? [["succeeded", 9000]] : [],
            "a refused customer is never charged"
          )
        }
        const used = yield* repo.get(test, three.discount_id)
        assert.deepStrictEqual(used._tag === "Some" ? [used.value.times_used, used.value.held] : [], [3, 0])

        // Twelve at once, half of them with a card that is declined, four uses: never more than four redeem it, and
        // every declined charge's use is given back.
        const four = yield* discounts.create(test, { code: "Four", type: "flat", amount: 2_500, usage_limit: 4 })
        const second = yield* rush("FOUR", 12, (i) => (i % 2 === 0 ? cards.declined : cards.visa))
        const succeeded = second.filter((r) => r.outcome === "succeeded").length
        assert.isAtMost(succeeded, 4)
        assert.isTrue(second.every((r) => ["succeeded", "failed", "refused: used_up"].includes(r.outcome)), JSON.stringify(second.map((r) => r.outcome)))
        const after = yield* repo.get(test, four.discount_id)
        assert.deepStrictEqual(after._tag === "Some" ? [after.value.times_used, after.value.held] : [], [succeeded, 0])
      }).pipe(Effect.provide(engine), Effect.scoped)
    }), 120_000)
})
