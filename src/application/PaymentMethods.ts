/**
 * A subscription's card, replaced by the customer (the customer portal). The new card is saved through the
 * processor without a charge; a refused card changes nothing. A subscription `on_hold` is retried on the new card at
 * once: the retry is the next of its scheduled retries brought forward (the same (subscription, period, attempt)
 * reservation as billing's, so it can never be charged twice), and its outcome is recorded as any retry's is
 * (docs/decisions.md §6: on success `active` again, `subscription.active` then `subscription.renewed`; declined, it stays
 * on hold and the retries after it keep their days).
 */
import { DateTime, Effect, Equal, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import { CardRefused, InvalidState } from "../domain/Errors.js"
import { type PaymentId, prefixes, type SubscriptionId } from "../domain/Ids.js"
import * as Payment from "../domain/Payment.js"
import * as Subscription from "../domain/Subscription.js"
import { type CardDetails, PaymentProcessor } from "../ports/PaymentProcessor.js"
import { Transactions } from "../ports/Transactions.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { ClockTime } from "./ClockTime.js"
import { newId } from "./Ids.js"
import { reserveThenCall } from "./ProcessorCall.js"
import { Renewals } from "./Renewals.js"
import { EventRecorder } from "./Events.js"
import { afterRenewalInFlight, RenewalInFlight, renewalInFlight, saveTransition, Subscriptions } from "./Subscriptions.js"

export interface CardReplaced {
  /** The subscription after the change (and after the retry, when there was one). */
  readonly subscription: Subscription.Subscription
  /**
   * The retry charged at once on the new card (a subscription on hold), or the one of the same overdue charge made
   * meanwhile (another post of the form, a billing pass), as it stands; null when there was none.
   */
  readonly retry: Payment.Payment | null
}

export class PaymentMethods extends Effect.Service<PaymentMethods>()("fils/PaymentMethods", {
  effect: Effect.gen(function*() {
    const subscriptionRepo = yield* SubscriptionRepository
    const transactions = yield* Transactions
    const paymentRepo = yield* PaymentRepository
    const repos = { subscriptions: subscriptionRepo, payments: paymentRepo, recorder: yield* EventRecorder }
    const processor = yield* PaymentProcessor
    const renewals = yield* Renewals

    const subscriptions = yield* Subscriptions
    const clockTime = yield* ClockTime

    /**
     * Saves `card` for the subscription `id` and, when it is on hold, charges the due renewal on it now. A refused
     * card is `CardRefused`; an unreachable processor `ProcessorUnavailable`; either way nothing changed. On the time
     * the subscription lives on (a test clock's, if it is on one: `ClockTime`).
     */
    const replace = Effect.fn("PaymentMethods.replace")(function*(
      scope: Scope,
      id: SubscriptionId,
      card: CardDetails,
      /** The overdue charge the form was shown for (the portal's forms say); else the one due when the post arrives. */
      shownOverdue?: Subscription.DueAttempt
    ) {
      const before = yield* subscriptions.get(scope, id)
      return yield* clockTime.onTimeOf({ livemode: before.livemode, customer_id: before.customer.customer_id })(
        replaceFrom(scope, id, card, before, shownOverdue)
      )
    })

    const replaceFrom = (
      scope: Scope,
      id: SubscriptionId,
      card: CardDetails,
      before: Subscription.Subscription,
      shownOverdue: Subscription.DueAttempt | undefined
    ) => Effect.gen(function*() {
      if (before.status === "cancelled") {
        return yield* new InvalidState({ message: "This subscription is cancelled; its card cannot be changed" })
      }
      const saved = yield* processor.saveCard(card, { livemode: scope.livemode })
      if (saved._tag === "Refused") {
        return yield* new CardRefused({ decline_code: saved.code, message: Payment.declineMessage(saved.code) })
      }
      // One transaction: the new card, and for a subscription on hold the retry's reservation and its `processing`
      // payment. A retry already at the processor is waited for. The overdue charge this post was made against (the
      // one its form was shown for, else `before`'s) may have been tried meanwhile (the same form posted twice at
      // once, or a billing pass): that attempt then stands for this post too, which saves its card, charges nothing
      // more, and reports that attempt's outcome (a double-click is charged, or declined, once).
      const overdue = shownOverdue ?? (before.status === "on_hold" ? Subscription.dueAttempt(before) : undefined)
      const triedMeanwhile = (current: Subscription.Subscription) =>
        overdue !== undefined &&
        (current.status !== "on_hold" || !Equal.equals(Subscription.dueAttempt(current), overdue))
      const reserve = transactions.transact(Effect.gen(function*() {
        const current = Option.getOrThrow(yield* subscriptionRepo.lock(id))
        const inFlight = current.status === "on_hold" ? yield* renewalInFlight(repos, current) : undefined
        if (inFlight !== undefined) return yield* new RenewalInFlight({ subscription_id: current.subscription_id, payment_id: inFlight })
        const now = yield* DateTime.now
        const transition = yield* Subscription.transition(current, { _tag: "ReplaceCard", card: saved.card }, now)
        yield* saveTransition(repos, transition)
        const next = transition.next
        // Set to end at its period end, what is due is its end, not a charge (`Subscription.dueAction`): billing
        // ends it at the retry's time, and the new card is only saved.
        if (next.status !== "on_hold" || Subscription.dueAction(next) !== "charge" || triedMeanwhile(current)) {
          return { subscription: next, retry: null, tried: triedMeanwhile(current) }
        }
        const paymentId = yield* newId<PaymentId>(prefixes.payment)
        const fresh = yield* subscriptionRepo.recordAttempt({
          subscription_id: next.subscription_id,
          ...Subscription.dueAttempt(next),
          payment_id: paymentId
        })
        if (!fresh) return { subscription: next, retry: null, tried: false }
        const retry = Subscription.renewalPayment(next, paymentId, now)
        yield* paymentRepo.insert(retry)
        return { subscription: next, retry, tried: false }
      }))
      // Waiting for a renewal at the processor stays interruptible; from the reservation on, the retry is carried through.
      const changed = yield* afterRenewalInFlight(reserveThenCall(reserve, (changed) =>
        Effect.as(changed.retry === null ? Effect.void : renewals.chargeOne(changed.retry, saved.card.token), changed)))
      if (changed.retry === null) {
        const attempt = changed.tried && overdue !== undefined
          ? (yield* subscriptionRepo.attempts(id)).find((a) => a.period === overdue.period && a.attempt === overdue.attempt)
          : undefined
        const tried = attempt === undefined ? Option.none() : yield* paymentRepo.get(scope, attempt.payment_id)
        return { subscription: changed.subscription, retry: Option.getOrNull(tried) } satisfies CardReplaced
      }
      const retry = yield* paymentRepo.find(changed.retry.payment_id)
      return { subscription: yield* subscriptions.get(scope, id), retry: Option.getOrNull(retry) } satisfies CardReplaced
    })

    return { replace } as const
  }),
  dependencies: [EventRecorder.Default, Renewals.Default, Subscriptions.Default, ClockTime.Default]
}) {}
