/**
 * Table rows and the domain's Schemas: each table's row Schema decodes its columns (as node-postgres returns them,
 * see columns.ts) into the domain value its Schema accepts, and encodes a domain value into the row's parameters.
 * Columns are named like the domain fields; columns a CHECK groups (a payment's card, its customer) nest into one
 * field. Decoders and encoders are derived once, here; a row the domain refuses is a defect (`UndecodableRow`).
 */
import { DateTime, Schema } from "effect"
import { Account, ApiKey } from "../../src/domain/Account.js"
import { CheckoutSession } from "../../src/domain/CheckoutSession.js"
import { Customer } from "../../src/domain/Customer.js"
import { AuditEntry, DashboardSession, DashboardUser, SignInLink } from "../../src/domain/DashboardUser.js"
import { Delivery } from "../../src/domain/Delivery.js"
import { Discount } from "../../src/domain/Discount.js"
import { Event, subjects as eventSubjects } from "../../src/domain/Event.js"
import { RequestLog } from "../../src/domain/RequestLog.js"
import type { IdempotencyRecord } from "../../src/domain/Idempotency.js"
import { ApiKeyId, PaymentId, SubscriptionId } from "../../src/domain/Ids.js"
import { Payment } from "../../src/domain/Payment.js"
import { PortalSession } from "../../src/domain/PortalSession.js"
import { Product } from "../../src/domain/Product.js"
import type { RateDecision } from "../../src/domain/RateWindow.js"
import { Refund } from "../../src/domain/Refund.js"
import { PendingChange, periodRevenue, StoredScheduledChange, Subscription } from "../../src/domain/Subscription.js"
import { CreditNote, Invoice } from "../../src/domain/TaxDocument.js"
import { TestClock } from "../../src/domain/TestClock.js"
import { WebhookEndpoint } from "../../src/domain/WebhookEndpoint.js"
import type { RenewalAttempt } from "../../src/ports/Store.js"
import { decoder, Int8, Jsonb, table, Timestamptz } from "./columns.js"

/** For parameters: `timestamptz` columns take a Date. */
export const toTimestamp = (value: DateTime.Utc): Date => DateTime.toDate(value)
export const toNullableTimestamp = (value: DateTime.Utc | null): Date | null =>
  value === null ? null : DateTime.toDate(value)

/** A `timestamptz` column read outside a row Schema (node-postgres gives a Date; text without its parsers). */
export const fromTimestamp = (value: Date | string): DateTime.Utc =>
  DateTime.unsafeFromDate(value instanceof Date ? value : new Date(value))

/**
 * A group of columns a CHECK keeps all null or set together: null when all are, the group otherwise (a group only
 * partly set then fails the domain's Schema on its nulls).
 */
const nullIfAllNull = <A extends Record<string, unknown>>(group: A): A | null => {
  for (const key in group) if (group[key] !== null) return group
  return null
}

const NullableString = Schema.NullOr(Schema.String)
const NullableNumber = Schema.NullOr(Schema.Number)
const NullableTimestamptz = Schema.NullOr(Timestamptz)
const NullableInt8 = Schema.NullOr(Int8)
// Null first: a null is SQL NULL, not the JSON null Jsonb would write.
const NullableJsonb = Schema.Union(Schema.Null, Jsonb)
/** `jsonb` holding `schema`'s encoded form (instants as ISO text), read back as its domain value; or SQL NULL. */
const NullableJsonbOf = <A, I>(schema: Schema.Schema<A, I>) =>
  Schema.Union(Schema.Null, Schema.compose(Jsonb, schema, { strict: false }))
/**
 * A secret as the SecretBox stores it (sealed, or plaintext without a key), `Redacted` as soon as it is read: the
 * repositories seal before they write and open after they read.
 */
const Sealed = Schema.Redacted(Schema.String)

// accounts --------------------------------------------------------------------------------------------------------

