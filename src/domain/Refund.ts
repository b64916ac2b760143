/**
 * Refunds: money going back to the customer through the processor. A refund is reserved before the processor is
 * called (so refunds in flight together can never return more than the payment took), and ends once:
 *
 *   pending → succeeded   the processor returned the money: the payment's `refunded_amount` grows with it
 *   pending → refused     the processor refused it (or said nothing was made under its reference): released
 *
 * A pending refund counts against what remains to refund, not in `refunded_amount`, which holds confirmed refunds
 * only.
 */
import { Either, Schema } from "effect"
import { InvalidState, PaymentNotRefundable, RefundExceedsRemaining } from "./Errors.js"
import { AccountId, PaymentId, RefundId } from "./Ids.js"
import { Amount } from "./Money.js"
import * as Payment from "./Payment.js"
import { byCreation } from "./Pagination.js"
import { check, Text } from "./Text.js"

export const RefundStatus = Schema.Literal("pending", "succeeded", "refused")
export type RefundStatus = typeof RefundStatus.Type

/** Why the merchant refunds, in Stripe's words (docs/dashboard.md asks for one on every dashboard refund). */
export const RefundReason = Schema.Literal("requested_by_customer", "duplicate", "fraudulent")
export type RefundReason = typeof RefundReason.Type

/** The reasons in the merchant's words, in the order a form offers them. */
export const reasonWords: Readonly<Record<RefundReason, string>> = {
  requested_by_customer: "Requested by the customer",
  duplicate: "Duplicate payment",
  fraudulent: "Fraudulent payment"
}

/**
 * Characters a note cannot hold: it is written on the credit note's PINT AE e-invoice, whose XML 1.0 cannot carry
 * C0 control characters other than tab, line feed and carriage return (a vertical tab, a form feed), nor U+FFFE and
 * U+FFFF. (A lone surrogate is refused as text that cannot be stored.)
 */
const notInInvoice = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/

/** Why `note` cannot be a refund's note, in the merchant's words (`must be …`), or `undefined` when it can. */
export const noteProblem = (note: string): string | undefined => {
  if (note === "") return "must not be empty"
  const text = check(note, 0, 500)
  if (text !== true) return text
  return notInInvoice.test(note)
    ? "must not contain control characters such as a vertical tab or a form feed: the credit note's e-invoice cannot carry them"
    : undefined
}

/** The merchant's own note beside the reason: refused, never stripped, when the e-invoice could not carry it. */
export const RefundNote = Text(1, 500).pipe(Schema.filter((note) => noteProblem(note) ?? true))

/** Why a refund is made: its reason and, optionally, the merchant's note. */
export const RefundWhy = Schema.Struct({ reason: RefundReason, note: Schema.NullOr(RefundNote) })
export type RefundWhy = typeof RefundWhy.Type

export const Refund = Schema.Struct({
  refund_id: RefundId,
  payment_id: PaymentId,
  account_id: AccountId,
  livemode: Schema.Boolean,
  amount: Amount,
  status: RefundStatus,
  /** Why the processor refused it. */
  failure_reason: Schema.NullOr(Schema.String),
  /** The processor's id of the refund, once it answered. */
  processor_refund_id: Schema.NullOr(Schema.String),
  /** Why the merchant refunded (none for a refund made without one: the CLI's, the library's). */
  reason: Schema.NullOr(RefundReason),
  note: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
})
export type Refund = typeof Refund.Type

/** A refund's place in a newest-first list. */
export const position = byCreation<Refund>((r) => r.created_at, (r) => r.refund_id)

/** A refund's reason and note in words (`Requested by the customer: wrong size`); none without a reason. */
export const whyText = (refund: Pick<Refund, "reason" | "note">): string | undefined =>
  refund.reason === null ? undefined : `${reasonWords[refund.reason]}${refund.note === null ? "" : `: ${refund.note}`}`

/** What the refunds still pending of a payment hold back. */
export const pendingAmount = (refunds: ReadonlyArray<Refund>): number =>
  refunds.reduce((sum, r) => sum + (r.status === "pending" ? r.amount : 0), 0)

/**
 * Reserves a refund of `amount` (default: all that remains) of `payment`, given its refunds still pending. The
 * payment's own rule (`Payment.transition`'s `Refund`) decides, applied as if the pending refunds had succeeded:
 * refused for a payment that is not succeeded or partially refunded, or for more than remains (what the pending
 * refunds hold named in the refusal).
 */
export const reserve = (
  payment: Payment.Payment,
  pending: ReadonlyArray<Refund>,
  amount: number | undefined,
  refundId: RefundId,
  now: Payment.Payment["created_at"],
  why: RefundWhy | null = null
): Either.Either<Refund, InvalidState | PaymentNotRefundable | RefundExceedsRemaining> => {
  const held = pendingAmount(pending)
  const asIfDone: Payment.Payment = { ...payment, refunded_amount: payment.refunded_amount + held }
  const remaining = asIfDone.total_amount - asIfDone.refunded_amount
  const requested = amount ?? remaining
  if (amount === undefined && remaining <= 0) {
    return Either.left(new RefundExceedsRemaining({ payment_id: payment.payment_id, remaining: 0, pending: held }))
  }
  const decided = Either.mapLeft(
    Payment.transition(asIfDone, { _tag: "Refund", amount: requested }, now),
    (refused) => refused._tag === "RefundExceedsRemaining" ? new RefundExceedsRemaining({ ...refused, pending: held }) : refused
  )
  return Either.map(decided, () => ({
    refund_id: refundId,
    payment_id: payment.payment_id,
    account_id: payment.account_id,
    livemode: payment.livemode,
    amount: requested,
    status: "pending" as const,
    failure_reason: null,
    processor_refund_id: null,
    reason: why?.reason ?? null,
    note: why?.note ?? null,
    created_at: now,
    updated_at: now
  }))
}

/** What the processor said about a pending refund. */
export type RefundCommand =
  | { readonly _tag: "Confirm"; readonly processorRefundId: string }
  | { readonly _tag: "Refuse"; readonly reason: string }

/** Ends a pending refund; a refund already ended is refused (another server recorded it first). */
export const conclude = (
  refund: Refund,
  command: RefundCommand,
  now: Payment.Payment["created_at"]
): Either.Either<Refund, InvalidState> =>
  refund.status !== "pending"
    ? Either.left(new InvalidState({ message: `Refund ${refund.refund_id} is already ${refund.status}` }))
    : Either.right(
      command._tag === "Confirm"
        ? { ...refund, status: "succeeded", processor_refund_id: command.processorRefundId, updated_at: now }
        : { ...refund, status: "refused", failure_reason: command.reason, updated_at: now }
    )
