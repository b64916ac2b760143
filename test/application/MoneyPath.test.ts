/**
 * The money path as a property: random interleavings of checkouts, refunds (some at once), settle
 * passes and clock jumps, with every processor call exposed to a fault — its answer lost before or after the
 * processor acted, or the process "crashing" (a defect) before or after it — and lookups failing for a while. The
 * processor is the simulated one on its memory ledger, wrapped by the fault model.
 *
 * After every step: no reference moved money twice, no refund returned more than its charge took,
 * `refunded_amount ≤ total_amount`, and Fils' records agree with what the processor moved, up to what is still in
 * flight (`Reconciliation.compare`). Once the processor answers again and everything in flight has been looked up:
 * money moved by the processor = money recorded as succeeded − refunds, exactly.
 */
import { operator } from "../../src/domain/Account.js"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, FastCheck as fc, Layer, Ref, TestClock } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Payments } from "../../src/application/Payments.js"
import { compare } from "../../src/application/Reconciliation.js"
import * as Payment from "../../src/domain/Payment.js"
import { PaymentProcessor, ProcessorUnavailable } from "../../src/ports/PaymentProcessor.js"
import { Store } from "../../src/ports/Store.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { engineOver, newAccount } from "./harness.js"

/** What happens to the next call that can move money. */
type Fault = "none" | "lostBefore" | "lostAfter" | "crashBefore" | "crashAfter"

const faults = { next: Ref.unsafeMake<Fault>("none"), lookupsDown: Ref.unsafeMake(false) }

/** The simulated processor, each charge or refund meeting the fault set for it; lookups down while the switch is. */
const FaultyProcessor = Layer.effect(
  PaymentProcessor,
  Effect.gen(function*() {
    const simulated = yield* makeSimulatedProcessorMemory({ live: false })
    const faulty = <A>(call: Effect.Effect<A, ProcessorUnavailable>) =>
      Effect.flatMap(Ref.getAndSet(faults.next, "none"), (fault): Effect.Effect<A, ProcessorUnavailable> => {
        switch (fault) {
          case "none":
            return call
          case "lostBefore":
            return Effect.fail(new ProcessorUnavailable("lost before"))
          case "lostAfter":
            return Effect.zipRight(call, Effect.fail(new ProcessorUnavailable("lost after")))
          case "crashBefore":
            return Effect.dieMessage("crash before the call")
          case "crashAfter":
            return Effect.zipRight(call, Effect.dieMessage("crash after the call"))
        }
      })
    const lookupGate = <A>(effect: Effect.Effect<A, ProcessorUnavailable>) =>
      Effect.flatMap(Ref.get(faults.lookupsDown), (down) => (down ? Effect.fail(new ProcessorUnavailable("down")) : effect))
    return PaymentProcessor.of({
      ...simulated,
      chargeCard: (request, card) => faulty(simulated.chargeCard(request, card)),
      chargeToken: (request, token) => faulty(simulated.chargeToken(request, token)),
      refund: (chargeId, amount, reference) => faulty(simulated.refund(chargeId, amount, reference)),
      lookup: (reference) => lookupGate(simulated.lookup(reference))
    })
  })
)

const engine = engineOver(Layer.mergeAll(StoreMemory, SignerNode, FaultyProcessor))

type Command =
  | { readonly _tag: "Pay"; readonly card: string; readonly fault: Fault }
  | { readonly _tag: "Refund"; readonly pick: number; readonly amount: number | undefined; readonly fault: Fault }
  | { readonly _tag: "RefundTwice"; readonly pick: number; readonly amount: number }
  | { readonly _tag: "Settle"; readonly seconds: number; readonly lookupsDown: boolean }

const faultArb = fc.constantFrom<Fault>("none", "none", "lostBefore", "lostAfter", "crashBefore", "crashAfter")
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    _tag: fc.constant("Pay" as const),
    card: fc.constantFrom(cards.visa, cards.visa, cards.declined, cards.settleSucceeds, cards.answerLost, cards.unreachable),
    fault: faultArb
  }),
  fc.record({
    _tag: fc.constant("Refund" as const),
    pick: fc.nat(),
    amount: fc.option(fc.integer({ min: 1, max: 6_000 }), { nil: undefined }),
    fault: faultArb
  }),
  fc.record({ _tag: fc.constant("RefundTwice" as const), pick: fc.nat(), amount: fc.integer({ min: 1, max: 6_000 }) }),
  fc.record({ _tag: fc.constant("Settle" as const), seconds: fc.integer({ min: 1, max: 400 }), lookupsDown: fc.boolean() })
)

