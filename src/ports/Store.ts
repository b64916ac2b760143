/**
 * The Store port: durable state for every aggregate. Every read and write of merchant data is scoped to one
 * account and mode, which is how test keys never see live data and no account sees another's.
 *
 * An adapter implements the whole store (`StoreShape`); use cases see only the repositories they name, each a Tag
 * of its own (`./repositories/`), and `Transactions`. `layerStore` provides all of them from one implementation.
 *
 * Adapters: `StoreSql` (PostgreSQL) and `StoreMemory`; one contract test suite runs against both.
 */
import type { DeliveryStatus } from "../domain/Delivery.js"
import type { PaymentStatus } from "../domain/Payment.js"
import type { Scope } from "effect"
import { Context, Effect, Layer } from "effect"
import { AccountRepository, type AccountsRepo, type ApiKeysRepo } from "./repositories/AccountRepository.js"
import { CheckoutSessionRepository, type SessionsRepo } from "./repositories/CheckoutSessionRepository.js"
import { CustomerRepository, type CustomersRepo } from "./repositories/CustomerRepository.js"
import { DiscountRepository, type DiscountsRepo } from "./repositories/DiscountRepository.js"
import { DocumentRepository, type DocumentsRepo } from "./repositories/DocumentRepository.js"
import { EInvoiceRepository, type EInvoicesRepo } from "./repositories/EInvoiceRepository.js"
import { EventRepository, type EventsRepo } from "./repositories/EventRepository.js"
import { IdempotencyRepository, type IdempotencyRepo } from "./repositories/IdempotencyRepository.js"
import type { Op } from "./repositories/Op.js"
import { PaymentRepository, type PaymentsRepo, type RefundsRepo } from "./repositories/PaymentRepository.js"
import { PortalSessionRepository, type PortalSessionsRepo } from "./repositories/PortalSessionRepository.js"
import { ProductRepository, type ProductsRepo } from "./repositories/ProductRepository.js"
import { RateLimitRepository, type RateLimitsRepo } from "./repositories/RateLimitRepository.js"
import { RequestLogRepository, type RequestLogsRepo } from "./repositories/RequestLogRepository.js"
import { SubscriptionRepository, type SubscriptionsRepo } from "./repositories/SubscriptionRepository.js"
import { TestClockRepository, type TestClocksRepo } from "./repositories/TestClockRepository.js"
import { UserRepository, type DashboardRepo } from "./repositories/UserRepository.js"
import { type DeliveriesRepo, WebhookRepository, type WebhooksRepo } from "./repositories/WebhookRepository.js"
import { Transactions, type TransactionsShape } from "./Transactions.js"

export * from "./repositories/AccountRepository.js"
export * from "./repositories/CheckoutSessionRepository.js"
export * from "./repositories/CustomerRepository.js"
export * from "./repositories/DiscountRepository.js"
export * from "./repositories/DocumentRepository.js"
export * from "./repositories/EInvoiceRepository.js"
export * from "./repositories/EventRepository.js"
export * from "./repositories/IdempotencyRepository.js"
export * from "./repositories/PaymentRepository.js"
export * from "./repositories/PortalSessionRepository.js"
export * from "./repositories/ProductRepository.js"
export * from "./repositories/RateLimitRepository.js"
export * from "./repositories/RequestLogRepository.js"
export * from "./repositories/SubscriptionRepository.js"
export * from "./repositories/TestClockRepository.js"
export * from "./repositories/UserRepository.js"
export * from "./repositories/WebhookRepository.js"
export * from "./Transactions.js"

/** Counts an operator watches (`GET /metrics`), read at once from the shared store, so they hold for every server. */
export interface StoreStats {
  /** Webhook deliveries now, by status and mode. */
  readonly deliveries: ReadonlyArray<{ readonly status: DeliveryStatus; readonly livemode: boolean; readonly count: number }>
  /** Renewal charges recorded (renewals and retries, one per period attempt), by their payment's status and mode. */
  readonly renewals: ReadonlyArray<{ readonly status: PaymentStatus; readonly livemode: boolean; readonly count: number }>
}

/** The whole store, as an adapter implements it: every repository, its transactions, readiness and counts. */
export interface StoreShape extends TransactionsShape {
  /** Whether the store answers now (readiness). */
  readonly ping: Op<void>
  readonly accounts: AccountsRepo
  readonly apiKeys: ApiKeysRepo
  readonly products: ProductsRepo
  readonly customers: CustomersRepo
  readonly discounts: DiscountsRepo
  readonly sessions: SessionsRepo
  readonly payments: PaymentsRepo
  readonly refunds: RefundsRepo
  readonly documents: DocumentsRepo
  readonly dashboard: DashboardRepo
  readonly portalSessions: PortalSessionsRepo
  readonly events: EventsRepo
  readonly subscriptions: SubscriptionsRepo
  readonly testClocks: TestClocksRepo
  readonly webhooks: WebhooksRepo
  readonly deliveries: DeliveriesRepo
  readonly einvoices: EInvoicesRepo
  readonly idempotency: IdempotencyRepo
  readonly rateLimits: RateLimitsRepo
  readonly requestLogs: RequestLogsRepo
  /** Delivery and renewal counts (a few grouped counts; for metrics scrapes, not for hot paths). */
  readonly stats: Op<StoreStats>
}

export class Store extends Context.Tag("fils/Store")<Store, StoreShape>() {}

/** Every repository's Tag, and `Transactions`: what the use cases may depend on. */
export type Repositories =
  | AccountRepository
  | CheckoutSessionRepository
  | CustomerRepository
  | DiscountRepository
  | DocumentRepository
  | EInvoiceRepository
  | EventRepository
  | IdempotencyRepository
  | PaymentRepository
  | PortalSessionRepository
  | ProductRepository
  | RateLimitRepository
  | RequestLogRepository
  | SubscriptionRepository
  | TestClockRepository
  | Transactions
  | UserRepository
  | WebhookRepository

/** The repositories of one store, each under its Tag. */
export const repositories = (store: StoreShape): Context.Context<Repositories> =>
  Context.make(Transactions, { transact: store.transact, inTransaction: store.inTransaction }).pipe(
    Context.add(AccountRepository, { ...store.accounts, keys: store.apiKeys }),
    Context.add(CheckoutSessionRepository, store.sessions),
    Context.add(CustomerRepository, store.customers),
    Context.add(DiscountRepository, store.discounts),
    Context.add(DocumentRepository, store.documents),
    Context.add(EInvoiceRepository, store.einvoices),
    Context.add(EventRepository, store.events),
    Context.add(IdempotencyRepository, store.idempotency),
    Context.add(PaymentRepository, { ...store.payments, refunds: store.refunds }),
    Context.add(PortalSessionRepository, store.portalSessions),
    Context.add(ProductRepository, store.products),
    Context.add(RateLimitRepository, store.rateLimits),
    Context.add(RequestLogRepository, store.requestLogs),
    Context.add(SubscriptionRepository, store.subscriptions),
    Context.add(TestClockRepository, store.testClocks),
    Context.add(UserRepository, store.dashboard),
    Context.add(WebhookRepository, { ...store.webhooks, deliveries: store.deliveries })
  )

/** The `Store` that `make` builds (scoped: its resources live as long as the layer), with every repository of it. */
export const layerStore = <E, R>(
  make: Effect.Effect<StoreShape, E, R>
): Layer.Layer<Store | Repositories, E, Exclude<R, Scope.Scope>> =>
  Layer.scopedContext(Effect.map(make, (store) => Context.add(repositories(store), Store, store)))
