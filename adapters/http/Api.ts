/**
 * The HTTP contract of Fils (`/api/v1`): groups, endpoints, schemas and errors with their statuses. The server,
 * the OpenAPI document and the typed client are all derived from this one definition.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, DateTime, ParseResult, Schema } from "effect"
import { AccountResource } from "../../src/domain/Account.js"
import { CheckoutSessionCreate, CheckoutSessionResource } from "../../src/domain/CheckoutSession.js"
import { CustomerCreate, CustomerResource, CustomerUpdate, Email } from "../../src/domain/Customer.js"
import { DateTimeInput, exists } from "../../src/domain/Instant.js"
import { DiscountCreate, DiscountResource, DiscountUpdate } from "../../src/domain/Discount.js"
import { EventResource, EventType } from "../../src/domain/Event.js"
import { maxKeyLength } from "../../src/domain/Idempotency.js"
import { cursorPattern, ListResource, maxCursorLength } from "../../src/domain/Pagination.js"
import { PaymentResource, PaymentStatus, RefundedPaymentResource } from "../../src/domain/Payment.js"
import { PortalSessionCreate, PortalSessionResource } from "../../src/domain/PortalSession.js"
import { maxPathLength, RequestLogResource, statusFilterPattern } from "../../src/domain/RequestLog.js"
import { Billing, ProductCreate, ProductResource, ProductStatus, ProductUpdate } from "../../src/domain/Product.js"
import { storablePattern } from "../../src/domain/Text.js"
import {
  SubscriptionCharge,
  SubscriptionChargeResult,
  SubscriptionResource,
  SubscriptionStatus,
  SubscriptionUpdate
} from "../../src/domain/Subscription.js"
import {
  PlanChangePreview,
  PlanChangePreviewRequest,
  PlanChangeRequest,
  PlanChangeResult
} from "../../src/domain/PlanChange.js"
import { CreditNote, Invoice } from "../../src/domain/TaxDocument.js"
import { TestClockAdvance, TestClockCreate, TestClockDeleted, TestClockResource } from "../../src/domain/TestClock.js"
import { WebhookCreate, WebhookResource, WebhookUpdate, WebhookWithSecret } from "../../src/domain/WebhookEndpoint.js"
import { DeliveryResource, pageMax as deliveriesPageMax } from "../../src/domain/Delivery.js"
import type { Principal } from "../../src/application/Accounts.js"
import * as E from "./Errors.js"
import { completeDocument } from "./OpenApiDocument.js"

export const basePath = "/api/v1"

/** The caller, provided to every handler by `Authentication`. */
export class CurrentPrincipal extends Context.Tag("fils/http/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("fils/http/Authentication", {
  failure: Schema.Union(E.Unauthorized, E.RateLimited, E.ServiceUnavailable),
  provides: CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "`Authorization: Bearer <key>` with a secret key: `sk_test_…` sees only test data, `sk_live_…` only live " +
          "data. A missing, malformed, unknown or revoked key is `401 UNAUTHORIZED` with `WWW-Authenticate: Bearer`."
      ),
      HttpApiSecurity.annotate(OpenApi.Format, "sk_test_… | sk_live_…")
    )
  }
}) {}

/** Request bodies are strict: an unknown field is refused (and named) instead of silently ignored. */
const strict = <S extends Schema.Schema.Any>(schema: S): S =>
  schema.annotations({ parseOptions: { onExcessProperty: "error" } }) as S

/** A path id. Any string is routed; one that does not match its pattern is answered 404 by the handler. */
const pathId = (prefix: string) =>
  Schema.Struct({
    id: Schema.String.annotations({
      jsonSchema: {
        type: "string",
        pattern: `^${prefix}_[0-9a-f]{32}$`,
        description: `A \`${prefix}_\` id; one of another account or mode, or of the wrong shape, is \`404 NOT_FOUND\``
      },
      description: `A \`${prefix}_\` id`
    })
  })

export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => `must be 1 to ${maxKeyLength} characters` }),
      Schema.maxLength(maxKeyLength)
    ).annotations({
      message: () => `must be 1 to ${maxKeyLength} characters`,
      description: "Makes the request safe to retry for 24 hours: a retry with the same key and body returns the " +
        "first response (with `Idempotent-Replayed: true`) and creates nothing new."
    })
  )
})

const Limit = Schema.String.pipe(
  // The integer as written plainly: `05` or `1e1` is refused, not read as another spelling of it.
  Schema.pattern(/^(?:[1-9][0-9]?|100)$/, { message: () => "must be an integer from 1 to 100" }),
  Schema.compose(Schema.NumberFromString),
  Schema.int(),
  Schema.between(1, 100)
).annotations({
  description: "Page size, 1 to 100 (default 20)",
  message: () => "must be an integer from 1 to 100",
  // On the wire it is a query string; documented as the integer it must spell.
  jsonSchema: { type: "integer", minimum: 1, maximum: 100, default: 20, description: "Page size, 1 to 100 (default 20)" }
})
/** The page size of a delivery log, smaller than other lists' (`Delivery.pageMax` says why). */
const DeliveryLimit = Schema.String.pipe(
  Schema.pattern(/^[1-9][0-9]{0,2}$/, { message: () => `must be an integer from 1 to ${deliveriesPageMax}` }),
  Schema.compose(Schema.NumberFromString),
  Schema.int(),
  Schema.between(1, deliveriesPageMax)
).annotations({
  message: () => `must be an integer from 1 to ${deliveriesPageMax}`,
  jsonSchema: {
    type: "integer",
    minimum: 1,
    maximum: deliveriesPageMax,
    default: deliveriesPageMax,
    description: `Page size, 1 to ${deliveriesPageMax} (default ${deliveriesPageMax})`
  }
})
const listParams = {
  limit: Schema.optional(Limit),
  // The shape is documented, and checked by the list itself (with its own message), from `cursorPattern`.
  cursor: Schema.optional(Schema.String.annotations({
    jsonSchema: {
      type: "string",
      pattern: cursorPattern.source,
      maxLength: maxCursorLength,
      description: "The `next_cursor` of the previous page, as it was given: only a cursor this server wrote for " +
        "the same list and filters is accepted. Any other value, even one of this shape, is `400 INVALID_REQUEST`."
    }
  }))
}

