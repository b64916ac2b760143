/**
 * The HTTP contract of Fils (`/api/v1`): groups, endpoints, schemas and errors with their statuses. The server,
 * the OpenAPI document and the typed client are all derived from this one definition.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { AccountResource } from "../../src/domain/Account.js"
import { CheckoutSessionCreate, CheckoutSessionResource } from "../../src/domain/CheckoutSession.js"
import { CustomerCreate, CustomerResource, CustomerUpdate } from "../../src/domain/Customer.js"
import { EventResource, EventType } from "../../src/domain/Event.js"
import { maxKeyLength } from "../../src/domain/Idempotency.js"
import { ListResource } from "../../src/domain/Pagination.js"
import { PaymentResource, PaymentStatus } from "../../src/domain/Payment.js"
import { Billing, ProductCreate, ProductResource, ProductStatus, ProductUpdate } from "../../src/domain/Product.js"
import { SubscriptionResource, SubscriptionStatus, SubscriptionUpdate } from "../../src/domain/Subscription.js"
import { WebhookCreate, WebhookResource, WebhookUpdate, WebhookWithSecret } from "../../src/domain/WebhookEndpoint.js"
import type { Principal } from "../../src/application/Accounts.js"
import * as E from "./Errors.js"

export const basePath = "/api/v1"

/** The caller, provided to every handler by `Authentication`. */
export class CurrentPrincipal extends Context.Tag("fils/http/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("fils/http/Authentication", {
  failure: Schema.Union(E.Unauthorized, E.RateLimited, E.ServiceUnavailable),
  provides: CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "A secret key: `sk_test_…` for test data, `sk_live_…` for live data")
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
      jsonSchema: { type: "string", pattern: `^${prefix}_[0-9a-f]{32}$` },
      description: `A \`${prefix}_\` id`
    })
  })

export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.pipe(Schema.minLength(1), Schema.maxLength(maxKeyLength)).annotations({
      message: () => `must be 1 to ${maxKeyLength} characters`,
      description: "Makes the request safe to retry for 24 hours: a retry with the same key and body returns the " +
        "first response (with `Idempotent-Replayed: true`) and creates nothing new."
    })
  )
})

const Limit = Schema.String.pipe(
  Schema.pattern(/^[0-9]{1,3}$/),
  Schema.compose(Schema.NumberFromString),
  Schema.int(),
  Schema.between(1, 100)
).annotations({
  description: "Page size, 1 to 100 (default 20)",
  message: () => "must be an integer from 1 to 100"
})
const listParams = {
  limit: Schema.optional(Limit),
  cursor: Schema.optional(Schema.String.annotations({ description: "The `next_cursor` of the previous page" }))
}

export const ProductList = ListResource(ProductResource, "ProductList")
export const CustomerList = ListResource(CustomerResource, "CustomerList")
export const PaymentList = ListResource(PaymentResource, "PaymentList")
export const EventList = ListResource(EventResource, "EventList")
export const SubscriptionList = ListResource(SubscriptionResource, "SubscriptionList")
export const WebhookList = ListResource(WebhookResource, "WebhookList")
export const WebhookDeleted = Schema.Struct({
  object: Schema.Literal("webhook"),
  webhook_id: Schema.String,
  deleted: Schema.Literal(true)
}).annotations({ identifier: "WebhookDeleted" })
export const WebhookSecret = Schema.Struct({ secret: Schema.String }).annotations({ identifier: "WebhookSecret" })

/** A filter by id: any string, documented with its pattern; one of the wrong shape simply matches nothing. */
const idFilter = (prefix: string) =>
  Schema.String.annotations({ jsonSchema: { type: "string", pattern: `^${prefix}_[0-9a-f]{32}$` } })

export class AccountGroup extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("get", "/account")
      .addSuccess(AccountResource)
      .annotate(OpenApi.Summary, "Read the account as the calling key's mode sees it")
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

