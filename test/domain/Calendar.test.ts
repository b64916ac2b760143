import { assert, describe, it } from "@effect/vitest"
import { DateTime, FastCheck } from "effect"
import * as Calendar from "../../src/domain/Calendar.js"
import type { BillingInterval } from "../../src/domain/Product.js"

const at = (iso: string) => DateTime.unsafeMake(iso)
const iso = (d: DateTime.Utc) => DateTime.formatIso(d)

/**
 * An independent oracle for month steps: walk one month at a time from the anchor, carrying the anchor's day and
 * clamping to each month's length by counting back from the first of the next month.
 */
const oracleMonths = (anchor: Date, months: number): number => {
  let year = anchor.getUTCFullYear()
  let month = anchor.getUTCMonth()
  for (let i = 0; i < months; i++) {
    month++
    if (month === 12) {
      month = 0
      year++
    }
  }
  const firstOfNext = Date.UTC(year, month + 1, 1)
  const lastDay = new Date(firstOfNext - 86_400_000).getUTCDate()
  const day = Math.min(anchor.getUTCDate(), lastDay)
  return Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds())
}

const oracle = (anchor: DateTime.Utc, interval: BillingInterval, count: number, n: number): number => {
  const ms = DateTime.toEpochMillis(anchor)
  switch (interval) {
    case "day":
      return ms + n * count * 86_400_000
    case "week":
      return ms + n * count * 7 * 86_400_000
    case "month":
      return oracleMonths(new Date(ms), n * count)
    case "year":
      return oracleMonths(new Date(ms), n * count * 12)
  }
}

const anchorArb = FastCheck.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2080, 0, 1) }).map((ms) => DateTime.unsafeMake(ms))
const scheduleArb = FastCheck.oneof(
  FastCheck.record({ interval: FastCheck.constant("day" as const), count: FastCheck.integer({ min: 1, max: 365 }) }),
  FastCheck.record({ interval: FastCheck.constant("week" as const), count: FastCheck.integer({ min: 1, max: 156 }) }),
  FastCheck.record({ interval: FastCheck.constant("month" as const), count: FastCheck.integer({ min: 1, max: 36 }) }),
  FastCheck.record({ interval: FastCheck.constant("year" as const), count: FastCheck.integer({ min: 1, max: 3 }) })
)

describe("Calendar.periodStart", () => {
  it("keeps the anchor day: 31 January → 28/29 February → 31 March", () => {
    const jan31 = at("2027-01-31T10:00:00.000Z")
    assert.strictEqual(iso(Calendar.periodStart(jan31, "month", 1, 1)), "2027-02-28T10:00:00.000Z")
    assert.strictEqual(iso(Calendar.periodStart(jan31, "month", 1, 2)), "2027-03-31T10:00:00.000Z")
    const leap = at("2028-01-31T00:00:00.000Z")
    assert.strictEqual(iso(Calendar.periodStart(leap, "month", 1, 1)), "2028-02-29T00:00:00.000Z")
    const feb29 = at("2028-02-29T12:30:00.000Z")
    assert.strictEqual(iso(Calendar.periodStart(feb29, "year", 1, 1)), "2029-02-28T12:30:00.000Z")
    assert.strictEqual(iso(Calendar.periodStart(feb29, "year", 1, 4)), "2032-02-29T12:30:00.000Z")
    assert.strictEqual(iso(Calendar.periodStart(at("2026-12-15T00:00:00.000Z"), "month", 3, 1)), "2027-03-15T00:00:00.000Z")
    assert.strictEqual(iso(Calendar.periodStart(at("2026-11-21T00:00:00.000Z"), "week", 2, 1)), "2026-12-05T00:00:00.000Z")
  })

  it.prop("the n-th period start equals the oracle's anchor + n intervals (no drift)", [anchorArb, scheduleArb, FastCheck.integer({ min: 0, max: 120 })], ([anchor, s, n]) => {
    assert.strictEqual(DateTime.toEpochMillis(Calendar.periodStart(anchor, s.interval, s.count, n)), oracle(anchor, s.interval, s.count, n))
  }, { fastCheck: { numRuns: 200 } })

  it.prop("periods are contiguous and strictly increasing: none skipped, none repeated", [anchorArb, scheduleArb], ([anchor, s]) => {
    let previous = Calendar.periodStart(anchor, s.interval, s.count, 0)
    assert.strictEqual(DateTime.toEpochMillis(previous), DateTime.toEpochMillis(anchor))
    for (let n = 1; n <= 40; n++) {
      const next = Calendar.periodStart(anchor, s.interval, s.count, n)
      assert.isTrue(DateTime.lessThan(previous, next), `period ${n} starts after period ${n - 1}`)
      // A period lasts about one interval: never less than count × the shortest unit, never more than the longest.
      const days = (DateTime.toEpochMillis(next) - DateTime.toEpochMillis(previous)) / 86_400_000
      const [min, max] = s.interval === "day" ? [s.count, s.count]
        : s.interval === "week" ? [7 * s.count, 7 * s.count]
        : s.interval === "month" ? [28 * s.count - 3, 31 * s.count + 3]
        : [365 * s.count - 1, 366 * s.count + 1]
      assert.isTrue(days >= min && days <= max, `period ${n - 1} lasts ${days} days`)
      previous = next
    }
  }, { fastCheck: { numRuns: 150 } })

  it.prop("monthly periods fall in consecutive months, on the anchor day or the month's last day", [anchorArb, FastCheck.integer({ min: 1, max: 36 })], ([anchor, count]) => {
    const a = DateTime.toDate(anchor)
    for (let n = 0; n <= 24; n++) {
      const d = DateTime.toDate(Calendar.periodStart(anchor, "month", count, n))
      const months = (d.getUTCFullYear() - a.getUTCFullYear()) * 12 + d.getUTCMonth() - a.getUTCMonth()
      assert.strictEqual(months, n * count)
      const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()
      assert.strictEqual(d.getUTCDate(), Math.min(a.getUTCDate(), lastDay))
      assert.strictEqual(d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds(), a.getUTCHours() * 3600 + a.getUTCMinutes() * 60 + a.getUTCSeconds())
    }
  }, { fastCheck: { numRuns: 150 } })
})
