/**
 * Renewals (docs/decisions.md §6): reserve → charge → record, for every subscription due. One transaction claims a batch
 * of due subscriptions and reserves their charges; the charges run after it commits, and their outcomes go to
 * `ChargeOutcomes`. Any number of servers may renew at once: what makes a double charge impossible is the store's
 * uniqueness rule on (subscription, period, attempt), taken in the reserving transaction, before the processor is
 * called.
 */
import { DateTime, Effect, Fiber } from "effect"
import type { PaymentId, TestClockId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Payment from "../domain/Payment.js"
import * as PlanChange from "../domain/PlanChange.js"
import * as Subscription from "../domain/Subscription.js"
import { PaymentProcessor } from "../ports/PaymentProcessor.js"
import { Transactions } from "../ports/Transactions.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { batched } from "./Batched.js"
import { EventRecorder } from "./Events.js"
import { newId } from "./Ids.js"
import { callProcessor } from "./ProcessorCall.js"
import { type ChargeReport, lookedUpCharge, ChargeOutcomes, paidByCredit } from "./ChargeOutcomes.js"
import { transitionEvents } from "./Subscriptions.js"

/** Which renewals a pass takes on: only this mode's (`billing run --at` touches test data only). */
export interface RenewalOptions {
  readonly livemode?: boolean | undefined
  /** Only this test clock's subscriptions; without it, only those on the real time. */
  readonly clock?: TestClockId | undefined
}

/** Subscriptions claimed per reserving transaction. */
const batch = 100

/**
 * Charges at the processor at once within a batch. None holds a pooled connection: their outcomes are recorded in
 * batches of up to `recordBatch`, each one transaction.
 */
const concurrency = 100
const recordBatch = 100

export class Renewals extends Effect.Service<Renewals>()("fils/Renewals", {
  effect: Effect.gen(function*() {
    const paymentRepo = yield* PaymentRepository
    const subscriptionRepo = yield* SubscriptionRepository
    const transactions = yield* Transactions
    const recorder = yield* EventRecorder
    const processor = yield* PaymentProcessor
    const outcomes = yield* ChargeOutcomes

    /**
     * One transaction claims a batch of due subscriptions (`SKIP LOCKED`: other servers take other rows) and, while
     * they are locked, ends those set to cancel at the period end and reserves a charge for the others: their
     * (subscription, period, attempt) rows and `processing` payments, one statement each for the whole batch. An
     * attempt already recorded (another server has it at the processor) is left alone. A plan change scheduled for
     * this billing date is applied first, so the renewal charges the new plan. The charges run after the commit, so
     * no lock is held at the processor.
     */
    const reserveBatch = (options: RenewalOptions) =>
      transactions.transact(Effect.gen(function*() {
        const now = yield* DateTime.now
        const due = yield* subscriptionRepo.claimDue(now, batch, options.livemode, options.clock)
        const ends: Array<Subscription.SubscriptionTransition> = []
        const toCharge: Array<{
          readonly sub: Subscription.Subscription
          readonly paymentId: PaymentId
          readonly changed: Subscription.SubscriptionTransition | undefined
        }> = []
        for (const sub of due) {
          if (Subscription.dueAction(sub) === "end") {
            ends.push(yield* Subscription.transition(sub, { _tag: "EndAtPeriodEnd" }, now))
          } else {
            const changed = PlanChange.applyScheduled(sub, now)
            toCharge.push({ sub: changed?.next ?? sub, paymentId: yield* newId<PaymentId>(prefixes.payment), changed })
          }
        }
        yield* subscriptionRepo.updateAll(ends.map((t) => t.next))
        yield* recorder.record(ends.flatMap(transitionEvents))
        const fresh = yield* subscriptionRepo.recordAttempts(toCharge.map(({ paymentId, sub }) => ({
          subscription_id: sub.subscription_id,
          ...Subscription.dueAttempt(sub),
          payment_id: paymentId
        })))
        const changes = toCharge.flatMap((c, i) => (fresh[i] && c.changed !== undefined ? [c.changed] : []))
        yield* subscriptionRepo.updateAll(changes.map((t) => t.next))
        yield* recorder.record(changes.flatMap(transitionEvents))
        const charges = toCharge.filter((_, i) => fresh[i]).map(({ paymentId, sub }) => ({
          payment: Subscription.renewalPayment(sub, paymentId, now),
          token: sub.card_token
        }))
        yield* paymentRepo.insertAll(charges.map((c) => c.payment))
        return { claimed: due.length, ended: ends.length, charges }
      }))

    type RecordCharge = (charge: { readonly id: PaymentId; readonly report: ChargeReport }) => Effect.Effect<
      void,
      Effect.Effect.Error<ReturnType<typeof outcomes.recordGathered>>
    >

    /**
     * Charges one reserved renewal (or another charge of a subscription's saved card: a plan change's), no
     * transaction held, on its saved card, with the payment's id as the processor's idempotency key, and records the
     * outcome. A call that fails as unavailable leaves the charge's fate unknown (the money may have moved before the
     * answer was lost): the processor is asked what it did under that reference, and what it says is recorded; still
     * unknown, the payment stays `processing` and the settle pass looks it up (`Payments.resolvePending`). It is
     * never charged again under a new reference. A charge its subscription's credit pays in full asks nothing of the
     * card: it succeeds without the processor.
     */
    const charge = (record: RecordCharge) =>
      Effect.fn("Renewals.charge")(function*(payment: Payment.Payment, token: string) {
        if (Payment.paidByCredit(payment)) return yield* record({ id: payment.payment_id, report: paidByCredit })
        const request = {
          reference: payment.payment_id,
          amount: payment.total_amount,
          currency: payment.currency,
          livemode: payment.livemode
        }
        const charged = Effect.map(
          processor.chargeToken(request, token),
          (r): ChargeReport => ({ outcome: r.outcome, chargeId: r.chargeId, card: null })
        )
        return yield* callProcessor(charged)({
          lookup: Effect.map(processor.lookup(payment.payment_id), lookedUpCharge),
          record: (report) => record({ id: payment.payment_id, report }),
          unknown: Effect.void,
          what: payment.billing_reason === "subscription_update" ? "A plan change's charge" : "A renewal charge",
          ids: { payment_id: payment.payment_id }
        })
      })

    const renewDue = Effect.fn("Renewals.renewDue")(function*(options: RenewalOptions) {
      return yield* Effect.scoped(Effect.gen(function*() {
        // Outcomes are recorded as they come, many per transaction (a renewal waits for its own).
        const chargeOne = charge(yield* batched(outcomes.record, { max: recordBatch }))
        let charged = 0
        let ended = 0
        let reserving = yield* Effect.fork(reserveBatch(options))
        for (;;) {
          const batchReserved = yield* Fiber.join(reserving)
          ended += batchReserved.ended
          // A full batch may mean more is due; a batch where nothing could be done means others have it.
          const progressed = batchReserved.ended + batchReserved.charges.length
          const more = batchReserved.claimed === batch && progressed > 0
          // The next batch is claimed while this one is charged, as another server's pass could claim it: the
          // claim's rules are the same (`SKIP LOCKED`, and one charge per subscription, period and attempt). If
          // this batch fails, a claimed next one is left as a crash would leave it: its payments stay
          // `processing` until the lookup pass looks them up.
          if (more) reserving = yield* Effect.fork(reserveBatch(options))
          // Several at once: each charge is independent (its own reservation and record), and the (subscription,
          // period, attempt) rule still makes a second charge impossible. One failing renewal does not interrupt
          // the others (one may be between its charge and its record); the first failure is raised after.
          const exits = yield* Effect.forEach(
            batchReserved.charges,
            ({ payment, token }) => Effect.exit(chargeOne(payment, token)),
            { concurrency }
          )
          for (const exit of exits) {
            yield* exit
            charged++
          }
          if (!more) break
        }
        return { charged, ended }
      }))
    })

    /**
     * Charges one charge reserved outside a billing pass (a plan change's, or a retry brought forward by a new card:
     * `PaymentMethods`) and records its outcome at once, with the outcomes other requests learn meanwhile
     * (`ChargeOutcomes.recordGathered`: concurrent plan changes share one transaction).
     */
    const chargeOne = charge((c) => Effect.asVoid(outcomes.recordGathered(c.id, c.report)))

    return { renewDue, chargeOne } as const
  }),
  dependencies: [EventRecorder.Default, ChargeOutcomes.Default]
}) {}
