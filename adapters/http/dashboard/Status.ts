/**
 * Statuses as merchants read them (the words are the catalogue's): one word or two and a colour, the same on every list and detail page
 * (`partially_refunded` reads "Partially refunded", in grey; `on_hold` reads "On hold", in amber). The colour says
 * what to do: green is done, blue is under way, amber wants a look, red failed, grey is over.
 */
import type { DashboardCatalogue } from "../i18n/dashboard/Catalogues.js"
import { html, type Raw } from "../html/Html.js"

export type Tone = "good" | "info" | "warn" | "bad" | "neutral"

const tones: Readonly<Record<keyof DashboardCatalogue["frame"]["status"], Tone>> = {
  // Payments
  succeeded: "good",
  processing: "info",
  failed: "bad",
  partially_refunded: "neutral",
  refunded: "neutral",
  // Subscriptions (and products, keys, endpoints)
  active: "good",
  trialing: "info",
  ending: "warn",
  on_hold: "warn",
  cancelled: "neutral",
  // Checkout sessions
  open: "info",
  complete: "good",
  expired: "neutral",
  // Products
  draft: "neutral",
  archived: "neutral",
  // Deliveries, refunds, e-invoices
  pending: "info",
  refused: "bad",
  accepted: "good",
  rejected: "bad",
  // Webhook endpoints, API keys
  enabled: "good",
  disabled: "neutral",
  revoked: "neutral"
}

const isKnown = (status: string): status is keyof typeof tones => Object.hasOwn(tones, status)

/** A status's words in the catalogue's language, and its tone; one this module does not know reads as it is, in grey. */
export const statusWords = (t: DashboardCatalogue, status: string): { readonly words: string; readonly tone: Tone } => {
  if (isKnown(status)) return { words: t.frame.status[status], tone: tones[status] }
  const words = status.replace(/_/g, " ")
  return { words: words.charAt(0).toUpperCase() + words.slice(1), tone: "neutral" }
}

/** The status as a badge. */
export const badge = (t: DashboardCatalogue, status: string): Raw => {
  const { tone, words } = statusWords(t, status)
  return html`<span class="badge ${tone}">${words}</span>`
}
