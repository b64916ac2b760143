/**
 * The finishing pass over the OpenAPI document that `OpenApi.fromApi` generates from the contract (Api.ts), for what
 * HttpApi annotations cannot express (docs/decisions.md §8):
 *
 * - response headers: `RateLimit-*` on authenticated answers, `Retry-After` on 429, `WWW-Authenticate` on 401,
 *   `Idempotent-Replayed` on the replayable answers of the POSTs that take an `Idempotency-Key`;
 * - which of the API-wide errors an operation can actually return (404 needs a path id, 413 a body, 405 never
 *   applies to a documented method) and a description naming every code behind each status;
 * - the error catalogue (every code and status) in the document's description;
 * - examples for every request body, success and error response;
 * - the webhook deliveries Fils sends (OpenAPI 3.1 `webhooks`), one per event type, with the Standard Webhooks
 *   headers.
 *
 * It reads only the generated operations (security, parameters, bodies, error schemas) and the example table below:
 * nothing here re-declares a route, so a new endpoint is completed the same way without touching this file (the
 * OpenAPI tests fail until it has examples).
 */
import type { AccountResource } from "../../src/domain/Account.js"
import type { CheckoutSessionCreate, CheckoutSessionResource } from "../../src/domain/CheckoutSession.js"
import type { CustomerCreate, CustomerResource, CustomerUpdate } from "../../src/domain/Customer.js"
import type { DiscountCreate, DiscountResource, DiscountUpdate } from "../../src/domain/Discount.js"
import type { TestClockAdvance, TestClockCreate, TestClockResource } from "../../src/domain/TestClock.js"
import { Either, Schema } from "effect"
import { SubscriptionNotChangeable } from "../../src/domain/Errors.js"
import * as Idempotency from "../../src/domain/Idempotency.js"
import type { DeliveryResource } from "../../src/domain/Delivery.js"
import { byNameOnly, type EventResource } from "../../src/domain/Event.js"
import type { RequestLogResource } from "../../src/domain/RequestLog.js"
import type { PaymentResource } from "../../src/domain/Payment.js"
import type { PortalSessionCreate, PortalSessionResource } from "../../src/domain/PortalSession.js"
import { checkCurrency, type ProductCreate, type ProductResource, type ProductUpdate } from "../../src/domain/Product.js"
import type { SubscriptionCharge, SubscriptionResource, SubscriptionUpdate } from "../../src/domain/Subscription.js"
import type { PlanChangePreview, PlanChangePreviewRequest, PlanChangeRequest } from "../../src/domain/PlanChange.js"
import { CreditNote, Invoice } from "../../src/domain/TaxDocument.js"
import type {
  WebhookCreate,
  WebhookResource,
  WebhookUpdate,
  WebhookWithSecret
} from "../../src/domain/WebhookEndpoint.js"
import { creditNoteXml, invoiceXml } from "../einvoice/PintAe.js"
import { creditNotePage, invoicePage } from "./documents/TaxDocumentPage.js"

type Json = Record<string, any>

// Examples --------------------------------------------------------------------------------------------------------

const id = (prefix: string, n = 0) => `${prefix}_0190f0c2a1b27c3d8e4f5a6b7c8d9e${n.toString(16).padStart(2, "0")}`
const at = "2026-11-21T10:00:00.000Z"

const product: typeof ProductResource.Encoded = {
  object: "product",
  product_id: id("pdt"),
  name: "Karak chai subscription",
  description: "A box of loose-leaf karak every month",
  price: 34900,
  currency: "AED",
  billing: "recurring",
  billing_interval: "month",
  interval_count: 1,
  trial_period_days: 0,
  trial_amount: null,
  status: "active",
  tax_category: "S",
  tax_exemption_code: null,
  item_type: "S",
  item_code: null,
  plan_change_policy: {
    upgrade: { proration_billing_mode: "prorated_immediately", effective_at: "immediately" },
    downgrade: { proration_billing_mode: "full_immediately", effective_at: "next_billing_date" }
  },
  offered_in_portal: true,
  metadata: { sku: "KARAK-M" },
  livemode: false,
  created_at: at,
  updated_at: null
}

const customer: typeof CustomerResource.Encoded = {
  object: "customer",
  customer_id: id("cus"),
  name: "Layla Haddad",
  email: "layla@example.ae",
  phone_number: "+971501234567",
  business: null,
  metadata: {},
  test_clock_id: null,
  livemode: false,
  created_at: at
}

/** A clock a month on from its start, ready. */
const testClock: typeof TestClockResource.Encoded = {
  object: "test_clock",
  test_clock_id: id("clk"),
  name: "Monthly renewal",
  frozen_time: "2026-12-21T10:00:00.000Z",
  status: "ready",
  advancing_to: null,
  livemode: false,
  created_at: at
}

const portalSession: typeof PortalSessionResource.Encoded = {
  object: "customer_portal_session",
  customer_portal_session_id: id("cps"),
  customer_id: customer.customer_id,
  url: "https://pay.example.ae/portal/Jx3f9Qh2Lr8TzVw1Kb6NcYp4MsGd0AeU5oRi7HjXqZ",
  return_url: "https://shop.example.ae/account",
  livemode: false,
  created_at: at,
  expires_at: "2026-11-21T11:00:00.000Z"
}

