/**
 * Every English string of the customer's pages (the hosted checkout, the portal, receipts). `Catalogue` is this
 * module's shape: the Arabic catalogue (`ar.ts`) must have every key, so a missing translation fails the typecheck.
 * Functions take what a sentence needs, already formatted (amounts, dates), so each language orders it its own way.
 */
import { messages } from "../../../src/domain/CheckoutForm.js"
import { staleFormMessage } from "../../../src/domain/CheckoutSession.js"
import { customerMessages } from "../../../src/domain/Discount.js"
import { declineMessages } from "../../../src/domain/Payment.js"
import type { BillingInterval } from "../../../src/domain/Product.js"
import { notUtf8Message, repeatedMessage } from "../html/Forms.js"
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
  /** Between the parts of a list. */
  comma: ", ",
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
    receiptPayerOnly: "Its receipt is shown only in the browser that paid.",
    receipt: "Receipt",
    amountPaid: "Amount paid",
    paymentId: "Payment",
    subscriptionId: "Subscription",
    date: "Date",
    items: "Items",
    taxInvoice: "View the tax invoice",
    staleForm: staleFormMessage,
    /** A submission refused by the session's state (a charge already in progress): the engine's words. */
    notPayableNow: (message: string) => message
  },

  portal: {
    title: (merchant: string) => `${merchant}: your account`,
    yourMerchant: "Your merchant",
    questions: (email: Raw) => html`Questions? Write to ${email}`,
    signedInAs: (who: Raw) => html`Signed in as ${who}`,
    subscriptions: "Subscriptions",
    noSubscriptions: "You have no subscriptions.",
    payments: "Payments",
    noPayments: "You have no payments yet.",
    documents: "Tax invoices and credit notes",
    date: "Date",
    description: "Description",
    amount: "Amount",
    status: "Status",
    receipt: "Receipt",
    document: "Document",
    refunded: (amount: string) => `${amount} refunded`,
    taxInvoice: "Tax invoice",
    creditNote: (invoice: string) => `Credit note (invoice ${invoice})`,
    returnTo: (merchant: string) => `Return to ${merchant}`,
    signOut: "Sign out",
    statuses: {
      active: "Active",
      on_hold: "Payment overdue",
      cancelled: "Cancelled",
      succeeded: "Paid",
      partially_refunded: "Partly refunded",
      refunded: "Refunded",
      failed: "Failed",
      processing: "Processing"
    },
    card: (p: { readonly brand: string; readonly last4: string; readonly expiry: string }) => `${p.brand} •••• ${p.last4}, expires ${p.expiry}`,
    cardLine: (card: string) => `Card: ${card}`,
    cancelledOn: (date: string) => `Cancelled on ${date}.`,
    overdue: (p: { readonly due: string; readonly retry: string | null }) =>
      `The payment due on ${p.due} was declined.${p.retry === null ? "" : ` We will try again on ${p.retry}.`} Update your card to pay it now.`,
    endsOn: (date: string) => `Ends on ${date}; you will not be charged again.`,
    endsBadge: (date: string) => `Ends ${date}`,
    nextPayment: (amount: string, date: string) => `Next payment of ${amount} on ${date}.`,
    updateCardAndPay: "Update card and pay",
    updateCard: "Update card",
    changePlan: "Change plan",
    keepPlan: (name: string) => `Keep ${name}`,
    keepSubscription: "Keep subscription",
    cancelAtPeriodEnd: "Cancel at period end",
    changesTo: (name: string, date: string) => `Changes to ${name} on ${date}.`,
    credit: (amount: string) => `Credit: ${amount}, used for your next payments.`,
    confirmCancelTitle: "Cancel at the end of the period?",
    confirmCancel: (name: string, date: string) =>
      `${name} will end on ${date}, at the end of the period you have paid for. You will not be charged again. Until then nothing changes, and you can keep it any time before that date.`,
    confirmCancelButton: "Yes, cancel at period end",
    keepIt: "No, keep my subscription",
    cardTitle: (merchant: string) => `Update your card: ${merchant}`,
    cardHeading: (name: string) => `Update the card for ${name}`,
    cardNow: (card: string) => `Now: ${card}.`,
    overdueCharged: (amount: string) => ` The overdue payment of ${amount} will be charged to the new card at once.`,
    fromNextPayment: " The new card is used from the next payment on.",
    saveCardAndPay: (amount: string) => `Save card and pay ${amount}`,
    saveCard: "Save card",
    neverStored: "Your card number is never stored.",
    back: "Back to your account",
    openTitle: "Open your account",
    openText: "Manage your subscriptions, cards and receipts. This link works once: the button below opens it on this device.",
    openButton: "Open my account",
    unavailableTitle: "Temporarily unavailable",
    unavailable: "Please try again in a moment.",
    endedTitle: "Your session has ended",
    ended: "For your security, portal sessions last an hour. Return to the merchant's site or e-mail and open a new link.",
    notFoundTitle: "Not found",
    notFound: "There is nothing here.",
    notSentTitle: "Not sent",
    notSent: "This form was not sent from this page, so nothing was changed. Reload the page and try again.",
    linkUnknownTitle: "Link not valid",
    linkUnknown: "This link is not a valid account link. Ask the merchant for a new one.",
    linkUsedTitle: "Link already used",
    linkUsed: "This link has already been used, and works only once. Ask the merchant for a new link to manage your account.",
    linkExpiredTitle: "Link expired",
    linkExpired: "This link has expired: links work for an hour after they are sent. Ask the merchant for a new one.",
    askSupport: (email: Raw) => html`For a new link, write to ${email}.`,
    notOpenedTitle: "Not opened",
    notOpened: "This link was not opened from its own page. Open the link from your e-mail again.",
    signedOutTitle: "Signed out",
    nothingChangedTitle: "Nothing changed",
    chooseEnd: "Choose whether the subscription ends at the period end.",
    cancelledTitle: "Subscription cancelled",
    cancelledCard: "This subscription is cancelled; its card cannot be changed.",
    cardOutOfDate: "This form is out of date, so nothing changed. Please enter your card again.",
    savedButDeclined: (decline: string) => `Your new card is saved, but the overdue payment was declined: ${decline}`,
    processorDown: "We could not reach the card processor, so nothing changed. Please try again in a moment.",
    notices: {
      cancel_scheduled: "Your subscription will end at the end of the current period. You will not be charged again.",
      cancel_undone: "Your subscription will continue. Nothing else changed.",
      card_saved: "Your new card is saved. It will be used for your next payment.",
      card_paid: "Your new card is saved and the overdue payment went through. Your subscription is active again.",
      card_processing: "Your new card is saved. The overdue payment is being processed; this page will show it once it completes.",
      plan_changed: "Your plan is changed. Your payment, if any, is listed below.",
      plan_scheduled: "Your plan will change at your next payment. Until then, nothing changes.",
      plan_kept: "You keep your current plan: the scheduled change is cancelled.",
      plan_processing: "Your payment is being processed; your plan changes once it completes.",
      signed_out: "You are signed out."
    },
    print: "Print this page (Ctrl+P or ⌘P) to keep a copy or save it as a PDF.",
    receiptTitle: (id: string, merchant: string) => `Receipt ${id}: ${merchant}`,
    paymentLabel: "Payment",
    billedTo: "Billed to",
    cardLabel: "Card",
    lines: "Lines",
    item: "Item",
    qty: "Qty",
    unitPrice: "Unit price",
    refundedOn: (date: string) => `Refunded on ${date}`,
    refundInProgress: (date: string) => `Refund in progress (${date})`,
    netAfterRefunds: "Net after refunds",
    planTitle: (merchant: string) => `Change your plan: ${merchant}`,
    changeYourPlan: "Change your plan",
    planNow: (plan: Raw) => html`Now: ${plan}.`,
    refusalScheduled: (name: string, date: string) => `Your plan already changes to ${name} on ${date}. To choose another, keep your current plan first.`,
    refusalPending: "A change of your plan is waiting for its payment. Please try again in a moment.",
    refusalOnHold: "Your last payment is overdue: update your card to pay it, then you can change your plan.",
    refusalEnded: "This subscription has ended, so its plan cannot change.",
    noPlans: "No other plans are offered here. Please contact us to change your plan.",
    plans: "Plans",
    yourPlanNow: "(your plan now)",
    quantity: "Quantity",
    review: "Review the change",
    seeFirst: "You see what you will pay before anything changes.",
    choosePlan: "Choose a plan.",
    quantityRange: "Enter a whole number from 1 to 1000.",
    reviewTitle: (merchant: string) => `Review your new plan: ${merchant}`,
    reviewHeading: "Review your new plan",
    yourPlan: "Your plan now",
    newPlan: "Your new plan",
    when: "When",
    atNextPayment: (date: string) => `On ${date}, at your next payment`,
    today: "Today",
    chargedToday: "Charged today",
    nothingCharged: (amount: string) => `Nothing: ${amount}.`,
    firstPeriod: (interval: BillingInterval | null) => `, its first ${interval ?? "period"}`,
    offBeforeVat: " (off the price before VAT)",
    creditFor: (p: { readonly of: "price" | "unused" | null; readonly name: string; readonly balance: boolean }) =>
      `Credit${p.of === null ? "" : ` for ${p.of === "price" ? "the price" : "the unused part"} of ${p.name}`}${p.balance ? " and your credit balance" : ""}`,
    totalToday: "Total today",
    includingVat: (amount: string) => `(including VAT ${amount})`,
    fromThen: "From then",
    fromThenValue: (amount: string, every: string, date: string) => `${amount} ${every}, from ${date}`,
    nextPaymentLabel: "Next payment",
    nextPaymentThen: (amount: string, date: string, every: string) => `${amount} on ${date}, then ${every}`,
    nextPaymentLessCredit: (p: { readonly amount: string; readonly date: string; readonly recurring: string; readonly every: string }) =>
      `${p.amount} on ${p.date} (less your credit), then ${p.recurring} ${p.every}`,
    creditLeft: "Credit left",
    creditLeftValue: (amount: string) => `${amount}, used for your next payments`,
    confirmPay: (amount: string) => `Confirm and pay ${amount}`,
    confirmChange: "Confirm the change",
    declinedNoChange: "If your card is declined, your plan does not change.",
    chooseAnother: "Choose another plan",
    cannotChange: (why: string) => `This change cannot be made: ${why}`,
    planDeclined: (decline: string) => `${decline} Your plan was not changed.`,
    planUnavailable: "We could not make the change just now, so nothing changed. Please try again in a moment.",
    planStale: "Something changed since you saw this page, so nothing was charged. Please check the figures below and confirm again.",
    planOutOfDate: "This page was out of date, so nothing changed. Please check the figures below and confirm again."
  },

  /** The form's refusals, by `CheckoutForm.messages` key. */
  fieldErrors: messages,
  /** A declined card, by the processor's code. */
  declines: declineMessages,
  /** A discount code refused, by `Discount.Refusal`. */
  discountRefusals: customerMessages,
  formNotUtf8: notUtf8Message,
  formRepeated: repeatedMessage,

  /**
   * The engine's refusals of a portal change, by its error (`Refusals.ts`): English keeps the engine's own words
   * (`message`); other languages word them from the error's tag and data.
   */
  refusals: {
    notChangeable: (p: { readonly status: string; readonly message: string }) => p.message,
    renewalInProgress: (message: string) => message,
    rateLimited: (p: { readonly seconds: number; readonly message: string }) => `${p.message}.`,
    notNow: (message: string) => message,
    invalid: (message: string) => message
  }
}

export type Catalogue = typeof en
