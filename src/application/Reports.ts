/**
 * What the dashboard's home shows: a scope's volume, fees, refunds and payment counts over the last 7, 30
 * or 90 days, with each day's gross volume, and its active subscriptions with their monthly recurring revenue.
 * Days are the account's local days (its time zone, today included). Sums are the store's (one grouped statement
 * each); this module only shapes them.
 */
import { DateTime, Effect, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import type { BillingInterval } from "../domain/Product.js"
import { addDays, defaultTimeZone, localDay } from "../domain/TimeZone.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"

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

export interface Overview {
  readonly days: Period
  readonly gross: number
  readonly fees: number
  readonly refunded: number
  /** Gross − fees − refunds. */
  readonly net: number
  readonly succeeded: number
  readonly failed: number
  readonly activeSubscriptions: number
  /** Monthly recurring revenue of the active subscriptions, in fils (rounded). */
  readonly mrr: number
  /** The account's time zone, whose days these are. */
  readonly timeZone: string
  /** Every day of the period, oldest first (local dates in `timeZone`), with its gross volume (0 when none). */
  readonly daily: ReadonlyArray<{ readonly day: string; readonly gross: number }>
}

export class Reports extends Effect.Service<Reports>()("fils/Reports", {
  effect: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const paymentRepo = yield* PaymentRepository
    const subscriptionRepo = yield* SubscriptionRepository

    const overview = Effect.fn("Reports.overview")(function*(scope: Scope, days: Period) {
      const timeZone = Option.match(yield* accountRepo.get(scope.accountId), {
        onNone: () => defaultTimeZone,
        onSome: (account) => account.time_zone
      })
      const since = addDays(localDay(yield* DateTime.now, timeZone), -(days - 1))
      const summary = yield* paymentRepo.summary(scope, since)
      const recurring = yield* subscriptionRepo.recurring(scope)
      const byDay = new Map(summary.daily.map((d) => [d.day, d.gross]))
      const daily = Array.from({ length: days }, (_, i) => {
        const day = addDays(since, i)
        return { day, gross: byDay.get(day) ?? 0 }
      })
      return {
        days,
        timeZone,
        gross: summary.gross,
        fees: summary.fees,
        refunded: summary.refunded,
        net: summary.gross - summary.fees - summary.refunded,
        succeeded: summary.succeeded,
        failed: summary.failed,
        activeSubscriptions: recurring.reduce((n, r) => n + r.subscriptions, 0),
        mrr: Math.round(recurring.reduce((sum, r) => sum + r.amount * perMonth(r.billing_interval, r.interval_count), 0)),
        daily
      } satisfies Overview
    })

    return { overview } as const
  })
}) {}
