/**
 * The Store port: durable state for every aggregate. Every read and write of merchant data is scoped to one
 * account and mode, which is how test keys never see live data and no account sees another's.
 *
 * Adapters: `StoreSql` (PostgreSQL) and `StoreMemory`; one contract test suite runs against both.
 */
import type { DateTime, Effect, Option, Stream } from "effect"
import { Context } from "effect"
import type { Account, ApiKey, Scope } from "../domain/Account.js"
import type { CheckoutSession } from "../domain/CheckoutSession.js"
import type { Customer } from "../domain/Customer.js"
import type { AuditEntry, DashboardSession, DashboardUser, SignInLink, UserId } from "../domain/DashboardUser.js"
import type { StoreUnavailable } from "../domain/Errors.js"
import type { Claim, IdempotencyRecord, StoredResponse } from "../domain/Idempotency.js"
import type { Event, EventType } from "../domain/Event.js"
import type {
  AccountId,
  ApiKeyId,
  CheckoutSessionId,
  CustomerId,
  EventId,
  PaymentId,
  PortalSessionId,
  ProductId,
  RefundId,
  SubscriptionId,
  WebhookId
} from "../domain/Ids.js"
import type { Page, PageRequest, Position } from "../domain/Pagination.js"
import type { Payment, PaymentStatus } from "../domain/Payment.js"
import type { PortalSession } from "../domain/PortalSession.js"
import type { Product, ProductFilter } from "../domain/Product.js"
import type { Refund } from "../domain/Refund.js"
import type { Subscription, SubscriptionStatus } from "../domain/Subscription.js"
import type { AttemptOutcome, DeliveryStatus } from "../domain/Delivery.js"
import type { WebhookEndpoint } from "../domain/WebhookEndpoint.js"
import type { RateDecision, ShareRequest } from "../domain/RateWindow.js"

type Op<A> = Effect.Effect<A, StoreUnavailable>

export interface AccountsRepo {
  readonly insert: (account: Account) => Op<void>
  readonly get: (id: AccountId) => Op<Option.Option<Account>>
  readonly update: (account: Account) => Op<void>
  readonly count: Op<number>
  /** Every account, oldest first (the operator's `fils accounts list`). */
  readonly list: Op<ReadonlyArray<Account>>
}

export interface ApiKeysRepo {
  readonly insert: (key: ApiKey) => Op<void>
  readonly findByHash: (hash: string) => Op<Option.Option<ApiKey>>
  readonly get: (id: ApiKeyId) => Op<Option.Option<ApiKey>>
  /** A scope's keys, revoked ones included, newest first. */
  readonly list: (scope: Scope) => Op<ReadonlyArray<ApiKey>>
  /** Records that a key was used at `at` (kept only if later than what is recorded). */
  readonly touch: (id: ApiKeyId, at: DateTime.Utc) => Op<void>
  /** When each of `ids` was last used, for those used at all. */
  readonly lastUsed: (ids: ReadonlyArray<ApiKeyId>) => Op<ReadonlyArray<{ readonly key_id: ApiKeyId; readonly last_used_at: DateTime.Utc }>>
  /** Sets `revoked_at` once; returns the key as it is afterwards. Every process sharing the store hears of it. */
  readonly revoke: (id: ApiKeyId, at: DateTime.Utc) => Op<Option.Option<ApiKey>>
  /**
   * The keys revoked through any process sharing this store, as they are revoked, so that a cache of key lookups can
   * drop them at once; `anyKey` when some may have been missed (the stream started or reconnected), to drop all.
   */
  readonly revocations: Stream.Stream<ApiKeyId | typeof anyKey>
}

/** In `ApiKeysRepo.revocations`: any key may have been revoked unheard. */
export const anyKey = "*" as const

export interface ProductsRepo {
  readonly insert: (product: Product) => Op<void>
  /** Several at once, in one write (products created together: `Products.create` gathers them). */
  readonly insertAll: (products: ReadonlyArray<Product>) => Op<void>
  readonly get: (scope: Scope, id: ProductId) => Op<Option.Option<Product>>
  /** Several of the scope at once (a cart's), in one statement: those that exist, in no particular order. */
  readonly getAll: (scope: Scope, ids: ReadonlyArray<ProductId>) => Op<ReadonlyArray<Product>>
  /**
   * By id alone, several at once, in one statement: those that exist, each once, in byte order of their ids. For
   * reads gathered from several scopes (`batchedReads`), which keep each caller's own.
   */
  readonly findAll: (ids: ReadonlyArray<ProductId>) => Op<ReadonlyArray<Product>>
  readonly update: (product: Product) => Op<void>
  readonly list: (scope: Scope, filter: ProductFilter, page: PageRequest) => Op<Page<Product>>
}

