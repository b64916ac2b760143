/**
 * Table rows and their mapping to the domain. Columns are named like the domain fields; node-postgres returns
 * `timestamptz` as a `Date`, `jsonb` parsed, and `int8` as a number with `int8AsNumber` (as text without it, which
 * `toSafeInt` also accepts, so the store works on any SqlClient).
 */
import { DateTime } from "effect"
import type { Account, ApiKey } from "../../src/domain/Account.js"
import type { CartLine, CheckoutSession, SessionKind, SessionStatus } from "../../src/domain/CheckoutSession.js"
import type { Customer } from "../../src/domain/Customer.js"
import { subjects as eventSubjects } from "../../src/domain/Event.js"
import type { Event, EventType } from "../../src/domain/Event.js"
import type { IdempotencyRecord } from "../../src/domain/Idempotency.js"
import type {
  AccountId,
  ApiKeyId,
  CheckoutSessionId,
  CustomerId,
  EventId,
  PaymentId,
  RefundId,
  ProductId,
  SubscriptionId
} from "../../src/domain/Ids.js"
import type { Metadata } from "../../src/domain/Metadata.js"
import type { Currency } from "../../src/domain/Money.js"
import type { BillingReason, Payment, PaymentStatus } from "../../src/domain/Payment.js"
import type { Billing, BillingInterval, Product, ProductStatus } from "../../src/domain/Product.js"
import type { RateDecision } from "../../src/domain/RateWindow.js"
import type { Refund, RefundStatus } from "../../src/domain/Refund.js"
import type { CancellationReason, Subscription, SubscriptionStatus } from "../../src/domain/Subscription.js"
import type { RenewalAttempt } from "../../src/ports/Store.js"

type Timestamp = Date | string

export const fromTimestamp = (value: Timestamp): DateTime.Utc =>
  DateTime.unsafeFromDate(value instanceof Date ? value : new Date(value))

const fromNullableTimestamp = (value: Timestamp | null): DateTime.Utc | null =>
  value === null ? null : fromTimestamp(value)

/** For parameters: `timestamptz` columns take a Date. */
export const toTimestamp = (value: DateTime.Utc): Date => DateTime.toDate(value)
export const toNullableTimestamp = (value: DateTime.Utc | null): Date | null =>
  value === null ? null : DateTime.toDate(value)

export const toSafeInt = (value: number | string | bigint): number => {
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new Error(`integer column out of the safe range: ${String(value)}`)
  return n
}

export interface AccountRow {
  readonly account_id: string
  readonly business_name: string | null
  readonly support_email: string | null
  readonly live_payments_enabled: boolean
  readonly created_at: Timestamp
}

export const accountFromRow = (row: AccountRow): Account => ({
  account_id: row.account_id as AccountId,
  business_name: row.business_name,
  support_email: row.support_email,
  live_payments_enabled: row.live_payments_enabled,
  created_at: fromTimestamp(row.created_at)
})

export const accountToRow = (a: Account) => ({
  account_id: a.account_id,
  business_name: a.business_name,
  support_email: a.support_email,
  live_payments_enabled: a.live_payments_enabled,
  created_at: toTimestamp(a.created_at)
})

export interface ApiKeyRow {
  readonly key_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly hash: string
  readonly last4: string
  readonly created_at: Timestamp
  readonly revoked_at: Timestamp | null
}

export const apiKeyFromRow = (row: ApiKeyRow): ApiKey => ({
  key_id: row.key_id as ApiKeyId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  hash: row.hash,
  last4: row.last4,
  created_at: fromTimestamp(row.created_at),
  revoked_at: fromNullableTimestamp(row.revoked_at)
})

export const apiKeyToRow = (k: ApiKey) => ({
  key_id: k.key_id,
  account_id: k.account_id,
  livemode: k.livemode,
  hash: k.hash,
  last4: k.last4,
  created_at: toTimestamp(k.created_at),
  revoked_at: toNullableTimestamp(k.revoked_at)
})

export interface ProductRow {
  readonly product_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly name: string
  readonly description: string
  readonly price: number | string
  readonly currency: string
  readonly billing: string
  readonly billing_interval: string | null
  readonly interval_count: number | null
  readonly status: string
  readonly metadata: Metadata
  readonly created_at: Timestamp
  readonly updated_at: Timestamp | null
}

