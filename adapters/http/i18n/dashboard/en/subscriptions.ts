/** The dashboard's subscriptions pages in English: the list, a subscription, its cancellation and a charge of its card. */
import { type BillingInterval, everyInterval } from "../../../../../src/domain/Product.js"
import { html, type Raw } from "../../../html/Html.js"

export const subscriptions = {
  /** A subscription's amount on its schedule: `AED 45.00 every month`. */
  schedule: (amount: string, interval: BillingInterval, count: number) => `${amount} ${everyInterval(interval, count)}`,
  /** Who may not: `role` is the role's word (`viewer`). */
  forbidden: {
    cancel: (role: string) => `A ${role} cannot cancel subscriptions.`,
    charge: (role: string) => `A ${role} cannot charge subscriptions.`
  },
  list: {
    title: "Subscriptions",
    filters: "Subscriptions",
    table: "Subscriptions",
    status: "Status",
    amount: "Amount",
    customer: "Customer",
    nextBilling: "Next billing",
    started: "Started",
    none: "No subscriptions."
  },
  page: {
    title: "Subscription",
    id: "Id",
    status: "Status",
    customer: "Customer",
    amount: "Amount",
    trial: "Trial",
    /** The trial's days and when it ends (or ended), `at` already written. */
    trialText: (days: number, ended: boolean, at: string) => `${days} days, ${ended ? "ended" : "ends"} ${at}`,
    trialPeriod: "Trial period",
    currentPeriod: "Current period",
    period: (from: string, to: string) => `${from} to ${to}`,
    discount: "Discount",
    cancelNow: "Cancel now…",
    keepRenewing: "Keep renewing",
    cancelAtPeriodEnd: "Cancel at the period end",
    chargeNow: "Charge now",
    chargeHelp: (brand: string, last4: string) =>
      `Charges the card this subscription renews on (${brand} •••• ${last4}) once, now, beside its schedule. You confirm on the next page.`,
    chargeAmount: "Amount in AED (priced as your products are: VAT is added if your prices exclude it)",
    chargeDescription: "Description (optional; by default the subscription's name)",
    reviewCharge: "Review the charge",
    payments: "Payments",
    timeline: "Timeline"
  },
  /** The confirmation of cancelling now. */
  cancel: {
    title: "Cancel this subscription now?",
    /** `customer` is the customer's e-mail (none: the customer), `schedule` its amount on its schedule. */
    endsNow: (customer: string | null, schedule: string): Raw =>
      html`${customer ?? "The customer"}'s subscription (${schedule}) ends now, not at the end of its current period.`,
    onHold: "It is on hold after a failed payment: the retries stop, and nothing more is charged.",
    trialStops: (trialEnd: string) => `Its trial stops now instead of ${trialEnd}: nothing is charged.`,
    periodCut: (from: string, to: string) =>
      `The current period (${from} to ${to}) is cut short and nothing more is charged. What was paid for it is not refunded: refund its last payment from the payment's page if you owe it.`,
    /** `event` is the event type the endpoints receive. */
    webhooks: (event: string) =>
      `Your webhook endpoints receive ${event}. A cancelled subscription cannot be restarted: the customer would subscribe again.`,
    orAtPeriodEnd: "To let it run to the end of the period instead, cancel at the period end.",
    button: "Cancel the subscription now",
    back: "Go back: keep the subscription"
  },
  /** What the cancel buttons did. */
  done: {
    alreadyCancelled: "It is cancelled.",
    cancelled: "Cancelled.",
    keepsRenewing: "It keeps renewing.",
    endsAtPeriodEnd: "It ends at the end of the current period."
  },
  /** Charging the subscription's card now. */
  charge: {
    enterAmount: "Enter the amount to charge in AED, e.g. 45.00",
    cancelled: "This subscription is cancelled: its card cannot be charged.",
    outOfDate: "This form is out of date, so nothing was charged. Check the amount and send it again.",
    unavailable: "The charge may have begun but could not be finished just now. Confirm again in a moment to finish this same charge: confirming again never makes a second one.",
    confirmTitle: "Confirm the charge",
    confirm: (p: { readonly amount: string; readonly description: string; readonly email: string; readonly brand: string; readonly last4: string }): Raw =>
      html`Charge <strong>${p.amount}</strong> (${p.description}) to ${p.email}'s ${p.brand} •••• ${p.last4} now?`,
    confirmHelp: "VAT is added if your prices exclude it. The subscription's period and status do not change.",
    button: (amount: string) => `Charge ${amount} now`,
    charged: (amount: string) => `Charged ${amount}.`,
    /** `code` is the decline's code (`card_declined`). */
    declined: (code: string) => `The card was declined (${code}): nothing was charged.`,
    processing: (amount: string) => `The charge of ${amount} is processing: the processor has not answered yet.`
  }
}
