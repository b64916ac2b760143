/** Money as merchants type it in the dashboard's forms. */

/** `AED 12.50` as typed (digits, optional thousands commas, up to two decimals) → fils; `undefined` otherwise. */
export const parseAed = (text: string): number | undefined => {
  const t = text.trim()
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d{1,2})?$/.test(t) || t.replace(/[,.]/g, "").length > 15) return undefined
  const [whole, fraction = ""] = t.replace(/,/g, "").split(".")
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"))
}

