/**
 * Billing periods in calendar terms (docs/decisions.md §6). The n-th period starts at anchor + n × interval, always
 * computed from the anchor (never from the previous period), so nothing drifts: a subscription started on
 * 31 January renews on 28/29 February, then 31 March. Times of day are kept, in UTC.
 */
import { DateTime } from "effect"
import type { BillingInterval } from "./Product.js"

const daysInMonth = (year: number, month0: number) => new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate()

const addMonths = (anchor: DateTime.Utc, months: number): DateTime.Utc => {
  const d = DateTime.toDate(anchor)
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months
  const year = Math.floor(total / 12)
  const month0 = total - year * 12
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month0))
  return DateTime.unsafeMake(
    Date.UTC(year, month0, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds())
  )
}

const dayMillis = 86_400_000

/** anchor + n × (count × interval). */
export const periodStart = (
  anchor: DateTime.Utc,
  interval: BillingInterval,
  count: number,
  n: number
): DateTime.Utc => {
  switch (interval) {
    case "day":
      return DateTime.unsafeMake(DateTime.toEpochMillis(anchor) + n * count * dayMillis)
    case "week":
      return DateTime.unsafeMake(DateTime.toEpochMillis(anchor) + n * count * 7 * dayMillis)
    case "month":
      return addMonths(anchor, n * count)
    case "year":
      return addMonths(anchor, n * count * 12)
  }
}

/** Days after the first failed renewal at which it is retried (docs/decisions.md §6). */
export const retryDays: ReadonlyArray<number> = [1, 3, 5]

export const addDays = (at: DateTime.Utc, days: number): DateTime.Utc =>
  DateTime.unsafeMake(DateTime.toEpochMillis(at) + days * dayMillis)