export const Accounts = table(
  { table: "accounts", key: "account_id", value: "Account" },
  Schema.Struct({
    account_id: Schema.String,
    business_name: NullableString,
    support_email: NullableString,
    live_payments_enabled: Schema.Boolean,
    tax_profile: NullableJsonb,
    time_zone: Schema.String,
    two_factor_required: Schema.Boolean,
    created_at: Timestamptz
  }),
  Account,
  { decode: () => ({}), encode: (account) => account }
)
export type AccountRow = typeof Accounts.schema.Encoded
export const accountFromRow = Accounts.fromRow
export const accountToRow = Accounts.toRow

// api_keys --------------------------------------------------------------------------------------------------------

export const ApiKeys = table(
  { table: "api_keys", key: "key_id", value: "ApiKey" },
  Schema.Struct({
    key_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    hash: Schema.String,
    last4: Schema.String,
    created_at: Timestamptz,
    revoked_at: NullableTimestamptz
  }),
  ApiKey,
  { decode: () => ({}), encode: (key) => key }
)
export type ApiKeyRow = typeof ApiKeys.schema.Encoded
export const apiKeyFromRow = ApiKeys.fromRow
export const apiKeyToRow = ApiKeys.toRow

/** `api_key_usage`: when each key was last used. */
export const keyUsageFromRow = decoder(
  Schema.Struct({ key_id: ApiKeyId, last_used_at: Timestamptz }),
  "api_key_usage",
  "key_id"
)

/**
 * The columns an update may change: all of the row but its key, owner, mode and creation time, which never change.
 */
const changesOf = <R extends { readonly account_id: unknown; readonly livemode: unknown; readonly created_at: unknown }, K extends keyof R>(
  row: R,
  key: K
): Omit<R, K | "account_id" | "livemode" | "created_at"> => {
  const { account_id: _, livemode: __, created_at: ___, ...rest } = row
  const changes: Partial<R> = { ...rest } as Partial<R>
  delete changes[key]
  return changes as Omit<R, K | "account_id" | "livemode" | "created_at">
}

// products --------------------------------------------------------------------------------------------------------

export const Products = table(
  { table: "products", key: "product_id", value: "Product" },
  Schema.Struct({
    product_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    name: Schema.String,
    description: Schema.String,
    price: Int8,
    currency: Schema.String,
    billing: Schema.String,
    billing_interval: NullableString,
    interval_count: NullableNumber,
    trial_period_days: Schema.Number,
    trial_amount: NullableInt8,
    status: Schema.String,
    tax_category: Schema.String,
    tax_exemption_code: NullableString,
    item_type: Schema.String,
    item_code: NullableString,
    plan_change_policy: NullableJsonb,
    offered_in_portal: Schema.Boolean,
    metadata: Jsonb,
    created_at: Timestamptz,
    updated_at: NullableTimestamptz
  }),
  Product,
  { decode: () => ({ object: "product" }), encode: (product) => product }
)
export type ProductRow = typeof Products.schema.Encoded
export const productFromRow = Products.fromRow
export const productToRow = Products.toRow

/** The columns an update may change (id, owner, mode and creation time never change). */
export const productChanges = (p: Product) => changesOf(productToRow(p), "product_id")

// customers -------------------------------------------------------------------------------------------------------

export const Customers = table(
  { table: "customers", key: "customer_id", value: "Customer" },
  Schema.Struct({
    customer_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    name: NullableString,
    email: Schema.String,
    phone_number: NullableString,
    business: NullableJsonb,
    metadata: Jsonb,
    test_clock_id: NullableString,
    created_at: Timestamptz
  }),
  Customer,
  { decode: () => ({ object: "customer" }), encode: (customer) => customer }
)
export type CustomerRow = typeof Customers.schema.Encoded
export const customerFromRow = Customers.fromRow
export const customerToRow = Customers.toRow

export const customerChanges = (c: Customer) => {
  const { name, email, phone_number, business, metadata } = customerToRow(c)
  return { name, email, phone_number, business, metadata }
}

// checkout_sessions -----------------------------------------------------------------------------------------------

