/**
 * Background work (decisions.md §6): renew subscriptions and retry failed renewals, end those set to cancel at the
 * period end, expire sessions past their 24 hours, and settle `processing` charges. `runOnce` does one pass
 * (`fils billing run`); `worker` runs passes forever inside `fils serve`.
 *
 * Any number of servers may run at once. A claim and its reservations share one transaction, so SKIP LOCKED spreads
 * the work; what makes a double charge impossible is the store's uniqueness rule on (subscription, period, attempt),
 * taken in that transaction, before the processor is called.
 */
import { Clock, DateTime, Duration, Effect, Schedule } from "effect"
import type { PaymentId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import type * as Payment from "../domain/Payment.js"
import * as Subscription from "../domain/Subscription.js"
import { Store } from "../ports/Store.js"
import { Checkout } from "./Checkout.js"
import { newId } from "./Ids.js"
import { batched } from "./Batched.js"
import { recordEvents } from "./Events.js"
import { Payments } from "./Payments.js"
import { type ChargeReport, Settlement } from "./Settlement.js"
import { transitionEvents } from "./Subscriptions.js"

export interface BillingReport {
  readonly renewals_charged: number
  readonly subscriptions_ended: number
  readonly expired_sessions: number
  readonly settled_payments: number
}

export interface BillingOptions {
  /** Only this mode's work (`billing run --at` touches test data only). */
  readonly livemode?: boolean | undefined
  /**
   * Process the work due by this instant as if it were now (`billing run --at`): the pass runs on a clock stopped
   * there. Charges in flight are then not judged abandoned by their age, which only the real time can tell.
   */
  readonly asOf?: number | undefined
}

/** A clock that reads `millis` whenever asked (sleeping still takes real time). */
export const stoppedClock = (millis: number): Clock.Clock => {
  const real = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => millis,
    unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
    currentTimeMillis: Effect.succeed(millis),
    currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
    sleep: real.sleep
  }
}

/** How often a server looks for due work. Settlements of test cards take about 2 s. */
export const interval = Duration.seconds(1)
const batch = 100
/**
 * Charges at the processor at once within a batch. None holds a pooled connection: their outcomes are recorded in
 * batches of up to `recordBatch`, each one transaction.
 */
const concurrency = 100
const recordBatch = 100

