/**
 * Payments with their refunds.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { CheckoutSessionId, CustomerId, PaymentId, RefundId, SubscriptionId, TestClockId } from "../../domain/Ids.js"
import type { Page, PageRequest, Position } from "../../domain/Pagination.js"
import type { Payment, PaymentStatus } from "../../domain/Payment.js"
import type { Refund } from "../../domain/Refund.js"
import type { Op } from "./Op.js"

export interface PaymentFilter {
  readonly status?: PaymentStatus | undefined
  readonly customer_id?: CustomerId | undefined
  readonly checkout_session_id?: CheckoutSessionId | undefined
  readonly subscription_id?: SubscriptionId | undefined
  /** Created at or after this instant (the dashboard's date range). */
  readonly created_from?: DateTime.Utc | undefined
  /** Created before this instant. */
  readonly created_before?: DateTime.Utc | undefined
  /** Of exactly this total, in fils (the dashboard's search). */
  readonly amount?: number | undefined
  /** Paid with a card ending in these 4 digits (the dashboard's search). */
  readonly card_last4?: string | undefined
}

export interface PaymentsRepo {
  readonly insert: (payment: Payment) => Op<void>
  /** Several at once (a batch of renewals), in one statement. */
  readonly insertAll: (payments: ReadonlyArray<Payment>) => Op<void>
  readonly get: (scope: Scope, id: PaymentId) => Op<Option.Option<Payment>>
  /** By id alone, whatever its scope (the caller proves it: an operator, a refund's own payment). Never locks. */
  readonly find: (id: PaymentId) => Op<Option.Option<Payment>>
  /**
   * `find`, locking the row until the transaction ends (inside `transact`; outside, a plain read): what a change
   * reads first, so that changes to one payment take turns. docs/architecture.md "Lock order" says in what order.
   */
  readonly lock: (id: PaymentId) => Op<Option.Option<Payment>>
  /** `find` for several, in one statement: those that exist, by id. */
  readonly findAll: (ids: ReadonlyArray<PaymentId>) => Op<ReadonlyArray<Payment>>
  /** `lock` for several (a batch of charge outcomes): locked in id order, so two batches sharing one never deadlock. */
  readonly lockAll: (ids: ReadonlyArray<PaymentId>) => Op<ReadonlyArray<Payment>>
  readonly update: (payment: Payment) => Op<void>
  /** `update` for each of a batch, in one statement; on rows the transaction already locked (`lockAll`, a claim). */
  readonly updateAll: (payments: ReadonlyArray<Payment>) => Op<void>
  readonly list: (scope: Scope, filter: PaymentFilter, page: PageRequest) => Op<Page<Payment>>
  /**
   * The newest `limit` payments of each subscription named, in its own scope: each one's first `list` page (newest
   * first), one after another in the order named, in one statement (what plan changes asked together read).
   */
  readonly newestOfSubscriptions: (
    subscriptions: ReadonlyArray<{ readonly scope: Scope; readonly subscriptionId: SubscriptionId }>,
    limit: number
  ) => Op<ReadonlyArray<Payment>>
  /** Whether the session has a payment still `processing` (a second submission must wait for it). */
  readonly hasProcessing: (sessionId: CheckoutSessionId) => Op<boolean>
  /**
   * Payments still `processing`, oldest first, at most `limit`, only of mode `livemode` when given. A read, not a
   * claim: several servers may ask the processor about one payment at once, which is safe because each call
   * carries the payment's reference as its idempotency key and recording an outcome twice changes nothing. Only
   * the payments of test clock `clock` when given, else only those on the real time (`TestClockRepository`).
   */
  readonly listProcessing: (limit: number, livemode?: boolean, clock?: TestClockId) => Op<ReadonlyArray<Payment>>
  /**
   * Every payment of every account and mode created at or after `since`, oldest first by (created_at, id), after
   * `after` when given, at most `limit`: what reconciliation reads, page by page.
   */
  readonly since: (since: DateTime.Utc, after: Position | undefined, limit: number) => Op<ReadonlyArray<Payment>>
  /**
   * The scope's payments created on or after the local date `since` (`YYYY-MM-DD`, whole days in the account's time
   * zone), summed (the dashboard's home), with each local day's gross volume.
   */
  readonly summary: (scope: Scope, since: string) => Op<PaymentSummary>
}

/** Payments summed over a time range. Days are local dates in the account's zone (`YYYY-MM-DD`), only those with a payment. */
export interface PaymentSummary {
  /** Total of succeeded (and since refunded) payments. */
  readonly gross: number
  readonly fees: number
  readonly refunded: number
  readonly succeeded: number
  readonly failed: number
  readonly daily: ReadonlyArray<{ readonly day: string; readonly gross: number }>
}

export interface RefundsRepo {
  readonly insert: (refund: Refund) => Op<void>
  readonly update: (refund: Refund) => Op<void>
  /** By id. Never locks. */
  readonly find: (id: RefundId) => Op<Option.Option<Refund>>
  /** `find`, locking the row until the transaction ends (after its payment's), so that a refund is ended once. */
  readonly lock: (id: RefundId) => Op<Option.Option<Refund>>
  /** The refunds of a payment, oldest first. */
  readonly ofPayment: (id: PaymentId) => Op<ReadonlyArray<Refund>>
  /** Refunds still `pending`, oldest first, at most `limit` (a read: looking one up twice is harmless). */
  readonly listPending: (limit: number) => Op<ReadonlyArray<Refund>>
  /** As `PaymentsRepo.since`, for refunds. */
  readonly since: (since: DateTime.Utc, after: Position | undefined, limit: number) => Op<ReadonlyArray<Refund>>
  /** The scope's refunds, newest first, created in the range when given (the dashboard's exports). */
  readonly list: (scope: Scope, filter: RefundFilter, page: PageRequest) => Op<Page<Refund>>
}

export interface RefundFilter {
  /** Created at or after this instant. */
  readonly created_from?: DateTime.Utc | undefined
  /** Created before this instant. */
  readonly created_before?: DateTime.Utc | undefined
}

/** Payments with their refunds. */
export type PaymentRepositoryShape = PaymentsRepo & { readonly refunds: RefundsRepo }

export class PaymentRepository extends Context.Tag("fils/PaymentRepository")<PaymentRepository, PaymentRepositoryShape>() {}
