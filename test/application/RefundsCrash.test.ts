/**
 * A refund with an idempotency key over PostgreSQL, when the database goes away right after the refund is reserved
 * (its commit acknowledged) and before its outcome is recorded or answered: the retry with the same key carries the
 * same refund on, so the processor is asked once under one reference and one refund exists. The crash is real: the
 * pool goes through a proxy that cuts every connection right after that commit (`commitCutter`).
 */
import { operator } from "../../src/domain/Account.js"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Layer, Redacted } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Payments } from "../../src/application/Payments.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { Store } from "../../src/ports/Store.js"
import { cards, paidWith } from "../support/checkout.js"
import { freshDatabaseUrl } from "../support/database.js"
import { storeAt } from "../support/postgresStore.js"
import { commitCutter } from "../support/tcp.js"
import { engineOver, newAccount } from "./harness.js"

describe("a refund with an idempotency key, across a crash after its reservation commits", () => {
  it.live("the retry carries the first refund on: one refund, one call to the processor's reference", () =>
    Effect.gen(function*() {
      const url = new URL(Redacted.value(yield* freshDatabaseUrl))
      const cutter = yield* Effect.acquireRelease(
        Effect.promise(() => commitCutter(url.hostname, Number(url.port || 5432))),
        (c) => Effect.promise(c.close)
      )
      url.port = String(cutter.port)
      const processor = Layer.effect(PaymentProcessor, makeSimulatedProcessorMemory({ live: false }))
      const engine = engineOver(Layer.mergeAll(storeAt(Redacted.make(url.toString()), 4), SignerNode, processor))
      yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const id = (yield* paidWith(test, cards.visa)).payment_id
        const payments = yield* Payments
        const key = "refund-form-token-1"

        const cut = cutter.arm("INSERT INTO refunds")
        const first = yield* Effect.either(payments.refund(operator, id, 2_500, key))
        yield* Effect.promise(() => cut)
        cutter.heal()
        // The reservation committed; what came after it (the processor's answer recorded, the answer) was lost.
        assert.isTrue(Either.isLeft(first) && first.left._tag === "StoreUnavailable", String(first))

        // A connection the cut closed may still be handed out once: that attempt changes nothing.
        let retry = yield* Effect.either(payments.refund(operator, id, 2_500, key))
        for (let i = 0; i < 5 && Either.isLeft(retry) && retry.left._tag === "StoreUnavailable"; i++) {
          retry = yield* Effect.either(payments.refund(operator, id, 2_500, key))
        }
        if (Either.isLeft(retry)) return assert.fail(`the retry failed: ${retry.left._tag}`)
        const refunds = yield* Effect.flatMap(Store, (s) => s.refunds.ofPayment(id))
        assert.deepStrictEqual(refunds.map((r) => [r.refund_id, r.status]), [[retry.right.refund.refund_id, "succeeded"]])
        assert.strictEqual(retry.right.payment.refunded_amount, 2_500)
        const moved = (yield* Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0))))
          .filter((m) => m._tag === "Refund")
        assert.deepStrictEqual(moved.map((m) => [m.reference, m.amount]), [[retry.right.refund.refund_id, 2_500]])

        // Once ended, the same key answers with the same refund; other parameters under it are refused.
        const again = yield* payments.refund(operator, id, 2_500, key)
        assert.strictEqual(again.refund.refund_id, retry.right.refund.refund_id)
        const other = yield* Effect.flip(payments.refund(operator, id, 1_000, key))
        assert.strictEqual(other._tag, "IdempotencyKeyReused")
        assert.lengthOf(yield* Effect.flatMap(Store, (s) => s.refunds.ofPayment(id)), 1)
      }).pipe(Effect.provide(engine))
    }).pipe(Effect.scoped), 60_000)
})