/** A welcome code: 10 % off the first three months of the example subscription. */
const discount: typeof DiscountResource.Encoded = {
  object: "discount",
  discount_id: id("dsc"),
  code: "Welcome10",
  name: "Welcome offer",
  type: "percentage",
  amount: 1000,
  subscription_cycles: 3,
  usage_limit: 500,
  times_used: 42,
  expires_at: "2030-12-31T20:00:00.000Z",
  restricted_to: [id("pdt")],
  preserve_on_plan_change: false,
  metadata: { campaign: "launch" },
  livemode: false,
  created_at: "2026-11-01T08:00:00.000Z"
}

/** The example session's code, as it applied: 10 % of 349.00. */
const applied = {
  discount_id: id("dsc"),
  code: "Welcome10",
  type: "percentage",
  amount: 1000,
  subscription_cycles: 3,
  amount_off: 3490
} as const

const checkoutSession: typeof CheckoutSessionResource.Encoded = {
  object: "checkout_session",
  session_id: id("cks"),
  kind: "subscription",
  status: "open",
  checkout_url: `https://pay.example.ae/checkout/${id("cks")}`,
  total_amount: 31410,
  tax: 1496,
  currency: "AED",
  product_cart: [{ product_id: id("pdt"), name: "Karak chai subscription", quantity: 1, unit_amount: 34900 }],
  discounts: [applied],
  customer: { name: "Layla Haddad", email: "layla@example.ae", phone_number: "+971501234567" },
  return_url: "https://shop.example.ae/thanks",
  payment_id: null,
  subscription_id: null,
  trial_period_days: null,
  metadata: { order: "1042" },
  livemode: false,
  created_at: at,
  expires_at: "2026-11-22T10:00:00.000Z",
  completed_at: null
}

const payment: typeof PaymentResource.Encoded = {
  object: "payment",
  payment_id: id("pay"),
  status: "succeeded",
  total_amount: 31410,
  tax: 1496,
  refunded_amount: 0,
  fee_amount: 1011,
  net_amount: 30399,
  currency: "AED",
  description: "Karak chai subscription",
  customer: { customer_id: id("cus"), name: "Layla Haddad", email: "layla@example.ae", phone_number: "+971501234567" },
  checkout_session_id: id("cks"),
  subscription_id: id("sub"),
  billing_reason: "subscription_create",
  discounts: [applied],
  metadata: { order: "1042" },
  livemode: false,
  created_at: at,
  paid_at: "2026-11-21T10:00:02.000Z"
}

const subscription: typeof SubscriptionResource.Encoded = {
  object: "subscription",
  subscription_id: id("sub"),
  status: "active",
  product_id: id("pdt"),
  name: "Karak chai subscription",
  quantity: 1,
  recurring_amount: 34900,
  currency: "AED",
  billing_interval: "month",
  interval_count: 1,
  customer: { customer_id: id("cus"), name: "Layla Haddad", email: "layla@example.ae" },
  payment_method: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 },
  current_period_start: "2026-11-21T10:00:02.000Z",
  next_billing_date: "2026-12-21T10:00:02.000Z",
  cancel_at_period_end: false,
  trial_period_days: 0,
  trial_ends_at: null,
  cancelled_at: null,
  cancellation_reason: null,
  failed_payment_attempts: 0,
  next_retry_at: null,
  checkout_session_id: id("cks"),
  discounts: [{
    discount_id: id("dsc"),
    code: "Welcome10",
    type: "percentage",
    amount: 1000,
    subscription_cycles: 3,
    cycles_remaining: 2
  }],
  metadata: { order: "1042" },
  livemode: false,
  created_at: "2026-11-21T10:00:02.000Z",
  scheduled_change: null,
  credit_balance: 0
}

/**
 * A change of that subscription, half-way through its period, to a family box of 599.00 (prorated): the new plan's
 * month less half of the old one's, 5 % VAT inside the prices.
 */
const changedAt = "2026-12-06T10:00:02.000Z"
const planChangePayment: typeof PaymentResource.Encoded = {
  ...payment,
  payment_id: id("pay", 1),
  total_amount: 42450,
  tax: 2021,
  fee_amount: 1331,
  net_amount: 41119,
  description: "Karak chai family box (plan change from Karak chai subscription)",
  checkout_session_id: null,
  billing_reason: "subscription_update",
  created_at: changedAt,
  paid_at: "2026-12-06T10:00:03.000Z"
}
const changedSubscription: typeof SubscriptionResource.Encoded = {
  ...subscription,
  product_id: id("pdt", 1),
  name: "Karak chai family box",
  recurring_amount: 59900,
  current_period_start: changedAt,
  next_billing_date: "2027-01-06T10:00:02.000Z"
}
const planChangePreview = {
  immediate_charge: {
    effective_at: changedAt,
    discounts: [],
    line_items: [
      {
        type: "new_plan",
        product_id: id("pdt", 1),
        name: "Karak chai family box",
        quantity: 1,
        unit_price: 59900,
        proration_factor: 1,
        amount: 59900,
        tax: 2852
      },
      {
        type: "unused_time",
        product_id: id("pdt"),
        name: "Karak chai subscription",
        quantity: 1,
        unit_price: 34900,
        proration_factor: 0.5,
        amount: 17450,
        tax: 831
      }
    ],
    summary: { total_amount: 42450, tax: 2021, credit_applied: 17450, credit_remaining: 0 }
  },
  new_plan: changedSubscription,
  quote_id: "qt_1796551202000_5b0e2d9c8a7f41e3b6c2d1f0a9e8b7c6"
} satisfies typeof PlanChangePreview.Encoded