export const productFromRow = (row: ProductRow): Product => ({
  object: "product",
  product_id: row.product_id as ProductId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  name: row.name,
  description: row.description,
  price: toSafeInt(row.price),
  currency: row.currency as Currency,
  billing: row.billing as Billing,
  billing_interval: row.billing_interval as BillingInterval | null,
  interval_count: row.interval_count,
  status: row.status as ProductStatus,
  metadata: row.metadata,
  created_at: fromTimestamp(row.created_at),
  updated_at: fromNullableTimestamp(row.updated_at)
})

/** The columns an update may change (id, owner, mode and creation time never change). */
export const productChanges = (p: Product) => ({
  name: p.name,
  description: p.description,
  price: p.price,
  currency: p.currency,
  billing: p.billing,
  billing_interval: p.billing_interval,
  interval_count: p.interval_count,
  status: p.status,
  metadata: JSON.stringify(p.metadata),
  updated_at: toNullableTimestamp(p.updated_at)
})

export const productToRow = (p: Product) => ({
  product_id: p.product_id,
  account_id: p.account_id,
  livemode: p.livemode,
  ...productChanges(p),
  created_at: toTimestamp(p.created_at)
})

export interface CustomerRow {
  readonly customer_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly name: string | null
  readonly email: string
  readonly phone_number: string | null
  readonly metadata: Metadata
  readonly created_at: Timestamp
}

export const customerFromRow = (row: CustomerRow): Customer => ({
  object: "customer",
  customer_id: row.customer_id as CustomerId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  name: row.name,
  email: row.email,
  phone_number: row.phone_number,
  metadata: row.metadata,
  created_at: fromTimestamp(row.created_at)
})

export const customerChanges = (c: Customer) => ({
  name: c.name,
  email: c.email,
  phone_number: c.phone_number,
  metadata: JSON.stringify(c.metadata)
})

export const customerToRow = (c: Customer) => ({
  customer_id: c.customer_id,
  account_id: c.account_id,
  livemode: c.livemode,
  ...customerChanges(c),
  created_at: toTimestamp(c.created_at)
})

export interface CheckoutSessionRow {
  readonly session_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly kind: string
  readonly status: string
  readonly checkout_url: string
  readonly total_amount: number | string
  readonly currency: string
  readonly product_cart: ReadonlyArray<CartLine>
  readonly customer_id: string | null
  readonly customer_name: string | null
  readonly customer_email: string | null
  readonly customer_phone_number: string | null
  readonly return_url: string | null
  readonly payment_id: string | null
  readonly subscription_id: string | null
  readonly metadata: Metadata
  readonly form_token: string
  readonly created_at: Timestamp
  readonly expires_at: Timestamp
  readonly completed_at: Timestamp | null
}

export const sessionFromRow = (row: CheckoutSessionRow): CheckoutSession => ({
  object: "checkout_session",
  session_id: row.session_id as CheckoutSessionId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  kind: row.kind as SessionKind,
  status: row.status as SessionStatus,
  checkout_url: row.checkout_url,
  total_amount: toSafeInt(row.total_amount),
  currency: row.currency as Currency,
  product_cart: row.product_cart,
  customer: row.customer_email === null
    ? null
    : { name: row.customer_name, email: row.customer_email, phone_number: row.customer_phone_number },
  customer_id: row.customer_id as CustomerId | null,
  return_url: row.return_url,
  payment_id: row.payment_id as PaymentId | null,
  subscription_id: row.subscription_id as SubscriptionId | null,
  metadata: row.metadata,
  form_token: row.form_token,
  created_at: fromTimestamp(row.created_at),
  expires_at: fromTimestamp(row.expires_at),
  completed_at: fromNullableTimestamp(row.completed_at)
})

/** The columns an update may change (id, owner, mode and creation time never change). */
export const sessionChanges = (s: CheckoutSession) => ({
  kind: s.kind,
  status: s.status,
  checkout_url: s.checkout_url,
  total_amount: s.total_amount,
  currency: s.currency,
  // jsonb parameters go as JSON text (a JS array would be sent as a PostgreSQL array).
  product_cart: JSON.stringify(s.product_cart),
  customer_id: s.customer_id,
  customer_name: s.customer?.name ?? null,
  customer_email: s.customer?.email ?? null,
  customer_phone_number: s.customer?.phone_number ?? null,
  return_url: s.return_url,
  payment_id: s.payment_id,
  subscription_id: s.subscription_id,
  metadata: JSON.stringify(s.metadata),
  form_token: s.form_token,
  expires_at: toTimestamp(s.expires_at),
  completed_at: toNullableTimestamp(s.completed_at)
})

