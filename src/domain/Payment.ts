/**
 * Payments (docs/decisions.md §5): every charge, one-time or recurring. A pure state machine:
 *
 *   processing → succeeded | failed
 *   succeeded → partially_refunded | refunded
 *   partially_refunded → partially_refunded | refunded
 *
 * `failed` and `refunded` are final. Invariants: 0 ≤ refunded_amount ≤ total_amount; `refunded` iff
 * refunded_amount = total_amount > 0; fee_amount = 0 until the payment succeeds; net = total − fee − refunded.
 */
import { Data, DateTime, Either, Schema } from "effect"
import { AppliedDiscount } from "./Discount.js"
import { InvalidState, PaymentNotRefundable, RefundExceedsRemaining } from "./Errors.js"
import { AccountId, CheckoutSessionId, CustomerId, PaymentId, SubscriptionId } from "./Ids.js"
import { Metadata } from "./Metadata.js"
import * as Pagination from "./Pagination.js"
import { Amount, Currency } from "./Money.js"
import * as TaxDocument from "./TaxDocument.js"

export const PaymentStatus = Schema.Literal("processing", "succeeded", "failed", "refunded", "partially_refunded")
export type PaymentStatus = typeof PaymentStatus.Type
/**
 * Why a payment was made: a checkout (`payment`, or `subscription_create` for a subscription's first), a renewal or
 * its retries, a plan change's immediate charge, or a charge of a subscription's saved card on demand.
 */
export const BillingReason = Schema.Literal(
  "payment",
  "subscription_create",
  "subscription_renewal",
  "subscription_update",
  "subscription_charge"
)
export type BillingReason = typeof BillingReason.Type

