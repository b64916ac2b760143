/**
 * Subscriptions with their renewal attempts.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { CustomerId, PaymentId, SubscriptionId, TestClockId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { Subscription, SubscriptionStatus } from "../../domain/Subscription.js"
import type { Op } from "./Op.js"

export interface SubscriptionFilter {
  readonly status?: SubscriptionStatus | undefined
  readonly customer_id?: CustomerId | undefined
}

/** One charge of a subscription: the renewal of `period` (attempt 0) or one of its retries (1, 2, 3). */
export interface RenewalAttempt {
  readonly subscription_id: SubscriptionId
  readonly period: number
  readonly attempt: number
  readonly payment_id: PaymentId
}

export interface SubscriptionsRepo {
  readonly insert: (subscription: Subscription) => Op<void>
  readonly get: (scope: Scope, id: SubscriptionId) => Op<Option.Option<Subscription>>
  /** By id alone (billing), whatever its scope. Never locks. */
  readonly find: (id: SubscriptionId) => Op<Option.Option<Subscription>>
  /** `find`, locking the row until the transaction ends (inside `transact`; outside, a plain read). */
  readonly lock: (id: SubscriptionId) => Op<Option.Option<Subscription>>
  /** `find` for several, in one statement: those that exist, by id. */
  readonly findAll: (ids: ReadonlyArray<SubscriptionId>) => Op<ReadonlyArray<Subscription>>
  /** `lock` for several, in one statement, locked in id order. */
  readonly lockAll: (ids: ReadonlyArray<SubscriptionId>) => Op<ReadonlyArray<Subscription>>
  readonly update: (subscription: Subscription) => Op<void>
  /** `update` for each of a batch, in one statement; on rows the transaction already locked (`lockAll`, a claim). */
  readonly updateAll: (subscriptions: ReadonlyArray<Subscription>) => Op<void>
  readonly list: (scope: Scope, filter: SubscriptionFilter, page: PageRequest) => Op<Page<Subscription>>
  /**
   * Subscriptions with work due at `now`: `active` ones whose `next_billing_date` is at or before it, `on_hold`
   * ones whose `next_retry_at` is; earliest due first, at most `limit`, only of mode `livemode` when given. Not
   * those whose due attempt (period + 1, `failed_payment_attempts`) is already recorded: that charge is at the
   * processor on some server, and a claimer that took them would find nothing to do while other work waits; nor
   * those whose plan change waits for its charge (`pending_change`), which decides first. Inside
   * `transact` they are locked and skipped by other claimers (`SKIP LOCKED`). Only the subscriptions of test clock
   * `clock` when given, else only those on the real time: a clock's work runs when the clock is advanced.
   */
  readonly claimDue: (
    now: DateTime.Utc,
    limit: number,
    livemode?: boolean,
    clock?: TestClockId
  ) => Op<ReadonlyArray<Subscription>>
  /**
   * Records that `attempt` of `period` is being charged, once: false when it was recorded before (by this or any
   * other server). The store guarantees this with a uniqueness rule, so a period's attempt is never charged twice.
   */
  readonly recordAttempt: (attempt: RenewalAttempt) => Op<boolean>
  /** `recordAttempt` for each of a batch, in one statement: whether each was recorded here, in order. */
  readonly recordAttempts: (attempts: ReadonlyArray<RenewalAttempt>) => Op<ReadonlyArray<boolean>>
  /** The attempts recorded for a subscription, by period then attempt. */
  readonly attempts: (id: SubscriptionId) => Op<ReadonlyArray<RenewalAttempt>>
  /**
   * What a period of each of the scope's subscriptions in recurring revenue brings in (`Subscription.inRecurringRevenue`,
   * `Subscription.periodRevenue`), summed by schedule (for monthly recurring revenue).
   */
  readonly recurring: (scope: Scope) => Op<ReadonlyArray<{
    readonly billing_interval: Subscription["billing_interval"]
    readonly interval_count: number
    readonly subscriptions: number
    readonly amount: number
  }>>
  /** How many of the scope's subscriptions were created at or after `from` and before `before` (the home's "new"). */
  readonly countCreated: (scope: Scope, from: DateTime.Utc, before: DateTime.Utc) => Op<number>
  /**
   * Records the scope's monthly recurring revenue as read `at`, on local `day` (`YYYY-MM-DD`), replacing that day's
   * reading unless the one stored was read later (two readings at once keep the later, whichever writes last).
   */
  readonly recordMonthlyRevenue: (scope: Scope, reading: MonthlyRevenueDay, at: DateTime.Utc) => Op<void>
  /** The latest reading recorded on or before local `day`, if any. */
  readonly monthlyRevenueOn: (scope: Scope, day: string) => Op<Option.Option<MonthlyRevenueDay>>
}

/** Monthly recurring revenue as it stood on a local day, and how many subscriptions made it. */
export interface MonthlyRevenueDay {
  readonly day: string
  readonly mrr: number
  readonly subscriptions: number
}

/** Subscriptions with their renewal attempts. */
export type SubscriptionRepositoryShape = SubscriptionsRepo

export class SubscriptionRepository extends Context.Tag("fils/SubscriptionRepository")<SubscriptionRepository, SubscriptionRepositoryShape>() {}
