/**
 * Refunds through the processor and lost answers resolved by lookup, over the memory store and the
 * simulated processor: each fault card's outcome, a processor that cannot be reached, and concurrent refunds.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Layer, Option, Ref, TestClock } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { operator, type Scope } from "../../src/domain/Account.js"
import type { EventType } from "../../src/domain/Event.js"
import type { PaymentId } from "../../src/domain/Ids.js"
import { PaymentProcessor, ProcessorUnavailable } from "../../src/ports/PaymentProcessor.js"
import { Store } from "../../src/ports/Store.js"
import { cards, formWith, paidWith, pay } from "../support/checkout.js"
import { engineOver, newAccount } from "./harness.js"

/** The simulated processor, with a switch that makes every call and lookup fail as unreachable. */
const outage = Ref.unsafeMake(false)
const SwitchedProcessor = Layer.effect(
  PaymentProcessor,
  Effect.gen(function*() {
    const simulated = yield* makeSimulatedProcessorMemory({ live: false })
    const down = <A>(effect: Effect.Effect<A, ProcessorUnavailable>) =>
      Effect.flatMap(Ref.get(outage), (off) => (off ? Effect.fail(new ProcessorUnavailable("down")) : effect))
    return PaymentProcessor.of({
      ...simulated,
      refund: (chargeId, amount, reference) => down(simulated.refund(chargeId, amount, reference)),
      lookup: (reference) => down(simulated.lookup(reference))
    })
  })
)
const withEngine = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(
    Effect.zipRight(Ref.set(outage, false), effect),
    engineOver(Layer.mergeAll(StoreMemory, SignerNode, SwitchedProcessor))
  )

const eventsOf = (scope: Scope, type: EventType) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { type, limit: 100 })), (l) => l.items)
const processorMoved = Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0)))
const refundsOf = (id: PaymentId) => Effect.flatMap(Store, (s) => s.refunds.ofPayment(id))

describe("refunds through the processor", () => {
  it.effect("a refund acts for a scope: another account's or mode's payment is not found and nothing moves", () =>
    Effect.gen(function*() {
      const mine = yield* newAccount
      const other = yield* newAccount
      const paid = yield* paidWith(mine.test, cards.visa)
      const payments = yield* Payments
      for (const stranger of [other.test, other.live, mine.live]) {
        const refused = yield* Effect.flip(payments.refund(stranger, paid.payment_id, 1_000))
        assert.strictEqual(refused._tag, "NotFound")
      }
      assert.lengthOf(yield* refundsOf(paid.payment_id), 0)
      assert.lengthOf((yield* processorMoved).filter((m) => m._tag === "Refund"), 0)
      const own = yield* payments.refund(mine.test, paid.payment_id, 1_000)
      assert.strictEqual(own.refundAmount, 1_000)
    }).pipe(withEngine))

  it.effect("a refund is made at the processor under the refund's id, then recorded: refund.succeeded once", () =>
    Effect.gen(function*() {
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.visa)
      const result = yield* (yield* Payments).refund(operator, paid.payment_id, 2_500)
      assert.deepStrictEqual([result.refund.status, result.refundAmount, result.payment.refunded_amount], ["succeeded", 2_500, 2_500])
      const moved = (yield* processorMoved).filter((m) => m._tag === "Refund")
      assert.deepStrictEqual(moved.map((m) => [m.reference, m.amount]), [[result.refund.refund_id, 2_500]])
      assert.lengthOf(yield* eventsOf(test, "refund.succeeded"), 1)
      assert.match(result.refund.refund_id, /^ref_[0-9a-f]{32}$/)
    }).pipe(withEngine))

  it.effect("5126: the processor refuses, REFUND_REFUSED; the reservation is released and nothing else changes", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.refundsRefused)
      for (const amount of [1_000, undefined]) {
        const refused = yield* Effect.flip(payments.refund(operator, paid.payment_id, amount))
        assert.strictEqual(refused._tag, "RefundRefused")
        assert.strictEqual(refused.code, "REFUND_REFUSED")
        assert.match(refused.message, /refused/)
      }
      assert.deepStrictEqual(yield* payments.get(test, paid.payment_id), paid, "the payment is unchanged")
      assert.deepStrictEqual((yield* refundsOf(paid.payment_id)).map((r) => r.status), ["refused", "refused"])
      assert.lengthOf(yield* eventsOf(test, "refund.succeeded"), 0)
      // Released: the whole amount may be asked for again (and is refused again, the card's rule).
      const again = yield* Effect.flip(payments.refund(operator, paid.payment_id, paid.total_amount))
      assert.strictEqual(again._tag, "RefundRefused")
    }).pipe(withEngine))

  it.effect("1034: the first refund's answer is lost after the money moved; a lookup finds it and it ends once", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.firstRefundAnswerLost)
      const first = yield* payments.refund(operator, paid.payment_id, 4_000)
      assert.deepStrictEqual([first.refund.status, first.payment.refunded_amount], ["succeeded", 4_000])
      const second = yield* payments.refund(operator, paid.payment_id)
      assert.deepStrictEqual([second.refund.status, second.payment.status], ["succeeded", "refunded"])
      const moved = (yield* processorMoved).filter((m) => m._tag === "Refund")
      assert.deepStrictEqual(moved.map((m) => m.amount), [4_000, 6_000], "each refund moved money once")
      assert.lengthOf(yield* eventsOf(test, "refund.succeeded"), 2)
      yield* TestClock.adjust("2 minutes")
      yield* payments.resolvePending()
      assert.lengthOf(yield* eventsOf(test, "refund.succeeded"), 2, "nothing recorded twice")
    }).pipe(withEngine))

  it.effect("the processor unreachable: the refund stays pending, holds its amount, and is looked up until it ends", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.visa)
      yield* Ref.set(outage, true)
      const pending = yield* payments.refund(operator, paid.payment_id, 6_000)
      assert.deepStrictEqual([pending.refund.status, pending.refundAmount, pending.payment.refunded_amount], ["pending", 0, 0])
      // The pending refund counts against what remains.
      yield* Ref.set(outage, false)
      const tooMuch = yield* Effect.flip(payments.refund(operator, paid.payment_id, 4_001))
      assert.deepStrictEqual(
        tooMuch._tag === "RefundExceedsRemaining" ? [tooMuch.requested, tooMuch.remaining, tooMuch.pending] : tooMuch._tag,
        [4_001, 4_000, 6_000],
        "the refusal says what remains and what the pending refund holds"
      )
      assert.strictEqual((yield* payments.refund(operator, paid.payment_id)).refundAmount, 4_000, "all that remains: 4000")
      const nothing = yield* Effect.flip(payments.refund(operator, paid.payment_id))
      assert.include(nothing.message, "nothing left to refund: 6000 fils are in refunds still pending")
      // Nothing was made at the processor under the pending refund's reference: looked up a minute on, it is released.
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual(yield* payments.resolvePending(), 1)
      const rows = yield* refundsOf(paid.payment_id)
      assert.deepStrictEqual(rows.map((r) => r.status), ["refused", "succeeded"])
      const after = yield* payments.get(test, paid.payment_id)
      assert.deepStrictEqual([after.status, after.refunded_amount], ["partially_refunded", 4_000])
      assert.strictEqual((yield* payments.refund(operator, paid.payment_id)).refundAmount, 6_000, "the released amount")
    }).pipe(withEngine))

  it.effect("refunds run together never return more than the payment took", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.visa, 10_000)
      const results = yield* Effect.forEach(
        Array.from({ length: 6 }, () => 3_000),
        (amount) => Effect.either(payments.refund(operator, paid.payment_id, amount)),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter(Either.isRight).length, 3)
      const after = yield* payments.get(test, paid.payment_id)
      assert.strictEqual(after.refunded_amount, 9_000)
      const moved = (yield* processorMoved).filter((m) => m._tag === "Refund" && m.outcome._tag === "Succeeded")
      assert.strictEqual(moved.reduce((sum, m) => sum + m.amount, 0), 9_000)
    }).pipe(withEngine))
})

