/** The dashboard's payments pages in English: the list and its search, a payment with its refund form and timeline. */
import { searchHint } from "../../../../../src/domain/PaymentSearch.js"
import { reasonWords } from "../../../../../src/domain/Refund.js"
import { html, type Raw } from "../../../html/Html.js"

export const payments = {
  list: {
    title: "Payments",
    search: "Search: id, e-mail, amount or card's last 4",
    /** What the search reads, when it read nothing (the API's words, `PaymentSearch.searchHint`). */
    searchHint,
    from: (timeZone: string) => `From (date in ${timeZone})`,
    to: (timeZone: string) => `To (date in ${timeZone})`,
    dayRefused: "Dates are written YYYY-MM-DD",
    none: "No payments.",
    older: "Older payments →"
  },
  /** The payments' columns, on the list and on the home page's recent payments. */
  columns: {
    amount: "Amount",
    status: "Status",
    customer: "Customer",
    description: "Description",
    date: "Date"
  },
  payment: {
    title: (amount: string) => `Payment ${amount}`,
    id: "Id",
    status: "Status",
    amount: "Amount",
    fee: "Fee",
    refunded: "Refunded",
    net: "Net",
    customer: "Customer",
    card: "Card",
    description: "Description",
    discount: "Discount",
    created: "Created",
    receipt: "Receipt",
    printableReceipt: "Printable receipt",
    taxInvoice: "Tax invoice",
    creditNotes: "Credit notes",
    /** Between two of its credit notes. */
    comma: ", ",
    /** The link back from the receipt. */
    backFromReceipt: "← Back to the payment"
  },
  refund: {
    heading: "Refund",
    amount: (remaining: string) => `Amount in AED (up to ${remaining})`,
    reason: "Reason",
    chooseReason: "Choose a reason",
    note: "Note (optional; kept with the refund and written on its credit note)",
    review: "Review the refund",
    confirmNext: "You confirm on the next page, which says what will happen."
  },
  /** A refund's reasons (`Refund.reasonWords`), and a reason with the merchant's note. */
  reasons: reasonWords,
  why: (reason: string, note: string | null) => `${reason}${note === null ? "" : `: ${note}`}`,
  timeline: {
    heading: "Timeline",
    refundOf: (amount: string) => `Refund of ${amount}`,
    noReason: "No reason given"
  },
  /** Why a refund was not made. `pending`: what refunds still pending hold, when they hold anything. */
  refused: {
    cannotRefund: (role: string) => `A ${role} cannot refund payments.`,
    amount: "Enter the amount in AED, e.g. 12.50",
    reason: "Choose the refund's reason: requested by the customer, a duplicate payment or a fraudulent payment",
    /** The note's problem, as the engine words it (`Refund.noteProblem`). */
    note: (problem: string) => `The note ${problem}`,
    upTo: (remaining: string, pending: string | null) =>
      `You can refund up to ${remaining}${pending === null ? "" : ` (${pending} is in refunds still pending)`}`,
    nothingLeft: (pending: string | null) => `Nothing is left to refund${pending === null ? "" : ` (${pending} is in refunds still pending)`}`,
    outOfDate: "This form is out of date, so nothing was refunded. Check the amount and send it again.",
    otherAmount: "This form was already sent with another amount, so nothing more was refunded. Check the payment below and refund again from it.",
    notNow: "The refund may have begun but could not be finished just now. Confirm again in a moment to finish this same refund: confirming again never makes a second one."
  },
  /** The refund's confirmation page. */
  confirm: {
    title: (amount: string) => `Refund ${amount}?`,
    goesBack: (
      amount: string,
      customer: { readonly name: string | null; readonly email: string } | null,
      card: { readonly brand: string; readonly last4: string } | null
    ): Raw =>
      html`<strong>${amount}</strong> goes back to ${customer === null ? "the customer" : `${customer.name ?? customer.email} (${customer.email})`}${
        card === null ? "" : ` on their ${card.brand} card ending in ${card.last4}`
      }.`,
    allOfIt: "That is all that remains of the payment: it becomes refunded.",
    restLater: (rest: string) => `${rest} of the payment stays yours to refund later.`,
    final: "The processing fee is not returned. A refund cannot be undone; it may take the customer's bank a few days to show it.",
    reason: (why: string): Raw =>
      html`Reason: <strong>${why}</strong>. It is kept with the refund, shown on the payment's timeline and written on its credit note.`,
    /** `event`: the event's type name (`refund.succeeded`), written as it is. */
    webhooks: (event: string) => `Your webhook endpoints receive ${event}, and a credit note is issued when the payment has a tax invoice.`,
    button: (amount: string) => `Refund ${amount}`
  },
  /** What a refund did, on the payment's page. */
  done: {
    pending: (amount: string) => `The refund of ${amount} is pending: the processor has not answered yet.`,
    refunded: (amount: string) => `Refunded ${amount}.`
  }
}
