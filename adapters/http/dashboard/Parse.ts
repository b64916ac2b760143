/** Money and dates as merchants type them in the dashboard's forms. */
import { DateTime, Option } from "effect"
import { addDays, startOfDay } from "../../../src/domain/TimeZone.js"

/** `AED 12.50` as typed → fils (the domain's rule, shared with the payment search). */
export { parseAed } from "../../../src/domain/Money.js"

/**
 * An id filter of a list's query, as the API reads one: `undefined` when absent, the id when `raw` can be one, and
 * `null` when it cannot (such a filter matches nothing; it is not dropped).
 */
export const idFilter = <A>(parse: (raw: string) => A | undefined, raw: string | null): A | undefined | null =>
  raw === null || raw === "" ? undefined : parse(raw) ?? null

/**
 * A calendar date `YYYY-MM-DD` that exists, as the account's local day in `zone`: the instants it starts and ends
 * (the next one's start); `undefined` otherwise (31 April is refused, never moved).
 */
export const parseDay = (text: string, zone: string): { readonly day: string; readonly start: DateTime.Utc; readonly end: DateTime.Utc } | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim())
  if (m === null) return undefined
  const millis = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  const back = new Date(millis)
  if (back.getUTCFullYear() !== Number(m[1]) || back.getUTCMonth() !== Number(m[2]) - 1 || back.getUTCDate() !== Number(m[3])) return undefined
  const day = back.toISOString().slice(0, 10)
  return { day, start: startOfDay(day, zone), end: startOfDay(addDays(day, 1), zone) }
}

/**
 * A date and time as typed, `YYYY-MM-DD HH:MM` (a `T` for the space, and seconds, allowed), read in `zone`; with a
 * final `Z`, in UTC. A date or time that does not exist (31 April, 24:00) is refused, never moved to another.
 */
export const parseTime = (typed: string, zone: string): Option.Option<DateTime.Utc> => {
  const parts = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z?)$/.exec(typed)
  if (parts === null) return Option.none()
  const [year, month, day, hours, minutes, seconds] = parts.slice(1, 7).map((part) => Number(part ?? "0")) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const millis = Date.UTC(year, month - 1, day, hours, minutes, seconds)
  const back = new Date(millis)
  const exact = back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day &&
    back.getUTCHours() === hours && back.getUTCMinutes() === minutes && back.getUTCSeconds() === seconds
  if (!exact) return Option.none()
  if (parts[7] === "Z") return Option.some(DateTime.unsafeMake(millis))
  return Option.some(DateTime.toUtc(DateTime.unsafeMakeZoned(back.toISOString().slice(0, 19), { timeZone: zone, adjustForTimeZone: true })))
}