export class ProductsGroup extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.get("list", "/products")
      .setUrlParams(Schema.Struct({
        ...listParams,
        status: Schema.optional(ProductStatus),
        billing: Schema.optional(Billing)
      }))
      .addSuccess(ProductList)
      .annotate(OpenApi.Summary, "List products, newest first")
  )
  .add(
    HttpApiEndpoint.post("create", "/products")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(ProductCreate))
      .addSuccess(ProductResource)
      .addError(E.CurrencyNotSupported)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotate(OpenApi.Summary, "Create a product")
  )
  .add(
    HttpApiEndpoint.get("get", "/products/:id")
      .setPath(pathId("pdt"))
      .addSuccess(ProductResource)
      .annotate(OpenApi.Summary, "Read a product")
  )
  .add(
    HttpApiEndpoint.patch("update", "/products/:id")
      .setPath(pathId("pdt"))
      .setPayload(strict(ProductUpdate))
      .addSuccess(ProductResource)
      .annotate(OpenApi.Summary, "Update a product (a price change affects only later checkouts)")
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

export class CustomersGroup extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.get("list", "/customers")
      .setUrlParams(Schema.Struct({
        ...listParams,
        email: Schema.optional(Schema.String.annotations({ description: "Exact e-mail, case-insensitive" }))
      }))
      .addSuccess(CustomerList)
      .annotate(OpenApi.Summary, "List customers, newest first")
  )
  .add(
    HttpApiEndpoint.post("create", "/customers")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(CustomerCreate))
      .addSuccess(CustomerResource)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotate(OpenApi.Summary, "Create a customer")
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:id")
      .setPath(pathId("cus"))
      .addSuccess(CustomerResource)
      .annotate(OpenApi.Summary, "Read a customer")
  )
  .add(
    HttpApiEndpoint.patch("update", "/customers/:id")
      .setPath(pathId("cus"))
      .setPayload(strict(CustomerUpdate))
      .addSuccess(CustomerResource)
      .annotate(OpenApi.Summary, "Update a customer")
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

/**
 * The framework declares its own decode error on every endpoint; Fils answers those as `INVALID_REQUEST`
 * (ErrorMapping.ts), so the document shows only that.
 */
function withoutFrameworkDecodeError(spec: Record<string, any>): Record<string, any> {
  const decodeRef = "#/components/schemas/HttpApiDecodeError"
  for (const path of Object.values<any>(spec.paths ?? {})) {
    for (const operation of Object.values<any>(path)) {
      const bad = operation?.responses?.["400"]
      const schema = bad?.content?.["application/json"]?.schema
      if (schema?.anyOf) {
        const rest = schema.anyOf.filter((s: any) => s.$ref !== decodeRef)
        bad.content["application/json"].schema = rest.length === 1 ? rest[0] : { anyOf: rest }
        bad.description = "The request is malformed or invalid"
      }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete spec.components?.schemas?.[name]
  return spec
}

export class CheckoutSessionsGroup extends HttpApiGroup.make("checkoutSessions")
  .add(
    HttpApiEndpoint.post("create", "/checkout_sessions")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(CheckoutSessionCreate))
      .addSuccess(CheckoutSessionResource)
      .addError(E.PaymentsDisabled)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotate(
        OpenApi.Summary,
        "Create a checkout session; send the customer to its checkout_url (a cart of exactly one recurring " +
          "product starts a subscription)"
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/checkout_sessions/:id")
      .setPath(pathId("cks"))
      .addSuccess(CheckoutSessionResource)
      .annotate(OpenApi.Summary, "Read a checkout session")
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

export class PaymentsGroup extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.get("list", "/payments")
      .setUrlParams(Schema.Struct({
        ...listParams,
        status: Schema.optional(PaymentStatus),
        customer_id: Schema.optional(idFilter("cus")),
        checkout_session_id: Schema.optional(idFilter("cks"))
      }))
      .addSuccess(PaymentList)
      .annotate(OpenApi.Summary, "List payments, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", "/payments/:id")
      .setPath(pathId("pay"))
      .addSuccess(PaymentResource)
      .annotate(OpenApi.Summary, "Read a payment")
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

export class SubscriptionsGroup extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.get("list", "/subscriptions")
      .setUrlParams(Schema.Struct({
        ...listParams,
        status: Schema.optional(SubscriptionStatus),
        customer_id: Schema.optional(idFilter("cus"))
      }))
      .addSuccess(SubscriptionList)
      .annotate(OpenApi.Summary, "List subscriptions, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", "/subscriptions/:id")
      .setPath(pathId("sub"))
      .addSuccess(SubscriptionResource)
      .annotate(OpenApi.Summary, "Read a subscription")
  )
  .add(
    HttpApiEndpoint.patch("update", "/subscriptions/:id")
      .setPath(pathId("sub"))
      .setPayload(strict(SubscriptionUpdate))
      .addSuccess(SubscriptionResource)
      .addError(E.InvalidState)
      .annotate(
        OpenApi.Summary,
        "Cancel now (`status: \"cancelled\"`) or at the period end (`cancel_at_period_end`); exactly one of the two"
      )
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .setUrlParams(Schema.Struct(listParams))
      .addSuccess(WebhookList)
      .annotate(OpenApi.Summary, "List webhook endpoints, newest first")
  )
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .setHeaders(IdempotencyHeaders)
      .setPayload(strict(WebhookCreate))
      .addSuccess(WebhookWithSecret)
      .addError(E.IdempotencyKeyInUse)
      .addError(E.IdempotencyKeyReused)
      .annotate(
        OpenApi.Summary,
        "Create a webhook endpoint; the response carries its signing secret (whsec_…). Live endpoints need https " +
          "and a public host."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/webhooks/:id")
      .setPath(pathId("wh"))
      .addSuccess(WebhookResource)
      .annotate(OpenApi.Summary, "Read a webhook endpoint")
  )
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id")
      .setPath(pathId("wh"))
      .setPayload(strict(WebhookUpdate))
      .addSuccess(WebhookResource)
      .annotate(OpenApi.Summary, "Update a webhook endpoint (disabling it stops its pending deliveries)")
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:id")
      .setPath(pathId("wh"))
      .addSuccess(WebhookDeleted)
      .annotate(OpenApi.Summary, "Delete a webhook endpoint for good (its pending deliveries stop)")
  )
  .add(
    HttpApiEndpoint.get("secret", "/webhooks/:id/secret")
      .setPath(pathId("wh"))
      .addSuccess(WebhookSecret)
      .annotate(OpenApi.Summary, "Read a webhook endpoint's signing secret")
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/events")
      .setUrlParams(Schema.Struct({ ...listParams, type: Schema.optional(EventType) }))
      .addSuccess(EventList)
      .annotate(OpenApi.Summary, "List events, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", "/events/:id")
      .setPath(pathId("evt"))
      .addSuccess(EventResource)
      .annotate(OpenApi.Summary, "Read an event")
  )
  .middleware(Authentication)
  .prefix(basePath)
{}

export class FilsApi extends HttpApi.make("fils")
  .add(AccountGroup)
  .add(ProductsGroup)
  .add(CustomersGroup)
  .add(CheckoutSessionsGroup)
  .add(PaymentsGroup)
  .add(SubscriptionsGroup)
  .add(WebhooksGroup)
  .add(EventsGroup)
  .addError(E.InvalidRequest)
  .addError(E.Unauthorized)
  .addError(E.NotFound)
  .addError(E.MethodNotAllowedError)
  .addError(E.PayloadTooLargeError)
  .addError(E.RateLimited)
  .addError(E.Internal)
  .addError(E.ServiceUnavailable)
  .annotate(OpenApi.Transform, withoutFrameworkDecodeError)
  .annotate(OpenApi.Title, "Fils API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Payments for merchants who sell in AED: products, customers, checkout sessions, payments, subscriptions and " +
      "signed webhooks. Every error is `{ code, message }`."
  )
{}

