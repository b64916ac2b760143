/**
 * `Reconciliation.compare` (fils reconcile): each kind of mismatch is found, named by its reference, and what is
 * still in flight (a payment processing, a refund pending) is not one.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { compare } from "../../src/application/Reconciliation.js"
import type { Scope } from "../../src/domain/Account.js"
import type { AccountId, RefundId } from "../../src/domain/Ids.js"
import type * as Payment from "../../src/domain/Payment.js"
import type { Refund } from "../../src/domain/Refund.js"
import type { Movement } from "../../src/ports/PaymentProcessor.js"
import { failedOf, makePayment, next, succeededOf } from "../adapters/storeContract.js"

const scope: Scope = { accountId: "acct_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f" as AccountId, livemode: false }
const at = DateTime.unsafeMake(Date.UTC(2026, 10, 25))

const charge = (p: Payment.Payment, overrides: Partial<Extract<Movement, { _tag: "Charge" }>> = {}): Movement => ({
  _tag: "Charge",
  reference: p.payment_id,
  chargeId: `ch_${p.payment_id.slice(4)}`,
  amount: p.total_amount,
  currency: "AED",
  livemode: false,
  outcome: { _tag: "Succeeded" },
  card: null,
  createdAt: at,
  ...overrides
})
const refundMove = (p: Payment.Payment, reference: string, amount: number): Movement => ({
  _tag: "Refund",
  reference,
  refundId: `re_${reference}`,
  chargeId: `ch_${p.payment_id.slice(4)}`,
  amount,
  currency: "AED",
  livemode: false,
  outcome: { _tag: "Succeeded" },
  createdAt: at
})
const pendingRefund = (p: Payment.Payment, amount: number): Refund => ({
  refund_id: "ref_0190f0c2a1b27c3d8e4f5a6b7c8d9e01" as RefundId,
  payment_id: p.payment_id,
  account_id: p.account_id,
  livemode: p.livemode,
  amount,
  status: "pending",
  failure_reason: null,
  processor_refund_id: null,
  reason: null,
  note: null,
  created_at: at,
  updated_at: at
})
const kinds = (report: ReturnType<typeof compare>) => report.mismatches.map((m) => `${m.kind} ${m.reference}`)

describe("Reconciliation.compare", () => {
  it.effect("agreeing sides: ok, and everything compared is counted", () =>
    Effect.gen(function*() {
      const paid = succeededOf(yield* makePayment(scope))
      const refunded = next(succeededOf(yield* makePayment(scope)), { _tag: "Refund", amount: 500 })
      const declined = failedOf(yield* makePayment(scope))
      const report = compare({
        movements: [charge(paid), charge(refunded), refundMove(refunded, "ref_a", 500), charge(declined, { outcome: { _tag: "Failed", code: "card_declined" } })],
        payments: [paid, refunded, declined],
        others: [],
        refunds: []
      })
      assert.deepStrictEqual(report, { ok: true, checked: 4, mismatches: [] })
    }))

  it.effect("money taken without a succeeded payment: none under the reference, or one recorded failed", () =>
    Effect.gen(function*() {
      const failed = failedOf(yield* makePayment(scope))
      const stranger = yield* makePayment(scope)
      const report = compare({ movements: [charge(failed), charge(stranger)], payments: [failed], others: [], refunds: [] })
      assert.deepStrictEqual(kinds(report), [
        `charge_without_payment ${failed.payment_id}`,
        `charge_without_payment ${stranger.payment_id}`
      ])
      assert.isFalse(report.ok)
    }))

  it.effect("a succeeded payment without money taken, a charge of another amount, a movement twice under one reference", () =>
    Effect.gen(function*() {
      const unpaid = succeededOf(yield* makePayment(scope))
      const declinedThere = succeededOf(yield* makePayment(scope))
      const other = succeededOf(yield* makePayment(scope))
      const twice = succeededOf(yield* makePayment(scope))
      const report = compare({
        movements: [
          charge(declinedThere, { outcome: { _tag: "Failed", code: "card_declined" } }),
          charge(other, { amount: other.total_amount - 1 }),
          charge(twice),
          charge(twice, { chargeId: "ch_again" })
        ],
        payments: [unpaid, declinedThere, other, twice],
        others: [],
        refunds: []
      })
      assert.sameMembers(kinds(report), [
        `duplicate_movement ${twice.payment_id}`,
        `payment_without_charge ${declinedThere.payment_id}`,
        `amount_differs ${other.payment_id}`,
        `payment_without_charge ${unpaid.payment_id}`
      ])
    }))

  it.effect("refund totals that differ; a pending refund the processor made is in flight, not a mismatch", () =>
    Effect.gen(function*() {
      const overRecorded = next(succeededOf(yield* makePayment(scope)), { _tag: "Refund", amount: 900 })
      const underRecorded = succeededOf(yield* makePayment(scope))
      const inFlight = succeededOf(yield* makePayment(scope))
      const report = compare({
        movements: [
          charge(overRecorded),
          refundMove(overRecorded, "ref_b", 800),
          charge(underRecorded),
          refundMove(underRecorded, "ref_c", 100),
          charge(inFlight),
          refundMove(inFlight, "ref_d", 300)
        ],
        payments: [overRecorded, underRecorded, inFlight],
        others: [],
        refunds: [pendingRefund(inFlight, 300)]
      })
      assert.sameMembers(kinds(report), [
        `refund_total_differs ${overRecorded.payment_id}`,
        `refund_total_differs ${underRecorded.payment_id}`
      ])
    }))

  it.effect("a processing payment is in flight whatever the processor says; a charge's payment from before the window counts", () =>
    Effect.gen(function*() {
      const processing = yield* makePayment(scope)
      const older = succeededOf(yield* makePayment(scope))
      const report = compare({ movements: [charge(processing), charge(older)], payments: [processing], others: [older], refunds: [] })
      assert.deepStrictEqual(report.mismatches, [])
    }))
})
