/** Instant: a date and time written in a request exists as written, or is refused (never moved as `Date` moves it). */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck, Schema } from "effect"
import { DateTimeInput, exists } from "../../src/domain/Instant.js"

const pad = (n: number, width: number) => String(n).padStart(width, "0")

/** An independent oracle: a date and time exist when `Date`, set to them, gives back the same parts. */
const oracle = (year: number, month: number, day: number, hours: number, minutes: number, seconds: number) => {
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  d.setUTCHours(hours, minutes, seconds)
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day &&
    d.getUTCHours() === hours && d.getUTCMinutes() === minutes && d.getUTCSeconds() === seconds
}

describe("Instant", () => {
  it("a written date and time exist exactly when the oracle says so", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.integer({ min: 0, max: 9999 }),
        FastCheck.integer({ min: 0, max: 13 }),
        FastCheck.integer({ min: 0, max: 32 }),
        FastCheck.integer({ min: 0, max: 25 }),
        FastCheck.integer({ min: 0, max: 60 }),
        FastCheck.integer({ min: 0, max: 60 }),
        (year, month, day, hours, minutes, seconds) => {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}Z`
          assert.strictEqual(exists(text), oracle(year, month, day, hours, minutes, seconds), text)
        }
      ),
      { numRuns: 5_000 }
    )
  })

  it("DateTimeInput refuses what does not exist or is not ISO 8601 with its zone, and reads the rest as Schema.DateTimeUtc does", () => {
    const decode = Schema.decodeUnknownEither(DateTimeInput)
    for (
      const text of [
        "2026-02-30T00:00:00Z", "2026-04-31T10:00:00Z", "2026-01-01T24:00:00Z", "2026-13-01T00:00:00Z",
        // Forms `Date` reads by guessing: a date alone, no zone, no seconds, a space, a six-digit year, a finer fraction.
        "2026-11-27", "2026-1-1", "2027-01-01T00:00:00", "2027-01-01T00:00Z", "2027-01-01 00:00:00Z", "+002027-01-01T00:00:00Z",
        "2027-01-01T00:00:00.123456Z", "2027-01-01T00:00:00+25:00"
      ]
    ) {
      assert.isTrue(Either.isLeft(decode(text)), text)
    }
    for (const text of ["2028-02-29T00:00:00Z", "2026-12-01T00:00:00+04:00", "2026-11-27T09:00:00.123Z", "2026-11-27T09:00:00.5-03:30"]) {
      const ours = decode(text)
      const theirs = Schema.decodeUnknownEither(Schema.DateTimeUtc)(text)
      assert.isTrue(Either.isRight(ours) && Either.isRight(theirs) && ours.right.epochMillis === theirs.right.epochMillis, text)
    }
  })
})
