/**
 * Reconciliation (`fils reconcile`): what the processor moved, compared with what Fils recorded. Read-only, so it
 * is safe beside running servers; what is still in flight (a payment `processing`, a refund `pending`) is not a
 * mismatch. The comparison is a pure function (`compare`); the use case only reads both sides.
 */
import { DateTime, Effect } from "effect"
import { type Payment, paidByCredit } from "../domain/Payment.js"
import type { Refund } from "../domain/Refund.js"
import type { PaymentId } from "../domain/Ids.js"
import type { Position } from "../domain/Pagination.js"
import { type Movement, PaymentProcessor } from "../ports/PaymentProcessor.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"

export type MismatchKind =
  /** The processor took money under a reference with no succeeded payment (none, or one recorded failed). */
  | "charge_without_payment"
  /** A succeeded payment whose reference has no charge that took money. */
  | "payment_without_charge"
  /** A charge's amount differs from its payment's total. */
  | "amount_differs"
  /** The refunds the processor made of a payment's charge do not add up to its `refunded_amount`. */
  | "refund_total_differs"
  /** The processor holds more than one movement under one reference. */
  | "duplicate_movement"

export interface Mismatch {
  readonly kind: MismatchKind
  /** The payment's or refund's id: the reference the processor knows it by. */
  readonly reference: string
  readonly detail: string
}

export interface ReconcileReport {
  readonly ok: boolean
  /** References compared (payments, charges, refunds). */
  readonly checked: number
  readonly mismatches: ReadonlyArray<Mismatch>
}

const paid = (p: Payment) => p.status === "succeeded" || p.status === "partially_refunded" || p.status === "refunded"

/**
 * Compares the processor's movements since an instant with Fils' payments and refunds created since then.
 * `others` are payments created before the window that a charge in it names (a charge made just after its
 * payment's creation crossed the boundary); refund totals are compared for the window's payments only, whose
 * refunds all fall in the window too.
 */
export const compare = (input: {
  readonly movements: ReadonlyArray<Movement>
  readonly payments: ReadonlyArray<Payment>
  readonly others: ReadonlyArray<Payment>
  readonly refunds: ReadonlyArray<Refund>
}): ReconcileReport => {
  const mismatches: Array<Mismatch> = []
  const references = new Set<string>()
  const byReference = new Map<string, Array<Movement>>()
  for (const m of input.movements) {
    references.add(m.reference)
    byReference.set(m.reference, [...(byReference.get(m.reference) ?? []), m])
  }
  for (const [reference, moves] of byReference) {
    if (moves.length > 1) {
      mismatches.push({
        kind: "duplicate_movement",
        reference,
        detail: `${moves.length} movements under one reference: ${moves.map((m) => `${m._tag.toLowerCase()} ${m._tag === "Charge" ? m.chargeId : m.refundId}`).join(", ")}`
      })
    }
  }
  const payments = new Map<string, Payment>()
  for (const p of [...input.others, ...input.payments]) payments.set(p.payment_id, p)
  const charges = input.movements.filter((m): m is Extract<Movement, { _tag: "Charge" }> => m._tag === "Charge")
  const took = (m: Movement) => m.outcome._tag === "Succeeded"
  // By reference, once: looked up per payment below (not a scan of every charge per payment).
  const charged = new Set(charges.filter(took).map((c) => c.reference))
  const chargedAtAll = new Set(charges.map((c) => c.reference))

  for (const charge of charges) {
    const payment = payments.get(charge.reference)
    if (!took(charge)) {
      if (payment !== undefined && paid(payment) && !charged.has(payment.payment_id)) {
        mismatches.push({
          kind: "payment_without_charge",
          reference: payment.payment_id,
          detail: `Fils recorded ${payment.status}; the processor's charge ${charge.chargeId} is ${charge.outcome._tag.toLowerCase()}`
        })
      }
      continue
    }
    if (payment === undefined || payment.status === "failed") {
      mismatches.push({
        kind: "charge_without_payment",
        reference: charge.reference,
        detail: `The processor took ${charge.amount} fils (charge ${charge.chargeId}); Fils ${
          payment === undefined ? "has no payment under this reference" : `recorded the payment failed (${payment.failure_code})`
        }`
      })
    } else if (payment.status !== "processing" && payment.total_amount !== charge.amount) {
      mismatches.push({
        kind: "amount_differs",
        reference: charge.reference,
        detail: `The processor took ${charge.amount} fils; the payment's total is ${payment.total_amount}`
      })
    }
  }

  const refundsByCharge = new Map<string, number>()
  for (const m of input.movements) {
    if (m._tag === "Refund" && took(m)) {
      refundsByCharge.set(m.chargeId, (refundsByCharge.get(m.chargeId) ?? 0) + m.amount)
    }
  }
  // Refunds pending when read may have been made since (their answers on their way): in flight, either way.
  const pendingByPayment = new Map<PaymentId, number>()
  for (const r of input.refunds) {
    references.add(r.refund_id)
    if (r.status === "pending") pendingByPayment.set(r.payment_id, (pendingByPayment.get(r.payment_id) ?? 0) + r.amount)
  }
  for (const payment of input.payments) {
    references.add(payment.payment_id)
    // Paid by its subscription's credit: the card was never charged, so the processor has nothing under it.
    if (!paid(payment) || paidByCredit(payment)) continue
    if (!charged.has(payment.payment_id)) {
      if (!chargedAtAll.has(payment.payment_id)) {
        mismatches.push({
          kind: "payment_without_charge",
          reference: payment.payment_id,
          detail: `Fils recorded ${payment.total_amount} fils ${payment.status}; the processor has no charge under this reference`
        })
      }
      continue
    }
    const processorTotal = payment.charge_id === null ? 0 : refundsByCharge.get(payment.charge_id) ?? 0
    const inFlight = pendingByPayment.get(payment.payment_id) ?? 0
    if (processorTotal < payment.refunded_amount || processorTotal > payment.refunded_amount + inFlight) {
      mismatches.push({
        kind: "refund_total_differs",
        reference: payment.payment_id,
        detail: `The processor returned ${processorTotal} fils of charge ${payment.charge_id}; Fils recorded ${payment.refunded_amount} refunded${
          inFlight > 0 ? ` and ${inFlight} pending` : ""
        }`
      })
    }
  }
  return { ok: mismatches.length === 0, checked: references.size, mismatches }
}

