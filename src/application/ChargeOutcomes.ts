/**
 * ChargeOutcomes: what the processor said about charges, turned into state in one transaction. For each payment still
 * `processing`: its transition (`Payment.transition`), then its subscription's start (a subscription's first
 * payment: `Subscription.start`), renewal (a renewal's outcome: `Subscription.transition`) or plan change (a plan
 * change's charge: `PlanChange.settle`), then its checkout session's completion (`CheckoutSession.transition`), with every event they emit. The one place a payment's charge
 * changes state, whoever learned the outcome: the checkout, billing, or the lookup pass.
 */
import { DateTime, Effect, FiberRef, Option } from "effect"
import * as CheckoutSession from "../domain/CheckoutSession.js"
import * as Discount from "../domain/Discount.js"
import { notFound } from "../domain/Errors.js"
import type { PaymentId } from "../domain/Ids.js"
import * as Payment from "../domain/Payment.js"
import * as PlanChange from "../domain/PlanChange.js"
import * as Subscription from "../domain/Subscription.js"
import type { Movement } from "../ports/PaymentProcessor.js"
import { Transactions } from "../ports/Transactions.js"
import { CheckoutSessionRepository } from "../ports/repositories/CheckoutSessionRepository.js"
import { DiscountRepository } from "../ports/repositories/DiscountRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { batchedCalls } from "./Batched.js"
import { CurrentRequestId, type EventDraft, EventRecorder, paymentDrafts } from "./Events.js"
import * as Event from "../domain/Event.js"
import { Settings } from "./Settings.js"
import { startFromPayment, transitionEvents } from "./Subscriptions.js"
import { type Paid, TaxDocuments } from "./TaxDocuments.js"
import { onOtherTime } from "./Time.js"

/** A charge's result, as the processor reported it. */
export interface ChargeReport {
  readonly outcome: Payment.ChargeOutcome
  readonly chargeId: string | null
  readonly card: Payment.CardOnFile | null
}

/**
 * What a lookup of a payment's reference says about its charge: nothing under it means nothing was taken (the
 * payment fails, `processing_error`); `undefined` when the answer is not about a charge.
 */
export const lookedUpCharge = (found: Option.Option<Movement>): ChargeReport | undefined =>
  Option.match(found, {
    onNone: () => ({ outcome: { _tag: "Failed", code: "processing_error" }, chargeId: null, card: null }),
    onSome: (movement) =>
      movement._tag === "Charge" ? { outcome: movement.outcome, chargeId: movement.chargeId, card: movement.card } : undefined
  })



/**
 * The drafts of outcomes gathered from several requests, each with the request that learned its payment's outcome:
 * an event about that payment, or about its subscription, is that request's. (Recorded in a caller's own fiber, a
 * report names no request and its events take the fiber's.)
 */
const requestsOf = (
  reports: ReadonlyArray<{ readonly id: PaymentId; readonly requestId?: string | null }>,
  payments: ReadonlyMap<PaymentId, Payment.Payment>,
  drafts: ReadonlyArray<EventDraft>
): ReadonlyArray<EventDraft> => {
  const byObject = new Map<string, string | null>()
  for (const { id, requestId } of reports) {
    if (requestId === undefined) continue
    byObject.set(id, requestId)
    const subscription = payments.get(id)?.subscription_id
    if (subscription !== undefined && subscription !== null) byObject.set(subscription, requestId)
  }
  if (byObject.size === 0) return drafts
  return drafts.map((draft) => {
    const about = Event.subjects(draft)
    const requestId = byObject.get(about.payment_id ?? "") ?? byObject.get(about.subscription_id ?? "") ?? null
    return { ...draft, requestId }
  })
}

/** At most this many outcomes per gathered `record` (`recordGathered`). */
const gatherMax = 100

/** The outcome of a charge its subscription's credit pays in full (`Payment.paidByCredit`): nothing asked of the card. */
export const paidByCredit: ChargeReport = { outcome: { _tag: "Succeeded" }, chargeId: null, card: null }

