/**
 * The engine: every use case, built from the ports. An embedding team provides `Store`, `Signer`,
 * `PaymentProcessor`, `WebhookTransport`, `EInvoiceProvider` and `EInvoiceWriter` and uses the services.
 */
import { Layer } from "effect"
import { Accounts } from "./Accounts.js"
import { Billing } from "./Billing.js"
import { Checkout } from "./Checkout.js"
import { CreatedOnce } from "./CreatedOnce.js"
import { ClockTime } from "./ClockTime.js"
import { Customers } from "./Customers.js"
import { Discounts } from "./Discounts.js"
import { Deliveries } from "./Deliveries.js"
import { EInvoices } from "./EInvoices.js"
import { EventRecorder, Events } from "./Events.js"
import { PaymentMethods } from "./PaymentMethods.js"
import { Payments } from "./Payments.js"
import { PlanChanges } from "./PlanChanges.js"
import { Portal } from "./Portal.js"
import { ChargeOutcomes } from "./ChargeOutcomes.js"
import { IdempotencyService } from "./Idempotency.js"
import { Products } from "./Products.js"
import { Reconciliation } from "./Reconciliation.js"
import { Refunds } from "./Refunds.js"
import { Renewals } from "./Renewals.js"
import { RateLimits } from "./RateLimits.js"
import { RequestLogs } from "./RequestLogs.js"
import { SubscriptionCharges } from "./SubscriptionCharges.js"
import { Subscriptions } from "./Subscriptions.js"
import { TaxDocuments } from "./TaxDocuments.js"
import { TestClocks } from "./TestClocks.js"
import { Users } from "./Users.js"
import { Reports } from "./Reports.js"
import { Webhooks } from "./Webhooks.js"

/**
 * Every use case. Each service names the services it builds on (`dependencies`), so the order here is none:
 * a service several others need is built once (layers are shared by reference).
 */
export const Engine = Layer.mergeAll(
  Accounts.Default,
  Billing.Default,
  Checkout.Default,
  CreatedOnce.Default,
  ClockTime.Default,
  Customers.Default,
  Deliveries.Default,
  Discounts.Default,
  EInvoices.Default,
  EventRecorder.Default,
  Events.Default,
  IdempotencyService.Default,
  PaymentMethods.Default,
  Payments.Default,
  PlanChanges.Default,
  Portal.Default,
  Products.Default,
  RateLimits.Default,
  RequestLogs.Default,
  Reconciliation.Default,
  Refunds.Default,
  Renewals.Default,
  Reports.Default,
  ChargeOutcomes.Default,
  SubscriptionCharges.Default,
  Subscriptions.Default,
  TaxDocuments.Default,
  TestClocks.Default,
  Users.Default,
  Webhooks.Default
)
