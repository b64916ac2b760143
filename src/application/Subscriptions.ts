/**
 * Subscriptions (docs/decisions.md §6): started by the first payment of a subscription checkout, renewed by `Billing`,
 * cancelled by the merchant. Every change goes with its events in one transaction.
 */
import { Data, DateTime, Effect, Option, Schedule, Schema } from "effect"
import type { Scope } from "../domain/Account.js"
import { notFound, RenewalInProgress } from "../domain/Errors.js"
import type { CustomerId, PaymentId, SubscriptionId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import type * as Payment from "../domain/Payment.js"
import * as Subscription from "../domain/Subscription.js"
import { Transactions } from "../ports/Transactions.js"
import type * as CheckoutSession from "../domain/CheckoutSession.js"
import type * as Discount from "../domain/Discount.js"
import type * as TaxDocument from "../domain/TaxDocument.js"
import type { CheckoutSessionRepositoryShape } from "../ports/repositories/CheckoutSessionRepository.js"
import { PaymentRepository, type PaymentRepositoryShape } from "../ports/repositories/PaymentRepository.js"
import type { ProductRepositoryShape } from "../ports/repositories/ProductRepository.js"
import { SubscriptionRepository, type SubscriptionRepositoryShape } from "../ports/repositories/SubscriptionRepository.js"
import { ClockTime } from "./ClockTime.js"
import { type EventDraft, EventRecorder } from "./Events.js"
import { newId } from "./Ids.js"

export interface SubscriptionListParams {
  readonly status?: Subscription.SubscriptionStatus | undefined
  readonly customer_id?: CustomerId | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

const encode = Schema.encodeSync(Subscription.SubscriptionResource)

/** `data` of a subscription event: the subscription as the API shows it. */
export const subscriptionData = (s: Subscription.Subscription): Record<string, unknown> => ({ ...encode(s) })

const scopeOf = (row: { readonly account_id: Scope["accountId"]; readonly livemode: boolean }): Scope => ({
  accountId: row.account_id,
  livemode: row.livemode
})

/** The events of a subscription's transition, to record with it. */
export const transitionEvents = (transition: Subscription.SubscriptionTransition): ReadonlyArray<EventDraft> =>
  transition.events.map((event) => ({
    scope: scopeOf(transition.next),
    type: Subscription.eventType(event),
    data: subscriptionData(transition.next)
  }))

/** Records the subscription and its events. Call inside the `transact` of the change. */
export const saveTransition = (
  repos: { readonly subscriptions: SubscriptionRepositoryShape; readonly recorder: EventRecorder },
  transition: Subscription.SubscriptionTransition,
  inserted = false
) =>
  Effect.zipRight(
    inserted ? repos.subscriptions.insert(transition.next) : repos.subscriptions.update(transition.next),
    repos.recorder.record(transitionEvents(transition))
  )

/**
 * The subscription a subscription checkout starts (inside its transaction): the cart's one recurring line, the
 * product's schedule, the session's trial, the card the customer gave, from `at` (the first payment's `paid_at`, or
 * when a free trial's card was saved). It renews at a period's lines: the first payment's (`firstLines`), or with a
 * trial the session's lines for a period after it. `undefined` when the session starts none.
 */
export const startFromSession = (
  repos: { readonly products: ProductRepositoryShape },
  session: CheckoutSession.CheckoutSession,
  props: {
    readonly customer: Subscription.Subscription["customer"]
    readonly card: Payment.CardOnFile
    readonly at: DateTime.Utc
    readonly firstLines: TaxDocument.TaxLines | null
    /** The discount codes the checkout redeemed (a trial's took nothing off it). */
    readonly discounts: ReadonlyArray<Discount.AppliedDiscount>
  }
) =>
  Effect.gen(function*() {
    if (session.kind !== "subscription") return undefined
    const line = session.product_cart[0]!
    const product = yield* repos.products.get(scopeOf(session), line.product_id)
    if (Option.isNone(product) || product.value.billing_interval === null) return undefined
    return Subscription.start({
      id: yield* newId<SubscriptionId>(prefixes.subscription),
      accountId: session.account_id,
      livemode: session.livemode,
      product: {
        product_id: line.product_id,
        name: line.name,
        billing_interval: product.value.billing_interval,
        interval_count: product.value.interval_count ?? 1
      },
      quantity: line.quantity,
      // The price the customer agreed to at checkout: a later price change applies only to later checkouts.
      unitAmount: line.unit_amount,
      taxLines: session.trial_period_days === null ? props.firstLines : session.period_tax_lines,
      discounts: props.discounts,
      currency: session.currency,
      customer: props.customer,
      card: props.card,
      checkoutSessionId: session.session_id,
      metadata: session.metadata,
      paidAt: props.at,
      trialDays: session.trial_period_days ?? 0
    })
  })

/**
 * The subscription a succeeded first payment starts (inside its transaction), with the card just used. Returns the
 * subscription's transition, or `undefined` when the payment starts none.
 */
export const startFromPayment = (
  repos: { readonly sessions: CheckoutSessionRepositoryShape; readonly products: ProductRepositoryShape },
  payment: Payment.Payment
) =>
  Effect.gen(function*() {
    if (payment.checkout_session_id === null || payment.card === null || payment.customer === null) return undefined
    const session = yield* repos.sessions.lock(payment.checkout_session_id)
    if (Option.isNone(session)) return undefined
    return yield* startFromSession(repos, session.value, {
      customer: { customer_id: payment.customer.customer_id, name: payment.customer.name, email: payment.customer.email },
      card: payment.card,
      at: payment.paid_at ?? (yield* DateTime.now),
      firstLines: payment.tax_lines,
      discounts: payment.discounts
    })
  })

/**
 * A renewal charge of the subscription (`payment_id`) is at the processor: a cancellation (or a new card) waits for
 * its outcome.
 */
export class RenewalInFlight extends Data.TaggedError("RenewalInFlight")<{
  readonly subscription_id: SubscriptionId
  readonly payment_id: PaymentId
}> {}

/**
 * The charge for the due period's current attempt (or a plan change's charge), if it was reserved and is still
 * `processing` (at the processor, or abandoned there and not yet asked again); `undefined` otherwise. Ending the subscription meanwhile would let that charge, if it
 * succeeds, pay for a period that never starts: a cancellation waits for it. (An end at the period end waits too:
 * billing's claim leaves such a subscription out, `claimDue`.)
 */
export const renewalInFlight = (
  repos: { readonly subscriptions: SubscriptionRepositoryShape; readonly payments: PaymentRepositoryShape },
  sub: Subscription.Subscription
) =>
  Effect.gen(function*() {
    // A plan change's charge is such a charge too: paid, it starts a period (PlanChange.settle).
    if (sub.pending_change !== null) return sub.pending_change.payment_id
    const attempts = yield* repos.subscriptions.attempts(sub.subscription_id)
    const due = Subscription.dueAttempt(sub)
    const current = attempts.find((a) => a.period === due.period && a.attempt === due.attempt)
    if (current === undefined) return undefined
    // Read without a lock (`get`, never `find`/`findAll`, which lock inside a transaction): the caller holds the
    // subscription's, and recording a charge takes the payment's then the subscription's, so locking the payment
    // here deadlocks with it on PostgreSQL. That record cannot commit meanwhile.
    const payment = yield* repos.payments.get({ accountId: sub.account_id, livemode: sub.livemode }, current.payment_id)
    return Option.isSome(payment) && payment.value.status === "processing" ? current.payment_id : undefined
  })

/**
 * How long a cancellation waits for an in-flight renewal before 409: 75 tries 200 ms apart, about 15 s. Counted, not
 * timed: on a test clock's time (`ClockTime`) the clock stands still, and a timed wait would never end.
 */
const waitForRenewal = Schedule.intersect(Schedule.spaced("200 millis"), Schedule.recurs(75))

/**
 * Runs `change` (a transaction that fails with `RenewalInFlight` when it meets a renewal charge at the processor)
 * again until that charge has an outcome; a processor stuck past the wait is `RenewalInProgress` (409).
 */
export const afterRenewalInFlight = <A, E, R>(change: Effect.Effect<A, E | RenewalInFlight, R>) =>
  change.pipe(
    Effect.retry({ schedule: waitForRenewal, while: (e) => e instanceof RenewalInFlight }),
    Effect.catchIf((e): e is RenewalInFlight => e instanceof RenewalInFlight, (e) =>
      new RenewalInProgress({ subscription_id: e.subscription_id, payment_id: e.payment_id }))
  )

export class Subscriptions extends Effect.Service<Subscriptions>()("fils/Subscriptions", {
  effect: Effect.gen(function*() {
    const subscriptionRepo = yield* SubscriptionRepository
    const transactions = yield* Transactions
    const repos = { subscriptions: subscriptionRepo, payments: yield* PaymentRepository, recorder: yield* EventRecorder }
    const clockTime = yield* ClockTime

    const get = Effect.fn("Subscriptions.get")(function*(scope: Scope, id: SubscriptionId) {
      const found = yield* subscriptionRepo.get(scope, id)
      return Option.isSome(found) ? found.value : yield* notFound("subscription", id)
    })

    const list = Effect.fn("Subscriptions.list")(function*(scope: Scope, params: SubscriptionListParams) {
      const filter = { status: params.status, customer_id: params.customer_id }
      const key = Pagination.listKey("subscriptions", filter)
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* subscriptionRepo.list(scope, filter, page)
      return Pagination.toList(key, result, Subscription.position)
    })

    /**
     * `PATCH`: cancel now, or set/undo cancellation at the period end (docs/decisions.md §6). A cancellation that meets a
     * renewal charge at the processor waits for its outcome, then cancels: cancelling first would let that charge,
     * if it succeeds, pay for a period that never starts. Only a processor stuck past the wait answers 409. On the time
     * the subscription lives on (`ClockTime`).
     */
    const update = (scope: Scope, id: SubscriptionId, patch: Subscription.SubscriptionUpdate) =>
      scope.livemode ? updateNow(scope, id, patch) : Effect.flatMap(subscriptionRepo.get(scope, id), Option.match({
        onNone: () => updateNow(scope, id, patch),
        onSome: (s) => clockTime.onTimeOf({ livemode: s.livemode, customer_id: s.customer.customer_id })(updateNow(scope, id, patch))
      }))
    const updateNow = Effect.fn("Subscriptions.update")(
      function*(scope: Scope, id: SubscriptionId, patch: Subscription.SubscriptionUpdate) {
        const command = yield* Subscription.commandOf(patch)
        return yield* afterRenewalInFlight(transactions.transact(Effect.gen(function*() {
          yield* get(scope, id)
          const current = Option.getOrThrow(yield* subscriptionRepo.lock(id))
          const inFlight = command._tag === "Cancel" && current.status !== "cancelled"
            ? yield* renewalInFlight(repos, current)
            : undefined
          if (inFlight !== undefined) return yield* new RenewalInFlight({ subscription_id: current.subscription_id, payment_id: inFlight })
          const transition = yield* Subscription.transition(current, command, yield* DateTime.now)
          if (transition.next !== current) yield* saveTransition(repos, transition)
          return transition.next
        })))
      }
    )

    return { get, list, update } as const
  }),
  dependencies: [EventRecorder.Default, ClockTime.Default]
}) {}
