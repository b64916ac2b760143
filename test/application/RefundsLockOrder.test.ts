/**
 * Two posts of one refund form over PostgreSQL (a double click): the second reserves under the same key while the
 * first records the processor's answer. Both take the payment's row before the refund's, so neither waits on the
 * other in a cycle (a deadlock PostgreSQL would break by failing one of them). The interleaving is forced: the first
 * request's processor call returns only once the second holds the payment's row, and the second pauses there while
 * the first starts recording.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Deferred, Effect, Either, Fiber, Layer, Ref, Schedule } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Payments } from "../../src/application/Payments.js"
import { operator } from "../../src/domain/Account.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { Signer } from "../../src/ports/Signer.js"
import { Store } from "../../src/ports/Store.js"
import { cards, paidWith } from "../support/checkout.js"
import { freshDatabaseUrl } from "../support/database.js"
import { storeAt } from "../support/postgresStore.js"
import { engineOver, newAccount } from "./harness.js"

describe("a refund form posted twice at once, over PostgreSQL", () => {
  it.live("the second post reserving while the first records: one refund, both answered with it", () =>
    Effect.gen(function*() {
      const secondHoldsPayment = yield* Deferred.make<void>()
      const fingerprints = yield* Ref.make(0)
      const refundCalls = yield* Ref.make(0)

      // The refund's fingerprint is digested between locking the payment and reading the refund reserved under the
      // key: the second request pauses there, long enough for the first to start recording.
      const signer = Layer.effect(
        Signer,
        Effect.map(Signer, (real) =>
          Signer.of({
            ...real,
            digest: (text) =>
              text.startsWith("refund ")
                ? Effect.flatMap(Ref.updateAndGet(fingerprints, (n) => n + 1), (n) =>
                  n === 2
                    ? Deferred.succeed(secondHoldsPayment, undefined).pipe(Effect.zipRight(Effect.sleep("300 millis")), Effect.zipRight(real.digest(text)))
                    : real.digest(text))
                : real.digest(text)
          }))
      ).pipe(Layer.provide(SignerNode))
      // The first refund call answers once the second request holds the payment's row.
      const processor = Layer.effect(
        PaymentProcessor,
        Effect.map(makeSimulatedProcessorMemory({ live: false }), (simulated) =>
          PaymentProcessor.of({
            ...simulated,
            refund: (chargeId, amount, reference) =>
              Effect.flatMap(Ref.updateAndGet(refundCalls, (n) => n + 1), (n) =>
                n === 1
                  ? Effect.zipRight(Deferred.await(secondHoldsPayment), simulated.refund(chargeId, amount, reference))
                  : simulated.refund(chargeId, amount, reference))
          }))
      )
      const engine = engineOver(Layer.mergeAll(storeAt(yield* freshDatabaseUrl, 6), signer, processor))

      yield* Effect.gen(function*() {
        const { test } = yield* newAccount
        const id = (yield* paidWith(test, cards.visa)).payment_id
        const payments = yield* Payments
        const key = "dashboard.refund.form-token"

        const first = yield* Effect.fork(Effect.either(payments.refund(operator, id, 1_000, key)))
        // The second post starts once the first has reserved (its processor call is waiting).
        yield* Effect.repeat(Ref.get(refundCalls), { until: (n) => n >= 1, schedule: Schedule.spaced("5 millis") })
        const second = yield* Effect.either(payments.refund(operator, id, 1_000, key))
        const firstResult = yield* Fiber.join(first)

        if (Either.isLeft(firstResult)) return assert.fail(`the first post failed: ${firstResult.left._tag}`)
        if (Either.isLeft(second)) return assert.fail(`the second post failed: ${second.left._tag}`)
        assert.strictEqual(second.right.refund.refund_id, firstResult.right.refund.refund_id, "one refund answers both")
        assert.isAtLeast(yield* Ref.get(fingerprints), 2, "the second post met the key")
        const refunds = yield* Effect.flatMap(Store, (s) => s.refunds.ofPayment(id))
        assert.deepStrictEqual(refunds.map((r) => [r.refund_id, r.status, r.amount]), [[firstResult.right.refund.refund_id, "succeeded", 1_000]])
        const after = yield* Effect.flatMap(Store, (s) => s.payments.find(id))
        assert.strictEqual(after._tag === "Some" ? after.value.refunded_amount : -1, 1_000)
        const moved = (yield* Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0))))
          .filter((m) => m._tag === "Refund")
        assert.deepStrictEqual(moved.map((m) => [m.reference, m.amount]), [[firstResult.right.refund.refund_id, 1_000]])
      }).pipe(Effect.provide(engine))
    }).pipe(Effect.scoped), 60_000)
})
