/** Currencies and amounts in minor units (fils for AED). */
import { Schema } from "effect"

/** The currencies Fils accepts: an enumeration with the single value AED. */
export const Currency = Schema.Literal("AED").annotations({
  identifier: "Currency",
  description: "ISO 4217 currency code. Only AED is accepted."
})
export type Currency = typeof Currency.Type
export const supportedCurrencies: ReadonlyArray<Currency> = ["AED"]

/** An amount in the currency's minor unit: a non-negative safe integer. */
export const Amount = Schema.Int.pipe(
  Schema.greaterThanOrEqualTo(0),
  Schema.lessThanOrEqualTo(Number.MAX_SAFE_INTEGER),
  Schema.annotations({ identifier: "Amount", description: "Amount in the currency's minor unit (fils for AED)." })
)

/** Minor-unit digits by ISO 4217: three for KWD, BHD and OMR (should they ever be enabled), two otherwise. */
export const minorDigits = (currency: string): number =>
  currency === "KWD" || currency === "BHD" || currency === "OMR" ? 3 : 2

/** `AED 349.00` for 34900 fils; thousands grouped with commas (`AED 1,234.50`). */
export const formatAmount = (amount: number, currency: string): string => {
  const digits = minorDigits(currency)
  const negative = amount < 0
  const abs = Math.abs(Math.trunc(amount))
  const unit = 10 ** digits
  const major = Math.floor(abs / unit)
  const minor = String(abs % unit).padStart(digits, "0")
  const grouped = String(major).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  return `${currency} ${negative ? "-" : ""}${grouped}.${minor}`
}

/**
 * An amount in AED as a merchant types it (`12.50`, `1,234.50`, `349`: digits, optional thousands commas, up to two
 * decimals) → fils; `undefined` otherwise (refused, never rounded).
 */
export const parseAed = (text: string): number | undefined => {
  const t = text.trim()
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d{1,2})?$/.test(t) || t.replace(/[,.]/g, "").length > 15) return undefined
  const [whole, fraction = ""] = t.replace(/,/g, "").split(".")
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"))
}
