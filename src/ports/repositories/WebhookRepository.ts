/**
 * Webhook endpoints with their deliveries (the outbox).
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Effect, Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { AttemptOutcome, Delivery, DeliveryResource, DeliveryStatus, SentRequest } from "../../domain/Delivery.js"
import type { Event, EventType } from "../../domain/Event.js"
import type { EventId, WebhookId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { WebhookEndpoint } from "../../domain/WebhookEndpoint.js"
import type * as WebhookHealth from "../../domain/WebhookHealth.js"
import type { Op } from "./Op.js"

export interface WebhooksRepo {
  readonly insert: (endpoint: WebhookEndpoint) => Op<void>
  readonly get: (scope: Scope, id: WebhookId) => Op<Option.Option<WebhookEndpoint>>
  /** `get`, locking the row until the transaction ends (inside `transact`): an update reads with it. */
  readonly lock: (scope: Scope, id: WebhookId) => Op<Option.Option<WebhookEndpoint>>
  readonly update: (endpoint: WebhookEndpoint) => Op<void>
  /** Deletes the endpoint for good; its pending deliveries are cancelled with it. */
  readonly delete: (scope: Scope, id: WebhookId) => Op<boolean>
  readonly list: (scope: Scope, page: PageRequest) => Op<Page<WebhookEndpoint>>
  /** The enabled endpoints of the scope that subscribe to `type`. */
  readonly subscribed: (scope: Scope, type: EventType) => Op<ReadonlyArray<WebhookEndpoint>>
  /**
   * The health of each endpoint named (`WebhookHealth.Stored`): its attempts started after `since` and how many of
   * them failed, its failing streak and when Fils disabled it. An endpoint without attempts is `WebhookHealth.none`.
   */
  readonly health: (ids: ReadonlyArray<WebhookId>, since: DateTime.Utc) => Op<ReadonlyMap<string, WebhookHealth.Stored>>
  /** Notes that Fils disabled the endpoint at `at` (inside the transaction that disables it). */
  readonly markAutoDisabled: (id: WebhookId, at: DateTime.Utc) => Op<void>
  /** Forgets the endpoint's failing streak and automatic disabling (it was enabled again). */
  readonly clearHealth: (id: WebhookId) => Op<void>
}

export type { Delivery } from "../../domain/Delivery.js"

/** A claimed attempt: what to send, and to whom. */
export interface ClaimedAttempt {
  readonly delivery: Delivery
  /** The number of this attempt, 1-based. */
  readonly attempt: number
  readonly event: Event
  readonly endpoint: WebhookEndpoint
  /** A test event (`POST /webhooks/{id}/test`): its body says so. */
  readonly test: boolean
  /** The start of the endpoint's failing streak when claimed (`WebhookHealth.failingSinceAfter`), or null. */
  readonly failingSince: DateTime.Utc | null
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
  /** What was sent (kept with the attempt for the delivery log). */
  readonly sent?: SentRequest | undefined
}

/** A delivery with its event's type and its attempts (`DeliveriesRepo.pageOf`). */
export type DeliveryView = Omit<DeliveryResource, "object">

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
   * One endpoint's deliveries, newest first (`created_at`, then id, descending), each with its event's type, whether
   * it is a test, and its recorded attempts by number.
   */
  readonly pageOf: (webhookId: WebhookId, page: PageRequest) => Op<Page<DeliveryView>>
  /**
   * Makes the endpoint's deliveries created at or after `since` that are `failed` or `cancelled` pending and due at
   * `now` again; how many. One that is pending or succeeded is left alone, so asking twice sends each once.
   */
  readonly recover: (webhookId: WebhookId, since: DateTime.Utc, now: DateTime.Utc) => Op<number>
  /**
   * Completes when new deliveries may be due (PostgreSQL: LISTEN/NOTIFY on commit) or after `timeoutMillis`,
   * whichever comes first; the dispatcher's polling is the fallback.
   */
  readonly awaitWork: (timeoutMillis: number) => Effect.Effect<void>
}

/** Webhook endpoints with their deliveries (the outbox). */
export type WebhookRepositoryShape = WebhooksRepo & { readonly deliveries: DeliveriesRepo }

export class WebhookRepository extends Context.Tag("fils/WebhookRepository")<WebhookRepository, WebhookRepositoryShape>() {}