export class Billing extends Effect.Service<Billing>()("fils/Billing", {
  effect: Effect.gen(function*() {
    const store = yield* Store
    const checkout = yield* Checkout
    const payments = yield* Payments
    const settlement = yield* Settlement

    /**
     * One transaction claims a batch of due subscriptions (`SKIP LOCKED`: other servers take other rows) and, while
     * they are locked, ends those set to cancel at the period end and reserves a charge for the others: their
     * (subscription, period, attempt) rows and `processing` payments, one statement each for the whole batch. An
     * attempt already recorded (another server has it at the processor) is left alone. The charges run after the
     * commit, so no lock is held at the processor.
     */
    const reserveBatch = (options: BillingOptions) =>
      store.transact(Effect.gen(function*() {
        const now = yield* DateTime.now
        const due = yield* store.subscriptions.claimDue(now, batch, options.livemode)
        const ends: Array<Subscription.SubscriptionTransition> = []
        const toCharge: Array<{ readonly sub: Subscription.Subscription; readonly paymentId: PaymentId }> = []
        for (const sub of due) {
          if (Subscription.dueAction(sub) === "end") {
            ends.push(yield* Subscription.transition(sub, { _tag: "EndAtPeriodEnd" }, now))
          } else {
            toCharge.push({ sub, paymentId: yield* newId<PaymentId>(prefixes.payment) })
          }
        }
        yield* store.subscriptions.updateAll(ends.map((t) => t.next))
        yield* recordEvents(store, ends.flatMap(transitionEvents))
        const fresh = yield* store.subscriptions.recordAttempts(toCharge.map(({ paymentId, sub }) => ({
          subscription_id: sub.subscription_id,
          period: sub.period + 1,
          attempt: Subscription.attempt(sub),
          payment_id: paymentId
        })))
        const charges = toCharge.filter((_, i) => fresh[i]).map(({ paymentId, sub }) => ({
          payment: Subscription.renewalPayment(sub, paymentId, now),
          token: sub.card_token
        }))
        yield* store.payments.insertAll(charges.map((c) => c.payment))
        return { claimed: due.length, ended: ends.length, charges }
      }))

    type RecordCharge = (charge: { readonly id: PaymentId; readonly report: ChargeReport }) => Effect.Effect<
      void,
      Effect.Effect.Error<ReturnType<typeof settlement.record>>
    >

    /**
     * Charges one reserved renewal (no transaction held) and records the outcome. A processor that could not be
     * reached leaves the charge's fate unknown (the call may have taken the money before it failed): nothing is
     * recorded, the payment stays `processing`, and the settle pass asks again under the same reference, as for a
     * charge abandoned by a crash (`Payments.settleDue`), instead of a retry charging the card under a new one.
     */
    const charge = (record: RecordCharge) =>
      Effect.fn("Billing.charge")(function*(payment: Payment.Payment, token: string) {
        // From the charge to its record, uninterruptible: a shutdown waits rather than leave money taken unrecorded.
        return yield* Effect.uninterruptible(
          payments.chargeSavedCard(payment, token).pipe(
            Effect.flatMap((report) => record({ id: payment.payment_id, report })),
            Effect.catchTag("ProcessorUnavailable", (e) =>
              Effect.logWarning(
                "A renewal charge's outcome is unknown (the processor could not be reached): asking again later",
                { payment_id: payment.payment_id, reason: e.message }
              ))
          )
        )
      })

    const renewDue = Effect.fn("Billing.renewDue")(function*(options: BillingOptions) {
      return yield* Effect.scoped(Effect.gen(function*() {
        // Outcomes are recorded as they come, many per transaction (a renewal waits for its own).
        const chargeOne = charge(yield* batched(settlement.record, { max: recordBatch }))
        let charged = 0
        let ended = 0
        for (;;) {
          const batchReserved = yield* reserveBatch(options)
          ended += batchReserved.ended
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
          // A full batch may mean more is due; a batch where nothing could be done means others have it.
          const progressed = batchReserved.ended + batchReserved.charges.length
          if (batchReserved.claimed < batch || progressed === 0) break
        }
        return { charged, ended }
      }))
    })

    const pass = Effect.fn("Billing.pass")(function*(options: BillingOptions) {
      const renewals = yield* renewDue(options)
      const expired = yield* checkout.expireDue(500, options.livemode)
      const settled = yield* payments.settleDue(batch, options.livemode, { judgeAbandoned: options.asOf === undefined })
      return {
        renewals_charged: renewals.charged,
        subscriptions_ended: renewals.ended,
        expired_sessions: expired,
        settled_payments: settled
      } satisfies BillingReport
    })

    /** One pass over what is due now, or as of `options.asOf`. */
    const runOnce = (options: BillingOptions = {}) =>
      options.asOf === undefined ? pass(options) : Effect.withClock(pass(options), stoppedClock(options.asOf))

    /**
     * Passes forever. A failed pass (the store is down) is retried with backoff up to 30 s, so an outage neither
     * stops the worker nor floods the log; a defect is logged and the next pass runs.
     */
    const worker: Effect.Effect<never> = runOnce().pipe(
      Effect.retry(Schedule.exponential("500 millis").pipe(Schedule.either(Schedule.spaced("30 seconds")))),
      Effect.catchAllCause((cause) => Effect.logError("Billing pass failed", cause)),
      Effect.repeat(Schedule.spaced(interval)),
      Effect.zipRight(Effect.never),
      Effect.withSpan("Billing.worker")
    )

    return { runOnce, worker } as const
  })
}) {}