const webhook: typeof WebhookResource.Encoded = {
  object: "webhook",
  webhook_id: id("wh"),
  url: "https://shop.example.ae/fils/webhooks",
  description: "Order fulfilment",
  event_types: ["payment.succeeded", "payment.failed", "subscription.cancelled"],
  disabled: false,
  livemode: false,
  created_at: at,
  health: {
    attempts_last_day: 40,
    failed_last_day: 2,
    failure_rate_last_day: 0.05,
    failing_since: null,
    auto_disabled_at: null
  }
}
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

/** A delivery of the example payment's event, answered 500 once and then 200. */
const deliveryBodyExample = JSON.stringify({
  id: id("evt"),
  type: "payment.succeeded",
  livemode: false,
  created_at: "2026-11-21T10:00:02.000Z",
  data: { object: "payment", payment_id: id("pay") }
})
const sentHeaders = (timestamp: number, signature: string) => ({
  "content-type": "application/json",
  "content-length": String(deliveryBodyExample.length),
  "user-agent": "Fils-Webhooks/1.0",
  "webhook-id": id("evt"),
  "webhook-timestamp": String(timestamp),
  "webhook-signature": `v1,${signature}`
})
const webhookDelivery: typeof DeliveryResource.Encoded = {
  object: "webhook_delivery",
  delivery_id: id("dlv"),
  webhook_id: id("wh"),
  event_id: id("evt"),
  event_type: "payment.succeeded",
  test: false,
  status: "succeeded",
  livemode: false,
  created_at: "2026-11-21T10:00:02.000Z",
  next_attempt_at: null,
  request_body: deliveryBodyExample,
  attempts: [{
    attempt: 1,
    started_at: "2026-11-21T10:00:02.000Z",
    status_code: 500,
    error: null,
    latency_ms: 84,
    response_body: "{\"error\":\"database is down\"}",
    request: { headers: sentHeaders(1795255202, "K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=") }
  }, {
    attempt: 2,
    started_at: "2026-11-21T10:00:07.000Z",
    status_code: 200,
    error: null,
    latency_ms: 31,
    response_body: "ok",
    request: { headers: sentHeaders(1795255207, "bm6Jxq9Wm9yq8Vb3JmCk2M3Q0vKQe4tq3z8T0tYb3vQ=") }
  }]
}
const webhookWithSecret: typeof WebhookWithSecret.Encoded = { ...webhook, secret }

const event: typeof EventResource.Encoded = {
  object: "event",
  event_id: id("evt"),
  type: "payment.succeeded",
  livemode: false,
  created_at: "2026-11-21T10:00:02.000Z",
  data: payment,
  request_id: null
}

const requestLog: typeof RequestLogResource.Encoded = {
  object: "request_log",
  request_log_id: id("log"),
  request_id: "req_k3j5h2m4n6p7q2r3s4t5u6v7w2",
  livemode: false,
  key_id: id("key"),
  method: "POST",
  path: "/api/v1/checkout_sessions",
  status: 200,
  duration_ms: 12.48,
  idempotency_key: "order-1042",
  error_code: null,
  created_at: "2026-11-21T10:00:00.000Z"
}

const account: typeof AccountResource.Encoded = {
  object: "account",
  account_id: id("acct"),
  business_name: "Souq Karak",
  support_email: "help@souq.example.ae",
  livemode: false,
  payments_enabled: true,
  currencies: ["AED"],
  tax_profile: null
}

