/**
 * The Store port: durable state for every aggregate. Every read and write of merchant data is scoped to one
 * account and mode, which is how test keys never see live data and no account sees another's.
 *
 * Adapters: `StoreSql` (PostgreSQL) and `StoreMemory`; one contract test suite runs against both.
 */
import type { DateTime, Effect, Option } from "effect"
import { Context } from "effect"
import type { Account, ApiKey, Scope } from "../domain/Account.js"
import type { CheckoutSession } from "../domain/CheckoutSession.js"
import type { Customer } from "../domain/Customer.js"
import type { StoreUnavailable } from "../domain/Errors.js"
import type { Claim, IdempotencyRecord, StoredResponse } from "../domain/Idempotency.js"
import type { Event, EventType } from "../domain/Event.js"
import type { AccountId, ApiKeyId, CheckoutSessionId, CustomerId, EventId, PaymentId, ProductId } from "../domain/Ids.js"
import type { Page, PageRequest } from "../domain/Pagination.js"
import type { Payment, PaymentStatus } from "../domain/Payment.js"
import type { Product, ProductFilter } from "../domain/Product.js"
import type { RateDecision } from "../domain/RateWindow.js"

type Op<A> = Effect.Effect<A, StoreUnavailable>

export interface AccountsRepo {
  readonly insert: (account: Account) => Op<void>
  readonly get: (id: AccountId) => Op<Option.Option<Account>>
  readonly update: (account: Account) => Op<void>
  readonly count: Op<number>
}

export interface ApiKeysRepo {
  readonly insert: (key: ApiKey) => Op<void>
  readonly findByHash: (hash: string) => Op<Option.Option<ApiKey>>
  readonly get: (id: ApiKeyId) => Op<Option.Option<ApiKey>>
  /** Sets `revoked_at` once; returns the key as it is afterwards. */
  readonly revoke: (id: ApiKeyId, at: DateTime.Utc) => Op<Option.Option<ApiKey>>
}

export interface ProductsRepo {
  readonly insert: (product: Product) => Op<void>
  readonly get: (scope: Scope, id: ProductId) => Op<Option.Option<Product>>
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
  readonly get: (scope: Scope, id: CheckoutSessionId) => Op<Option.Option<CheckoutSession>>
  /**
   * By id alone, for the hosted page (the session id is the customer's capability). Inside `transact` the row is
   * locked until the transaction ends (`FOR UPDATE`), so two submissions of one session are serialized.
   */
  readonly find: (id: CheckoutSessionId) => Op<Option.Option<CheckoutSession>>
  readonly update: (session: CheckoutSession) => Op<void>
  /**
   * Sessions still `open` whose `expires_at` is at or before `now` and that have no `processing` payment, oldest
   * first, at most `limit`. Inside `transact` they are locked and skipped by other claimers (`SKIP LOCKED`).
   */
  readonly claimExpired: (now: DateTime.Utc, limit: number) => Op<ReadonlyArray<CheckoutSession>>
}

export interface PaymentFilter {
  readonly status?: PaymentStatus | undefined
  readonly customer_id?: CustomerId | undefined
  readonly checkout_session_id?: CheckoutSessionId | undefined
}

export interface PaymentsRepo {
  readonly insert: (payment: Payment) => Op<void>
  readonly get: (scope: Scope, id: PaymentId) => Op<Option.Option<Payment>>
  /** By id alone (operator refunds). Inside `transact` the row is locked until the transaction ends. */
  readonly find: (id: PaymentId) => Op<Option.Option<Payment>>
  readonly update: (payment: Payment) => Op<void>
  readonly list: (scope: Scope, filter: PaymentFilter, page: PageRequest) => Op<Page<Payment>>
  /** Whether the session has a payment still `processing` (a second submission must wait for it). */
  readonly hasProcessing: (sessionId: CheckoutSessionId) => Op<boolean>
  /**
   * Payments still `processing`, oldest first, at most `limit`; inside `transact` locked and skipped by other
   * claimers (`SKIP LOCKED`).
   */
  readonly claimProcessing: (limit: number) => Op<ReadonlyArray<Payment>>
}

export interface EventFilter {
  readonly type?: EventType | undefined
}

export interface EventsRepo {
  readonly insert: (event: Event) => Op<void>
  readonly get: (scope: Scope, id: EventId) => Op<Option.Option<Event>>
  readonly list: (scope: Scope, filter: EventFilter, page: PageRequest) => Op<Page<Event>>
}

export interface IdempotencyRepo {
  /**
   * Atomically takes the key for a new request (see `Idempotency.canClaim`), recording its fingerprint with no
   * response; otherwise returns the record that holds the key.
   */
  readonly claim: (record: IdempotencyRecord, now: DateTime.Utc) => Op<Claim>
  /** Stores the finished request's response on the record it claimed. */
  readonly complete: (scope: string, key: string, fingerprint: string, response: StoredResponse) => Op<void>
  /** Gives the key up (a response not worth replaying); a retry runs afresh. */
  readonly release: (scope: string, key: string, fingerprint: string) => Op<void>
}

export interface RateLimitsRepo {
  /**
   * Counts one request against `bucket` if the rolling window allows it (see `RateWindow.hit`), atomically: any
   * number of servers sharing the store share the limit.
   */
  readonly hit: (bucket: string, nowMillis: number, limit: number, windowSeconds: number) => Op<RateDecision>
}

export interface StoreShape {
  /**
   * Runs `effect` as one transaction: all of its writes commit together or none do. Nested calls join the outer
   * transaction.
   */
  readonly transact: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
  /** Whether the store answers now (readiness). */
  readonly ping: Op<void>
  readonly accounts: AccountsRepo
  readonly apiKeys: ApiKeysRepo
  readonly products: ProductsRepo
  readonly customers: CustomersRepo
  readonly sessions: SessionsRepo
  readonly payments: PaymentsRepo
  readonly events: EventsRepo
  readonly idempotency: IdempotencyRepo
  readonly rateLimits: RateLimitsRepo
}

export class Store extends Context.Tag("fils/Store")<Store, StoreShape>() {}
