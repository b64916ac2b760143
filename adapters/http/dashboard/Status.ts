/**
 * Statuses as merchants read them: one word or two and a colour, the same on every list and detail page
 * (`partially_refunded` reads "Partially refunded", in grey; `on_hold` reads "On hold", in amber). The colour says
 * what to do: green is done, blue is under way, amber wants a look, red failed, grey is over.
 */
import { html, type Raw } from "../html/Html.js"

export type Tone = "good" | "info" | "warn" | "bad" | "neutral"

const known: Readonly<Record<string, readonly [words: string, tone: Tone]>> = {
  // Payments
  succeeded: ["Succeeded", "good"],
  processing: ["Processing", "info"],
  failed: ["Failed", "bad"],
  partially_refunded: ["Partially refunded", "neutral"],
  refunded: ["Refunded", "neutral"],
  // Subscriptions (and products, keys, endpoints)
  active: ["Active", "good"],
  trialing: ["Trialing", "info"],
  ending: ["Ends at period end", "warn"],
  on_hold: ["On hold", "warn"],
  cancelled: ["Cancelled", "neutral"],
  // Checkout sessions
  open: ["Open", "info"],
  complete: ["Complete", "good"],
  expired: ["Expired", "neutral"],
  // Products
  draft: ["Draft", "neutral"],
  archived: ["Archived", "neutral"],
  // Deliveries, refunds, e-invoices
  pending: ["Pending", "info"],
  refused: ["Refused", "bad"],
  accepted: ["Accepted", "good"],
  rejected: ["Rejected", "bad"],
  // Webhook endpoints, API keys
  enabled: ["Enabled", "good"],
  disabled: ["Disabled", "neutral"],
  revoked: ["Revoked", "neutral"]
}

/** A status's words and tone; one this module does not know reads as its own words, in grey. */
export const statusWords = (status: string): { readonly words: string; readonly tone: Tone } => {
  const found = known[status]
  if (found !== undefined) return { words: found[0], tone: found[1] }
  const words = status.replace(/_/g, " ")
  return { words: words.charAt(0).toUpperCase() + words.slice(1), tone: "neutral" }
}

/** The status as a badge. */
export const badge = (status: string): Raw => {
  const { tone, words } = statusWords(status)
  return html`<span class="badge ${tone}">${words}</span>`
}
