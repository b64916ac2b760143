/**
 * Refunds through the processor (docs/decisions.md §5): reserve → call → record. The reserving transaction
 * holds the payment's row, so refunds running together can never return more than remains; the processor is called
 * after it commits, with the refund's id as its idempotency key; the outcome is recorded in a second transaction,
 * and only a confirmed refund moves the payment (`refunded_amount`, `refund.succeeded`). A refund whose answer was
 * lost stays `pending` until a lookup of its reference says what became of it, and ends exactly once.
 *
 * With an idempotency key (a dashboard form's one-time token, a script's retry), the key is claimed in the reserving
 * transaction with the refund's id as its answer: a retry, even after a crash between that commit and the answer,
 * meets the refund already reserved and carries it on (the processor's idempotency key is the refund's id) instead
 * of reserving another.
 */
import { DateTime, Effect, Either, Option } from "effect"
import { type Authority, sees } from "../domain/Account.js"
import { InvalidState, notFound, RefundRefused, type StoreUnavailable } from "../domain/Errors.js"
import type { PaymentId, RefundId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Payment from "../domain/Payment.js"
import * as Refund from "../domain/Refund.js"
import { type Movement, PaymentProcessor, type RefundResult } from "../ports/PaymentProcessor.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { IdempotencyRepository } from "../ports/repositories/IdempotencyRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { ChargeOutcomes } from "./ChargeOutcomes.js"
import { EventRecorder, paymentDrafts } from "./Events.js"
import { newId } from "./Ids.js"
import { callProcessor, reserveThenCall } from "./ProcessorCall.js"
import { TaxDocuments } from "./TaxDocuments.js"
import * as WorkKeys from "./WorkKeys.js"

/** What a refund came to: the payment as it is after, and the refund (`pending` when its outcome is unknown yet). */
export interface RefundResultView {
  readonly payment: Payment.Payment
  readonly refund: Refund.Refund
  /** What this refund returned (0 while it is pending). */
  readonly refundAmount: number
}

/** What a processor's answer about a refund means for it; `undefined` when the answer does not settle it. */
export const refundCommandOf = (answer: RefundResult): Refund.RefundCommand =>
  answer.outcome._tag === "Succeeded"
    ? { _tag: "Confirm", processorRefundId: answer.refundId }
    : { _tag: "Refuse", reason: answer.outcome.reason }

/** What a lookup of a refund's reference says: nothing under it means none was made (released). */
export const lookedUpRefund = (found: Option.Option<Movement>): Refund.RefundCommand | undefined =>
  Option.match(found, {
    onNone: () => ({ _tag: "Refuse", reason: "The processor made no refund under this reference" }),
    onSome: (movement) =>
      movement._tag === "Refund"
        ? refundCommandOf({ refundId: movement.refundId, outcome: movement.outcome })
        : undefined
  })

export class Refunds extends Effect.Service<Refunds>()("fils/Refunds", {
  effect: Effect.gen(function*() {
    const idempotencyRepo = yield* IdempotencyRepository
    const paymentRepo = yield* PaymentRepository
    const transactions = yield* Transactions
    const recorder = yield* EventRecorder
    const taxDocuments = yield* TaxDocuments
    const processor = yield* PaymentProcessor
    const { fees } = yield* ChargeOutcomes
    const signer = yield* Signer

    /**
     * Reserves the refund: a `pending` row, with the payment locked so that what remains is counted once. Under a
     * key already used, the refund reserved then instead.
     */
    const reserve = (
      authority: Authority,
      id: PaymentId,
      amount: number | undefined,
      key: string | undefined,
      why: Refund.RefundWhy | null,
      alongside: Effect.Effect<void, StoreUnavailable> | undefined
    ) =>
      transactions.transact(Effect.gen(function*() {
        // Another account's or mode's payment is not found, as if it did not exist.
        const found = Option.filter(yield* paymentRepo.lock(id), (p) => sees(authority, p))
        if (Option.isNone(found)) return yield* notFound("payment", id)
        const payment = found.value
        const refundId = yield* newId<RefundId>(prefixes.refund)
        if (key !== undefined) {
          const scope = { accountId: payment.account_id, livemode: payment.livemode }
          const request = `refund ${payment.payment_id} ${amount ?? "remaining"}`
          const earlier = yield* WorkKeys.claimAnswered(
            idempotencyRepo,
            yield* WorkKeys.workKey(signer, scope, "refunds", key, request),
            refundId
          )
          // Reserved under the key, it had a charge (checked below), and so has its payment still.
          if (earlier !== undefined && payment.charge_id !== null) {
            const refund = Option.getOrThrow(yield* paymentRepo.refunds.lock(earlier))
            return { payment, refund, chargeId: payment.charge_id }
          }
        }
        const pending = (yield* paymentRepo.refunds.ofPayment(id)).filter((r) => r.status === "pending")
        const refund = yield* Refund.reserve(payment, pending, amount, refundId, yield* DateTime.now, why)
        if (payment.charge_id === null) {
          return yield* new InvalidState({ message: `Payment ${id} has no charge at the processor to refund` })
        }
        yield* paymentRepo.refunds.insert(refund)
        if (alongside !== undefined) yield* alongside
        return { payment, refund, chargeId: payment.charge_id }
      }))

    /**
     * Ends a pending refund as the processor said: confirmed, the payment's refund is applied and `refund.succeeded`
     * recorded; refused, the reservation is released. A refund already ended (another server recorded it) is
     * returned as it is. The payment is locked before the refund, the order `reserve` takes them in: a retry
     * reserving under the same key while the first request records would otherwise deadlock with it.
     */
    const record = Effect.fn("Refunds.record")(function*(pending: Refund.Refund, command: Refund.RefundCommand) {
      return yield* transactions.transact(Effect.gen(function*() {
        const payment = Option.getOrThrow(yield* paymentRepo.lock(pending.payment_id))
        const found = yield* paymentRepo.refunds.lock(pending.refund_id)
        if (Option.isNone(found)) return yield* notFound("refund", pending.refund_id)
        const refund = found.value
        const now = yield* DateTime.now
        const concluded = Refund.conclude(refund, command, now)
        if (Either.isLeft(concluded)) return { payment, refund, refundAmount: 0 } satisfies RefundResultView
        yield* paymentRepo.refunds.update(concluded.right)
        if (concluded.right.status !== "succeeded") {
          return { payment, refund: concluded.right, refundAmount: 0 } satisfies RefundResultView
        }
        const transition = yield* Payment.transition(payment, { _tag: "Refund", amount: refund.amount }, now, fees)
        yield* paymentRepo.update(transition.next)
        const note = yield* taxDocuments.issueCreditNote(concluded.right, transition.next)
        yield* recorder.record([...paymentDrafts(transition.events, transition.next), ...note])
        return { payment: transition.next, refund: concluded.right, refundAmount: refund.amount } satisfies RefundResultView
      }))
    })

    /** Asks the processor for a pending refund (again, for a retry: the refund's id is its idempotency key). */
    const callAndRecord = (id: PaymentId, chargeId: string, refund: Refund.Refund) =>
      callProcessor(Effect.map(processor.refund(chargeId, refund.amount, refund.refund_id), refundCommandOf))({
        lookup: Effect.map(processor.lookup(refund.refund_id), lookedUpRefund),
        record: (answer) => record(refund, answer),
        unknown: Effect.map(
          paymentRepo.find(id),
          (payment) => ({ payment: Option.getOrThrow(payment), refund, refundAmount: 0 }) satisfies RefundResultView
        ),
        what: "A refund",
        ids: { refund_id: refund.refund_id, payment_id: id }
      })

    /**
     * Refunds `amount` fils of a payment (default: all that remains). Refused by the rules (not succeeded, more
     * than remains counting pending refunds) with nothing changed; refused by the processor with `RefundRefused`
     * and the reservation released; `pending` when the processor's answer was lost and a lookup could not tell yet.
     * With `idempotencyKey`, at most one refund is made under it: a retry carries on the one reserved first. `why`
     * (the reason and the merchant's note) is kept on the refund and written on its credit note. `alongside` is
     * written in the reserving transaction, only by the request that reserves (the dashboard's audit entry): with the
     * refund, or not at all.
     */
    const create = Effect.fn("Refunds.create")(function*(
      authority: Authority,
      id: PaymentId,
      amount?: number,
      idempotencyKey?: string,
      why?: Refund.RefundWhy,
      alongside?: Effect.Effect<void, StoreUnavailable>
    ) {
      const result = yield* reserveThenCall(reserve(authority, id, amount, idempotencyKey, why ?? null, alongside), ({ chargeId, payment, refund }) =>
        // A retry meeting a refund that already ended answers as it ended.
        refund.status !== "pending"
          ? Effect.succeed({ payment, refund, refundAmount: refund.status === "succeeded" ? refund.amount : 0 } satisfies RefundResultView)
          : callAndRecord(id, chargeId, refund))
      if (result.refund.status === "refused") {
        return yield* new RefundRefused({
          message: `The processor refused the refund of ${result.refund.amount} fils: ${result.refund.failure_reason}. ` +
            "Nothing was refunded."
        })
      }
      return result
    })

    /**
     * Looks up pending refunds older than `olderThanMillis` (a younger one may still be at the processor, answered
     * by its own call) and ends those the processor can tell about. Returns how many ended.
     */
    const resolvePending = Effect.fn("Refunds.resolvePending")(function*(
      limit: number,
      olderThanMillis: number,
      ask: (refundId: RefundId) => boolean
    ) {
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      const pending = (yield* paymentRepo.refunds.listPending(limit)).filter((r) =>
        now - DateTime.toEpochMillis(r.created_at) >= olderThanMillis && ask(r.refund_id)
      )
      const ended = yield* Effect.forEach(pending, (refund) =>
        processor.lookup(refund.refund_id).pipe(
          Effect.map(lookedUpRefund),
          Effect.flatMap((command) => command === undefined ? Effect.succeed(false) : Effect.as(record(refund, command), true)),
          Effect.catchTag("ProcessorUnavailable", () => Effect.succeed(false)),
          Effect.map((done) => ({ id: refund.refund_id, done }))
        ), { concurrency: 10 })
      return ended
    })

    return { create, record, resolvePending } as const
  }),
  dependencies: [EventRecorder.Default, ChargeOutcomes.Default, TaxDocuments.Default]
}) {}
