/**
 * `fils`: the engine. Its use cases (Effect services) and `Engine`, the one layer that builds them from the ports;
 * the domain (values, schemas, state machines, errors); and the ports an embedding team provides.
 *
 * Domain modules are namespaces (`Product.ProductCreate`, `Payment.transition`); services, ports, errors and ids are
 * named exports. Only `effect` is needed: stores, HTTP and Node adapters live in `fils/memory`, `fils/sql`,
 * `fils/http` and `fils/node`.
 */

import { ChargeOutcomes } from "./application/ChargeOutcomes.js"

// Use cases -----------------------------------------------------------------------------------------------------------
export { Engine } from "./application/Engine.js"
export {
  type AccountSettings,
  Accounts,
  type AccountsError,
  type IssuedKey,
  type Principal,
  revealKey,
  type ShownKey
} from "./application/Accounts.js"
export { Billing, type BillingOptions, type BillingReport } from "./application/Billing.js"
export { type RenewalOptions, Renewals } from "./application/Renewals.js"
export { Checkout, type PayResult } from "./application/Checkout.js"
export { type CustomerListParams, Customers } from "./application/Customers.js"
export { Deliveries } from "./application/Deliveries.js"
export { type DiscountDeleted, type DiscountListParams, Discounts } from "./application/Discounts.js"
export { EventRecorder, type EventListParams, Events } from "./application/Events.js"
export { IdempotencyService, type IdempotentResult } from "./application/Idempotency.js"
export { type PaymentListParams, Payments } from "./application/Payments.js"
export { type CardReplaced, PaymentMethods } from "./application/PaymentMethods.js"
export { type PlanChangePreview, type PlanChangeResult, PlanChanges } from "./application/PlanChanges.js"
export { Portal, PortalLinkGone, type PortalOverview, type ReceiptView } from "./application/Portal.js"
export { ChargeOutcomes, type ChargeReport, lookedUpCharge } from "./application/ChargeOutcomes.js"
/** @deprecated Renamed `ChargeOutcomes` (what the processor said about charges, recorded); this name goes in 1.0. */
export const Settlement = ChargeOutcomes
/** @deprecated Renamed `ChargeOutcomes`. */
export type Settlement = ChargeOutcomes
export { Refunds, type RefundResultView } from "./application/Refunds.js"
export {
  compare as reconcile,
  type Mismatch,
  type MismatchKind,
  Reconciliation,
  type ReconcileReport
} from "./application/Reconciliation.js"
export { type ProductListParams, Products } from "./application/Products.js"
export { RateLimits } from "./application/RateLimits.js"
export { RequestLogs, type RequestLogListParams } from "./application/RequestLogs.js"
export { type ChargeMade, SubscriptionCharges } from "./application/SubscriptionCharges.js"
export { type SubscriptionListParams, Subscriptions } from "./application/Subscriptions.js"
export { type TestClockDeleted, type TestClockListParams, TestClocks } from "./application/TestClocks.js"
export { ClockTime } from "./application/ClockTime.js"
export { type Signed, Users } from "./application/Users.js"
export { type Overview, type Period, Reports } from "./application/Reports.js"
export { type WebhookListParams, Webhooks } from "./application/Webhooks.js"