export const sessionToRow = (s: CheckoutSession) => ({
  session_id: s.session_id,
  account_id: s.account_id,
  livemode: s.livemode,
  ...sessionChanges(s),
  created_at: toTimestamp(s.created_at)
})

export interface PaymentRow {
  readonly payment_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly status: string
  readonly total_amount: number | string
  readonly refunded_amount: number | string
  readonly fee_amount: number | string
  readonly net_amount: number | string
  readonly currency: string
  readonly description: string
  readonly customer_id: string | null
  readonly customer_name: string | null
  readonly customer_email: string | null
  readonly customer_phone_number: string | null
  readonly checkout_session_id: string | null
  readonly subscription_id: string | null
  readonly billing_reason: string
  readonly metadata: Metadata
  readonly card_brand: string | null
  readonly card_last4: string | null
  readonly card_exp_month: number | null
  readonly card_exp_year: number | null
  readonly card_token: string | null
  readonly charge_id: string | null
  readonly failure_code: string | null
  readonly created_at: Timestamp
  readonly paid_at: Timestamp | null
}

export const paymentFromRow = (row: PaymentRow): Payment => ({
  object: "payment",
  payment_id: row.payment_id as PaymentId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  status: row.status as PaymentStatus,
  total_amount: toSafeInt(row.total_amount),
  refunded_amount: toSafeInt(row.refunded_amount),
  fee_amount: toSafeInt(row.fee_amount),
  net_amount: toSafeInt(row.net_amount),
  currency: row.currency as Currency,
  description: row.description,
  customer: row.customer_id === null || row.customer_email === null
    ? null
    : {
      customer_id: row.customer_id as CustomerId,
      name: row.customer_name,
      email: row.customer_email,
      phone_number: row.customer_phone_number
    },
  checkout_session_id: row.checkout_session_id as CheckoutSessionId | null,
  subscription_id: row.subscription_id as SubscriptionId | null,
  billing_reason: row.billing_reason as BillingReason,
  metadata: row.metadata,
  // The schema keeps the five card columns all set or all null.
  card: row.card_token === null
    ? null
    : {
      brand: row.card_brand!,
      last4: row.card_last4!,
      exp_month: row.card_exp_month!,
      exp_year: row.card_exp_year!,
      token: row.card_token
    },
  charge_id: row.charge_id,
  failure_code: row.failure_code,
  created_at: fromTimestamp(row.created_at),
  paid_at: fromNullableTimestamp(row.paid_at)
})

/** The columns an update may change (id, owner, mode and creation time never change). */
export const paymentChanges = (p: Payment) => ({
  status: p.status,
  total_amount: p.total_amount,
  refunded_amount: p.refunded_amount,
  fee_amount: p.fee_amount,
  net_amount: p.net_amount,
  currency: p.currency,
  description: p.description,
  customer_id: p.customer?.customer_id ?? null,
  customer_name: p.customer?.name ?? null,
  customer_email: p.customer?.email ?? null,
  customer_phone_number: p.customer?.phone_number ?? null,
  checkout_session_id: p.checkout_session_id,
  subscription_id: p.subscription_id,
  billing_reason: p.billing_reason,
  metadata: JSON.stringify(p.metadata),
  card_brand: p.card?.brand ?? null,
  card_last4: p.card?.last4 ?? null,
  card_exp_month: p.card?.exp_month ?? null,
  card_exp_year: p.card?.exp_year ?? null,
  card_token: p.card?.token ?? null,
  charge_id: p.charge_id,
  failure_code: p.failure_code,
  paid_at: toNullableTimestamp(p.paid_at)
})

export const paymentToRow = (p: Payment) => ({
  payment_id: p.payment_id,
  account_id: p.account_id,
  livemode: p.livemode,
  ...paymentChanges(p),
  created_at: toTimestamp(p.created_at)
})

/** Every key of `A`, listed: the compiler refuses a list that misses one. */
const everyKey = <A>() =>
<const K extends ReadonlyArray<keyof A & string>>(
  keys: K & ([Exclude<keyof A, K[number]>] extends [never] ? unknown : never)
): ReadonlyArray<string> => keys

/** The columns an update of a payment sets. */
export const paymentColumns = everyKey<ReturnType<typeof paymentChanges>>()([
  "status", "total_amount", "refunded_amount", "fee_amount", "net_amount", "currency", "description", "customer_id",
  "customer_name", "customer_email", "customer_phone_number", "checkout_session_id", "subscription_id",
  "billing_reason", "metadata", "card_brand", "card_last4", "card_exp_month", "card_exp_year", "card_token",
  "charge_id", "failure_code", "paid_at"
])

