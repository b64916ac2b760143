/**
 * Numbers, amounts and times as the customer's language writes them, by `Intl` for `en-AE` and `ar-AE`. Amounts are
 * integers in the currency's minor unit and reach `Intl` as exact decimal strings, never through floating point.
 * Times are shown in a time zone the caller passes (the account's). Formatters are built once per language and zone.
 */
import { DateTime } from "effect"
import { minorDigits } from "../../../src/domain/Money.js"
import { defaultTimeZone } from "../../../src/domain/TimeZone.js"
import { intlTag, type Locale } from "./Locale.js"

export { defaultTimeZone }

const cached = <F>(build: (key: string) => F) => {
  const made = new Map<string, F>()
  return (key: string): F => {
    let found = made.get(key)
    if (found === undefined) {
      found = build(key)
      made.set(key, found)
    }
    return found
  }
}

const currencyFormat = cached((key) => {
  const [locale, currency] = key.split("|") as [Locale, string]
  return new Intl.NumberFormat(intlTag(locale), { style: "currency", currency, minimumFractionDigits: minorDigits(currency) })
})

/** The exact decimal of `amount` minor units: `-1234.50` for -123450 fils. */
export const decimal = (amount: number, currency: string): string => {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`An amount is an integer of minor units, not ${amount}`)
  const digits = minorDigits(currency)
  const text = String(Math.abs(amount)).padStart(digits + 1, "0")
  return `${amount < 0 ? "-" : ""}${text.slice(0, -digits)}.${text.slice(-digits)}`
}

/**
 * `AED 349.00` in English (with a plain space, as docs/decisions.md §3 writes it and scripts read it), `‏349.00 د.إ.‏`
 * in Arabic, for 34900 fils.
 */
export const money = (locale: Locale, amount: number, currency: string): string => {
  // `format` takes a decimal string exactly (Intl.NumberFormat v3); the typings still say number.
  const text = currencyFormat(`${locale}|${currency}`).format(decimal(amount, currency) as unknown as number)
  return locale === "en" ? text.replace("\u00a0", " ") : text
}

const integerFormat = cached((locale) => new Intl.NumberFormat(intlTag(locale as Locale), { maximumFractionDigits: 0 }))

/** A count (a quantity, a number of days). */
export const count = (locale: Locale, n: number): string => integerFormat(locale).format(n)

const dayFormat = cached((key) => {
  const [locale, timeZone] = key.split("|") as [Locale, string]
  return new Intl.DateTimeFormat(intlTag(locale), { day: "numeric", month: "short", year: "numeric", timeZone })
})

const dateTimeFormat = cached((key) => {
  const [locale, timeZone] = key.split("|") as [Locale, string]
  return new Intl.DateTimeFormat(intlTag(locale), {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone,
    timeZoneName: "short"
  })
})

/** The day `at` falls on in `timeZone`: `27 Nov 2026`, `27 نوفمبر 2026`. */
export const date = (locale: Locale, at: DateTime.DateTime, timeZone: string): string =>
  dayFormat(`${locale}|${timeZone}`).format(DateTime.toEpochMillis(at))

/** The time `at` in `timeZone`, with the zone: `27 Nov 2026, 05:26 PM GST`. */
export const dateTime = (locale: Locale, at: DateTime.DateTime, timeZone: string): string =>
  dateTimeFormat(`${locale}|${timeZone}`).format(DateTime.toEpochMillis(at))