// Domain --------------------------------------------------------------------------------------------------------------
export * as Account from "./domain/Account.js"
export * as Calendar from "./domain/Calendar.js"
export * as CheckoutForm from "./domain/CheckoutForm.js"
export * as CheckoutSession from "./domain/CheckoutSession.js"
export * as Customer from "./domain/Customer.js"
export * as DashboardUser from "./domain/DashboardUser.js"
export * as Delivery from "./domain/Delivery.js"
export * as Discount from "./domain/Discount.js"
export * as Event from "./domain/Event.js"
export * as RequestLog from "./domain/RequestLog.js"
export * as Idempotency from "./domain/Idempotency.js"
export * as Ids from "./domain/Ids.js"
export * as Metadata from "./domain/Metadata.js"
export * as Money from "./domain/Money.js"
export * as Network from "./domain/Network.js"
export * as Pagination from "./domain/Pagination.js"
export * as Payment from "./domain/Payment.js"
export * as PlanChange from "./domain/PlanChange.js"
export * as PlanPolicy from "./domain/PlanPolicy.js"
export * as Credit from "./domain/Credit.js"
export * as PortalSession from "./domain/PortalSession.js"
export * as Product from "./domain/Product.js"
export * as RateWindow from "./domain/RateWindow.js"
export * as Receipt from "./domain/Receipt.js"
export * as Refund from "./domain/Refund.js"
export * as Subscription from "./domain/Subscription.js"
export * as TestClock from "./domain/TestClock.js"
export * as WebhookEndpoint from "./domain/WebhookEndpoint.js"
export * as WebhookHealth from "./domain/WebhookHealth.js"
export * from "./domain/Errors.js"
export {
  AccountId,
  ApiKeyId,
  CheckoutSessionId,
  CustomerId,
  DeliveryId,
  DiscountId,
  EventId,
  PaymentId,
  PortalSessionId,
  RefundId,
  ProductId,
  SubscriptionId,
  TestClockId,
  WebhookId
} from "./domain/Ids.js"

// Ports ---------------------------------------------------------------------------------------------------------------
export {
  type CardDetails,
  type ChargeRequest,
  type ChargeResult,
  type Movement,
  PaymentProcessor,
  type PaymentProcessorShape,
  ProcessorUnavailable,
  type RefundOutcome,
  type RefundResult,
  type SaveCardResult
} from "./ports/PaymentProcessor.js"
export { Signer, type SignerShape, WebhookSignatureInvalid } from "./ports/Signer.js"
export { plaintextBox, SecretBox, SecretBoxError, type SecretBoxShape } from "./ports/SecretBox.js"
export {
  AccountRepository,
  type AccountRepositoryShape,
  type AccountsRepo,
  type ApiKeysRepo,
  CheckoutSessionRepository,
  type CheckoutSessionRepositoryShape,
  type ClaimedAttempt,
  type CustomerFilter,
  CustomerRepository,
  type CustomerRepositoryShape,
  type CustomersRepo,
  type DeliveriesRepo,
  DiscountRepository,
  type DiscountRepositoryShape,
  type DiscountsRepo,
  // `Delivery` is the domain namespace above; the stored outbox row is this.
  type Delivery as DeliveryRecord,
  type DeliveryFilter,
  type EventFilter,
  EventRepository,
  type EventRepositoryShape,
  type EventsRepo,
  type IdempotencyRepo,
  IdempotencyRepository,
  type IdempotencyRepositoryShape,
  layerStore,
  type PaymentFilter,
  PaymentRepository,
  type PaymentRepositoryShape,
  type PaymentsRepo,
  PortalSessionRepository,
  type PortalSessionRepositoryShape,
  type PortalSessionsRepo,
  ProductRepository,
  type ProductRepositoryShape,
  type ProductsRepo,
  RateLimitRepository,
  type RateLimitRepositoryShape,
  type RateLimitsRepo,
  type RefundsRepo,
  type RenewalAttempt,
  RequestLogRepository,
  type RequestLogRepositoryShape,
  type RequestLogsRepo,
  type Repositories,
  repositories,
  type SessionsRepo,
  Store,
  type StoreShape,
  type SubscriptionFilter,
  SubscriptionRepository,
  type SubscriptionRepositoryShape,
  type SubscriptionsRepo,
  type TestClocksRepo,
  TestClockRepository,
  Transactions,
  type TransactionsShape,
  UserRepository,
  type UserRepositoryShape,
  WebhookRepository,
  type WebhookRepositoryShape,
  type WebhooksRepo
} from "./ports/Store.js"
export { type HostCheck, type OutboundRequest, WebhookTransport, type WebhookTransportShape } from "./ports/WebhookTransport.js"