describe("lost charge answers resolved by lookup", () => {
  it.effect("1000: the charge was taken and its answer lost; the checkout finds it and records one succeeded payment", () =>
    Effect.gen(function*() {
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.answerLost)
      assert.deepStrictEqual([paid.status, paid.card?.last4], ["succeeded", "1000"])
      const charges = (yield* processorMoved).filter((m) => m._tag === "Charge")
      assert.deepStrictEqual(charges.map((c) => c.reference), [paid.payment_id], "one charge, under the payment's id")
      const session = Option.getOrThrow(yield* Effect.flatMap(Store, (s) => s.sessions.find(paid.checkout_session_id!)))
      assert.strictEqual(session.status, "complete")
    }).pipe(withEngine))

  it.effect("1018: nothing was taken; the lookup says so and the payment fails with processing_error, the session stays open", () =>
    Effect.gen(function*() {
      const { test } = yield* newAccount
      const failed = yield* paidWith(test, cards.unreachable)
      assert.deepStrictEqual([failed.status, failed.failure_code], ["failed", "processing_error"])
      assert.lengthOf(yield* processorMoved, 0)
      assert.lengthOf(yield* eventsOf(test, "payment.failed"), 1)
      const result = yield* pay(failed.checkout_session_id!, formWith(cards.visa))
      assert.strictEqual(result._tag === "Paid" ? result.payment.status : "", "succeeded", "the customer pays again")
    }).pipe(withEngine))

  it.effect("a checkout charge whose answer and lookup both fail stays processing; the lookup pass records it when the processor answers", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      yield* Ref.set(outage, true)
      const waiting = yield* paidWith(test, cards.answerLost)
      assert.strictEqual(waiting.status, "processing")
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual(yield* payments.resolvePending(), 0, "still unreachable")
      yield* Ref.set(outage, false)
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(yield* payments.resolvePending(), 1)
      const paid = yield* payments.get(test, waiting.payment_id)
      assert.deepStrictEqual([paid.status, paid.card?.last4], ["succeeded", "1000"])
      assert.lengthOf((yield* processorMoved).filter((m) => m._tag === "Charge"), 1)
    }).pipe(withEngine))
})
