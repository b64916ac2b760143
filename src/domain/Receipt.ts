/**
 * A receipt: what a succeeded payment paid for, for the customer (the portal) and the merchant (the
 * dashboard). Only a payment that succeeded has one, refunded since or not.
 */
import type { CheckoutSession } from "./CheckoutSession.js"
import type { Payment } from "./Payment.js"
import type { Subscription } from "./Subscription.js"

export interface ReceiptLine {
  readonly name: string
  readonly quantity: number
  readonly unit_amount: number
  readonly amount: number
}

/** Whether the payment has a receipt: its charge succeeded (a refund later does not undo that). */
export const hasReceipt = (payment: Payment): boolean =>
  payment.status === "succeeded" || payment.status === "partially_refunded" || payment.status === "refunded"

/** What the payment's discount codes took off its lines' prices (the receipt shows each under the lines). */
export const discountOff = (payment: Payment): number => payment.discounts.reduce((sum, d) => sum + d.amount_off, 0)

/**
 * The lines: the checkout's cart for a checkout payment, the subscription's product for a renewal, else one line
 * of the payment's description. Their amounts, less the payment's discounts (`discountOff`), add up to its total.
 */
export const lines = (
  payment: Payment,
  from: { readonly session?: CheckoutSession | undefined; readonly subscription?: Subscription | undefined }
): ReadonlyArray<ReceiptLine> => {
  const cart = from.session?.product_cart.map((l) => ({
    name: l.name,
    quantity: l.quantity,
    unit_amount: l.unit_amount,
    amount: l.unit_amount * l.quantity
  }))
  const charged = payment.total_amount + discountOff(payment)
  if (cart !== undefined && cart.reduce((sum, l) => sum + l.amount, 0) === charged) return cart
  const sub = from.subscription
  if (sub !== undefined && sub.recurring_amount === charged && sub.recurring_amount % sub.quantity === 0) {
    return [{
      name: sub.name,
      quantity: sub.quantity,
      unit_amount: sub.recurring_amount / sub.quantity,
      amount: sub.recurring_amount
    }]
  }
  return [{ name: payment.description, quantity: 1, unit_amount: charged, amount: charged }]
}
