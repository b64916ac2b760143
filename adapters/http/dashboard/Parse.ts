/** Money and dates as merchants type them in the dashboard's forms. */
import { DateTime } from "effect"

/** `AED 12.50` as typed (digits, optional thousands commas, up to two decimals) → fils; `undefined` otherwise. */
export const parseAed = (text: string): number | undefined => {
  const t = text.trim()
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d{1,2})?$/.test(t) || t.replace(/[,.]/g, "").length > 15) return undefined
  const [whole, fraction = ""] = t.replace(/,/g, "").split(".")
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"))
}


/** A calendar date `YYYY-MM-DD` that exists, as the start of that UTC day; `undefined` otherwise. */
export const parseDay = (text: string): DateTime.Utc | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim())
  if (m === null) return undefined
  const millis = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  const back = new Date(millis)
  return back.getUTCFullYear() === Number(m[1]) && back.getUTCMonth() === Number(m[2]) - 1 && back.getUTCDate() === Number(m[3])
    ? DateTime.unsafeMake(millis)
    : undefined
}