export const CheckoutSessions = table(
  { table: "checkout_sessions", key: "session_id", value: "CheckoutSession" },
  Schema.Struct({
    session_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    kind: Schema.String,
    status: Schema.String,
    checkout_url: Schema.String,
    total_amount: Int8,
    tax: NullableInt8,
    tax_lines: NullableJsonb,
    currency: Schema.String,
    product_cart: Jsonb,
    discounts: Jsonb,
    customer_id: NullableString,
    // The customer as given at checkout: all null, or an e-mail (migration 0003).
    customer_name: NullableString,
    customer_email: NullableString,
    customer_phone_number: NullableString,
    return_url: NullableString,
    payment_id: NullableString,
    subscription_id: NullableString,
    trial_period_days: NullableNumber,
    period_tax_lines: NullableJsonb,
    metadata: Jsonb,
    form_token: Schema.String,
    created_at: Timestamptz,
    expires_at: Timestamptz,
    completed_at: NullableTimestamptz
  }),
  CheckoutSession,
  {
    decode: (columns) => ({
      object: "checkout_session",
      customer: nullIfAllNull({
        name: columns.customer_name,
        email: columns.customer_email,
        phone_number: columns.customer_phone_number
      })
    }),
    encode: (session) => ({
      customer_name: session.customer?.name ?? null,
      customer_email: session.customer?.email ?? null,
      customer_phone_number: session.customer?.phone_number ?? null,
      ...session
    })
  }
)
export type CheckoutSessionRow = typeof CheckoutSessions.schema.Encoded
export const sessionFromRow = CheckoutSessions.fromRow
export const sessionToRow = CheckoutSessions.toRow

/** The columns an update may change (id, owner, mode and creation time never change). */
export const sessionChanges = (s: CheckoutSession) => changesOf(sessionToRow(s), "session_id")

// payments --------------------------------------------------------------------------------------------------------

export const Payments = table(
  { table: "payments", key: "payment_id", value: "Payment" },
  Schema.Struct({
    payment_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    status: Schema.String,
    total_amount: Int8,
    refunded_amount: Int8,
    fee_amount: Int8,
    net_amount: Int8,
    tax: NullableInt8,
    tax_lines: NullableJsonb,
    currency: Schema.String,
    description: Schema.String,
    // The customer as it was when the payment was made: all null, or an id and an e-mail (migration 0003).
    customer_id: NullableString,
    customer_name: NullableString,
    customer_email: NullableString,
    customer_phone_number: NullableString,
    checkout_session_id: NullableString,
    subscription_id: NullableString,
    billing_reason: Schema.String,
    discounts: Jsonb,
    metadata: Jsonb,
    // The card: all five null or all five set (migration 0003).
    card_brand: NullableString,
    card_last4: NullableString,
    card_exp_month: NullableNumber,
    card_exp_year: NullableNumber,
    card_token: NullableString,
    charge_id: NullableString,
    failure_code: NullableString,
    credit_applied: Int8,
    created_at: Timestamptz,
    paid_at: NullableTimestamptz
  }),
  Payment,
  {
    decode: (columns) => ({
      object: "payment",
      customer: nullIfAllNull({
        customer_id: columns.customer_id,
        name: columns.customer_name,
        email: columns.customer_email,
        phone_number: columns.customer_phone_number
      }),
      card: nullIfAllNull({
        brand: columns.card_brand,
        last4: columns.card_last4,
        exp_month: columns.card_exp_month,
        exp_year: columns.card_exp_year,
        token: columns.card_token
      })
    }),
    encode: (payment) => ({
      customer_id: payment.customer?.customer_id ?? null,
      customer_name: payment.customer?.name ?? null,
      customer_email: payment.customer?.email ?? null,
      customer_phone_number: payment.customer?.phone_number ?? null,
      card_brand: payment.card?.brand ?? null,
      card_last4: payment.card?.last4 ?? null,
      card_exp_month: payment.card?.exp_month ?? null,
      card_exp_year: payment.card?.exp_year ?? null,
      card_token: payment.card?.token ?? null,
      ...payment
    })
  }
)
export type PaymentRow = typeof Payments.schema.Encoded
export const paymentFromRow = Payments.fromRow
export const paymentToRow = Payments.toRow

