/**
 * Refund (docs/decisions.md §5) as a pure machine over random command sequences: reservations, confirmations
 * and refusals in any order never let confirmed plus pending refunds exceed the payment, a refund ends once, and
 * the payment keeps §5's invariants.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, FastCheck as fc } from "effect"
import type { AccountId, RefundId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import * as Refund from "../../src/domain/Refund.js"
import { makePayment, succeededOf } from "../adapters/storeContract.js"

type Command =
  | { readonly _tag: "Reserve"; readonly amount: number | undefined }
  | { readonly _tag: "Confirm"; readonly pick: number }
  | { readonly _tag: "Refuse"; readonly pick: number }

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ _tag: fc.constant("Reserve" as const), amount: fc.option(fc.integer({ min: -5, max: 80_000 }), { nil: undefined }) }),
  fc.record({ _tag: fc.constant("Confirm" as const), pick: fc.nat() }),
  fc.record({ _tag: fc.constant("Refuse" as const), pick: fc.nat() })
)

const now = DateTime.unsafeMake(Date.UTC(2026, 10, 25))
const scope = { accountId: "acct_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f" as AccountId, livemode: false }

describe("Refund (property)", () => {
  it.effect.prop("refunded + pending never exceeds the total; each refund ends once; the payment stays valid", {
    commands: fc.array(commandArb, { maxLength: 40 })
  }, ({ commands }) =>
    Effect.gen(function*() {
      let payment = succeededOf(yield* makePayment(scope))
      let refunds: Array<Refund.Refund> = []
      let n = 0
      for (const command of commands) {
        if (command._tag === "Reserve") {
          const id = `ref_${(n++).toString(16).padStart(32, "0")}` as RefundId
          const reserved = Refund.reserve(payment, refunds.filter((r) => r.status === "pending"), command.amount, id, now)
          if (Either.isRight(reserved)) refunds.push(reserved.right)
          else {
            const remaining = payment.total_amount - payment.refunded_amount - Refund.pendingAmount(refunds)
            const requested = command.amount ?? remaining
            assert.isTrue(requested <= 0 || requested > remaining, `refused ${requested} of ${remaining}`)
          }
        } else if (refunds.length > 0) {
          const target = refunds[command.pick % refunds.length]!
          const concluded = Refund.conclude(
            target,
            command._tag === "Confirm" ? { _tag: "Confirm", processorRefundId: "re_x" } : { _tag: "Refuse", reason: "no" },
            now
          )
          assert.strictEqual(Either.isRight(concluded), target.status === "pending", "ends once")
          if (Either.isRight(concluded)) {
            refunds = refunds.map((r) => (r.refund_id === target.refund_id ? concluded.right : r))
            if (concluded.right.status === "succeeded") {
              payment = Either.getOrThrow(Payment.transition(payment, { _tag: "Refund", amount: target.amount }, now)).next
            }
          }
        }
        assert.isAtMost(payment.refunded_amount + Refund.pendingAmount(refunds), payment.total_amount)
        assert.deepStrictEqual(Payment.violations(payment), [])
        const confirmed = refunds.filter((r) => r.status === "succeeded").reduce((sum, r) => sum + r.amount, 0)
        assert.strictEqual(payment.refunded_amount, confirmed, "refunded_amount counts confirmed refunds only")
      }
    }))
})
