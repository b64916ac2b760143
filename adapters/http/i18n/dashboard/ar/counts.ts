/**
 * Counted nouns as Arabic writes them after a number: one and two by their own words, 3 to 10 with the plural,
 * 11 to 99 with the singular accusative, and a round hundred (100, 200, 1000…) with the singular; none with the
 * plural ("0 أيام"). The hundreds are read off `n % 100`, so 103 days take the plural again and 111 the accusative.
 */
export type CountForms = readonly [one: string, two: string, few: string, many: string, hundreds: string]

/** `counted(14, dayForms)` is `14 يومًا`; `written` is the number as the page writes it (default: its digits). */
export const counted = (n: number, forms: CountForms, written: string = String(n)) => {
  if (n === 1) return forms[0]
  if (n === 2) return forms[1]
  const last = n % 100
  return `${written} ${n === 0 || (last >= 3 && last <= 10) ? forms[2] : last >= 11 ? forms[3] : forms[4]}`
}

/** Days, in the accusative/genitive a sentence puts them in ("for two days", "kept for two days"). */
export const dayForms: CountForms = ["يوم واحد", "يومين", "أيام", "يومًا", "يوم"]