/** The columns an update may change (id, owner, mode and creation time never change). */
export const paymentChanges = (p: Payment) => changesOf(paymentToRow(p), "payment_id")

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
  "charge_id", "failure_code", "paid_at", "tax", "tax_lines", "credit_applied", "discounts"
])

/** A payment's row as one JSON record (a batch update): `metadata` is the object itself, not its text. */
export const paymentRecord = (p: Payment): Record<string, unknown> => ({
  ...paymentToRow(p),
  metadata: p.metadata,
  tax_lines: p.tax_lines,
  discounts: p.discounts
})

// subscriptions ---------------------------------------------------------------------------------------------------

export const Subscriptions = table(
  { table: "subscriptions", key: "subscription_id", value: "Subscription" },
  Schema.Struct({
    subscription_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    status: Schema.String,
    product_id: Schema.String,
    name: Schema.String,
    quantity: Schema.Number,
    recurring_amount: Int8,
    currency: Schema.String,
    billing_interval: Schema.String,
    interval_count: Schema.Number,
    customer_id: Schema.String,
    customer_name: NullableString,
    customer_email: Schema.String,
    card_brand: Schema.String,
    card_last4: Schema.String,
    card_exp_month: Schema.Number,
    card_exp_year: Schema.Number,
    card_token: Schema.String,
    anchor: Timestamptz,
    period: Schema.Number,
    current_period_start: Timestamptz,
    next_billing_date: Timestamptz,
    cancel_at_period_end: Schema.Boolean,
    trial_period_days: Schema.Number,
    trial_ends_at: NullableTimestamptz,
    cancelled_at: NullableTimestamptz,
    cancellation_reason: NullableString,
    failed_payment_attempts: Schema.Number,
    next_retry_at: NullableTimestamptz,
    first_failure_at: NullableTimestamptz,
    checkout_session_id: NullableString,
    discounts: Jsonb,
    metadata: Jsonb,
    tax_lines: NullableJsonb,
    credit_balance: Int8,
    anchor_period: Schema.Number,
    scheduled_change: NullableJsonbOf(StoredScheduledChange),
    pending_change: NullableJsonbOf(PendingChange),
    created_at: Timestamptz,
    // Derived, for monthly recurring revenue (`Subscription.periodRevenue`); null on rows older than it.
    period_revenue: Schema.NullOr(Int8)
  }),
  Subscription,
  {
    decode: (columns) => ({
      object: "subscription",
      customer: { customer_id: columns.customer_id, name: columns.customer_name, email: columns.customer_email },
      payment_method: {
        brand: columns.card_brand,
        last4: columns.card_last4,
        exp_month: columns.card_exp_month,
        exp_year: columns.card_exp_year
      }
    }),
    encode: (subscription) => ({
      customer_id: subscription.customer.customer_id,
      customer_name: subscription.customer.name,
      customer_email: subscription.customer.email,
      card_brand: subscription.payment_method.brand,
      card_last4: subscription.payment_method.last4,
      card_exp_month: subscription.payment_method.exp_month,
      card_exp_year: subscription.payment_method.exp_year,
      period_revenue: periodRevenue(subscription),
      ...subscription
    })
  }
)
export type SubscriptionRow = typeof Subscriptions.schema.Encoded
export const subscriptionFromRow = Subscriptions.fromRow
export const subscriptionToRow = Subscriptions.toRow

/** The columns an update may change (id, owner, mode and creation time never change; `due_at` is computed). */
export const subscriptionChanges = (s: Subscription) => changesOf(subscriptionToRow(s), "subscription_id")