export interface CustomerFilter {
  /** Case-insensitive match on the e-mail. */
  readonly email?: string | undefined
}

export interface CustomersRepo {
  readonly insert: (customer: Customer) => Op<void>
  readonly get: (scope: Scope, id: CustomerId) => Op<Option.Option<Customer>>
  readonly update: (customer: Customer) => Op<void>
  readonly list: (scope: Scope, filter: CustomerFilter, page: PageRequest) => Op<Page<Customer>>
  /** The newest customer with this e-mail (case-insensitive) in the scope. */
  readonly findByEmail: (scope: Scope, email: string) => Op<Option.Option<Customer>>
}

export interface SessionsRepo {
  readonly insert: (session: CheckoutSession) => Op<void>
  /** Many at once (one statement): all of them, or none on failure. */
  readonly insertAll: (sessions: ReadonlyArray<CheckoutSession>) => Op<void>
  readonly get: (scope: Scope, id: CheckoutSessionId) => Op<Option.Option<CheckoutSession>>
  /**
   * By id alone, for the hosted page (the session id is the customer's capability). Inside `transact` the row is
   * locked until the transaction ends (`FOR UPDATE`), so two submissions of one session are serialized.
   */
  readonly find: (id: CheckoutSessionId) => Op<Option.Option<CheckoutSession>>
  readonly update: (session: CheckoutSession) => Op<void>
  /** A scope's sessions, newest first (the dashboard's list). */
  readonly list: (scope: Scope, page: PageRequest) => Op<Page<CheckoutSession>>
  /**
   * Sessions still `open` whose `expires_at` is at or before `now` and that have no `processing` payment, oldest
   * first, at most `limit`, only of mode `livemode` when given. Inside `transact` they are locked and skipped by other claimers (`SKIP LOCKED`).
   */
  readonly claimExpired: (now: DateTime.Utc, limit: number, livemode?: boolean) => Op<ReadonlyArray<CheckoutSession>>
}

export interface PaymentFilter {
  readonly status?: PaymentStatus | undefined
  readonly customer_id?: CustomerId | undefined
  readonly checkout_session_id?: CheckoutSessionId | undefined
  readonly subscription_id?: SubscriptionId | undefined
  /** Created at or after this instant (the dashboard's date range). */
  readonly created_from?: DateTime.Utc | undefined
  /** Created before this instant. */
  readonly created_before?: DateTime.Utc | undefined
}

export interface PaymentsRepo {
  readonly insert: (payment: Payment) => Op<void>
  /** Several at once (a batch of renewals), in one statement. */
  readonly insertAll: (payments: ReadonlyArray<Payment>) => Op<void>
  readonly get: (scope: Scope, id: PaymentId) => Op<Option.Option<Payment>>
  /** By id alone (operator refunds). Inside `transact` the row is locked until the transaction ends. */
  readonly find: (id: PaymentId) => Op<Option.Option<Payment>>
  /**
   * `find` for several (a batch of charge outcomes), in one statement: those that exist, by id. Inside `transact`
   * they are locked in that order, so two batches that share payments cannot deadlock.
   */
  readonly findAll: (ids: ReadonlyArray<PaymentId>) => Op<ReadonlyArray<Payment>>
  readonly update: (payment: Payment) => Op<void>
  /** `update` for each of a batch, in one statement. */
  readonly updateAll: (payments: ReadonlyArray<Payment>) => Op<void>
  readonly list: (scope: Scope, filter: PaymentFilter, page: PageRequest) => Op<Page<Payment>>
  /** Whether the session has a payment still `processing` (a second submission must wait for it). */
  readonly hasProcessing: (sessionId: CheckoutSessionId) => Op<boolean>
  /**
   * Payments still `processing`, oldest first, at most `limit`, only of mode `livemode` when given. A read, not a
   * claim: several servers may ask the processor about one payment at once, which is safe because each call
   * carries the payment's reference as its idempotency key and recording an outcome twice changes nothing.
   */
  readonly listProcessing: (limit: number, livemode?: boolean) => Op<ReadonlyArray<Payment>>
  /**
   * Every payment of every account and mode created at or after `since`, oldest first by (created_at, id), after
   * `after` when given, at most `limit`: what reconciliation reads, page by page.
   */
  readonly since: (since: DateTime.Utc, after: Position | undefined, limit: number) => Op<ReadonlyArray<Payment>>
  /**
   * The scope's payments created on or after `since`'s UTC date (whole days), summed (the dashboard's home), with
   * each day's gross volume.
   */
  readonly summary: (scope: Scope, since: DateTime.Utc) => Op<PaymentSummary>
}

