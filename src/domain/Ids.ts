/**
 * Identifiers: a type prefix, an underscore, then 32 lowercase hex characters.
 *
 * The 128 bits are laid out as a UUIDv7 (48-bit millisecond timestamp first), so ids sort by creation time:
 * B-tree inserts stay local and keyset pagination can tie-break on the id.
 */
import { Schema } from "effect"

const idSchema = <const P extends string>(prefix: P, brand: string, description: string) =>
  Schema.String.pipe(
    Schema.pattern(new RegExp(`^${prefix}_[0-9a-f]{32}$`)),
    Schema.brand(brand),
    Schema.annotations({
      identifier: brand,
      description,
      examples: [`${prefix}_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f` as never]
    })
  )

export const AccountId = idSchema("acct", "AccountId", "Account identifier")
export type AccountId = typeof AccountId.Type
export const ApiKeyId = idSchema("key", "ApiKeyId", "API key identifier (not the secret)")
export type ApiKeyId = typeof ApiKeyId.Type
export const ProductId = idSchema("pdt", "ProductId", "Product identifier")
export type ProductId = typeof ProductId.Type
export const CustomerId = idSchema("cus", "CustomerId", "Customer identifier")
export type CustomerId = typeof CustomerId.Type
export const PaymentId = idSchema("pay", "PaymentId", "Payment identifier")
export type PaymentId = typeof PaymentId.Type
export const SubscriptionId = idSchema("sub", "SubscriptionId", "Subscription identifier")
export type SubscriptionId = typeof SubscriptionId.Type
export const CheckoutSessionId = idSchema("cks", "CheckoutSessionId", "Checkout session identifier")
export type CheckoutSessionId = typeof CheckoutSessionId.Type
export const WebhookId = idSchema("wh", "WebhookId", "Webhook endpoint identifier")
export type WebhookId = typeof WebhookId.Type
export const EventId = idSchema("evt", "EventId", "Event identifier")
export type EventId = typeof EventId.Type
export const DeliveryId = idSchema("dlv", "DeliveryId", "Webhook delivery identifier")
export type DeliveryId = typeof DeliveryId.Type
export const RefundId = idSchema("ref", "RefundId", "Refund identifier (the processor's idempotency key for it)")
export type RefundId = typeof RefundId.Type
export const UserId = idSchema("usr", "UserId", "Dashboard user identifier")
export type UserId = typeof UserId.Type
export const AuditId = idSchema("aud", "AuditId", "Dashboard audit entry identifier")
export type AuditId = typeof AuditId.Type
export const PortalSessionId = idSchema("cps", "PortalSessionId", "Customer portal session identifier")
export type PortalSessionId = typeof PortalSessionId.Type
export const InvoiceId = idSchema("inv", "InvoiceId", "Tax invoice identifier")
export type InvoiceId = typeof InvoiceId.Type
export const CreditNoteId = idSchema("cn", "CreditNoteId", "Tax credit note identifier")
export type CreditNoteId = typeof CreditNoteId.Type
export const DiscountId = idSchema("dsc", "DiscountId", "Discount identifier")
export type DiscountId = typeof DiscountId.Type
export const TestClockId = idSchema("clk", "TestClockId", "Test clock identifier")
export type TestClockId = typeof TestClockId.Type
export const RequestLogId = idSchema("log", "RequestLogId", "Request log line identifier")
export type RequestLogId = typeof RequestLogId.Type

export const prefixes = {
  account: "acct",
  apiKey: "key",
  product: "pdt",
  customer: "cus",
  payment: "pay",
  subscription: "sub",
  checkoutSession: "cks",
  webhook: "wh",
  event: "evt",
  delivery: "dlv",
  refund: "ref",
  user: "usr",
  audit: "aud",
  portalSession: "cps",
  invoice: "inv",
  creditNote: "cn",
  discount: "dsc",
  testClock: "clk",
  requestLog: "log"
} as const
export type Prefix = (typeof prefixes)[keyof typeof prefixes]

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")

/**
 * The 32 hex characters of a UUIDv7: 48 bits of `millis`, version nibble 7, 12 random bits, variant bits 10,
 * 62 random bits. `random` supplies four uint32 words (only the bits needed are used).
 */
export const uuidv7Hex = (millis: number, random: readonly [number, number, number, number]): string => {
  const ms = Math.max(0, Math.floor(millis))
  const high = Math.floor(ms / 0x1000000) // upper 24 bits of the 48
  const low = ms % 0x1000000 // lower 24 bits
  const randA = random[0] & 0xfff
  const randB1 = (random[1] & 0x3fff) | 0x8000
  const randB2 = random[2] >>> 0
  const randB3 = random[3] & 0xffff
  return hex(high, 6) + hex(low, 6) + "7" + hex(randA, 3) + hex(randB1, 4) + hex(randB2, 8) + hex(randB3, 4)
}

/** The creation time encoded in an id's first 48 bits. */
export const idMillis = (id: string): number => {
  const body = id.slice(id.indexOf("_") + 1)
  return parseInt(body.slice(0, 12), 16)
}

/**
 * The smallest id of `prefix` made at `millis` or later: every id made before `millis` sorts below it (the time comes
 * first), so "made before" is a range of the primary key.
 */
export const firstIdAt = (prefix: Prefix, millis: number): string => `${prefix}_${uuidv7Hex(millis, [0, 0, 0, 0])}`

/** Decodes an untrusted string as the given id type; `undefined` when it does not match. */
export const parseId = <S extends Schema.Schema<any, string>>(schema: S) => {
  const is = Schema.is(schema)
  return (raw: string): S["Type"] | undefined => (is(raw) ? raw : undefined)
}