/** The columns an update of a subscription sets. */
export const subscriptionColumns = everyKey<ReturnType<typeof subscriptionChanges>>()([
  "status", "product_id", "name", "quantity", "recurring_amount", "currency", "billing_interval", "interval_count",
  "customer_id", "customer_name", "customer_email", "card_brand", "card_last4", "card_exp_month", "card_exp_year",
  "card_token", "anchor", "period", "current_period_start", "next_billing_date", "cancel_at_period_end",
  "cancelled_at", "cancellation_reason", "failed_payment_attempts", "next_retry_at", "first_failure_at",
  "checkout_session_id", "metadata", "tax_lines", "credit_balance", "anchor_period", "scheduled_change",
  "pending_change", "discounts", "trial_period_days", "trial_ends_at", "period_revenue"
])

/** A subscription's row as one JSON record (a batch update). */
export const subscriptionRecord = (s: Subscription): Record<string, unknown> => ({
  ...subscriptionToRow(s),
  metadata: s.metadata,
  tax_lines: s.tax_lines,
  scheduled_change: s.scheduled_change === null ? null : Schema.encodeSync(StoredScheduledChange)(s.scheduled_change),
  pending_change: s.pending_change === null ? null : Schema.encodeSync(PendingChange)(s.pending_change),
  discounts: s.discounts
})

/** `renewal_attempts`: which payment charged a subscription's period, attempt by attempt. */
const RenewalAttemptRow = Schema.Struct({
  subscription_id: SubscriptionId,
  period: Schema.Int,
  attempt: Schema.Int,
  payment_id: PaymentId
})
export type RenewalAttemptRow = typeof RenewalAttemptRow.Encoded
export const renewalAttemptFromRow: (row: unknown) => RenewalAttempt = decoder(
  RenewalAttemptRow,
  "renewal_attempts",
  "payment_id"
)

// events ----------------------------------------------------------------------------------------------------------

export const Events = table(
  { table: "events", key: "event_id", value: "Event" },
  Schema.Struct({
    event_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    type: Schema.String,
    data: Jsonb,
    created_at: Timestamptz,
    request_id: NullableString
  }),
  Event,
  { decode: () => ({ object: "event" }), encode: (event) => event }
)
export type EventRow = typeof Events.schema.Encoded
export const eventFromRow = Events.fromRow
const encodeEvent = Events.toRow

/** Events are written once and never change; the ids `data` names are columns of their own (to find them by). */
export const eventToRow = (e: Event) => ({ ...encodeEvent(e), ...eventSubjects(e) })

// request_logs ----------------------------------------------------------------------------------------------------

export const RequestLogs = table(
  { table: "request_logs", key: "request_log_id", value: "RequestLog" },
  Schema.Struct({
    request_log_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    request_id: Schema.String,
    key_id: Schema.String,
    method: Schema.String,
    path: Schema.String,
    status: Schema.Int,
    duration_ms: Schema.Number,
    idempotency_key: NullableString,
    error_code: NullableString,
    created_at: Timestamptz
  }),
  RequestLog,
  { decode: () => ({ object: "request_log" }), encode: (line) => line }
)
export type RequestLogRow = typeof RequestLogs.schema.Encoded
export const requestLogFromRow = RequestLogs.fromRow
export const requestLogToRow = RequestLogs.toRow

// idempotency_keys ------------------------------------------------------------------------------------------------

const IdempotencyRow = Schema.Struct({
  scope: Schema.String,
  key: Schema.String,
  fingerprint: Schema.String,
  // The response: both null while the request runs, both set once it answered.
  response_status: Schema.NullOr(Schema.Int),
  response_body: NullableString,
  locked_until: Timestamptz,
  expires_at: Timestamptz
}).pipe(Schema.transform(
  Schema.Struct({
    scope: Schema.String,
    key: Schema.String,
    fingerprint: Schema.String,
    response: Schema.NullOr(Schema.Struct({ status: Schema.Int, body: Schema.String })),
    lockedUntil: Schema.DateTimeUtcFromSelf,
    expiresAt: Schema.DateTimeUtcFromSelf
  }),
  {
    strict: false,
    decode: (columns) => ({
      response: nullIfAllNull({ status: columns.response_status, body: columns.response_body }),
      lockedUntil: columns.locked_until,
      expiresAt: columns.expires_at,
      ...columns
    }),
    encode: (record) => ({
      response_status: record.response?.status ?? null,
      response_body: record.response?.body ?? null,
      locked_until: record.lockedUntil,
      expires_at: record.expiresAt,
      ...record
    })
  }
))
export type IdempotencyRow = typeof IdempotencyRow.Encoded
export const idempotencyFromRow: (row: unknown) => IdempotencyRecord = decoder(IdempotencyRow, "idempotency_keys", "key")