/** A VAT-registered merchant's profile: the supplier its documents name. */
const taxProfile = {
  legal_name: "Souq Karak Trading LLC",
  legal_name_ar: "سوق كرك للتجارة ذ.م.م",
  trn: "100123456700003",
  address: { line1: "Shop 4, Al Fahidi Street", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
  trade_licence: { number: "DED-123456", authority: "Dubai Economy and Tourism" },
  vat_registered: true,
  prices_include_vat: true
} as const

/** The tax invoice of the example payment (a subscription's first period, 5% VAT inside its price). */
const invoice: typeof Invoice.Encoded = {
  object: "invoice",
  invoice_id: id("inv"),
  account_id: id("acct"),
  livemode: false,
  number: "INV-000042",
  uuid: "0190f0c2-a1b2-7c3d-8e4f-5a6b7c8d9e00",
  issued_at: "2026-11-21T10:00:02.000Z",
  currency: "AED",
  supplier: taxProfile,
  buyer: { customer_id: id("cus"), name: "Layla Haddad", email: "layla@example.ae", business: null },
  prices_include_vat: true,
  payment_id: id("pay"),
  subscription_id: id("sub"),
  kind: "simplified",
  supplied_at: "2026-11-21T10:00:02.000Z",
  continuous_supply: true,
  period: { start: "2026-11-21T10:00:02.000Z", end: "2026-12-21T10:00:02.000Z" },
  lines: [{
    description: "Karak chai subscription",
    quantity: 1,
    unit_amount: 34900,
    category: "S",
    rate_bps: 500,
    item_type: "S",
    item_code: null,
    discount: 3490,
    net: 29914,
    vat: 1496,
    gross: 31410
  }],
  totals: { net: 29914, vat: 1496, gross: 31410 },
  card: { brand: "visa", last4: "4242" }
}

/** The credit note of a refund of 100.00 AED of that payment. */
const creditNote: typeof CreditNote.Encoded = {
  object: "credit_note",
  credit_note_id: id("cn"),
  account_id: id("acct"),
  livemode: false,
  number: "CN-000007",
  uuid: "0190f0c2-a1b2-7c3d-8e4f-5a6b7c8d9e00",
  issued_at: "2026-11-25T08:30:00.000Z",
  currency: "AED",
  supplier: taxProfile,
  buyer: invoice.buyer,
  prices_include_vat: true,
  payment_id: id("pay"),
  subscription_id: id("sub"),
  invoice_id: invoice.invoice_id,
  invoice_number: invoice.number,
  invoice_issued_at: invoice.issued_at,
  refund_id: id("ref"),
  reason: "Consideration reduced: part of the payment was refunded",
  reason_code: "DL8.61.1.C",
  original_value: 31410,
  value_before: 31410,
  correct_value: 21410,
  difference: { net: 9524, vat: 476, gross: 10000 },
  lines: [{
    description: "Karak chai subscription",
    category: "S",
    rate_bps: 500,
    item_type: "S",
    item_code: null,
    net: 9524,
    vat: 476,
    gross: 10000
  }]
}

const page = <A>(item: A) => ({
  items: [item],
  has_more: true,
  next_cursor: "eyJsIjoicHJvZHVjdHMiLCJ0IjoxNzk1MjY4ODAwMDAwfQ"
})

/**
 * The `data` of each event type's example: the object right after the change. Also the data of the test events
 * `POST /webhooks/{id}/test` sends: example objects whose ids exist nowhere.
 */
export const eventExample = (type: string): Record<string, unknown> => {
  switch (type) {
    case "webhook.disabled":
      return {
        ...webhook,
        disabled: true,
        health: {
          attempts_last_day: 12,
          failed_last_day: 12,
          failure_rate_last_day: 1,
          failing_since: "2026-11-18T09:12:40.000Z",
          auto_disabled_at: "2026-11-21T10:00:00.000Z"
        }
      }
    case "payment.failed":
      return { ...payment, status: "failed", fee_amount: 0, net_amount: 31410, subscription_id: null, paid_at: null }
    case "refund.succeeded":
      return { ...payment, status: "refunded", refunded_amount: 31410, net_amount: -1011, refund_amount: 31410 }
    case "subscription.on_hold":
      return {
        ...subscription,
        status: "on_hold",
        failed_payment_attempts: 1,
        next_retry_at: "2026-12-22T10:00:02.000Z"
      }
    case "subscription.cancelled":
      return {
        ...subscription,
        status: "cancelled",
        cancelled_at: "2026-11-25T08:30:00.000Z",
        cancellation_reason: "requested"
      }
    case "subscription.plan_changed":
      return changedSubscription
    case "invoice.issued":
      return invoice
    case "credit_note.issued":
      return creditNote
    default:
      return type.startsWith("subscription.") ? subscription : payment
  }
}
const eventData = eventExample

/** The rule for query strings, stated on every operation that takes query parameters and in the overview. */
const queryRule = "Query parameters not listed here are ignored; a listed one is given at most once, and a value " +
  "its schema does not allow is `400 INVALID_REQUEST` (as is a NUL character anywhere in a request)."

/** Operations whose body names an object that must exist in the caller's scope (else `404 NOT_FOUND`). */
export const namesObjectInBody: ReadonlySet<string> = new Set(["customerPortalSessions.create"])

/** Success examples by the identifier of the response schema. */
export const responseExamples: Readonly<Record<string, unknown>> = {
  Account: account,
  Product: product,
  ProductList: page(product),
  Customer: customer,
  CustomerList: page(customer),
  CheckoutSession: checkoutSession,
  CustomerPortalSession: portalSession,
  Discount: discount,
  DiscountList: page(discount),
  DiscountDeleted: { object: "discount", discount_id: id("dsc"), deleted: true },
  TestClock: testClock,
  TestClockList: page(testClock),
  TestClockDeleted: { object: "test_clock", test_clock_id: id("clk"), deleted: true },
  Payment: payment,
  PaymentList: page(payment),
  Subscription: subscription,
  SubscriptionList: page(subscription),
  SubscriptionChangePlanResult: { subscription: changedSubscription, payment: planChangePayment },
  SubscriptionChangePlanPreviewResult: planChangePreview,
  SubscriptionChargeResult: { payment_id: id("pay", 1) },
  Webhook: webhook,
  WebhookWithSecret: webhookWithSecret,
  WebhookList: page(webhook),
  WebhookDeleted: { object: "webhook", webhook_id: id("wh"), deleted: true },
  WebhookSecret: { secret },
  WebhookDelivery: webhookDelivery,
  WebhookDeliveryList: page(webhookDelivery),
  WebhookRecovery: { object: "webhook_recovery", webhook_id: id("wh"), since: "2026-11-20T00:00:00.000Z", resent: 14 },
  Event: event,
  EventList: page(event),
  RequestLogList: page(requestLog),
  Invoice: invoice,
  InvoiceList: page(invoice),
  CreditNote: creditNote,
  CreditNoteList: page(creditNote)
}

/**
 * Examples of the answers that are not JSON, by operationId: the example documents as the server writes them (made
 * when the document is completed, once).
 */
export const textExamples: Readonly<Record<string, () => string>> = {
  "invoices.xml": () => invoiceXml(Schema.decodeSync(Invoice)(invoice)),
  "invoices.html": () => invoicePage(Schema.decodeSync(Invoice)(invoice), { nonce: "bm9uY2U" }),
  "creditNotes.xml": () => creditNoteXml(Schema.decodeSync(CreditNote)(creditNote)),
  "creditNotes.html": () => creditNotePage(Schema.decodeSync(CreditNote)(creditNote), { nonce: "bm9uY2U" })
}

/** Request body examples by operationId. */
export const requestExamples: Readonly<Record<string, unknown>> = {
  "products.create": {
    name: "Karak chai subscription",
    description: "A box of loose-leaf karak every month",
    price: 34900,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month",
    metadata: { sku: "KARAK-M" }
  } satisfies typeof ProductCreate.Encoded,
  "products.update": {
    price: 29900,
    metadata: { sku: "KARAK-M", promo: "winter" }
  } satisfies typeof ProductUpdate.Encoded,
  "customers.create": {
    email: "layla@example.ae",
    name: "Layla Haddad",
    phone_number: "+971501234567"
  } satisfies typeof CustomerCreate.Encoded,
  "customers.update": { name: "Layla Al Haddad", metadata: { tier: "gold" } } satisfies typeof CustomerUpdate.Encoded,
  "checkoutSessions.create": {
    product_cart: [{ product_id: id("pdt"), quantity: 1 }],
    customer: { email: "layla@example.ae", name: "Layla Haddad" },
    return_url: "https://shop.example.ae/thanks",
    discount_code: "WELCOME10",
    metadata: { order: "1042" }
  } satisfies typeof CheckoutSessionCreate.Encoded,
  "discounts.create": {
    code: "Welcome10",
    name: "Welcome offer",
    type: "percentage",
    amount: 1000,
    subscription_cycles: 3,
    usage_limit: 500,
    expires_at: "2030-12-31T20:00:00.000Z",
    restricted_to: [id("pdt")],
    metadata: { campaign: "launch" }
  } satisfies typeof DiscountCreate.Encoded,
  "discounts.update": { usage_limit: 1000, expires_at: null } satisfies typeof DiscountUpdate.Encoded,
  "subscriptions.update": { cancel_at_period_end: true } satisfies typeof SubscriptionUpdate.Encoded,
  "subscriptions.changePlan": {
    product_id: id("pdt", 1),
    quantity: 1,
    proration_billing_mode: "prorated_immediately",
    on_payment_failure: "prevent_change",
    quote_id: planChangePreview.quote_id
  } satisfies typeof PlanChangeRequest.Encoded,
  "subscriptions.previewChangePlan": {
    product_id: id("pdt", 1),
    quantity: 1,
    proration_billing_mode: "prorated_immediately"
  } satisfies typeof PlanChangePreviewRequest.Encoded,
  "subscriptions.charge": {
    product_price: 4500,
    product_description: "Extra tin of saffron karak",
    metadata: { order: "1043" }
  } satisfies typeof SubscriptionCharge.Encoded,
  "customerPortalSessions.create": {
    customer_id: id("cus"),
    return_url: "https://shop.example.ae/account"
  } satisfies typeof PortalSessionCreate.Encoded,
  "webhooks.create": {
    url: "https://shop.example.ae/fils/webhooks",
    description: "Order fulfilment",
    event_types: ["payment.succeeded", "payment.failed", "subscription.cancelled"]
  } satisfies typeof WebhookCreate.Encoded,
  "webhooks.update": { disabled: true } satisfies typeof WebhookUpdate.Encoded,
  "webhooks.test": { type: "payment.succeeded" },
  "webhooks.recover": { since: "2026-11-20T00:00:00.000Z" },
  "testClocks.create": {
    frozen_time: "2026-11-21T10:00:00.000Z",
    name: "Monthly renewal"
  } satisfies typeof TestClockCreate.Encoded,
  "testClocks.advance": { frozen_time: "2026-12-21T10:00:00.000Z" } satisfies typeof TestClockAdvance.Encoded
}

/**
 * A typical message per error code (the `message` is for people; match on `code`). Where the engine has the error's
 * maker, the example is made by it, so that it reads as the server's answer does.
 */
export const errorMessages: Readonly<Record<string, string>> = {
  INVALID_REQUEST: "price must be 0 or more",
  CURRENCY_NOT_SUPPORTED: Either.getOrThrow(Either.flip(checkCurrency("USD"))).message,
  UNAUTHORIZED: "A valid API key is required: send 'Authorization: Bearer sk_test_…'",
  PAYMENTS_DISABLED: "Live payments are not enabled for this account",
  CARD_DECLINED: `The card was declined (insufficient_funds), so the plan was not changed; the failed charge is payment ${id("pay", 1)}`,
  NOT_FOUND: `No such product: '${id("pdt")}'`,
  METHOD_NOT_ALLOWED: "DELETE is not allowed on /api/v1/products; use GET, POST",
  INVALID_STATE: new SubscriptionNotChangeable({ subscription_id: id("sub"), status: "cancelled", change: "change cancel_at_period_end" }).message,
  ALREADY_EXISTS: "A discount with the code WELCOME10 already exists in this mode (codes are compared ignoring case); choose another code",
  IDEMPOTENCY_KEY_IN_USE: Idempotency.inUse().message,
  PAYLOAD_TOO_LARGE: "The request body is larger than 1048576 bytes",
  IDEMPOTENCY_KEY_REUSED: "This Idempotency-Key was used with different parameters",
  RATE_LIMITED: "Too many requests: at most 240 per minute; retry after 12 seconds",
  INTERNAL_ERROR: "An unexpected error occurred",
  SERVICE_UNAVAILABLE: "The store cannot be reached; retry later"
}

// Headers ---------------------------------------------------------------------------------------------------------

const integerHeader = (description: string, example: number) => ({
  description,
  schema: { type: "integer", minimum: 0 },
  example
})

/** Response headers, documented once under `components.headers`. */
export const responseHeaders: Readonly<Record<string, Json>> = {
  "RateLimit-Limit": integerHeader("Requests allowed per rolling minute for this key (240 unless configured)", 240),
  "RateLimit-Remaining": integerHeader("Requests left in the current window for this key", 239),
  "RateLimit-Reset": integerHeader("Whole seconds until the window has room again", 60),
  "Retry-After": { ...integerHeader("Whole seconds to wait before retrying", 12), required: true },
  "WWW-Authenticate": {
    description: "The authentication scheme to use",
    required: true,
    schema: { type: "string", enum: ["Bearer"] },
    example: "Bearer"
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key` " +
      "(within 24 hours); absent otherwise",
    schema: { type: "string", enum: ["true"] },
    example: "true"
  }
}

const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Makes the request safe to retry for 24 hours, per account and mode: a retry with the same key and " +
    "body answers the first response (with `Idempotent-Replayed: true`) and creates nothing new. The same key with " +
    "another body is `422 IDEMPOTENCY_KEY_REUSED`; while the first request runs, `409 IDEMPOTENCY_KEY_IN_USE`. " +
    "1 to 255 characters.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
  example: "order-1042-attempt"
}

/**
 * Answers an idempotency record never stores (docs/decisions.md §8: 401, 429 and 5xx), plus the ones raised before the
 * handler runs or by the idempotency check itself: these never carry `Idempotent-Replayed`.
 */
const notReplayed = new Set(["401", "409", "413", "422", "429"])

// Webhook deliveries ------------------------------------------------------------------------------------------------

/** The schema of a delivery's `data`, by the event type's first segment. */
const deliveryData: Readonly<Record<string, string>> = {
  payment: "Payment",
  refund: "RefundedPayment",
  subscription: "Subscription",
  invoice: "Invoice",
  credit_note: "CreditNote",
  webhook: "Webhook"
}

const deliveryHeaders = [
  [
    "webhook-id",
    "The event's `evt_` id: the same on every attempt, so duplicates can be dropped",
    { $ref: "#/components/schemas/EventId" },
    id("evt")
  ],
  [
    "webhook-timestamp",
    "Unix seconds of this attempt; refuse deliveries older than a few minutes",
    { type: "string", pattern: "^[0-9]+$" },
    "1795255202"
  ],
  [
    "webhook-signature",
    "`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part " +
    "of the endpoint's `whsec_` secret after the prefix",
    { type: "string", pattern: "^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$" },
    "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
  ]
] as const

/** One `webhooks` entry per value of the `EventType` schema: what a receiver gets, and what it must answer. */
const webhooksOf = (spec: Json): Json => {
  const types: ReadonlyArray<string> = spec.components?.schemas?.EventType?.enum ?? []
  return Object.fromEntries(types.flatMap((type) => {
    const data = deliveryData[type.split(".")[0]!]
    if (data === undefined || spec.components.schemas[data] === undefined) return []
    return [[type, {
      post: {
        operationId: `webhook.${type}`,
        summary: `Delivery of a \`${type}\` event`,
        description: "A Standard Webhooks POST to every enabled endpoint subscribed to this type" +
          ((byNameOnly as ReadonlyArray<string>).includes(type)
            ? " (only an endpoint whose `event_types` names it: one made without `event_types` does not receive it)"
            : "") +
          ". Verify the signature over the raw body before trusting it. Any 2xx within 10 seconds acknowledges it; otherwise it is retried " +
          "5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later (at least once: drop duplicates by `webhook-id`).",
        tags: ["Webhook deliveries"],
        parameters: deliveryHeaders.map(([name, description, schema, example]) => ({
          name,
          in: "header",
          required: true,
          description,
          schema,
          example
        })),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["id", "type", "livemode", "created_at", "data"],
                properties: {
                  id: { $ref: "#/components/schemas/EventId" },
                  type: { type: "string", enum: [type] },
                  livemode: { type: "boolean" },
                  created_at: { $ref: "#/components/schemas/DateTimeUtc" },
                  data: { $ref: `#/components/schemas/${data}` },
                  test: {
                    type: "boolean",
                    enum: [true],
                    description: "Present only on a test event (`POST /webhooks/{id}/test`): its objects are examples"
                  }
                },
                additionalProperties: false
              },
              examples: {
                [type]: {
                  value: { id: id("evt"), type, livemode: false, created_at: event.created_at, data: eventData(type) }
                }
              }
            }
          }
        },
        responses: {
          "2XX": { description: "Received: the delivery is done" },
          default: { description: "Not received: the delivery is retried" }
        }
      }
    }]]
  }))
}

