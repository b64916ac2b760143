/**
 * Payments: read them, refund them (an operator's act: there is no public refund endpoint), and record how a charge
 * came out — the one place a payment changes state, so its events and its session's completion always go with it.
 */
import { Array as Arr, DateTime, Duration, Effect, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import { InvalidRequest, notFound } from "../domain/Errors.js"
import type { CustomerId, CheckoutSessionId, PaymentId } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import * as Payment from "../domain/Payment.js"
import { PaymentProcessor, ProcessorUnavailable } from "../ports/PaymentProcessor.js"
import { Store } from "../ports/Store.js"
import { batchedReads } from "./Batched.js"
import { paymentData, recordEvent } from "./Events.js"
import { type ChargeReport, Settlement } from "./Settlement.js"

export interface PaymentListParams {
  readonly status?: Payment.PaymentStatus | undefined
  readonly customer_id?: CustomerId | undefined
  readonly checkout_session_id?: CheckoutSessionId | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}


/** Payments read in one statement at most. */
const readBatch = 100

/** How long a `processing` payment may lack a charge id before it counts as abandoned (its process died mid-charge). */
const abandonedAfterMillis = 60_000

/**
 * How long after its charge began an abandoned renewal is asked again under its reference, while the processor is
 * unreachable: long enough to ride out a short outage, far within the day a processor keeps idempotency keys
 * (Stripe does), and short enough that a stuck payment does not hold up its subscription's cancellation for long.
 */
const askAgainWithinMillis = 15 * 60 * 1000
/** How long one ask may take before it counts as unreachable, and how long a server waits before asking again. */
const askTimeout = Duration.seconds(10)
const askSpacingMillis = 30_000

export class Payments extends Effect.Service<Payments>()("fils/Payments", {
  scoped: Effect.gen(function*() {
    const store = yield* Store
    const processor = yield* PaymentProcessor
    const settlement = yield* Settlement
    const { fees } = settlement
    // Payments read together (merchants polling a status) share one statement.
    const read = yield* batchedReads(store.payments.findAll, (p) => p.payment_id, { max: readBatch })
    // When this server last asked about an abandoned renewal and got no answer: it waits before asking again.
    const askedAt = new Map<PaymentId, number>()

    /** The payment as committed: read in a batch, outside any transaction the caller may be running. */
    const get = Effect.fn("Payments.get")(function*(scope: Scope, id: PaymentId) {
      const [found] = yield* read(scope, [id])
      return found ?? (yield* notFound("payment", id))
    })

    const list = Effect.fn("Payments.list")(function*(scope: Scope, params: PaymentListParams) {
      const filter = {
        status: params.status,
        customer_id: params.customer_id,
        checkout_session_id: params.checkout_session_id
      }
      const key = Pagination.listKey("payments", filter)
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* store.payments.list(scope, filter, page)
      return Pagination.toList(key, result, Payment.position)
    })

    /**
     * Refunds `amount` fils of a payment (default: all that remains), emitting `refund.succeeded`. Refused, with
     * nothing changed, for a payment that is not succeeded or partially refunded, or for more than remains.
     */
    const refund = Effect.fn("Payments.refund")(function*(id: PaymentId, amount?: number) {
      return yield* store.transact(Effect.gen(function*() {
        const found = yield* store.payments.find(id)
        if (Option.isNone(found)) return yield* notFound("payment", id)
        const payment = found.value
        const requested = amount ?? payment.total_amount - payment.refunded_amount
        if (amount === undefined && requested <= 0) {
          return yield* new InvalidRequest({ message: `Payment ${id} has nothing left to refund` })
        }
        const now = yield* DateTime.now
        const transition = yield* Payment.transition(payment, { _tag: "Refund", amount: requested }, now, fees)
        yield* store.payments.update(transition.next)
        const scope = { accountId: payment.account_id, livemode: payment.livemode }
        for (const event of transition.events) {
          yield* recordEvent(store, scope, event.type, paymentData(transition.next, event.refundAmount))
        }
        return { payment: transition.next, refundAmount: requested }
      }))
    })

    /**
     * Charges a renewal's saved card, with the payment's id as the reference: the processor's idempotency key, so
     * asking again for the same payment answers with the charge already taken instead of taking another.
     */
    const chargeSavedCard = (payment: Payment.Payment, token: string) =>
      Effect.map(
        processor.chargeToken({
          reference: payment.payment_id,
          amount: payment.total_amount,
          currency: payment.currency,
          livemode: payment.livemode
        }, token),
        (r): ChargeReport => ({ outcome: r.outcome, chargeId: r.chargeId, card: null })
      )

    /**
     * Asks the processor about `processing` payments and records those that settled. A payment with no charge id
     * after a minute was abandoned mid-charge (its process died, or the processor never answered it):
     * - a renewal is charged again under the same reference: a processor that honours it as its idempotency key
     *   answers with the charge it took, or takes it now if the first call never arrived, so the payment records
     *   what happened and the period is paid once. While the processor is unreachable it stays `processing` (this
     *   server asks again 30 s later), for 15 minutes at most;
     * - a checkout's charge (whose card number is not kept), a renewal past those 15 minutes, or one whose
     *   subscription was cancelled meanwhile (its charge must not be taken now), fails with `processing_error`.
     * That takes the real time, so a pass run as of another instant (`billing run --at`) leaves abandonment to the
     * servers.
     */
    const settleDue = Effect.fn("Payments.settleDue")(function*(
      limit = 100,
      livemode?: boolean,
      options: { readonly judgeAbandoned?: boolean } = {}
    ) {
      const pending = yield* store.payments.listProcessing(limit, livemode)
      if (pending.length === 0) return 0
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      const withCharge = pending.filter((p) => p.charge_id !== null)
      const abandoned = options.judgeAbandoned === false ? [] : pending.filter((p) =>
        p.charge_id === null && now - DateTime.toEpochMillis(p.created_at) > abandonedAfterMillis
      )
      const renewals = abandoned.flatMap((p) => p.subscription_id === null ? [] : [p.subscription_id])
      const cancelled = new Set(
        (yield* store.subscriptions.findAll(renewals)).filter((s) => s.status === "cancelled").map((s) => s.subscription_id)
      )
      const askAgain = (p: Payment.Payment) =>
        p.billing_reason === "subscription_renewal" && p.card !== null && p.subscription_id !== null &&
        !cancelled.has(p.subscription_id) && now - DateTime.toEpochMillis(p.created_at) < askAgainWithinMillis
      const [lost, askable] = Arr.partition(abandoned, askAgain)
      const records: Array<{ readonly id: PaymentId; readonly report: ChargeReport }> = lost.map((payment) => ({
        id: payment.payment_id,
        report: { outcome: { _tag: "Failed", code: "processing_error" }, chargeId: null, card: null }
      }))
      const asking = askable.filter((p) => (askedAt.get(p.payment_id) ?? 0) + askSpacingMillis <= now)
      const answered = yield* Effect.forEach(asking, (payment) =>
        chargeSavedCard(payment, payment.card!.token).pipe(
          Effect.timeoutFail({ duration: askTimeout, onTimeout: () => new ProcessorUnavailable(`no answer in ${Duration.format(askTimeout)}`) }),
          Effect.map((report) => [{ id: payment.payment_id, report }]),
          Effect.catchTag("ProcessorUnavailable", () =>
            Effect.sync(() => {
              askedAt.set(payment.payment_id, now)
              return []
            }))
        ), { concurrency: 10 })
      records.push(...answered.flat())
      for (const { id } of records) askedAt.delete(id)
      for (const [id, at] of askedAt) if (now - at > askAgainWithinMillis) askedAt.delete(id)
      if (withCharge.length > 0) {
        const reports = yield* processor.settlements(withCharge.map((p) => p.charge_id!)).pipe(
          Effect.catchTag("ProcessorUnavailable", () => Effect.succeed([]))
        )
        const byCharge = new Map(withCharge.map((p) => [p.charge_id!, p]))
        for (const report of reports) {
          if (report.outcome._tag === "Processing") continue
          const payment = byCharge.get(report.chargeId)
          if (payment === undefined) continue
          records.push({ id: payment.payment_id, report: { outcome: report.outcome, chargeId: report.chargeId, card: null } })
        }
      }
      yield* settlement.record(records)
      return records.length
    })

    return { get, list, chargeSavedCard, refund, settleDue, fees } as const
  })
}) {}