/** Payments summed over a time range. Days are UTC dates (`YYYY-MM-DD`), only those with a payment. */
export interface PaymentSummary {
  /** Total of succeeded (and since refunded) payments. */
  readonly gross: number
  readonly fees: number
  readonly refunded: number
  readonly succeeded: number
  readonly failed: number
  readonly daily: ReadonlyArray<{ readonly day: string; readonly gross: number }>
}

export interface RefundsRepo {
  readonly insert: (refund: Refund) => Op<void>
  readonly update: (refund: Refund) => Op<void>
  /** By id. Inside `transact` the row is locked until the transaction ends, so a refund is ended once. */
  readonly find: (id: RefundId) => Op<Option.Option<Refund>>
  /** The refunds of a payment, oldest first. */
  readonly ofPayment: (id: PaymentId) => Op<ReadonlyArray<Refund>>
  /** Refunds still `pending`, oldest first, at most `limit` (a read: looking one up twice is harmless). */
  readonly listPending: (limit: number) => Op<ReadonlyArray<Refund>>
  /** As `PaymentsRepo.since`, for refunds. */
  readonly since: (since: DateTime.Utc, after: Position | undefined, limit: number) => Op<ReadonlyArray<Refund>>
}

export interface SubscriptionFilter {
  readonly status?: SubscriptionStatus | undefined
  readonly customer_id?: CustomerId | undefined
}

/** One charge of a subscription: the renewal of `period` (attempt 0) or one of its retries (1, 2, 3). */
export interface RenewalAttempt {
  readonly subscription_id: SubscriptionId
  readonly period: number
  readonly attempt: number
  readonly payment_id: PaymentId
}

export interface SubscriptionsRepo {
  readonly insert: (subscription: Subscription) => Op<void>
  readonly get: (scope: Scope, id: SubscriptionId) => Op<Option.Option<Subscription>>
  /** By id alone (billing). Inside `transact` the row is locked until the transaction ends (`FOR UPDATE`). */
  readonly find: (id: SubscriptionId) => Op<Option.Option<Subscription>>
  /** `find` for several, in one statement: those that exist, by id, locked in that order inside `transact`. */
  readonly findAll: (ids: ReadonlyArray<SubscriptionId>) => Op<ReadonlyArray<Subscription>>
  readonly update: (subscription: Subscription) => Op<void>
  /** `update` for each of a batch, in one statement. */
  readonly updateAll: (subscriptions: ReadonlyArray<Subscription>) => Op<void>
  readonly list: (scope: Scope, filter: SubscriptionFilter, page: PageRequest) => Op<Page<Subscription>>
  /**
   * Subscriptions with work due at `now`: `active` ones whose `next_billing_date` is at or before it, `on_hold`
   * ones whose `next_retry_at` is; earliest due first, at most `limit`, only of mode `livemode` when given. Not
   * those whose due attempt (period + 1, `failed_payment_attempts`) is already recorded: that charge is at the
   * processor on some server, and a claimer that took them would find nothing to do while other work waits. Inside
   * `transact` they are locked and skipped by other claimers (`SKIP LOCKED`).
   */
  readonly claimDue: (now: DateTime.Utc, limit: number, livemode?: boolean) => Op<ReadonlyArray<Subscription>>
  /**
   * Records that `attempt` of `period` is being charged, once: false when it was recorded before (by this or any
   * other server). The store guarantees this with a uniqueness rule, so a period's attempt is never charged twice.
   */
  readonly recordAttempt: (attempt: RenewalAttempt) => Op<boolean>
  /** `recordAttempt` for each of a batch, in one statement: whether each was recorded here, in order. */
  readonly recordAttempts: (attempts: ReadonlyArray<RenewalAttempt>) => Op<ReadonlyArray<boolean>>
  /** The attempts recorded for a subscription, by period then attempt. */
  readonly attempts: (id: SubscriptionId) => Op<ReadonlyArray<RenewalAttempt>>
  /** The scope's active subscriptions' recurring amounts, summed by schedule (for monthly recurring revenue). */
  readonly recurring: (scope: Scope) => Op<ReadonlyArray<{
    readonly billing_interval: Subscription["billing_interval"]
    readonly interval_count: number
    readonly subscriptions: number
    readonly amount: number
  }>>
}

