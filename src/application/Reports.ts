/**
 * What the dashboard's home shows: a scope's volume, fees, refunds and payment counts over the last 7, 30
 * or 90 days, with each day's gross volume, and its active subscriptions with their monthly recurring revenue.
 * Days are the account's local days (its time zone, today included). Sums are the store's (one grouped statement
 * each); this module only shapes them.
 */
import { DateTime, Effect, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import type { BillingInterval } from "../domain/Product.js"
import { addDays, defaultTimeZone, localDay, startOfDay } from "../domain/TimeZone.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { type MonthlyRevenueDay, SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"

export const periods = [7, 30, 90] as const
export type Period = (typeof periods)[number]

/** How many times a schedule bills in an average month. */
const perMonth = (interval: BillingInterval, count: number): number => {
  switch (interval) {
    case "day":
      return 365.25 / 12 / count
    case "week":
      return 365.25 / 7 / 12 / count
    case "month":
      return 1 / count
    case "year":
      return 1 / (12 * count)
  }
}

/** A stretch of days' payments, summed. */
export interface Sums {
  readonly gross: number
  readonly fees: number
  readonly refunded: number
  /** Gross − fees − refunds. */
  readonly net: number
  readonly succeeded: number
  readonly failed: number
  /** Subscriptions started. */
  readonly newSubscriptions: number
}

export interface Overview {
  readonly days: Period
  /** The last `days` local days, today included… */
  readonly period: Sums
  /** …and the `days` before them. */
  readonly previous: Sums
  /** Today's gross volume so far, and yesterday's. */
  readonly today: number
  readonly yesterday: number
  readonly activeSubscriptions: number
  /** Monthly recurring revenue of the active subscriptions, in fils (rounded). */
  readonly mrr: number
  /**
   * The monthly recurring revenue recorded at the end of the previous period (the day before this one's first), or
   * the latest recorded before then; `null` when none was (the home records today's each time it is read).
   */
  readonly mrrBefore: MonthlyRevenueDay | null
  /** The account's time zone, whose days these are. */
  readonly timeZone: string
  /** Every day of the period, oldest first (local dates in `timeZone`), with its gross volume (0 when none). */
  readonly daily: ReadonlyArray<{ readonly day: string; readonly gross: number }>
}

/** `a − b`, field by field: the sums of the days in `a` and not in `b` (sums from a day on nest). */
const minus = (a: Sums, b: Sums): Sums => ({
  gross: a.gross - b.gross,
  fees: a.fees - b.fees,
  refunded: a.refunded - b.refunded,
  net: a.net - b.net,
  succeeded: a.succeeded - b.succeeded,
  failed: a.failed - b.failed,
  newSubscriptions: a.newSubscriptions - b.newSubscriptions
})

export class Reports extends Effect.Service<Reports>()("fils/Reports", {
  effect: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const paymentRepo = yield* PaymentRepository
    const subscriptionRepo = yield* SubscriptionRepository

    /**
     * The scope's payments and new subscriptions from local day `from` (in `timeZone`) until now: one grouped read of
     * the daily totals and one count. Every day the home counts is bucketed here.
     */
    const sumsFrom = (scope: Scope, from: string, timeZone: string, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const summary = yield* paymentRepo.summary(scope, from)
        const newSubscriptions = yield* subscriptionRepo.countCreated(scope, startOfDay(from, timeZone), DateTime.add(now, { millis: 1 }))
        const sums: Sums = {
          gross: summary.gross,
          fees: summary.fees,
          refunded: summary.refunded,
          net: summary.gross - summary.fees - summary.refunded,
          succeeded: summary.succeeded,
          failed: summary.failed,
          newSubscriptions
        }
        return { sums, daily: new Map(summary.daily.map((d) => [d.day, d.gross])) }
      })

    const overview = Effect.fn("Reports.overview")(function*(scope: Scope, days: Period) {
      const timeZone = Option.match(yield* accountRepo.get(scope.accountId), {
        onNone: () => defaultTimeZone,
        onSome: (account) => account.time_zone
      })
      const now = yield* DateTime.now
      const today = localDay(now, timeZone)
      const since = addDays(today, -(days - 1))
      // The period and the one before it: from the earlier start, less from the later (two reads, not one per day).
      const [both, period] = yield* Effect.all([
        sumsFrom(scope, addDays(since, -days), timeZone, now),
        sumsFrom(scope, since, timeZone, now)
      ], { concurrency: 2 })
      const recurring = yield* subscriptionRepo.recurring(scope)
      const mrr = Math.round(recurring.reduce((sum, r) => sum + r.amount * perMonth(r.billing_interval, r.interval_count), 0))
      const activeSubscriptions = recurring.reduce((n, r) => n + r.subscriptions, 0)
      // Past plans and states are not kept: today's figure is recorded for the comparisons of days to come. Only a
      // note for later, so a store refusing it (a standby during a failover) never keeps the page from being read.
      yield* subscriptionRepo.recordMonthlyRevenue(scope, { day: today, mrr, subscriptions: activeSubscriptions }, now).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("The day's monthly recurring revenue was not recorded", cause))
      )
      const mrrBefore = yield* subscriptionRepo.monthlyRevenueOn(scope, addDays(since, -1))
      const daily = Array.from({ length: days }, (_, i) => {
        const day = addDays(since, i)
        return { day, gross: period.daily.get(day) ?? 0 }
      })
      return {
        days,
        timeZone,
        period: period.sums,
        previous: minus(both.sums, period.sums),
        today: both.daily.get(today) ?? 0,
        yesterday: both.daily.get(addDays(today, -1)) ?? 0,
        activeSubscriptions,
        mrr,
        mrrBefore: Option.getOrNull(mrrBefore),
        daily
      } satisfies Overview
    })

    return { overview } as const
  })
}) {}