export class ChargeOutcomes extends Effect.Service<ChargeOutcomes>()("fils/ChargeOutcomes", {
  scoped: Effect.gen(function*() {
    const paymentRepo = yield* PaymentRepository
    const sessionRepo = yield* CheckoutSessionRepository
    const discountRepo = yield* DiscountRepository
    const productRepo = yield* ProductRepository
    const subscriptionRepo = yield* SubscriptionRepository
    const transactions = yield* Transactions
    const recorder = yield* EventRecorder
    const taxDocuments = yield* TaxDocuments
    const { fees } = yield* Settings

    /**
     * Records charges' outcomes on `processing` payments, in one transaction with their events, their renewals'
     * effects on their subscriptions and, for a succeeded checkout charge, its session's completion: a handful of
     * statements however many there are (a batch of renewals). A payment that already left `processing` is left
     * alone (another server recorded it first), so recording twice is harmless. Returns the payments found, as
     * they are after, in the order given; an unknown id is left out. The payments are locked first, then what
     * they move (docs/architecture.md, "Lock order").
     */
    const record = Effect.fn("ChargeOutcomes.record")(function*(
      reports: ReadonlyArray<{ readonly id: PaymentId; readonly report: ChargeReport; readonly requestId?: string | null }>
    ) {
      if (reports.length === 0) return []
      return yield* transactions.transact(Effect.gen(function*() {
        const latest = new Map((yield* paymentRepo.lockAll(reports.map((r) => r.id))).map((p) => [p.payment_id, p]))
        const now = yield* DateTime.now
        const results: Array<Payment.Payment> = []
        const changed: Array<{
          readonly current: Payment.Payment
          readonly next: Payment.Payment
          readonly events: Payment.PaymentTransition["events"]
          readonly started: Subscription.SubscriptionTransition | undefined
        }> = []
        for (const { id, report } of reports) {
          const current = latest.get(id)
          if (current === undefined) continue
          if (current.status !== "processing") {
            // Money taken for a payment already failed (an abandoned charge judged lost): only a person can settle it.
            if (report.outcome._tag === "Succeeded" && current.status === "failed") {
              yield* Effect.logWarning("A charge succeeded for a payment already recorded as failed: refund or reconcile it", {
                payment_id: id,
                charge_id: report.chargeId,
                failure_code: current.failure_code
              })
            }
            results.push(current)
            continue
          }
          const transition = yield* Payment.transition(current, {
            _tag: "Settle",
            outcome: report.outcome,
            chargeId: report.chargeId,
            card: report.card
          }, now, fees)
          // The first payment of a subscription checkout starts the subscription, in this same transaction.
          const started = transition.next.status === "succeeded" && current.billing_reason === "subscription_create"
            ? yield* startFromPayment({ sessions: sessionRepo, products: productRepo }, transition.next)
            : undefined
          const next = started === undefined ? transition.next : (yield* Payment.transition(transition.next, {
            _tag: "AttachSubscription",
            subscriptionId: started.next.subscription_id
          }, now)).next
          latest.set(id, next)
          results.push(next)
          changed.push({ current, next, events: transition.events, started })
        }
        yield* paymentRepo.updateAll(changed.map((c) => c.next))

        // A renewal's outcome moves its subscription on (unless it was cancelled meanwhile), and a plan change's
        // charge makes (or drops) its change; a charge still `processing` (settling later) is no outcome yet.
        const moves = (c: (typeof changed)[number], reason: Payment.BillingReason) =>
          c.current.billing_reason === reason && c.next.status !== "processing" ? c.next.subscription_id : null
        const renewing = (c: (typeof changed)[number]) => moves(c, "subscription_renewal")
        const changing = (c: (typeof changed)[number]) => moves(c, "subscription_update")
        const subscriptions = new Map(
          (yield* subscriptionRepo.lockAll(changed.flatMap((c) => renewing(c) ?? changing(c) ?? [])))
            .map((s) => [s.subscription_id, s])
        )
        // The codes a plan change's charge held a use of, known from its change while still pending.
        const changeCodes = new Map(changed.map((c) => {
          const sub = subscriptions.get(changing(c) ?? ("" as Subscription.Subscription["subscription_id"]))
          return [c.current.payment_id, sub === undefined ? [] : PlanChange.redeemedBy(sub, c.current.payment_id)] as const
        }))
        const renewed = new Set<Subscription.Subscription["subscription_id"]>()
        const drafts: Array<EventDraft> = []
        const paid: Array<Paid> = []
        for (const c of changed) {
          const { current, events, next, started } = c
          drafts.push(...paymentDrafts(events, next))
          if (started !== undefined) {
            yield* subscriptionRepo.insert(started.next)
            drafts.push(...transitionEvents(started))
          }
          const renewal = renewing(c)
          const subscription = renewal === null ? undefined : subscriptions.get(renewal)
          if (subscription !== undefined && subscription.status !== "cancelled") {
            const command: Subscription.SubscriptionCommand = next.status === "succeeded"
              ? { _tag: "ChargeSucceeded", creditApplied: next.credit_applied }
              : { _tag: "ChargeFailed" }
            const transition = yield* Subscription.transition(subscription, command, now)
            subscriptions.set(subscription.subscription_id, transition.next)
            renewed.add(subscription.subscription_id)
            drafts.push(...transitionEvents(transition))
          }
          const change = changing(c)
          const changedSub = change === null ? undefined : subscriptions.get(change)
          const settled = changedSub === undefined
            ? undefined
            : PlanChange.settle(changedSub, next.payment_id, next.status === "succeeded", now)
          if (settled !== undefined) {
            subscriptions.set(settled.next.subscription_id, settled.next)
            renewed.add(settled.next.subscription_id)
            drafts.push(...transitionEvents(settled))
          }
          if (next.status === "succeeded") {
            // The period it pays for: the one it starts, or the one a renewal or a plan change moved its
            // subscription into.
            const paidFor = started?.next ??
              (renewal === null ? (settled === undefined ? undefined : settled.next) : subscriptions.get(renewal))
            paid.push({
              payment: next,
              period: paidFor === undefined
                ? null
                : { start: paidFor.current_period_start, end: paidFor.next_billing_date }
            })
          }
          if (next.status === "succeeded" && current.checkout_session_id !== null) {
            const session = yield* sessionRepo.lock(current.checkout_session_id)
            const completed = Option.flatMap(session, (found) =>
              Option.getRight(CheckoutSession.transition(found, {
                _tag: "Complete",
                paymentId: next.payment_id,
                subscriptionId: started?.next.subscription_id ?? null,
                payer: next.customer
              }, now)))
            // A session already complete (or expired) stays as it is.
            if (Option.isSome(completed)) yield* sessionRepo.update(completed.value)
          }
        }
        yield* subscriptionRepo.updateAll([...renewed].map((id) => subscriptions.get(id)!))
        // The discount codes a checkout's charge held a use of: counted if it succeeded, given back if it failed.
        // Locked after the payments and sessions that redeem them (docs/architecture.md, "Lock order").
        const settled = changed.filter((c) => c.next.status !== "processing")
        const redeemed = (c: (typeof changed)[number]) => [...Payment.redeemedDiscounts(c.current), ...changeCodes.get(c.current.payment_id) ?? []]
        const held = settled.flatMap(redeemed)
        if (held.length > 0) {
          const discounts = new Map((yield* discountRepo.lockAll(held)).map((d) => [d.discount_id, d]))
          for (const c of settled) {
            for (const id of redeemed(c)) {
              const d = discounts.get(id)
              if (d !== undefined) discounts.set(id, Discount.release(d, c.next.status === "succeeded"))
            }
          }
          yield* Effect.forEach(discounts.values(), (d) => discountRepo.update(d), { discard: true })
        }
        // Their invoices, numbered last: a series' counter is the last lock these transactions take.
        drafts.push(...(yield* taxDocuments.issueInvoices(paid)))
        yield* recorder.record(requestsOf(reports, latest, drafts))
        return results
      }))
    })

    /** `record` for one: the payment as it is after. */
    const recordOne = Effect.fn("ChargeOutcomes.recordOne")(function*(id: PaymentId, report: ChargeReport) {
      const [payment] = yield* record([{ id, report }])
      return payment ?? (yield* notFound("payment", id))
    })

    // Outcomes learned at the same time (the saved-card charges of concurrent requests) go in one `record`, one
    // transaction at a time; each caller gets its own payment.
    const gathered = yield* batchedCalls(
      (reports: ReadonlyArray<{ readonly id: PaymentId; readonly report: ChargeReport; readonly requestId: string | null }>) =>
        Effect.map(record(reports), (payments) => {
          const after = new Map(payments.map((p) => [p.payment_id, p]))
          return reports.map((r) => Option.fromNullable(after.get(r.id)))
        }),
      { max: gatherMax }
    )

    /**
     * `recordOne`, in one transaction with the outcomes other requests learn meanwhile (a request's saved-card charge
     * would otherwise cost a transaction of its own); inside a caller's transaction, in that one (a batch runs on a
     * connection of its own, and would not see the caller's payment), and on a test clock's time on its own (a
     * batch runs on the real time).
     */
    const recordGathered = (id: PaymentId, report: ChargeReport) =>
      Effect.flatMap(Effect.zipWith(transactions.inTransaction, onOtherTime, (inside, clocked) => inside || clocked), (alone) =>
        alone
          ? recordOne(id, report)
          : Effect.flatMap(Effect.flatMap(FiberRef.get(CurrentRequestId), (requestId) => gathered({ id, report, requestId })), Option.match({
            onNone: () => Effect.fail(notFound("payment", id)),
            onSome: Effect.succeed
          })))

    return { record, recordOne, recordGathered, fees } as const
  }),
  dependencies: [EventRecorder.Default, TaxDocuments.Default]
}) {}