export interface WebhooksRepo {
  readonly insert: (endpoint: WebhookEndpoint) => Op<void>
  readonly get: (scope: Scope, id: WebhookId) => Op<Option.Option<WebhookEndpoint>>
  readonly update: (endpoint: WebhookEndpoint) => Op<void>
  /** Deletes the endpoint for good; its pending deliveries are cancelled with it. */
  readonly delete: (scope: Scope, id: WebhookId) => Op<boolean>
  readonly list: (scope: Scope, page: PageRequest) => Op<Page<WebhookEndpoint>>
  /** The enabled endpoints of the scope that subscribe to `type`. */
  readonly subscribed: (scope: Scope, type: EventType) => Op<ReadonlyArray<WebhookEndpoint>>
}

/** One delivery of one event to one endpoint, with its attempts so far. */
export interface Delivery {
  readonly delivery_id: string
  readonly event_id: EventId
  readonly webhook_id: WebhookId
  readonly account_id: AccountId
  readonly livemode: boolean
  readonly status: DeliveryStatus
  /** Attempts started so far (a claimed attempt counts even if its server died before sending). */
  readonly attempts: number
  readonly next_attempt_at: DateTime.Utc | null
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly created_at: DateTime.Utc
  readonly updated_at: DateTime.Utc
}

/** A claimed attempt: what to send, and to whom. */
export interface ClaimedAttempt {
  readonly delivery: Delivery
  /** The number of this attempt, 1-based. */
  readonly attempt: number
  readonly event: Event
  readonly endpoint: WebhookEndpoint
}

export interface DeliveryFilter {
  readonly event_id?: EventId | undefined
  readonly webhook_id?: WebhookId | undefined
  readonly status?: DeliveryStatus | undefined
}

/** How one delivery attempt went (`DeliveriesRepo.recordAttempt`). */
export interface AttemptRecord {
  readonly deliveryId: string
  readonly attempt: number
  readonly startedAt: DateTime.Utc
  readonly outcome: AttemptOutcome
  readonly nextAttemptAt: DateTime.Utc | undefined
}

export interface DeliveriesRepo {
  /** Queues deliveries (inside the transaction that records their event). */
  readonly enqueue: (deliveries: ReadonlyArray<Delivery>) => Op<void>
  /**
   * Claims up to `limit` pending deliveries due at `now` whose lease is free, oldest due first: each one's
   * `attempts` goes up by one and it is leased until `now + leaseMillis`, so no other server starts the same
   * attempt; a server that dies mid-attempt loses the lease and the delivery is claimed again. Atomic.
   * Only deliveries whose endpoint exists and is enabled (§7: a disabled one receives nothing new), and no more than
   * `Delivery.inFlightPerEndpoint` per endpoint and `Delivery.inFlightPerAccount` per account leased at once, counting
   * the leases already running (on every server).
   */
  readonly claimDue: (now: DateTime.Utc, limit: number, leaseMillis: number) => Op<ReadonlyArray<ClaimedAttempt>>
  /**
   * Records how `attempt` went: succeeded, or pending again at `nextAttemptAt`, or failed for good when
   * `nextAttemptAt` is undefined. Ignored when the delivery moved on meanwhile (cancelled, or retried by hand).
   */
  readonly recordAttempt: (record: AttemptRecord) => Op<void>
  /**
   * `recordAttempt` for several attempts at once, each with the same rules: one round trip and one commit for a
   * dispatcher's burst of finished attempts.
   */
  readonly recordAttempts: (records: ReadonlyArray<AttemptRecord>) => Op<void>
  /** Cancels the pending deliveries of an endpoint (disabled or deleted). */
  readonly cancelFor: (webhookId: WebhookId) => Op<number>
  readonly get: (id: string) => Op<Option.Option<Delivery>>
  /** Makes a delivery pending and due at `now` again, whatever its status (operators redeliver by hand). */
  readonly retry: (id: string, now: DateTime.Utc) => Op<Option.Option<Delivery>>
  readonly list: (filter: DeliveryFilter, limit: number) => Op<ReadonlyArray<Delivery>>
  /** The attempts of a delivery, by attempt number. */
  readonly attemptsOf: (id: string) => Op<ReadonlyArray<{
    readonly attempt: number
    readonly started_at: DateTime.Utc
    readonly status_code: number | null
    readonly error: string | null
    readonly duration_ms: number
  }>>
  /**
   * Completes when new deliveries may be due (PostgreSQL: LISTEN/NOTIFY on commit) or after `timeoutMillis`,
   * whichever comes first; the dispatcher's polling is the fallback.
   */
  readonly awaitWork: (timeoutMillis: number) => Effect.Effect<void>
}

