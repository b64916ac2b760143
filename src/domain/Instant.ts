/**
 * An instant as a request writes it. `Schema.DateTimeUtc` reads text through `Date`, which moves a date that does
 * not exist to one that does (30 February to 2 March, 24:00 to the next day); input is refused, never altered
 * (docs/api.md, "Text"), so a date and time written out in ISO 8601 must exist as written.
 */
import { Schema } from "effect"

const written = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const daysInMonth = (year: number, month: number) =>
  month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/**
 * Whether the calendar date and the time of day `text` begins with exist. Text that does not begin with an ISO 8601
 * date is left to the parse that follows (which refuses what it cannot read).
 */
export const exists = (text: string): boolean => {
  const parts = written.exec(text)
  if (parts === null) return true
  const [year, month, day, hours, minutes, seconds] = parts.slice(1).map((p) => (p === undefined ? 0 : Number(p)))
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth(year!, month!) &&
    hours! <= 23 && minutes! <= 59 && seconds! <= 59
}

/**
 * ISO 8601 with its zone, to the second or millisecond: `2026-11-27T09:00:00Z`, `2026-11-27T13:00:00.250+04:00`.
 * Nothing else is read (no date alone, no zone left out, no fraction finer than a millisecond): whatever `Date`
 * would make of such text is a guess, and a guess would alter the input.
 */
export const pattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$/

/**
 * A time in a request: ISO 8601 as `pattern` has it, refused when its date or time does not exist, read as
 * `Schema.DateTimeUtc` reads it. Documented as `Schema.DateTimeUtc` is (its identifier and description), so the
 * API's document does not change.
 */
export const DateTimeInput = Schema.String.pipe(
  Schema.filter((text) =>
    !pattern.test(text)
      ? "must be an ISO 8601 time with its zone, e.g. 2026-11-27T09:00:00Z"
      : exists(text) || "is not a date and time that exists", {
    identifier: "DateTimeUtc",
    description: "a string to be decoded into a DateTime.Utc",
    jsonSchema: {}
  }),
  Schema.compose(Schema.DateTimeUtc)
)