export const ProductList = ListResource(ProductResource, "ProductList")
export const CustomerList = ListResource(CustomerResource, "CustomerList")
export const PaymentList = ListResource(PaymentResource, "PaymentList")
export const EventList = ListResource(EventResource, "EventList")
export const SubscriptionList = ListResource(SubscriptionResource, "SubscriptionList")
export const WebhookList = ListResource(WebhookResource, "WebhookList")
export const InvoiceList = ListResource(Invoice, "InvoiceList")
export const CreditNoteList = ListResource(CreditNote, "CreditNoteList")
export const RequestLogList = ListResource(RequestLogResource, "RequestLogList")
export const WebhookDeleted = Schema.Struct({
  object: Schema.Literal("webhook"),
  webhook_id: Schema.String,
  deleted: Schema.Literal(true)
}).annotations({ identifier: "WebhookDeleted" })
export const WebhookSecret = Schema.Struct({ secret: Schema.String }).annotations({ identifier: "WebhookSecret" })
export const WebhookDeliveryList = ListResource(DeliveryResource, "WebhookDeliveryList")
export const WebhookTestRequest = Schema.Struct({
  type: EventType.annotations({ description: "One of the endpoint's `event_types`" })
}).annotations({ identifier: "WebhookTestRequest" })
export const WebhookRecoverRequest = Schema.Struct({
  since: DateTimeInput.annotations({
    description: "Deliveries made at or after this instant (ISO 8601) are sent again if they did not arrive"
  })
}).annotations({ identifier: "WebhookRecoverRequest" })
export const WebhookRecovery = Schema.Struct({
  object: Schema.Literal("webhook_recovery"),
  webhook_id: Schema.String,
  since: Schema.DateTimeUtc,
  /** How many deliveries were queued again by this request. */
  resent: Schema.NonNegativeInt
}).annotations({ identifier: "WebhookRecovery" })
export const DiscountList = ListResource(DiscountResource, "DiscountList")
export const TestClockList = ListResource(TestClockResource, "TestClockList")
export const DiscountDeleted = Schema.Struct({
  object: Schema.Literal("discount"),
  discount_id: Schema.String,
  deleted: Schema.Literal(true)
}).annotations({ identifier: "DiscountDeleted" })

/**
 * A filter by id: any string; one of the wrong shape simply matches nothing. The document says so rather than give
 * a pattern the server does not enforce.
 */
const idFilter = (prefix: string) =>
  Schema.String.annotations({
    jsonSchema: {
      type: "string",
      // No request may carry a NUL, anywhere.
      pattern: storablePattern,
      description: `Only those of this \`${prefix}_\` id (\`${prefix}_\` and 32 lowercase hex digits); any other ` +
        "string matches nothing",
      examples: [`${prefix}_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f`]
    }
  })