export interface EventFilter {
  readonly type?: EventType | undefined
  /** The events about this payment or subscription (see `Event.subjects`). */
  readonly payment_id?: PaymentId | undefined
  readonly subscription_id?: SubscriptionId | undefined
}

export interface EventsRepo {
  readonly insert: (event: Event) => Op<void>
  /** Several at once, in one statement. */
  readonly insertAll: (events: ReadonlyArray<Event>) => Op<void>
  readonly get: (scope: Scope, id: EventId) => Op<Option.Option<Event>>
  readonly list: (scope: Scope, filter: EventFilter, page: PageRequest) => Op<Page<Event>>
}

/** What `IdempotencyRepo.complete` takes, as one value. */
export interface IdempotencyCompletion {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
  readonly response: StoredResponse
}

/** What `IdempotencyRepo.answerAll` takes for one request: its response and the lease its claim took. */
export interface IdempotencyAnswer {
  readonly completion: IdempotencyCompletion
  readonly lockedUntil: DateTime.Utc
}

export interface IdempotencyRepo {
  /**
   * Atomically takes the key for a new request (see `Idempotency.canClaim`), recording its fingerprint with no
   * response; otherwise returns the record that holds the key.
   */
  readonly claim: (record: IdempotencyRecord, now: DateTime.Utc) => Op<Claim>
  /**
   * `claim` for many records at once, each answered as if claimed one after another in the given order (a key
   * given twice: the second meets the first's record).
   */
  readonly claimAll: (records: ReadonlyArray<IdempotencyRecord>, now: DateTime.Utc) => Op<ReadonlyArray<Claim>>
  /** Stores the finished request's response on the record it claimed. */
  readonly complete: (scope: string, key: string, fingerprint: string, response: StoredResponse) => Op<void>
  /** `complete` for many records at once (one statement), each as `complete` would. */
  readonly completeAll: (completions: ReadonlyArray<IdempotencyCompletion>) => Op<void>
  /**
   * Stores successful requests' responses, inside the transaction of their work (`transact`), each on the record it
   * still holds: same fingerprint, no response yet and its own lease (`lockedUntil`, as claimed). One statement for
   * all; for each, false when a retry took the key over after the lease ran out: its work must not be written, and
   * the retry's answer stands.
   */
  readonly answerAll: (answers: ReadonlyArray<IdempotencyAnswer>) => Op<ReadonlyArray<boolean>>
  /** Gives the key up (a response not worth replaying); a retry runs afresh. */
  readonly release: (scope: string, key: string, fingerprint: string) => Op<void>
}

export interface RateLimitsRepo {
  /**
   * Counts `count` requests (default 1) against `bucket` as far as the rolling window allows (see `RateWindow.hit`),
   * atomically: any number of servers sharing the store share the limit. With `lease`, gives back what an earlier
   * share did not hand out and takes a share for the server to hand out (`RateLease`).
   */
  readonly hit: (
    bucket: string,
    nowMillis: number,
    limit: number,
    windowSeconds: number,
    count?: number,
    lease?: ShareRequest
  ) => Op<RateDecision>
}