/** Both sides as they are now. */
const sides = Effect.gen(function*() {
  const store = yield* Store
  const processor = yield* PaymentProcessor
  const zero = DateTime.unsafeMake(0)
  return {
    payments: yield* store.payments.since(zero, undefined, 10_000),
    refunds: yield* store.refunds.since(zero, undefined, 10_000),
    movements: yield* processor.movements(zero)
  }
})

const checkInvariants = (label: string) =>
  Effect.gen(function*() {
    const { movements, payments, refunds } = yield* sides
    // No reference moved money twice.
    const references = movements.map((m) => m.reference)
    assert.strictEqual(new Set(references).size, references.length, `${label}: a reference moved money twice`)
    // No refund returned more than its charge took.
    for (const charge of movements) {
      if (charge._tag !== "Charge") continue
      const returned = movements
        .filter((m) => m._tag === "Refund" && m.chargeId === charge.chargeId && m.outcome._tag === "Succeeded")
        .reduce((sum, m) => sum + m.amount, 0)
      assert.isAtMost(returned, charge.amount, `${label}: refunds of ${charge.chargeId}`)
    }
    for (const p of payments) assert.deepStrictEqual(Payment.violations(p), [], `${label}: ${p.payment_id}`)
    const report = compare({ movements, payments, others: [], refunds })
    assert.deepStrictEqual(report.mismatches, [], `${label}: reconciliation`)
    return { movements, payments, refunds }
  })

describe("money path (property)", () => {
  it.effect.prop(
    "charges, refunds, lost answers, lookups and crashes: money moved = money recorded succeeded − refunds",
    { commands: fc.array(commandArb, { minLength: 1, maxLength: 25 }) },
    ({ commands }) =>
      Effect.gen(function*() {
        yield* Ref.set(faults.next, "none")
        yield* Ref.set(faults.lookupsDown, false)
        const payments = yield* Payments
        const { test } = yield* newAccount
        const product = yield* makeProduct(test, { price: 10_000 })
        const paid: Array<Payment.Payment> = []
        for (const [i, command] of commands.entries()) {
          switch (command._tag) {
            case "Pay": {
              const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
              yield* Ref.set(faults.next, command.fault)
              const result = yield* Effect.exit(pay(session.session_id, formWith(command.card)))
              if (result._tag === "Success" && result.value._tag === "Paid") paid.push(result.value.payment)
              break
            }
            case "Refund":
            case "RefundTwice": {
              const target = paid[command.pick % Math.max(paid.length, 1)]
              if (target === undefined) break
              if (command._tag === "Refund") {
                yield* Ref.set(faults.next, command.fault)
                yield* Effect.exit(payments.refund(operator, target.payment_id, command.amount))
              } else {
                yield* Effect.all([
                  Effect.exit(payments.refund(operator, target.payment_id, command.amount)),
                  Effect.exit(payments.refund(operator, target.payment_id, command.amount))
                ], { concurrency: 2 })
              }
              break
            }
            case "Settle": {
              yield* Ref.set(faults.lookupsDown, command.lookupsDown)
              yield* TestClock.adjust(`${command.seconds} seconds`)
              yield* payments.resolvePending()
              break
            }
          }
          yield* Ref.set(faults.next, "none")
          yield* checkInvariants(`after step ${i} (${command._tag})`)
        }

        // The processor answers again; everything in flight is looked up (waits grow to 5 minutes at most).
        yield* Ref.set(faults.lookupsDown, false)
        for (let round = 0; round < 8; round++) {
          yield* TestClock.adjust("6 minutes")
          yield* payments.resolvePending(10_000)
        }
        const { movements, payments: recorded, refunds } = yield* checkInvariants("at rest")
        assert.deepStrictEqual(recorded.filter((p) => p.status === "processing").map((p) => p.payment_id), [], "nothing processing")
        assert.deepStrictEqual(refunds.filter((r) => r.status === "pending").map((r) => r.refund_id), [], "nothing pending")
        const settled = (o: { readonly outcome: { readonly _tag: string } }) => o.outcome._tag === "Succeeded"
        const moved = movements.reduce((sum, m) =>
          m._tag === "Charge" ? sum + (settled(m) ? m.amount : 0) : sum - (settled(m) ? m.amount : 0), 0)
        const paidStatuses = new Set(["succeeded", "partially_refunded", "refunded"])
        const recordedNet = recorded.reduce((sum, p) =>
          paidStatuses.has(p.status) ? sum + p.total_amount - p.refunded_amount : sum, 0)
        assert.strictEqual(moved, recordedNet, "money moved = money recorded as succeeded − refunds")
      }).pipe(Effect.provide(engine)),
    { fastCheck: { numRuns: 40 } }
  )
})

