/**
 * A subscription's plan changes in English: the rows of the subscription's page about them, the change form, its
 * preview and confirmation, what the change did, and cancelling a scheduled change. Amounts and times come formatted.
 */
import type { OnPaymentFailure } from "../../../../../src/domain/PlanPolicy.js"
import { html, type Raw } from "../../../html/Html.js"

export const planChanges = {
  cannotChange: (role: string) => `A ${role} cannot change subscriptions.`,
  /** A plan: the product's name, the quantity, its price and interval (`every month`, from `products.list.every`). */
  plan: (name: string, quantity: number, amount: string, every: string) => `${name} × ${quantity}: ${amount} ${every}`,
  /** From one time to another. */
  period: (from: string, to: string) => `${from} to ${to}`,
  subscription: "Subscription",
  customer: "Customer",
  currentPeriod: "Current period",
  creditBalance: "Credit balance",
  scheduledChange: "Scheduled change",
  /** A scheduled change: to a plan, on a time. */
  scheduledTo: (plan: string, on: string) => `To ${plan}, on ${on}`,
  backToSubscription: "Back to the subscription",
  /** The subscription page's rows. */
  rows: {
    credit: (amount: string, positive: boolean) => `${amount}${positive ? " (its next charges use it before the card)" : ""}`,
    cancelScheduled: "Cancel scheduled change",
    planChange: "Plan change",
    /** A change waiting for its charge (the payment's id follows, linked). */
    waiting: (plan: string) => `To ${plan}, waiting for its charge`,
    changePlan: "Change plan"
  },
  /** What a declined charge does: in short (the form's options) and in full (the preview). */
  onFailure: {
    apply_change: "change; the subscription goes on hold",
    prevent_change: "keep the current plan"
  } satisfies Record<OnPaymentFailure, string>,
  onFailureFull: {
    apply_change: "change anyway: the subscription goes on hold and its first period is retried as a failed renewal is",
    prevent_change: "keep the current plan: nothing changes but the failed payment"
  } satisfies Record<OnPaymentFailure, string>,
  form: {
    title: "Change plan",
    planNow: "Plan now",
    chooseProduct: "Choose a product",
    /** A product to change to: its name, price and interval, and whether the subscription is on it now. */
    productOption: (name: string, price: string, every: string, current: boolean) =>
      `${name}: ${price} ${every}${current ? " (its product now)" : ""}`,
    newProduct: "New product",
    quantity: "Quantity (1 to 1000)",
    billingMode: "Billing mode",
    productPolicy: "The new product's policy",
    takesEffect: "Takes effect",
    productPolicyElseNow: "The new product's policy (else now)",
    ifDeclined: "If the card is declined",
    preview: "Preview the change",
    help: "The preview shows what is charged now; nothing changes until you confirm it."
  },
  preview: {
    title: "Preview the plan change",
    from: "From",
    to: "To",
    kind: "Kind",
    upgrade: "an upgrade (it costs more per day)",
    downgrade: "a downgrade (it costs no more per day)",
    chargedNow: "Charged now",
    nothingNowScheduled: (renewal: string) => `Nothing now. The renewal on ${renewal} changes the plan and charges the new one.`,
    nothingNow: "Nothing now. The plan changes at once; the billing date stays, and the next renewal charges the new plan.",
    line: "Line",
    amount: "Amount",
    vat: "VAT",
    firstPeriod: (name: string, quantity: number) => `${name} × ${quantity}, its first period`,
    discount: (code: string, beforeVat: boolean) => `Discount ${code}${beforeVat ? " (off the price before VAT)" : ""}`,
    lessCredit: "Less credit",
    chargedToCard: "Charged to the card now",
    credit: "Credit",
    balanceNow: "Balance now",
    /** The old plan's credit: its whole price, or its unused time's share of the period (`share`, `37.50`). */
    unused: (name: string, quantity: number, share: string | null) =>
      `For ${name} × ${quantity}: ${share === null ? "its price" : `its unused time (${share} % of the period)`}`,
    usedForCharge: "Used for this charge",
    leftOnSubscription: "Left on the subscription",
    after: "The subscription after the change",
    plan: "Plan",
    confirmCharge: (amount: string) => `Confirm: charge ${amount} now`,
    confirmSchedule: "Confirm: schedule the change",
    confirm: "Confirm the change",
    holds: (minutes: number) =>
      `This preview holds for ${minutes} minutes: confirmed later, or once the subscription or the product has changed, it is shown again with the new figures and nothing is charged.`,
    changeChoices: "Change the choices"
  },
  refusals: {
    outOfDate: "This form is out of date, so nothing was changed. Check the preview below and confirm it again.",
    alreadySent: "This form was already sent with other choices, so nothing more was changed. Check the subscription and change it again from its page.",
    notNow: "The change may have begun but could not be finished just now. Open the subscription in a moment to see whether it was made before changing it again."
  },
  /** What a confirmed change did (a plan's name and quantity, amounts and times come formatted). */
  done: {
    scheduled: (name: string, quantity: number, on: string) => `The change to ${name} × ${quantity} is scheduled for ${on}.`,
    changedNothingCharged: (name: string, quantity: number, renewal: string) =>
      `Changed to ${name} × ${quantity}; nothing was charged now. The renewal on ${renewal} charges the new plan.`,
    declined: (code: string, name: string, quantity: number) =>
      `The card was declined (${code}): the plan changed to ${name} × ${quantity} and the subscription is on hold until its first period is paid (retried as a failed renewal is).`,
    processing: (amount: string) => `The charge of ${amount} is processing: the plan changes when the processor answers.`,
    changedCharged: (name: string, quantity: number, amount: string) => `Changed to ${name} × ${quantity}; charged ${amount}.`
  },
  cancel: {
    noneTitle: "No scheduled change",
    none: "This subscription has no scheduled plan change.",
    title: "Cancel the scheduled change",
    willNotBeMade: (plan: string, on: string): Raw => html`The change to <strong>${plan}</strong> scheduled for ${on} will not be made.`,
    /** The renewal after the cancellation: its amount, and the credit it uses first (`null`: none). */
    stays: (plan: string, renewal: string, amount: string, credit: string | null) =>
      `The subscription stays on ${plan}: its renewal on ${renewal} charges ${amount}${credit === null ? "" : ` (after ${credit} of its credit)`}. Nothing is charged now.`,
    button: "Cancel the scheduled change",
    keep: "Keep it",
    cancelled: (renewal: string) => `The scheduled change was cancelled: the renewal on ${renewal} keeps the current plan.`
  }
}
