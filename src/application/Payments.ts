/**
 * Payments: read them, refund them (an operator's act: there is no public refund endpoint; see `Refunds`), and the
 * lookup pass, which asks the processor about every charge and refund whose outcome is not known yet.
 */
import { DateTime, Effect } from "effect"
import type { Scope } from "../domain/Account.js"
import { notFound } from "../domain/Errors.js"
import type { CheckoutSessionId, CustomerId, PaymentId, SubscriptionId, TestClockId } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import * as Payment from "../domain/Payment.js"
import * as Refund from "../domain/Refund.js"
import { PaymentProcessor } from "../ports/PaymentProcessor.js"
import { readSearch } from "../domain/PaymentSearch.js"
import { CustomerRepository } from "../ports/repositories/CustomerRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { batchedReads } from "./Batched.js"
import { LookupBackoff } from "./Lookups.js"
import { Refunds } from "./Refunds.js"
import { lookedUpCharge, ChargeOutcomes, paidByCredit } from "./ChargeOutcomes.js"
import { whenTraced } from "./Spans.js"

export interface PaymentListParams {
  readonly status?: Payment.PaymentStatus | undefined
  readonly customer_id?: CustomerId | undefined
  readonly checkout_session_id?: CheckoutSessionId | undefined
  /** The payments of one subscription (the dashboard's subscription page; not part of the HTTP API). */
  readonly subscription_id?: SubscriptionId | undefined
  /** Created at or after / before these instants (the dashboard's date range; not part of the HTTP API). */
  readonly created_from?: DateTime.Utc | undefined
  readonly created_before?: DateTime.Utc | undefined
  /** Of exactly this total, and paid with a card ending in these digits (the dashboard's search; not the API's). */
  readonly amount?: number | undefined
  readonly card_last4?: string | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** Payments read in one statement at most. */
const readBatch = 100

/**
 * How long a `processing` payment may lack a charge id, or a refund stay `pending`, before the lookup pass looks
 * it up: its own call answers sooner unless its process died or the processor's answer was lost. (A lookup that
 * finds nothing closes the reference, so looking up a call still on its way fails that call rather than racing it.)
 */
const lookupAfterMillis = 60_000

export class Payments extends Effect.Service<Payments>()("fils/Payments", {
  scoped: Effect.gen(function*() {
    const paymentRepo = yield* PaymentRepository
    const customerRepo = yield* CustomerRepository
    const processor = yield* PaymentProcessor
    const outcomes = yield* ChargeOutcomes
    const refunds = yield* Refunds
    const { fees } = outcomes
    // Payments read together (merchants polling a status) share one statement.
    const read = yield* batchedReads(paymentRepo.findAll, (p) => p.payment_id, { max: readBatch })
    const backoff = new LookupBackoff()

    /** The payment as committed: read in a batch, outside any transaction the caller may be running. */
    const get = whenTraced("Payments.get", Effect.fnUntraced(function*(scope: Scope, id: PaymentId) {
      const [found] = yield* read(scope, [id])
      return found ?? (yield* notFound("payment", id))
    }))

    /** A payment's refunds, oldest first (each with its reason): its timeline's. */
    const refundsOf = Effect.fn("Payments.refundsOf")(function*(scope: Scope, id: PaymentId) {
      yield* get(scope, id)
      return yield* paymentRepo.refunds.ofPayment(id)
    })

    /** The scope's refunds, newest first, created in the range when given (the dashboard's refunds export). */
    const listRefunds = Effect.fn("Payments.listRefunds")(function*(
      scope: Scope,
      params: Pick<PaymentListParams, "created_from" | "created_before" | "limit" | "cursor">,
      maxLimit = Pagination.maxLimit
    ) {
      const filter = { created_from: params.created_from, created_before: params.created_before }
      // A cursor belongs to its range.
      const key = Pagination.listKey("refunds", {
        created_from: filter.created_from === undefined ? undefined : DateTime.formatIso(filter.created_from),
        created_before: filter.created_before === undefined ? undefined : DateTime.formatIso(filter.created_before)
      })
      const page = yield* Pagination.pageRequest(key, params, maxLimit)
      return Pagination.toList(key, yield* paymentRepo.refunds.list(scope, filter, page), Refund.position)
    })

    /** `maxLimit`: the largest page asked for (the API's 100; the dashboard's exports read larger pages). */
    const list = whenTraced("Payments.list", Effect.fnUntraced(function*(scope: Scope, params: PaymentListParams, maxLimit = Pagination.maxLimit) {
      const filter = {
        status: params.status,
        customer_id: params.customer_id,
        checkout_session_id: params.checkout_session_id,
        subscription_id: params.subscription_id,
        created_from: params.created_from,
        created_before: params.created_before,
        amount: params.amount,
        card_last4: params.card_last4
      }
      // A cursor belongs to its filters, the date range included.
      const key = Pagination.listKey("payments", {
        status: filter.status,
        customer_id: filter.customer_id,
        checkout_session_id: filter.checkout_session_id,
        subscription_id: filter.subscription_id,
        created_from: filter.created_from === undefined ? undefined : DateTime.formatIso(filter.created_from),
        created_before: filter.created_before === undefined ? undefined : DateTime.formatIso(filter.created_before),
        amount: filter.amount === undefined ? undefined : String(filter.amount),
        card_last4: filter.card_last4
      })
      const page = yield* Pagination.pageRequest(key, params, maxLimit)
      const result = yield* paymentRepo.list(scope, filter, page)
      return Pagination.toList(key, result, Payment.position)
    }))

    /**
     * The payments a merchant's search finds (`readSearch` says how the text is read), newest first, within `params`'
     * other filters: an id finds its payment, an e-mail its newest customer's payments, four digits the card's, an
     * amount the payments of that total. What it cannot read finds nothing, and says so (`term`).
     */
    const search = Effect.fn("Payments.search")(function*(scope: Scope, typed: string, params: PaymentListParams) {
      const term = readSearch(typed)
      const none = { term, items: [] as ReadonlyArray<Payment.Payment>, next_cursor: null as string | null }
      switch (term._tag) {
        case "Everything":
          return { term, ...(yield* list(scope, params)) }
        case "Unreadable":
          return none
        case "PaymentId": {
          // Not found is an empty result; a store that cannot be reached is not.
          const found = yield* get(scope, term.id).pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
          return found === undefined ? none : { ...none, items: [found] }
        }
        case "Email": {
          const customer = (yield* customerRepo.list(scope, { email: term.email }, { limit: 1, after: undefined })).items[0]
          return customer === undefined ? none : { term, ...(yield* list(scope, { ...params, customer_id: customer.customer_id })) }
        }
        case "CardLast4":
          return { term, ...(yield* list(scope, { ...params, card_last4: term.last4 })) }
        case "Amount":
          return { term, ...(yield* list(scope, { ...params, amount: term.amount })) }
      }
    })

    /**
     * Refunds `amount` fils of a payment (default: all that remains) through the processor (`Refunds.create`):
     * `refund.succeeded` once the processor confirms.
     */
    const refund = refunds.create

    /**
     * Asks the processor about charges still `processing` and records those it can tell about: a charge settling
     * later (it has a charge id) on every pass, and one whose answer is missing (its process died, or the
     * processor's answer was lost) once it is a minute old. Then refunds still pending after a minute. What the
     * processor did under the reference is what is recorded: a charge taken succeeds, nothing taken fails
     * (`processing_error`); nothing is ever charged again under a new reference. A processor that does not answer
     * is asked again later, waiting longer each time (`LookupBackoff`). `judgeAbandoned: false` (a pass run as of
     * another instant, `billing run --at`) asks only about charges settling later.
     */
    const resolvePending = Effect.fn("Payments.resolvePending")(function*(
      limit = 100,
      livemode?: boolean,
      options: { readonly judgeAbandoned?: boolean; readonly clock?: TestClockId | undefined } = {}
    ) {
      const judge = options.judgeAbandoned !== false
      const pending = yield* paymentRepo.listProcessing(limit, livemode, options.clock)
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      const asking = pending.filter((p) =>
        (p.charge_id !== null || (judge && now - DateTime.toEpochMillis(p.created_at) >= lookupAfterMillis)) &&
        backoff.due(p.payment_id, now)
      )
      const answers = yield* Effect.forEach(asking, (payment) =>
        // Paid in full by credit: the card was never to be charged, so there is nothing to look up.
        Payment.paidByCredit(payment) ? Effect.succeed([{ id: payment.payment_id, report: paidByCredit }]) :
        processor.lookup(payment.payment_id).pipe(
          Effect.map((found) => {
            backoff.answered(payment.payment_id)
            const report = lookedUpCharge(found)
            return report === undefined || report.outcome._tag === "Processing" ? [] : [{ id: payment.payment_id, report }]
          }),
          Effect.catchTag("ProcessorUnavailable", () =>
            Effect.sync(() => {
              backoff.missed(payment.payment_id, now)
              return []
            }))
        ), { concurrency: 10 })
      const recorded = yield* outcomes.record(answers.flat())
      const refundsEnded = judge
        ? yield* refunds.resolvePending(limit, lookupAfterMillis, (id) => backoff.due(id, now)).pipe(
          Effect.map((results) => {
            for (const { done, id } of results) done ? backoff.answered(id) : backoff.missed(id, now)
            return results.filter((r) => r.done).length
          })
        )
        : 0
      backoff.prune(now)
      return recorded.length + refundsEnded
    })

    return { get, list, listRefunds, search, refund, refundsOf, resolvePending, fees } as const
  }),
  dependencies: [Refunds.Default, ChargeOutcomes.Default]
}) {}
