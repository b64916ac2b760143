/**
 * Domain errors. Each carries the stable `code` of the API (docs/api.md "Errors") and a human `message`; the HTTP
 * adapter decides the status. The code is a constructor default, so `new NotFound({ message })` is enough.
 */
import { Schema } from "effect"

const code = <const C extends string>(c: C) =>
  Schema.propertySignature(Schema.Literal(c)).pipe(Schema.withConstructorDefault(() => c))

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  code: code("INVALID_REQUEST"),
  message: Schema.String
}) {}

export class CurrencyNotSupported extends Schema.TaggedError<CurrencyNotSupported>()("CurrencyNotSupported", {
  code: code("CURRENCY_NOT_SUPPORTED"),
  message: Schema.String
}) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  code: code("UNAUTHORIZED"),
  message: Schema.String
}) {}

export class PaymentsDisabled extends Schema.TaggedError<PaymentsDisabled>()("PaymentsDisabled", {
  code: code("PAYMENTS_DISABLED"),
  message: Schema.String
}) {}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  code: code("NOT_FOUND"),
  message: Schema.String
}) {}

export class InvalidState extends Schema.TaggedError<InvalidState>()("InvalidState", {
  code: code("INVALID_STATE"),
  message: Schema.String
}) {}

export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", {
  code: code("IDEMPOTENCY_KEY_IN_USE"),
  message: Schema.String
}) {}

export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  code: code("IDEMPOTENCY_KEY_REUSED"),
  message: Schema.String
}) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  code: code("RATE_LIMITED"),
  message: Schema.String,
  /** Whole seconds until a request would be accepted again (sent as `Retry-After`, not in the body). */
  retryAfterSeconds: Schema.optionalWith(Schema.Int, { default: () => 1 })
}) {
  /** Too many of `what` (in the caller's words): refused for `seconds`, at least one, which the message gives. */
  static after(what: string, seconds: number): RateLimited {
    const retryAfterSeconds = Math.max(1, Math.ceil(seconds))
    return new RateLimited({ message: `Too many ${what}; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds })
  }
}

/**
 * A refund of more than remains of its payment, counting the refunds still pending (`remaining` is what may still
 * be refunded, in fils; `requested` undefined: "all that remains", and nothing does).
 */
export class RefundExceedsRemaining extends Schema.TaggedError<RefundExceedsRemaining>()("RefundExceedsRemaining", {
  code: code("INVALID_REQUEST"),
  payment_id: Schema.String,
  requested: Schema.optional(Schema.Number),
  remaining: Schema.Number,
  /** Fils held by refunds still pending. */
  pending: Schema.Number
}) {
  override get message(): string {
    if (this.requested !== undefined) {
      return `Refund amount must be a whole number of fils from 1 to ${this.remaining} (what remains of the payment)`
    }
    return this.pending > 0
      ? `Payment ${this.payment_id} has nothing left to refund: ${this.pending} fils are in refunds still pending`
      : `Payment ${this.payment_id} has nothing left to refund`
  }
}

/** A refund of a payment that has not succeeded (`status`: where it stands). */
export class PaymentNotRefundable extends Schema.TaggedError<PaymentNotRefundable>()("PaymentNotRefundable", {
  code: code("INVALID_STATE"),
  payment_id: Schema.String,
  status: Schema.String
}) {
  override get message(): string {
    return `Payment ${this.payment_id} is ${this.status}; only a succeeded payment can be refunded`
  }
}

/** A change the subscription's status does not allow (`change`: what was asked, in words). */
export class SubscriptionNotChangeable extends Schema.TaggedError<SubscriptionNotChangeable>()("SubscriptionNotChangeable", {
  code: code("INVALID_STATE"),
  subscription_id: Schema.String,
  status: Schema.String,
  change: Schema.String
}) {
  override get message(): string {
    return `Subscription ${this.subscription_id} is ${this.status}; cannot ${this.change}`
  }
}

/**
 * A renewal charge of the subscription (`payment_id`) is still at the processor, past the wait a change gives it:
 * nothing changed, and the change may be asked again.
 */
export class RenewalInProgress extends Schema.TaggedError<RenewalInProgress>()("RenewalInProgress", {
  code: code("INVALID_STATE"),
  subscription_id: Schema.String,
  payment_id: Schema.String
}) {
  override get message(): string {
    return "A charge of this subscription (a renewal, or a plan change's) is still in progress; try again in a few seconds"
  }
}

/** The processor refused a refund: nothing was returned, and the amount is free to refund again. */
export class RefundRefused extends Schema.TaggedError<RefundRefused>()("RefundRefused", {
  code: code("REFUND_REFUSED"),
  message: Schema.String
}) {}

/** The card's issuer refused to save it (a card update): nothing changed. `decline_code` is the processor's reason. */
export class CardRefused extends Schema.TaggedError<CardRefused>()("CardRefused", {
  code: code("CARD_DECLINED"),
  decline_code: Schema.String,
  message: Schema.String
}) {}

/** A value that must be unique in the account and mode (a discount's code) is another object's already. */
export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", {
  code: code("ALREADY_EXISTS"),
  message: Schema.String
}) {}

/**
 * A charge the card's issuer declined, so what it was to pay for was not done (a plan change with `prevent_change`):
 * the failed payment (`payment_id`) is on record, nothing else changed.
 */
export class ChargeDeclined extends Schema.TaggedError<ChargeDeclined>()("ChargeDeclined", {
  code: code("CARD_DECLINED"),
  payment_id: Schema.String,
  decline_code: Schema.String,
  message: Schema.String
}) {}

/**
 * A discount code another discount of the account already has in this mode (codes are compared whatever their case):
 * nothing changed.
 */
export class DiscountCodeTaken extends Schema.TaggedError<DiscountCodeTaken>()("DiscountCodeTaken", {
  code: code("ALREADY_EXISTS"),
  discount_code: Schema.String
}) {
  override get message(): string {
    return `A discount with the code ${this.discount_code} already exists in this mode (codes are compared ignoring case); choose another code`
  }
}

/** The store cannot be reached. Transient: callers may retry. */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  code: code("SERVICE_UNAVAILABLE"),
  message: Schema.String
}) {}

export const notFound = (what: string, id: string) => new NotFound({ message: `No such ${what}: '${id}'` })