// The pass --------------------------------------------------------------------------------------------------------

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

const operationsOf = (spec: Json): Array<{ readonly path: string; readonly method: string; readonly op: Json }> =>
  Object.entries<Json>(spec.paths ?? {}).flatMap(([path, item]) =>
    methods.filter((m) => item[m] !== undefined).map((method) => ({ path, method, op: item[method] }))
  )

const refName = (schema: Json | undefined): string | undefined =>
  typeof schema?.$ref === "string" ? schema.$ref.split("/").pop() : undefined

/** The error codes a response schema admits: `{ code: { enum: [...] } }`, directly, by `$ref` or in an `anyOf`. */
const codesOf = (spec: Json, schema: Json | undefined): Array<string> => {
  if (schema === undefined) return []
  const name = refName(schema)
  if (name !== undefined) return codesOf(spec, spec.components?.schemas?.[name])
  if (Array.isArray(schema.anyOf)) return schema.anyOf.flatMap((s: Json) => codesOf(spec, s))
  const code = schema.properties?.code
  return Array.isArray(code?.enum) ? code.enum : []
}

/** Every schema object below `schema` (not property names), for cleaning up generator artefacts. */
const eachSchema = (schema: unknown, f: (schema: Json) => void): void => {
  if (schema === null || typeof schema !== "object") return
  const s = schema as Json
  f(s)
  for (const key of ["items", "additionalProperties", "not", "contains", "propertyNames"]) eachSchema(s[key], f)
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    if (Array.isArray(s[key])) s[key].forEach((x: unknown) => eachSchema(x, f))
  }
  for (const key of ["properties", "patternProperties", "$defs"]) {
    if (s[key] !== null && typeof s[key] === "object") Object.values(s[key]).forEach((x) => eachSchema(x, f))
  }
}

