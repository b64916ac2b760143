/**
 * The event log.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { Event, EventType } from "../../domain/Event.js"
import type { EventId, PaymentId, SubscriptionId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { Op } from "./Op.js"

export interface EventFilter {
  readonly type?: EventType | undefined
  /** The events about this payment or subscription (see `Event.subjects`). */
  readonly payment_id?: PaymentId | undefined
  readonly subscription_id?: SubscriptionId | undefined
  /** The events one API request caused (`Event.request_id`). */
  readonly request_id?: string | undefined
}

export interface EventsRepo {
  readonly insert: (event: Event) => Op<void>
  /** Several at once, in one statement. */
  readonly insertAll: (events: ReadonlyArray<Event>) => Op<void>
  /**
   * Writes a test event (`POST /webhooks/{id}/test`): delivered as any other, but not part of the record (`get` and
   * `list` leave it out). Gives back the event as stored: a delivery's body is made from it, and a store may keep
   * the data's keys in an order of its own (PostgreSQL's `jsonb` does).
   */
  readonly insertTest: (event: Event) => Op<Event>
  readonly get: (scope: Scope, id: EventId) => Op<Option.Option<Event>>
  readonly list: (scope: Scope, filter: EventFilter, page: PageRequest) => Op<Page<Event>>
}

/** The event log. */
export type EventRepositoryShape = EventsRepo

export class EventRepository extends Context.Tag("fils/EventRepository")<EventRepository, EventRepositoryShape>() {}