export class AccountGroup extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("get", "/account")
      .addSuccess(AccountResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read the account as the calling key's mode sees it",
        description: "The account's id (`acct_…`, which operator commands such as `fils keys create --account` take), " +
          "the business name, support e-mail, whether payments are enabled in the key's mode, and the enabled " +
          "currencies (only `AED`). A cheap way to check a key."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Account",
    description: "The merchant account as the calling key's mode sees it."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class ProductsGroup extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.get("list", "/products")
      .setUrlParams(Schema.Struct({
        ...listParams,
        status: Schema.optional(ProductStatus).annotations({ description: "Only products in this status" }),
        billing: Schema.optional(Billing).annotations({ description: "Only one-time or only recurring products" })
      }))
      .addSuccess(ProductList)
      .annotateContext(OpenApi.annotations({
        summary: "List products, newest first",
        description: "Filter by `status` and `billing`. Page with `limit` and the previous page's `next_cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/products")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(ProductCreate))
      .addSuccess(ProductResource)
      .addError(E.CurrencyNotSupported)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Create a product",
        description: "`billing` defaults to `one_time`. A `recurring` product needs `billing_interval`; " +
          "`interval_count` defaults to 1 (at most 3 years, 36 months, 156 weeks or 365 days), and may give a " +
          "trial: `trial_period_days` (0 to 365) and, for a paid one, `trial_amount` (fils per unit). `status` " +
          "defaults to `active`: only active products can enter a cart. A currency other than `AED` is `400 " +
          "CURRENCY_NOT_SUPPORTED`. Send an `Idempotency-Key` to retry safely."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/products/:id")
      .setPath(pathId("pdt"))
      .addSuccess(ProductResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a product",
        description: "A product of another account or mode is `404 NOT_FOUND`, exactly like one that does not exist."
      }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/products/:id")
      .setPath(pathId("pdt"))
      .setPayload(strict(ProductUpdate))
      .addSuccess(ProductResource)
      .annotateContext(OpenApi.annotations({
        summary: "Update a product (a price change affects only later checkouts)",
        description: "Any of `name`, `description`, `price`, `status`, `metadata` and the billing fields, with the " +
          "same consistency rules as at creation. `metadata` replaces the whole object. Subscriptions keep " +
          "the amount they started with."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Products",
    description: "What the merchant sells: one-time or recurring, priced in fils."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class CustomersGroup extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.get("list", "/customers")
      .setUrlParams(Schema.Struct({
        ...listParams,
        email: Schema.optional(Email.annotations({ description: "Exact e-mail, case-insensitive" }))
      }))
      .addSuccess(CustomerList)
      .annotateContext(OpenApi.annotations({
        summary: "List customers, newest first",
        description: "Filter by `email` (exact match, case-insensitive). Page with `limit` and `cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/customers")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(CustomerCreate))
      .addSuccess(CustomerResource)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Create a customer",
        description: "`email` is required; `name` (1 to 200 characters) and `phone_number` (E.164) are optional. Send " +
          "an `Idempotency-Key` to retry safely."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:id")
      .setPath(pathId("cus"))
      .addSuccess(CustomerResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a customer",
        description: "A customer of another account or mode is `404 NOT_FOUND`."
      }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/customers/:id")
      .setPath(pathId("cus"))
      .setPayload(strict(CustomerUpdate))
      .addSuccess(CustomerResource)
      .annotateContext(OpenApi.annotations({
        summary: "Update a customer",
        description: "Any of `email`, `name`, `phone_number` and `metadata`; `metadata` replaces the whole object."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Customers",
    description: "The people who pay; sessions given an e-mail reuse or create them."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class CheckoutSessionsGroup extends HttpApiGroup.make("checkoutSessions")
  .add(
    HttpApiEndpoint.post("create", "/checkout_sessions")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(CheckoutSessionCreate))
      .addSuccess(CheckoutSessionResource)
      .addError(E.PaymentsDisabled)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Create a checkout session (a cart of exactly one recurring product starts a subscription)",
        description: "`product_cart`: 1 to 50 lines of active products (`quantity` 1 to 1000, default 1). `customer`: " +
          "an existing `{ customer_id }`, or `{ email, name?, phone_number? }`, which reuses the customer " +
          "with that e-mail or creates one. The session expires 24 hours after creation. The hosted page at " +
          "`checkout_url` takes the card; a declined card answers that page with `402` and leaves the " +
          "session open. The outcome arrives as `payment.succeeded` / `payment.failed` events and, with a " +
          "`return_url`, as a redirect to it with `session_id`, `status` and `payment_id` appended. " +
          "`discount_code` (any case) takes a discount code off the lines it applies to (`discounts` shows it); " +
          "one that is unknown, expired, used up or fits nothing in the cart is `400 INVALID_REQUEST` saying " +
          "which. The customer may also type a code on the page. A subscription starts with its product's " +
          "trial, or `subscription_data.trial_period_days`; `total_amount` is then what is charged today (0 for " +
          "a free trial, which saves the card, completes with no payment and redirects with `subscription_id` " +
          "instead of `payment_id`; a trial takes no discount code). A live " +
          "key on an account without live payments is `403 PAYMENTS_DISABLED`. Send an `Idempotency-Key` to " +
          "retry safely."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/checkout_sessions/:id")
      .setPath(pathId("cks"))
      .addSuccess(CheckoutSessionResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a checkout session",
        description: "`status` is `open`, `complete` (a payment succeeded) or `expired` (24 hours passed; a session " +
          "past `expires_at` reads as expired at once). `payment_id` and `subscription_id` are set once " +
          "paid; a free trial completes with `subscription_id` and no payment."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Checkout sessions",
    description: "A cart and a hosted payment page (`checkout_url`); paying it creates a payment, and for a " +
      "recurring product a subscription."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class CustomerPortalSessionsGroup extends HttpApiGroup.make("customerPortalSessions")
  .add(
    HttpApiEndpoint.post("create", "/customer_portal_sessions")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(PortalSessionCreate))
      .addSuccess(PortalSessionResource)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Create a customer portal session",
        description: "For a customer of this account and mode (another is `404 NOT_FOUND`). Send the customer to " +
          "`url`: it opens the portal once, within an hour (`expires_at`); the browser session it starts lasts an " +
          "hour. There the customer sees their subscriptions and payments, cancels at the period end (or undoes " +
          "it), replaces a subscription's card (one `on_hold` is charged on the new card at once) and prints " +
          "receipts. `return_url` (optional, absolute http(s)) is the portal's link back to you. Send an " +
          "`Idempotency-Key` to retry safely."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/customer_portal_sessions/:id")
      .setPath(pathId("cps"))
      .addSuccess(PortalSessionResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a customer portal session",
        description: "As created. A session of another account or mode is `404 NOT_FOUND`."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Customer portal sessions",
    description: "One-time links to the customer portal, where customers manage their subscriptions, replace " +
      "their card and get receipts."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

/** `GET /payments`' query; also read by the hot route (`ApiMiddleware.ts`). */
export const PaymentListQuery = Schema.Struct({
  ...listParams,
  status: Schema.optional(PaymentStatus).annotations({ description: "Only payments in this status" }),
  customer_id: Schema.optional(idFilter("cus")),
  checkout_session_id: Schema.optional(idFilter("cks"))
})

export class PaymentsGroup extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.get("list", "/payments")
      .setUrlParams(PaymentListQuery)
      .addSuccess(PaymentList)
      .annotateContext(OpenApi.annotations({
        summary: "List payments, newest first",
        description: "Filter by `status`, `customer_id` and `checkout_session_id`. Page with `limit` and `cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/payments/:id")
      .setPath(pathId("pay"))
      .addSuccess(PaymentResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a payment",
        description: "Amounts are in fils. `net_amount = total_amount − fee_amount − refunded_amount`. Refunds are " +
          "operational (CLI or library) and show here as `partially_refunded` / `refunded` with " +
          "`refunded_amount`."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Payments",
    description: "Every charge: one-time checkouts, first subscription charges and renewals."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

/** What every plan change endpoint says of the modes. */
const planChangeDescription = "`product_id`: an active recurring product in AED (month to year and back allowed); " +
  "`quantity` 1 to 1000. `proration_billing_mode`: `prorated_immediately` charges the new plan's first period now, " +
  "less the unused time of the old plan; `full_immediately` charges the new plan in full now; " +
  "`difference_immediately` charges the new plan's price less the old plan's now; these three start a new period " +
  "on the change date (the next billing date moves to one interval after it), and what the old plan gives beyond " +
  "the charge is kept as `credit_balance`, spent by the next renewals. `do_not_bill` charges nothing and keeps the " +
  "billing date. Left out, the mode comes from the new product's `plan_change_policy` (`upgrade` when its price " +
  "per day is higher, else `downgrade`). `effective_at: \"next_billing_date\"` schedules the change instead " +
  "(`scheduled_change`; one at a time): the renewal at that date applies it and charges the new plan in full. " +
  "`discount_codes` are not available on plan changes yet (`400`)."

export class SubscriptionsGroup extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.get("list", "/subscriptions")
      .setUrlParams(Schema.Struct({
        ...listParams,
        status: Schema.optional(SubscriptionStatus).annotations({ description: "Only subscriptions in this status" }),
        customer_id: Schema.optional(idFilter("cus"))
      }))
      .addSuccess(SubscriptionList)
      .annotateContext(OpenApi.annotations({
        summary: "List subscriptions, newest first",
        description: "Filter by `status` and `customer_id`. Page with `limit` and `cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/subscriptions/:id")
      .setPath(pathId("sub"))
      .addSuccess(SubscriptionResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a subscription",
        description: "A failed renewal puts the subscription `on_hold` and retries 1, 3 and 5 days later " +
          "(`next_retry_at`); after the last failure it is `cancelled` with `cancellation_reason: " +
          "payment_failed`."
      }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/subscriptions/:id")
      .setPath(pathId("sub"))
      .setPayload(strict(SubscriptionUpdate))
      .addSuccess(SubscriptionResource)
      .addError(E.InvalidState)
      .annotateContext(OpenApi.annotations({
        summary: "Cancel a subscription now or at the end of its period",
        description: "`status: \"cancelled\"` cancels now (an already cancelled subscription answers `200` unchanged). " +
          "`cancel_at_period_end: true` lets the paid period run out without renewal (`false` undoes it); " +
          "on a cancelled subscription it is `409 INVALID_STATE`. A body with both fields, or neither, is " +
          "`400 INVALID_REQUEST`."
      }))
  )
  .add(
    HttpApiEndpoint.post("changePlan", "/subscriptions/:id/change-plan")
      .setPath(pathId("sub"))
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(PlanChangeRequest))
      .addSuccess(PlanChangeResult)
      .addError(E.InvalidState)
      .addError(E.CardDeclinedError)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Change a subscription's plan (product and quantity), now or at the next billing date",
        description: planChangeDescription +
          " The answer is the subscription after the change and the payment of the charge made now (`null` when " +
          "nothing is charged now). With `on_payment_failure: \"prevent_change\"` a declined charge is `402 " +
          "CARD_DECLINED` and nothing changes but the failed payment; with `apply_change` (the default) the " +
          "subscription is on the new plan and `on_hold`, retried as a failed renewal is. Pass a preview's " +
          "`quote_id` to charge exactly what it showed: a quote older than 30 minutes, or made before the " +
          "subscription or the product changed, is `409 INVALID_STATE`. Send an `Idempotency-Key` to retry safely: " +
          "a retry never charges twice."
      }))
  )
  .add(
    HttpApiEndpoint.post("previewChangePlan", "/subscriptions/:id/change-plan/preview")
      .setPath(pathId("sub"))
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(PlanChangePreviewRequest))
      .addSuccess(PlanChangePreview)
      .addError(E.InvalidState)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Preview a plan change: what it would charge now, and the subscription after it",
        description: planChangeDescription +
          " Changes nothing. `immediate_charge.line_items` are the new plan's first period (`new_plan`) and the " +
          "old plan's part credited (`unused_time`), each rounded to the fils with its VAT; `summary` is what the " +
          "card is charged now (`total_amount`, with its `tax`), the credit it spends and the `credit_balance` left. " +
          "`quote_id` makes the change charge exactly this, within 30 minutes."
      }))
  )
  .add(
    HttpApiEndpoint.post("charge", "/subscriptions/:id/charge")
      .setPath(pathId("sub"))
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(SubscriptionCharge))
      .addSuccess(SubscriptionChargeResult)
      .addError(E.InvalidState)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Charge the subscription's saved card now (an on-demand charge)",
        description: "Charges `product_price` fils (priced as the merchant lists prices: with VAT added when its " +
          "prices exclude it) to the card the subscription renews on, now, as a payment with `billing_reason: " +
          "subscription_charge`; the subscription's period and status do not change. The answer names the payment; " +
          "its outcome is the payment's status (`failed` when the card is declined) and arrives as " +
          "`payment.succeeded` / `payment.failed`. A cancelled subscription is `409 INVALID_STATE`. Send an " +
          "`Idempotency-Key` to retry safely: a retry, even after a lost answer or a crash, gets the same " +
          "`payment_id` and charges nothing more."
      }))
  )
  .add(
    HttpApiEndpoint.del("cancelScheduledChange", "/subscriptions/:id/change-plan/scheduled")
      .setPath(pathId("sub"))
      .addSuccess(SubscriptionResource)
      .annotateContext(OpenApi.annotations({
        summary: "Cancel a subscription's scheduled plan change",
        description: "The subscription without its `scheduled_change`; `404 NOT_FOUND` when it has none."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Subscriptions",
    description: "Renewing charges started by a checkout of one recurring product (after its trial, if it has " +
      "one); their plan can change, and their saved card be charged on demand."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class DiscountsGroup extends HttpApiGroup.make("discounts")
  .add(
    HttpApiEndpoint.get("list", "/discounts")
      .setUrlParams(Schema.Struct(listParams))
      .addSuccess(DiscountList)
      .annotateContext(OpenApi.annotations({
        summary: "List discounts, newest first",
        description: "Page with `limit` and `cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/discounts")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(DiscountCreate))
      .addSuccess(DiscountResource)
      .addError(E.AlreadyExists)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Create a discount code",
        description: "`type` `percentage` takes `amount` basis points (1 to 10000; 1000 is 10 %) off each line it " +
          "applies to, `flat` takes `amount` fils off them together; never more than they cost, and VAT is on " +
          "what is left. `code` (3 to 16 letters, digits, `-`, `_`) is kept as written and matched in any case; " +
          "without one a 16-character code is made up. A code another discount of this mode has, in any case, " +
          "is `409 ALREADY_EXISTS`. `restricted_to` names the products it applies to (empty: all; an unknown " +
          "one is `400`), `usage_limit` how many payments may redeem it, `subscription_cycles` how many billing " +
          "cycles of a subscription it takes off (the first payment included; null: all), `expires_at` when it " +
          "ends (in the future). Send an `Idempotency-Key` to retry safely."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/discounts/:id")
      .setPath(pathId("dsc"))
      .addSuccess(DiscountResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a discount",
        description: "`times_used` counts the times it was redeemed (checkouts paid, trials started, plan changes made). " +
          "A discount of another account or mode is `404 NOT_FOUND`."
      }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/discounts/:id")
      .setPath(pathId("dsc"))
      .setPayload(strict(DiscountUpdate))
      .addSuccess(DiscountResource)
      .addError(E.AlreadyExists)
      .annotateContext(OpenApi.annotations({
        summary: "Update a discount (checkouts already priced keep what they were given)",
        description: "Any of the creation fields. A new `type` comes with its `amount`; `usage_limit` may not go " +
          "below the uses made and being paid for; `restricted_to` and `metadata` replace the whole value; " +
          "`null` clears `usage_limit`, `subscription_cycles`, `expires_at` and `name`. An `expires_at` now or " +
          "past ends the discount at once. A code taken is `409 ALREADY_EXISTS`."
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/discounts/:id")
      .setPath(pathId("dsc"))
      .addSuccess(DiscountDeleted)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a discount for good",
        description: "Its code can no longer be redeemed (an open checkout that carries it is refused at payment) " +
          "and is free for another discount. Subscriptions started with it keep it for their remaining cycles."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Discounts",
    description: "Discount codes that checkout sessions and the hosted page take, and subscriptions keep for a " +
      "number of cycles."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class TestClocksGroup extends HttpApiGroup.make("testClocks")
  .add(
    HttpApiEndpoint.get("list", "/test_clocks")
      .setUrlParams(Schema.Struct(listParams))
      .addSuccess(TestClockList)
      .annotateContext(OpenApi.annotations({
        summary: "List test clocks, newest first",
        description: "Test mode only (a live key gets `404 NOT_FOUND`). Page with `limit` and `cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/test_clocks")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(TestClockCreate))
      .addSuccess(TestClockResource)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Create a test clock",
        description: "Test mode only (a live key gets `404 NOT_FOUND`). `frozen_time` (years 2000 to 2099) is the " +
          "time of the customers created on the clock (`test_clock_id` on `POST /customers`), and of their " +
          "checkout sessions, payments and subscriptions. `name` is optional. Send an `Idempotency-Key` to retry safely."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/test_clocks/:id")
      .setPath(pathId("clk"))
      .addSuccess(TestClockResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a test clock",
        description: "`status` is `advancing` while an advance runs (to `advancing_to`), then `ready`."
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/test_clocks/:id")
      .setPath(pathId("clk"))
      .addSuccess(TestClockDeleted)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a test clock and everything attached to it",
        description: "Its customers go with it, and their checkout sessions, payments, refunds, tax documents and " +
          "subscriptions. The events stay in the record."
      }))
  )
  .add(
    HttpApiEndpoint.post("advance", "/test_clocks/:id/advance")
      .setPath(pathId("clk"))
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(TestClockAdvance))
      .addSuccess(TestClockResource)
      .addError(E.InvalidState)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Advance a test clock, running the work due on it",
        description: "Moves the clock forward to `frozen_time` and runs, in order, what falls due on its objects " +
          "meanwhile: renewals, retries, period-end cancellations, trial ends, scheduled plan changes, session " +
          "expiry; each at its own time, with its events (recorded at the real time). At most two billing periods " +
          "of the clock's shortest plan (two years without subscriptions) per call; backwards or too far is " +
          "`400 INVALID_REQUEST`. The answer is the clock `ready` at the new time; asked again for the same time " +
          "while another request runs it, the clock as it stands (`advancing`). Another time while one runs is " +
          "`409 INVALID_STATE`. Send an `Idempotency-Key` to retry safely."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Test clocks",
    description: "Test-mode time you move yourself: see a month of subscription billing in a second."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .setUrlParams(Schema.Struct(listParams))
      .addSuccess(WebhookList)
      .annotateContext(OpenApi.annotations({
        summary: "List webhook endpoints, newest first",
        description: "Page with `limit` and `cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(WebhookCreate))
      .addSuccess(WebhookWithSecret)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Create a webhook endpoint (the response carries its signing secret)",
        description: "`url` is required (live endpoints need `https` and a public host); `event_types` defaults to the " +
          "seven payment, refund and subscription types (`invoice.issued`, `credit_note.issued`, " +
          "`subscription.plan_changed` and `webhook.disabled` go only to an endpoint that names them). Deliveries are Standard Webhooks POSTs (`webhook-id`, `webhook-timestamp`, " +
          "`webhook-signature`) of `{ id, type, livemode, created_at, data }`; any 2xx within 10 seconds is " +
          "success, and failures are retried for about 27.6 hours. Send an `Idempotency-Key` to retry " +
          "safely."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/webhooks/:id")
      .setPath(pathId("wh"))
      .addSuccess(WebhookResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read a webhook endpoint",
        description: "The signing secret is not part of it; read it with `GET /webhooks/{id}/secret`."
      }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id")
      .setPath(pathId("wh"))
      .setPayload(strict(WebhookUpdate))
      .addSuccess(WebhookResource)
      .annotateContext(OpenApi.annotations({
        summary: "Update a webhook endpoint (disabling it stops its pending deliveries)",
        description: "Any of `url`, `description`, `event_types` and `disabled`."
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:id")
      .setPath(pathId("wh"))
      .addSuccess(WebhookDeleted)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a webhook endpoint for good (its pending deliveries stop)",
        description: "Permanent. A later read of the endpoint is `404 NOT_FOUND`."
      }))
  )
  .add(
    HttpApiEndpoint.get("secret", "/webhooks/:id/secret")
      .setPath(pathId("wh"))
      .addSuccess(WebhookSecret)
      .annotateContext(OpenApi.annotations({
        summary: "Read a webhook endpoint's signing secret",
        description: "`whsec_` followed by base64 of 24 random bytes; the key of the `webhook-signature` HMAC is the " +
          "base64-decoded part after the prefix."
      }))
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries")
      .setPath(pathId("wh"))
      .setUrlParams(Schema.Struct({ ...listParams, limit: Schema.optional(DeliveryLimit) }))
      .addSuccess(WebhookDeliveryList)
      .annotateContext(OpenApi.annotations({
        summary: "List an endpoint's deliveries, newest first, with every attempt",
        description: "Each delivery names its event and type (`test: true` for a test event) and lists its attempts: " +
          "when, the receiver's status (or why it did not answer), the latency, the first 4 KiB of its answer, and " +
          "what was sent: the headers Fils set, with that attempt's timestamp and signatures. The exact body, the " +
          "same on every attempt, is given once as the delivery's `request_body`. The signing secret is never " +
          `shown. Page with \`limit\` (at most ${deliveriesPageMax}: each delivery carries its answers) and \`cursor\`.`
      }))
  )
  .add(
    HttpApiEndpoint.post("test", "/webhooks/:id/test")
      .setPath(pathId("wh"))
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(WebhookTestRequest))
      .addSuccess(DeliveryResource)
      .addError(E.InvalidState)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Send a test event to this endpoint",
        description: "A signed example event of `type` (one the endpoint subscribes to), delivered to this endpoint " +
          "only, through the normal delivery path: it shows in the delivery log. Its body carries `\"test\": true` " +
          "(signed with the rest) and example objects whose ids exist nowhere; it is not part of `GET /events`. A " +
          "disabled endpoint is `409 INVALID_STATE`. The answer is the queued delivery."
      }))
  )
  .add(
    HttpApiEndpoint.post("recover", "/webhooks/:id/recover")
      .setPath(pathId("wh"))
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(WebhookRecoverRequest))
      .addSuccess(WebhookRecovery)
      .addError(E.InvalidState)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotateContext(OpenApi.annotations({
        summary: "Send again every delivery since a time that did not arrive",
        description: "Queues again, now, each delivery of this endpoint made at or after `since` that is `failed` " +
          "(its attempts ran out) or `cancelled` (the endpoint was disabled). Pending and succeeded deliveries are " +
          "left alone, so a second request resends nothing twice. A disabled endpoint is `409 INVALID_STATE`: " +
          "enable it first."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Webhook endpoints",
    description: "Where signed event deliveries (Standard Webhooks) are sent."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

/** A request id, as `X-Request-Id` allows one (1 to 128 plain characters). */
const RequestIdFilter = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, { message: () => "must be a request id (1 to 128 of A-Z a-z 0-9 . _ : -)" })
)

/** ISO 8601 in UTC to the second or millisecond: `2026-11-27T09:00:00Z`. */
const instantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/

/**
 * An instant in a query, as written: ISO 8601 in UTC. A date that does not exist (30 February) is refused, never
 * moved to another day as `Date` would.
 */
export const QueryInstant = Schema.transformOrFail(
  Schema.String.pipe(Schema.pattern(instantPattern, { message: () => "must be an ISO 8601 time in UTC, e.g. 2026-11-27T09:00:00Z" })),
  Schema.DateTimeUtcFromSelf,
  {
    strict: true,
    decode: (text, _, ast) =>
      exists(text)
        ? ParseResult.succeed(DateTime.unsafeMake(Date.parse(text)))
        : ParseResult.fail(new ParseResult.Type(ast, text, "is not a time that exists")),
    encode: (instant) => ParseResult.succeed(DateTime.formatIso(instant))
  }
).annotations({ description: "ISO 8601 in UTC (e.g. `2026-11-27T09:00:00Z`); a date that does not exist is refused" })

export const RequestLogListQuery = Schema.Struct({
  ...listParams,
  status: Schema.optional(Schema.String.pipe(
    Schema.pattern(statusFilterPattern, { message: () => "must be a status code (404) or a class (4xx)" })
  ).annotations({ description: "Only this status (`404`) or class of statuses (`4xx`)" })),
  path: Schema.optional(Schema.String.pipe(
    Schema.pattern(/^\//, { message: () => "must be a path starting with /" }),
    Schema.maxLength(maxPathLength, { message: () => `must be at most ${maxPathLength} characters` })
  ).annotations({ description: "Only requests whose path starts with this (e.g. `/api/v1/payments`)" })),
  key_id: Schema.optional(idFilter("key")),
  request_id: Schema.optional(RequestIdFilter.annotations({ description: "Only the line of this request id" })),
  since: Schema.optional(QueryInstant.annotations({ description: "Only requests made at or after this instant (ISO 8601 in UTC; a date that does not exist is refused)" })),
  until: Schema.optional(QueryInstant.annotations({ description: "Only requests made before this instant (ISO 8601 in UTC; a date that does not exist is refused)" }))
})

export class RequestLogsGroup extends HttpApiGroup.make("requestLogs")
  .add(
    HttpApiEndpoint.get("list", "/request_logs")
      .setUrlParams(RequestLogListQuery)
      .addSuccess(RequestLogList)
      .annotateContext(OpenApi.annotations({
        summary: "List request logs, newest first",
        description: "The API requests of the key's account and mode made in the last 7 days (the operator's " +
          "`FILS_REQUEST_LOG_RETENTION_DAYS`): method, path without its query string, status, error code, duration, " +
          "`Idempotency-Key`, the key that made it and its request id, which the events it caused carry too. Never a " +
          "body. Lines are written a moment after their request is answered; reading them is not logged. Filter by " +
          "`status`, `path`, `key_id`, " +
          "`request_id`, `since` and `until`; page with `limit` and `cursor`."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Request logs",
    description: "What each API request of the account asked and what it was answered, kept for a while."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/events")
      .setUrlParams(Schema.Struct({
        ...listParams,
        type: Schema.optional(EventType).annotations({ description: "Only events of this type" }),
        request_id: Schema.optional(RequestIdFilter.annotations({ description: "Only the events this API request caused" }))
      }))
      .addSuccess(EventList)
      .annotateContext(OpenApi.annotations({
        summary: "List events, newest first",
        description: "Every event of the key's mode, whether or not an endpoint subscribes. Filter by `type`; page " +
          "with `limit` and `cursor`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/events/:id")
      .setPath(pathId("evt"))
      .addSuccess(EventResource)
      .annotateContext(OpenApi.annotations({
        summary: "Read an event",
        description: "`data` is the object right after the change: a payment (`payment.*`; `refund.succeeded` adds " +
          "`refund_amount`), a subscription (`subscription.*`), or the tax invoice or credit note issued " +
          "(`invoice.issued`, `credit_note.issued`)."
      }))
  )
  .annotateContext(OpenApi.annotations({
    title: "Events",
    description: "The record of every state change that webhooks deliver."
  }))
  .middleware(Authentication)
  .prefix(basePath)
{}

/** `GET /invoices` and `GET /credit_notes`' query: the filters every document list takes. */
export const DocumentListQuery = Schema.Struct({
  ...listParams,
  customer_id: Schema.optional(idFilter("cus")),
  payment_id: Schema.optional(idFilter("pay")),
  subscription_id: Schema.optional(idFilter("sub"))
})

/** A document in another form than JSON: the body is text of `contentType` (UTF-8). */
const documentText = (contentType: string, description: string) =>
  Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType })).annotations({ description })
export const PintAeXml = documentText("application/xml", "The PINT AE (Peppol UBL 2.1) document, UTF-8")
export const DocumentHtml = documentText("text/html", "The printable page, English and Arabic, UTF-8")

/**
 * The reads of one kind of tax document: list, JSON, PINT AE XML and the printable page. The two kinds (invoices,
 * credit notes) have the same four endpoints, so they are made by one function.
 */
const documentGroup = <const Name extends string, const Path extends string, Doc extends Schema.Schema.Any, List extends Schema.Schema.Any>(
  name: Name,
  path: Path,
  prefix: string,
  doc: Doc,
  list: List,
  words: { readonly one: string; readonly many: string; readonly title: string; readonly issued: string }
) =>
  HttpApiGroup.make(name)
    .add(
      HttpApiEndpoint.get("list", `/${path}`)
        .setUrlParams(DocumentListQuery)
        .addSuccess(list)
        .annotateContext(OpenApi.annotations({
          summary: `List ${words.many}, newest first`,
          description: `Filter by \`customer_id\`, \`payment_id\` and \`subscription_id\`. Page with \`limit\` and ` +
            `\`cursor\`. ${words.issued}`
        }))
    )
    .add(
      HttpApiEndpoint.get("get", `/${path}/:id`)
        .setPath(pathId(prefix))
        .addSuccess(doc)
        .annotateContext(OpenApi.annotations({
          summary: `Read ${words.one}`,
          description: `As issued: a document never changes. One of another account or mode is \`404 NOT_FOUND\`.`
        }))
    )
    .add(
      HttpApiEndpoint.get("xml", `/${path}/:id/xml`)
        .setPath(pathId(prefix))
        .addSuccess(PintAeXml)
        .annotateContext(OpenApi.annotations({
          summary: `Read ${words.one} as a PINT AE e-invoice (XML)`,
          description: "The UAE's Peppol e-invoice of the document (PINT AE 1.0.4, UBL 2.1), " +
            "`application/xml; charset=utf-8`, as it would be sent to the merchant's Accredited Service Provider."
        }))
    )
    .add(
      HttpApiEndpoint.get("html", `/${path}/:id/html`)
        .setPath(pathId(prefix))
        .addSuccess(DocumentHtml)
        .annotateContext(OpenApi.annotations({
          summary: `Read ${words.one} as a printable page (HTML)`,
          description: "One page in English and Arabic, `text/html; charset=utf-8`, sized for A4 when printed (or " +
            "saved as a PDF). It loads nothing and runs no script; it may not be framed."
        }))
    )
    .annotateContext(OpenApi.annotations({
      title: words.title,
      description: `${words.issued} Read as JSON, as a PINT AE e-invoice or as a printable page.`
    }))
    .middleware(Authentication)
    .prefix(basePath)

export class InvoicesGroup extends documentGroup("invoices", "invoices", "inv", Invoice, InvoiceList, {
  one: "a tax invoice",
  many: "tax invoices",
  title: "Tax invoices",
  issued: "A merchant that charges VAT (its account's `tax_profile`) gets one tax invoice per payment that " +
    "succeeds, numbered `INV-000001`, `INV-000002`… per account and mode without gaps."
}) {}

export class CreditNotesGroup extends documentGroup("creditNotes", "credit_notes", "cn", CreditNote, CreditNoteList, {
  one: "a tax credit note",
  many: "tax credit notes",
  title: "Tax credit notes",
  issued: "A refund of a payment that has a tax invoice gets one tax credit note, which names the invoice it " +
    "corrects, numbered `CN-000001`, `CN-000002`… per account and mode without gaps."
}) {}

export class FilsApi extends HttpApi.make("fils")
  .add(AccountGroup)
  .add(ProductsGroup)
  .add(CustomersGroup)
  .add(CheckoutSessionsGroup)
  .add(PaymentsGroup)
  .add(SubscriptionsGroup)
  .add(CustomerPortalSessionsGroup)
  .add(DiscountsGroup)
  .add(TestClocksGroup)
  .add(WebhooksGroup)
  .add(EventsGroup)
  .add(RequestLogsGroup)
  .add(InvoicesGroup)
  .add(CreditNotesGroup)
  .addError(E.InvalidRequest)
  .addError(E.Unauthorized)
  .addError(E.NotFound)
  .addError(E.MethodNotAllowedError)
  .addError(E.PayloadTooLargeError)
  .addError(E.RateLimited)
  .addError(E.Internal)
  .addError(E.ServiceUnavailable)
  // Only in webhook deliveries (`refund.succeeded`), which the document lists under `webhooks`.
  .annotate(HttpApi.AdditionalSchemas, [RefundedPaymentResource])
  .annotate(OpenApi.Transform, completeDocument)
  .annotate(OpenApi.Title, "Fils API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Payments for merchants who sell in AED: products, customers, discount codes, checkout sessions, payments, " +
      "subscriptions, signed webhooks, and the UAE tax invoices and credit notes they issue. Every error is `{ code, message }`."
  )
{}