export interface DashboardRepo {
  /**
   * A user without a password is a pending invitation of its account. Refused (a defect) when the account already
   * has a user with the e-mail; insert and update are refused when the user has a password and another user with a
   * password has the e-mail: a person signs in as one user, of one account.
   */
  readonly insertUser: (user: DashboardUser) => Op<void>
  readonly updateUser: (user: DashboardUser) => Op<void>
  /**
   * Saves a user who sets a password (`user` with it), unless another user with a password has the e-mail: false
   * then, and nothing changed. Two of them at once: one is saved.
   */
  readonly setPassword: (user: DashboardUser) => Op<boolean>
  readonly deleteUser: (id: UserId) => Op<void>
  readonly getUser: (id: UserId) => Op<Option.Option<DashboardUser>>
  /** The user with this e-mail who has set a password (compared case-insensitively): the one who signs in with it. */
  readonly findUserByEmail: (email: string) => Op<Option.Option<DashboardUser>>
  /** An account's users, oldest first. */
  readonly listUsers: (accountId: AccountId) => Op<ReadonlyArray<DashboardUser>>
  readonly insertLink: (link: SignInLink) => Op<void>
  readonly findLink: (tokenHash: string) => Op<Option.Option<SignInLink>>
  /**
   * Takes a sign-in link at `now`, atomically: marks it used and returns it when it is unused and unexpired; `None`
   * otherwise (a link works once, whoever is first).
   */
  readonly takeLink: (tokenHash: string, now: DateTime.Utc) => Op<Option.Option<SignInLink>>
  readonly insertSession: (session: DashboardSession) => Op<void>
  readonly findSession: (tokenHash: string) => Op<Option.Option<DashboardSession>>
  readonly touchSession: (tokenHash: string, at: DateTime.Utc) => Op<void>
  readonly deleteSession: (tokenHash: string) => Op<void>
  /** Signs a user out everywhere. */
  readonly deleteSessionsOf: (id: UserId) => Op<void>
  readonly insertAudit: (entry: AuditEntry) => Op<void>
  /** An account's audit log, newest first, at most `limit`. */
  readonly listAudit: (accountId: AccountId, limit: number) => Op<ReadonlyArray<AuditEntry>>
}

export interface PortalSessionsRepo {
  readonly insert: (session: PortalSession) => Op<void>
  readonly get: (scope: Scope, id: PortalSessionId) => Op<Option.Option<PortalSession>>
  /** By the digest of its link's secret. */
  readonly findByToken: (tokenHash: string) => Op<Option.Option<PortalSession>>
  /** By the digest of the browser session's cookie. */
  readonly findByCookie: (cookieHash: string) => Op<Option.Option<PortalSession>>
  /**
   * Records the link's opening (what `PortalSession.open` gave), atomically: only if it was not opened meanwhile.
   * Whether it was recorded (a link opens once, whoever is first).
   */
  readonly markOpened: (session: PortalSession) => Op<boolean>
  /** Ends the browser session at `at` (signing out): its cookie names no live session from then on. */
  readonly endBrowsing: (id: PortalSessionId, at: DateTime.Utc) => Op<void>
}

/** Counts an operator watches (`GET /metrics`), read at once from the shared store, so they hold for every server. */
export interface StoreStats {
  /** Webhook deliveries now, by status and mode. */
  readonly deliveries: ReadonlyArray<{ readonly status: DeliveryStatus; readonly livemode: boolean; readonly count: number }>
  /** Renewal charges recorded (renewals and retries, one per period attempt), by their payment's status and mode. */
  readonly renewals: ReadonlyArray<{ readonly status: PaymentStatus; readonly livemode: boolean; readonly count: number }>
}

export interface StoreShape {
  /**
   * Runs `effect` as one transaction: all of its writes commit together or none do. Nested calls join the outer
   * transaction.
   */
  readonly transact: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
  /**
   * Whether the current fiber runs inside `transact`. Writes gathered into batches (`Batched.ts`) run on a fiber of
   * their own, outside any caller's transaction, so a caller inside one writes directly instead.
   */
  readonly inTransaction: Effect.Effect<boolean>
  /** Whether the store answers now (readiness). */
  readonly ping: Op<void>
  readonly accounts: AccountsRepo
  readonly apiKeys: ApiKeysRepo
  readonly products: ProductsRepo
  readonly customers: CustomersRepo
  readonly sessions: SessionsRepo
  readonly payments: PaymentsRepo
  readonly refunds: RefundsRepo
  readonly dashboard: DashboardRepo
  readonly portalSessions: PortalSessionsRepo
  readonly events: EventsRepo
  readonly subscriptions: SubscriptionsRepo
  readonly webhooks: WebhooksRepo
  readonly deliveries: DeliveriesRepo
  readonly idempotency: IdempotencyRepo
  readonly rateLimits: RateLimitsRepo
  /** Delivery and renewal counts (a few grouped counts; for metrics scrapes, not for hot paths). */
  readonly stats: Op<StoreStats>
}

export class Store extends Context.Tag("fils/Store")<Store, StoreShape>() {}