export const PaymentCustomer = Schema.Struct({
  customer_id: CustomerId,
  name: Schema.NullOr(Schema.String),
  email: Schema.String,
  phone_number: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PaymentCustomer" })
export type PaymentCustomer = typeof PaymentCustomer.Type

/**
 * Why a card was declined (or refused when saved), in the customer's words, by the processor's code (the hosted
 * pages translate them by the same keys).
 */
export const declineMessages = {
  card_declined: "Your card was declined. Try another card.",
  insufficient_funds: "Your card has insufficient funds. Try another card.",
  expired_card: "Your card has expired. Try another card.",
  processing_error: "We could not process your card. Please try again."
}
export type DeclineCode = keyof typeof declineMessages
/** The code a page words a decline by: the generic one for a code it has no words for. */
export const declineCode = (code: string | null): DeclineCode =>
  code !== null && Object.hasOwn(declineMessages, code) ? code as DeclineCode : "card_declined"
export const declineMessage = (code: string | null): string => declineMessages[declineCode(code)]

/** The card as Fils keeps it: never the number, only what identifies it and the processor's opaque token. */
export const CardOnFile = Schema.Struct({
  brand: Schema.String,
  last4: Schema.String,
  exp_month: Schema.Int,
  exp_year: Schema.Int,
  token: Schema.String
})
export type CardOnFile = typeof CardOnFile.Type

const resourceFields = {
  object: Schema.Literal("payment"),
  payment_id: PaymentId,
  status: PaymentStatus,
  total_amount: Amount,
  refunded_amount: Amount,
  fee_amount: Amount,
  net_amount: Schema.Int,
  /** The VAT in `total_amount`, when the merchant charges VAT (docs/tax-documents.md); null otherwise. */
  tax: Schema.NullOr(Amount),
  currency: Currency,
  description: Schema.String,
  customer: Schema.NullOr(PaymentCustomer),
  checkout_session_id: Schema.NullOr(CheckoutSessionId),
  subscription_id: Schema.NullOr(SubscriptionId),
  billing_reason: BillingReason,
  /** The discount codes that came off `total_amount` (a checkout's code, a subscription's on its renewals). */
  discounts: Schema.Array(AppliedDiscount),
  metadata: Metadata,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  paid_at: Schema.NullOr(Schema.DateTimeUtc)
}

export const PaymentResource = Schema.Struct(resourceFields).annotations({ identifier: "Payment" })
/**
 * The stored payment: the resource, its owner, the card used, the processor's charge id (to ask how a `processing`
 * charge settled) and why it failed (if it did).
 */
export const Payment = Schema.Struct({
  ...resourceFields,
  account_id: AccountId,
  card: Schema.NullOr(CardOnFile),
  charge_id: Schema.NullOr(Schema.String),
  failure_code: Schema.NullOr(Schema.String),
  /** The lines as priced when the amount was fixed: its invoice shows them (their gross is `total_amount`). */
  tax_lines: Schema.NullOr(TaxDocument.TaxLines),
  /** Fils of its subscription's credit this charge spends besides the card (`Credit.ts`); 0 for most. */
  credit_applied: Amount
})
export type Payment = typeof Payment.Type

/** What a new payment is for: everything else about a payment starts the same way. */
export interface NewPayment {
  readonly paymentId: PaymentId
  readonly accountId: AccountId
  readonly livemode: boolean
  readonly amount: number
  readonly currency: Currency
  readonly description: string
  readonly customer: PaymentCustomer | null
  readonly checkoutSessionId: CheckoutSessionId | null
  readonly subscriptionId: SubscriptionId | null
  readonly billingReason: BillingReason
  readonly metadata: Metadata
  /** The saved card a renewal charges; none for a checkout, whose card the processor reports. */
  readonly card: CardOnFile | null
  /** The lines `amount` was priced from, with their VAT, when the merchant charges VAT. */
  readonly taxLines: TaxDocument.TaxLines | null
  /** The subscription's credit spent beside `amount` (none unless said). */
  readonly creditApplied?: number
  /** The discounts that came off `amount` (none when absent). */
  readonly discounts?: ReadonlyArray<AppliedDiscount> | undefined
}

/** A payment about to be charged: `processing`, nothing refunded, no fee until it succeeds. */
export const open = (payment: NewPayment, now: DateTime.Utc): Payment => ({
  object: "payment",
  payment_id: payment.paymentId,
  account_id: payment.accountId,
  livemode: payment.livemode,
  status: "processing",
  total_amount: payment.amount,
  refunded_amount: 0,
  fee_amount: 0,
  net_amount: payment.amount,
  tax: payment.taxLines === null ? null : TaxDocument.totals(payment.taxLines.lines).vat,
  currency: payment.currency,
  description: payment.description,
  customer: payment.customer,
  checkout_session_id: payment.checkoutSessionId,
  subscription_id: payment.subscriptionId,
  billing_reason: payment.billingReason,
  discounts: payment.discounts ?? [],
  metadata: payment.metadata,
  created_at: now,
  paid_at: null,
  card: payment.card,
  charge_id: null,
  failure_code: null,
  tax_lines: payment.taxLines,
  credit_applied: payment.creditApplied ?? 0
})

/**
 * The discounts whose codes a payment redeems: a checkout's (a use held while its charge is out, counted if it
 * succeeds). A renewal's discount was redeemed once, by its subscription's first payment.
 */
export const redeemedDiscounts = (p: Payment): ReadonlyArray<AppliedDiscount["discount_id"]> =>
  p.checkout_session_id === null ? [] : p.discounts.map((d) => d.discount_id)

/** `refund.succeeded` carries the payment after the refund plus what that refund returned. */
export const RefundedPaymentResource = Schema.Struct({ ...resourceFields, refund_amount: Amount }).annotations({
  identifier: "RefundedPayment"
})

export interface FeeSchedule {
  /** Basis points of the total. */
  readonly bps: number
  /** Fixed part, in minor units. */
  readonly fixed: number
}
export const defaultFees: FeeSchedule = { bps: 290, fixed: 100 }

/** round(total × bps / 10000) + fixed, capped at the total; in integers, exact for every safe amount. */
export const fee = (total: number, schedule: FeeSchedule): number =>
  Math.min(
    total,
    Number((BigInt(total) * BigInt(schedule.bps) + 5_000n) / 10_000n) + schedule.fixed
  )

/** What the processor said about a charge. */
/**
 * Whether the payment is paid in full by its subscription's credit: nothing to ask of the card, so it succeeds
 * without the processor (a renewal or plan change whose credit covers it).
 */
export const paidByCredit = (p: Pick<Payment, "total_amount" | "credit_applied">): boolean =>
  p.total_amount === 0 && p.credit_applied > 0

export type ChargeOutcome =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed"; readonly code: string }
  | { readonly _tag: "Processing" }

export type PaymentCommand =
  /**
   * The processor's answer to the charge, with the charge's id and the card it used when it names them (a
   * `Processing` answer records them too: the payment is asked about later by its charge).
   */
  | {
    readonly _tag: "Settle"
    readonly outcome: ChargeOutcome
    readonly chargeId?: string | null | undefined
    readonly card?: CardOnFile | null | undefined
  }
  | { readonly _tag: "Refund"; readonly amount: number }
  /** The subscription a succeeded first payment of a subscription checkout started. */
  | { readonly _tag: "AttachSubscription"; readonly subscriptionId: SubscriptionId }

/** What happened to a payment, by its id: each is recorded as an event whose `data` is the payment after it. */
export type PaymentEvent = Data.TaggedEnum<{
  PaymentSucceeded: { readonly payment_id: PaymentId }
  PaymentFailed: { readonly payment_id: PaymentId }
  /** A refund succeeded, returning `refund_amount`. */
  RefundSucceeded: { readonly payment_id: PaymentId; readonly refund_amount: number }
}>
export const PaymentEvent = Data.taggedEnum<PaymentEvent>()

export type PaymentEventType = "payment.succeeded" | "payment.failed" | "refund.succeeded"

/** The event's type on the wire (`GET /events`, webhooks). */
export const eventType: (event: PaymentEvent) => PaymentEventType = PaymentEvent.$match({
  PaymentSucceeded: () => "payment.succeeded" as const,
  PaymentFailed: () => "payment.failed" as const,
  RefundSucceeded: () => "refund.succeeded" as const
})

export interface PaymentTransition {
  readonly next: Payment
  /** Events to record, in order. */
  readonly events: ReadonlyArray<PaymentEvent>
}

export const isFinal = (status: PaymentStatus) => status === "failed" || status === "refunded"

const applyOutcome = (
  processing: Payment,
  command: Extract<PaymentCommand, { readonly _tag: "Settle" }>,
  now: DateTime.Utc,
  fees: FeeSchedule
): PaymentTransition => {
  const { outcome } = command
  const payment: Payment = {
    ...processing,
    charge_id: command.chargeId ?? processing.charge_id,
    card: command.card ?? processing.card
  }
  const id = { payment_id: payment.payment_id }
  switch (outcome._tag) {
    case "Processing":
      return { next: payment, events: [] }
    case "Succeeded": {
      const feeAmount = fee(payment.total_amount, fees)
      return {
        next: {
          ...payment,
          status: "succeeded",
          fee_amount: feeAmount,
          net_amount: payment.total_amount - feeAmount - payment.refunded_amount,
          paid_at: now,
          failure_code: null
        },
        events: [PaymentEvent.PaymentSucceeded(id)]
      }
    }
    case "Failed":
      return {
        next: { ...payment, status: "failed", fee_amount: 0, net_amount: payment.total_amount, failure_code: outcome.code },
        events: [PaymentEvent.PaymentFailed(id)]
      }
  }
}

/** Applies one command; a command the current state does not allow is refused and changes nothing. */
export const transition = (
  payment: Payment,
  command: PaymentCommand,
  now: DateTime.Utc,
  fees: FeeSchedule = defaultFees
): Either.Either<PaymentTransition, InvalidState | PaymentNotRefundable | RefundExceedsRemaining> => {
  switch (command._tag) {
    case "Settle":
      return payment.status === "processing"
        ? Either.right(applyOutcome(payment, command, now, fees))
        : Either.left(new InvalidState({ message: `Payment ${payment.payment_id} is already ${payment.status}` }))
    case "Refund": {
      if (payment.status !== "succeeded" && payment.status !== "partially_refunded") {
        return Either.left(new PaymentNotRefundable({ payment_id: payment.payment_id, status: payment.status }))
      }
      const remaining = payment.total_amount - payment.refunded_amount
      if (!Number.isSafeInteger(command.amount) || command.amount <= 0 || command.amount > remaining) {
        return Either.left(
          new RefundExceedsRemaining({ payment_id: payment.payment_id, requested: command.amount, remaining, pending: 0 })
        )
      }
      const refunded = payment.refunded_amount + command.amount
      return Either.right({
        next: {
          ...payment,
          status: refunded === payment.total_amount ? "refunded" : "partially_refunded",
          refunded_amount: refunded,
          net_amount: payment.total_amount - payment.fee_amount - refunded
        },
        events: [PaymentEvent.RefundSucceeded({ payment_id: payment.payment_id, refund_amount: command.amount })]
      })
    }
    case "AttachSubscription":
      return payment.status === "succeeded" && payment.billing_reason === "subscription_create" &&
          payment.subscription_id === null
        ? Either.right({ next: { ...payment, subscription_id: command.subscriptionId }, events: [] })
        : Either.left(
          new InvalidState({ message: `Payment ${payment.payment_id} cannot start a subscription` })
        )
  }
}

/** The invariants of docs/decisions.md §5; empty when all hold. */
export const violations = (p: Payment): ReadonlyArray<string> => {
  const out: Array<string> = []
  const paid = p.status === "succeeded" || p.status === "partially_refunded" || p.status === "refunded"
  if (p.refunded_amount < 0 || p.refunded_amount > p.total_amount) out.push("refunded_amount out of range")
  if ((p.status === "refunded") !== (p.refunded_amount === p.total_amount && p.total_amount > 0 && paid)) {
    out.push("refunded iff refunded_amount = total_amount > 0")
  }
  if (p.status === "partially_refunded" && !(p.refunded_amount > 0 && p.refunded_amount < p.total_amount)) {
    out.push("partially_refunded without a partial refund")
  }
  if (!paid && (p.fee_amount !== 0 || p.refunded_amount !== 0)) out.push("fee or refund on an unpaid payment")
  if (p.fee_amount < 0 || p.fee_amount > p.total_amount) out.push("fee out of range")
  if (p.net_amount !== p.total_amount - p.fee_amount - p.refunded_amount) out.push("net is not total - fee - refunded")
  if ((p.paid_at !== null) !== paid) out.push("paid_at set iff the payment succeeded")
  if (p.tax_lines !== null) {
    const priced = TaxDocument.totals(p.tax_lines.lines)
    if (priced.gross !== p.total_amount) out.push("tax lines' gross is not total_amount")
    if (priced.vat !== p.tax) out.push("tax is not the tax lines' VAT")
  } else if (p.tax !== null) out.push("tax without tax lines")
  return out
}

/** Where a payment stands in a newest-first list. */
export const position = Pagination.byCreation<Payment>((p) => p.created_at, (p) => p.payment_id)
