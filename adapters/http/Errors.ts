/**
 * Errors on the wire: every one is exactly `{ code, message }` with the status of docs/decisions.md §8. The domain's
 * tagged errors are encoded through these schemas (no `_tag` in the body), and the typed client decodes them back.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { DiscountNotRedeemable } from "../../src/domain/Discount.js"
import * as Errors from "../../src/domain/Errors.js"

/** Errors only the HTTP layer raises. */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  code: Schema.propertySignature(Schema.Literal("METHOD_NOT_ALLOWED")).pipe(
    Schema.withConstructorDefault(() => "METHOD_NOT_ALLOWED" as const)
  ),
  message: Schema.String
}) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  code: Schema.propertySignature(Schema.Literal("PAYLOAD_TOO_LARGE")).pipe(
    Schema.withConstructorDefault(() => "PAYLOAD_TOO_LARGE" as const)
  ),
  message: Schema.String
}) {}

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
  code: Schema.propertySignature(Schema.Literal("INTERNAL_ERROR")).pipe(
    Schema.withConstructorDefault(() => "INTERNAL_ERROR" as const)
  ),
  message: Schema.String
}) {}

/** A card the issuer declined, on the wire; the domain's errors that say which charge are sent under its code. */
export class CardDeclined extends Schema.TaggedError<CardDeclined>()("CardDeclined", {
  code: Schema.propertySignature(Schema.Literal("CARD_DECLINED")).pipe(
    Schema.withConstructorDefault(() => "CARD_DECLINED" as const)
  ),
  message: Schema.String
}) {}

/** Each wire code's status (docs/decisions.md §8), in one place: the schemas below and `statusOf` read it. */
const statusByCode = {
  INVALID_REQUEST: 400,
  CURRENCY_NOT_SUPPORTED: 400,
  UNAUTHORIZED: 401,
  CARD_DECLINED: 402,
  PAYMENTS_DISABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  ALREADY_EXISTS: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503
} as const
type Code = keyof typeof statusByCode
const isCode = (code: string): code is Code => Object.hasOwn(statusByCode, code)

type ErrorClass<Self> = Schema.Schema<Self, any, never> & (new(props: { readonly message: string }) => Self)

/**
 * The wire schema of one error class: `{ code: <literal>, message }` <-> the class instance. The domain's errors
 * that say more about a situation (`more`: `SubscriptionNotChangeable` is an `INVALID_STATE`) are sent under the
 * same code, with their own message; a client reads them back as the general class.
 */
const wire = <
  Self extends { readonly code: Code; readonly message: string },
  const More extends ReadonlyArray<abstract new(...args: ReadonlyArray<any>) => { readonly code: Self["code"]; readonly message: string }> = []
>(
  cls: ErrorClass<Self>,
  code: Self["code"],
  description: string,
  more?: More
) =>
  Schema.transform(
    Schema.Struct({ code: Schema.Literal(code), message: Schema.String }),
    Schema.declare((u: unknown): u is Self | InstanceType<More[number]> =>
      u instanceof cls || (more ?? []).some((c) => u instanceof c), {
      identifier: `${code}Error`
    }),
    {
      strict: true,
      decode: ({ message }) => new cls({ message }),
      encode: (error) => ({ code, message: error.message }) as const
    }
  ).annotations({
    ...HttpApiSchema.annotations({ status: statusByCode[code], description }),
    identifier: code,
    description
  })

export const InvalidRequest = wire(
  Errors.InvalidRequest,
  "INVALID_REQUEST",
  "The request is malformed or invalid",
  [Errors.RefundExceedsRemaining, DiscountNotRedeemable]
)
export const CurrencyNotSupported = wire(
  Errors.CurrencyNotSupported,
  "CURRENCY_NOT_SUPPORTED",
  "The currency is not enabled for the account"
)
export const Unauthorized = wire(
  Errors.Unauthorized,
  "UNAUTHORIZED",
  "Missing, malformed, unknown or revoked API key"
)
export const PaymentsDisabled = wire(
  Errors.PaymentsDisabled,
  "PAYMENTS_DISABLED",
  "Live payments are not enabled for the account"
)
export const CardDeclinedError = wire(
  CardDeclined,
  "CARD_DECLINED",
  "The card was declined, so what the charge was for was not done",
  [Errors.ChargeDeclined, Errors.CardRefused]
)
export const NotFound = wire(Errors.NotFound, "NOT_FOUND", "No such resource (in this account and mode)")
export const MethodNotAllowedError = wire(MethodNotAllowed, "METHOD_NOT_ALLOWED", "The path does not accept this method")
export const InvalidState = wire(
  Errors.InvalidState,
  "INVALID_STATE",
  "The resource's state does not allow this",
  [Errors.SubscriptionNotChangeable, Errors.RenewalInProgress, Errors.PaymentNotRefundable]
)
export const AlreadyExists = wire(
  Errors.AlreadyExists,
  "ALREADY_EXISTS",
  "Another object of the account and mode has this unique value (a discount's code)",
  [Errors.DiscountCodeTaken]
)
export const IdempotencyKeyInUse = wire(
  Errors.IdempotencyKeyInUse,
  "IDEMPOTENCY_KEY_IN_USE",
  "A request with this Idempotency-Key is still running"
)
export const PayloadTooLargeError = wire(PayloadTooLarge, "PAYLOAD_TOO_LARGE", "The body is larger than 1 MiB")
export const IdempotencyKeyReused = wire(
  Errors.IdempotencyKeyReused,
  "IDEMPOTENCY_KEY_REUSED",
  "The Idempotency-Key was used with different parameters"
)
export const RateLimited = wire(
  Errors.RateLimited,
  "RATE_LIMITED",
  "Too many requests; see the Retry-After header"
)
export const Internal = wire(InternalError, "INTERNAL_ERROR", "Unexpected error")
export const ServiceUnavailable = wire(
  Errors.StoreUnavailable,
  "SERVICE_UNAVAILABLE",
  "The store cannot be reached; retry later"
)

/** The HTTP status of any error the engine or this layer raises. */
export const statusOf = (error: { readonly code: string }): number => isCode(error.code) ? statusByCode[error.code] : 500

/** Whether `u` is one of the errors above (a `{ code, message }` tagged error). */
export const isApiError = (u: unknown): u is { readonly _tag: string; readonly code: string; readonly message: string } =>
  typeof u === "object" && u !== null && "_tag" in u && "code" in u && typeof u.code === "string" &&
  isCode(u.code) && "message" in u