/**
 * The framework's schema compiler leaves refinement names as titles (`maxLength(200)`), their default messages as
 * descriptions ("a string at most 200 character(s) long", which the keywords beside them already say, and more
 * exactly), and an `$id` on `unknown` (which JSON Schema reads as a base URI): tidy those.
 */
const tidySchema = (schema: Json) => {
  if (typeof schema.title === "string" && /^(\w+\(.*\)|int|unknown|any)$/.test(schema.title)) delete schema.title
  if (typeof schema.description === "string" && /^an? (string|number|integer|array)\b/.test(schema.description)) {
    delete schema.description
  }
  if (schema.$id === "/schemas/unknown" || schema.$id === "/schemas/any") delete schema.$id
}

const allSchemas = (spec: Json): Array<unknown> => [
  ...Object.values(spec.components?.schemas ?? {}),
  ...operationsOf(spec).flatMap(({ op }) => [
    ...(op.parameters ?? []).map((p: Json) => p.schema),
    ...Object.values<Json>(op.requestBody?.content ?? {}).map((m) => m.schema),
    ...Object.values<Json>(op.responses ?? {}).flatMap((r) => Object.values<Json>(r.content ?? {}).map((m) => m.schema))
  ])
]

/** The framework declares its own decode error on every endpoint; Fils answers those as `INVALID_REQUEST`. */
const dropFrameworkDecodeError = (spec: Json) => {
  const decodeRef = "#/components/schemas/HttpApiDecodeError"
  for (const { op } of operationsOf(spec)) {
    const media = op.responses?.["400"]?.content?.["application/json"]
    if (Array.isArray(media?.schema?.anyOf)) {
      const rest = media.schema.anyOf.filter((s: Json) => s.$ref !== decodeRef)
      media.schema = rest.length === 1 ? rest[0] : { anyOf: rest }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete spec.components?.schemas?.[name]
}

interface ErrorEntry {
  readonly status: string
  readonly code: string
  readonly description: string
}

/** Every error code the document declares, with its status and meaning, in status order. */
const errorCatalogue = (spec: Json): Array<ErrorEntry> => {
  const byCode = new Map<string, ErrorEntry>()
  for (const { op } of operationsOf(spec)) {
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      if (!/^[45]\d\d$/.test(status)) continue
      const schema = response.content?.["application/json"]?.schema
      for (const code of codesOf(spec, schema)) {
        const description = spec.components?.schemas?.[code]?.description ?? response.description
        if (!byCode.has(code)) byCode.set(code, { status, code, description })
      }
    }
  }
  return [...byCode.values()].sort((a, b) => a.status.localeCompare(b.status))
}

const headerRefs = (names: ReadonlyArray<string>) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))

