/**
 * What a merchant types in the payments search, read as the one thing it can mean: a payment id, a customer's
 * e-mail, the card's last 4 digits (four digits alone), or an amount as typed (`349.00`, `AED 1,234.50`, `349`).
 * Four digits alone are the card's: an amount of whole dirhams that long is written with its decimals (`4242.00`).
 */
import { PaymentId, parseId } from "./Ids.js"
import { parseAed } from "./Money.js"

export type SearchTerm =
  | { readonly _tag: "Everything" }
  | { readonly _tag: "PaymentId"; readonly id: PaymentId }
  | { readonly _tag: "Email"; readonly email: string }
  | { readonly _tag: "CardLast4"; readonly last4: string }
  | { readonly _tag: "Amount"; readonly amount: number }
  | { readonly _tag: "Unreadable" }

const paymentIdOf = parseId(PaymentId)

/** The longest search kept (an e-mail's limit). */
export const maxSearchLength = 254

export const readSearch = (typed: string): SearchTerm => {
  const text = typed.trim()
  if (text === "") return { _tag: "Everything" }
  if (text.length > maxSearchLength) return { _tag: "Unreadable" }
  const id = paymentIdOf(text)
  if (id !== undefined) return { _tag: "PaymentId", id }
  if (/^[^\s@]+@[^\s@]+$/.test(text)) return { _tag: "Email", email: text }
  if (/^\d{4}$/.test(text)) return { _tag: "CardLast4", last4: text }
  const amount = parseAed(text.replace(/^AED\s*/i, ""))
  return amount === undefined ? { _tag: "Unreadable" } : { _tag: "Amount", amount }
}

/** What the search reads, for a refusal: said the same wherever the search is offered. */
export const searchHint = "Search by payment id, customer e-mail, amount (e.g. 349.00) or the card's last 4 digits"
