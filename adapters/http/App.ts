/**
 * The HTTP application as layers, independent of how it is served: the Node server (`Server.ts`), a fetch-style
 * handler, or a test server all use `HttpAppLive`. It needs the engine's services and the Store.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Config, Effect, Layer } from "effect"
import { FilsApi } from "./Api.js"
import { AuthenticationLive } from "./Authentication.js"
import { makeApiMiddleware } from "./ApiMiddleware.js"
import { AccountLive } from "./handlers/Account.js"
import { CheckoutSessionsLive } from "./handlers/CheckoutSessions.js"
import { CustomerPortalSessionsLive } from "./handlers/CustomerPortalSessions.js"
import { CustomersLive } from "./handlers/Customers.js"
import { DiscountsLive } from "./handlers/Discounts.js"
import { CreditNotesLive, InvoicesLive } from "./handlers/Documents.js"
import { EventsLive } from "./handlers/Events.js"
import { PaymentsLive } from "./handlers/Payments.js"
import { ProductsLive } from "./handlers/Products.js"
import { RequestLogsLive } from "./handlers/RequestLogs.js"
import { SubscriptionsLive } from "./handlers/Subscriptions.js"
import { TestClocksLive } from "./handlers/TestClocks.js"
import { WebhooksLive } from "./handlers/Webhooks.js"
import { CheckoutPageRoutes } from "./checkout/Routes.js"
import { DashboardRoutes } from "./dashboard/Routes.js"
import { PortalRoutes } from "./portal/Routes.js"
import { DocsRoutes, SystemRoutes } from "./System.js"
import { MetricsRoutes } from "./Metrics.js"

export const ApiLive = HttpApiBuilder.api(FilsApi).pipe(
  Layer.provide([AccountLive, ProductsLive, CustomersLive, CheckoutSessionsLive, PaymentsLive, SubscriptionsLive,
    CustomerPortalSessionsLive, DiscountsLive, TestClocksLive, WebhooksLive, EventsLive, RequestLogsLive, InvoicesLive,
    CreditNotesLive]),
  Layer.provide(AuthenticationLive)
)

/** Around the API's router: the request checks and error mapping, and the hot reads in front (`ApiMiddleware.ts`). */
const ApiMiddleware = HttpApiBuilder.middleware(FilsApi, makeApiMiddleware).pipe(Layer.provide(AuthenticationLive))

/** The merchant dashboard under `/dashboard`, unless `FILS_DASHBOARD=false` leaves it out. */
const DashboardWhenOn = Layer.unwrapEffect(
  Effect.map(
    Config.boolean("FILS_DASHBOARD").pipe(Config.withDefault(true)),
    (on) => (on ? DashboardRoutes : Layer.empty)
  )
)

/** Everything `HttpApiBuilder.serve` / `httpApp` / `toWebHandler` need, in one layer. */
export const HttpAppLive = Layer.mergeAll(
  ApiLive,
  ApiMiddleware,
  SystemRoutes,
  MetricsRoutes,
  CheckoutPageRoutes,
  DashboardWhenOn,
  PortalRoutes,
  DocsRoutes.pipe(Layer.provide(ApiLive))
)