/** A payment's row as one JSON record (a batch update): `metadata` is the object itself, not its text. */
export const paymentRecord = (p: Payment): Record<string, unknown> => ({ ...paymentToRow(p), metadata: p.metadata })

export interface SubscriptionRow {
  readonly subscription_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly status: string
  readonly product_id: string
  readonly name: string
  readonly quantity: number
  readonly recurring_amount: number | string
  readonly currency: string
  readonly billing_interval: string
  readonly interval_count: number
  readonly customer_id: string
  readonly customer_name: string | null
  readonly customer_email: string
  readonly card_brand: string
  readonly card_last4: string
  readonly card_exp_month: number
  readonly card_exp_year: number
  readonly card_token: string
  readonly anchor: Timestamp
  readonly period: number
  readonly current_period_start: Timestamp
  readonly next_billing_date: Timestamp
  readonly cancel_at_period_end: boolean
  readonly cancelled_at: Timestamp | null
  readonly cancellation_reason: string | null
  readonly failed_payment_attempts: number
  readonly next_retry_at: Timestamp | null
  readonly first_failure_at: Timestamp | null
  readonly checkout_session_id: string | null
  readonly metadata: Metadata
  readonly created_at: Timestamp
}

export const subscriptionFromRow = (row: SubscriptionRow): Subscription => ({
  object: "subscription",
  subscription_id: row.subscription_id as SubscriptionId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  status: row.status as SubscriptionStatus,
  product_id: row.product_id as ProductId,
  name: row.name,
  quantity: row.quantity,
  recurring_amount: toSafeInt(row.recurring_amount),
  currency: row.currency as Currency,
  billing_interval: row.billing_interval as BillingInterval,
  interval_count: row.interval_count,
  customer: { customer_id: row.customer_id as CustomerId, name: row.customer_name, email: row.customer_email },
  payment_method: {
    brand: row.card_brand,
    last4: row.card_last4,
    exp_month: row.card_exp_month,
    exp_year: row.card_exp_year
  },
  card_token: row.card_token,
  anchor: fromTimestamp(row.anchor),
  period: row.period,
  current_period_start: fromTimestamp(row.current_period_start),
  next_billing_date: fromTimestamp(row.next_billing_date),
  cancel_at_period_end: row.cancel_at_period_end,
  cancelled_at: fromNullableTimestamp(row.cancelled_at),
  cancellation_reason: row.cancellation_reason as CancellationReason | null,
  failed_payment_attempts: row.failed_payment_attempts,
  next_retry_at: fromNullableTimestamp(row.next_retry_at),
  first_failure_at: fromNullableTimestamp(row.first_failure_at),
  checkout_session_id: row.checkout_session_id as CheckoutSessionId | null,
  metadata: row.metadata,
  created_at: fromTimestamp(row.created_at)
})

/** The columns an update may change (id, owner, mode and creation time never change; `due_at` is computed). */
export const subscriptionChanges = (s: Subscription) => ({
  status: s.status,
  product_id: s.product_id,
  name: s.name,
  quantity: s.quantity,
  recurring_amount: s.recurring_amount,
  currency: s.currency,
  billing_interval: s.billing_interval,
  interval_count: s.interval_count,
  customer_id: s.customer.customer_id,
  customer_name: s.customer.name,
  customer_email: s.customer.email,
  card_brand: s.payment_method.brand,
  card_last4: s.payment_method.last4,
  card_exp_month: s.payment_method.exp_month,
  card_exp_year: s.payment_method.exp_year,
  card_token: s.card_token,
  anchor: toTimestamp(s.anchor),
  period: s.period,
  current_period_start: toTimestamp(s.current_period_start),
  next_billing_date: toTimestamp(s.next_billing_date),
  cancel_at_period_end: s.cancel_at_period_end,
  cancelled_at: toNullableTimestamp(s.cancelled_at),
  cancellation_reason: s.cancellation_reason,
  failed_payment_attempts: s.failed_payment_attempts,
  next_retry_at: toNullableTimestamp(s.next_retry_at),
  first_failure_at: toNullableTimestamp(s.first_failure_at),
  checkout_session_id: s.checkout_session_id,
  metadata: JSON.stringify(s.metadata)
})

export const subscriptionToRow = (s: Subscription) => ({
  subscription_id: s.subscription_id,
  account_id: s.account_id,
  livemode: s.livemode,
  ...subscriptionChanges(s),
  created_at: toTimestamp(s.created_at)
})

