/**
 * Every English string of the customer's pages (the hosted checkout, the portal, receipts). `Catalogue` is this
 * module's shape: the Arabic catalogue (`ar.ts`) must have every key, so a missing translation fails the typecheck.
 * Functions take what a sentence needs, already formatted (amounts, dates), so each language orders it its own way.
 */
import { messages } from "../../../src/domain/CheckoutForm.js"
import { customerMessages } from "../../../src/domain/Discount.js"
import { declineMessages } from "../../../src/domain/Payment.js"
import type { BillingInterval } from "../../../src/domain/Product.js"
import { notUtf8Message } from "../html/Forms.js"
import { html, type Raw } from "../html/Html.js"

const every = (interval: BillingInterval, n: number) => n === 1 ? `every ${interval}` : `every ${n} ${interval}s`
const payments = (cycles: number | null, trial: boolean) =>
  (cycles === null ? "every payment" : cycles === 1 ? trial ? "the first payment" : "this payment" : `the first ${cycles} payments`) +
  (trial ? " after the trial" : "")

export const en = {
  /** The language's own name, on the switch to it. */
  languageName: "English",
  testMode: "Test mode",
  switchLanguage: "Language",
  every,

  checkout: {
    payTitle: (merchant: string) => `Pay ${merchant}`,
    orderSummary: "Order summary",
    paymentDetails: "Payment details",
    backTo: (merchant: string) => `Back to ${merchant}`,
    returnTo: (merchant: string) => `Return to ${merchant}`,
    trialLine: (days: number, free: boolean) => `${days}-day ${free ? "free " : ""}trial`,
    discount: (code: string) => `Discount ${code}`,
    discountPayments: payments,
    includesVat: "Includes VAT",
    subtotal: "Subtotal",
    vat: "VAT",
    total: "Total",
    totalToday: "Total due today",
    nothingToday: "Nothing is charged today.",
    chargedToday: (amount: string) => `${amount} is charged today.`,
    trialThen: (p: {
      readonly amount: string
      readonly vatIncluded: boolean
      readonly schedule: string | null
      readonly discounted: boolean
      readonly firstCharge: Raw
      readonly days: number
    }) =>
      html`Then ${p.amount}${p.vatIncluded ? " (VAT included)" : ""}${p.schedule === null ? "" : ` ${p.schedule}`}${
        p.discounted ? ", less the discount below" : ""
      }, first charged on ${p.firstCharge} (when the ${p.days}-day trial ends). Cancel before then and nothing more is charged.`,
    startTrial: "Start free trial",
    pay: (amount: string) => `Pay ${amount}`,
    business: "Buying for a business? Get a full tax invoice",
    businessName: "Business name (optional)",
    businessTrn: "TRN (optional, 15 digits)",
    name: "Name on card",
    email: "E-mail",
    phone: "Phone (optional, e.g. +971501234567)",
    cardNumber: "Card number",
    expiry: "Expiry (MM / YY)",
    cvc: "CVC",
    discountCode: "Discount code",
    apply: "Apply",
    remove: "Remove",
    secure: "Payments are processed securely. Your card number is never stored.",
    correct: "Please correct the highlighted fields.",
    discountNotRedeemable: "Nothing was charged: remove the discount code to pay without it.",
    crossSite: "This payment was not sent from this checkout page, so nothing was charged. Reload the checkout page and try again.",
    notSentTitle: "Payment not sent",
    notFoundTitle: "Checkout not found",
    notFound: "This checkout link is not valid. Ask the merchant for a new one.",
    checkoutName: "Checkout",
    expiredTitle: "Checkout expired",
    expired: "This checkout has expired. Return to the merchant to start again.",
    unavailableTitle: "Temporarily unavailable",
    unavailable: "This checkout cannot be reached right now. Please try again in a moment.",
    unknownTitle: "Payment status not known yet",
    unknown: "We could not confirm whether your payment went through. Please do not pay again yet: reload this page in a moment to see its status.",
    reload: "Reload the payment status",
    paidTitle: "Payment received",
    paid: "Thank you! Your payment was successful.",
    processingTitle: "Payment processing",
    processing: "Your payment is being processed. You will hear from the merchant once it completes.",
    trialStartedTitle: "Trial started",
    trialStarted: (p: { readonly days: number; readonly amount: string; readonly on: string }) =>
      `Your ${p.days}-day trial has started. Your card will first be charged ${p.amount} on ${p.on}; cancel before then and nothing more is charged.`,
    complete: "This checkout is complete. Thank you!",
    receipt: "Receipt",
    amountPaid: "Amount paid",
    paymentId: "Payment",
    subscriptionId: "Subscription",
    date: "Date",
    items: "Items",
    taxInvoice: "View the tax invoice"
  },

  /** The form's refusals, by `CheckoutForm.messages` key. */
  fieldErrors: messages,
  /** A declined card, by the processor's code. */
  declines: declineMessages,
  /** A discount code refused, by `Discount.Refusal`. */
  discountRefusals: customerMessages,
  formNotUtf8: notUtf8Message
}

export type Catalogue = typeof en
