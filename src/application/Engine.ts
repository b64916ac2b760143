/**
 * The engine: every use case, built from the ports. An embedding team provides `Store`, `Signer`,
 * `PaymentProcessor` and `WebhookTransport` and uses the services.
 */
import { Layer } from "effect"
import { Accounts } from "./Accounts.js"
import { Billing } from "./Billing.js"
import { Checkout } from "./Checkout.js"
import { Customers } from "./Customers.js"
import { Deliveries } from "./Deliveries.js"
import { Events } from "./Events.js"
import { PaymentMethods } from "./PaymentMethods.js"
import { Payments } from "./Payments.js"
import { Portal } from "./Portal.js"
import { Settlement } from "./Settlement.js"
import { IdempotencyService } from "./Idempotency.js"
import { Products } from "./Products.js"
import { Reconciliation } from "./Reconciliation.js"
import { Refunds } from "./Refunds.js"
import { Renewals } from "./Renewals.js"
import { RateLimits } from "./RateLimits.js"
import { Subscriptions } from "./Subscriptions.js"
import { Users } from "./Users.js"
import { Reports } from "./Reports.js"
import { Webhooks } from "./Webhooks.js"

/** The use cases that others build on. */
const Core = Layer.mergeAll(
  Accounts.Default,
  Products.Default,
  Customers.Default,
  IdempotencyService.Default,
  RateLimits.Default,
  Events.Default,
  Payments.Default,
  Subscriptions.Default,
  Webhooks.Default,
  Deliveries.Default,
  Reconciliation.Default,
  Users.Default,
  Reports.Default
).pipe(Layer.provideMerge(Refunds.Default), Layer.provideMerge(Settlement.Default))

export const Engine = Layer.merge(Billing.Default, Portal.Default).pipe(
  Layer.provideMerge(PaymentMethods.Default),
  Layer.provideMerge(Layer.merge(Checkout.Default, Renewals.Default)),
  Layer.provideMerge(Core)
)