// rate_limits -----------------------------------------------------------------------------------------------------

/** What `fils_rate_limit_hit` returns (migration 0016). */
const RateRow = Schema.Struct({
  granted: Schema.Int,
  shared: Schema.Int,
  counted_at: Int8.pipe(Schema.compose(Schema.Int)),
  remaining: Schema.Int,
  reset_seconds: Schema.Int,
  seconds: Schema.Array(Int8.pipe(Schema.compose(Schema.Int))),
  counts: Schema.Array(Schema.Int),
  offsets: Schema.Array(Schema.Int),
  shares: Schema.Array(Schema.Int)
})
export type RateRow = typeof RateRow.Encoded
const decodeRateRow = decoder(RateRow, "fils_rate_limit_hit")

export const rateDecisionFromRow = (rateRow: unknown, limit: number, count: number): RateDecision => {
  const r = decodeRateRow(rateRow)
  return {
    allowed: r.granted === count,
    granted: r.granted,
    shared: r.shared,
    countedAt: r.counted_at,
    limit,
    remaining: r.remaining,
    resetSeconds: r.reset_seconds,
    state: { seconds: r.seconds, counts: r.counts, offsets: r.offsets, shares: r.shares }
  }
}

// refunds ---------------------------------------------------------------------------------------------------------

export const Refunds = table(
  { table: "refunds", key: "refund_id", value: "Refund" },
  Schema.Struct({
    refund_id: Schema.String,
    payment_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    amount: Int8,
    status: Schema.String,
    failure_reason: NullableString,
    processor_refund_id: NullableString,
    reason: NullableString,
    note: NullableString,
    created_at: Timestamptz,
    updated_at: Timestamptz
  }),
  Refund,
  { decode: () => ({}), encode: (refund) => refund }
)
export type RefundRow = typeof Refunds.schema.Encoded
export const refundFromRow = Refunds.fromRow
export const refundToRow = Refunds.toRow

// discounts -------------------------------------------------------------------------------------------------------

export const Discounts = table(
  { table: "discounts", key: "discount_id", value: "Discount" },
  Schema.Struct({
    discount_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    code: Schema.String,
    name: NullableString,
    type: Schema.String,
    amount: Int8,
    subscription_cycles: NullableNumber,
    usage_limit: NullableInt8,
    times_used: Int8,
    held: Schema.Number,
    expires_at: NullableTimestamptz,
    // text[]: node-postgres reads and writes a JS array.
    restricted_to: Schema.Array(Schema.String),
    preserve_on_plan_change: Schema.Boolean,
    metadata: Jsonb,
    created_at: Timestamptz
  }),
  Discount,
  { decode: () => ({ object: "discount" }), encode: (discount) => discount }
)
export type DiscountRow = typeof Discounts.schema.Encoded
export const discountFromRow = Discounts.fromRow
export const discountToRow = Discounts.toRow

/** The columns an update may change (id, owner, mode and creation time never change). */
export const discountChanges = (d: Discount) => changesOf(discountToRow(d), "discount_id")

// webhook_endpoints -----------------------------------------------------------------------------------------------

