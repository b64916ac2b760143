/**
 * An account's time zone: where its dashboard's times are shown and its days counted (docs/dashboard.md). An IANA
 * name the runtime knows (`Intl.supportedValuesOf("timeZone")`), or `UTC`; `Asia/Dubai` unless the merchant chose
 * another. The API keeps UTC whatever the zone.
 */
import { DateTime } from "effect"

export const defaultTimeZone = "Asia/Dubai"

let known: ReadonlySet<string> | undefined
/** Every zone an account may choose, in the runtime's (alphabetical) order. */
export const timeZones = (): ReadonlyArray<string> => [...knownZones()]
const knownZones = (): ReadonlySet<string> => known ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC"].sort())

export const isTimeZone = (zone: string): boolean => knownZones().has(zone)

/** Why `zone` cannot be an account's time zone, in the merchant's words; `undefined` when it can. */
export const timeZoneProblem = (zone: string): string | undefined =>
  isTimeZone(zone) ? undefined : `'${zone.slice(0, 80)}' is not a time zone this server knows: choose one from the list, such as ${defaultTimeZone}`

const zoned = (at: DateTime.Utc, zone: string): DateTime.Zoned => DateTime.unsafeMakeZoned(at, { timeZone: zone })

/** The calendar date (`YYYY-MM-DD`) of `at` in `zone`. */
export const localDay = (at: DateTime.Utc, zone: string): string => DateTime.formatIsoDate(zoned(at, zone))

/** `day` (`YYYY-MM-DD`) moved by `days` calendar days (no time of day, so no daylight-saving hour is lost). */
export const addDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/**
 * The instant `day` (`YYYY-MM-DD`) starts in `zone`: its first moment (midnight, or the first hour after midnight
 * where daylight saving skips it).
 */
export const startOfDay = (day: string, zone: string): DateTime.Utc =>
  DateTime.toUtc(DateTime.unsafeMakeZoned(`${day}T00:00:00`, { timeZone: zone, adjustForTimeZone: true }))