/** How long reconciliation waits before it reads again to confirm a mismatch. */
const recheckAfter = "2 seconds"

/** Rows read per statement. */
const page = 1_000

export class Reconciliation extends Effect.Service<Reconciliation>()("fils/Reconciliation", {
  effect: Effect.gen(function*() {
    const paymentRepo = yield* PaymentRepository
    const processor = yield* PaymentProcessor

    const readAll = <A extends { readonly created_at: DateTime.Utc }>(
      read: (after: Position | undefined) => Effect.Effect<ReadonlyArray<A>, unknown>,
      id: (a: A) => string
    ) =>
      Effect.gen(function*() {
        const all: Array<A> = []
        let after: Position | undefined
        for (;;) {
          const rows = yield* read(after)
          all.push(...rows)
          if (rows.length < page) return all
          const last = rows[rows.length - 1]!
          after = { createdAtMillis: DateTime.toEpochMillis(last.created_at), id: id(last) }
        }
      })

    /** One reading of both sides: Fils' refunds, then its payments, then the processor (see `compare`). */
    const once = (since: DateTime.Utc) =>
      Effect.gen(function*() {
        const refunds = yield* readAll((after) => paymentRepo.refunds.since(since, after, page), (r) => r.refund_id)
        const payments = yield* readAll((after) => paymentRepo.since(since, after, page), (p) => p.payment_id)
        const movements = yield* processor.movements(since)
        const inWindow = new Set<string>(payments.map((p) => p.payment_id))
        const outside = [...new Set(movements.flatMap((m) => m._tag === "Charge" && !inWindow.has(m.reference) ? [m.reference] : []))]
        const others = outside.length === 0 ? [] : yield* paymentRepo.findAll(outside as Array<PaymentId>)
        return compare({ movements, payments, others, refunds })
      })

    /**
     * Compares everything moved and recorded at or after `since` (default: the beginning). A mismatch must be seen
     * twice, two seconds apart: a charge or refund whose answer was on its way while the sides were read (a running
     * server between its call and its record) is gone by the second reading.
     */
    const run = Effect.fn("Reconciliation.run")(function*(since: DateTime.Utc = DateTime.unsafeMake(0)) {
      const first = yield* once(since)
      if (first.ok) return first
      yield* Effect.sleep(recheckAfter)
      const second = yield* once(since)
      const seen = new Set(first.mismatches.map((m) => `${m.kind} ${m.reference}`))
      const mismatches = second.mismatches.filter((m) => seen.has(`${m.kind} ${m.reference}`))
      return { ok: mismatches.length === 0, checked: second.checked, mismatches }
    })

    return { run } as const
  })
}) {}