export const WebhookEndpoints = table(
  { table: "webhook_endpoints", key: "webhook_id", value: "WebhookEndpoint" },
  Schema.Struct({
    webhook_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    url: Schema.String,
    description: Schema.String,
    // text[]: node-postgres reads and writes a JS array (in a `to_jsonb` row, a JSON array).
    event_types: Schema.Array(Schema.String),
    disabled: Schema.Boolean,
    secret: Sealed,
    created_at: Timestamptz
  }),
  WebhookEndpoint,
  { decode: () => ({ object: "webhook" }), encode: (endpoint) => endpoint }
)
export type WebhookEndpointRow = typeof WebhookEndpoints.schema.Encoded
export const webhookFromRow = WebhookEndpoints.fromRow
export const webhookToRow = WebhookEndpoints.toRow

/** The columns an update may change (id, owner, mode and creation time never change). */
export const webhookChanges = (w: WebhookEndpoint) => changesOf(webhookToRow(w), "webhook_id")

// webhook_deliveries ----------------------------------------------------------------------------------------------

export const Deliveries = table(
  { table: "webhook_deliveries", key: "delivery_id", value: "Delivery" },
  Schema.Struct({
    delivery_id: Schema.String,
    event_id: Schema.String,
    webhook_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    status: Schema.String,
    attempts: Schema.Number,
    next_attempt_at: NullableTimestamptz,
    last_status_code: NullableNumber,
    last_error: NullableString,
    created_at: Timestamptz,
    updated_at: Timestamptz
  }),
  Delivery,
  { decode: () => ({}), encode: (delivery) => delivery }
)
export type DeliveryRow = typeof Deliveries.schema.Encoded
export const deliveryFromRow = Deliveries.fromRow
export const deliveryToRow = Deliveries.toRow

// customer_portal_sessions ----------------------------------------------------------------------------------------

export const PortalSessions = table(
  { table: "customer_portal_sessions", key: "customer_portal_session_id", value: "PortalSession" },
  Schema.Struct({
    customer_portal_session_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    customer_id: Schema.String,
    url: Sealed,
    return_url: NullableString,
    token_hash: Schema.String,
    created_at: Timestamptz,
    expires_at: Timestamptz,
    opened_at: NullableTimestamptz,
    cookie_hash: NullableString,
    csrf_token: NullableString,
    session_expires_at: NullableTimestamptz
  }),
  PortalSession,
  { decode: () => ({ object: "customer_portal_session" }), encode: (session) => session }
)
export type PortalSessionRow = typeof PortalSessions.schema.Encoded
export const portalSessionFromRow = PortalSessions.fromRow
export const portalSessionToRow = PortalSessions.toRow

// dashboard_users, dashboard_sign_in_links, dashboard_sessions, dashboard_audit -------------------------------------

export const DashboardUsers = table(
  { table: "dashboard_users", key: "user_id", value: "DashboardUser" },
  Schema.Struct({
    user_id: Schema.String,
    account_id: Schema.String,
    email: Schema.String,
    role: Schema.String,
    password_hash: NullableString,
    created_at: Timestamptz,
    updated_at: Timestamptz
  }),
  DashboardUser,
  { decode: () => ({}), encode: (user) => user }
)
export type DashboardUserRow = typeof DashboardUsers.schema.Encoded
export const dashboardUserFromRow = DashboardUsers.fromRow
export const dashboardUserToRow = DashboardUsers.toRow

// A link or a session is named by its user, never by its token's hash (what finds it).
export const SignInLinks = table(
  { table: "dashboard_sign_in_links", key: "user_id", value: "SignInLink" },
  Schema.Struct({
    token_hash: Schema.String,
    user_id: Schema.String,
    expires_at: Timestamptz,
    used_at: NullableTimestamptz
  }),
  SignInLink,
  { decode: () => ({}), encode: (link) => link }
)
export type SignInLinkRow = typeof SignInLinks.schema.Encoded
export const signInLinkFromRow = SignInLinks.fromRow
export const signInLinkToRow = SignInLinks.toRow