/** The columns an update of a subscription sets. */
export const subscriptionColumns = everyKey<ReturnType<typeof subscriptionChanges>>()([
  "status", "product_id", "name", "quantity", "recurring_amount", "currency", "billing_interval", "interval_count",
  "customer_id", "customer_name", "customer_email", "card_brand", "card_last4", "card_exp_month", "card_exp_year",
  "card_token", "anchor", "period", "current_period_start", "next_billing_date", "cancel_at_period_end",
  "cancelled_at", "cancellation_reason", "failed_payment_attempts", "next_retry_at", "first_failure_at",
  "checkout_session_id", "metadata"
])

/** A subscription's row as one JSON record (a batch update). */
export const subscriptionRecord = (s: Subscription): Record<string, unknown> => ({
  ...subscriptionToRow(s),
  metadata: s.metadata
})

export interface RenewalAttemptRow {
  readonly subscription_id: string
  readonly period: number
  readonly attempt: number
  readonly payment_id: string
}

export const renewalAttemptFromRow = (row: RenewalAttemptRow): RenewalAttempt => ({
  subscription_id: row.subscription_id as SubscriptionId,
  period: row.period,
  attempt: row.attempt,
  payment_id: row.payment_id as PaymentId
})

export interface EventRow {
  readonly event_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly type: string
  readonly data: Record<string, unknown>
  readonly created_at: Timestamp
}

export const eventFromRow = (row: EventRow): Event => ({
  object: "event",
  event_id: row.event_id as EventId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  type: row.type as EventType,
  data: row.data,
  created_at: fromTimestamp(row.created_at)
})

/** Events are written once and never change. */
export const eventToRow = (e: Event) => ({
  event_id: e.event_id,
  account_id: e.account_id,
  livemode: e.livemode,
  type: e.type,
  data: JSON.stringify(e.data),
  ...eventSubjects(e),
  created_at: toTimestamp(e.created_at)
})

export interface IdempotencyRow {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
  readonly response_status: number | null
  readonly response_body: string | null
  readonly locked_until: Timestamp
  readonly expires_at: Timestamp
}

export const idempotencyFromRow = (row: IdempotencyRow): IdempotencyRecord => ({
  scope: row.scope,
  key: row.key,
  fingerprint: row.fingerprint,
  response: row.response_status === null || row.response_body === null
    ? null
    : { status: row.response_status, body: row.response_body },
  lockedUntil: fromTimestamp(row.locked_until),
  expiresAt: fromTimestamp(row.expires_at)
})

export interface RateRow {
  readonly granted: number
  readonly shared: number
  readonly counted_at: number | string
  readonly remaining: number
  readonly reset_seconds: number
  readonly seconds: ReadonlyArray<number | string>
  readonly counts: ReadonlyArray<number>
  readonly offsets: ReadonlyArray<number>
  readonly shares: ReadonlyArray<number>
}

export const rateDecisionFromRow = (row: RateRow, limit: number, count: number): RateDecision => ({
  allowed: row.granted === count,
  granted: row.granted,
  shared: row.shared,
  countedAt: toSafeInt(row.counted_at),
  limit,
  remaining: row.remaining,
  resetSeconds: row.reset_seconds,
  state: {
    seconds: row.seconds.map(toSafeInt),
    counts: [...row.counts],
    offsets: [...row.offsets],
    shares: [...row.shares]
  }
})

export interface RefundRow {
  readonly refund_id: string
  readonly payment_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly amount: string | number
  readonly status: string
  readonly failure_reason: string | null
  readonly processor_refund_id: string | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

export const refundFromRow = (row: RefundRow): Refund => ({
  refund_id: row.refund_id as RefundId,
  payment_id: row.payment_id as PaymentId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  amount: toSafeInt(row.amount),
  status: row.status as RefundStatus,
  failure_reason: row.failure_reason,
  processor_refund_id: row.processor_refund_id,
  created_at: fromTimestamp(row.created_at),
  updated_at: fromTimestamp(row.updated_at)
})

export const refundToRow = (r: Refund) => ({
  refund_id: r.refund_id,
  payment_id: r.payment_id,
  account_id: r.account_id,
  livemode: r.livemode,
  amount: r.amount,
  status: r.status,
  failure_reason: r.failure_reason,
  processor_refund_id: r.processor_refund_id,
  created_at: toTimestamp(r.created_at),
  updated_at: toTimestamp(r.updated_at)
})