const completeOperation = (spec: Json, path: string, op: Json) => {
  const authenticated = Array.isArray(op.security) && op.security.length > 0
  const hasPathId = /\{\w+\}/.test(path)
  const hasBody = op.requestBody !== undefined

  // The Idempotency-Key header, once, under its canonical spelling.
  let idempotent = false
  op.parameters = (op.parameters ?? []).map((p: Json) => {
    if (p.in === "header" && String(p.name).toLowerCase() === "idempotency-key") {
      idempotent = true
      return { $ref: "#/components/parameters/IdempotencyKey" }
    }
    if (p.in === "path" && p.example === undefined && typeof p.schema?.pattern === "string") {
      const prefix = /^\^(\w+)_/.exec(p.schema.pattern)?.[1]
      if (prefix !== undefined) p.example = id(prefix)
    }
    if (p.description === undefined && p.schema?.description !== undefined) p.description = p.schema.description
    return p
  })

  // Statuses this operation cannot produce.
  const responses: Json = op.responses ?? {}
  delete responses["405"] // a documented method is allowed; 405 is for the others (see the description)
  if (!hasPathId && !namesObjectInBody.has(op.operationId)) delete responses["404"]
  if (!hasBody) delete responses["413"]

  for (const [status, response] of Object.entries<Json>(responses)) {
    const media = response.content?.["application/json"]
    const text = textExamples[op.operationId]
    if (status === "200" && media === undefined && text !== undefined) {
      for (const other of Object.values<Json>(response.content ?? {})) other.examples = { [op.operationId]: { value: text() } }
    }
    const headers: Array<string> = []
    if (authenticated && status !== "401") headers.push("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
    if (status === "429") headers.push("Retry-After")
    if (status === "401") headers.push("WWW-Authenticate")
    if (idempotent && !notReplayed.has(status) && !status.startsWith("5")) headers.push("Idempotent-Replayed")
    if (headers.length > 0) response.headers = { ...response.headers, ...headerRefs(headers) }
    if (media === undefined) continue

    if (status === "200") {
      const name = refName(media.schema)
      const example = name === undefined ? undefined : responseExamples[name]
      if (name !== undefined) {
        response.description = spec.components?.schemas?.[name]?.description ??
          (name.endsWith("List") ? `A page of ${name.slice(0, -4)} objects, newest first` : `The ${name} object`)
      }
      if (example !== undefined) media.examples = { [name!]: { value: example } }
      continue
    }
    const codes = codesOf(spec, media.schema)
    if (codes.length === 0) continue
    response.description = codes
      .map((code) => `\`${code}\`: ${spec.components?.schemas?.[code]?.description ?? response.description}`)
      .join(". ")
    media.examples = Object.fromEntries(codes.map((code) => [
      code,
      { summary: code, value: { code, message: errorMessages[code] ?? spec.components?.schemas?.[code]?.description } }
    ]))
  }

  // What the server does with a query it was not told about, said where a client generator or fuzzer reads.
  if ((op.parameters as Array<Json>).some((p) => p.in === "query")) {
    op.description = `${op.description ?? ""} ${queryRule}`.trim()
  }

  const requestExample = requestExamples[op.operationId]
  const requestMedia = op.requestBody?.content?.["application/json"]
  if (requestMedia !== undefined && requestExample !== undefined) {
    requestMedia.examples = { [op.operationId]: { value: requestExample } }
  }
}

const describeApi = (spec: Json, catalogue: ReadonlyArray<ErrorEntry>): string =>
  [
    spec.info?.description ?? "",
    "",
    "## Authentication",
    "Every endpoint needs `Authorization: Bearer <key>`. `sk_test_…` keys see only test data, `sk_live_…` keys " +
    "only live data; an object of the other mode or of another account is `404 NOT_FOUND`.",
    "",
    "## Idempotency",
    "`POST` requests take an optional `Idempotency-Key` header (1 to 255 characters). Within 24 hours a retry with " +
    "the same key and body answers the stored response with `Idempotent-Replayed: true` and creates nothing; " +
    "another body is `422 IDEMPOTENCY_KEY_REUSED`; a retry while the first request still runs is " +
    "`409 IDEMPOTENCY_KEY_IN_USE`. 401, 429 and 5xx answers are not stored.",
    "",
    "## Rate limits",
    "240 requests per rolling minute per key (configurable). Every authenticated answer carries `RateLimit-Limit`, " +
    "`RateLimit-Remaining` and `RateLimit-Reset`; beyond the limit the answer is `429 RATE_LIMITED` with " +
    "`Retry-After` in whole seconds. Failed authentications are limited per client address.",
    "",
    "## Lists",
    "Lists are newest first, `{ items, has_more, next_cursor }`; pass `next_cursor` as `cursor` for the next page. " +
    queryRule,
    "",
    "## Errors",
    "Every error, from every layer, is `{ code, message }` JSON: match on `code`, show `message` to people. A path " +
    "that exists with another method is `405 METHOD_NOT_ALLOWED` with an `Allow` header; an unknown path is " +
    "`404 NOT_FOUND`; a body over 1 MiB is `413 PAYLOAD_TOO_LARGE`.",
    "",
    "| Status | Code | Meaning |",
    "|---|---|---|",
    ...catalogue.map((e) => `| ${e.status} | \`${e.code}\` | ${e.description} |`)
  ].join("\n")

/** Completes the generated document in place (the generator caches it: this runs once per API). */
export const completeDocument = (spec: Json): Json => {
  dropFrameworkDecodeError(spec)
  // Taken before operations lose the statuses they cannot produce (405, 413 and 404 are API-wide).
  const catalogue = errorCatalogue(spec)
  for (const { path, op } of operationsOf(spec)) completeOperation(spec, path, op)
  for (const schema of allSchemas(spec)) eachSchema(schema, tidySchema)
  const schemas: Json = spec.components.schemas
  if (schemas.DateTimeUtc !== undefined) {
    schemas.DateTimeUtc = {
      type: "string",
      format: "date-time",
      description: "UTC, ISO 8601 with milliseconds",
      examples: [at]
    }
  }
  spec.components.headers = { ...spec.components.headers, ...responseHeaders }
  spec.components.parameters = { ...spec.components.parameters, IdempotencyKey: idempotencyKeyParameter }
  spec.info.description = describeApi(spec, catalogue)
  spec.webhooks = webhooksOf(spec)
  if (Object.keys(spec.webhooks).length > 0) {
    spec.tags = [...spec.tags, {
      name: "Webhook deliveries",
      description: "What Fils sends to your webhook endpoints, signed with the endpoint's secret."
    }]
  }
  // Every operation needs the same key: say so once at the top too, so readers (and /docs) preselect it.
  const securities = new Set(operationsOf(spec).map(({ op }) => JSON.stringify(op.security ?? [])))
  if (securities.size === 1) spec.security = JSON.parse([...securities][0]!)
  return spec
}