export const DashboardSessions = table(
  { table: "dashboard_sessions", key: "user_id", value: "DashboardSession" },
  Schema.Struct({
    token_hash: Schema.String,
    user_id: Schema.String,
    account_id: Schema.String,
    csrf_token: Schema.String,
    created_at: Timestamptz,
    last_seen_at: Timestamptz,
    awaiting_code: Schema.Boolean
  }),
  DashboardSession,
  { decode: () => ({}), encode: (session) => session }
)
export type DashboardSessionRow = typeof DashboardSessions.schema.Encoded
export const dashboardSessionFromRow = DashboardSessions.fromRow
export const dashboardSessionToRow = DashboardSessions.toRow

export const AuditEntries = table(
  { table: "dashboard_audit", key: "audit_id", value: "AuditEntry" },
  Schema.Struct({
    audit_id: Schema.String,
    account_id: Schema.String,
    user_id: Schema.String,
    email: Schema.String,
    action: Schema.String,
    object_id: NullableString,
    livemode: Schema.NullOr(Schema.Boolean),
    address: Schema.String,
    at: Timestamptz
  }),
  AuditEntry,
  { decode: () => ({}), encode: (entry) => entry }
)
export type AuditRow = typeof AuditEntries.schema.Encoded
export const auditFromRow = AuditEntries.fromRow
export const auditToRow = AuditEntries.toRow

// tax_documents ---------------------------------------------------------------------------------------------------

/**
 * A tax document's row: the columns its lists filter on, and the document itself as JSON (its Schema's encoded
 * form), decoded by the same Schema: read back, it is the document as issued.
 */
export interface DocumentRow {
  readonly document_id: string
  readonly document: unknown
}

const invoiceJson = Schema.encodeSync(Invoice)
const creditNoteJson = Schema.encodeSync(CreditNote)
const invoiceDecoder = decoder(Invoice, "tax_documents (invoice)")
const creditNoteDecoder = decoder(CreditNote, "tax_documents (credit note)")
const parsed = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value)

export const invoiceFromRow = (row: DocumentRow): Invoice => invoiceDecoder(parsed(row.document))
export const creditNoteFromRow = (row: DocumentRow): CreditNote => creditNoteDecoder(parsed(row.document))

const documentColumns = (d: Invoice | CreditNote) => ({
  account_id: d.account_id,
  livemode: d.livemode,
  number: d.number,
  payment_id: d.payment_id,
  subscription_id: d.subscription_id,
  customer_id: d.buyer.customer_id,
  issued_at: toTimestamp(d.issued_at)
})

export const invoiceToRow = (invoice: Invoice) => ({
  document_id: invoice.invoice_id,
  kind: "invoice",
  ...documentColumns(invoice),
  refund_id: null,
  invoice_id: null,
  document: JSON.stringify(invoiceJson(invoice))
})

export const creditNoteToRow = (note: CreditNote) => ({
  document_id: note.credit_note_id,
  kind: "credit_note",
  ...documentColumns(note),
  refund_id: note.refund_id,
  invoice_id: note.invoice_id,
  document: JSON.stringify(creditNoteJson(note))
})

// test_clocks -----------------------------------------------------------------------------------------------------

export const TestClocks = table(
  { table: "test_clocks", key: "test_clock_id", value: "TestClock" },
  Schema.Struct({
    test_clock_id: Schema.String,
    account_id: Schema.String,
    livemode: Schema.Boolean,
    name: NullableString,
    frozen_time: Timestamptz,
    status: Schema.String,
    advancing_to: NullableTimestamptz,
    lease_until: NullableTimestamptz,
    created_at: Timestamptz
  }),
  TestClock,
  { decode: () => ({ object: "test_clock" }), encode: (clock) => clock }
)
export type TestClockRow = typeof TestClocks.schema.Encoded
export const testClockFromRow = TestClocks.fromRow
export const testClockToRow = TestClocks.toRow

/** The columns an update may change (id, owner, mode and creation time never change). */
export const testClockChanges = (c: TestClock) => changesOf(testClockToRow(c), "test_clock_id")
